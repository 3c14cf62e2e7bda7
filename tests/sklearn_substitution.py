"""A pytest plugin that runs scikit-learn's own test modules against alphavb's classes.

Loaded with ``-p tests.sklearn_substitution`` in a separate interpreter (see
``tests/test_sklearn_suites.py``): before any test module is imported, scikit-learn's
``BayesianGaussianMixture`` and ``LatentDirichletAllocation`` are replaced, in the
``sklearn.mixture`` and ``sklearn.decomposition`` namespaces, by subclasses of
:class:`~alphavb.AlphaGaussianMixture` and :class:`~alphavb.AlphaLDA` that carry
scikit-learn's class names (messages and ``get_feature_names_out`` use the class name) and
change nothing else: alpha = 1 and alphavb's own defaults. Only the tests of scikit-learn's
private functions and methods are deselected, each with its reason below.
"""

import pytest
import sklearn.decomposition
import sklearn.mixture

from alphavb import AlphaGaussianMixture, AlphaLDA


class BayesianGaussianMixture(AlphaGaussianMixture):
    """alphavb's mixture under scikit-learn's name."""


class LatentDirichletAllocation(AlphaLDA):
    """alphavb's LDA under scikit-learn's name."""


SUBSTITUTES = {"BayesianGaussianMixture": BayesianGaussianMixture,
               "LatentDirichletAllocation": LatentDirichletAllocation}

DESELECTED = {
    "test_log_dirichlet_norm": "tests scikit-learn's private function "
                               "sklearn.mixture._bayesian_mixture._log_dirichlet_norm",
    "test_log_wishart_norm": "tests scikit-learn's private function "
                             "sklearn.mixture._bayesian_mixture._log_wishart_norm",
    "test_dirichlet_expectation": "tests scikit-learn's private Cython functions "
                                  "_dirichlet_expectation_1d/_2d",
    "test_compare_covar_type": "drives BaseMixture's private methods _check_parameters and "
                               "_initialize_parameters; its property (tied = mean of full, diag = "
                               "diagonal of full, spherical = mean of diag after the first "
                               "update) is tested in tests/mixture through alphavb's own hooks",
    "test_lda_preplexity_mismatch": "calls scikit-learn's private method "
                                    "_perplexity_precomp_distr (alphavb has no such method)",
}


def pytest_configure(config):
    sklearn.mixture.BayesianGaussianMixture = BayesianGaussianMixture
    sklearn.decomposition.LatentDirichletAllocation = LatentDirichletAllocation


def pytest_collection_modifyitems(config, items):
    """Deselect the private-API tests and make sure every other test sees the substitutes."""
    kept, dropped = [], []
    for item in items:
        (dropped if item.originalname in DESELECTED else kept).append(item)
        for name, substitute in SUBSTITUTES.items():
            found = getattr(item.module, name, substitute)
            if found is not substitute:
                raise pytest.UsageError(f"{item.nodeid} still uses scikit-learn's {name}")
    items[:] = kept
    config.hook.pytest_deselected(items=dropped)
