"""Vignette: AADM on the heteroscedastic and bimodal toy problems (the paper's Figure 2 and
Table 1).

Rodríguez-Santana & Hernández-Lobato (2022), Sec. 5.1: a BNN with two hidden layers of 50
units and an implicit posterior (a generator network), fitted by adversarial
alpha-divergence minimization at alpha = 1e-4 (AVB-like) and alpha = 1 to 1,000 points of
``y = 7 sin x + 3 |cos(x/2)| eps`` and of ``y = 10 sin x + eps`` or ``10 cos x + eps``
(probability 1/2 each), batch 10, 3,000 epochs with the first 500 warming up the KL. Writes
the data and predictive samples per alpha (PNG) and the test RMSE and log-likelihood on
1,000 fresh points (CSV, Markdown). Same as ``alphavb reproduce aadm-toy``. The paper's
3,000 epochs take hours on 2 cores; ``--epochs 300`` about half an hour with ``--jobs 2``;
``--quick`` seconds.

Run: python vignettes/aadm_toy.py [OUT_DIR] [--quick] [--epochs N] [--seeds N] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("aadm-toy"))
