"""The AADM paper's experiments (Rodríguez-Santana & Hernández-Lobato 2022): the toy problems
of its Figure 2 and Table 1, the UCI comparison of its Figures 3-4, and an ablation of the
authors' design choices."""

from pathlib import Path

import numpy as np

from .._validation import Integer, check_parameter
from ..blackbox import AADM_PAPER_SETTINGS, AADMRegressor, BBAlphaRegressor
from ..cache import ResultCache, cache_key, finite_number, non_negative_number, require
from ..datasets import load_uci, make_bimodal, make_heteroscedastic
from ..simulation._provenance import arithmetic_platform
from ._output import (
    QUICK_STAMP,
    _errorbar_panels,
    _markdown_table,
    _prepare_output,
    _save_figure,
    _save_outputs,
    _write_csv,
)
from ._uci import (
    BBALPHA_SMALL_SETS,
    _fit_uci,
    _summarize_splits,
    fit_timed_stack,
    stack_pieces,
)

# the paper's Figure 2 and Table 1 show 1e-4 and 1; the text says alpha < 0.5 behaves like
# 1e-4 and alpha > 0.5 like 1, which the other three test
AADM_TOY_ALPHAS = (1e-4, 0.25, 0.5, 0.75, 1.0)


AADM_TOY_FIGURE_ALPHAS = (1e-4, 1.0)


# the paper's step sizes (AADM_PAPER_SETTINGS; the estimator's defaults are interactive
# ones), and n_iter_no_change at its former default: with tol=None it does nothing, but it
# is part of every cached fit's key (the committed UCI fits keep theirs)
PAPER_STEPS = {"learning_rate": AADM_PAPER_SETTINGS["learning_rate"],
               "discriminator_learning_rate": AADM_PAPER_SETTINGS["discriminator_learning_rate"],
               "n_iter_no_change": 10}

# the paper's toy set-up (Rodríguez-Santana & Hernández-Lobato 2022, Sec. 5.1): 1,000
# training points, batch 10, 3,000 epochs of which the first 500 warm up the KL; float32 as
# the authors' TensorFlow code trains
AADM_TOY_SETTINGS = {"hidden_layer_sizes": (50, 50), "batch_size": 10, "n_epochs": 3000,
                     "warmup_fraction": 500 / 3000,
                     "tol": None, "dtype": "float32", **PAPER_STEPS}


AADM_TOY_PROBLEMS = {"heteroscedastic": make_heteroscedastic, "bimodal": make_bimodal}


# a toy fit is 300,000 steps (1.6-1.8 CPU ms per fit and step in float32 stacks of 2 and 3,
# 480-550 CPU s a fit over the committed 3,000-epoch sweep on 2 busy cores): the five alphas of
# one problem and seed train as stacks of at most 3, so that a stack, the unit a stopped run
# resumes from, ends within about half an hour on one core
AADM_TOY_MAX_STACK = 3


# the paper's UCI set-up (Sec. 5.2): two hidden layers of 50 units, batch 10, 10% warm-up,
# K = 10 training and 100 prediction draws, 2,000 epochs (the authors' code), every epoch
# trained (tol=None), in float32 as the authors' TensorFlow code trains (about 1.8 times
# faster than float64 here; tests/blackbox: float32 fits track float64 ones)
AADM_UCI_SETTINGS = {"hidden_layer_sizes": (50, 50), "batch_size": 10, "n_epochs": 2000,
                     "warmup_fraction": 0.1, "n_mc_samples": 10, "n_predict_samples": 100,
                     "tol": None, "dtype": "float32", **PAPER_STEPS}


# With the closed-form AADM step stacking gains little beyond 4 fits (float32, 1 thread, one
# run: 4.9 ms per fit and step alone, 3.8 with 4 stacked, 3.7 with 10; benchmarks/bench_aadm.py),
# and a stack is cached when all its fits end: 4 float32 fits of
# 2,000 boston epochs took 30 minutes on 2 busy cores
AADM_MAX_STACK = 4


