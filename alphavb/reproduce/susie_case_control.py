"""Fine-mapping binary traits: logistic alpha-SuSiE beside linear SuSiE on the 0/1 trait and
beside the exact alpha-posterior. Run by ``alphavb reproduce susie-case-control``.

Genotypes with real LD: a window of GEMMA's mouse_hs1940 (1,940 mice; the first
``N_VARIANTS`` = 300 variants of chromosome 1 with minor allele frequency at least 0.05).
Per replication 1 to 3 causal variants (drawn uniformly), each with a log odds ratio of
``effect`` per standard deviation of its genotype (random sign), and three designs:

* ``balanced``: a cohort of the 1,940 mice, prevalence 0.5, effect 0.25;
* ``case_control``: a population of mice drawn with replacement from the 1,940 (so its
  genotypes have the window's LD), prevalence 0.05, effect 0.35; the first 970 cases and
  970 controls are the sample (the ascertained design of a case-control study);
* ``rare``: a cohort of the 1,940 mice, prevalence 0.1, effect 0.35 (no ascertainment).

Each replication is fitted with :class:`~alphavb.AlphaSuSiEClassifier` (``L = 10``) at
alpha = 1 and 0.5 and with :class:`~alphavb.AlphaSuSiE` (``L = 10``, alpha = 1) on the 0/1
trait, what users run today for want of a logistic SuSiE. The study
(:func:`~alphavb.simulation.run_study`) records, as
:mod:`~alphavb.reproduce.susie_calibration` does, per credible set whether it holds a
causal variant (coverage), per causal variant whether a set holds it (power), the sets'
sizes and purities, and per variant with PIP above 0.1 its PIP bin and whether it is causal
(calibration). Besides, on the first ``N_EXACT`` = 20 replications of each design (their
own seeds), :func:`~alphavb.exact.compare_to_exact` draws the classifier's exact
alpha-posterior at alpha = 1 (Polya-Gamma Gibbs, 2 chains of 500 draws after 100, at the
fit's prior variances): the largest PIP error and the smallest exact mass of a 95% interval.

Writes ``susie_case_control.png`` (coverage, power and PIP calibration per design),
``susie_case_control.csv`` and ``.md`` (the table), ``susie_case_control_pips.csv`` (the
calibration bins) and ``susie_case_control_exact.csv``. Fits are cached under
``OUT_DIR/cache``. ``quick=True``: 100 variants, 10 replications, 2 exact comparisons with
short chains (a test of the pipeline, stamped).
"""

from functools import lru_cache

import numpy as np

from ..linear_model import AlphaSuSiE, AlphaSuSiEClassifier
from ..simulation import Problem, run_study
from ._output import FEW_REPLICATIONS_STAMP, _markdown_table, _prepare_output, _write_csv
from .susie_calibration import (
    COVERAGE,
    calibration_rows,
    coefficient_error,
    coefficient_risk,
    finemapping_rows,
    summarise_finemapping,
)

DESIGNS = {"balanced": (0.5, 0.25, False), "case_control": (0.05, 0.35, True),
           "rare": (0.1, 0.35, False)}  # (prevalence, effect, ascertained)
N_VARIANTS, QUICK_VARIANTS = 300, 100
N_REPLICATIONS, QUICK_REPLICATIONS = 200, 10
N_EXACT, QUICK_EXACT = 20, 2
ALPHAS = (1.0, 0.5)
N_EFFECTS = 10


@lru_cache(maxsize=2)
def window_genotypes(n_variants=N_VARIANTS):
    """The first ``n_variants`` variants of chromosome 1 of mouse_hs1940 with minor allele
    frequency at least 0.05 (module docstring)."""
    from ..datasets import load_mouse_hs1940

    mice = load_mouse_hs1940()
    frequency = mice.genotypes.mean(axis=0) / 2.0
    chromosome = np.asarray(mice.chromosome)
    common = np.flatnonzero((np.minimum(frequency, 1.0 - frequency) >= 0.05)
                            & (chromosome == chromosome[0]))[:n_variants]
    return np.ascontiguousarray(mice.genotypes[:, common])


def _intercept(logit, prevalence):
    """The intercept whose mean probability over ``logit`` is ``prevalence``."""
    from scipy.optimize import brentq
    from scipy.special import expit

    return brentq(lambda c: float(expit(c + logit).mean()) - prevalence, -30.0, 30.0)


