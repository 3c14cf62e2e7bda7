"""Vignette: the paper's Figure 1, sparse high-dimensional regression with alpha-VB.

Yang, Pati & Bhattacharya (2020), Section 5: n = 100, d = 500, the first four coefficients
non-zero, sigma = 1. Spike-and-slab alpha-VB at alpha = 0.5, 0.8, 0.95, 1 recovers the four
signals at every temperature. Same as ``alphavb reproduce hdr``.

Run: python vignettes/hdr_spike_slab.py [OUT_DIR]
"""

import sys

from alphavb.reproduce import print_summary, reproduce_hdr

if __name__ == "__main__":
    print_summary(reproduce_hdr(sys.argv[1] if len(sys.argv) > 1 else "results/hdr"))
