"""Parity with varbvs on the Leukemia data, and susieR side by side.

1. varbvs (R; not installable here: it is on CRAN only, which this machine cannot reach).
   Its reference run is in the data folder: ``varbvs(X, NULL, y, "binomial")`` with its
   default 20 prior log-odds ``seq(-log10(p), -1, length.out = 20)``, 5.3 s on a 2-core
   machine of this kind. AlphaSpikeSlabClassifier(alpha=1, prior_log_odds=that grid) is
   timed here (median of repeated fits after a warm-up) and its PIPs compared with varbvs's
   file: the top variable and the largest |PIP difference|. The time ratio is against the
   quoted 5.3 s, not a side-by-side run.
2. susieR (Debian's ``r-cran-susier``, run through ``Rscript``), measured in the same run:
   on the HDR problem (the paper's Figure 1: n = 100, d = 500, Gaussian) against
   AlphaSpikeSlabRegression, and on Leukemia, where susie fits a linear model to the 0/1
   outcome (it has no logistic likelihood), against AlphaSpikeSlabRegression (the same
   model family) and against the classifier (varbvs's model). Times are measured
   inside R (``system.time``, R's start-up and data reading excluded) and in Python
   (``perf_counter``) on the same arrays, one BLAS thread each; agreement is reported as
   the top variables and the largest |PIP difference| over the union of the top 10.

Run: python benchmarks/bench_varbvs_parity.py [--repeats R] [--data-home DIR]
"""

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from bench_spikeslab import median_seconds  # benchmarks/ is the script's folder

VARBVS_REFERENCE_SECONDS = 5.3   # the data folder's README: default grid, 2 cores

R_SUSIE = r"""
suppressMessages(library(susieR))
args <- commandArgs(trailingOnly = TRUE)
n <- as.integer(args[2]); d <- as.integer(args[3]); repeats <- as.integer(args[4])
X <- matrix(readBin(file.path(args[1], "X.bin"), "double", n * d), n, d)
y <- readBin(file.path(args[1], "y.bin"), "double", n)
fit <- susie(X, y, L = 10)
times <- numeric(repeats)
for (r in seq_len(repeats)) times[r] <- system.time(fit <- susie(X, y, L = 10))[["elapsed"]]
writeBin(as.double(fit$pip), file.path(args[1], "pip.bin"))
cat(sprintf("%.6f %d %s\n", median(times), fit$niter,
            as.character(packageVersion("susieR"))))
"""