def _simulate_binary(n_samples, random_state, design, n_variants):
    """One replication of ``design`` (module docstring): ``X``, the 0/1 trait and the truth
    (the causal variants and their log odds ratios)."""
    from scipy.special import expit

    prevalence, effect, ascertained = DESIGNS[design]
    rng = np.random.default_rng(random_state)
    genotypes = window_genotypes(n_variants)
    p = genotypes.shape[1]
    causal = np.sort(rng.choice(p, size=int(rng.integers(1, 4)), replace=False))
    coef = np.zeros(p)
    coef[causal] = rng.choice([-1.0, 1.0], size=causal.size) * effect / genotypes[
        :, causal].std(axis=0)
    if ascertained:  # a population drawn from the mice, then the cases and as many controls
        half = n_samples // 2
        population = rng.integers(0, genotypes.shape[0], size=int(2 * half / prevalence))
        logit = genotypes[np.ix_(population, causal)] @ coef[causal]
        logit += _intercept(logit - logit.mean(), prevalence) - logit.mean()
        y = rng.random(population.size) < expit(logit)
        cases, controls = np.flatnonzero(y)[:half], np.flatnonzero(~y)[:half]
        if cases.size < half:
            raise RuntimeError(f"the population gave {cases.size} cases of {half}")
        rows = population[np.concatenate([cases, controls])]
        labels = np.concatenate([np.ones(half), np.zeros(half)]).astype(int)
        return genotypes[rows], labels, {"coef": coef, "causal": causal}
    X = genotypes[:n_samples]
    logit = X @ coef
    logit = logit - logit.mean()
    labels = (rng.random(X.shape[0]) < expit(_intercept(logit, prevalence) + logit))
    return X, labels.astype(int), {"coef": coef, "causal": causal}


def binary_problem(design, n_variants=N_VARIANTS):
    """The simulation of one design as a :class:`~alphavb.simulation.Problem`."""
    return Problem("susie_case_control", _simulate_binary, coefficient_risk,
                   coefficient_error, {"design": design, "n_variants": n_variants},
                   finemapping_rows)


def _n_samples(design):
    return 1940


def run_binary_study(design, n_replications=N_REPLICATIONS, random_state=0, n_jobs=1,
                     cache_dir=None, quick=False):
    """The long frame of measures of one design, with a ``method`` column (the classifier's
    alpha, or ``"linear"``)."""
    import pandas as pd

    n_variants = QUICK_VARIANTS if quick else N_VARIANTS
    frames = []
    for method, estimator, grid in (
            ("logistic", AlphaSuSiEClassifier(N_EFFECTS), {"alpha": list(ALPHAS)}),
            ("linear", AlphaSuSiE(N_EFFECTS), {})):
        _, estimates = run_study(
            binary_problem(design, n_variants), estimator,
            {"n_samples": [_n_samples(design)], **grid}, n_replications=n_replications,
            random_state=random_state, n_jobs=n_jobs,
            cache_dir=None if cache_dir is None else cache_dir / method, n_draws=1,
            progress=not quick, return_estimates=True)
        label = estimates["alpha"].map(lambda a: f"logistic, alpha = {float(a):g}") \
            if method == "logistic" else "linear, alpha = 1"
        frames.append(estimates.assign(method=label, setting=design))
    return pd.concat(frames, ignore_index=True)


def exact_comparisons(design, n_comparisons, random_state, quick, cache_dir):
    """:func:`~alphavb.exact.compare_to_exact` of the classifier at alpha = 1 on
    ``n_comparisons`` replications of ``design`` (seeds of their own; cached as JSON)."""
    import json
    import warnings

    from ..exact import compare_to_exact

    n_variants = QUICK_VARIANTS if quick else N_VARIANTS
    sampling = ({"n_draws": 100, "n_chains": 2, "n_tune": 20} if quick
                else {"n_draws": 500, "n_chains": 2, "n_tune": 100})
    seeds = np.random.SeedSequence([random_state, 59, list(DESIGNS).index(design)])
    rows = []
    for replication, seed in enumerate(seeds.spawn(n_comparisons)):
        path = None if cache_dir is None else cache_dir / f"{design}-{replication}.json"
        if path is not None and path.exists():
            rows.append(json.loads(path.read_text()))
            continue
        X, y, truth = _simulate_binary(_n_samples(design), seed, design, n_variants)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # mixing is read off the table's MCSEs
            table = compare_to_exact(AlphaSuSiEClassifier(N_EFFECTS), X, y,
                                     random_state=replication, **sampling)
        features = table.iloc[:X.shape[1]]
        causal = truth["causal"]
        row = {"setting": design, "replication": replication,
               "largest_pip_error": table.attrs["largest_pip_error"],
               "smallest_interval_mass": float(features["interval_mass"].min()),
               "causal_vb_pip": float(features["vb_pip"].iloc[causal].mean()),
               "causal_exact_pip": float(features["exact_pip"].iloc[causal].mean())}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(row))
        rows.append(row)
    return rows


TABLE_MEASURES = (("cs_covers", "coverage"), ("power", "power"), ("cs_size", "size"),
                  ("cs_purity", "purity"), ("n_cs", "sets"))
METHODS = ("logistic, alpha = 1", "logistic, alpha = 0.5", "linear, alpha = 1")


