"""AlphaSuSiE beside susieR 0.12.35 at alpha = 1, in one run: ``susie`` on both
N3finemapping responses (L = 10, susieR's defaults) and ``susie_rss`` on their z-scores
with the in-sample LD; then the runtime at SuSiE's paper scale, n = p = 10,000 (and the
tempered fit there).

A sweep runs, per effect, two products with the (n, p) standardized genotypes, ``Z'r`` and
``Z (alpha mu)``: ``4 L n p`` FLOPs and ``2 L`` reads of ``Z`` (``16 L n p`` bytes); on
summary statistics the products are with the (p, p) ``Z'Z``: ``16 L p^2`` bytes. The floors
are those over this machine's 1-thread copy bandwidth (``machine_floor.py``); a
matrix-vector product reads each entry once for two FLOPs, so the bytes, not the FLOPs,
bound it. Both packages run on one thread (susieR with R's reference BLAS, as Debian ships
it), medians of the repeats, timed around the fit call from the raw genotypes (or z and R)
to the PIPs and credible sets (susieR's inside R, ``system.time``).

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_susie.py [--repeats R] [--large]
"""

import argparse
import time

import numpy as np
from bench_spikeslab import median_seconds  # benchmarks/ is the script's folder
from bench_varbvs_parity import run_rscript, run_susie
from machine_floor import copy_bandwidth
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.datasets import load_n3finemapping

R_SUSIE_RSS = r"""
suppressMessages(library(susieR))
args <- commandArgs(trailingOnly = TRUE)
p <- as.integer(args[2]); n <- as.integer(args[3]); repeats <- as.integer(args[4])
z <- readBin(file.path(args[1], "z.bin"), "double", p)
R <- matrix(readBin(file.path(args[1], "R.bin"), "double", p * p), p, p)
fit <- susie_rss(z, R, n = n, L = 10)
times <- numeric(repeats)
for (r in seq_len(repeats)) times[r] <- system.time(fit <- susie_rss(z, R, n = n,
                                                                    L = 10))[["elapsed"]]
writeBin(as.double(susie_get_pip(fit)), file.path(args[1], "pip.bin"))
cat(sprintf("%.6f %d\n", median(times), fit$niter))
"""


def z_scores(X, y):
    """The univariate regressions' z-scores (susieR's ``univariate_regression``)."""
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    r = Xc.T @ yc / np.sqrt(np.sum(Xc**2, axis=0) * (yc @ yc))
    return r * np.sqrt((len(y) - 2) / (1 - r**2))


def row(label, model, seconds, theirs):
    pips, their_seconds, their_iterations = theirs
    print(f"{label:9s} {seconds:10.3f} {model.n_iter_:6d} "
          f"{1e3 * seconds / model.n_iter_:9.2f} {their_seconds:9.3f} {their_iterations:5d} "
          f"{seconds / their_seconds:6.2f} "
          f"{np.max(np.abs(model.inclusion_probabilities_ - pips)):9.1e}")


def n3finemapping(repeats, bandwidth):
    data = load_n3finemapping()
    X = data.data
    n, p = X.shape
    R = np.corrcoef(X, rowvar=False)
    floor_individual = 1e3 * 16 * 10 * n * p / (bandwidth * 1e9)
    print(f"N3finemapping {n} x {p}, L = 10; sweep floor {floor_individual:.2f} ms "
          f"(individual), {1e3 * 16 * 10 * p * p / (bandwidth * 1e9):.2f} ms (summary)")
    print(f"{'fit':9s} {'alphavb s':>10s} {'sweeps':>6s} {'ms/sweep':>9s} {'susieR s':>9s} "
          f"{'iter':>5s} {'ratio':>6s} {'max|dPIP|':>9s}")
    for k in (1, 2):
        y = data.target[:, k - 1]
        theirs = run_susie(X, y, repeats)
        if theirs is None:
            print("susieR did not run")
            return
        model = AlphaSuSiE().fit(X, y)
        seconds = median_seconds(lambda y=y: AlphaSuSiE().fit(X, y), repeats)
        row(f"y{k}", model, seconds, theirs[:3])
        z = z_scores(X, y)
        ran = run_rscript(R_SUSIE_RSS, {"z": z, "R": R}, p, n, repeats)
        model = AlphaSuSiE().fit_summary(z, R, n)
        seconds = median_seconds(lambda z=z: AlphaSuSiE().fit_summary(z, R, n), repeats)
        their_seconds, their_iterations = ran[0].split()
        row(f"y{k} rss", model, seconds, (ran[1], float(their_seconds),
                                           int(their_iterations)))


def paper_scale(bandwidth, with_susier):
    """n = p = 10,000: AR(1) columns (rho = 0.9, LD-like), 3 effects of 0.1 sd each."""
    n = p = 10_000
    rng = np.random.default_rng(0)
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):
        X[:, j] = 0.9 * X[:, j - 1] + np.sqrt(0.19) * rng.standard_normal(n)
    causal = [1000, 5000, 9000]
    y = X[:, causal] @ np.full(3, 0.1) + rng.standard_normal(n)
    print(f"\nn = p = 10,000, L = 10; sweep floor {16 * 10 * n * p / (bandwidth * 1e9):.2f} s")
    for alpha in (1.0, 0.5):
        tic = time.perf_counter()
        model = AlphaSuSiE(alpha=alpha).fit(X, y)
        seconds = time.perf_counter() - tic
        found = [found["variables"] for found in model.credible_sets_]
        print(f"alpha = {alpha}: {seconds:.1f} s, {model.n_iter_} sweeps "
              f"({seconds / model.n_iter_:.2f} s a sweep), credible sets {found}")
    if with_susier:
        theirs = run_susie(X, y, 1)
        if theirs is not None:
            ours = AlphaSuSiE().fit(X, y).inclusion_probabilities_
            print(f"susieR: {theirs[1]:.1f} s, {theirs[2]} iterations; max |dPIP| (alpha = "
                  f"0.5 fit aside) {np.max(np.abs(ours - theirs[0])):.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--large", action="store_true",
                        help="also run susieR at n = p = 10,000 (minutes)")
    args = parser.parse_args()
    with threadpool_limits(1):
        bandwidth = copy_bandwidth(3)
        print(f"copy bandwidth (1 thread): {bandwidth:.1f} GB/s")
        n3finemapping(args.repeats, bandwidth)
        paper_scale(bandwidth, args.large)


if __name__ == "__main__":
    main()
