"""Writes tests/data/susier_mismatch.json: susieR 0.16.5's ``susie_rss`` with an LD matrix
from other individuals, ``R_finite = B`` (the finite reference), ``R_mismatch = "eb"`` (the
mismatch variance) and both, on N3finemapping: the z-scores of the first 287 rows (each
response), the correlations of the other 287 (B = 287), the variants that vary in both
halves; ``max_iter = 100``, its defaults otherwise (PIP convergence at tol 1e-4).

Per fit (``fits.<y1|y2>_<finite|eb|eb_finite>``): ``pip``, ``V``, ``niter``, ``cs``
(0-based), ``lambda_bias``, ``B_corrected``, ``Q_art`` and the two flags (null without
``R_mismatch``), ``seconds``; ``columns``: the variants kept (0-based).

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_mismatch_reference.py \\
    --susier-lib <library holding susieR 0.16.5>   (default: $SUSIER_LIB)
"""

from susier_rscript import write_reference  # benchmarks/ is the script's folder

R_SCRIPT = r"""
first <- 1:287; other <- 288:574
keep <- apply(X[first, ], 2, sd) > 0 & apply(X[other, ], 2, sd) > 0
X <- X[, keep]
R <- cor(X[other, ])
fits <- list()
for (k in 1:2) {
  uni <- univariate_regression(X[first, ], Y[first, k])
  z <- uni$betahat / uni$sebetahat
  for (case in c("finite", "eb", "eb_finite")) {
    args <- list(z = z, R = R, n = length(first), max_iter = 100)
    if (case %in% c("finite", "eb_finite")) args$R_finite <- length(other)
    if (case %in% c("eb", "eb_finite")) args$R_mismatch <- "eb"
    t0 <- proc.time()[["elapsed"]]
    fit <- withCallingHandlers(do.call(susie_rss, args),
                               warning = function(w) invokeRestart("muffleWarning"),
                               message = function(m) invokeRestart("muffleMessage"))
    seconds <- proc.time()[["elapsed"]] - t0
    d <- fit$R_finite_diagnostics
    fits[[sprintf("y%d_%s", k, case)]] <- list(
      pip = unname(fit$pip), V = unname(fit$V), niter = fit$niter,
      cs = unname(lapply(fit$sets$cs, function(v) unname(v) - 1L)),
      lambda_bias = d$lambda_bias, B_corrected = d$B_corrected, Q_art = d$Q_art,
      artifact_flag = d$artifact_flag, R_sensitivity_flag = d$R_sensitivity_flag,
      seconds = seconds)
  }
}
out <- list(susieR = as.character(packageVersion("susieR")), columns = which(keep) - 1L,
            fits = fits)
"""


def main():
    write_reference(__doc__.split("\n\n")[0], R_SCRIPT, "susier_mismatch.json",
                    lambda fit: (f"lambda {fit['lambda_bias']} sets {len(fit['cs'])} "
                                 f"iterations {fit['niter']} {fit['seconds']:.2f} s"))


if __name__ == "__main__":
    main()
