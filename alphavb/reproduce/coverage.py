"""Frequentist coverage of alpha-VB credible intervals, run by ``alphavb reproduce
coverage``.

The first question a reader asks of a variational posterior: do its 95% intervals cover
95% of the time? Mean-field VB is known to under-cover where the posterior is correlated,
a misspecified model's posterior is too narrow by the sandwich factor, and alpha < 1
widens ``q`` by about ``1 / sqrt(alpha)``. For each model below, over sample sizes ``n``
and ``alpha`` in {0.5, 0.8, 1} (the same data at every alpha: common random numbers), the
study (:func:`~alphavb.simulation.run_study`) keeps every fit's estimates, posterior sds
and the estimator's own 95% intervals, and :func:`~alphavb.simulation.summarise_study`
gives per parameter the coverage, mean width and ``relerror`` (model SE against empirical
SE, in %), each with its Monte Carlo standard error:

* linear regression, correct model (d = 3, learned noise);
* linear regression, misspecified: the noise variance grows with the first covariate
  (``heteroscedasticity=1``), so the model-based variance of ``beta_1`` is half the
  sampling variance (sandwich factor 2) while that of ``beta_2``, ``beta_3`` is right;
* spike-and-slab regression (d = 20, 4 non-zero): non-zero and zero coefficients apart,
  with the exact quantiles of ``q(beta_j)`` (an atom at 0);
* logistic regression by Gaussian alpha-VB (d = 3);
* the Gaussian mixture's means (K = 3 in d = 2, the paper's known-weights,
  known-covariance model; the true means drawn once and kept, so that the empirical SE
  is the spread of the estimator alone), matched to the truth.

A panel's value pools the parameters of its set: the mean of their coverages (or widths,
relerrors) and, as its MCSE, the mean of their MCSEs (an upper bound on the MCSE of the
mean whatever the correlation between the parameters).

Writes ``coverage.png`` (coverage, width and relerror against ``n``, one row per set,
MCSE error bars), ``coverage.csv`` (those pooled numbers), ``coverage_summary.csv`` (every
statistic of ``summarise_study`` per parameter, n and alpha, ``relprec`` against alpha = 1)
and ``coverage.md`` (the table at the largest n). Fits are cached in ``OUT_DIR/cache``.
``quick=True``: two sample sizes, alpha in {0.5, 1}, few replications.
"""

from dataclasses import dataclass

from ..linear_model import AlphaSpikeSlabRegression
from ..simulation import (
    gaussian_mixture_problem,
    linear_regression_problem,
    logistic_regression_problem,
    run_study,
    spike_slab_problem,
    summarise_study,
)
from ._output import (
    FEW_REPLICATIONS_STAMP,
    _markdown_table,
    _prepare_output,
    _save_figure,
    _write_csv,
)
from .rates import paper_gmm_estimator, paper_linear_estimator, paper_logistic_estimator

ALPHAS = (0.5, 0.8, 1.0)
QUICK_ALPHAS = (0.5, 1.0)
LEVEL = 0.95
MEASURES = (("cover", "coverage of 95% intervals"), ("width", "mean interval width"),
            ("relerror", "relerror: model SE / empirical SE - 1 (%)"))


def _all(name, true):
    return True


def _first(name, true):
    return name == "coef[0]"


def _not_first(name, true):
    return name != "coef[0]"


def _non_zero(name, true):
    return true != 0.0


def _zero(name, true):
    return true == 0.0


@dataclass(frozen=True)
class CoverageModel:
    """One model of the study: its problem, estimator, grids and its sets of parameters
    (label and a predicate of the parameter's name and true value)."""

    key: str
    title: str
    make_problem: object
    make_estimator: object
    n_samples: tuple
    quick_n_samples: tuple
    n_replications: int
    quick_replications: int
    sets: tuple


