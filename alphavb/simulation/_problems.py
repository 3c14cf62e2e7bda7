"""The data-generating problems of a simulation study: :class:`Problem` and the paper's five.

A problem simulates data and its truth and scores a fit: the variational Bayes risk, the
error of the point estimate and, through its ``estimates`` hook, one row per parameter with
the estimate, posterior standard deviation, the estimator's own credible interval and the
true value, from which :func:`~alphavb.simulation.summarise_study` computes bias, empirical
and model standard errors and coverage (Morris, White & Crowther 2019, Table 6).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import beta as beta_distribution
from scipy.stats import norm

from .._special import bisect_quantile
from ..datasets import make_gmm, make_lda_corpus, make_sparse_regression
from ..divergences import hellinger_categorical
from ..risk import lda_risk, logistic_risk, mixture_risk, regression_risk

ESTIMATE_FIELDS = ("estimate", "se", "lower", "upper", "true")
# draws of q behind the Monte-Carlo intervals of models whose marginals have no closed form
# here (a mixture q of the logistic model is exact; these are the mixtures other than
# "fixed" and estimators known only through sample_posterior); a fixed seed keeps them
# reproducible
INTERVAL_DRAWS = 4000


@dataclass(frozen=True)
class Problem:
    """A data-generating model, the truth it returns and the VB risk of a fit to it.

    Parameters
    ----------
    name : str
        Identifies the problem in cache keys.
    simulate : callable
        ``simulate(n_samples, random_state, **settings)`` returns ``(X, y, truth)``:
        the data (``y`` is None for unsupervised models) and a dict of true parameters.
    risk : callable
        ``risk(model, X, truth, n_draws, random_state)``: the variational Bayes risk.
    error : callable
        ``error(model, truth)``: the error of the fit's point estimate.
    settings : dict
        Default keyword arguments of ``simulate``; a grid can vary any of them.
    estimates : callable or None, default=None
        ``estimates(model, truth, level)`` returns a dict of equal-length 1-d arrays:
        ``"estimate"`` (the posterior mean), ``"se"`` (the posterior standard deviation),
        ``"lower"`` and ``"upper"`` (the estimator's equal-tailed ``level`` credible
        interval), ``"true"`` and, optionally, ``"parameter"`` (names; default
        ``"theta[i]"``). :func:`~alphavb.simulation.run_study` keeps them per fit and
        parameter. None: the study has no per-parameter rows.

    Notes
    -----
    The functions must be module-level so that the problem pickles to joblib's (and dask's)
    worker processes. Their code (bytecode, constants, defaults) is part of a study's cache
    key, so editing one invalidates the rows it produced.
    """

    name: str
    simulate: Callable
    risk: Callable
    error: Callable
    settings: dict = field(default_factory=dict)
    estimates: Callable | None = None


def check_estimates(problem, values):
    """The ``estimates`` hook's dict as float arrays plus names; ``ValueError`` if malformed."""
    if not isinstance(values, dict) or not set(ESTIMATE_FIELDS) <= set(values):
        raise ValueError(f"The estimates hook of problem {problem.name!r} must return a dict "
                         f"with keys {list(ESTIMATE_FIELDS)} (and optionally 'parameter'); "
                         f"got {type(values).__name__} "
                         f"{sorted(values) if isinstance(values, dict) else ''}.")
    arrays = {name: np.asarray(values[name], dtype=float).ravel() for name in ESTIMATE_FIELDS}
    size = arrays["estimate"].size
    if any(array.size != size for array in arrays.values()):
        raise ValueError(f"The estimates hook of problem {problem.name!r} returned arrays of "
                         f"sizes { {k: v.size for k, v in arrays.items()} }; they must be "
                         "equal (one entry per parameter).")
    names = values.get("parameter")
    names = ([f"theta[{i}]" for i in range(size)] if names is None
             else [str(name) for name in names])
    if len(names) != size:
        raise ValueError(f"The estimates hook of problem {problem.name!r} returned {len(names)} "
                         f"parameter names for {size} estimates.")
    return names, arrays


# ------------------------------------------------------------ marginals of q, per parameter


