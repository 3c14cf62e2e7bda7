"""SuSiE 2.0's fine-mapping benchmark on real genotypes, with alpha chosen for the credible
sets: ``alphavb reproduce susie2-benchmark``.

The scenarios of SuSiE 2.0's simulation script (the sparse ones with K = 1-5 causal
variants, the oligogenic S1 and S2 at their h2 partitions) and our three
misspecifications (t3 noise, a polygenic background, LD from other individuals), on
windows of 5,000 variants of the mouse_hs1940 genotypes and 1,000 of the mice per
replicate (:mod:`alphavb.reproduce._susie2_data`). Methods, on the same data (common
random numbers): SuSiE, SuSiE-inf (``AlphaSuSiE(unmappable_effects="inf")``) and SuSiE-ash
(``"ash"``) at alpha = 1, at 0.75 and 0.5 (the trade-off curve, on the first
``CURVE_REPLICATIONS`` replicates), and each with alpha chosen per replicate by the
credible-set calibration (``AlphaSelector(method="calibrate")``,
:mod:`alphavb.linear_model._susie_calibration`); with LD from other individuals the fit is
``fit_summary`` on the replicate's z-scores and the LD of 500 other mice, also with the
mismatch variance and B = 500 (``ld_mismatch="eb"``, susieR 0.16.5's ``R_mismatch``; the
calibration needs rows, so only the fixed alphas run there).

Per fit, as :mod:`~alphavb.reproduce.susie_calibration` records them: per credible set
whether it holds a causal variant (``coverage``, pooled over the sets, with the MCSE of
the pooled share over the replicates, whose sets share their data), its size and purity;
per causal variant whether a set holds it (``power``); the PIP bins; the selected alpha;
the seconds. A variant is causal, as in the script, when a Bonferroni test would find it
with power >= 0.8 (S1, S2, polygenic) or when it is one of the K effects (sparse, t3, LD);
``coverage_top3`` counts as causal the three largest effects (the paper's Figure 1, "top
3"), which in S1 and S2 makes a set on a detectable oligogenic variant a false one.

Writes ``susie2_benchmark.png``, ``.csv``, ``.md``, and ``susie2_benchmark_pips.png`` and
``.csv`` (the PIPs' calibration, per bin) under the output folder; fits are cached in
``OUT_DIR/cache``, so an interrupted run resumes. ``quick=True``: 300 variants, 300 mice, 2
replicates of three scenarios, 2 calibration replicates on the alphas 1 and 0.5 (a test of
the pipeline, stamped).
"""

import time
from functools import lru_cache

import numpy as np

from .._approximation import without_checks
from .._warnings import quietly
from ..linear_model import AlphaSuSiE
from ..simulation import Problem, run_study
from . import _susie2_data as data
from ._output import FEW_REPLICATIONS_STAMP, _markdown_table, _prepare_output, _write_csv
from .susie_calibration import (
    calibration_rows,
    coefficient_error,
    coefficient_risk,
    pip_bins,
    summarise_finemapping,
    z_scores,
)

SCENARIOS = ("sparse1", "sparse2", "sparse3", "sparse4", "sparse5", "S1", "S2", "t3",
             "polygenic", "ld_mismatch")
QUICK_SCENARIOS = ("sparse3", "S1", "ld_mismatch")
BACKGROUNDS = (("SuSiE", None), ("SuSiE-inf", "inf"), ("SuSiE-ash", "ash"))
COLOURS = {"SuSiE": "tab:blue", "SuSiE-inf": "tab:orange", "SuSiE-ash": "tab:red",
           "SuSiE, eb": "tab:green"}
FIXED_ALPHAS = (1.0, 0.75, 0.5)
N_REPLICATIONS, QUICK_REPLICATIONS = 500, 2
# replicates of the fixed alphas below 1 (the trade-off curves; alpha = 1 and the
# calibrated choices run all N_REPLICATIONS)
CURVE_REPLICATIONS = 40
QUICK_WINDOW, QUICK_SAMPLES, QUICK_WORLDS, QUICK_ALPHAS = 300, 300, 2, (1.0, 0.5)


@lru_cache(maxsize=1)
def _genotypes():
    from ..datasets import load_mouse_hs1940

    return load_mouse_hs1940().genotypes


