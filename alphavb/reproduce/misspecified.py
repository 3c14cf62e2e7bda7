"""Choosing alpha under a wrong model, run by ``alphavb reproduce misspecified``.

1. Grünwald & van Ommen's (2017, Bayesian Analysis 12, Sec. 5) wrong-model regression
   (:func:`~alphavb.datasets.make_wrong_model_regression`: p = 50 Gaussian covariates and a
   constant, four coefficients 0.1; half the rows of the wrong model are the "easy point"
   x = (1, 0, ..., 0), y = 0, the other half have noise variance 1/20). Two priors, the
   ``prior`` column of the table: ``"paper"``, the paper's ``beta | sigma2 ~ N(0, sigma2
   I)``, ``sigma2 ~ InvGamma(1, 1/40)`` on the raw columns (:func:`paper_estimator`), and
   ``"alphavb default"``, :class:`~alphavb.AlphaLinearRegression`'s defaults (the same
   conjugate form on standardized columns, ``lambda = 1``, the scale-free noise prior),
   both without an intercept (the constant is a column). For each n, the excess squared
   risk of the posterior mean on fresh data, ``E_x[(x' (beta_hat - beta*))^2] = (||d||^2 +
   d_0^2) / 2`` for the wrong model (``d = beta_hat - beta*``; an easy point contributes
   ``d_0^2``) and ``||d||^2`` for the correct one, at alpha = 1 and at the alpha each
   method of :class:`~alphavb.model_selection.AlphaSelector` selects, mean +- MCSE over the
   replications, and the selected alphas. SafeBayes scores from the first row under the
   paper's prior (it is proper, as the paper does) and from the selector's default
   ``min_prefix`` under the near-improper default noise prior.
2. The coverage comparison of Wu & Martin (2023, Bayesian Analysis, Sec. 5): ``y = x' beta
   + e`` with ``beta = (1, 1, 2, -1)``, ``x ~ N_4(0, Sigma)``, ``Sigma_ij = 0.2^|i-j|``, and
   ``e`` normal (sd 1), heteroscedastic (sd 0.25, 0.5 or 1 as ``x_1`` is below its 5%
   quantile, between, or above its 95% quantile) or ``t_5``; coverage and mean width of the
   95% intervals of the four coefficients at alpha = 1 and at each method's alpha, n in
   {50, 200}, for :class:`~alphavb.AlphaLinearRegression` without an intercept (SafeBayes
   from the default ``min_prefix``: its noise prior is near-improper, and scored from the
   first row the first few rows' losses decide the criterion).

Both are :func:`~alphavb.simulation.run_study` studies (cached in ``OUT_DIR/cache``); a
selection that cannot be made (information matching needs at least two rows per
parameter) is a failed row, and the tables count it. Writes ``misspecified.png``,
``misspecified.csv``, ``misspecified.md``, ``alpha_coverage.csv`` and
``alpha_coverage.md``. ``quick=True``: two sample sizes (one for the coverage table),
p = 10 covariates, three replications, five alphas (1 to 1/16) and a cheaper calibration
(10 resamples, 4 bisection steps).
"""

import numpy as np
import pandas as pd

from ..datasets import make_wrong_model_regression
from ..linear_model import AlphaLinearRegression
from ..model_selection import AlphaSelector
from ..simulation import Problem, coefficient_estimates, run_study, summarise_study
from ._output import (
    FEW_REPLICATIONS_STAMP,
    _markdown_table,
    _prepare_output,
    _save_figure,
    _write_csv,
)

METHODS = ("safebayes", "safebayes-ilog", "information", "calibrate", "cv")
BAYES = "alpha = 1"
WRONG_N = (20, 50, 100, 150, 200, 300, 400)
WRONG_QUICK_N = (50, 100)
PAPER_PRIOR, DEFAULT_PRIOR = "paper", "alphavb default"
COVERAGE_N = (50, 200)
ERRORS = ("normal", "heteroscedastic", "t5")


def _fitted(model):
    return getattr(model, "best_estimator_", model)


def _selected_alpha(model):
    return float(model.alpha_ if hasattr(model, "alpha_") else model.get_params()["alpha"])


# ------------------------------------------------------------- Grünwald & van Ommen