def aadm_max_stack(estimator):
    """The most fits of one stack: ``AADM_MAX_STACK``, or 1 when every row draws its own K
    weight samples (the authors' AVB: 0.6 CPU hours per 2,000-epoch boston fit against 0.19
    with shared draws, measured), so that a stack, the unit a stopped run resumes from,
    ends well within a working session."""
    return 1 if getattr(estimator, "draws_per_row", False) else AADM_MAX_STACK


# the methods of the paper's Figures 3-4 that alphavb has: AADM at two alphas, AVB (its
# alpha -> 0 limit) and VI with a factorized Gaussian q; beside them AVB and AADM at alpha = 1
# configured as the authors' AVB_boston.py and AADM_boston.py configure them (_AUTHORS
# below), to explain the differences from the paper; AUTHORS_CODE_SUFFIX ends the name of a
# method trained in the authors' configuration
AUTHORS_CODE_SUFFIX = " (authors' code)"
AADM_UCI_METHODS = ("AADM alpha=1", "AADM alpha=0.5", "AVB",
                    "AADM alpha=1" + AUTHORS_CODE_SUFFIX, "AVB" + AUTHORS_CODE_SUFFIX, "VI")


# the authors'-code configurations run on the first 5 splits only: they are there to explain
# the differences from the paper (the same splits as "AVB" and "AADM alpha=1", paired), not to
# rank, and a fit whose rows draw their own weights costs 0.3-0.6 CPU hours on boston
AUTHORS_CODE_SPLITS = 5


# the authors' Boston values, read off their published figure (paper-claims.md; +- 0.01;
# AADM alpha = 1: LL -2.37 to -2.39; alpha = 0.5: LL -2.40 to -2.41, its RMSE not given).
# Their AVB and AADM are the authors' code's, so each stands beside both of its rows.
AADM_PAPER_BOSTON = {"VI": {"test_ll": -2.82, "test_rmse": 3.86},
                     "AVB": {"test_ll": -2.48, "test_rmse": 2.85},
                     "AVB" + AUTHORS_CODE_SUFFIX: {"test_ll": -2.48, "test_rmse": 2.85},
                     "AADM alpha=1": {"test_ll": -2.38, "test_rmse": 3.17},
                     "AADM alpha=1" + AUTHORS_CODE_SUFFIX: {"test_ll": -2.38, "test_rmse": 3.17},
                     "AADM alpha=0.5": {"test_ll": -2.405, "test_rmse": None}}


# small networks and few epochs for --quick (the tests run it)
AADM_QUICK = {"hidden_layer_sizes": (20,), "generator_hidden": (20,), "noise_dim": 10,
              "discriminator_hidden": (20,), "n_epochs": 3}


