"""Writes tests/data/susier_options.json: the fits of susieR 0.16.5 and 0.12.35 under the
options alpha-SuSiE mirrors (intercept, standardize, prior methods, null weight, prior
weights, residual-variance bounds, warm starts, refinement, missing y, sufficient and
summary statistics), the numbers the tests compare against without R.

Data: ``small`` is made here (numpy generator seed 20261206, n = 120, p = 40, AR(1)
columns with rho = 0.8 drawn column by column, then ``X * 2 + 1``;
``y = 5 + 0.35 X[:, 3] - 0.15 X[:, 20] + N(0, 1)``, a weak signal so that the PIPs are not
all 0 or 1 and the options change them), rounded to 10 significant digits and stored
under ``data.small`` (``X`` as rows, ``y``) so that the tests use the very same numbers;
``ld`` (:func:`ld_data`, stored the same way) is a design where refinement changes the fit.
``n3`` is N3finemapping (``get_data_home()/"susie"``) with its first response ``y1``, read
by R from the CSVs and not stored.

Per case (``cases.<name>``): ``call`` (the 0.16.5 spelling; ``call_0.12.35`` and the
``setup`` lines when they differ) and one result per run: ``"0.16.5"`` (defaults),
``"0.16.5_tol1e-3"`` (the same call with ``tol = 1e-3``) and ``"0.12.35"`` (its defaults;
null when the case has no 0.12.35 counterpart). A result holds ``pip``
(``susie_get_pip(fit, prior_tol)``, the case's prior_tol), ``V``, ``sigma2``, ``niter``,
``converged``, the whole ``elbo`` trace, ``intercept`` (null for NA), ``coef``
(``colSums(alpha * mu) / X_column_scale_factors``, no intercept; p + 1 values with a null
weight), the fit's own credible sets ``cs`` (0-based, in susieR's order) with their
``coverage`` and ``purity`` rows (min, mean, median |corr|), ``seconds`` (elapsed of the
fit call) and any R ``warnings``; ``alpha`` and ``mu`` (L x p rows) for the small data
only. A failed run is ``{"error": message}``. Inputs the tests cannot rebuild from X and y
alone sit in ``inputs`` (0.16.5's): ``z``; ``bhat`` and ``shat``; ``XtX``, ``Xty``,
``yty``, ``n``, ``X_colmeans``, ``y_mean`` of ``compute_suff_stat`` (no ``XtX`` for n3, it
is 1001 x 1001); the warm start ``init_fit`` (alpha, mu, mu2, V, sigma2) and
``init_fit_0.12.35``, the warm start 0.12.35 fitted for its own run. R's RNG is seeded
(``set.seed(1)``) before each case. Full precision throughout.

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_options_reference.py \\
    --susier-lib <library holding susieR 0.16.5>   (default: $SUSIER_LIB)
"""

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from alphavb.datasets import get_data_home

NEW, OLD, NEW_TOL = "0.16.5", "0.12.35", "0.16.5_tol1e-3"

# (name, 0.16.5 call, 0.12.35 call: "" for the same, None for none, options); options:
# setup/setup_old (R lines run first), inputs (an R list stored from 0.16.5's run),
# prior_tol (for susie_get_pip), old_inputs (inputs' names also stored from 0.12.35)
SS_NEW = "s <- compute_suff_stat(X, {y}, standardize = FALSE)"
SS_OLD = ("Xc <- scale(X, scale = FALSE); yc <- {y} - mean({y}); "
          "s <- list(XtX = crossprod(Xc), Xty = drop(crossprod(Xc, yc)), yty = sum(yc^2), "
          "n = nrow(X), X_colmeans = colMeans(X), y_mean = mean({y}))")
SS_CALL = "{fn}(s$XtX, s$Xty, s$yty, s$n, X_colmeans = s$X_colmeans, y_mean = s$y_mean{extra})"
SS_OLD_CALL = ("susie_suff_stat(XtX = s$XtX, Xty = s$Xty, yty = s$yty, n = s$n, "
               "X_colmeans = s$X_colmeans, y_mean = s$y_mean{extra})")
SS_INPUTS = ("list(XtX = s$XtX, Xty = I(s$Xty), yty = s$yty, n = s$n, "
             "X_colmeans = I(s$X_colmeans), y_mean = s$y_mean)")
Z = "uni <- univariate_regression(X, {y}); z <- uni$betahat / uni$sebetahat; R <- cor(X)"
BHAT = ("uni <- univariate_regression(X, {y}); bhat <- uni$betahat; shat <- uni$sebetahat; "
        "R <- cor(X)")
RSS_BHAT = "susie_rss(bhat = bhat, shat = shat, R = R, n = nrow(X), var_y = var({y}))"


