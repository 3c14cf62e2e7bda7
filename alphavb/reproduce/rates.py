"""The paper's risk rates (Yang, Pati & Bhattacharya 2020, Cor. 4.1-4.5, D.1) as simulation
studies, run by ``alphavb reproduce NAME-rate``.

Each study fits one model to simulated data over a grid of sample sizes ``n`` and
temperatures ``alpha`` (plus, for logistic regression, one and two Gaussian components of
``q``), with independent replications (:func:`~alphavb.simulation.run_study`), and writes

* ``NAME.png``: the variational Bayes risk (squared Hellinger, :mod:`alphavb.risk`) against
  ``n`` on log-log axes, mean and standard error over replications per ``alpha``, the OLS
  lines, and the theory's rate through the first point; beside it the rate-normalized risk
  ``n * risk / (c log(d n))``, flat when the rate is attained;
* ``NAME_slopes.csv`` and ``NAME_slopes.md``: per ``alpha`` the fitted slope with its 95%
  confidence interval, the mean rate-normalized risk, and ``bound_slope``, the slope of the
  theory's ``c log(d n) / n`` over the same ``n`` (between -1 and -1 + 1/log(d n_min));
* ``NAME_fits.csv``: one row per fit (risk, point-estimate error, time, iterations).

``quick=True`` runs three sample sizes, ``alpha`` in {0.5, 1} and a few replications.

Fits are cached in ``OUT_DIR/cache``, so a re-run (or a longer run) reuses them.
"""

from dataclasses import dataclass, field

import numpy as np

from ..blackbox import AlphaLogisticRegression
from ..linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression
from ..mixture import AlphaGaussianMixture
from ..simulation import (
    fit_rate,
    gaussian_mixture_problem,
    lda_problem,
    linear_regression_problem,
    logistic_regression_problem,
    rate_normalized_risk,
    run_study,
    spike_slab_problem,
    theoretical_rate,
)
from ..topics import AlphaLDA
from ._output import FEW_REPLICATIONS_STAMP, _prepare_output, _save_figure, _write_csv

RATE_ALPHAS = (0.5, 0.8, 1.0)
QUICK_ALPHAS = (0.5, 1.0)


@dataclass(frozen=True)
class RateStudy:
    """One rate vignette: the problem, the estimator and the grids of both modes."""

    title: str
    corollary: str
    make_problem: object
    make_estimator: object
    n_samples: tuple
    quick_n_samples: tuple
    n_replications: int
    quick_replications: int
    complexity: float
    dimension: float
    rate_label: str
    n_init: int = 1
    n_draws: int = 200
    extra_grid: dict = field(default_factory=dict)
    n_label: str = "n"

    def rate(self, n):
        return theoretical_rate(n, self.complexity, self.dimension)


def paper_gmm_estimator():
    # the paper's model: known weights and covariance I, means N(0, 50 I) a priori. Three
    # starts: with one, 1 of the 180 data sets (n = 3,200) ended with two components merged
    return AlphaGaussianMixture(3, covariance_type="fixed", fixed_weights=np.full(3, 1 / 3),
                                mean_prior=np.zeros(2), n_init=3)


def paper_linear_estimator():
    # the paper's Cor. 4.1 prior: beta ~ N(0, I) on the raw columns, whatever sigma2 (not
    # the default conjugate prior on standardized columns)
    return AlphaLinearRegression(coef_prior="independent", standardize=False)


def paper_logistic_estimator():
    # the paper's N(0, I) prior on the raw coefficients (not on standardized columns)
    return AlphaLogisticRegression(standardize=False)


def paper_spike_slab_estimator():
    # the paper's slab N(0, nu sigma2) is on the raw columns (its design: N(0, 1) columns)
    return AlphaSpikeSlabRegression(standardize=False)


RATE_STUDIES = {
    "regression-rate": RateStudy(
        "Bayesian linear regression, d = 5", "Cor. 4.1",
        lambda: linear_regression_problem(n_features=5), paper_linear_estimator,
        (100, 200, 400, 800, 1600, 3200), (100, 400, 1600), 40, 6, 5, 5, "d log(d n) / n"),
    "spike-slab-rate": RateStudy(
        "spike-and-slab regression, d = 200, s = 4", "Cor. 4.2",
        lambda: spike_slab_problem(n_features=200, n_informative=4), paper_spike_slab_estimator,
        (100, 200, 400, 800, 1600), (100, 400, 1600), 30, 6, 4, 200, "s log(d n) / n"),
    "gmm-rate": RateStudy(
        "Gaussian mixture, K = 3 in d = 2", "Cor. 4.4",
        lambda: gaussian_mixture_problem(3, 2), paper_gmm_estimator,
        (100, 200, 400, 800, 1600, 3200), (100, 400, 1600), 30, 4, 6, 2, "d K log(d n) / n",
        n_draws=100),
    "lda-rate": RateStudy(
        "LDA, 50 documents, K = 3 topics, 40 words", "Cor. 4.5",
        lambda: lda_problem(50, 3, 40),
        lambda: AlphaLDA(3, topic_word_prior=0.1, max_iter=500, evaluate_every=1, tol=1e-6),
        (25, 50, 100, 200, 400, 800), (25, 100, 400), 12, 1, 3, 1, "K log(n) / n", n_init=8,
        n_draws=50, n_label="n (mean document length)"),
    "logistic-rate": RateStudy(
        "logistic regression, d = 3: Gaussian and 2-component mixture q", "Cor. 4.3, D.1",
        lambda: logistic_regression_problem(3), paper_logistic_estimator,
        (100, 200, 400, 800, 1600, 3200), (100, 200, 400), 10, 1, 4, 4, "d log(d n) / n",
        extra_grid={"n_components": (1, 2)}),
}


