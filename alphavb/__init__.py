"""alphavb: alpha-tempered variational Bayes with statistical guarantees."""

from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression
from .mixture import AlphaGaussianMixture
from .topics import AlphaLDA

__all__ = ["AlphaGaussianMixture", "AlphaLDA", "AlphaLinearRegression", "AlphaSpikeSlabRegression"]
__version__ = "0.1.0"