def _simulate(n_samples, random_state, scenario, window, rule=None):
    """One replicate of ``scenario`` (module docstring): ``X`` (rows of mice, with the
    reference panel's rows at the end and ``y`` NaN there for ``ld_mismatch``), ``y`` and
    the truth (``coef``, ``causal``, ``top``). ``rule`` names the calibration's rule (a
    setting, so that cached fits of an older rule are not read)."""
    rng = np.random.default_rng(random_state)
    reference = data.REFERENCE_SAMPLES if scenario == "ld_mismatch" else 0
    X, panel = data.window_genotypes(_genotypes(), rng, n_samples, window, reference)
    if scenario in data.OLIGO:
        y, coef, causal, top, _, _ = data.oligo_response(X, scenario, rng)
    elif scenario == "polygenic":
        y, coef, causal, top, _, _ = data.polygenic_response(X, rng)
    else:
        n_causal = int(scenario[-1]) if scenario.startswith("sparse") else 3
        y, coef, causal = data.sparse_response(X, n_causal, rng,
                                               "t3" if scenario == "t3" else "normal")
        top = causal
    if panel is not None:
        X = np.vstack([X, panel])
        y = np.concatenate([y, np.full(panel.shape[0], np.nan)])
    return X, y, {"coef": coef, "causal": causal, "top": top}


def _rows(model, truth, level):
    """The per-fit measures (module docstring), each a value with true 0 for
    :func:`~alphavb.simulation.summarise_study`."""
    fitted = getattr(model, "best_estimator_", model)
    causal, top = set(truth["causal"].tolist()), set(truth["top"].tolist())
    names, values = [], []

    def add(name, value):
        names.append(name)
        values.append(float(value))

    found = set()
    for credible in fitted.credible_sets_:
        members = set(credible["variables"])
        add("cs_covers", bool(members & causal))
        add("cs_covers_top3", bool(members & top))
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
    add("selected_alpha", getattr(model, "alpha_", fitted.alpha))
    add("seconds", getattr(model, "fit_seconds_", np.nan))
    zeros = np.zeros(len(values))
    return {"parameter": names, "estimate": values, "se": zeros, "lower": values,
            "upper": values, "true": zeros}


def benchmark_problem(scenario, window=data.WINDOW):
    """One scenario as a :class:`~alphavb.simulation.Problem`."""
    from ..linear_model._susie_calibration import RULE

    return Problem("susie2_benchmark", _simulate, coefficient_risk, coefficient_error,
                   {"scenario": scenario, "window": window, "rule": RULE}, _rows)


class TimedSuSiE(AlphaSuSiE):
    """AlphaSuSiE that records its fit's seconds (``fit_seconds_``) and fits the rows whose
    ``y`` is known; the rows where ``y`` is NaN are a reference panel: with any, the fit is
    :meth:`fit_summary` of the known rows' z-scores and the panel's LD (with
    ``ld_mismatch``, its mismatch variance and the panel's size as ``B``)."""

    ld_mismatch = None

    def _cache_key_parameters(self):
        """The parameters; a fit that stops on its probabilities (SuSiE-inf, the LD
        mismatch) also names the stopping rule, so that its fits cached before the rule
        stopped on a cycle of them (susieR 0.16.5's, as SuSiE-ash's) are not read, and
        SuSiE-inf's those before its V was searched over V in [0, 1] (susieR 0.16.5's)."""
        params = self.get_params(deep=False)
        if params["unmappable_effects"] == "inf" or self.ld_mismatch is not None:
            params = {**params, "probability_stopping": "susieR 0.16.5 pip cycles"}
        if params["unmappable_effects"] == "inf":
            params["prior_variance_search"] = "susieR 0.16.5 inf: V in [0, 1], tol in u"
        if self.ld_mismatch is not None:  # a cycle of alpha and the PIPs, lambda guarded
            params["lambda_guard"] = "susieR 0.16.5"
        return params

    def fit(self, X, y, covariates=None, sample_weight=None):
        with without_checks():  # the seconds are the fit's, as susieR's beside them
            return self._timed_fit(X, y, covariates, sample_weight)

    def _timed_fit(self, X, y, covariates, sample_weight):
        started = time.perf_counter()
        y = np.asarray(y, dtype=float)
        known = ~np.isnan(y)
        if known.all():
            super().fit(X, y, covariates, sample_weight)
        else:
            rows, panel = X[known], X[~known]
            options = {} if self.ld_mismatch is None else {
                "ld_mismatch": self.ld_mismatch, "reference_n_samples": panel.shape[0]}
            with quietly():  # the mismatch flags are in ld_mismatch_
                self.fit_summary(z_scores(rows, y[known]), np.corrcoef(panel, rowvar=False),
                                 int(known.sum()), **options)
        self.fit_seconds_ = time.perf_counter() - started
        return self


