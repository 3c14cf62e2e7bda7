"""alphavb: alpha-tempered variational Bayes with statistical guarantees."""

from .blackbox import (
    AADMRegressor,
    AlphaGaussianVB,
    AlphaLogisticRegression,
    BBAlphaClassifier,
    BBAlphaRegressor,
)
from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression
from .mixture import AlphaGaussianMixture
from .topics import AlphaLDA

__all__ = [
    "AADMRegressor",
    "AlphaGaussianMixture",
    "AlphaGaussianVB",
    "AlphaLDA",
    "AlphaLinearRegression",
    "AlphaLogisticRegression",
    "AlphaSpikeSlabRegression",
    "BBAlphaClassifier",
    "BBAlphaRegressor",
]
__version__ = "0.1.0"
