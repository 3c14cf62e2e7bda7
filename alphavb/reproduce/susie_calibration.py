"""Do alpha-SuSiE's credible sets keep their coverage when the model is wrong? Run by
``alphavb reproduce susie-calibration``.

Fine-mapping simulations on real LD: the genotypes of susieR's N3finemapping (574 rows;
the 996 variants that vary in both halves of the rows), 1 to 3 causal variants per
replication (drawn uniformly, each explaining ``SIGNAL`` = 0.05 times the noise variance,
about 4.5% of ``Var(y)``, random signs), and four settings:

* ``correct``: Gaussian noise, the model SuSiE assumes;
* ``ld_mismatch``: the response of the first 287 rows summarised as z-scores, fitted with
  the LD of the other 287 rows (``fit_summary(z, R_other, n = 287)``), the reference-panel
  setting of susieR's issues #114-#176;
* ``t3``: noise from Student's t with 3 degrees of freedom (scaled to variance 1);
* ``polygenic``: besides the causal variants, every other variant has a tiny effect (normal,
  together explaining 0.15 times the noise variance, three times one causal variant), the
  unmodelled background of Cui et al. (2024).

Each setting is fitted with ``AlphaSuSiE(n_effects=10)`` at alpha in {0.25, 0.5, 0.75, 1}
and at the alpha that :class:`~alphavb.model_selection.AlphaSelector` picks from the same
grid by SafeBayes and by 5-fold cross-validation (individual data only: a selection
needs the rows, which summary statistics do not give). The same data at every alpha and
method (common random numbers). Per fit the study (:func:`~alphavb.simulation.run_study`)
records one row per credible set (does it hold a causal variant, its size and purity), per
causal variant (is it in a credible set: power) and per variant with PIP above 0.1 (its PIP
bin, and whether it is causal); :func:`~alphavb.simulation.summarise_study` gives their
means with Monte Carlo standard errors: coverage (the share of credible sets holding a
causal variant, pooled over replications, as Wang et al. 2020 report it), power, mean size,
mean purity, and per PIP bin the mean PIP beside the share of causal variants
(calibration). A variant with a tiny background effect counts as null.

Writes ``susie_calibration.png`` (coverage, power, size against alpha per setting; the
calibration of the PIPs), ``susie_calibration.csv`` and ``.md`` (the table), and
``susie_calibration_pips.csv`` (the calibration bins). Fits are cached in
``OUT_DIR/cache``, so an interrupted run resumes. ``quick=True``: 200 variants, 10
replications, alpha in {0.5, 1} and SafeBayes on them (a test of the pipeline, stamped).
"""

import itertools
from functools import lru_cache

import numpy as np

from ..linear_model import AlphaSuSiE
from ..simulation import Problem, run_study, summarise_study
from ._output import FEW_REPLICATIONS_STAMP, _markdown_table, _prepare_output, _write_csv

SETTINGS = ("correct", "ld_mismatch", "t3", "polygenic")
ALPHAS = (0.25, 0.5, 0.75, 1.0)
QUICK_ALPHAS = (0.5, 1.0)
SELECTIONS = ("safebayes", "cv")
N_REPLICATIONS, QUICK_REPLICATIONS = 200, 10
QUICK_VARIANTS = 200
SIGNAL = 0.05  # each causal variant's variance in units of the noise variance
BACKGROUND = 0.15  # the polygenic background's variance, likewise
PIP_BINS = (0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0 + 1e-12)
COVERAGE = 0.95


@lru_cache(maxsize=2)
def study_genotypes(n_variants=None):
    """N3finemapping's genotypes on the variants that vary in both halves of the rows (the
    first ``n_variants`` of them, or all)."""
    from ..datasets import load_n3finemapping

    X = load_n3finemapping().data
    half = X.shape[0] // 2
    varies = (X[:half].std(axis=0) > 1e-8) & (X[half:].std(axis=0) > 1e-8)
    X = X[:, varies]
    return np.ascontiguousarray(X if n_variants is None else X[:, :n_variants])


def _simulate_finemapping(n_samples, random_state, setting, n_variants):
    """The response of the first ``n_samples`` rows (module docstring); ``truth`` holds the
    causal variants and the coefficients, and for ``ld_mismatch`` the model is fitted on
    those rows' z-scores with the other rows' LD."""
    rng = np.random.default_rng(random_state)
    genotypes = study_genotypes(n_variants)
    X = genotypes[:n_samples]
    n, p = X.shape
    causal = np.sort(rng.choice(p, size=int(rng.integers(1, 4)), replace=False))
    centred = X - X.mean(axis=0)
    coef = np.zeros(p)
    coef[causal] = rng.choice([-1.0, 1.0], size=causal.size) * np.sqrt(
        SIGNAL / centred[:, causal].var(axis=0))
    signal = centred @ coef
    if setting == "polygenic":
        background = rng.standard_normal(p)
        background[causal] = 0.0
        spread = centred @ background
        background *= np.sqrt(BACKGROUND / spread.var())
        signal = signal + centred @ background
    noise = rng.standard_t(3, size=n) / np.sqrt(3.0) if setting == "t3" else rng.standard_normal(n)
    return X, signal + noise, {"coef": coef, "causal": causal}