class MismatchSuSiE(TimedSuSiE):
    """:class:`TimedSuSiE` whose summary fit estimates the LD mismatch (``"eb"``, with the
    panel's size as ``B``)."""

    ld_mismatch = "eb"


class AshSuSiE(TimedSuSiE):
    """:class:`TimedSuSiE` whose cache key names SuSiE-ash's stopping rule: the fits cached
    before it stopped on susieR 0.16.5's probability cycles (a cycle of 2-5 sweeps ends the
    fit, its probabilities averaged) are not read."""

    def _cache_key_parameters(self):
        return {**self.get_params(deep=False), "ash_stopping": "susieR 0.16.5 pip cycles"}


class TimedSelector:
    """An AlphaSelector that records its selection's and refit's seconds."""

    def __new__(cls, *args, **kwargs):
        from ..model_selection import AlphaSelector

        class _Timed(AlphaSelector):
            def _cache_key_parameters(self):
                """The parameters and the calibration's rule: a cached selection of an
                older rule is not read."""
                from ..linear_model._susie_calibration import SELECTION_RULE

                return {**self.get_params(deep=False), "rule": SELECTION_RULE}

            def fit(self, X, y=None):
                started = time.perf_counter()
                super().fit(X, y)
                self.fit_seconds_ = time.perf_counter() - started
                return self

        return _Timed(*args, **kwargs)


def _methods(scenario, quick):
    """``(name, estimator, fixed alphas or None)``: SuSiE, SuSiE-inf and SuSiE-ash on the
    fixed grid, then each with alpha calibrated (not for summary statistics)."""
    from ..model_selection import AlphaSelector  # noqa: F401 (the selector's module)

    methods = []
    if scenario == "ld_mismatch":
        methods.append(("SuSiE, eb", MismatchSuSiE(), FIXED_ALPHAS))
    for name, background in BACKGROUNDS:
        base = (AshSuSiE if background == "ash" else TimedSuSiE)(unmappable_effects=background)
        methods.append((name, base, FIXED_ALPHAS))
        if scenario != "ld_mismatch":
            selector = TimedSelector(base, method="calibrate", random_state=0,
                                     n_bootstrap=QUICK_WORLDS if quick else None,
                                     alphas=list(QUICK_ALPHAS) if quick else None)
            methods.append((f"{name}, calibrated", selector, None))
    return methods


def run_benchmark_scenario(scenario, n_replications=N_REPLICATIONS, random_state=0,
                           n_jobs=1, cache_dir=None, quick=False):
    """The benchmark of one scenario: the long frame of measures with ``method`` (the
    method's name, with `` alpha = a`` on the fixed grid) and ``scenario`` columns."""
    import pandas as pd

    window = QUICK_WINDOW if quick else data.WINDOW
    n_samples = QUICK_SAMPLES if quick else data.N_SAMPLES
    frames = []
    for name, estimator, alphas in _methods(scenario, quick):
        # the fixed alphas below 1 draw the trade-off curve, on the first replicates only
        parts = ([(None, n_replications)] if alphas is None else
                 [([1.0], n_replications),
                  ([a for a in alphas if a != 1.0], min(n_replications, CURVE_REPLICATIONS))])
        for grid_alphas, replications in parts:
            grid = {"n_samples": [n_samples]}
            if grid_alphas is not None:
                grid["alpha"] = list(grid_alphas)
            _, found = run_study(benchmark_problem(scenario, window), estimator, grid,
                                 n_replications=replications, random_state=random_state,
                                 n_jobs=n_jobs, cache_dir=cache_dir, n_draws=1,
                                 progress=not quick, return_estimates=True)
            label = (found["alpha"].map(lambda a, name=name: f"{name}, alpha = {float(a):g}")
                     if grid_alphas is not None else name)
            frames.append(found.assign(method=label, setting=scenario))
    return pd.concat(frames, ignore_index=True)


TABLE_MEASURES = (("cs_covers", "coverage"), ("power", "power"), ("cs_size", "size"),
                  ("cs_purity", "purity"), ("cs_covers_top3", "coverage_top3"),
                  ("n_cs", "sets"), ("selected_alpha", "alpha"))