def table_rows(summary):
    """One row per design and method: each measure's mean and MCSE."""
    rows = []
    for design in DESIGNS:
        for method in METHODS:
            part = summary[(summary["setting"] == design) & (summary["method"] == method)]
            if part.empty:
                continue
            row = {"design": design, "method": method}
            for name, key in TABLE_MEASURES:
                found = part[part["parameter"] == name]
                row[key] = float(found["mean"].iloc[0]) if len(found) else np.nan
                row[f"{key}_se"] = float(found["mcse"].iloc[0]) if len(found) else np.nan
            rows.append(row)
    return rows


def exact_rows(comparisons):
    """Per design: the mean (and its standard error) over the replications compared."""
    rows = []
    for design in DESIGNS:
        part = [row for row in comparisons if row["setting"] == design]
        if not part:
            continue
        row = {"design": design, "replications": len(part)}
        for key in ("largest_pip_error", "smallest_interval_mass", "causal_vb_pip",
                    "causal_exact_pip"):
            values = np.array([entry[key] for entry in part], dtype=float)
            row[key] = float(values.mean())
            row[f"{key}_se"] = float(values.std(ddof=1) / np.sqrt(len(values))) \
                if len(values) > 1 else np.nan
        rows.append(row)
    return rows


def reproduce_susie_case_control(out_dir=None, random_state=0, quick=False, n_jobs=1):
    """Run the binary-trait fine-mapping study (module docstring) and write its figure and
    tables.

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"``, ``"rows"``, ``"calibration"`` and
    ``"exact"`` (the exact comparison's rows per design).
    """
    import pandas as pd

    out_dir, plt = _prepare_output(out_dir or "results/susie-case-control")
    n_replications = QUICK_REPLICATIONS if quick else N_REPLICATIONS
    frames = [run_binary_study(design, n_replications, random_state, n_jobs,
                               out_dir / "cache" / design, quick) for design in DESIGNS]
    summary = summarise_finemapping(pd.concat(frames, ignore_index=True))
    rows = table_rows(summary)
    calibration = calibration_rows(summary)
    comparisons = [row for design in DESIGNS for row in exact_comparisons(
        design, QUICK_EXACT if quick else N_EXACT, random_state, quick,
        out_dir / "cache" / "exact")]
    exact = exact_rows(comparisons)
    figure = out_dir / "susie_case_control.png"
    table, pips = out_dir / "susie_case_control.csv", out_dir / "susie_case_control_pips.csv"
    exact_table, markdown = (out_dir / "susie_case_control_exact.csv",
                             out_dir / "susie_case_control.md")
    _plot(plt, rows, calibration, figure, FEW_REPLICATIONS_STAMP if quick else None)
    _write_csv(table, rows)
    _write_csv(pips, calibration)
    _write_csv(exact_table, exact)
    markdown.write_text(_markdown_table(
        "Fine-mapping binary traits on mouse_hs1940's LD",
        f"{n_replications} replications per design; mean +- MCSE. coverage: share of the "
        "95% credible sets holding a causal variant; power: share of causal variants in a "
        "set; size, purity: per set; sets: per fit.",
        rows, ["design", "method", *[key for _, key in TABLE_MEASURES]],
        formats={"size": ".2f", "sets": ".2f"}) + "\n" + _markdown_table(
        "The classifier (alpha = 1) against its exact alpha-posterior",
        "Polya-Gamma Gibbs at the fit's prior variances; mean +- s.e. over replications.",
        exact, ["design", "replications", "largest_pip_error", "smallest_interval_mass",
                "causal_vb_pip", "causal_exact_pip"]), encoding="utf-8")
    return {"figure": figure, "table": table,
            "files": [figure, table, pips, exact_table, markdown], "rows": rows,
            "calibration": calibration, "exact": exact}


def _plot(plt, rows, calibration, figure, stamp):
    from ._output import _pip_calibration_panel, _save_figure

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for offset, method in enumerate(METHODS):
        part = [row for row in rows if row["method"] == method]
        position = np.arange(len(part)) + 0.15 * (offset - 1)
        for ax, key in zip(axes[:2], ("coverage", "power"), strict=True):
            ax.errorbar(position, [row[key] for row in part],
                        yerr=[row[f"{key}_se"] for row in part], fmt="o", ms=4, capsize=2,
                        label=method)
            ax.set_xticks(np.arange(len(part)), [row["design"] for row in part], fontsize=8)
            ax.set_title(f"{key} of 95% sets" if key == "coverage" else key, fontsize=9)
    axes[0].axhline(COVERAGE, color="black", linewidth=0.8, linestyle="--")
    axes[0].legend(fontsize=7)
    _pip_calibration_panel(axes[2], [
        ([row for row in calibration if row["method"] == method],
         {"fmt": "o", "ms": 3, "label": method}) for method in METHODS],
        xlabel="mean PIP in bin (a point per design and bin)")
    _save_figure(plt, fig, figure, stamp)