def pip_bins():
    """``(label, low, high)`` of the PIP bins, ``[low, high)`` (the last holds 1)."""
    return [(f"[{low:g},{min(high, 1.0):g})", low, high)
            for low, high in itertools.pairwise(PIP_BINS)]


def _fitted(model):
    return getattr(model, "best_estimator_", getattr(model, "model_", model))


def coefficient_risk(model, X, truth, n_draws, random_state):
    """``||E[b] - b*||^2`` over the causal variants' coefficients (the study's risk row)."""
    return float(np.sum((_fitted(model).coef_ - truth["coef"]) ** 2))


def coefficient_error(model, truth):
    return float(np.sqrt(coefficient_risk(model, None, truth, 0, None)))


def finemapping_rows(model, truth, level):
    """The per-fit rows of the measures (module docstring), each a value with true 0 (so
    that :func:`summarise_study`'s bias is its mean, with its MCSE)."""
    fitted = _fitted(model)
    causal = set(truth["causal"].tolist())
    names, values = [], []

    def add(name, value):
        names.append(name)
        values.append(float(value))

    found = set()
    for credible in fitted.credible_sets_:
        members = set(credible["variables"])
        add("cs_covers", bool(members & causal))
        add("cs_size", len(members))
        add("cs_purity", credible["min_abs_corr"])
        found |= members & causal
    for variant in sorted(causal):
        add("power", variant in found)
    add("n_cs", len(fitted.credible_sets_))
    pips = fitted.inclusion_probabilities_
    for label, low, high in pip_bins():
        for variant in np.flatnonzero((pips >= low) & (pips < high)):
            add(f"pip{label}", pips[variant])
            add(f"causal{label}", int(variant) in causal)
    if hasattr(model, "alpha_"):
        add("selected_alpha", model.alpha_)
    zeros = np.zeros(len(values))
    return {"parameter": names, "estimate": values, "se": zeros, "lower": values,
            "upper": values, "true": zeros}


def finemapping_problem(setting="correct", n_variants=None):
    """The fine-mapping simulation of one setting as a :class:`~alphavb.simulation.Problem`."""
    return Problem("susie_finemapping", _simulate_finemapping, coefficient_risk,
                   coefficient_error, {"setting": setting, "n_variants": n_variants},
                   finemapping_rows)


def z_scores(X, y):
    """The z-scores of the univariate regressions of ``y`` on each column of ``X`` (with an
    intercept; susieR's ``univariate_regression``)."""
    centred, response = X - X.mean(axis=0), y - y.mean()
    r = centred.T @ response / np.sqrt(np.sum(centred**2, axis=0) * (response @ response))
    return r * np.sqrt((len(y) - 2) / (1.0 - r * r))


class ReferenceLDSuSiE(AlphaSuSiE):
    """AlphaSuSiE fitted to the z-scores of the rows it is given and the LD of the other
    rows of the study's genotypes (the ``ld_mismatch`` setting): a reference panel that is
    not the sample."""

    def __init__(self, n_effects=10, alpha=1.0, *, n_variants=None):
        super().__init__(n_effects, alpha)
        self.n_variants = n_variants

    def fit(self, X, y):
        reference = study_genotypes(self.n_variants)[X.shape[0]:]
        return self.fit_summary(z_scores(X, y), np.corrcoef(reference, rowvar=False),
                                X.shape[0])


def _estimators(setting, alphas, quick, n_variants):
    """``(method, estimator, grid alphas)``: the fixed alphas, then the selections."""
    from ..model_selection import AlphaSelector

    if setting == "ld_mismatch":
        return [("alpha", ReferenceLDSuSiE(n_variants=n_variants), alphas)]
    base = AlphaSuSiE(constant_columns="exclude")
    methods = [("alpha", base, alphas)]
    for method in SELECTIONS[:1] if quick else SELECTIONS:
        methods.append((method, AlphaSelector(base, method=method, alphas=list(alphas),
                                              random_state=0), None))
    return methods