def reproduce_aadm_toy(out_dir="results/aadm-toy", random_state=0, quick=False, n_epochs=None,
                       n_jobs=1, n_seeds=None):
    """Figure 2 and Table 1 of the AADM paper: the heteroscedastic and bimodal toy problems,
    and its claim about other alphas.

    For each problem (:func:`~alphavb.datasets.make_heteroscedastic`,
    :func:`~alphavb.datasets.make_bimodal`) fits :class:`~alphavb.AADMRegressor` (default
    networks) at ``alpha`` in ``AADM_TOY_ALPHAS`` (1e-4, AVB-like, to 1) to 1,000 training
    points with batch 10 and 3,000 epochs, the first 500 warming up the KL
    (``AADM_TOY_SETTINGS``), and scores 1,000 fresh test points. The paper shows 1e-4 and 1
    and says that alpha < 0.5 behaves like 1e-4 and alpha > 0.5 like 1. ``n_epochs``
    shortens the run, keeping the warm-up at 1/6 of it. Every alpha is fitted with
    ``n_seeds`` seeds of the fit (``random_state + s``: the starts, mini-batches and draws;
    the data stay those of ``random_state``), 3 by default (1 with ``quick``), so the table
    gives the spread that training alone produces. The fits of one problem and seed train in
    stacks of at most ``AADM_TOY_MAX_STACK`` (:func:`~alphavb.blackbox.fit_stacked`), each
    fit cached when its stack ends, so a stopped run resumes there; the stacks run seed by
    seed.
    ``quick=True``: 100 points, small networks, 3 epochs (seconds).

    Writes ``aadm_toy.png`` (the training data, then predictive samples at alpha = 1e-4 and
    1, one row per problem: the paper's Figure 2), ``aadm_toy_alpha.png`` (test
    log-likelihood and RMSE against alpha, mean +- s.e. over the seeds), ``aadm_toy.csv``
    (test RMSE and log-likelihood per problem, alpha and seed) and ``aadm_toy.md`` (mean +-
    s.e. over the seeds). Fits are cached as JSON under ``out_dir/fits``.

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"`` and the ``"rows"``.
    """
    from joblib import Parallel, delayed

    out_dir, plt = _prepare_output(out_dir)
    settings = dict(AADM_TOY_SETTINGS, **(AADM_QUICK if quick else {}))
    if n_epochs is not None:
        settings["n_epochs"] = n_epochs
    n_train = 100 if quick else 1000
    n_seeds = int(check_parameter("reproduce_aadm_toy", "n_seeds",
                                  n_seeds if n_seeds is not None else 1 if quick else 3,
                                  [Integer(1, None)]))
    cache = ResultCache(out_dir / "fits")
    cache.check_writable("out_dir")
    # the fits of one problem and seed of the fit, seed by seed (a run stopped part-way
    # then holds every problem and alpha of its first seeds)
    jobs = {(problem, seed): [(_toy_key(problem, alpha, n_train, settings, random_state,
                                        random_state + seed), alpha)
                              for alpha in AADM_TOY_ALPHAS]
            for seed in range(n_seeds) for problem in AADM_TOY_PROBLEMS}
    cached = {key: cache.load(key, validate=_toy_row_check(problem, alpha, n_train))
              for (problem, _), stack in jobs.items() for key, alpha in stack}
    stacks = [(problem, seed, piece) for (problem, seed), group in jobs.items()
              for piece in stack_pieces([job for job in group if cached[job[0]] is None],
                                        AADM_TOY_MAX_STACK, 1)]
    fitted = Parallel(n_jobs=n_jobs)(
        delayed(_fit_aadm_toy_stack)(cache, problem, piece, n_train, settings, random_state,
                                     random_state + seed)
        for problem, seed, piece in stacks)
    for rows_of_stack in fitted:
        cached.update(rows_of_stack)
    results = [dict(cached[key], seed=seed) for (_, seed), stack in jobs.items()
               for key, _ in stack]
    results.sort(key=lambda r: (list(AADM_TOY_PROBLEMS).index(r["problem"]), r["seed"]))
    rows = [{key: r[key] for key in ("problem", "alpha", "seed", "n_train", "n_epochs",
                                     "test_rmse", "test_ll", "noise_sd", "fit_seconds")}
            for r in results]
    summary = _toy_summary(rows)
    fig, axes = plt.subplots(len(AADM_TOY_PROBLEMS), 1 + len(AADM_TOY_FIGURE_ALPHAS),
                             figsize=(12, 6.4), sharex="row", sharey="row")
    for row_axes, problem in zip(axes, AADM_TOY_PROBLEMS, strict=True):
        X, y = AADM_TOY_PROBLEMS[problem](n_train, random_state=random_state)
        row_axes[0].scatter(X[:, 0], y, s=3, color="k")
        row_axes[0].set_title(f"{problem}: training data")
        shown = [r for r in results if r["problem"] == problem and r["seed"] == 0
                 and r["alpha"] in AADM_TOY_FIGURE_ALPHAS]
        for ax, r in zip(row_axes[1:], shown, strict=True):
            grid, samples = np.array(r["grid"]), np.array(r["samples"])
            ax.scatter(np.repeat(grid, samples.shape[0]), samples.T.ravel(), s=1, alpha=0.3,
                       color="tab:blue")
            ax.set_title(f"{problem}: AADM alpha = {r['alpha']:g}\ntest LL {r['test_ll']:.3f}, "
                         f"RMSE {r['test_rmse']:.3f}")
        for ax in row_axes:
            ax.set_xlabel("x")
            ax.set_ylabel("y (predictive samples)" if ax is not row_axes[0] else "y")
    fig.suptitle(f"AADM predictive samples: {n_train} training points, "
                 f"{settings['n_epochs']} epochs, batch {settings['batch_size']}", fontsize=10)
    figure, table = out_dir / "aadm_toy.png", out_dir / "aadm_toy.csv"
    result = _save_outputs(plt, fig, figure, table, rows,
                           QUICK_STAMP if quick else None)
    sweep = out_dir / "aadm_toy_alpha.png"
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for problem in AADM_TOY_PROBLEMS:
        subset = [r for r in summary if r["problem"] == problem]
        for ax, key in zip(axes, ("test_ll", "test_rmse"), strict=True):
            ax.errorbar([r["alpha"] for r in subset], [r[key] for r in subset],
                        yerr=[np.nan_to_num(r[key + "_se"]) for r in subset], fmt="o-",
                        capsize=3, label=problem)
    for ax, label in zip(axes, ("test log-likelihood (higher is better)",
                                "test RMSE (lower is better)"), strict=True):
        ax.set_xlabel("alpha")
        ax.set_title(label)
        ax.axvline(0.5, color="grey", lw=0.8, ls=":")
    axes[0].legend()
    fig.suptitle(f"AADM on the toy problems against alpha ({settings['n_epochs']} epochs; "
                 "the paper: alpha < 0.5 behaves like 1e-4, alpha > 0.5 like 1)")
    _save_figure(plt, fig, sweep, QUICK_STAMP if quick else None)
    markdown = out_dir / "aadm_toy.md"
    markdown.write_text(_markdown_table(
        "AADM on the toy problems (the paper's Table 1, with more alphas)",
        f"{n_train} training points, 1,000 test points, batch {settings['batch_size']}, "
        f"{settings['n_epochs']} epochs ({settings['warmup_fraction']:.3g} of them KL warm-up); "
        f"mean +- s.e. over {n_seeds} seed(s) of the fit (the data fixed).",
        summary, ["problem", "alpha", "test_rmse", "test_ll", "noise_sd", "n_seeds"]),
        encoding="utf-8")
    result["files"] += [sweep, markdown]
    return result


