"""Writes tests/data/susier_nig.json: susieR 0.16.5's normal-inverse-gamma residual prior
(``estimate_residual_method = "NIG"``, Denault et al. 2025; its defaults: alpha0 = beta0 =
1 / sqrt(n), V by EM, PIP convergence at tol 1e-6) on N3finemapping's two responses divided
by their standard deviations (susieR's beta0 is absolute, alphavb's relative to Var(y):
the two agree at Var(y) = 1), on all 574 rows and on the first 47 (the small sample of
susieR's issue #264), from individual data, on the columns that vary in those rows (0.16.5's
NIG turns a constant column's posterior moments into NaN and stops).

Per fit (``fits.<y1|y2>_<n574|n47>``): ``pip``, ``V`` (susieR's, ``V * rv``), ``sigma2``,
``niter``, ``converged``, ``cs`` (0-based) and ``seconds``.

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_nig_reference.py \\
    --susier-lib <library holding susieR 0.16.5>   (default: $SUSIER_LIB)
"""

from susier_rscript import write_reference  # benchmarks/ is the script's folder

R_SCRIPT = r"""
fits <- list()
for (k in 1:2) {
  for (rows in c(574L, 47L)) {
    Xs <- X[seq_len(rows), ]
    Xs <- Xs[, apply(Xs, 2, sd) > 0]  # 0.16.5's NIG turns a constant column's moments NaN
    y <- Y[seq_len(rows), k]
    y <- y / sd(y)
    t0 <- proc.time()[["elapsed"]]
    fit <- suppressWarnings(suppressMessages(susie(Xs, y, estimate_residual_method = "NIG")))
    seconds <- proc.time()[["elapsed"]] - t0
    cs <- lapply(fit$sets$cs, function(v) unname(v) - 1L)
    fits[[sprintf("y%d_n%d", k, rows)]] <- list(
      pip = unname(fit$pip), V = unname(fit$V), sigma2 = fit$sigma2, niter = fit$niter,
      converged = fit$converged, cs = unname(cs), seconds = seconds)
  }
}
out <- list(susieR = as.character(packageVersion("susieR")), fits = fits)
"""


def main():
    write_reference(__doc__.split("\n\n")[0], R_SCRIPT, "susier_nig.json",
                    lambda fit: (f"sigma2 {fit['sigma2']:.6g} sets {len(fit['cs'])} "
                                 f"iterations {fit['niter']} {fit['seconds']:.2f} s"))


if __name__ == "__main__":
    main()