def median_seconds(estimates):
    """Per ``(setting, method)``: the median of the fits' wall seconds and its standard
    error, over the fits that ran (status ``"ok"``, finite seconds; as the means'
    ``summarise_study``). A median, not a mean: a long run is paused and resumed, and a fit
    that spans a pause records it. The error is distribution-free: the width of the order
    statistics' 95% interval for the median (1-based ranks ``floor(m/2 - 1.96 sqrt(m)/2)``
    and ``ceil(1 + m/2 + 1.96 sqrt(m)/2)`` of ``m`` fits, held within 1..m) over ``2 x
    1.96``; NaN for a single fit."""
    ran = estimates[(estimates["parameter"] == "seconds")
                    & np.isfinite(estimates["estimate"].astype(float))]
    if "status" in ran:
        ran = ran[ran["status"] == "ok"]
    found = {}
    for key, values in ran.groupby(["setting", "method"])["estimate"]:
        ordered = np.sort(values.to_numpy(dtype=float))
        m = ordered.size
        spread = 1.96 * np.sqrt(m) / 2.0
        low = min(max(int(np.floor(m / 2.0 - spread)), 1), m)
        high = min(max(int(np.ceil(1.0 + m / 2.0 + spread)), 1), m)
        error = (ordered[high - 1] - ordered[low - 1]) / (2.0 * 1.96) if m > 1 else np.nan
        found[key] = (float(np.median(ordered)), float(error))
    return found


def _table_rows(summary, scenarios, seconds):
    rows = []
    for scenario in scenarios:
        part = summary[summary["setting"] == scenario]
        for method in sorted(part["method"].unique(), key=_method_order):
            row = {"scenario": scenario, "method": method}
            for name, key in TABLE_MEASURES:
                match = part[(part["method"] == method) & (part["parameter"] == name)]
                row[key] = float(match["mean"].iloc[0]) if len(match) else np.nan
                row[f"{key}_se"] = float(match["mcse"].iloc[0]) if len(match) else np.nan
            row["seconds"], row["seconds_se"] = seconds.get((scenario, method),
                                                            (np.nan, np.nan))
            row["replicates"] = int(part[(part["method"] == method)
                                         & (part["parameter"] == "n_cs")]["rows"].iloc[0])
            # the sets pooled into coverage, size and purity (a share of 1 +- 0 from 9
            # sets says less than one from 300)
            sets = part[(part["method"] == method) & (part["parameter"] == "cs_covers")]
            row["n_sets"] = int(sets["rows"].iloc[0]) if len(sets) else 0
            rows.append(row)
    return rows


def _method_order(method):
    background = ("SuSiE-inf" in method) + 2 * ("SuSiE-ash" in method)
    calibrated = "calibrated" in method
    alpha = float(method.rsplit("= ", 1)[1]) if "alpha =" in method else 0.0
    return (background, calibrated, -alpha)


def reproduce_susie2_benchmark(out_dir=None, random_state=0, quick=False, n_jobs=1,
                               scenarios=None, n_replications=None):
    """Run the benchmark and write its figure and tables.

    Parameters
    ----------
    out_dir : str, Path or None
        Default ``results/susie2-benchmark``.
    random_state : int, default=0
    quick : bool, default=False
        300 variants, 300 mice, 2 replicates of three scenarios (seconds).
    n_jobs : int, default=1
    scenarios : sequence of str or None
        A subset of :data:`SCENARIOS` (None: all; quick: three).
    n_replications : int or None
        None: 500 (quick: 2). Fewer give the first replicates of the full study (the
        cache is shared).

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"``, ``"rows"`` and ``"summary"``.
    """
    import pandas as pd

    _genotypes()  # a missing data home is named now, not recorded as failed fits
    out_dir, plt = _prepare_output(out_dir or "results/susie2-benchmark")
    scenarios = tuple(scenarios or (QUICK_SCENARIOS if quick else SCENARIOS))
    replicates = n_replications or (QUICK_REPLICATIONS if quick else N_REPLICATIONS)
    frames = [run_benchmark_scenario(scenario, replicates, random_state, n_jobs,
                                     out_dir / "cache" / scenario, quick)
              for scenario in scenarios]
    estimates = pd.concat(frames, ignore_index=True)
    summary = summarise_finemapping(estimates, clustered=True)
    rows = _table_rows(summary, scenarios, median_seconds(estimates))
    pips = calibration_rows(summary)
    figure, table = out_dir / "susie2_benchmark.png", out_dir / "susie2_benchmark.csv"
    pip_table, markdown = out_dir / "susie2_benchmark_pips.csv", out_dir / "susie2_benchmark.md"
    pip_figure = out_dir / "susie2_benchmark_pips.png"
    stamp = FEW_REPLICATIONS_STAMP if quick else None
    _plot(plt, rows, scenarios, figure, stamp)
    _plot_pips(plt, pips, scenarios, pip_figure, stamp)
    _write_csv(table, rows)
    _write_csv(pip_table, pips)
    markdown.write_text(_markdown_table(
        "SuSiE 2.0's fine-mapping benchmark on mouse genotypes",
        f"{replicates} replicates per scenario (the number of each row is `replicates`); "
        "mean +- MCSE, with the replicates as the independent units (the sets of a "
        "replicate share its data; `n_sets` sets in all). coverage: share of the 95% "
        "credible sets holding a causal variant "
        "(power >= 0.8, or the K effects); power: share of causal variants in a set; "
        "size, purity: per set; coverage_top3: causal = the 3 largest effects (the "
        "paper's Figure 1); sets: per fit; alpha: the selected one (mean); seconds: the "
        "median per fit or selection (wall time), +- its distribution-free error.",
        rows, ["scenario", "method", *[key for _, key in TABLE_MEASURES], "seconds",
               "replicates", "n_sets"],
        formats={"size": ".2f", "sets": ".2f", "alpha": ".2f", "seconds": ".2f"}),
        encoding="utf-8")
    return {"figure": figure, "table": table,
            "files": [figure, table, pip_figure, pip_table, markdown], "rows": rows,
            "summary": summary}