def run_finemapping_study(setting, alphas=ALPHAS, n_replications=N_REPLICATIONS,
                          random_state=0, n_jobs=1, cache_dir=None, quick=False):
    """The study of one setting: its per-fit rows (``fits``) and the long frame of
    measures (``estimates``), with a ``method`` column (``"alpha"`` for the fixed grid,
    else the selection), as :func:`~alphavb.simulation.run_study` returns them."""
    import pandas as pd

    n_variants = QUICK_VARIANTS if quick else None
    n_rows = study_genotypes(n_variants).shape[0]
    n_samples = n_rows // 2 if setting == "ld_mismatch" else n_rows
    fits, estimates = [], []
    for method, estimator, grid_alphas in _estimators(setting, alphas, quick, n_variants):
        grid = {"n_samples": [n_samples]}
        if grid_alphas is not None:
            grid["alpha"] = list(grid_alphas)
        f, e = run_study(finemapping_problem(setting, n_variants), estimator, grid,
                         n_replications=n_replications, random_state=random_state,
                         n_jobs=n_jobs, cache_dir=cache_dir, n_draws=1, progress=not quick,
                         return_estimates=True)
        label = (lambda frame: frame["alpha"].map(float)) if method == "alpha" else \
            (lambda frame, method=method: method)
        fits.append(f.assign(method=label(f), setting=setting))
        estimates.append(e.assign(method=label(e), setting=setting))
    return pd.concat(fits, ignore_index=True), pd.concat(estimates, ignore_index=True)


def summarise_finemapping(estimates, clustered=False):
    """Per setting, method and measure: the mean and its MCSE (``summarise_study``'s bias
    and its MCSE against the rows' true 0), with the number of rows.

    ``clustered=True``: the MCSE treats the replicates, not the rows, as independent (a
    measure pooled over the credible sets of a replicate, whose sets share its data): the
    ratio estimator's, ``sqrt(R / (R - 1) sum_r (S_r - mean n_r)^2) / sum_r n_r`` over the
    ``R`` replicates with ``n_r`` rows summing to ``S_r`` (the delta method; Cochran 1977,
    Sampling Techniques, ch. 6). With one row per replicate it is the rows' MCSE."""
    import pandas as pd

    frame = estimates.assign(method=estimates["method"].astype(str))
    summary = summarise_study(frame, method="method", by=["setting", "parameter"])
    wide = summary[summary["stat"].isin(["bias", "nsim"])].pivot_table(
        index=["setting", "method", "parameter"], columns="stat", values=["est", "mcse"])
    out = pd.DataFrame({"mean": wide[("est", "bias")], "mcse": wide[("mcse", "bias")],
                        "rows": wide[("est", "nsim")]}).reset_index()
    if clustered:
        out["mcse"] = _clustered_mcse(frame, out)
    return out


def _clustered_mcse(frame, summary):
    """:func:`summarise_finemapping`'s MCSE over the replicates, per row of ``summary``,
    from the rows ``summarise_study`` uses."""
    import pandas as pd

    from ..simulation._summary import usable_rows

    keys = ["setting", "method", "parameter"]
    per_replicate = (usable_rows(frame).groupby([*keys, "replication"], observed=True)["estimate"]
                     .agg(["sum", "count"]).reset_index()
                     .merge(summary[[*keys, "mean"]], on=keys))
    per_replicate["square"] = (per_replicate["sum"]
                               - per_replicate["mean"] * per_replicate["count"]) ** 2
    groups = per_replicate.groupby(keys, observed=True)
    n_replicates = groups["square"].size()
    error = (np.sqrt(n_replicates / (n_replicates - 1) * groups["square"].sum())
             / groups["count"].sum()).where(n_replicates > 1)
    return error.reindex(pd.MultiIndex.from_frame(summary[keys])).to_numpy(dtype=float)


def _measure(summary, setting, method, name):
    row = summary[(summary["setting"] == setting) & (summary["method"] == method)
                  & (summary["parameter"] == name)]
    if row.empty:
        return np.nan, np.nan
    return float(row["mean"].iloc[0]), float(row["mcse"].iloc[0])


TABLE_MEASURES = (("cs_covers", "coverage"), ("power", "power"), ("cs_size", "size"),
                  ("cs_purity", "purity"), ("n_cs", "sets"), ("selected_alpha", "alpha"))


def _table_rows(summary, settings):
    rows = []
    for setting in settings:
        methods = summary[summary["setting"] == setting]["method"].unique()
        ordered = sorted(methods, key=lambda m: (m in SELECTIONS, -float(m) if m not in
                                                 SELECTIONS else SELECTIONS.index(m)))
        for method in ordered:
            row = {"setting": setting, "method": method if method in SELECTIONS
                   else f"alpha = {float(method):g}"}
            for name, key in TABLE_MEASURES:
                row[key], row[f"{key}_se"] = _measure(summary, setting, method, name)
            if method not in SELECTIONS:  # the fixed alpha
                row["alpha"] = float(method)
                del row["alpha_se"]
            rows.append(row)
    return rows


