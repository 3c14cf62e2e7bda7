"""Vignette: AADM, AVB and VI on the UCI regression benchmarks (the AADM paper's Figures 3-4
as a table).

Rodríguez-Santana & Hernández-Lobato (2022), Sec. 5.2: BNNs with two hidden layers of 50
units, batch 10, 10% KL warm-up, K = 10 training and 100 prediction draws; AADM at
alpha = 1 and 0.5, AVB (alpha -> 0) and VI with a factorized Gaussian q, on the standard
train/test splits. Writes the test log-likelihood and RMSE (mean +- standard error over the
splits) as CSV and Markdown, and a figure. Same as ``alphavb reproduce aadm-uci``; needs the
splits in the data home (``ALPHAVB_DATA``; see ``alphavb.datasets.load_uci``). The paper's
2,000 epochs on every split take days on 2 cores; ``--epochs``, ``--splits`` and
``--datasets`` shorten the run and ``--quick`` takes seconds.

Run: python vignettes/aadm_uci.py [OUT_DIR] [--quick] [--epochs N] [--splits N]
     [--datasets boston,yacht] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("aadm-uci"))
