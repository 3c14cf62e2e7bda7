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

import argparse

from alphavb.reproduce import print_summary, reproduce_aadm_uci

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default="results/aadm-uci")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--splits", type=int, default=None)
    parser.add_argument("--datasets", default=None)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    datasets = tuple(args.datasets.split(",")) if args.datasets else None
    print_summary(reproduce_aadm_uci(args.out_dir, quick=args.quick, datasets=datasets,
                                     n_splits=args.splits, n_epochs=args.epochs,
                                     n_jobs=args.jobs))