def _aadm_toy_model(alpha, settings, random_state):
    return AADMRegressor(divergence_order=alpha, random_state=random_state, **settings)


def _toy_key(problem, alpha, n_train, settings, data_seed, fit_seed):
    return cache_key({"kind": "aadm-toy", "problem": problem, "n_train": n_train,
                      "estimator": _aadm_toy_model(alpha, settings, fit_seed),
                      "random_state": data_seed})


def _toy_summary(rows):
    """Per problem and alpha, mean and standard error over the seeds of the test metrics
    and the noise sd."""
    from ._output import _standard_error

    summary = []
    for problem in AADM_TOY_PROBLEMS:
        for alpha in AADM_TOY_ALPHAS:
            group = [r for r in rows if r["problem"] == problem and r["alpha"] == alpha]
            entry = {"problem": problem, "alpha": alpha, "n_seeds": len(group)}
            for key in ("test_rmse", "test_ll", "noise_sd"):
                values = np.array([r[key] for r in group], dtype=float)
                entry[key], entry[key + "_se"] = float(values.mean()), _standard_error(values)
            summary.append(entry)
    return summary


def _toy_row_check(problem, alpha, n_train):
    """The validation of a cached toy row."""
    def arrays(value):
        array = np.asarray(value, dtype=float) if isinstance(value, list) else None
        return array is not None and array.size > 0 and bool(np.all(np.isfinite(array)))

    checks = {"problem": problem, "alpha": alpha, "n_train": n_train,
              "test_rmse": non_negative_number, "test_ll": finite_number,
              "noise_sd": non_negative_number, "fit_seconds": non_negative_number,
              "grid": arrays, "samples": arrays}
    return lambda row: require(row, checks)