def _normal_mixture_quantiles(weights, means, sds, probabilities):
    """Quantiles of ``sum_c w_c N(m_cj, s_cj^2)`` for every coordinate ``j`` (bisection to
    1e-12 of the largest sd). ``means`` and ``sds`` have shape (n_components, n_params)."""
    weights = np.asarray(weights, dtype=float)[:, None]

    def cdf(x):
        return np.sum(weights * norm.cdf((x - means) / sds), axis=0)

    low, high = (means - 40 * sds).min(axis=0), (means + 40 * sds).max(axis=0)
    brackets = [bisect_quantile(cdf, p, low, high, 1e-12 * sds.max(axis=0))
                for p in probabilities]
    return [0.5 * (lo + hi) for lo, hi in brackets]


def _draw_summaries(draws, level):
    """Mean, sd and equal-tailed interval of each column of ``draws`` (n_draws, n_params)."""
    tail = 0.5 - 0.5 * level
    lower, upper = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    return draws.mean(axis=0), draws.std(axis=0, ddof=1), lower, upper


def coefficient_estimates(model, truth, level):
    """Per coefficient ``beta_j``: posterior mean, sd and the ``level`` credible interval.

    * :class:`~alphavb.AlphaLinearRegression`, :class:`~alphavb.AlphaSpikeSlabRegression`
      and :class:`~alphavb.AlphaSpikeSlabClassifier`: their ``summary`` columns (exact
      marginals of ``q``; the spike-and-slab interval has the atom at 0);
    * :class:`~alphavb.AlphaLogisticRegression`: the marginals of its Gaussian (or mixture of
      Gaussians) ``q``, exact (mixture quantiles by bisection);
    * any other estimator with ``sample_posterior``: the mean, sd and quantiles of
      ``INTERVAL_DRAWS`` draws of ``"coef"`` (seed 0).

    The intercept is not a parameter of the problems (their truth has none).
    """
    true = np.ravel(truth["coef"])
    d = true.size
    if hasattr(model, "_summary_columns"):
        columns = model._summary_columns(level)
        estimate, se = columns["coef"], columns["sd"]
        lower, upper = columns["lower"], columns["upper"]
    elif hasattr(getattr(model, "vb_", None), "covariance_"):
        vb = model.vb_
        # q is over the coefficients of the standardized columns: beta_j = coef_j / sd_j
        scale = np.asarray(getattr(model, "column_scale_", np.ones(d)))
        means = np.asarray(vb.mean_)[:, :d] / scale
        variances = np.diagonal(np.asarray(vb.covariance_), axis1=1, axis2=2)[:, :d] / scale**2
        weights = np.asarray(vb.weights_)
        estimate = weights @ means
        se = np.sqrt(weights @ (variances + means**2) - estimate**2)
        tail = 0.5 - 0.5 * level
        if len(weights) == 1:
            z = norm.ppf(1.0 - tail)
            lower, upper = estimate - z * se, estimate + z * se
        else:
            lower, upper = _normal_mixture_quantiles(weights, means, np.sqrt(variances),
                                                     (tail, 1.0 - tail))
    else:
        draws = np.asarray(model.sample_posterior(INTERVAL_DRAWS, random_state=0)["coef"])
        estimate, se, lower, upper = _draw_summaries(draws.reshape(INTERVAL_DRAWS, -1), level)
    return {"parameter": [f"coef[{j}]" for j in range(d)], "estimate": estimate, "se": se,
            "lower": lower, "upper": upper, "true": true}


def _match_means(true_means, fitted_means):
    """For each true component, the fitted component assigned to it by the matching that
    minimizes the total squared distance (labels are arbitrary)."""
    from scipy.optimize import linear_sum_assignment

    if len(fitted_means) < len(true_means):
        raise ValueError(f"the fitted mixture has {len(fitted_means)} components and the truth "
                         f"{len(true_means)}: fit n_components >= {len(true_means)} so that "
                         "every true component has a fitted one to match")
    cost = np.sum((true_means[:, None] - fitted_means[None]) ** 2, axis=-1)
    rows, cols = linear_sum_assignment(cost)
    return cols[np.argsort(rows)], cost[rows, cols]


