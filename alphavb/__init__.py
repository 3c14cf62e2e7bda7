"""alphavb: alpha-tempered variational Bayes with statistical guarantees.

Estimators (scikit-learn's ``fit`` / ``predict`` / ``score``; parameters declared and checked
when ``fit`` starts):

* closed-form coordinate ascent (CAVI) on the alpha-fractional posterior (Yang, Pati &
  Bhattacharya 2020), where ``alpha`` is the likelihood's temperature in (0, 1] and 1 is
  ordinary VB: :class:`AlphaLinearRegression`, :class:`AlphaSpikeSlabRegression`,
  :class:`AlphaSpikeSlabClassifier`, :class:`AlphaSuSiE` (fine-mapping),
  :class:`AlphaGaussianMixture`, :class:`AlphaLDA`, all on the one fit loop of
  :class:`alphavb.base.CAVIEstimator`;
* the black-box backend (:mod:`alphavb.blackbox`, autograd, imported on first use), where
  ``alpha`` is the divergence order >= 0 and 0 is VB: :class:`BBAlphaRegressor`,
  :class:`BBAlphaClassifier` (Hernández-Lobato et al. 2016), :class:`AADMRegressor`
  (Rodríguez-Santana & Hernández-Lobato 2022), and the Gaussian alpha-VB of
  :class:`AlphaGaussianVB` and :class:`AlphaLogisticRegression` (temperature again).

Around a fit: :mod:`alphavb.model_selection` (``AlphaSelector``: alpha from the data),
:mod:`alphavb.metrics` (the log predictive density and its scikit-learn scorer),
:mod:`alphavb.risk` and :mod:`alphavb.divergences` (the paper's variational Bayes risk),
:mod:`alphavb.simulation` (simulation studies with Monte Carlo errors),
:func:`to_inference_data` (ArviZ), :mod:`alphavb.datasets`, :mod:`alphavb.plotting`, and
``alphavb reproduce`` (:mod:`alphavb.reproduce`: the papers' worked examples).

A parameter value that an estimator, function or method does not accept raises
:class:`InvalidParameterError` (a ``ValueError`` and a ``TypeError``) naming the parameter
and, where there is one, the fix.
"""

import importlib

# Every name is imported on first use (PEP 562), so `import alphavb` and `alphavb --help`
# load neither scikit-learn, numba nor autograd; the first estimator loads what it needs.
_LAZY = {
    "InvalidParameterError": "._validation",
    "PosteriorApproximationWarning": "._approximation",
    "approximation_checks": "._approximation",
    "AlphaLinearRegression": ".linear_model",
    "AlphaSpikeSlabClassifier": ".linear_model",
    "AlphaSpikeSlabRegression": ".linear_model",
    "AlphaSuSiE": ".linear_model",
    "AlphaSuSiEClassifier": ".linear_model",
    "AlphaGaussianMixture": ".mixture",
    "AlphaLDA": ".topics",
    "AADMRegressor": ".blackbox",
    "AlphaGaussianVB": ".blackbox",
    "AlphaLogisticRegression": ".blackbox",
    "BBAlphaClassifier": ".blackbox",
    "BBAlphaRegressor": ".blackbox",
    "to_inference_data": ".inference_data",  # ArviZ (optional) is imported when it is called
}

__all__ = [
    "AADMRegressor",
    "AlphaGaussianMixture",
    "AlphaGaussianVB",
    "AlphaLDA",
    "AlphaLinearRegression",
    "AlphaLogisticRegression",
    "AlphaSpikeSlabClassifier",
    "AlphaSpikeSlabRegression",
    "AlphaSuSiE",
    "AlphaSuSiEClassifier",
    "BBAlphaClassifier",
    "BBAlphaRegressor",
    "InvalidParameterError",
    "PosteriorApproximationWarning",
    "approximation_checks",
    "to_inference_data",
]
__version__ = "0.1.0"


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later lookups skip this function
        return value
    try:  # a submodule, e.g. alphavb.datasets after a bare `import alphavb`
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module 'alphavb' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])