def calibration_rows(summary):
    rows = []
    for (setting, method), part in summary.groupby(["setting", "method"]):
        for label, _, _ in pip_bins():
            pip = part[part["parameter"] == f"pip{label}"]
            causal = part[part["parameter"] == f"causal{label}"]
            if pip.empty:
                continue
            rows.append({"setting": setting, "method": method, "bin": label,
                         "variants": int(pip["rows"].iloc[0]),
                         "mean_pip": float(pip["mean"].iloc[0]),
                         "causal_share": float(causal["mean"].iloc[0]),
                         "causal_share_se": float(causal["mcse"].iloc[0])})
    return rows


def reproduce_susie_calibration(out_dir=None, random_state=0, quick=False, n_jobs=1):
    """Run the fine-mapping calibration study and write its figure and tables.

    Parameters
    ----------
    out_dir : str, Path or None
        Default ``results/susie-calibration``.
    random_state : int, default=0
    quick : bool, default=False
        200 variants, 10 replications, alpha in {0.5, 1}, SafeBayes only (seconds).
    n_jobs : int, default=1

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"``, ``"rows"`` (the table's rows),
    ``"calibration"`` (the PIP bins) and ``"summary"`` (every measure).
    """
    import pandas as pd

    out_dir, plt = _prepare_output(out_dir or "results/susie-calibration")
    alphas = QUICK_ALPHAS if quick else ALPHAS
    n_replications = QUICK_REPLICATIONS if quick else N_REPLICATIONS
    estimates = []
    for setting in SETTINGS:
        _, found = run_finemapping_study(setting, alphas, n_replications, random_state,
                                         n_jobs, out_dir / "cache" / setting, quick)
        estimates.append(found)
    summary = summarise_finemapping(pd.concat(estimates, ignore_index=True))
    rows = _table_rows(summary, SETTINGS)
    calibration = calibration_rows(summary)
    figure, table = out_dir / "susie_calibration.png", out_dir / "susie_calibration.csv"
    pips, markdown = out_dir / "susie_calibration_pips.csv", out_dir / "susie_calibration.md"
    _plot(plt, rows, calibration, figure, FEW_REPLICATIONS_STAMP if quick else None)
    _write_csv(table, rows)
    _write_csv(pips, calibration)
    markdown.write_text(_markdown_table(
        "alpha-SuSiE's credible sets on N3finemapping's LD",
        f"{n_replications} replications per setting; mean +- MCSE. coverage: share of the "
        "95% credible sets holding a causal variant; power: share of causal variants in a "
        "set; size, purity: per set; sets: per fit; alpha: the selected one (mean).",
        rows, ["setting", "method", *[key for _, key in TABLE_MEASURES]],
        formats={"size": ".2f", "sets": ".2f", "alpha": ".2f"}), encoding="utf-8")
    return {"figure": figure, "table": table, "files": [figure, table, pips, markdown],
            "rows": rows, "calibration": calibration, "summary": summary}


def _plot(plt, rows, calibration, figure, stamp):
    from ._output import _pip_calibration_panel, _save_figure

    measures = (("coverage", "coverage of 95% sets"), ("power", "power"),
                ("size", "mean set size"))
    fig, axes = plt.subplots(1, len(measures) + 1, figsize=(15, 4.2))
    for offset, setting in enumerate(SETTINGS):
        part = [row for row in rows if row["setting"] == setting]
        position = np.arange(len(part)) + 0.15 * (offset - 1.5)
        for ax, (key, title) in zip(axes[:-1], measures, strict=True):
            ax.errorbar(position, [row[key] for row in part],
                        yerr=[row[f"{key}_se"] for row in part], fmt="o", ms=4, capsize=2,
                        label=setting)
            ax.set_title(title, fontsize=9)
            ax.set_xticks(np.arange(len(part)), [row["method"].replace("alpha = ", "")
                                                for row in part], fontsize=7)
    axes[0].axhline(COVERAGE, color="black", linewidth=0.8, linestyle="--")
    axes[0].legend(fontsize=7)
    _pip_calibration_panel(axes[-1], [
        ([row for row in calibration if row["setting"] == setting and row["method"] == method],
         {"fmt": style, "ms": 3, "label": f"{setting}, alpha = {float(method):g}"})
        for setting in SETTINGS for method, style in (("1.0", "o-"), ("0.25", "s--"))])
    axes[-1].legend(fontsize=6)
    _save_figure(plt, fig, figure, stamp)