def mixture_mean_estimates(model, truth, level):
    """Per coordinate of each component mean ``mu_kj``, in the order of the true components,
    the fitted component matched to each (the assignment of least squared distance).

    With ``covariance_type="fixed"`` the marginal ``q(mu_k) = N(means_k,
    mean_covariances_k)`` is exact; for the other covariance types ``q(mu_k)`` is a Student t
    given by draws of ``sample_posterior`` (``INTERVAL_DRAWS``, seed 0).
    """
    true = np.asarray(truth["means"])
    order, _ = _match_means(true, model.means_)
    estimate = model.means_[order]
    if hasattr(model, "mean_covariances_"):  # the known-covariance family: q(mu_k) exact
        se = np.sqrt(np.diagonal(model.mean_covariances_, axis1=1, axis2=2))[order]
        z = norm.ppf(0.5 + 0.5 * level)
        lower, upper = estimate - z * se, estimate + z * se
    else:
        draws = model.sample_posterior(INTERVAL_DRAWS, random_state=0)["means"][:, order]
        _, se, lower, upper = _draw_summaries(draws.reshape(INTERVAL_DRAWS, -1), level)
        se, lower, upper = (a.reshape(true.shape) for a in (se, lower, upper))
    names = [f"means[{k},{j}]" for k in range(true.shape[0]) for j in range(true.shape[1])]
    return {"parameter": names, "estimate": estimate.ravel(), "se": np.ravel(se),
            "lower": np.ravel(lower), "upper": np.ravel(upper), "true": true.ravel()}


def topic_word_estimates(model, truth, level):
    """Per topic-word probability ``beta_kv``: the marginal ``Beta(lambda_kv, sum_v lambda_kv
    - lambda_kv)`` of ``q(beta_k) = Dirichlet(lambda_k)`` (``components_``), exact mean, sd
    and quantiles, for the fitted topic matched to each true topic (the assignment of least
    total squared Hellinger distance)."""
    from scipy.optimize import linear_sum_assignment

    true = np.asarray(truth["topic_word"])
    lam = np.asarray(model.components_, dtype=float)
    if len(lam) < len(true):
        raise ValueError(f"the fitted model has {len(lam)} topics and the truth {len(true)}: "
                         f"fit n_components >= {len(true)} so that every true topic has a "
                         "fitted one to match")
    totals = lam.sum(axis=1, keepdims=True)
    cost = np.array([hellinger_categorical(lam / totals, row[None]) for row in true])
    rows, cols = linear_sum_assignment(cost)
    a = lam[cols[np.argsort(rows)]]
    b = totals[cols[np.argsort(rows)]] - a
    estimate = a / (a + b)
    se = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    tail = 0.5 - 0.5 * level
    lower, upper = beta_distribution.ppf(tail, a, b), beta_distribution.ppf(1.0 - tail, a, b)
    names = [f"topic_word[{k},{v}]" for k in range(true.shape[0]) for v in range(true.shape[1])]
    return {"parameter": names, "estimate": estimate.ravel(), "se": se.ravel(),
            "lower": lower.ravel(), "upper": upper.ravel(), "true": true.ravel()}


# ------------------------------------------------------------------ the paper's problems


def _simulate_linear_regression(n_samples, random_state, n_features, noise,
                                heteroscedasticity=0.0):
    rng = np.random.RandomState(random_state)
    coef = np.linspace(0.5, 2.0, n_features) * np.where(np.arange(n_features) % 2, -1, 1)
    X = rng.standard_normal((n_samples, n_features))
    # sd_i^2 = noise^2 (1 + h x_i1^2) / (1 + h): the average variance stays noise^2
    scale = np.sqrt((1.0 + heteroscedasticity * X[:, 0] ** 2) / (1.0 + heteroscedasticity))
    y = X @ coef + noise * scale * rng.standard_normal(n_samples)
    return X, y, {"coef": coef, "noise_variance": noise**2}


