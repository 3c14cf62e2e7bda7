"""AlphaSuSiE beside both susieR versions, 0.16.5 and 0.12.35, in one run, one thread each
(L = 10, the packages' defaults otherwise).

Data: N3finemapping (574 x 1,001), responses y1 and y2, and with ``--large`` SuSiE's paper
scale, n = p = 10,000 (AR(1) columns, rho = 0.9, 3 effects). Fits of each: individual data
(``susie(X, y, L = 10)``), summary statistics (``susie_rss(z, R, n = n)``, z of the
univariate regressions, ``R = np.corrcoef(X)``) and sufficient statistics (``susie_ss``
in 0.16.5, ``susie_suff_stat`` in 0.12.35, from ``sufficient_statistics(X, y)``).
alphavb's defaults are 0.16.5's (``tol = 1e-4``); against 0.12.35 (``tol = 1e-3``)
alphavb is fitted again with ``tol=1e-3``, so that each version is met at its own
tolerance. The statistics (z, R, X'X) are computed once, outside every timing, and handed
to R as binary files written once per data set. Times are medians of ``--repeats`` fits
(one at n = p = 10,000): susieR's inside R, ``system.time`` around the fit call only
(``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = 1``; R's start-up and reading excluded);
alphavb's with ``threadpool_limits(1)``, the whole call from the inputs to the fitted
model with its credible sets. ratio = alphavb s / susieR s (below 1: alphavb is faster);
max|dPIP| is over all variables.

The floors, on this machine's measured 1-thread copy bandwidth and 1000^3 gemm rates
(``machine_floor.py``): a sweep on individual data reads Z twice per effect (``Z'r`` and
``Z (alpha mu)``, ``16 L n p`` bytes); on summary or sufficient statistics it reads
``Z'Z`` once per effect (``8 L p^2`` bytes). Beside the floor stands the time of a bare
sweep (``ibss_sweep`` from susieR's start, on the standardized rows and on their ``Z'Z``,
median of the repeats; fit_summary and fit_sufficient run the same sweep on the same
kind of matrix). fit_summary and fit_sufficient first check positive semi-definiteness
by a Cholesky factorisation (``p^3 / 3`` FLOPs, in float32 first when ``p >= 2000``):
its floor at the gemm rate of that precision, beside the measured check.

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_susie.py [--susier-lib LIB]
     [--repeats R] [--large]   (LIB: the library holding susieR 0.16.5; default
     $SUSIER_LIB; R's default library holds 0.12.35)
"""

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from bench_spikeslab import median_seconds  # benchmarks/ is the script's folder
from machine_floor import copy_bandwidth, gemm_rate
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE, approximation_checks
from alphavb.datasets import load_n3finemapping
from alphavb.linear_model import sufficient_statistics
from alphavb.linear_model._susie import (
    ibss_data,
    ibss_sweep,
    initial_state,
    sufficient_statistics_data,
)
from alphavb.linear_model._susie_rss import SINGLE_PRECISION_SIZE, check_positive_semi_definite

L = 10
KINDS = ("individual", "summary", "sufficient")
# (version, loaded from --susier-lib (else R's default library), alphavb's tol: its default)
VERSIONS = (("0.16.5", True, 1e-4), ("0.12.35", False, 1e-3))

R_FIT = r"""
args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]; kind <- args[2]; n <- as.integer(args[3]); p <- as.integer(args[4])
repeats <- as.integer(args[5])
if (length(args) > 5) .libPaths(c(args[6], .libPaths()))
suppressMessages(library(susieR))
read <- function(name, size = p) readBin(file.path(folder, paste0(name, ".bin")), "double",
                                         size)
if (kind == "individual") {
  X <- matrix(read("X", n * p), n, p); y <- read("y", n)
  fit_once <- function() susie(X, y, L = 10)
} else if (kind == "summary") {
  z <- read("z"); R <- matrix(read("R", p * p), p, p)
  fit_once <- function() susie_rss(z, R, n = n, L = 10)
} else {
  XtX <- matrix(read("XtX", p * p), p, p); Xty <- read("Xty"); yty <- read("yty", 1)
  X_colmeans <- read("X_colmeans"); y_mean <- read("y_mean", 1)
  fit_once <- if (exists("susie_ss")) {
    function() susie_ss(XtX, Xty, yty, n, L = 10, X_colmeans = X_colmeans, y_mean = y_mean)
  } else {
    function() susie_suff_stat(XtX = XtX, Xty = Xty, yty = yty, n = n, L = 10,
                               X_colmeans = X_colmeans, y_mean = y_mean)
  }
}
times <- numeric(repeats)
for (r in seq_len(repeats)) times[r] <- system.time(fit <- fit_once())[["elapsed"]]
writeBin(as.double(fit$pip), file.path(folder, "pip.bin"))
cat(sprintf("%.6f %d %s\n", median(times), fit$niter, as.character(packageVersion("susieR"))))
"""


