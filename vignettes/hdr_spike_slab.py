"""Vignette: the paper's Figure 1, sparse high-dimensional regression with alpha-VB.

Yang, Pati & Bhattacharya (2020), Section 5: n = 100, d = 500, the first four coefficients
non-zero, sigma = 1. Spike-and-slab alpha-VB at alpha = 0.5, 0.8, 0.95, 1 recovers the four
signals at every temperature. Same as ``alphavb reproduce hdr``.

``--quick``: alpha = 0.5 and 1 only.

Run: python vignettes/hdr_spike_slab.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("hdr"))