def reproduce_rate(name, out_dir=None, random_state=0, quick=False, n_jobs=1):
    """Run the rate study ``name`` (a key of :data:`RATE_STUDIES`) and write its files.

    Parameters
    ----------
    name : str
    out_dir : str or Path or None
        Default ``results/NAME``.
    random_state : int, default=0
        Seed of the study (:func:`~alphavb.simulation.run_study`).
    quick : bool, default=False
        Three sample sizes and a few replications (seconds; the tests run it).
    n_jobs : int, default=1
        Parallel fits.

    Returns
    -------
    dict with ``"figure"``, ``"table"`` (the slopes), ``"files"``, ``"rows"`` (the slope
    table's rows) and ``"study"`` (the fits' DataFrame).
    """
    from ..plotting import plot_normalized_risk, plot_risk_rate

    study = RATE_STUDIES[name]
    out_dir, plt = _prepare_output(out_dir or f"results/{name}")
    grid = {"n_samples": study.quick_n_samples if quick else study.n_samples,
            "alpha": QUICK_ALPHAS if quick else RATE_ALPHAS, **study.extra_grid}
    df = run_study(study.make_problem(), study.make_estimator(), grid,
                   n_replications=study.quick_replications if quick else study.n_replications,
                   random_state=random_state, n_jobs=n_jobs, cache_dir=out_dir / "cache",
                   n_draws=study.n_draws, n_init=study.n_init, progress=not quick)
    by = ["alpha", *study.extra_grid]
    slopes = fit_rate(df, by=by, complexity=study.complexity, dimension=study.dimension)
    df["normalized_risk"] = rate_normalized_risk(df, study.complexity, study.dimension)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_risk_rate(axes[0], df, study.rate, by=by, fits=slopes,
                   title=f"{study.title} ({study.corollary}): risk vs n")
    plot_normalized_risk(axes[1], df, by=by,
                         ylabel=f"n * risk / ({study.rate_label.replace(' / n', '')})")
    axes[1].set_xlabel(study.n_label)
    axes[0].set_xlabel(study.n_label)
    figure = out_dir / f"{name}.png"
    _save_figure(plt, fig, figure, FEW_REPLICATIONS_STAMP if quick else None)
    rows = slopes.to_dict("records")
    table, fits, markdown = (out_dir / f"{name}_slopes.csv", out_dir / f"{name}_fits.csv",
                             out_dir / f"{name}_slopes.md")
    _write_csv(table, rows)
    df.to_csv(fits, index=False, float_format="%.6g")
    markdown.write_text(_slopes_markdown(study, df, rows, by), encoding="utf-8")
    return {"figure": figure, "table": table, "files": [figure, table, markdown, fits],
            "rows": rows, "study": df}


def _slopes_markdown(study, df, rows, by):
    n_values = sorted(df["n_samples"].unique())
    lines = [f"# {study.title} ({study.corollary}): fitted rates\n",
             (f"OLS of log risk on log n over n = {', '.join(str(n) for n in n_values)}, "
             f"{df['replication'].nunique()} replications each; 95% confidence intervals. "
             f"Theory: risk ~ {study.rate_label}, whose slope over this range is "
             f"{rows[0]['bound_slope']:.3f} (and -1 up to the log factor).\n"),
             "| " + " | ".join(by) + " | slope | 95% CI | mean n·risk / rate | fits |",
             "|" + "---|" * (len(by) + 4)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row[b]:g}" for b in by)
                     + f" | {row['slope']:.3f} | [{row['slope_low']:.3f}, "
                       f"{row['slope_high']:.3f}] | {row['normalized_risk']:.4f} | "
                       f"{row['n_fits']} |")
    return "\n".join(lines) + "\n"


def _target(name):
    def target(out_dir=None, random_state=0, quick=False, n_jobs=1):
        return reproduce_rate(name, out_dir, random_state, quick, n_jobs)

    study = RATE_STUDIES[name]
    target.__name__ = f"reproduce_{name.replace('-', '_')}"
    target.__doc__ = (f"The risk rate of {study.title} ({study.corollary}): "
                      f":func:`reproduce_rate` with ``name={name!r}``.")
    return target


RATE_TARGETS = {name: _target(name) for name in RATE_STUDIES}
