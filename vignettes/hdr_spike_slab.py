"""Vignette: the paper's Figure 1, sparse high-dimensional regression with alpha-VB.

Yang, Pati & Bhattacharya (2020), Section 5: n = 100, d = 500, the first four coefficients
non-zero, sigma = 1. Spike-and-slab alpha-VB at alpha = 0.5, 0.8, 0.95, 1 recovers the four
signals at every temperature. Same as ``alphavb reproduce hdr``.

``--quick``: alpha = 0.5 and 1 only.

Run: python vignettes/hdr_spike_slab.py [OUT_DIR] [--quick]
"""

import argparse

from alphavb.reproduce import print_summary, reproduce_hdr

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default="results/hdr")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print_summary(reproduce_hdr(args.out_dir, quick=args.quick))
