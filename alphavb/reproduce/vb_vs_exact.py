"""How far alpha-VB is from the exact alpha-posterior it approximates, at several alpha.

For each problem and each ``alpha`` the variational fit and the exact sampler of
:mod:`alphavb.exact` run on the same model, prior and data (:func:`alphavb.exact.
compare_to_exact`), and the summary keeps the largest PIP error, the median sd ratio
(variational over exact), the smallest exact mass of a variational 95% interval, and the
times. Problems: the paper's Figure 1 design (spike-and-slab regression, n = 100, d = 500,
Yang, Pati & Bhattacharya 2020, Sec. 5.1), susieR's N3finemapping genotypes with its two
responses (574 x 1,001, real LD; Wang et al. 2020), varbvs's Leukemia data (logistic
spike-and-slab, 72 x 3,571, the vignette's slab ``sa = 1`` on the raw columns and its 21
prior log-odds), the paper's Figure 2 mixture (n = 1000, K = 3; its model with known
weights and covariance, and beside it full covariances with Dirichlet weights) and LDA on
the first 5 AP documents (the paper's Table 1 corpus, on the 673 words they use, K = 3: the
paper's K = 10 has 6,765 parameters, more than the NUTS samplers take, and with that limit
raised took 127 leapfrog steps a draw against K = 3's 31). Mixtures and LDA have no PIPs;
their first measure is the largest error of a variational mean in exact sds. Whether
tempering brings mean-field VB closer to its own target is the question the papers leave
open.
"""

import time
import warnings

import numpy as np

from ..datasets import load_ap, load_leukemia, load_n3finemapping, make_gmm, make_sparse_regression
from ..linear_model import AlphaSpikeSlabClassifier, AlphaSpikeSlabRegression
from ..mixture import AlphaGaussianMixture
from ..topics import AlphaLDA
from ._output import FEWER_ALPHAS_STAMP, _prepare_output, _save_figure, _write_csv
from .varbvs import VIGNETTE_LOG_ODDS

VB_VS_EXACT_ALPHAS = (0.25, 0.5, 0.8, 1.0)
# the quick run's LDA keeps this many words of its two documents
QUICK_LDA_WORDS = 100


def _problems(quick, data_home, random_state):
    """(name, estimator at alpha -> model, X, y, sampling settings)."""
    X, y, _ = make_sparse_regression(random_state=random_state)
    problems = [("figure-1 (100 x 500)",
                 lambda alpha: AlphaSpikeSlabRegression(alpha=alpha,
                                                        random_state=random_state),
                 X, y, {"n_draws": 500 if quick else 2000, "thin": 1 if quick else 5})]
    n3 = load_n3finemapping(data_home)
    genotypes, responses = n3.data, n3.target
    if quick:  # the first 200 variables of the region
        genotypes = genotypes[:, :200]
    for k in range(1 if quick else responses.shape[1]):
        n_rows, n_columns = genotypes.shape
        problems.append((f"N3finemapping y{k + 1} ({n_rows} x {n_columns})",
                         lambda alpha: AlphaSpikeSlabRegression(alpha=alpha,
                                                                random_state=random_state),
                         genotypes, responses[:, k],
                         {"n_draws": 300 if quick else 2000, "thin": 1 if quick else 5}))
    leukemia = load_leukemia(data_home)
    grid = VIGNETTE_LOG_ODDS[::5] if quick else VIGNETTE_LOG_ODDS
    problems.append((f"Leukemia ({leukemia.data.shape[0]} x {leukemia.data.shape[1]})",
                     lambda alpha: AlphaSpikeSlabClassifier(
                         alpha=alpha, prior_log_odds=grid, slab_variance=1.0,
                         standardize=False, random_state=random_state),
                     leukemia.data, leukemia.target,
                     {"n_draws": 300, "thin": 1, "n_chains": 2} if quick
                     else {"n_draws": 2000, "thin": 5}))
    # NUTS draws are far less autocorrelated than the Gibbs sweeps: no thinning
    nuts = {"n_draws": 200, "thin": 1, "n_chains": 2} if quick else {"n_draws": 2000,
                                                                      "thin": 1}
    X, _, _ = make_gmm(random_state=random_state)
    weights = np.full(3, 1.0 / 3.0)
    problems.append(("Figure-2 mixture, paper's model (1000 x 2, K = 3)",
                     lambda alpha: AlphaGaussianMixture(
                         3, alpha=alpha, covariance_type="fixed", fixed_weights=weights,
                         mean_prior=np.zeros(2), random_state=random_state),
                     X, None, nuts))
    if not quick:
        problems.append(("Figure-2 mixture, full covariances, Dirichlet weights",
                         lambda alpha: AlphaGaussianMixture(
                             3, alpha=alpha, weight_concentration_prior_type=
                             "dirichlet_distribution", random_state=random_state),
                         X, None, nuts))
    documents = load_ap(data_home).data[:2 if quick else 5]
    counts = np.asarray(documents.sum(axis=0)).ravel()
    used = np.flatnonzero(counts)
    n_documents = documents.shape[0]
    name = f"LDA, first {n_documents} AP documents"
    if quick:  # their most frequent words only: NUTS's time grows with the words
        used = np.sort(used[np.argsort(-counts[used], kind="stable")[:QUICK_LDA_WORDS]])
        name += f", {QUICK_LDA_WORDS} most frequent words"
    name += f" ({n_documents} x {len(used)}, K = 3)"
    problems.append((name,
                     lambda alpha: AlphaLDA(3, alpha=alpha, doc_topic_prior=1.0 / 3.0,
                                            optimize_priors="topic_word", max_iter=300,
                                            random_state=random_state),
                     documents[:, used], None, nuts))
    return problems


