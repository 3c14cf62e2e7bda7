"""One SafeBayes selection: AlphaSelector against R's SafeBayes, side by side.

On Grünwald & van Ommen's wrong-model data (n = 100, p = 50 covariates and a constant,
``alphavb.datasets.make_wrong_model_regression``), both choose eta (= alpha) on the grid
``2^(-k/2)``, k = 0..12, by the cumulative R-log loss of the eta-posterior on the prefixes:

* R's SafeBayes (``SBRidgeRlog``; CRAN only: it builds with ``R CMD INSTALL`` from its
  source, cran/SafeBayes, Debian's r-base-core is all it needs) runs a Gibbs sampler (1,100
  iterations, 100 burn-in: its defaults) on every prefix, for its ridge model with
  ``beta ~ N(0, varBR I)`` (varBR learnt) and scaled-inverse-chi-square priors (df 2,
  scale 1/20: the paper's InvGamma(1, 1/40) for sigma2; its default improper priors give
  NaN losses on these data); timed inside R with ``system.time`` (start-up and data reading
  excluded);
* ``AlphaSelector(AlphaLinearRegression(...), method="safebayes")``: the exact prefix pass
  of the mean-field alpha-posterior (``beta ~ N(0, I / 40)``, ``sigma2 ~ InvGamma(1,
  1/40)``), median of repeated selections (the final refit included) after a warm-up that
  compiles the kernel.

The models differ (R's has a learnt prior scale and no mean-field factorisation), so the
selected etas are reported side by side, not compared as equal.

Run: python benchmarks/bench_safebayes.py [--r-lib LIB] [--repeats R] [--skip-r]
"""

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from alphavb import AlphaLinearRegression
from alphavb.datasets import make_wrong_model_regression
from alphavb.model_selection import AlphaSelector, default_alphas

R_SCRIPT = """
suppressMessages(library(SafeBayes, lib.loc = if (nzchar("{lib}")) "{lib}" else NULL))
d <- as.matrix(read.csv("{path}", header = FALSE))
y <- d[, 1]; X <- d[, -1]
set.seed(1)
etas <- c({etas})
# proper priors (with its default improper ones every loss is NaN here and no eta is
# chosen): sigma2 ~ InvGamma(1, 1/40) as in the paper (scaled inverse chi-square, df 2,
# S 1/20), and the same for the variance of the coefficients
prior <- list(varE = list(df = 2, S = 0.05), varBR = list(df = 2, S = 0.05))
elapsed <- system.time(fit <- SBRidgeRlog(y, X, etaseq = etas, prior = prior,
                                          pIter = FALSE))["elapsed"]
cat("RESULT", elapsed, fit$eta.min, "\\n")
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--r-lib", default="", help="library folder SafeBayes is installed in")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-r", action="store_true")
    args = parser.parse_args()
    X, y = make_wrong_model_regression(100, random_state=3)
    alphas = default_alphas()
    # R's SBRidgeRlog predicts rows 3..n from the prefixes 1..2, ..., 1..n-1: min_prefix=2
    # independent priors on the raw columns (not the default conjugate, standardized one)
    estimator = AlphaLinearRegression(fit_intercept=False, coef_prior="independent",
                                      standardize=False, prior_precision=40.0,
                                      noise_prior=(1.0, 1 / 40))
    selector = AlphaSelector(estimator, min_prefix=2)
    selector.fit(X, y)  # warm-up: compiles (or loads) the numba kernel
    seconds = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        selector.fit(X, y)
        seconds.append(time.perf_counter() - start)
    ours = float(np.median(seconds))
    print(f"n = {len(y)}, {X.shape[1]} columns, {len(alphas)} values of alpha")
    print(f"alphavb AlphaSelector(safebayes): {ours:.3f} s per selection (median of "
          f"{args.repeats}), alpha = {selector.alpha_:.4g}")
    if args.skip_r:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        np.savetxt(path, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
        script = R_SCRIPT.format(lib=args.r_lib, path=path,
                                 etas=", ".join(f"{a:.17g}" for a in alphas))
        output = subprocess.run(["Rscript", "-e", script], check=True, capture_output=True,
                                text=True).stdout
    result = [line.split() for line in output.splitlines() if line.startswith("RESULT")]
    if not result:
        raise RuntimeError(f"SBRidgeRlog did not finish; its output ends with {output[-300:]}")
    r_seconds = float(result[0][1])
    # measured here: some of its prefix losses are NaN, so every cumulative loss is NaN
    # and which.min chooses nothing (integer(0)); the time is still that of the selection
    chosen = f"eta = {float(result[0][2]):.4g}" if len(result[0]) == 3 else (
        "no eta chosen (its cumulative losses are NaN)")
    print(f"R SafeBayes SBRidgeRlog: {r_seconds:.1f} s, {chosen}")
    print(f"ratio (alphavb / R): {ours / r_seconds:.2e} ({r_seconds / ours:.0f}x faster)")


if __name__ == "__main__":
    main()
