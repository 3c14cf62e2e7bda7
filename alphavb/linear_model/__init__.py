"""alpha-VB linear regression models."""

from ._bayes_linear import AlphaLinearRegression
from ._spike_slab import AlphaSpikeSlabRegression

__all__ = ["AlphaLinearRegression", "AlphaSpikeSlabRegression"]