def _fit_aadm_toy_stack(cache, problem, jobs, n_train, settings, random_state, fit_seed):
    """The toy fits of one problem and fit seed, trained as one stack: test metrics and
    predictive samples on a grid, cached under each job's key and returned by key (the fit
    time is the stack's divided by its fits). The data come from ``random_state``."""
    make = AADM_TOY_PROBLEMS[problem]
    X, y = make(n_train, random_state=random_state)
    X_test, y_test = make(1000, random_state=random_state + 1)
    models, seconds, cpu_seconds = fit_timed_stack(
        [_aadm_toy_model(alpha, settings, fit_seed) for _, alpha in jobs], [X] * len(jobs),
        [y] * len(jobs))
    grid = np.linspace(X.min(), X.max(), 100)
    rows = {}
    for (key, alpha), model in zip(jobs, models, strict=True):
        samples = model.sample_predictive(grid[:, None], n_samples=50,
                                          random_state=random_state)
        row = {"problem": problem, "alpha": alpha, "n_train": n_train,
               "n_epochs": settings["n_epochs"],
               "test_rmse": float(np.sqrt(np.mean((model.predict(X_test) - y_test)**2))),
               "test_ll": model.log_likelihood(X_test, y_test),
               "noise_sd": float(np.sqrt(model.noise_variance_)), "fit_seconds": seconds,
               "fit_cpu_seconds": cpu_seconds, "platform": arithmetic_platform(),
               "stack_size": len(jobs), "grid": grid.tolist(), "samples": samples.tolist()}
        cache.store(key, row)
        rows[key] = row
    return rows


def _aadm_uci_model(method, settings, random_state, y_train):
    """The estimator of one method of the AADM paper's UCI comparison (``y_train``: the
    split's training targets, for the authors' start of the noise variance)."""
    if method == "VI":  # factorized Gaussian q: BB-alpha's VB energy, same network and data
        return BBAlphaRegressor(
            divergence_order=0.0, activation="leaky_relu", learn_prior_variance=True,
            learning_rate=1e-3, random_state=random_state,
            **{key: settings[key] for key in ("hidden_layer_sizes", "batch_size", "n_epochs",
                                              "n_mc_samples", "n_predict_samples", "tol",
                                              "dtype")})
    base = method.removesuffix(AUTHORS_CODE_SUFFIX)
    alpha = 0.0 if base == "AVB" else float(base.split("=")[1])
    if base != method:  # the authors' code; their log sigma^2 = 0.01 on the standardized scale
        return AADMRegressor(divergence_order=alpha, random_state=random_state, **settings,
                             **_AUTHORS, noise_variance=float(np.exp(0.01) * np.var(y_train)))
    return AADMRegressor(divergence_order=alpha, random_state=random_state, **settings)


