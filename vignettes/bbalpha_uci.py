"""Vignette: BB-alpha Bayesian neural networks on the UCI regression benchmarks.

Hernández-Lobato et al. (2016), Sec. 5.2: one hidden layer of 50 ReLU units, a factorized
Gaussian q fitted by the exact BB-alpha energy (K = 10 draws, mini-batches of 32) for
alpha = 0 (VB), 0.5 and 1, on the standard 20 train/test splits of boston, concrete,
energy, wine and yacht. Writes the test log-likelihood and RMSE (mean +- standard error
over the splits) as CSV and Markdown, beside the MC-dropout results that ship with the
splits, and a figure. Same as ``alphavb reproduce bbalpha-uci``; needs the splits in the
data home (``ALPHAVB_DATA``; see ``alphavb.datasets.load_uci``). About an hour on 2 cores
(``--jobs 2``); ``--quick`` runs two sets, two splits and 20 epochs in seconds.

Run: python vignettes/bbalpha_uci.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("bbalpha-uci"))