def _simulate_wrong_model(n_samples, random_state, wrong, n_features):
    X, y, coef = make_wrong_model_regression(n_samples, n_features, wrong=wrong,
                                             random_state=random_state, return_coef=True)
    return X, y, {"coef": coef, "wrong": wrong}


def _wrong_model_risk(model, X, truth, n_draws, random_state):
    """``E_x[(x'(beta_hat - beta*))^2]`` over the data distribution: E[x x'] = I for the
    model's rows; the wrong model's easy rows (half of them) are x = (1, 0, ..., 0)."""
    difference = np.ravel(_fitted(model).coef_) - truth["coef"]
    if truth["wrong"]:
        return float(0.5 * difference @ difference + 0.5 * difference[0] ** 2)
    return float(difference @ difference)


def _coefficient_error(model, truth):
    return float(np.linalg.norm(np.ravel(_fitted(model).coef_) - truth["coef"]))


def _alpha_estimate(model, truth, level):
    """The selected alpha as the study's one parameter row (no truth, no interval)."""
    nan = [np.nan]
    return {"parameter": ["selected_alpha"], "estimate": [_selected_alpha(model)], "se": nan,
            "lower": nan, "upper": nan, "true": nan}


def wrong_model_problem(wrong=True, n_features=50):
    """The wrong-model regression as a :class:`~alphavb.simulation.Problem`."""
    return Problem("wrong_model", _simulate_wrong_model, _wrong_model_risk,
                   _coefficient_error, {"wrong": wrong, "n_features": n_features},
                   _alpha_estimate)


def paper_estimator():
    """AlphaLinearRegression with the paper's prior: ``beta | sigma2 ~ N(0, sigma2 I)`` on
    the raw columns, ``sigma2 ~ InvGamma(1, 1/40)``, no intercept."""
    return AlphaLinearRegression(fit_intercept=False, standardize=False, prior_precision=1.0,
                                 noise_prior=(1.0, 1 / 40))


def default_estimator():
    """AlphaLinearRegression's defaults without an intercept (the constant is a column)."""
    return AlphaLinearRegression(fit_intercept=False)


# ---------------------------------------------------------------------- Wu & Martin


def _simulate_wu_martin(n_samples, random_state, errors):
    rng = np.random.RandomState(random_state)
    coef = np.array([1.0, 1.0, 2.0, -1.0])
    covariance = 0.2 ** np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    X = rng.multivariate_normal(np.zeros(4), covariance, size=n_samples)
    if errors == "normal":
        noise = rng.standard_normal(n_samples)
    elif errors == "t5":
        noise = rng.standard_t(5, size=n_samples)
    else:  # sd by where x_1 falls among its N(0, 1) quantiles 5% and 95%
        edge = 1.6448536269514722
        sd = np.where(X[:, 0] < -edge, 0.25, np.where(X[:, 0] > edge, 1.0, 0.5))
        noise = sd * rng.standard_normal(n_samples)
    return X, X @ coef + noise, {"coef": coef, "errors": errors}


def _wu_martin_risk(model, X, truth, n_draws, random_state):
    difference = np.ravel(_fitted(model).coef_) - truth["coef"]
    return float(difference @ difference)


def _coefficients_and_alpha(model, truth, level):
    rows = coefficient_estimates(_fitted(model), truth, level)
    alpha = _alpha_estimate(model, truth, level)
    return {key: [*rows[key], *alpha[key]] for key in rows}


def wu_martin_problem(errors="normal"):
    """Wu & Martin's (2023, Sec. 5) regression as a :class:`~alphavb.simulation.Problem`."""
    return Problem("wu_martin", _simulate_wu_martin, _wu_martin_risk, _coefficient_error,
                   {"errors": errors}, _coefficients_and_alpha)


# ------------------------------------------------------------------------ the target