def reproduce_aadm_uci(out_dir="results/aadm-uci", random_state=0, quick=False, datasets=None,
                       methods=AADM_UCI_METHODS, n_splits=None, n_epochs=None, n_jobs=1,
                       data_home=None):
    """The AADM paper's UCI comparison (its Figures 3-4) as a table.

    AADM at ``alpha`` = 1 and 0.5, AVB (AADM's ``alpha -> 0`` limit, computed at
    ``alpha = 0``) and VI (a factorized Gaussian ``q`` fitted with the VB energy by
    :class:`~alphavb.BBAlphaRegressor`, leaky ReLU, Adam 1e-3) on the standard splits of
    the UCI sets (:func:`~alphavb.datasets.load_uci`), all with two hidden layers of 50
    units, batch 10, K = 10 and 100 predictive draws, and for AADM 10% KL warm-up and the
    authors' step sizes (``AADM_UCI_SETTINGS``, 2,000 epochs), every fit trained in
    float32 as the authors' TensorFlow code is. Beside them "AVB (authors' code)" and "AADM
    alpha=1 (authors' code)": AVB and AADM with the design of the authors' ``AVB_boston.py``
    and ``AADM_boston.py`` (a row's own K draws, point biases, the prior variance learned
    from ``exp(-5)``, the discriminator started at ``N(0, 0.1^2)``, the noise variance at
    ``e^0.01 var(y)``), where "AVB" and "AADM alpha=1" have alphavb's defaults; they run on
    the first ``AUTHORS_CODE_SPLITS`` splits only (their purpose is the paired comparison
    with alphavb's rows on the same splits). ``n_splits`` and ``n_epochs`` shorten the run.
    ``quick=True``: boston and yacht, 2 splits, small networks, 3 epochs.

    Writes ``aadm_uci_splits.csv`` (one row per fit), ``aadm_uci.csv`` and ``aadm_uci.md``
    (mean and standard error over splits of the test log-likelihood and RMSE) and
    ``aadm_uci.png``. Fits are cached as JSON under ``out_dir/fits``.
    """
    out_dir, plt = _prepare_output(out_dir)
    settings = dict(AADM_UCI_SETTINGS, **(AADM_QUICK if quick else {}))
    if quick:
        datasets, n_splits = datasets or ("boston", "yacht"), n_splits or 2
    if n_epochs is not None:
        settings["n_epochs"] = n_epochs
    unknown = set(methods) - set(AADM_UCI_METHODS)
    if unknown:
        raise ValueError(f"methods must be among {AADM_UCI_METHODS}; got {sorted(unknown)}.")
    datasets = tuple(datasets or BBALPHA_SMALL_SETS)
    jobs = []
    for name in datasets:
        data = load_uci(name, data_home)
        for split in range(min(n_splits or data.n_splits, data.n_splits)):
            for method in methods:
                if method.endswith(AUTHORS_CODE_SUFFIX) and split >= AUTHORS_CODE_SPLITS:
                    continue
                model = _aadm_uci_model(method, settings, random_state + split,
                                        data.target[data.train_indices[split]])
                jobs.append((data, split, model, {"method": method}))
    # small stacks (aadm_max_stack): a stack is the unit a stopped run resumes from
    split_rows = _fit_uci(out_dir / "fits", jobs, n_jobs, max_stack=aadm_max_stack)
    rows = [_summarize_splits([r for r in split_rows if r["dataset"] == name
                               and r["method"] == method], {"dataset": name, "method": method})
            for name in datasets for method in methods]
    for row in rows:  # the authors' values beside ours, where their figure gives them
        paper = AADM_PAPER_BOSTON.get(row["method"], {}) if row["dataset"] == "boston" else {}
        row["paper_ll"], row["paper_rmse"] = (_paper_cell(paper.get(key))
                                              for key in ("test_ll", "test_rmse"))
    # a row of the figure per data set, tall enough for a point per method; the legend in
    # a third panel of its own, so that it covers no point
    fig, (*axes, legend_panel) = plt.subplots(
        1, 3, figsize=(12, 0.3 * len(methods) * len(datasets) + 1.6),
        gridspec_kw={"width_ratios": (1, 1, 0.45)})
    _errorbar_panels(axes, rows, "method", methods, ("test_ll", "test_rmse"), datasets,
                     spacing=0.15, references={(method, "boston"): values for method, values
                                               in AADM_PAPER_BOSTON.items()},
                     reference_label="the authors' figure (boston)")
    for ax, title in zip(axes, ("test log-likelihood", "test RMSE"), strict=True):
        ax.set_title(f"{title} (mean +- s.e. over splits)")
    legend_panel.axis("off")
    legend_panel.legend(*axes[0].get_legend_handles_labels(), loc="center left", fontsize=8)
    fig.suptitle(f"AADM, AVB and VI on UCI: {settings['hidden_layer_sizes']} hidden units, "
                 f"{settings['n_epochs']} epochs, batch {settings['batch_size']}, "
                 f"{settings['dtype']}", fontsize=9)
    figure, table = out_dir / "aadm_uci.png", out_dir / "aadm_uci.csv"
    result = _save_outputs(plt, fig, figure, table, rows,
                           QUICK_STAMP if quick else None)
    splits_csv, markdown = out_dir / "aadm_uci_splits.csv", out_dir / "aadm_uci.md"
    _write_csv(splits_csv, split_rows)
    markdown.write_text(_markdown_table(
        "AADM, AVB and VI on the UCI regression benchmarks (the paper's Figures 3-4)",
        f"Hidden layers {settings['hidden_layer_sizes']}, batch "
        f"{settings['batch_size']}, {settings['n_epochs']} epochs, {settings['dtype']}. Mean "
        "+- standard error over the standard splits; max_rmse is the worst split; paper_ll "
        "and paper_rmse are the authors' boston values read off their figure (+- 0.01; "
        "their AVB beside both AVB rows). fit_seconds: wall time per fit (its stack's "
        "divided by the stack's fits; longer on a shared or paused machine); "
        "fit_cpu_seconds: CPU time per fit.",
        rows, ["dataset", "method", "n_splits", "test_ll", "paper_ll", "test_rmse",
               "paper_rmse", "max_rmse", "fit_seconds", "fit_cpu_seconds"]),
        encoding="utf-8")
    result["files"] += [markdown, splits_csv]
    return result