def ss_case(name, y, extra=""):
    """The ``susie_ss`` case on response ``y``, with ``extra`` arguments."""
    return (name, SS_CALL.format(fn="susie_ss", extra=extra), SS_OLD_CALL.format(extra=extra),
            {"setup": SS_NEW.format(y=y), "setup_old": SS_OLD.format(y=y),
             "inputs": SS_INPUTS if y == "y" else SS_INPUTS.replace("XtX = s$XtX, ", "")})


CASES = [
    ("default", "susie(X, y)", "", {}),
    ("no_intercept", "susie(X, y, intercept = FALSE)", "", {}),
    ("no_standardize", "susie(X, y, standardize = FALSE)", "", {}),
    ("no_intercept_no_standardize", "susie(X, y, intercept = FALSE, standardize = FALSE)", "",
     {}),
    ("em", 'susie(X, y, estimate_prior_method = "EM")', "", {}),
    ("simple", 'susie(X, y, estimate_prior_method = "simple")', "", {}),
    ("check_null", "susie(X, y, check_null_threshold = 0.1)", "", {}),
    ("null_weight", "susie(X, y, null_weight = 0.2)", "", {}),
    ("prior_weights", "susie(X, y, prior_weights = c(rep(3, 10), rep(1, 30)))", "", {}),
    ("prior_tol", "susie(X, y, prior_tol = 0.05)", "", {"prior_tol": 0.05}),
    ("lower_bound", "susie(X, y, residual_variance_lowerbound = 2)", "", {}),
    ("upper_bound", "susie(X, y, residual_variance_upperbound = 0.5)", "", {}),
    ("fixed_sigma2", "susie(X, y, estimate_residual_variance = FALSE, residual_variance = 1.5)",
     "", {}),
    ("fixed_V", "susie(X, y, estimate_prior_variance = FALSE, scaled_prior_variance = 0.1)", "",
     {}),
    ("max_iter_2", "susie(X, y, max_iter = 2)", "", {}),
    ("refine", "susie(X, y, refine = TRUE)", "", {}),
    ("init", "susie(X, y, model_init = f0)", "susie(X, y, s_init = f0)",
     {"setup": "f0 <- susie(X, X[, 10] * 0.7 + y * 0.2, L = 3)",
      "inputs": "list(init_fit = list(alpha = f0$alpha, mu = f0$mu, mu2 = f0$mu2, "
                "V = I(f0$V), sigma2 = f0$sigma2))",
      "old_inputs": ["init_fit"]}),
    ("missing_y", "susie(X, y_na, na.rm = TRUE)", "",
     {"setup": "y_na <- y; y_na[c(5, 17, 60)] <- NA"}),
    ("L_above_p", "susie(X[, 1:5], y, L = 10)", "", {}),
    ("constant_column", "susie(Xc, y)", "", {"setup": "Xc <- X; Xc[, 8] <- 1"}),
    ss_case("ss", "y"),
    ss_case("ss_no_standardize", "y", ", standardize = FALSE"),
    ("rss", "susie_rss(z, R, n = nrow(X))", "", {"setup": Z.format(y="y"),
                                                   "inputs": "list(z = I(z))"}),
    ("rss_no_n", "susie_rss(z, R)", "", {"setup": Z.format(y="y"), "inputs": "list(z = I(z))"}),
    ("rss_bhat", RSS_BHAT.format(y="y"), "",
     {"setup": BHAT.format(y="y"), "inputs": "list(bhat = I(bhat), shat = I(shat))"}),
    ("rss_estimate_sigma2", "susie_rss(z, R, n = nrow(X), estimate_residual_variance = TRUE)",
     "", {"setup": Z.format(y="y"), "inputs": "list(z = I(z))"}),
    ("n3_default", "susie(X, y1)", "", {}),
    ("n3_refine", "susie(X, y1, refine = TRUE)", "", {}),
    ss_case("n3_ss", "y1"),
    ("n3_rss", "susie_rss(z, R, n = nrow(X))", "",
     {"setup": Z.format(y="y1"), "inputs": "list(z = I(z))"}),
    ("n3_rss_bhat", RSS_BHAT.format(y="y1"), "",
     {"setup": BHAT.format(y="y1"), "inputs": "list(bhat = I(bhat), shat = I(shat))"}),
    ("n3_em", 'susie(X, y1, estimate_prior_method = "EM")', "", {}),
    ("n3_null_weight", "susie(X, y1, null_weight = 0.2)", "", {}),
    ("ld_default", "susie(X, y, L = 5)", "", {}),
    ("ld_refine", "susie(X, y, L = 5, refine = TRUE)", "", {}),
]

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)  # plan.json, output, library ("" for the default)
if (nzchar(args[3])) .libPaths(c(args[3], .libPaths()))
suppressMessages({library(susieR); library(jsonlite)})
plan <- fromJSON(args[1], simplifyVector = FALSE)
read_matrix <- function(file) unname(as.matrix(read.csv(file, header = FALSE)))
data <- list(small = list(X = read_matrix(plan$small_X), y = drop(read_matrix(plan$small_y))),
             ld = list(X = read_matrix(plan$ld_X), y = drop(read_matrix(plan$ld_y))),
             n3 = list(X = read_matrix(plan$n3_X), y = read_matrix(plan$n3_Y)[, 1]))

