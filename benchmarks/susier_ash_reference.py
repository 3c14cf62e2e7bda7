"""Writes tests/data/susier_ash.json: susieR 0.16.5's SuSiE-ash (``unmappable_effects =
"ash"``, its defaults: L = 10, the Beta(1, 2) slot prior, PIP convergence at tol 1e-4) on
N3finemapping's two responses, from individual data (``susie(scale(X), scale(y))``: susieR's
Mr.ASH reads the raw X while its single effects read the standardized one, so the columns
are standardized first, as its own tests do; and its Mr.ASH stops at an absolute
tolerance, which alphavb reads in units of sd(y), so y has sd 1), from sufficient
statistics of the same (``susie_ss``) and from z-scores with the in-sample LD
(``susie_rss(z, R = cor(X), n)``, whose default keeps sigma2 fixed, so that Mr.ASH runs
only after convergence), the numbers the tests compare
``AlphaSuSiE(unmappable_effects="ash")`` against without R.

The individual-data fit is also made with the columns in reverse order
(``<y1|y2>_susie_reversed``, its numbers in that order): Mr.ASH updates the variables one
by one, so the fit depends on their order.

Per fit (``fits.<y1|y2>_<susie|susie_reversed|susie_ss|susie_rss>``): ``pip``, ``V``, ``sigma2``,
``tau2``, ``niter``, ``converged``, ``cs`` (0-based variables, in susieR's order),
``theta`` (on the standardized columns), ``slot_weights``, ``ash_pi`` and ``seconds``
(elapsed, one R process, one BLAS thread).

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_ash_reference.py \\
    --susier-lib <library holding susieR 0.16.5>   (default: $SUSIER_LIB)
"""

from susier_rscript import background_line, write_reference  # benchmarks/ is the script's folder

R_SCRIPT = r"""
Xs <- scale(X)
attributes(Xs) <- list(dim = dim(X))
R <- cor(X)
summarise_ash <- function(fit, seconds)
  c(summarise(fit, seconds), list(slot_weights = as.vector(fit$slot_weights),
                                  ash_pi = as.vector(fit$ash_pi)))
fits <- list()
for (k in 1:2) {
  y <- (Y[, k] - mean(Y[, k])) / sd(Y[, k])
  yc <- y
  uni <- univariate_regression(X, y)
  z <- uni$betahat / uni$sebetahat
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(susie(Xs, y, unmappable_effects = "ash"))
  fits[[paste0("y", k, "_susie")]] <- summarise_ash(fit, proc.time()[["elapsed"]] - t0)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(susie(Xs[, ncol(Xs):1], y, unmappable_effects = "ash"))
  fits[[paste0("y", k, "_susie_reversed")]] <- summarise_ash(fit,
                                                             proc.time()[["elapsed"]] - t0)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(susie_ss(XtX = crossprod(Xs), Xty = drop(crossprod(Xs, yc)),
                                   yty = sum(yc^2), n = nrow(X), unmappable_effects = "ash"))
  fits[[paste0("y", k, "_susie_ss")]] <- summarise_ash(fit, proc.time()[["elapsed"]] - t0)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(suppressMessages(
    susie_rss(z = z, R = R, n = nrow(X), unmappable_effects = "ash", max_iter = 50)))
  fits[[paste0("y", k, "_susie_rss")]] <- summarise_ash(fit, proc.time()[["elapsed"]] - t0)
}
out <- list(susieR = as.character(packageVersion("susieR")), fits = fits)
"""


def main():
    write_reference(__doc__.split("\n\n")[0], R_SCRIPT, "susier_ash.json",
                    background_line)


if __name__ == "__main__":
    main()
