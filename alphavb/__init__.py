"""alphavb: alpha-tempered variational Bayes with statistical guarantees."""

from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression

__all__ = ["AlphaLinearRegression", "AlphaSpikeSlabRegression"]
__version__ = "0.1.0"