record <- function(fit, seconds, prior_tol, matrices) {
  sets <- fit$sets
  scale <- fit$X_column_scale_factors
  out <- list(pip = I(unname(susie_get_pip(fit, prior_tol = prior_tol))), V = I(unname(fit$V)),
              sigma2 = fit$sigma2, niter = fit$niter, converged = fit$converged,
              elbo = I(unname(fit$elbo)),
              intercept = if (is.null(fit$intercept)) NA else unname(fit$intercept),
              coef = I(unname(colSums(fit$alpha * fit$mu) / if (is.null(scale)) 1 else scale)),
              cs = unname(lapply(sets$cs, function(v) I(v - 1))),
              coverage = I(unname(as.numeric(sets$coverage))),
              purity = if (is.null(sets$purity)) list() else unname(as.matrix(sets$purity)),
              seconds = seconds)
  if (matrices) out[c("alpha", "mu")] <- list(unname(fit$alpha), unname(fit$mu))
  out
}

run <- function(case, tol, with_inputs) {
  env <- new.env()
  d <- data[[case$data]]
  assign("X", d$X, env)
  assign(if (case$data == "n3") "y1" else "y", d$y, env)
  warnings <- character(0)
  result <- tryCatch(withCallingHandlers({
    set.seed(1)
    eval(parse(text = case$setup), env)
    call <- parse(text = case$call)[[1]]
    if (!is.null(tol)) call$tol <- tol
    seconds <- system.time(fit <- eval(call, env))[["elapsed"]]
    out <- record(fit, seconds, case$prior_tol, case$data == "small")
    if (with_inputs && nzchar(case$inputs)) out$inputs <- eval(parse(text = case$inputs), env)
    out
  }, warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  }, message = function(m) invokeRestart("muffleMessage")),
  error = function(e) list(error = conditionMessage(e)))
  if (length(warnings)) result$warnings <- I(unique(warnings))
  result
}

runs <- list()
for (case in plan$cases) {
  runs[[case$name]] <- list()
  for (variant in plan$variants)
    runs[[case$name]][[variant$key]] <- run(case, variant$tol, is.null(variant$tol))
}
writeLines(toJSON(list(version = as.character(packageVersion("susieR")), runs = runs),
                  digits = NA, auto_unbox = TRUE, na = "null"), args[2])
