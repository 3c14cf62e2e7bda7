"""The worked examples of Yang, Pati & Bhattacharya (2020), "alpha-variational inference with
statistical guarantees": Figure 1 (sparse regression), Figure 2 (Gaussian mixture) and
Table 1 (AP topics)."""

import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..datasets import load_ap, make_gmm, make_sparse_regression
from ..linear_model import AlphaSpikeSlabRegression
from ..mixture import AlphaGaussianMixture
from ..topics import AlphaLDA, heldout_perplexity
from ._output import FEWER_ALPHAS_STAMP, _prepare_output, _save_outputs, _write_csv
from .rates import QUICK_ALPHAS

HDR_ALPHAS = (0.5, 0.8, 0.95, 1.0)


GMM_ALPHAS = (0.1, 0.5, 0.95, 1.0)


LDA_ALPHAS = (0.5, 0.8, 0.95, 1.0)


def reproduce_hdr(out_dir="results/hdr", random_state=0, alphas=HDR_ALPHAS, quick=False):
    """Figure 1 of Yang, Pati & Bhattacharya (2020): sparse regression, n = 100, d = 500.

    One draw of :func:`~alphavb.datasets.make_sparse_regression` (four non-zero
    coefficients, noise sd 1) is fitted at each ``alpha`` twice:

    * **the paper's Algorithm 1** (``algorithm="paper"``): the noise level known
      (``noise_variance=1``), the slab rescaled with it (``slab_variance = 1 / alpha``, the
      paper's ``N(0, nu sigma~^2)`` with ``nu = 1``), ``phi`` started at 1 and a joint update
      of the slab means;
    * **our default** (beside it): the noise variance learned, the slab ``N(0, sigma^2)``,
      coordinate updates from three starts.

    Writes ``hdr_coefficients.png`` (one row per algorithm, one panel per ``alpha``: the 500
    posterior means in black, the truth in red, the PIPs as grey bars, a zoom on the first
    ten) and ``hdr_summary.csv`` (per algorithm and ``alpha``: the sweeps to convergence, the
    PIPs of the true variables, the largest null PIP, ``||E[beta] - beta*||_2``, the noise
    variance, the objective and the fit time). ``quick=True`` fits only ``alpha`` = 0.5 and 1.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"`` and the ``"rows"`` of the table.
    """
    from ..plotting import plot_coefficients

    alphas = QUICK_ALPHAS if quick else alphas
    out_dir, plt = _prepare_output(out_dir)
    X, y, truth = make_sparse_regression(random_state=random_state)
    n_samples, n_features = X.shape
    informative = np.flatnonzero(truth)
    algorithms = {
        "paper (Algorithm 1)": lambda alpha: {"algorithm": "paper", "noise_variance": 1.0,
                                              "slab_variance": 1.0 / alpha,
                                              "standardize": False},
        "ours (learned noise)": lambda alpha: {},
    }
    rows = []
    fig, axes = plt.subplots(len(algorithms), len(alphas), figsize=(4.4 * len(alphas), 7.4),
                             sharey=True, squeeze=False)
    for row_axes, (name, settings) in zip(axes, algorithms.items(), strict=True):
        for ax, alpha in zip(row_axes, alphas, strict=True):
            start = time.perf_counter()
            model = AlphaSpikeSlabRegression(alpha=alpha, random_state=random_state,
                                             **settings(alpha)).fit(X, y)
            seconds = time.perf_counter() - start
            pip = model.inclusion_probabilities_
            row = {"algorithm": name, "alpha": alpha, "n_iter": model.n_iter_,
                   "converged": model.converged_}
            row.update({f"pip_x{j}": pip[j] for j in informative})  # x0.. as summary()
            row["max_null_pip"] = np.delete(pip, informative).max()
            row["l2_error"] = np.linalg.norm(model.coef_ - truth)
            row["noise_variance"] = model.noise_variance_
            row["elbo"] = model.elbo_
            row["fit_seconds"] = seconds
            rows.append(row)
            plot_coefficients(ax, model.coef_, truth, pip, zoom=10, legend=ax is axes[0, 0],
                              title=f"{name}, alpha = {alpha:g}\nn = {n_samples}, "
                                    f"d = {n_features}, {model.n_iter_} sweeps")
    fig.suptitle("Spike-and-slab alpha-VB on the paper's Figure 1 problem (truth: 4 non-zero "
                 "coefficients, noise sd 1)", fontsize=10)
    return _save_outputs(plt, fig, out_dir / "hdr_coefficients.png", out_dir / "hdr_summary.csv",
                         rows, FEWER_ALPHAS_STAMP if quick else None)


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

    Beside the paper's model (our extension, labelled as such in the files), the same data
    are fitted without knowing the weights or the covariance, as a scikit-learn user would:

    * a Dirichlet-process mixture with ``K = 10`` and full covariances (scikit-learn's
      default prior, ``w0 = 1/K``), whose sorted weights show how many components each
      ``alpha`` keeps: ``gmm_dp_weights.png`` (bars, log scale) and ``gmm_dp_tied.csv``;
    * a ``K = 3`` mixture with one tied covariance and Dirichlet weights, whose covariance
      should be ``I``: ``gmm_dp_tied.csv``.

    ``gmm_dp_tied.csv`` has per (model, ``alpha``) the sweeps, the components with weight
    above 0.01, the largest distance from a true mean to the nearest of those components'
    means, the largest entry of ``|covariance - I|`` over them, the weights in decreasing
    order, the objective and the fit time.

    ``alpha = 0.1`` is added to the paper's 0.5, 0.95 and 1 to show a strongly tempered fit;
    ``quick=True`` fits only 0.5 and 1.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"``, the ``"rows"`` of the table and all
    ``"files"``.
    """
    from scipy.special import logsumexp
    from scipy.stats import multivariate_normal

    from ..plotting import plot_mixture_density

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

    fig, axes = plt.subplots(1, len(alphas) + 1, figsize=(3.8 * (len(alphas) + 1), 4.6))
    plot_mixture_density(axes[0], true_log_density, X, labels, limits,
                         title=f"truth (n = {len(X)}, K = {n_components}; colour: component)",
                         true_means=true_means, legend=True)
    rows = []
    for ax, alpha in zip(axes[1:], alphas, strict=True):
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
        plot_mixture_density(
            ax, model.score_samples, X, relabel[predicted], limits, true_means=true_means,
            fitted_means=model.means_,
            title=f"alpha = {alpha:g}: predictive density\nsd of q(mu_k) "
                  f"{rows[-1]['mean_sd']:.3f}, mean error {rows[-1]['max_mean_error']:.3f}")
    fig.suptitle("The paper's Figure 2: alpha-VB mixture with known weights and covariance I; "
                 "points coloured by (fitted) component. The densities differ little: "
                 "sd of q(mu_k) ~ 1 / sqrt(alpha n_k)", fontsize=10)
    stamp = FEWER_ALPHAS_STAMP if quick else None
    result = _save_outputs(plt, fig, out_dir / "gmm_density.png",
                           out_dir / "gmm_summary.csv", rows, stamp)
    extension = _gmm_unknown_weights_and_covariance(X, true_means, alphas, random_state,
                                                    out_dir, plt, stamp)
    result["files"] += extension
    return result


def _gmm_unknown_weights_and_covariance(X, true_means, alphas, random_state, out_dir, plt,
                                        stamp):
    """The Dirichlet-process (K = 10, full) and tied (K = 3) fits of :func:`reproduce_gmm`."""
    settings = {
        "dirichlet-process K=10 full": {"n_components": 10, "covariance_type": "full"},
        "tied K=3 dirichlet": {"n_components": 3, "covariance_type": "tied",
                               "weight_concentration_prior_type": "dirichlet_distribution"},
    }
    rows, dp_weights = [], {}
    for name, setting in settings.items():
        for alpha in alphas:
            start = time.perf_counter()
            model = AlphaGaussianMixture(alpha=alpha, max_iter=1000, random_state=random_state,
                                         **setting).fit(X)
            seconds = time.perf_counter() - start
            order = np.argsort(model.weights_)[::-1]
            kept = order[model.weights_[order] > 0.01]
            # (one (2, 2) matrix for "tied", one per component for "full")
            covariances = np.broadcast_to(model.covariances_,
                                          (len(model.weights_), 2, 2))[kept]
            rows.append({
                "model": name, "alpha": alpha, "n_iter": model.n_iter_,
                "converged": model.converged_, "components_above_0.01": len(kept),
                "max_mean_error": float(np.max(np.min(np.linalg.norm(
                    true_means[:, None] - model.means_[kept][None], axis=-1), axis=1))),
                "max_covariance_error": float(np.max(np.abs(covariances - np.eye(2)))),
                "weights": " ".join(f"{w:.2g}" for w in model.weights_[order]),
                "elbo": model.elbo_, "fit_seconds": seconds,
            })
            if model.n_components == 10:
                dp_weights[alpha] = model.weights_[order]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    width = 0.8 / len(dp_weights)
    for shift, (alpha, weights) in enumerate(dp_weights.items()):
        ax.bar(np.arange(1, 11) + (shift - (len(dp_weights) - 1) / 2) * width, weights,
               width=width, label=f"alpha = {alpha:g}")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(1, 11))
    ax.set_xlabel("component, by decreasing weight")
    ax.set_ylabel("E[pi_k] (renormalised)")
    ax.set_title("Dirichlet-process mixture, K = 10, on the 3-component data\n"
                 "(our extension: weights and covariances unknown)", fontsize=9)
    ax.legend(fontsize=8)
    figure, table = out_dir / "gmm_dp_weights.png", out_dir / "gmm_dp_tied.csv"
    _save_outputs(plt, fig, figure, table, rows, stamp)
    return [figure, table]


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

    Beside it, **the paper's own setting** (:func:`_lda_five_documents`): the first 5
    documents of lda-c's ``ap.dat`` (all 54 words of the paper's Table 1 occur in them),
    ``K = 10``, the document-topic prior fixed at ``1/K`` and only the topic-word prior by
    empirical Bayes, each ``alpha`` fitted from ``N_STARTS_FIVE`` random starts. It tests the
    paper's claim that the topics lose coherence as ``alpha`` falls, with two measures per
    start, averaged (+- s.e.): the UMass coherence of each topic's top words (document
    co-occurrence counted on the whole AP corpus, higher is more coherent; over the topics
    that hold words of the 5 documents) and the share of top words a topic keeps from its
    matched ``alpha = 1`` topic. Writes
    ``lda_paper_topics.md`` (the best start's table per ``alpha``, as the paper's Table 1) and
    ``lda_paper_summary.csv``.

    ``quick=True`` fits only ``alpha`` = 0.5 and 1 with 3 sweeps each (and 2 starts of the
    5-document setting).

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
    paper_files, paper_rows = _lda_five_documents(corpus, alphas, n_topics, n_top_words,
                                                  out_dir, random_state, quick)
    return {"table": summary, "files": [topics_md, topics_csv, summary, *paper_files],
            "rows": rows, "paper_rows": paper_rows}


N_STARTS_FIVE = 10


def _umass_coherence(words, document_sets):
    """UMass coherence of a ranked word list: ``sum_{i<j} log((D(w_i, w_j) + 1) / D(w_i))``
    over pairs with ``w_i`` ranked above ``w_j``; ``D`` counts the documents holding the words
    (``document_sets``: word -> set of document indices)."""
    total = 0.0
    for i, upper in enumerate(words):
        for lower in words[i + 1:]:
            together = len(document_sets[upper] & document_sets[lower])
            total += np.log((together + 1.0) / len(document_sets[upper]))
    return total


def _lda_five_documents(corpus, alphas, n_topics, n_top_words, out_dir, random_state, quick):
    """The paper's Table 1 setting (:func:`reproduce_lda`): files and summary rows."""
    from scipy.optimize import linear_sum_assignment

    X = corpus.data[:5]
    names = np.asarray(corpus.feature_names)
    columns = corpus.data.tocsc()
    n_starts = 2 if quick else N_STARTS_FIVE
    with warnings.catch_warnings():  # quick runs stop after 3 sweeps, by design
        warnings.simplefilter("ignore", ConvergenceWarning)
        fits = {alpha: [AlphaLDA(n_topics, alpha=alpha, doc_topic_prior=1.0 / n_topics,
                                 optimize_priors="topic_word", max_iter=3 if quick else 300,
                                 evaluate_every=1, tol=1e-7, random_state=random_state + start)
                        .fit(X) for start in range(n_starts)]
                for alpha in sorted(alphas)}
    top = {alpha: [model.top_words(names, n=n_top_words) for model in models]
           for alpha, models in fits.items()}
    vocabulary = {word for tables in top.values() for table in tables for topic in table
                  for word in topic}
    index = {word: j for j, word in enumerate(names)}
    document_sets = {word: set(columns.indices[columns.indptr[index[word]]:
                                               columns.indptr[index[word] + 1]])
                     for word in vocabulary}
    reference = top[max(top)]
    rows, markdown = [], [
        f"# The paper's Table 1 setting: the first 5 AP documents, K = {n_topics}\n",
        (f"Top {n_top_words} words per topic; document-topic prior 1/K, topic-word prior by "
         f"empirical Bayes; the best of {n_starts} starts by objective. Coherence: UMass, "
         "documents of the whole AP corpus; overlap: share of a topic's top words in its "
         "matched alpha = 1 topic (same start).\n")]
    for alpha, models in fits.items():
        # topics that hold at least one word of the 5 documents (the others keep the prior,
        # whose ties make their "top words" arbitrary)
        used = [model.components_.sum(axis=1) - X.shape[1] * model.topic_word_prior_ >= 1.0
                for model in models]
        coherence = [np.mean([_umass_coherence(topic, document_sets)
                              for topic, kept in zip(table, mask, strict=True) if kept])
                     for table, mask in zip(top[alpha], used, strict=True)]
        overlap = []
        for table, base in zip(top[alpha], reference, strict=True):
            shared = np.array([[len(set(a) & set(b)) for b in base] for a in table])
            rows_matched, cols_matched = linear_sum_assignment(-shared)
            overlap.append(shared[rows_matched, cols_matched].mean() / n_top_words)
        best = int(np.argmax([model.elbo_ for model in models]))
        rows.append({
            "alpha": alpha, "n_starts": n_starts,
            "umass_coherence": float(np.mean(coherence)),
            "umass_coherence_se": float(np.std(coherence, ddof=1) / np.sqrt(n_starts)),
            "overlap_with_alpha_1": float(np.mean(overlap)),
            "overlap_with_alpha_1_se": float(np.std(overlap, ddof=1) / np.sqrt(n_starts)),
            "topics_used": float(np.mean([mask.sum() for mask in used])),
            "topic_word_prior": float(np.mean([m.topic_word_prior_ for m in models])),
            "mean_sweeps": float(np.mean([m.n_iter_ for m in models])),
            "best_elbo": float(models[best].elbo_),
        })
        markdown.append(f"\n## alpha = {alpha:g} (UMass coherence "
                        f"{rows[-1]['umass_coherence']:.2f} +- "
                        f"{rows[-1]['umass_coherence_se']:.2f})\n\n| topic | "
                        + " | ".join(f"word {i + 1}" for i in range(n_top_words))
                        + " |\n|" + "---|" * (n_top_words + 1))
        for k, (topic, kept) in enumerate(zip(top[alpha][best], used[best], strict=True)):
            words = topic if kept else ["(no words: the prior)"] + [""] * (n_top_words - 1)
            markdown.append(f"| {k + 1} | " + " | ".join(words) + " |")
    table, text = out_dir / "lda_paper_summary.csv", out_dir / "lda_paper_topics.md"
    _write_csv(table, rows)
    text.write_text("\n".join(markdown) + "\n", encoding="utf-8")
    return [text, table], rows