def z_scores(X, y):
    """The univariate regressions' z-scores (susieR's ``univariate_regression``)."""
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    r = Xc.T @ yc / np.sqrt(np.sum(Xc**2, axis=0) * (yc @ yc))
    return r * np.sqrt((len(y) - 2) / (1 - r**2))


def write_arrays(folder, arrays):
    """Little-endian doubles, column-major, to ``<folder>/<name>.bin`` (as R reads them)."""
    for name, array in arrays.items():
        np.asfortranarray(np.atleast_1d(array), dtype="<f8").T.tofile(Path(folder, f"{name}.bin"))


def run_susier(folder, kind, n, p, repeats, library):
    """susieR's ``kind`` fit on the files in ``folder``, on one thread, from ``library``
    (first on the path; "" for R's default): (PIPs, median seconds, iterations, version), or
    None when Rscript is missing or the script fails."""
    if shutil.which("Rscript") is None:
        return None
    script = Path(folder, "fit.R")
    script.write_text(R_FIT)
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    command = ["Rscript", str(script), folder, kind, str(n), str(p), str(repeats)]
    result = subprocess.run(command + ([library] if library else []), capture_output=True,
                            text=True, env=environment, check=False)
    if result.returncode != 0:
        print(f"R could not run: {result.stderr.strip()[-300:]}")
        return None
    seconds, iterations, version = result.stdout.split()[-3:]
    return (np.fromfile(Path(folder, "pip.bin"), dtype="<f8"), float(seconds), int(iterations),
            version)


def alphavb_fit(kind, X, y, z, R, stats, tol, repeats):
    """(last model, median seconds) of ``repeats`` fits of ``kind`` at ``tol``."""
    calls = {"individual": lambda: AlphaSuSiE(tol=tol).fit(X, y),
             "summary": lambda: AlphaSuSiE(tol=tol).fit_summary(z, R, X.shape[0]),
             "sufficient": lambda: AlphaSuSiE(tol=tol).fit_sufficient(**stats)}
    models = []
    seconds = median_seconds(lambda: models.append(calls[kind]()), repeats)
    return models[-1], seconds


def compare(name, X, y, R, XtX_stats, folder, repeats, library):
    """The table's rows of one response: each kind of fit against both versions."""
    n, p = X.shape
    z = z_scores(X, y)
    stats = {**XtX_stats, **sufficient_statistics_response(X, y, XtX_stats)}
    write_arrays(folder, {"y": y, "z": z, "Xty": stats["Xty"], "yty": stats["yty"],
                          "y_mean": stats["y_mean"]})
    for kind in KINDS:
        groups = []
        for _, from_lib, tol in VERSIONS:
            model, seconds = alphavb_fit(kind, X, y, z, R, stats, tol, repeats)
            theirs = run_susier(folder, kind, n, p, repeats, library if from_lib else "")
            ours = f"{seconds:9.3f} {model.n_iter_:6d}"
            if theirs is None:
                groups.append(f"{ours} {'(absent)':>9s} {'':32s}")
                continue
            pips, their_seconds, iterations, _ = theirs
            dpip = np.max(np.abs(model.inclusion_probabilities_ - pips))
            groups.append(f"{ours} {their_seconds:9.3f} {iterations:5d} "
                          f"{seconds / their_seconds:6.2f} {dpip:9.1e}")
        print(f"{name:2s} {kind:10s} " + " | ".join(groups))


def sufficient_statistics_response(X, y, XtX_stats):
    """``X'y``, ``y'y`` and the mean of ``y`` centred, beside a ``X'X`` computed once."""
    yc = y - y.mean()
    return {"Xty": (X - XtX_stats["X_mean"]).T @ yc, "yty": float(yc @ yc),
            "y_mean": float(y.mean())}


def header():
    versions = " | ".join(f"{'alphavb s':>9s} {'sweeps':>6s} {f'{v} s':>9s} {'iter':>5s} "
                          f"{'ratio':>6s} {'max|dPIP|':>9s}" for v, _, _ in VERSIONS)
    print(f"{'fit':13s} {versions}")


def bare_sweeps(X, y, stats, repeats):
    """Median seconds of one ``ibss_sweep`` from susieR's start on the standardized rows
    and on their ``Z'Z`` (the matrices fit and fit_sufficient hand the sweep)."""
    n = X.shape[0]
    scale = np.sqrt(np.diag(stats["XtX"]) / (n - 1))
    yc = y - y.mean()
    rows = sweep_seconds(ibss_data((X - stats["X_mean"]) / scale, yc), repeats)
    gram = sufficient_statistics_data(stats["XtX"] / np.outer(scale, scale),
                                      (X - stats["X_mean"]).T @ yc / scale, float(yc @ yc), n)
    return rows, sweep_seconds(gram, repeats)