"""


def small_data():
    """The ``small`` data set, rounded to 10 significant digits.

    Returns
    -------
    X : ndarray of shape (120, 40)
    y : ndarray of shape (120,)
    """
    rng = np.random.default_rng(20261206)
    n = 120
    X = _autoregressive(rng.standard_normal, n, 40, 0.8, 0.6) * 2 + 1
    y = 5 + 0.35 * X[:, 3] - 0.15 * X[:, 20] + rng.standard_normal(n)
    return _rounded(X), _rounded(y)


def ld_data():
    """The ``ld`` data set, where susieR's refinement changes the fit (found by a search over
    seeds): numpy seed 54, n = 200, p = 40, AR(1) columns with rho = 0.95, effects of +-0.4
    on three variables drawn at random (0, 24 and 37), rounded to 10 significant digits.

    Returns
    -------
    X : ndarray of shape (200, 40)
    y : ndarray of shape (200,)
    """
    rng = np.random.default_rng(54)
    n, p = 200, 40
    X = _autoregressive(lambda size: rng.normal(size=size), n, p, 0.95, np.sqrt(1 - 0.95**2))
    causal = rng.choice(p, 3, replace=False)
    y = X[:, causal] @ (rng.choice([-1, 1], 3) * 0.4) + rng.normal(size=n)
    return _rounded(X), _rounded(y)


def _autoregressive(draw, n, p, rho, innovation):
    """AR(1) columns drawn column by column: ``x_0 = e_0``, ``x_j = rho x_{j-1} + innovation
    e_j`` with ``e_j = draw(n)`` (``innovation`` ``sqrt(1 - rho^2)`` for unit variance)."""
    X = np.empty((n, p))
    X[:, 0] = draw(n)
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + innovation * draw(n)
    return X


def _rounded(values):
    return np.vectorize(lambda v: float(f"{v:.10g}"))(values)


def plan_for(version, folder):
    """The cases and runs one R session does for ``version`` (``NEW`` or ``OLD``)."""
    cases = []
    for name, call, old_call, options in CASES:
        y = "y1" if name.startswith("n3_") else "y"
        setup = options.get("setup", "")
        if version == OLD:
            if old_call is None:
                continue
            call, setup = old_call or call, options.get("setup_old", setup)
        inputs = options.get("inputs", "")
        if version == OLD and not options.get("old_inputs"):
            inputs = ""  # 0.16.5's are stored; 0.12.35's only where they differ (init_fit)
        data = "n3" if y == "y1" else "ld" if name.startswith("ld_") else "small"
        cases.append({"name": name, "data": data, "setup": setup,
                      "call": call, "inputs": inputs,
                      "prior_tol": options.get("prior_tol", 1e-9)})
    variants = ([{"key": NEW, "tol": None}, {"key": NEW_TOL, "tol": 1e-3}] if version == NEW
                else [{"key": OLD, "tol": None}])
    home = get_data_home() / "susie"
    return {"cases": cases, "variants": variants, "small_X": str(folder / "small_X.csv"),
            "small_y": str(folder / "small_y.csv"), "ld_X": str(folder / "ld_X.csv"),
            "ld_y": str(folder / "ld_y.csv"), "n3_X": str(home / "N3finemapping_X.csv"),
            "n3_Y": str(home / "N3finemapping_Y.csv")}


def run_r(version, folder, library):
    """Runs the plan for ``version`` in one Rscript; returns its parsed JSON."""
    plan, out = folder / f"plan_{version}.json", folder / f"out_{version}.json"
    plan.write_text(json.dumps(plan_for(version, folder)))
    script = folder / "run.R"
    script.write_text(R_SCRIPT)
    subprocess.run(["Rscript", str(script), str(plan), str(out), library], check=True,
                   capture_output=True, text=True)
    return json.loads(out.read_text())


def assemble(datasets, new, old):
    """The JSON document from the two R sessions' outputs (``datasets``: name -> (X, y))."""
    reference = {"data": {name: {"X": X.tolist(), "y": y.tolist()}
                          for name, (X, y) in datasets.items()},
                 "versions": {NEW: new["version"], OLD: old["version"]}, "cases": {}}
    for name, call, old_call, options in CASES:
        case = {"call": call}
        if old_call:
            case["call_0.12.35"] = old_call
        if "setup" in options:
            case["setup"] = options["setup"]
        if "setup_old" in options:
            case["setup_0.12.35"] = options["setup_old"]
        runs = new["runs"][name]
        inputs = runs[NEW].pop("inputs", None)
        case[NEW], case[NEW_TOL] = runs[NEW], runs[NEW_TOL]
        case[OLD] = None if old_call is None else old["runs"][name][OLD]
        old_inputs = (case[OLD] or {}).pop("inputs", {})
        for key in options.get("old_inputs", []):
            inputs[f"{key}_0.12.35"] = old_inputs.get(key)
        if inputs is not None:
            case["inputs"] = inputs
        reference["cases"][name] = case
    return reference


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--susier-lib", default=os.environ.get("SUSIER_LIB"),
                        help="R library holding susieR 0.16.5 (default: $SUSIER_LIB)")
    args = parser.parse_args()
    if not args.susier_lib:
        parser.error("give --susier-lib or set SUSIER_LIB")
    datasets = {"small": small_data(), "ld": ld_data()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (X, y) in datasets.items():
            np.savetxt(folder / f"{name}_X.csv", X, fmt="%.17g", delimiter=",")
            np.savetxt(folder / f"{name}_y.csv", y, fmt="%.17g")
        new = run_r(NEW, folder, args.susier_lib)
        old = run_r(OLD, folder, "")
    if new["version"] == old["version"]:
        raise SystemExit(f"both R sessions loaded susieR {new['version']}: check --susier-lib")
    reference = assemble(datasets, new, old)
    target = Path(__file__).resolve().parent.parent / "tests" / "data" / "susier_options.json"
    target.write_text(json.dumps(reference, separators=(",", ":")))
    print(f"susieR {new['version']} and {old['version']}, {len(CASES)} cases -> {target} "
          f"({target.stat().st_size / 1e6:.2f} MB)")
    for name, case in reference["cases"].items():
        line = []
        for key in (NEW, NEW_TOL, OLD):
            fit = case[key]
            line.append(f"{key}: " + ("-" if fit is None else f"error {fit['error']}"
                                      if "error" in fit else f"{fit['niter']} it"))
        print(f"  {name}: " + ", ".join(line))


if __name__ == "__main__":
    main()
