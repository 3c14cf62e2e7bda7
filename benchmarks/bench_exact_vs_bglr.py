"""The exact spike-and-slab sampler (alphavb.exact) side by side with BGLR's BayesC at
alpha = 1, in one run: seconds per sweep and the PIPs of the two samplers.

BGLR (de los Campos & Perez Rodriguez; 1.1.5, built with ``R CMD INSTALL`` from a snapshot of
``gdlc/BGLR-R``: it is not in Debian's packages) samples ``y = mu + X beta + e`` with
``beta_j ~ pi N(0, varB) + (1 - pi) delta_0`` by single-site Gibbs on ``(d_j, beta_j)``, and
draws ``varB``, ``varE`` and ``pi`` from their priors' conditionals. To make it the model
alphavb samples (known noise variance ``s2``, slab ``N(0, s2 sa)``, fixed ``pi``, flat
intercept), its priors are pinned: ``df0 = 1e7`` with ``S0 = 1e7 s2`` for ``varE`` and ``S0 =
1e7 s2 sa`` for ``varB`` (a scaled inverse chi-square of relative sd ``sqrt(2 / df0) =
0.04%``), ``counts = 1e10`` at ``probIn = pi``. Both read the same standardized columns
(constant ones dropped; ``standardize=False`` for alphavb). alphavb's sweep integrates every
slab coefficient out (collapsed; a swap move per sweep) and its PIPs are Rao-Blackwellised;
BGLR's PIPs are the means of its indicator draws, and a second BGLR run from another seed
shows how far its own chains are apart. BGLR writes its chains to files each sweep (its
usual run; the files go to a temporary directory).

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_exact_vs_bglr.py [--sweeps S]
"""

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from alphavb import AlphaSpikeSlabRegression
from alphavb.datasets import load_n3finemapping, make_sparse_regression
from alphavb.exact import _draw

PINNED = 1e7  # BGLR's df0 for varE and varB: their priors then fix them

R_SCRIPT = """
suppressMessages(library(BGLR))
set.seed({seed})
X <- as.matrix(read.csv("{dir}/X.csv", header = FALSE))
y <- scan("{dir}/y.csv", quiet = TRUE)
eta <- list(list(X = X, model = "BayesC", probIn = {pi}, counts = 1e10, df0 = {df0},
                 S0 = {df0} * {s2} * {sa}))
seconds <- system.time(fit <- BGLR(y, ETA = eta, nIter = {n_iter}, burnIn = {burn},
                                   thin = 1, df0 = {df0}, S0 = {df0} * {s2},
                                   verbose = FALSE, saveAt = "{dir}/"))[["elapsed"]]
cat(seconds, "\\n")
cat(fit$ETA[[1]]$d, "\\n")
cat(as.character(packageVersion("BGLR")), "\\n")
"""


def bglr(X, y, s2, pi, sa, sweeps, burn, seed):
    """BGLR's BayesC with the pinned priors: (seconds per sweep, PIPs, version), or None
    when Rscript or BGLR is missing."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as directory:
        np.savetxt(Path(directory) / "X.csv", X, delimiter=",")
        np.savetxt(Path(directory) / "y.csv", y)
        script = R_SCRIPT.format(dir=directory, pi=pi, df0=PINNED, s2=s2, sa=sa,
                                 n_iter=sweeps + burn, burn=burn, seed=seed)
        run = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                             check=False)
    if run.returncode != 0:
        print(f"BGLR did not run: {run.stderr.strip()[-300:]}")
        return None
    seconds, pips, version = run.stdout.strip().split("\n")
    return float(seconds) / (sweeps + burn), np.array(pips.split(), dtype=float), version


def ours(X, y, s2, pi, sa, sweeps, burn):
    """alphavb's collapsed sampler, one chain: (seconds per sweep, PIPs, their SEs)."""
    model = AlphaSpikeSlabRegression(alpha=1.0, prior_inclusion=pi, slab_variance=sa,
                                     noise_variance=s2, standardize=False)
    _draw(model, X, y, {}, 20, 1, 0, 1, 0)  # numba's compile, not counted
    start = time.perf_counter()
    exact = _draw(model, X, y, {}, sweeps, 1, burn, 1, 1)[1]
    seconds = time.perf_counter() - start
    pip, se = exact.inclusion_probabilities()
    return seconds / (sweeps + burn), pip, se


def problems():
    X, y, _ = make_sparse_regression(random_state=0)
    yield "Figure 1 design", X, y, 0.01
    try:
        n3 = load_n3finemapping()
        yield "N3finemapping y1", n3.data, n3.target[:, 0], 0.01
    except OSError as error:
        print(f"N3finemapping skipped: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sweeps", type=int, default=5000)
    parser.add_argument("--burn", type=int, default=500)
    args = parser.parse_args()
    sa = 1.0
    print(f"{'problem':18s} {'n x d':>10s} {'alphavb ms':>10s} {'BGLR ms':>8s} "
          f"{'ratio':>6s} {'max|dPIP|':>9s} {'PIP>0.5 both':>12s}")
    for name, X, y, pi in problems():
        X = np.asarray(X, dtype=float)
        X = X[:, X.std(axis=0) > 0]
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        # the noise variance both samplers fix: alphavb's learned one at alpha = 1
        s2 = float(AlphaSpikeSlabRegression(prior_inclusion=pi, slab_variance=sa,
                                            standardize=False).fit(X, y).noise_variance_)
        with threadpool_limits(1):
            mine = ours(X, y, s2, pi, sa, args.sweeps, args.burn)
        theirs = bglr(X, y, s2, pi, sa, args.sweeps, args.burn, seed=1)
        n, d = X.shape
        if theirs is None:
            print(f"{name:18s} {f'{n} x {d}':>10s} {1e3 * mine[0]:10.3f} (BGLR not run)")
            continue
        # BGLR's own chain-to-chain spread: a second run from another seed
        again = bglr(X, y, s2, pi, sa, args.sweeps, args.burn, seed=2)
        gap = np.abs(mine[1] - theirs[1])
        both = int(np.sum((mine[1] > 0.5) & (theirs[1] > 0.5)))
        print(f"{name:18s} {f'{n} x {d}':>10s} {1e3 * mine[0]:10.3f} {1e3 * theirs[0]:8.3f} "
              f"{mine[0] / theirs[0]:6.3f} {gap.max():9.3f} "
              f"{both:>5d} of {int(np.sum(theirs[1] > 0.5))}")
        worst = int(np.argmax(gap))
        correlation = np.abs(X.T @ X[:, worst]) / n
        correlation[worst] = 0.0
        partner = int(np.argmax(correlation))
        print(f"    largest gap at column {worst}: alphavb {mine[1][worst]:.3f} "
              f"(SE {mine[2][worst]:.3f}), BGLR {theirs[1][worst]:.3f}; its most correlated "
              f"column {partner} (|r| = {correlation[partner]:.3f}): alphavb "
              f"{mine[1][partner]:.3f}, BGLR {theirs[1][partner]:.3f}")
        print(f"    BGLR {theirs[2]}, {args.sweeps} sweeps after {args.burn}; noise variance "
              f"{s2:.4g}")
        print(f"    BGLR's two seeds differ by up to {np.abs(again[1] - theirs[1]).max():.3f} "
              f"in a PIP (column {int(np.argmax(np.abs(again[1] - theirs[1])))})")


if __name__ == "__main__":
    main()