def _paper_cell(value):
    """A table cell for a value read off the paper: the number, or empty when not given."""
    return "" if value is None else f"{value:g}"


# Design choices of the AADM authors' code (paper-claims.md; their AADM_boston.py) that
# differ from a literal reading of the paper, each switched on alone from a base design,
# then all together. The base is alphavb's design before this ablation (a generator that
# emits the biases too, K draws shared by a mini-batch's rows, v0 learned from 1, a
# discriminator started at N(0, 1/n_in)) with the noise variance started at 0.01 var(y):
# with the former default start, 0.1 var(y), alpha = 1 failed. "noise e^0.01" is
# what the authors' code does (log sigma^2 = 0.01 on the standardized scale, sigma^2 =
# 1.01). The last row combines the two choices that helped alone (it did not help). The
# defaults of AADMRegressor are the base with point biases.
_AUTHORS = {"draws_per_row": True, "bias_posterior": "point",
            "prior_variance": float(np.exp(-5.0)), "discriminator_init_scale": 0.1}


AADM_ABLATION_BASE = {"draws_per_row": False, "bias_posterior": "implicit",
                      "prior_variance": 1.0, "discriminator_init_scale": None,
                      "noise_variance": None}  # None: the default start, 0.01 var(y)


AADM_ABLATION = {
    "base": {},
    "draws per row": {"draws_per_row": True},
    "point biases": {"bias_posterior": "point"},
    "prior variance from exp(-5)": {"prior_variance": _AUTHORS["prior_variance"]},
    "discriminator N(0, 0.1^2)": {"discriminator_init_scale": 0.1},
    "noise variance from 0.1 (the former default)": {"noise_fraction": 0.1},
    "noise variance from e^0.01": {"noise_fraction": float(np.exp(0.01))},
    "the authors' code": {**_AUTHORS, "noise_fraction": float(np.exp(0.01))},
    "the authors' code, noise 0.01": {**_AUTHORS, "noise_fraction": 0.01},
    "point biases, prior from exp(-5)": {"bias_posterior": "point",
                                         "prior_variance": _AUTHORS["prior_variance"]},
}


