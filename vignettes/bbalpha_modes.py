"""Vignette: the BB-alpha paper's Figure 2, alpha-divergence minimisers.

The factorized Gaussian q minimising D_alpha(p || q) for a bimodal target (weights 0.7 and
0.3) and a correlated Gaussian (rho = 0.9), for alpha = 0 (VB), 0.5, 1 (EP) and 2, by
quadrature on a grid: small alpha locks onto the heavier mode, large alpha covers both.
Same as ``alphavb reproduce bbalpha-modes``; ``--quick``: a coarser grid.

Run: python vignettes/bbalpha_modes.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("bbalpha-modes"))
