"""alphavb: alpha-tempered variational Bayes with statistical guarantees.

Estimators (scikit-learn's ``fit`` / ``predict`` / ``score``; parameters declared and checked
when ``fit`` starts):

* closed-form coordinate ascent (CAVI) on the alpha-fractional posterior (Yang, Pati &
  Bhattacharya 2020), where ``alpha`` is the likelihood's temperature in (0, 1] and 1 is
  ordinary VB: :class:`AlphaLinearRegression`, :class:`AlphaSpikeSlabRegression`,
  :class:`AlphaSpikeSlabClassifier`, :class:`AlphaGaussianMixture`, :class:`AlphaLDA`, all
  on the one fit loop of :class:`alphavb.base.CAVIEstimator`;
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

from ._validation import InvalidParameterError
from .linear_model import (
    AlphaLinearRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)
from .mixture import AlphaGaussianMixture
from .topics import AlphaLDA

# The black-box backend (autograd) is imported on first use, so `import alphavb` costs
# scikit-learn's import plus numba's.
_BLACKBOX = ("AADMRegressor", "AlphaGaussianVB", "AlphaLogisticRegression",
             "BBAlphaClassifier", "BBAlphaRegressor")

__all__ = [  # the black-box names resolve through __getattr__
    "AADMRegressor",
    "AlphaGaussianMixture",
    "AlphaGaussianVB",
    "AlphaLDA",
    "AlphaLinearRegression",
    "AlphaLogisticRegression",
    "AlphaSpikeSlabClassifier",
    "AlphaSpikeSlabRegression",
    "BBAlphaClassifier",
    "BBAlphaRegressor",
    "InvalidParameterError",
    "to_inference_data",
]
__version__ = "0.1.0"


def __getattr__(name):
    if name in _BLACKBOX:
        from . import blackbox

        return getattr(blackbox, name)
    if name == "to_inference_data":  # ArviZ (optional) is imported when it is called
        from .inference_data import to_inference_data

        return to_inference_data
    raise AttributeError(f"module 'alphavb' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_BLACKBOX, "to_inference_data"])
