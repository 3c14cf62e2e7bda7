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

from .._estimates import (
    coefficient_estimates,
    match_means,
    mixture_mean_estimates,
    topic_word_estimates,
)
from ..datasets import make_gmm, make_lda_corpus, make_sparse_regression
from ..divergences import hellinger_categorical
from ..risk import lda_risk, logistic_risk, mixture_risk, regression_risk

ESTIMATE_FIELDS = ("estimate", "se", "lower", "upper", "true")


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
    worker processes. Their code (bytecode, constants, defaults; a closure's captured values,
    a ``functools.partial``'s arguments) is part of a study's cache key, so editing one
    invalidates the rows it produced; the module globals a function reads are not, so what
    varies between studies belongs in ``settings`` or the grid.
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
    _, cost = match_means(truth["means"], model.means_)
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