def reproduce_aadm_ablation(out_dir="results/aadm-ablation", random_state=0, quick=False,
                            datasets=("boston",), n_splits=5, n_epochs=200, n_jobs=1,
                            data_home=None):
    """Which of the AADM authors' design choices make alpha = 1 work on UCI data.

    AADM at ``alpha = 1`` in a base design (``AADM_ABLATION_BASE``), then with each choice
    of the authors' code switched on alone, then with all of them, then with the two that
    helped alone (``AADM_ABLATION``): a row's own draws (``draws_per_row``),
    point-estimated biases, the prior variance learned from ``exp(-5)``, the discriminator
    started at ``N(0, 0.1^2)``, and the noise variance started at 0.1 (the former default),
    ``e^0.01`` (the authors' code) or 0.01 (the base) times ``var(y)``. Beside them, with
    the same budget: AADM at ``alpha = 0.5`` and AVB in the base design, and VI as in
    :func:`reproduce_aadm_uci`. The paper's UCI network and schedule (``AADM_UCI_SETTINGS``)
    with ``n_epochs`` epochs (every one trained) on the first ``n_splits`` standard splits.
    ``quick=True``: 2 splits, small networks, 3 epochs.

    Writes ``aadm_ablation.md`` and ``aadm_ablation.csv`` (per data set and configuration:
    mean and standard error over splits of the test log-likelihood and RMSE, and the largest
    split RMSE) and ``aadm_ablation_splits.csv``. Fits are cached under ``out_dir/fits``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # float64: the precision the ablation's recorded results (vignettes) were trained in
    settings = {**AADM_UCI_SETTINGS, "n_epochs": n_epochs, "dtype": "float64",
                **(AADM_QUICK if quick else {})}
    if quick:
        n_splits = 2
    configurations = {f"AADM alpha=1, {name}": (1.0, options)
                      for name, options in AADM_ABLATION.items()}
    configurations["AADM alpha=0.5, base"] = (0.5, {})
    configurations["AVB, base"] = (0.0, {})
    jobs = []
    for name in datasets:
        data = load_uci(name, data_home)
        for split in range(min(n_splits, data.n_splits)):
            train = data.train_indices[split]
            for label, (alpha, options) in configurations.items():
                options = {**AADM_ABLATION_BASE, **options}
                fraction = options.pop("noise_fraction", None)
                if fraction is not None:
                    options["noise_variance"] = fraction * float(np.var(data.target[train]))
                model = AADMRegressor(divergence_order=alpha, random_state=random_state + split,
                                      **settings, **options)
                jobs.append((data, split, model, {"configuration": label}))
            model = _aadm_uci_model("VI", settings, random_state + split, data.target[train])
            jobs.append((data, split, model, {"configuration": "VI"}))
    # stacks of at most AADM_MAX_STACK fits: a stack is the unit a stopped run resumes from
    split_rows = _fit_uci(out_dir / "fits", jobs, n_jobs, max_stack=AADM_MAX_STACK)
    labels = [*configurations, "VI"]
    rows = []
    for name in datasets:
        for label in labels:
            subset = [r for r in split_rows if r["dataset"] == name
                      and r["configuration"] == label]
            rows.append(_summarize_splits(subset, {"dataset": name, "configuration": label}))
    table, splits_csv = out_dir / "aadm_ablation.csv", out_dir / "aadm_ablation_splits.csv"
    markdown = out_dir / "aadm_ablation.md"
    _write_csv(table, rows)
    _write_csv(splits_csv, split_rows)
    markdown.write_text(_markdown_table(
        "AADM ablation: the authors' design choices, one at a time",
        f"alpha = 1 unless named; hidden layers {settings['hidden_layer_sizes']}, batch "
        f"{settings['batch_size']}, {settings['n_epochs']} epochs (10% KL warm-up), "
        f"K = {settings['n_mc_samples']}. Mean +- standard error over the first "
        f"{n_splits} standard splits; max_rmse is the worst split.",
        rows, ["dataset", "configuration", "n_splits", "test_ll", "test_rmse", "max_rmse",
               "fit_seconds"]), encoding="utf-8")
    return {"table": table, "files": [markdown, table, splits_csv], "rows": rows}