def _studies(problem, estimator, grid, n_replications, random_state, n_jobs, cache_dir,
             quick, first_row=False):
    """The study at alpha = 1 and one per selection method, as one frame with a
    ``method`` column (fits and estimates); ``first_row``: SafeBayes scores from the first
    row (``min_prefix=1``, for a proper prior)."""
    fits, estimates = [], []
    options = {"n_replications": n_replications, "random_state": random_state,
               "n_jobs": n_jobs, "cache_dir": cache_dir, "n_draws": 1, "progress": not quick,
               "return_estimates": True}
    # quick: five alphas and a cheaper calibration (10 resamples, 4 bisection steps)
    cheaper = ({"alphas": 2.0 ** -np.arange(5), "n_bootstrap": 10, "calibration_steps": 4}
               if quick else {})
    for method in (BAYES, *METHODS):
        first = {"min_prefix": 1} if first_row and method.startswith("safebayes") else {}
        model = estimator if method == BAYES else AlphaSelector(
            estimator, method=method, random_state=0, **cheaper, **first)
        f, e = run_study(problem, model, grid, **options)
        fits.append(f.assign(method=method))
        estimates.append(e.assign(method=method))
    return pd.concat(fits, ignore_index=True), pd.concat(estimates, ignore_index=True)


def _risk_table(fits, estimates):
    """Per prior, model, n and method: mean risk +- MCSE, median selected alpha, failures."""
    rows = []
    alphas = estimates[estimates.parameter == "selected_alpha"]
    keys = ["prior", "wrong", "n_samples", "method"]
    for (prior, wrong, n, method), part in fits.groupby(keys, sort=False):
        ok = part[part.status == "ok"]
        chosen = alphas[(alphas.prior == prior) & (alphas.wrong == wrong)
                        & (alphas.n_samples == n) & (alphas.method == method)
                        & (alphas.status == "ok")]["estimate"]
        rows.append({"prior": prior, "model": "wrong" if wrong else "correct",
                     "n_samples": int(n),
                     "method": method, "nsim": len(ok), "failed": len(part) - len(ok),
                     "risk": float(ok.risk.mean()) if len(ok) else np.nan,
                     "risk_se": (float(ok.risk.std(ddof=1) / np.sqrt(len(ok)))
                                 if len(ok) > 1 else np.nan),
                     "median_alpha": float(chosen.median()) if len(chosen) else np.nan,
                     "seconds": float(ok.fit_seconds.mean()) if len(ok) else np.nan})
    return pd.DataFrame(rows)


def _coverage_table(estimates):
    coefficients = estimates[estimates.parameter != "selected_alpha"]
    summary = summarise_study(coefficients, method="method", by=["errors", "n_samples",
                                                                  "parameter"],
                              lower="lower", upper="upper")
    rows = []
    alphas = estimates[estimates.parameter == "selected_alpha"]
    for (errors, n, method), part in summary.groupby(["errors", "n_samples", "method"],
                                                     sort=False):
        table = part.groupby("stat")[["est", "mcse"]].mean()
        chosen = alphas[(alphas.errors == errors) & (alphas.n_samples == n)
                        & (alphas.method == method) & (alphas.status == "ok")]["estimate"]
        rows.append({"errors": errors, "n_samples": int(n), "method": method,
                     "nsim": int(part[part.stat == "nsim"]["est"].min()),
                     "cover": table.loc["cover", "est"], "cover_se": table.loc["cover", "mcse"],
                     "width": table.loc["width", "est"], "width_se": table.loc["width", "mcse"],
                     "median_alpha": float(chosen.median()) if len(chosen) else np.nan})
    return pd.DataFrame(rows)