def _simulate_sparse_regression(n_samples, random_state, n_features, n_informative, noise):
    X, y, coef = make_sparse_regression(n_samples, n_features, n_informative, noise=noise,
                                        random_state=random_state)
    return X, y, {"coef": coef, "noise_variance": noise**2}


def _regression_risk(model, X, truth, n_draws, random_state):
    return regression_risk(model, X, truth["coef"], truth["noise_variance"], n_draws=n_draws,
                           random_state=random_state)


def _coef_error(model, truth):
    """``||E_q[beta] - beta*||_2`` (the intercept, if any, is left out)."""
    return float(np.linalg.norm(np.ravel(model.coef_) - truth["coef"]))


def _simulate_logistic_regression(n_samples, random_state, n_features, scale):
    from scipy.special import expit

    rng = np.random.RandomState(random_state)
    coef = scale * np.linspace(-1.0, 1.0, n_features)
    X = rng.standard_normal((n_samples, n_features))
    y = (rng.random_sample(n_samples) < expit(X @ coef)).astype(int)
    return X, y, {"coef": coef}


def _logistic_risk(model, X, truth, n_draws, random_state):
    return logistic_risk(model, X, truth["coef"], n_draws=n_draws, random_state=random_state)


def _simulate_gaussian_mixture(n_samples, random_state, n_components, n_features, mean_scale,
                               means_seed=None):
    # means_seed fixes the means across replications (a fixed truth, as a coverage study
    # needs for its empirical SE); None redraws them with the data
    if means_seed is not None:
        _, _, means = make_gmm(n_components, n_components, n_features, mean_scale=mean_scale,
                               random_state=means_seed)
        rng = np.random.RandomState(random_state)
        labels = rng.randint(n_components, size=n_samples)
        X = means[labels] + rng.standard_normal((n_samples, n_features))
        return X, None, {"means": means}
    X, _, means = make_gmm(n_samples, n_components, n_features, mean_scale=mean_scale,
                           random_state=random_state)
    return X, None, {"means": means}


def _mixture_risk(model, X, truth, n_draws, random_state):
    return mixture_risk(model, truth["means"], n_draws=n_draws, random_state=random_state)


def _matched_mean_error(model, truth):
    """Root mean squared distance between the true means and the fitted ones, matched by
    the assignment that minimizes it (labels are arbitrary)."""
    _, cost = _match_means(truth["means"], model.means_)
    return float(np.sqrt(cost.mean()))


def _simulate_lda(n_samples, random_state, n_documents, n_topics, n_words, topic_word_prior):
    X, doc_topic, topic_word = make_lda_corpus(n_documents, n_topics, n_words, n_samples,
                                               topic_word_prior=topic_word_prior,
                                               random_state=random_state)
    return X, None, {"doc_topic": doc_topic, "topic_word": topic_word, "X": X}


def _lda_risk(model, X, truth, n_draws, random_state):
    return lda_risk(model, X, truth["doc_topic"], truth["topic_word"], n_draws=n_draws,
                    random_state=random_state)


def _lda_plug_in_error(model, truth):
    """Mean over documents of the squared Hellinger distance between the plug-in word
    distribution ``E[theta_d]' E[beta]`` and the true ``theta*_d' beta*``."""
    doc_topic = model.transform(truth["X"])
    topics = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return float(np.mean(hellinger_categorical(doc_topic @ topics,
                                               truth["doc_topic"] @ truth["topic_word"])))


def linear_regression_problem(n_features=5, noise=1.0, heteroscedasticity=0.0):
    """Low-dimensional linear regression with a Gaussian design (Cor. 4.1).

    ``X`` has independent N(0, 1) entries and ``y = X beta* + sd(x) eps``, with ``beta*``
    evenly spaced in magnitude from 0.5 to 2 with alternating signs and ``sd(x)^2 = noise^2
    (1 + h x_1^2) / (1 + h)``, ``h = heteroscedasticity`` (0: the model is correct; h > 0:
    misspecified, the noise grows with the first covariate while its average stays
    ``noise^2``, so the model-based variance of ``beta_1`` is too small by the sandwich factor
    ``(1 + 3h) / (1 + h)``). Risk: :func:`~alphavb.risk.regression_risk` on the training
    design against ``N(x' beta*, noise^2)`` (with h > 0, the homoscedastic model closest to
    the truth in Kullback-Leibler divergence); error: ``||E_q[beta] - beta*||_2``;
    estimates: the coefficients (:func:`coefficient_estimates`). Rate: ``d log(d n) / n``.
    """
    return Problem("linear_regression", _simulate_linear_regression, _regression_risk,
                   _coef_error, {"n_features": n_features, "noise": noise,
                                 "heteroscedasticity": heteroscedasticity},
                   coefficient_estimates)