def run_rscript(script, arrays, *args):
    """Run an R ``script`` on one thread with ``arrays`` (name -> array, written as
    little-endian doubles, column-major, to ``<folder>/<name>.bin``); its arguments are the
    folder and ``args``. Returns (stdout, folder's ``pip.bin``) or None when Rscript is
    missing or the script fails."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        for name, array in arrays.items():
            np.asfortranarray(array, dtype="<f8").T.tofile(Path(folder, f"{name}.bin"))
        path = Path(folder, "script.R")
        path.write_text(script)
        environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        result = subprocess.run(["Rscript", str(path), folder, *map(str, args)],
                                capture_output=True, text=True, env=environment, check=False)
        if result.returncode != 0:
            print(f"R could not run: {result.stderr.strip()[-300:]}")
            return None
        return result.stdout, np.fromfile(Path(folder, "pip.bin"), dtype="<f8")


def run_susie(X, y, repeats):
    """susieR's ``susie(X, y, L = 10)`` through Rscript: (PIPs, median seconds, iterations,
    version), or None when Rscript or susieR is missing."""
    ran = run_rscript(R_SUSIE, {"X": X, "y": y}, X.shape[0], X.shape[1], repeats)
    if ran is None:
        return None
    seconds, iterations, version = ran[0].split()
    return ran[1], float(seconds), int(iterations), version


def top(pips, k=5):
    return [int(j) + 1 for j in np.argsort(-pips, kind="stable")[:k]]


def agreement(a, b, k=10):
    union = sorted(set(top(a, k)) | set(top(b, k)))
    return max(abs(a[j - 1] - b[j - 1]) for j in union)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # one BLAS thread, as the R runs
        run(args)


def run(args):
    from alphavb import AlphaSpikeSlabClassifier, AlphaSpikeSlabRegression
    from alphavb.datasets import load_leukemia, make_sparse_regression

    leukemia = load_leukemia(args.data_home)
    X, y = leukemia.data, leukemia.target
    grid = np.linspace(-np.log10(X.shape[1]), -1, 20)
    # varbvs's model: the slab on the raw columns
    model = AlphaSpikeSlabClassifier(alpha=1.0, prior_log_odds=grid, standardize=False)
    model.fit(X[:, :50], y)  # warm-up: numba's cache and the first-call costs
    seconds = median_seconds(lambda: model.fit(X, y), args.repeats)
    pip = model.inclusion_probabilities_
    print("1. Leukemia (72 x 3,571), alpha = 1, varbvs's default grid of 20 log-odds")
    if leukemia.varbvs_pips is None:
        print("   varbvs's PIPs are not in the data folder: no comparison")
    else:
        reference = leukemia.varbvs_pips
        print(f"   top variable: alphavb column {top(pip, 1)[0]} (PIP {pip.max():.4f}), "
              f"varbvs column {top(reference, 1)[0]} (PIP {reference.max():.4f})")
        print(f"   max |PIP - varbvs's| over all 3,571: {np.max(np.abs(pip - reference)):.4f}")
    n_iter = int(np.sum(model.setting_n_iter_))
    print(f"   fit: {seconds:.3f} s (median of {args.repeats}; {n_iter} "
          f"iterations over the grid), {seconds / VARBVS_REFERENCE_SECONDS:.3f} x varbvs's "
          f"{VARBVS_REFERENCE_SECONDS} s (quoted reference, not this run)")
    errors = int(np.sum(model.predict(X) != y))
    print(f"   in-sample errors: {errors} of 72 (varbvs: 1 of 47 and 3 of 25 = 4)")
    print()
    print("2. susieR side by side (same arrays, one BLAS thread)")
    problems = []
    Xh, yh, truth = make_sparse_regression(random_state=0)
    problems.append(("HDR n=100 d=500 (Gaussian)", Xh, yh,
                     AlphaSpikeSlabRegression(alpha=1.0),
                     [int(j) + 1 for j in np.flatnonzero(truth)]))
    problems.append(("Leukemia, both linear on 0/1", X, y.astype(float),
                     AlphaSpikeSlabRegression(alpha=1.0), None))
    problems.append(("Leukemia, ours logistic", X, y.astype(float),
                     AlphaSpikeSlabClassifier(alpha=1.0, prior_log_odds=grid,
                                              standardize=False), None))
    print(f"   {'problem':<33} {'alphavb (s)':>11} {'susieR (s)':>11} {'ratio':>7} "
          f"{'top 4 alphavb':>22} {'top 4 susieR':>22} {'max|dPIP| top10':>16}")
    for name, Xp, yp, ours, truth_columns in problems:
        ours.fit(Xp, yp)
        ours_seconds = median_seconds(lambda ours=ours, Xp=Xp, yp=yp: ours.fit(Xp, yp),
                                      args.repeats)
        susie = run_susie(Xp, yp, args.repeats)
        ours_top = top(ours.inclusion_probabilities_, 4)
        if susie is None:
            print(f"   {name:<33} {ours_seconds:>11.4f} {'(absent)':>11}")
            continue
        pips, susie_seconds, iterations, version = susie
        print(f"   {name:<33} {ours_seconds:>11.4f} {susie_seconds:>11.4f} "
              f"{susie_seconds / ours_seconds:>7.1f} {ours_top!s:>22} "
              f"{top(pips, 4)!s:>22} "
              f"{agreement(ours.inclusion_probabilities_, pips):>16.4f}")
        ours_pips = ours.inclusion_probabilities_
        print(f"   {'':<33} susieR {version}, {iterations} IBSS iterations; PIP of the "
              f"other's top variable: susieR {pips[ours_top[0] - 1]:.4f} at column "
              f"{ours_top[0]}, alphavb {ours_pips[top(pips, 1)[0] - 1]:.4f} at column "
              f"{top(pips, 1)[0]}" + (f"; truth {truth_columns}" if truth_columns else ""))
    print("ratio = susieR time / alphavb time (above 1: alphavb is faster).")


if __name__ == "__main__":
    main()