def reproduce_vb_vs_exact(out_dir="results/vb-vs-exact", random_state=0,
                          alphas=VB_VS_EXACT_ALPHAS, quick=False, data_home=None):
    """Variational against exact alpha-posteriors (module docstring), at each ``alpha``.

    Every comparison runs 4 chains and takes 4,000 draws of ``q``: the Gibbs samplers
    10,000 sweeps each after 1,000 of tuning, every fifth kept (2,000 draws per chain), NUTS
    2,000 draws after 1,000 of tuning. Writes ``vb_vs_exact.csv`` (one row per problem and
    alpha; ``vb_seconds`` is one variational fit, ``exact_seconds`` the sampler and the
    comparison: the comparison's time less one fit), ``vb_vs_exact_parameters.csv`` (every
    parameter's row of :func:`~alphavb.exact.compare_to_exact`) and ``vb_vs_exact.png`` (the
    four measures against alpha, a line per problem). ``quick=True``: alpha 0.5 and 1,
    300-500 draws per chain without thinning (Leukemia: 2 chains; NUTS: 2 chains of 200),
    200 tuning steps, the first response and 200 variables of N3finemapping, every fifth
    log-odds of Leukemia's grid, the paper's mixture model only, LDA on the first 2
    documents' 100 most frequent words.

    Returns
    -------
    dict with ``"files"`` and ``"rows"``.
    """
    from ..exact import MixingWarning, compare_to_exact

    out_dir, plt = _prepare_output(out_dir)
    alphas = (0.5, 1.0) if quick else tuple(alphas)
    n_tune = 200 if quick else 1000
    rows, parameters = [], []
    for name, make, X, y, sampling in _problems(quick, data_home, random_state):
        for alpha in alphas:
            vb_seconds = _time_fit(make(alpha), X, y)
            start = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", MixingWarning)
                frame = compare_to_exact(make(alpha), X, y, n_tune=n_tune,
                                         random_state=random_state, **sampling)
            compare_seconds = time.perf_counter() - start
            pips = "exact_pip" in frame
            rows.append({
                "problem": name, "alpha": alpha,
                "largest_pip_error": frame.attrs["largest_pip_error"],
                "largest_mean_error": frame.attrs["largest_mean_error"],
                "median_sd_ratio": frame.attrs["median_sd_ratio"],
                "smallest_interval_mass": frame.attrs["smallest_interval_mass"],
                "mean_abs_pip_error": (float(np.nanmean(np.abs(frame["vb_pip"]
                                                                - frame["exact_pip"])))
                                       if pips else np.nan),
                "largest_pip_error_se": (float(frame["exact_pip_se"].max()) if pips
                                         else np.nan),
                "vb_seconds": vb_seconds, "exact_seconds": compare_seconds - vb_seconds,
                "n_draws": sampling["n_draws"] * sampling.get("n_chains", 4),
                "thin": sampling["thin"],
                "mixing_warning": "; ".join(str(w.message) for w in caught
                                            if issubclass(w.category, MixingWarning)),
            })
            parameters.extend({"problem": name, "alpha": alpha, "parameter": index,
                               **frame.loc[index].to_dict()} for index in frame.index)
            print(f"{name}, alpha={alpha}: {frame.attrs['summary']}")
    files = [out_dir / "vb_vs_exact.csv", out_dir / "vb_vs_exact_parameters.csv",
             out_dir / "vb_vs_exact.png"]
    _write_csv(files[0], rows)
    _write_csv(files[1], parameters)
    _figure(plt, rows, files[2], FEWER_ALPHAS_STAMP if quick else None)
    return {"files": files, "rows": rows}


def _time_fit(model, X, y):
    """Seconds of one variational fit."""
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def _figure(plt, rows, path, stamp):
    measures = (("largest_pip_error", "largest |PIP error| (spike-and-slab)"),
                ("largest_mean_error", "largest |VB mean - exact mean| / exact sd"),
                ("median_sd_ratio", "median sd ratio (VB / exact)"),
                ("smallest_interval_mass", "smallest exact mass of a 95% VB interval"))
    # a fifth, empty panel holds the legend (on the curves it hid them)
    fig, axes = plt.subplots(1, 5, figsize=(21, 4.4),
                             gridspec_kw={"width_ratios": [1, 1, 1, 1, 0.9]})
    for problem in dict.fromkeys(row["problem"] for row in rows):
        mine = [row for row in rows if row["problem"] == problem]
        for ax, (key, _) in zip(axes[:4], measures, strict=True):
            ax.plot([row["alpha"] for row in mine], [row[key] for row in mine], "o-",
                    label=problem)
    for ax, (_, label) in zip(axes[:4], measures, strict=True):
        ax.set_xlabel("alpha")
        ax.set_title(label, fontsize=10)
    axes[1].set_yscale("log")
    axes[2].axhline(1.0, color="grey", lw=0.8)
    axes[3].axhline(0.95, color="grey", lw=0.8)
    axes[4].axis("off")
    axes[4].legend(*axes[0].get_legend_handles_labels(), loc="center left", fontsize=8,
                   frameon=False)
    fig.suptitle("alpha-VB against its exact alpha-posterior")
    _save_figure(plt, fig, path, stamp)
    plt.close(fig)