REGRESSION_N = (50, 100, 200, 400, 800)
MODELS = (
    CoverageModel("linear", "linear regression, correct model (d = 3)",
                  # the N(0, 1) priors on the raw columns of the rate study (labelled in
                  # the tables), not the defaults on standardized columns
                  lambda: linear_regression_problem(n_features=3), paper_linear_estimator,
                  REGRESSION_N, (100, 400), 1000, 30, (("all coefficients", _all),)),
    CoverageModel("heteroscedastic", "linear regression, noise growing with x_1",
                  lambda: linear_regression_problem(n_features=3, heteroscedasticity=1.0),
                  paper_linear_estimator, REGRESSION_N, (100, 400), 1000, 30,
                  (("beta_1 (sandwich factor 2)", _first),
                   ("beta_2, beta_3 (variance right)", _not_first))),
    CoverageModel("spike_slab", "spike-and-slab regression (d = 20, s = 4)",
                  lambda: spike_slab_problem(n_features=20, n_informative=4),
                  # the slab on the raw (N(0, 1)) columns, as in the rate study
                  lambda: AlphaSpikeSlabRegression(standardize=False), REGRESSION_N,
                  (100, 400), 1000, 30,
                  (("non-zero coefficients", _non_zero), ("zero coefficients", _zero))),
    CoverageModel("logistic", "logistic regression, Gaussian q (d = 3)",
                  lambda: logistic_regression_problem(n_features=3), paper_logistic_estimator,
                  REGRESSION_N, (100, 400), 500, 10, (("all coefficients", _all),)),
    CoverageModel("mixture", "Gaussian mixture means (K = 3, d = 2)",
                  lambda: gaussian_mixture_problem(3, 2, means_seed=0), paper_gmm_estimator,
                  (100, 200, 400, 800, 1600), (100, 400), 500, 10,
                  (("component means", _all),)),
)


def _pooled(summary, estimates, model):
    """Per set, n and alpha: the mean over the set's parameters of each measure and of its
    MCSE, with nsim (the smallest over the parameters) and the failure rate."""
    import pandas as pd

    truth = estimates.dropna(subset=["true"]).groupby("parameter")["true"].first()
    rows = []
    for label, member in model.sets:
        names = [name for name, true in truth.items() if member(name, true)]
        part = summary[summary["parameter"].isin(names)]
        table = part.groupby(["n_samples", "alpha", "stat"])[["est", "mcse"]].mean()
        nsim = part[part["stat"] == "nsim"].groupby(["n_samples", "alpha"])["est"].min()
        for (n, alpha), group in table.groupby(level=[0, 1]):
            group = group.droplevel([0, 1])
            row = {"model": model.key, "set": label, "n_samples": int(n),
                   "alpha": float(alpha), "n_parameters": len(names),
                   "nsim": int(nsim[(n, alpha)]),
                   "failure_rate": float(group.loc["failure_rate", "est"])}
            for stat, _ in MEASURES:
                row[stat], row[f"{stat}_se"] = (float(group.loc[stat, "est"]),
                                                float(group.loc[stat, "mcse"]))
            rows.append(row)
    return pd.DataFrame(rows)


