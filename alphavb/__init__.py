"""alphavb: alpha-tempered variational Bayes with statistical guarantees."""

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