def reproduce_misspecified(out_dir=None, random_state=0, quick=False, n_jobs=1):
    """Run both studies and write their figure and tables (module docstring).

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"``, ``"rows"`` (the risk table's rows)
    and ``"coverage"`` (the coverage table).
    """
    out_dir, plt = _prepare_output(out_dir or "results/misspecified")
    n_values = WRONG_QUICK_N if quick else WRONG_N
    fits, estimates = [], []
    for prior, estimator, cache in ((PAPER_PRIOR, paper_estimator(), "paper_prior"),
                                    (DEFAULT_PRIOR, default_estimator(), "default_prior")):
        for wrong in (True, False):
            problem = wrong_model_problem(wrong, n_features=10 if quick else 50)
            f, e = _studies(problem, estimator, {"n_samples": n_values},
                            3 if quick else 50, random_state, n_jobs,
                            out_dir / "cache" / cache / ("wrong" if wrong else "correct"),
                            quick, first_row=prior == PAPER_PRIOR)
            fits.append(f.assign(wrong=wrong, prior=prior))
            estimates.append(e.assign(wrong=wrong, prior=prior))
    risks = _risk_table(pd.concat(fits, ignore_index=True),
                        pd.concat(estimates, ignore_index=True))
    coverage_estimates = []
    for errors in ERRORS:
        _, e = _studies(wu_martin_problem(errors), default_estimator(),
                        {"n_samples": COVERAGE_N[:1] if quick else COVERAGE_N},
                        3 if quick else 200, random_state, n_jobs,
                        out_dir / "cache" / f"wu_martin_{errors}", quick)
        coverage_estimates.append(e.assign(errors=errors))
    coverage = _coverage_table(pd.concat(coverage_estimates, ignore_index=True))
    figure = out_dir / "misspecified.png"
    _plot(plt, risks, figure, FEW_REPLICATIONS_STAMP if quick else None)
    files = [figure]
    for name, table, writer in (("misspecified", risks, _risk_markdown),
                                ("alpha_coverage", coverage, _coverage_markdown)):
        _write_csv(out_dir / f"{name}.csv", table.to_dict("records"))
        (out_dir / f"{name}.md").write_text(writer(table), encoding="utf-8")
        files += [out_dir / f"{name}.csv", out_dir / f"{name}.md"]
    return {"figure": figure, "table": out_dir / "misspecified.csv", "files": files,
            "rows": risks.to_dict("records"), "coverage": coverage}


def _plot(plt, risks, figure, stamp):
    """Risk and median selected alpha against n: one colour per method, solid lines under
    the paper's prior, dashed under alphavb's default prior."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    colours = dict(zip((BAYES, *METHODS), ("k", "C0", "C1", "C2", "C3", "C4"), strict=True))
    for column, model in enumerate(("wrong", "correct")):
        for prior, dash in ((PAPER_PRIOR, "-"), (DEFAULT_PRIOR, "--")):
            part = risks[(risks.model == model) & (risks.prior == prior)]
            for method in (BAYES, *METHODS):
                line = part[part.method == method].dropna(subset=["risk"])
                if line.empty:
                    continue
                label = f"{method} ({prior} prior)"
                axes[0, column].errorbar(line.n_samples, line.risk, yerr=line.risk_se,
                                         fmt="o" + dash, color=colours[method], ms=3.5,
                                         capsize=2, label=label)
                if method != BAYES:
                    axes[1, column].plot(line.n_samples, line.median_alpha, "o" + dash,
                                         color=colours[method], ms=3.5, label=label)
        axes[0, column].set_yscale("log")
        axes[0, column].set_title(f"{model} model: excess squared risk (mean +- MCSE)")
        axes[1, column].set_yscale("log", base=2)
        axes[1, column].set_title(f"{model} model: median selected alpha")
        for ax in axes[:, column]:
            ax.set_xlabel("n")
    axes[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle("Grünwald & van Ommen's wrong-model regression (p = 50): alpha = 1 against "
                 "the alpha each method selects; solid: the paper's prior, dashed: alphavb's "
                 "default", fontsize=10)
    _save_figure(plt, fig, figure, stamp)


def _risk_markdown(risks):
    return _markdown_table(
        "Excess squared risk at alpha = 1 and at the selected alpha",
        "Mean +- MCSE over the replications that succeeded; seconds per selection.",
        risks.to_dict("records"),
        ["prior", "model", "n_samples", "method", "risk", "median_alpha", "nsim", "failed",
         "seconds"],
        ["prior", "model", "n", "method", "risk", "median alpha", "replications", "failed",
         "seconds"],
        {"risk": ".4f", "median_alpha": ".3g", "seconds": ".3f"})


def _coverage_markdown(coverage):
    return _markdown_table(
        "Coverage of 95% intervals at alpha = 1 and at the selected alpha (Wu & Martin "
        "2023, Sec. 5)", "Mean over the four coefficients +- the mean of their MCSEs.",
        coverage.to_dict("records"),
        ["errors", "n_samples", "method", "cover", "width", "median_alpha", "nsim"],
        ["errors", "n", "method", "coverage", "width", "median alpha", "replications"],
        {"median_alpha": ".3g"})
