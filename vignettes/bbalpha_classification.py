"""Vignette: BB-alpha probit regression and classifier BNNs (Hernández-Lobato et al. 2016).

The paper's text names probit regression and neural-network classification among its
experiments but gives no data sets, splits or numbers; here (our settings): breast cancer
(2 classes, Bayesian probit regression) and digits (10 classes, softmax regression), plus a
BNN with one hidden layer of 50 ReLU units on both, at alpha = 0 (VB), 0.5 and 1, over 20
random stratified 90/10 splits; test error and test log-likelihood with standard errors.
Same as ``alphavb reproduce bbalpha-classification``; ``--quick``: 2 splits, 5 epochs.

Run: python vignettes/bbalpha_classification.py [OUT_DIR] [--quick] [--jobs N] [--splits N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("bbalpha-classification"))
