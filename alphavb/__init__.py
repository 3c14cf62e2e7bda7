"""alphavb: alpha-tempered variational Bayes with statistical guarantees."""

from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression
from .mixture import AlphaGaussianMixture

__all__ = ["AlphaGaussianMixture", "AlphaLinearRegression", "AlphaSpikeSlabRegression"]
__version__ = "0.1.0"
