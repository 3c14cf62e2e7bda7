"""Writes tests/data/susier_inf.json: susieR 0.16.5's SuSiE-inf (``unmappable_effects =
"inf"``, its defaults: L = 10, method of moments, PIP convergence at tol 1e-4) on
N3finemapping's two responses, from individual data (``susie``) and from z-scores with the
in-sample LD (``susie_rss(z, R = cor(X), n)``, R of rank 573 < p), the numbers the tests
compare ``AlphaSuSiE(unmappable_effects="inf")`` against without R.

Per fit (``fits.<y1|y2>_<susie|susie_rss>``): ``pip``, ``V``, ``sigma2``, ``tau2``,
``niter``, ``converged``, ``cs`` (0-based variables, in susieR's order), ``theta`` (on the
standardized columns, as susieR returns it: computed before the last sweep) and
``seconds`` (elapsed, one R process, one BLAS thread).

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_inf_reference.py \\
    --susier-lib <library holding susieR 0.16.5>   (default: $SUSIER_LIB)
"""

from susier_rscript import background_line, write_reference  # benchmarks/ is the script's folder

R_SCRIPT = r"""
R <- cor(X)
fits <- list()
for (k in 1:2) {
  y <- Y[, k]
  uni <- univariate_regression(X, y)
  z <- uni$betahat / uni$sebetahat
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(susie(X, y, unmappable_effects = "inf"))
  fits[[paste0("y", k, "_susie")]] <- summarise(fit, proc.time()[["elapsed"]] - t0)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(suppressMessages(
    susie_rss(z = z, R = R, n = nrow(X), unmappable_effects = "inf", max_iter = 50)))
  fits[[paste0("y", k, "_susie_rss")]] <- summarise(fit, proc.time()[["elapsed"]] - t0)
}
out <- list(susieR = as.character(packageVersion("susieR")), fits = fits)
"""


def main():
    write_reference(__doc__.split("\n\n")[0], R_SCRIPT, "susier_inf.json",
                    background_line)


if __name__ == "__main__":
    main()