def _plot(plt, rows, scenarios, figure, stamp):
    """Per scenario, coverage against power: the fixed alphas as a curve per background,
    the calibrated choices as stars, the 0.95 line."""
    from ._output import _save_figure

    columns = min(len(scenarios), 5)
    lines = -(-len(scenarios) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(3.2 * columns, 3.0 * lines),
                             squeeze=False)
    for ax, scenario in zip(axes.ravel(), scenarios, strict=False):
        part = [row for row in rows if row["scenario"] == scenario]
        for background, colour in COLOURS.items():
            curve = [row for row in part if row["method"].startswith(f"{background}, alpha")]
            if curve:
                ax.errorbar([row["power"] for row in curve], [row["coverage"] for row in curve],
                            yerr=[row["coverage_se"] for row in curve], fmt="o-", ms=3,
                            color=colour, capsize=2, label=f"{background}, alpha 1/0.75/0.5")
            chosen = [row for row in part if row["method"] == f"{background}, calibrated"]
            if chosen:
                ax.errorbar([row["power"] for row in chosen],
                            [row["coverage"] for row in chosen],
                            yerr=[row["coverage_se"] for row in chosen], fmt="*", ms=10,
                            color=colour, capsize=2, label=f"{background}, calibrated")
        ax.axhline(0.95, color="black", linewidth=0.8, linestyle="--")
        if scenario == "ld_mismatch":
            ax.legend(fontsize=6)
        ax.set_title(scenario, fontsize=9)
        ax.set_xlabel("power", fontsize=8)
        ax.set_ylabel("coverage", fontsize=8)
    for ax in axes.ravel()[len(scenarios):]:
        ax.set_visible(False)
    axes.ravel()[0].legend(fontsize=6)
    _save_figure(plt, fig, figure, stamp)


def _plot_pips(plt, pips, scenarios, figure, stamp):
    """Per scenario, the PIPs' calibration (the share of causal variants per bin of PIPs
    against the bin's mean PIP) of each background at alpha = 1 and of the recommended
    configuration, SuSiE-inf calibrated."""
    from ._output import _pip_calibration_panel, _save_figure

    columns = min(len(scenarios), 5)
    lines = -(-len(scenarios) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(3.2 * columns, 3.0 * lines),
                             squeeze=False)
    series = [(f"{background}, alpha = 1", {"fmt": "o-", "color": colour})
              for background, colour in COLOURS.items()]
    series.append(("SuSiE-inf, calibrated", {"fmt": "*--", "ms": 8, "color": "black"}))
    for ax, scenario in zip(axes.ravel(), scenarios, strict=False):
        _pip_calibration_panel(ax, [
            ([row for row in pips if row["setting"] == scenario and row["method"] == method],
             {"ms": 3, "capsize": 2, "label": method, **style}) for method, style in series])
        ax.set_title(scenario, fontsize=9)
        if scenario == "ld_mismatch":  # the one with the mismatch variance's series
            ax.legend(fontsize=6)
    for ax in axes.ravel()[len(scenarios):]:
        ax.set_visible(False)
    axes.ravel()[0].legend(fontsize=6)
    _save_figure(plt, fig, figure, stamp)