def sweep_seconds(data, repeats):
    return median_seconds(lambda: ibss_sweep(data, initial_state(data, L)), repeats)


def floors(X, y, R, stats, repeats, machine):
    """Each sweep's floor against a bare sweep, and the Cholesky check's against the
    measured check."""
    n, p = X.shape
    bandwidth, rate64, rate32 = machine
    single = p >= SINGLE_PRECISION_SIZE
    cholesky_floor = p**3 / 3 / ((rate32 if single else rate64) * 1e9)
    check = median_seconds(lambda: check_positive_semi_definite("bench", "R", R), repeats)
    row_sweep, gram_sweep = bare_sweeps(X, y, stats, repeats)
    print(f"{'floors, 1 thread':16s} {'bytes':>8s} {'floor ms':>9s} {'sweep ms':>9s} "
          f"{'floor/sweep':>11s}")
    for label, size, seconds in (("sweep on rows", 16 * L * n * p, row_sweep),
                                 ("sweep on Z'Z", 8 * L * p * p, gram_sweep)):
        floor = size / (bandwidth * 1e9)
        print(f"{label:16s} {size / 1e9:5.2f} GB {1e3 * floor:9.2f} {1e3 * seconds:9.2f} "
              f"{floor / seconds:11.2f}")
    print(f"Cholesky check ({'float32' if single else 'float64'}, p^3/3 FLOPs): floor "
          f"{1e3 * cholesky_floor:.1f} ms, measured {1e3 * check:.1f} ms "
          f"(floor/check {cholesky_floor / check:.2f})")


def data_set(title, X, responses, repeats, library, machine):
    """Both versions against alphavb on every response of ``X``, then the floors."""
    n, p = X.shape
    R = np.corrcoef(X, rowvar=False)
    XtX_stats = sufficient_statistics(X, responses[0][1])
    del XtX_stats["Xty"], XtX_stats["yty"], XtX_stats["y_mean"]
    print(f"\n{title}: {n} x {p}, L = {L}, medians of {repeats}")
    header()
    with tempfile.TemporaryDirectory() as folder:
        write_arrays(folder, {"X": X, "R": R, "XtX": XtX_stats["XtX"],
                              "X_colmeans": XtX_stats["X_mean"]})
        for name, y in responses:
            compare(name, X, y, R, XtX_stats, folder, repeats, library)
    floors(X, responses[0][1], R, XtX_stats, repeats, machine)


def paper_scale():
    """n = p = 10,000: AR(1) columns (rho = 0.9, LD-like), 3 effects of 0.1 sd each."""
    n = p = 10_000
    rng = np.random.default_rng(0)
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):
        X[:, j] = 0.9 * X[:, j - 1] + np.sqrt(0.19) * rng.standard_normal(n)
    y = X[:, [1000, 5000, 9000]] @ np.full(3, 0.1) + rng.standard_normal(n)
    return X, y


def warm_up(X, y):
    """One small fit of each kind: the first call's imports stay out of the timings."""
    X, y = X[:, :50], y
    stats = sufficient_statistics(X, y)
    AlphaSuSiE().fit(X, y)
    AlphaSuSiE().fit_summary(z_scores(X, y), np.corrcoef(X, rowvar=False), X.shape[0])
    AlphaSuSiE().fit_sufficient(**stats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--susier-lib", default=os.environ.get("SUSIER_LIB"),
                        help="R library holding susieR 0.16.5 (default: $SUSIER_LIB)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--large", action="store_true",
                        help="also n = p = 10,000, one fit each (about 10 minutes)")
    args = parser.parse_args()
    if not args.susier_lib:
        parser.error("give --susier-lib or set SUSIER_LIB (the library of susieR 0.16.5)")
    # the fit's time beside susieR's: without the fit-time check, which susieR has not
    with threadpool_limits(1), approximation_checks("never"):
        machine = (copy_bandwidth(3), gemm_rate((1000, 1000, 1000), np.float64, 3),
                   gemm_rate((1000, 1000, 1000), np.float32, 3))
        print(f"1 thread: copy {machine[0]:.1f} GB/s, gemm {machine[1]:.1f} GFLOP/s "
              f"(float64), {machine[2]:.1f} (float32)")
        data = load_n3finemapping()
        warm_up(data.data, data.target[:, 0])
        data_set("N3finemapping", data.data,
                 [(f"y{k + 1}", data.target[:, k]) for k in range(2)], args.repeats,
                 args.susier_lib, machine)
        if args.large:
            X, y = paper_scale()
            data_set("n = p = 10,000", X, [("y", y)], 1, args.susier_lib, machine)
    print("ratio = alphavb s / susieR s; alphavb at tol=1e-4 against 0.16.5, tol=1e-3 "
          "against 0.12.35")


if __name__ == "__main__":
    main()
