"""alpha-VB linear regression models."""

from ._alpha_susie import AlphaSuSiE
from ._bayes_linear import AlphaLinearRegression
from ._spike_slab import AlphaSpikeSlabRegression
from ._spike_slab_logistic import AlphaSpikeSlabClassifier
from ._susie_logistic import AlphaSuSiEClassifier
from ._susie_mismatch import ld_mismatch_diagnostic
from ._susie_rss import sufficient_statistics, summary_sufficient_statistics

__all__ = ["AlphaLinearRegression", "AlphaSpikeSlabClassifier", "AlphaSpikeSlabRegression",
           "AlphaSuSiE", "AlphaSuSiEClassifier", "ld_mismatch_diagnostic", "sufficient_statistics",
           "summary_sufficient_statistics"]