def reproduce_coverage(out_dir=None, random_state=0, quick=False, n_jobs=1):
    """Run the coverage study and write its figure and tables.

    Parameters
    ----------
    out_dir : str, Path or None
        Default ``results/coverage``.
    random_state : int, default=0
    quick : bool, default=False
        Two sample sizes, alpha in {0.5, 1}, 10 to 30 replications (seconds).
    n_jobs : int, default=1

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"``, ``"rows"`` (the pooled rows) and
    ``"summary"`` (every statistic per parameter).
    """
    import pandas as pd

    out_dir, plt = _prepare_output(out_dir or "results/coverage")
    alphas = QUICK_ALPHAS if quick else ALPHAS
    pooled, summaries = [], []
    for model in MODELS:
        grid = {"n_samples": model.quick_n_samples if quick else model.n_samples,
                "alpha": alphas}
        _, estimates = run_study(
            model.make_problem(), model.make_estimator(), grid,
            n_replications=model.quick_replications if quick else model.n_replications,
            random_state=random_state, n_jobs=n_jobs, cache_dir=out_dir / "cache" / model.key,
            n_draws=10, level=LEVEL, progress=not quick, return_estimates=True)
        summary = summarise_study(estimates, by=["n_samples", "parameter"], ref=1.0,
                                  lower="lower", upper="upper", level=LEVEL)
        summaries.append(summary.assign(model=model.key))
        pooled.append(_pooled(summary, estimates, model))
    rows = pd.concat(pooled, ignore_index=True)
    summary = pd.concat(summaries, ignore_index=True)
    figure = out_dir / "coverage.png"
    _plot(plt, rows, alphas, figure, FEW_REPLICATIONS_STAMP if quick else None)
    table, full, markdown = (out_dir / "coverage.csv", out_dir / "coverage_summary.csv",
                             out_dir / "coverage.md")
    records = rows.to_dict("records")
    _write_csv(table, records)
    summary.to_csv(full, index=False, float_format="%.6g")
    markdown.write_text(_markdown(rows), encoding="utf-8")
    return {"figure": figure, "table": table, "files": [figure, table, full, markdown],
            "rows": records, "summary": summary}


def _plot(plt, rows, alphas, figure, stamp):
    sets = list(dict.fromkeys(zip(rows["model"], rows["set"], strict=True)))
    titles = {model.key: model.title for model in MODELS}
    fig, axes = plt.subplots(len(sets), len(MEASURES), figsize=(13, 2.6 * len(sets)),
                             squeeze=False)
    for i, (key, label) in enumerate(sets):
        part = rows[(rows["model"] == key) & (rows["set"] == label)]
        for offset, alpha in enumerate(alphas):
            line = part[part["alpha"] == alpha].sort_values("n_samples")
            shift = 1.0 + 0.03 * (offset - (len(alphas) - 1) / 2)  # apart on the log axis
            for ax, (stat, _) in zip(axes[i], MEASURES, strict=True):
                ax.errorbar(line["n_samples"] * shift, line[stat], yerr=line[f"{stat}_se"],
                            fmt="o-", ms=3.5, capsize=2, label=f"alpha = {alpha:g}")
        axes[i, 0].axhline(LEVEL, color="k", lw=0.8, ls="--")
        axes[i, 2].axhline(0.0, color="k", lw=0.8, ls="--")
        axes[i, 0].set_ylabel(f"{titles[key]}\n{label}", fontsize=8)
        n_values = sorted(part["n_samples"].unique())
        for ax in axes[i]:
            ax.set_xscale("log")
            ax.set_xticks(n_values, [str(n) for n in n_values])
            ax.minorticks_off()
    for ax, (_, name) in zip(axes[0], MEASURES, strict=True):
        ax.set_title(name, fontsize=10)
    for ax in axes[-1]:
        ax.set_xlabel("n (training points)")
    axes[0, 0].legend(fontsize=8)
    n_sims = f"{rows['nsim'].min()} to {rows['nsim'].max()}"
    fig.suptitle(f"Frequentist coverage of alpha-VB's 95% credible intervals ({n_sims} "
                 "replications per point; bars: +- 1 Monte Carlo SE)", fontsize=11)
    _save_figure(plt, fig, figure, stamp)


def _markdown(rows):
    largest = rows[rows["n_samples"] == rows.groupby("model")["n_samples"].transform("max")]
    titles = {model.key: model.title for model in MODELS}
    records = [{**row, "model": titles[row["model"]]} for row in largest.to_dict("records")]
    return _markdown_table(
        "Coverage of alpha-VB's 95% credible intervals at the largest n",
        "Mean over the set's parameters +- the mean of their Monte Carlo SEs. relerror: 100 "
        "(model SE / empirical SE - 1).", records,
        ["model", "set", "n_samples", "alpha", "nsim", "cover", "width", "relerror"],
        ["model", "parameters", "n", "alpha", "replications", "coverage", "width",
         "relerror (%)"], {"alpha": "g", "relerror": ".1f"})
