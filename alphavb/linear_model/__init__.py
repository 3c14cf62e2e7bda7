"""alpha-VB linear regression models."""

from ._bayes_linear import AlphaLinearRegression
from ._spike_slab import AlphaSpikeSlabRegression
from ._spike_slab_logistic import AlphaSpikeSlabClassifier

__all__ = ["AlphaLinearRegression", "AlphaSpikeSlabClassifier", "AlphaSpikeSlabRegression"]
