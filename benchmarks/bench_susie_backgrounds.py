"""SuSiE-inf and SuSiE-ash: AlphaSuSiE(unmappable_effects="inf" or "ash") beside susieR
0.16.5's ``unmappable_effects`` in one run, one thread each (L = 10, both packages'
defaults: method of moments for "inf", Mr.ASH with the Beta(1, 2) slot prior for "ash",
PIP convergence at tol 1e-4), on N3finemapping (574 x 1,001) from rows (``susie``) and
from z-scores with the in-sample LD (``susie_rss(z, R, n)``), and the calibration of alpha
for the credible sets (``AlphaSelector(method="calibrate")``, 10 replicates per alpha
scanned) beside it in fits. With ``--background ash`` both packages read the standardized
columns and y of sd 1 (susieR's Mr.ASH reads the raw X while its single effects read the
standardized one, and stops at an absolute tolerance; alphavb standardizes both and stops
in units of sd(y)).

Times are medians of ``--repeats`` fits: susieR's inside R (``system.time`` around the fit
call; R's start-up and reading excluded), alphavb's the whole call with
``threadpool_limits(1)``. The eigendecomposition that a background needs is cached by
alphavb for the last design (a bootstrap refits the same X), as is SuSiE-ash's correlation
matrix; the timings clear them before every fit, so each fit pays for them, as susieR's
does.

The floor, on this machine's 1-thread gemm rate and copy bandwidth (``machine_floor.py``):
from rows with n < p the fit forms ``Z Z'`` (``n^2 p`` multiply-adds), decomposes it
(about ``9 n^3`` FLOPs for LAPACK's symmetric eigensolver with vectors) and forms ``W = Z'
U`` (``2 n^2 p``); from ``R`` the decomposition of ``p x p`` (``9 p^3``). Each sweep then
reads ``W`` (``8 p r`` bytes, r the rank) twice per effect. SuSiE-ash forms the
correlation ``Z'Z`` once (``n p^2`` multiply-adds); each sweep of the single effects reads
``Z`` twice per effect and each Mr.ASH sweep twice (``8 n p`` bytes each).

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_susie_backgrounds.py --susier-lib LIB
     [--repeats R] [--background inf|ash]
"""

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from bench_spikeslab import median_seconds  # benchmarks/ is the script's folder
from bench_susie import write_arrays, z_scores
from machine_floor import copy_bandwidth, gemm_rate
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.datasets import load_n3finemapping
from alphavb.linear_model import _susie_ash, _susie_inf
from alphavb.model_selection import AlphaSelector

R_FIT = r"""
args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]; kind <- args[2]; n <- as.integer(args[3]); p <- as.integer(args[4])
repeats <- as.integer(args[5]); .libPaths(c(args[6], .libPaths())); background <- args[7]
suppressMessages(library(susieR))
read <- function(name, size = p) readBin(file.path(folder, paste0(name, ".bin")), "double",
                                         size)
if (kind == "individual") {
  X <- matrix(read("X", n * p), n, p); y <- read("y", n)
  fit_once <- function() suppressMessages(susie(X, y, L = 10,
                                                unmappable_effects = background))
} else {
  z <- read("z"); R <- matrix(read("R", p * p), p, p)
  fit_once <- function() suppressWarnings(suppressMessages(
    susie_rss(z = z, R = R, n = n, L = 10, unmappable_effects = background,
              max_iter = 50)))
}
times <- numeric(repeats)
for (r in seq_len(repeats)) times[r] <- system.time(fit <- fit_once())[["elapsed"]]
writeBin(as.double(fit$pip), file.path(folder, "pip.bin"))
cat(sprintf("%.6f %d %.6g\n", median(times), fit$niter, fit$tau2))
"""


def run_susier(folder, kind, n, p, repeats, library, background):
    """(PIPs, median seconds, iterations, tau2) of susieR 0.16.5, or None without R."""
    if shutil.which("Rscript") is None:
        return None
    script = Path(folder, "fit.R")
    script.write_text(R_FIT)
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    result = subprocess.run(["Rscript", str(script), folder, kind, str(n), str(p),
                             str(repeats), library, background], capture_output=True,
                            text=True,
                            env=environment, check=False)
    if result.returncode != 0:
        print(f"R could not run: {result.stderr.strip()[-300:]}")
        return None
    seconds, iterations, tau2 = result.stdout.split()[-3:]
    return (np.fromfile(Path(folder, "pip.bin"), dtype="<f8"), float(seconds),
            int(iterations), float(tau2))