def spike_slab_problem(n_features=200, n_informative=4, noise=1.0):
    """Sparse regression as in the paper's Figure 1 (Cor. 4.2).

    :func:`~alphavb.datasets.make_sparse_regression` (``s = n_informative`` coefficients
    from 1.5 to 3, the rest 0). Risk: :func:`~alphavb.risk.regression_risk`; error:
    ``||E_q[beta] - beta*||_2``; estimates: every coefficient, zero or not
    (:func:`coefficient_estimates`). Rate: ``s log(d n) / n``.
    """
    return Problem("spike_slab", _simulate_sparse_regression, _regression_risk, _coef_error,
                   {"n_features": n_features, "n_informative": n_informative, "noise": noise},
                   coefficient_estimates)


def logistic_regression_problem(n_features=3, scale=1.5):
    """Logistic regression with a Gaussian design, a regular parametric model (Cor. 4.3,
    D.1): ``beta*`` evenly spaced in ``[-scale, scale]``, no intercept. Risk:
    :func:`~alphavb.risk.logistic_risk`; error: ``||E_q[beta] - beta*||_2``; estimates: the
    coefficients (:func:`coefficient_estimates`). Rate: ``d log(d n) / n``.
    """
    return Problem("logistic_regression", _simulate_logistic_regression, _logistic_risk,
                   _coef_error, {"n_features": n_features, "scale": scale},
                   coefficient_estimates)


def gaussian_mixture_problem(n_components=3, n_features=2, mean_scale=5.0, means_seed=None):
    """The paper's Gaussian mixture (Figure 2, Cor. 4.4): :func:`~alphavb.datasets.make_gmm`,
    equal weights and identity covariances, means redrawn each replication (or, with
    ``means_seed``, drawn once from that seed and kept). Risk:
    :func:`~alphavb.risk.mixture_risk`; error: the root mean squared distance between
    matched true and fitted means; estimates: the matched means
    (:func:`mixture_mean_estimates`). Rate: ``d K log(d n) / n``.
    """
    settings = {"n_components": n_components, "n_features": n_features,
                "mean_scale": mean_scale}
    if means_seed is not None:
        settings["means_seed"] = means_seed
    return Problem("gaussian_mixture", _simulate_gaussian_mixture, _mixture_risk,
                   _matched_mean_error, settings, mixture_mean_estimates)


def lda_problem(n_documents=50, n_topics=3, n_words=40, topic_word_prior=0.1):
    """LDA corpora of ``n_documents`` documents whose mean length is the study's
    ``n_samples`` (Cor. 4.5): :func:`~alphavb.datasets.make_lda_corpus`. The per-document
    topic proportions are estimated from that document's words alone, so the risk
    (:func:`~alphavb.risk.lda_risk`) falls with the document length. Error: the same
    divergence at the plug-in estimate ``E[theta_d]' E[beta]``; estimates: the topic-word
    probabilities of the matched topics (:func:`topic_word_estimates`).
    """
    return Problem("lda", _simulate_lda, _lda_risk, _lda_plug_in_error,
                   {"n_documents": n_documents, "n_topics": n_topics, "n_words": n_words,
                    "topic_word_prior": topic_word_prior}, topic_word_estimates)


PROBLEMS = {"linear_regression": linear_regression_problem, "spike_slab": spike_slab_problem,
            "logistic_regression": logistic_regression_problem,
            "gaussian_mixture": gaussian_mixture_problem, "lda": lda_problem}
