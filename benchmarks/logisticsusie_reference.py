"""Writes tests/data/logisticsusie.json: Karl Tayeb's logisticsusie (``binsusie``, the
published variational logistic SuSiE: the Jaakkola-Jordan bound, an intercept estimated as a
point, ``V_l`` by EM) on two binary traits, the numbers the tests compare
``AlphaSuSiEClassifier(intercept_estimate="point", prior_variance_method="em",
standardize=False, scaled_prior_variance=1)`` against at alpha = 1 without R.

Data: ``simulated``, 300 rows of 8 standard normal columns, two of them correlated 0.9,
``y ~ Bernoulli(sigmoid(0.3 + x_1 - 0.8 x_5))`` (stored in the JSON); ``n3finemapping``,
the first 100 variants of susieR's N3finemapping (574 rows, real LD, read from the data
home) with ``y ~ Bernoulli(sigmoid(-0.5 + 1.2 z_10 - 0.9 z_60))`` (``z`` the standardized
variants; ``y`` stored). ``binsusie(X, y, L = 5, max_iter = 5000, tol = 1e-10)``, its
defaults otherwise (centred, unscaled ``X``; initial ``V = 1``). Per fit: ``alpha``,
``mu``, ``var`` (L x p), ``prior_variance``, ``intercept`` (on the uncentred ``X``),
``elbo`` (the last), ``n_iter``.

logisticsusie is not on CRAN: install it from github.com/karltayeb/logisticsusie (its
dependencies purrr, statmod, dplyr, tidyr, RcppEigen, tictoc and fastglm 0.0.3) into a
library and pass it.

Run: ALPHAVB_DATA=../shared/data python benchmarks/logisticsusie_reference.py \\
    --r-lib <library holding logisticsusie>   (default: $LOGISTICSUSIE_LIB)
"""

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from scipy.special import expit

from alphavb.datasets import load_n3finemapping

R_SCRIPT = r"""
.libPaths(c(commandArgs(TRUE)[1], .libPaths()))
suppressPackageStartupMessages({library(logisticsusie); library(jsonlite)})
folder <- commandArgs(TRUE)[2]
fits <- list()
for (name in c("simulated", "n3finemapping")) {
  X <- as.matrix(read.csv(file.path(folder, paste0(name, "_X.csv")), header = FALSE))
  y <- read.csv(file.path(folder, paste0(name, "_y.csv")), header = FALSE)[, 1]
  dimnames(X) <- NULL
  fit <- suppressMessages(binsusie(X, y, L = 5, max_iter = 5000, tol = 1e-10))
  b <- colSums(fit$alpha * fit$mu)
  intercept <- sum(get_delta(fit)[, 1]) - sum(colMeans(X) * b)
  elbo <- fit$elbo[is.finite(fit$elbo)]
  fits[[name]] <- list(alpha = unname(fit$alpha), mu = unname(fit$mu),
                       var = unname(fit$var),
                       prior_variance = vapply(fit$sers, function(s) s$var0, numeric(1)),
                       intercept = intercept, elbo = tail(elbo, 1), n_iter = length(elbo))
}
out <- list(logisticsusie = as.character(packageVersion("logisticsusie")), fits = fits)
writeLines(toJSON(out, auto_unbox = TRUE, digits = I(15)), commandArgs(TRUE)[3])
"""


def data_sets():
    """The two traits (module docstring): name -> (X, y)."""
    rng = np.random.default_rng(20261206)
    shared = rng.standard_normal(300)
    X = rng.standard_normal((300, 8))
    X[:, 1] = shared + 0.3 * rng.standard_normal(300)
    X[:, 2] = shared + 0.3 * rng.standard_normal(300)
    y = (rng.random(300) < expit(0.3 + X[:, 1] - 0.8 * X[:, 5])).astype(int)
    variants = load_n3finemapping().data[:, :100]
    z = (variants - variants.mean(axis=0)) / variants.std(axis=0)
    y3 = (rng.random(574) < expit(-0.5 + 1.2 * z[:, 10] - 0.9 * z[:, 60])).astype(int)
    return {"simulated": (X, y), "n3finemapping": (variants, y3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--r-lib", default=os.environ.get("LOGISTICSUSIE_LIB"))
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests"
                                             / "data" / "logisticsusie.json"))
    args = parser.parse_args()
    if not args.r_lib:
        parser.error("pass --r-lib (or set LOGISTICSUSIE_LIB): the R library holding "
                     "logisticsusie")
    sets = data_sets()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (X, y) in sets.items():
            np.savetxt(Path(tmp) / f"{name}_X.csv", X, delimiter=",", fmt="%.17g")
            np.savetxt(Path(tmp) / f"{name}_y.csv", y, fmt="%d")
        script, raw = Path(tmp) / "reference.R", Path(tmp) / "reference.json"
        script.write_text(R_SCRIPT)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        subprocess.run(["Rscript", str(script), args.r_lib, tmp, str(raw)], check=True,
                       env=env)
        result = json.loads(raw.read_text())
    result["data"] = {"simulated": {"X": sets["simulated"][0].tolist(),
                                    "y": sets["simulated"][1].tolist()},
                      "n3finemapping": {"columns": 100,
                                        "y": sets["n3finemapping"][1].tolist()}}
    Path(args.out).write_text(json.dumps(result) + "\n")
    for name, fit in result["fits"].items():
        print(f"{name}: V {np.round(fit['prior_variance'], 4).tolist()} elbo "
              f"{fit['elbo']:.6f} iterations {fit['n_iter']}")


if __name__ == "__main__":
    main()