def fresh(fit):
    """``fit`` with the cached decomposition and correlation cleared first (each timed fit
    pays for them)."""
    def run():
        _susie_inf._LAST_DESIGN.clear()
        _susie_ash._LAST_CORRELATION.clear()
        return fit()
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--susier-lib", default=os.environ.get("SUSIER_LIB"),
                        help="R library holding susieR 0.16.5 (default: $SUSIER_LIB)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--background", choices=("inf", "ash"), default="inf")
    args = parser.parse_args()
    if not args.susier_lib:
        parser.error("give --susier-lib or set SUSIER_LIB (the library of susieR 0.16.5)")
    data = load_n3finemapping()
    X, background = data.data, args.background
    n, p = X.shape
    if background == "ash":
        X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    R = np.nan_to_num(np.corrcoef(X, rowvar=False))
    np.fill_diagonal(R, 1.0)
    with threadpool_limits(1):
        copy, gemm = copy_bandwidth(3), gemm_rate((1000, 1000, 1000), np.float64, 3)
        print(f"1 thread: copy {copy:.1f} GB/s, gemm {gemm:.1f} GFLOP/s (float64)")
        AlphaSuSiE(unmappable_effects=background).fit(X[:, :50], data.target[:, 0])  # jit
        print(f"\nN3finemapping: {n} x {p}, L = 10, medians of {args.repeats}")
        print(f"{'fit':16s} {'alphavb s':>9s} {'iter':>4s} {'susieR s':>9s} {'iter':>4s} "
              f"{'ratio':>6s} {'max|dPIP|':>9s} {'tau2 rel.diff':>13s}")
        def response(k):
            """y_k; of sd 1 for "ash" (module docstring)."""
            y = data.target[:, k]
            return y if background == "inf" else (y - y.mean()) / y.std(ddof=1)

        with tempfile.TemporaryDirectory() as folder:
            write_arrays(folder, {"X": X, "R": R})
            for k in range(2):
                y = response(k)
                z = z_scores(X, y)
                write_arrays(folder, {"y": y, "z": z})
                calls = {"individual": lambda y=y: AlphaSuSiE(
                             unmappable_effects=background).fit(X, y),
                         "summary": lambda z=z: AlphaSuSiE(
                             unmappable_effects=background, max_iter=50).fit_summary(z, R, n)}
                for kind, call in calls.items():
                    models = []
                    seconds = median_seconds(fresh(
                        lambda call=call, models=models: models.append(call())), args.repeats)
                    model = models[-1]
                    theirs = run_susier(folder, kind, n, p, args.repeats, args.susier_lib,
                                        background)
                    line = f"y{k + 1} {kind:13s} {seconds:9.3f} {model.n_iter_:4d}"
                    if theirs is not None:
                        pips, their_seconds, iterations, tau2 = theirs
                        line += (f" {their_seconds:9.3f} {iterations:4d} "
                                 f"{seconds / their_seconds:6.2f} "
                                 f"{np.max(np.abs(model.inclusion_probabilities_ - pips)):9.1e}"
                                 f" {abs(model.infinitesimal_variance_ / tau2 - 1):13.1e}")
                    print(line)
            y = response(0)
            single = median_seconds(fresh(lambda: AlphaSuSiE(
                unmappable_effects=background).fit(X, y)), args.repeats)
            for fitted in (None, background):
                selector = AlphaSelector(AlphaSuSiE(unmappable_effects=fitted),
                                         method="calibrate", random_state=0)
                seconds = median_seconds(fresh(lambda s=selector: s.fit(X, y)), 1)
                print(f"calibrate alpha ({fitted or 'no background'}), y1: "
                      f"{seconds:.2f} s, {selector.n_fits_} fits, alpha {selector.alpha_:.3g}"
                      f" = {seconds / single:.1f} {background} fits' time")
        if background == "ash":
            flops = 2 * n * p * p
            print(f"\nfloor of the correlation from rows: {flops / 1e9:.2f} GFLOP, "
                  f"{flops / 1e9 / gemm:.3f} s at the gemm rate; one read of Z: "
                  f"{8 * n * p / 1e9 / copy:.5f} s at the copy rate")
            return
        r = int(np.sum(np.linalg.eigvalsh(X.T @ X) > 1e-8))
        flops = 2 * n * n * p + 9 * n**3 + 2 * n * n * p
        print(f"\nfloor of the decomposition from rows: {flops / 1e9:.2f} GFLOP, "
              f"{flops / 1e9 / gemm:.3f} s at the gemm rate; a sweep reads W "
              f"({p} x {r}) 20 times: {20 * 8 * p * r / 1e9 / copy:.4f} s at the copy rate")


if __name__ == "__main__":
    main()
