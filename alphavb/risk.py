r"""The variational Bayes risk of a fitted model (Yang, Pati & Bhattacharya 2020).

The paper bounds the *variational Bayes risk*

    R(q) = \int r(theta, theta*) q(d theta),

the average over the fitted ``q`` of a divergence ``r`` between the model at ``theta`` and at
the truth ``theta*`` (their Theorems 3.1-3.2 and Corollaries 4.1-4.5): the squared Hellinger
distance, as in the paper, or the Rényi divergence of an order in (0, 1)
(:mod:`alphavb.divergences`). For models whose observations are not identically distributed
(regression with a fixed design, documents of LDA) ``r`` is the average over the
observations, ``r(theta, theta*) = (1/n) sum_i h^2(p_{theta,i}, p_{theta*,i})``.

Each function draws ``theta`` with the model's public ``sample_posterior`` and averages ``r``
over the draws:

* :func:`regression_risk` for :class:`~alphavb.AlphaLinearRegression` and
  :class:`~alphavb.AlphaSpikeSlabRegression` (fixed design, Cor. 4.1-4.2);
* :func:`logistic_risk` for :class:`~alphavb.AlphaLogisticRegression` (Cor. 4.3, D.1);
* :func:`mixture_risk` for :class:`~alphavb.AlphaGaussianMixture` (Cor. 4.4; the divergence
  between two mixture densities is itself a Monte-Carlo average over draws from the truth);
* :func:`lda_risk` for :class:`~alphavb.AlphaLDA` (Cor. 4.5; per document, the distribution
  of one word, ``theta_d' beta``).
"""

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    Integer,
    Options,
    Real,
    bad_parameter,
    check_probabilities,
    validate_params,
)
from .blackbox import AlphaLogisticRegression
from .divergences import (
    DIVERGENCES,
    categorical_divergence,
    log_ratio_divergence,
    mixture_log_density,
    normal_divergence,
)
from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression
from .mixture import AlphaGaussianMixture
from .mixture._families import family_of
from .topics import AlphaLDA

__all__ = ["lda_risk", "logistic_risk", "mixture_risk", "regression_risk"]

# --------------------------------------------------------------- risk of fitted models


# the constraints every risk function declares (alphavb._validation)
_RISK_CONSTRAINTS = {"n_draws": [Integer(1, None)], "divergence": [Options(*DIVERGENCES)],
                     "order": [Real(0.0, 1.0, closed="neither")]}
_RISK_HINTS = {"order": "The Rényi order must lie in (0, 1)."}


def _check_model(owner, model, model_class):
    """The fitted model (a fitted AlphaSelector's best estimator), refusing a model of
    another class, or one not fitted."""
    from .base import fitted_model

    model = fitted_model(model)
    if not isinstance(model, model_class):
        classes = model_class if isinstance(model_class, tuple) else (model_class,)
        names = " or ".join(c.__name__ for c in classes)
        raise bad_parameter(owner, "model", f"a fitted {names}", type(model).__name__,
                             "Each model has its own risk function (see alphavb.risk).")
    check_is_fitted(model)
    return model


def _check_design(owner, X, n_features):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != n_features or X.shape[0] == 0 or not np.all(
            np.isfinite(X)):
        raise bad_parameter(owner, "X", f"a finite non-empty array of shape (n, {n_features})"
                             " (the design the model was fitted to)", f"shape {X.shape}")
    return X


def _check_true_vector(owner, name, value, size):
    value = np.asarray(value, dtype=float)
    if value.shape != (size,) or not np.all(np.isfinite(value)):
        raise bad_parameter(owner, name, f"a finite array of shape ({size},)",
                             f"shape {value.shape}")
    return value


@validate_params({**_RISK_CONSTRAINTS, "noise_variance": [Real(0.0, None, closed="neither")],
                  "intercept": [Real(None, None)]}, _RISK_HINTS)
def regression_risk(model, X, coef, noise_variance, intercept=0.0, n_draws=200,
                    divergence="hellinger", order=0.5, random_state=None):
    """Variational Bayes risk of a fitted linear regression with a fixed design (Cor. 4.1-4.2).

        R = E_q[(1/n) sum_i r(N(x_i' beta + b, sigma2), N(x_i' beta* + b*, sigma*2))],

    with ``r`` the squared Hellinger distance (default) or the Rényi divergence of
    ``order``, averaged over ``n_draws`` draws of ``(beta, sigma2)`` from ``q``:

    * :class:`~alphavb.AlphaLinearRegression`: ``beta ~ N(coef_, coef_cov_)``;
    * :class:`~alphavb.AlphaSpikeSlabRegression`: independently per coefficient,
      ``z_j ~ Bernoulli(phi_j)`` and ``beta_j ~ N(mu_j, s2_j)`` if ``z_j = 1``, else 0;
    * ``sigma2 ~ InvGamma(noise_shape_, noise_scale_)``, or the known ``noise_variance_``;
    * with an intercept, ``b = ybar - xbar' beta`` (the flat-prior intercept).

    Parameters
    ----------
    model : fitted AlphaLinearRegression or AlphaSpikeSlabRegression
    X : array-like of shape (n_samples, n_features)
        The fixed design (usually the training inputs).
    coef : array-like of shape (n_features,)
        The true coefficients ``beta*``.
    noise_variance : float
        The true noise variance ``sigma*2``.
    intercept : float, default=0.0
        The true intercept.
    n_draws : int, default=200
    divergence : {"hellinger", "renyi"}, default="hellinger"
    order : float in (0, 1), default=0.5
        Order of the Rényi divergence (checked, but not used, for Hellinger).
    random_state : int, RandomState or None

    Returns
    -------
    float
    """
    owner = "regression_risk"
    model = _check_model(owner, model, (AlphaLinearRegression, AlphaSpikeSlabRegression))
    if getattr(model, "n_covariates_in_", 0):  # its mean has z' gamma, which X does not give
        raise bad_parameter(owner, "model", "a model fitted without covariates",
                            f"a model fitted with {model.n_covariates_in_} covariate(s)",
                            "The risk here is over the design X alone; for a model with "
                            "covariates compare its predict(X, covariates=Z) with the truth.")
    X = _check_design(owner, X, model.coef_.shape[0])
    coef = _check_true_vector(owner, "coef", coef, X.shape[1])
    noise_variance, intercept = float(noise_variance), float(intercept)
    draws = model.sample_posterior(n_draws, random_state=random_state)
    betas, variances, intercepts = draws["coef"], draws["noise_variance"], draws["intercept"]
    means = betas @ X.T + intercepts[:, None]                       # (n_draws, n)
    per_draw = normal_divergence(means, variances[:, None], X @ coef + intercept,
                                 noise_variance, divergence, order).mean(axis=1)
    return float(per_draw.mean())


@validate_params({**_RISK_CONSTRAINTS, "intercept": [Real(None, None)]}, _RISK_HINTS)
def logistic_risk(model, X, coef, intercept=0.0, n_draws=200, divergence="hellinger",
                  order=0.5, random_state=None):
    """Variational Bayes risk of a fitted :class:`~alphavb.AlphaLogisticRegression` with a
    fixed design (Cor. 4.3, D.1): the average over ``n_draws`` draws ``(beta, b) ~ q`` of
    ``(1/n) sum_i r(Bernoulli(sigmoid(x_i' beta + b)), Bernoulli(sigmoid(x_i' beta* + b*)))``.

    Parameters
    ----------
    model : fitted AlphaLogisticRegression
    X : array-like of shape (n_samples, n_features)
    coef : array-like of shape (n_features,)
        The true coefficients.
    intercept : float, default=0.0
    n_draws : int, default=200
    divergence : {"hellinger", "renyi"}, default="hellinger"
    order : float in (0, 1), default=0.5
    random_state : int, RandomState or None

    Returns
    -------
    float
    """
    from scipy.special import expit

    owner = "logistic_risk"
    model = _check_model(owner, model, AlphaLogisticRegression)
    X = _check_design(owner, X, model.coef_.shape[1])
    coef = _check_true_vector(owner, "coef", coef, X.shape[1])
    draws = model.sample_posterior(n_draws, random_state=random_state)
    if model.fit_intercept:
        theta = np.column_stack([draws["coef"], draws["intercept"]])
        design = np.column_stack([X, np.ones(X.shape[0])])
    else:
        theta, design = draws["coef"], X
    fitted = expit(theta @ design.T)                                # (n_draws, n)
    true = expit(X @ coef + intercept)
    pairs = np.stack([fitted, 1.0 - fitted], axis=-1), np.stack([true, 1.0 - true], axis=-1)
    return float(categorical_divergence(*pairs, divergence, order, check_input=False).mean())


@validate_params({**_RISK_CONSTRAINTS, "n_points": [Integer(1, None)]}, _RISK_HINTS)
def mixture_risk(model, means, covariances=None, weights=None, n_draws=100, n_points=2000,
                 divergence="hellinger", order=0.5, random_state=None):
    """Variational Bayes risk of a fitted :class:`~alphavb.AlphaGaussianMixture` (Cor. 4.4).

    ``R = E_q[r(p_theta, p_theta*)]`` for the mixture densities ``p_theta`` and the true
    ``p_theta*``. ``r`` has no closed form between mixtures: it is the Monte-Carlo estimate of
    :func:`hellinger_monte_carlo` (or :func:`renyi_monte_carlo`) over ``n_points`` draws
    from the truth, the same points for every draw of ``theta`` (label switching does not
    matter: the densities are compared). ``theta`` is drawn from ``q`` by the model's
    :meth:`~alphavb.AlphaGaussianMixture.sample_posterior` (Dirichlet weights, Wishart or
    Gamma precisions and Gaussian means; the known covariance for ``"fixed"``).

    Parameters
    ----------
    model : fitted AlphaGaussianMixture (any ``covariance_type``)
    means : array-like of shape (K*, p)
        The true component means.
    covariances : array-like of shape (K*, p, p) or (p, p), or None
        The true covariances (``None``: identity, the paper's set-up).
    weights : array-like of shape (K*,) or None
        The true weights (``None``: equal).
    n_draws : int, default=100
        Draws of ``theta`` from ``q``.
    n_points : int, default=2000
        Monte-Carlo points from the true mixture.
    divergence : {"hellinger", "renyi"}, default="hellinger"
    order : float in (0, 1), default=0.5
    random_state : int, RandomState or None

    Returns
    -------
    float
    """
    owner = "mixture_risk"
    model = _check_model(owner, model, AlphaGaussianMixture)
    true_means = np.asarray(means, dtype=float)
    n_true, p = true_means.shape if true_means.ndim == 2 else (0, 0)
    if p != model.means_.shape[1] or not np.all(np.isfinite(true_means)):
        raise bad_parameter(owner, "means", f"a finite array of shape (K, {model.means_.shape[1]})",
                             f"shape {true_means.shape}")
    true_cov = np.broadcast_to(np.eye(p) if covariances is None else
                               np.asarray(covariances, dtype=float), (n_true, p, p))
    true_weights = (np.full(n_true, 1.0 / n_true) if weights is None else
                    check_probabilities(owner, "weights", weights))
    rng = check_random_state(random_state)
    draws = model.sample_posterior(n_draws, random_state=rng)
    draw_weights, draw_means = draws["weights"], draws["means"]
    draw_cov = family_of(model).as_matrices(draws["covariances"], p)  # (S, K, p, p)
    labels = rng.choice(n_true, size=n_points, p=true_weights)
    points = true_means[labels] + np.einsum(
        "nij,nj->ni", np.linalg.cholesky(true_cov)[labels], rng.standard_normal((n_points, p)))
    log_true = mixture_log_density(points, true_weights[None], true_means[None],
                                   np.asarray(true_cov)[None])[0]
    log_fitted = mixture_log_density(points, draw_weights, draw_means, draw_cov)  # (S, m)
    return log_ratio_divergence(log_fitted - log_true, divergence, order)


@validate_params(_RISK_CONSTRAINTS, _RISK_HINTS)
def lda_risk(model, X, doc_topic, topic_word, n_draws=50, divergence="hellinger", order=0.5,
             random_state=None):
    """Variational Bayes risk of a fitted :class:`~alphavb.AlphaLDA` (Cor. 4.5).

    Each document ``d`` draws its words i.i.d. from ``p_d = theta_d' beta`` (a distribution
    over the vocabulary), so ``r = (1/D) sum_d r(theta_d' beta, theta*_d' beta*)``, averaged
    over ``n_draws`` draws ``beta_k ~ Dir(lambda_k)`` and ``theta_d ~ Dir(gamma_d)`` from
    ``q``. ``gamma_d`` are the documents' variational parameters under the fitted topics
    (the E-step of ``transform``, before normalization). Permuting the topics leaves
    ``theta_d' beta`` unchanged, so no matching of topics is needed.

    Parameters
    ----------
    model : fitted AlphaLDA
    X : array-like or sparse matrix of shape (D, V)
        The documents' word counts (usually the training corpus).
    doc_topic : array-like of shape (D, K*)
        The true topic proportions ``theta*_d``.
    topic_word : array-like of shape (K*, V)
        The true topics ``beta*_k``.
    n_draws : int, default=50
    divergence : {"hellinger", "renyi"}, default="hellinger"
    order : float in (0, 1), default=0.5
    random_state : int, RandomState or None

    Returns
    -------
    float
    """
    owner = "lda_risk"
    model = _check_model(owner, model, AlphaLDA)
    gamma = model.transform(X, normalize=False)
    doc_topic = check_probabilities(owner, "doc_topic", doc_topic)
    topic_word = check_probabilities(owner, "topic_word", topic_word)
    if doc_topic.shape != (gamma.shape[0], topic_word.shape[0]) or topic_word.shape[1] != (
            model.components_.shape[1]):
        raise bad_parameter(owner, "doc_topic", f"an array of shape ({gamma.shape[0]}, K) "
                             f"with topic_word of shape (K, {model.components_.shape[1]})",
                             f"shapes {doc_topic.shape} and {topic_word.shape}")
    rng = check_random_state(random_state)
    true_words = doc_topic @ topic_word
    total = 0.0
    for _ in range(n_draws):
        beta = model.sample_posterior(1, random_state=rng)["topic_word"][0]
        theta = rng.standard_gamma(gamma)
        theta /= theta.sum(axis=1, keepdims=True)
        words = theta @ beta
        total += np.mean(categorical_divergence(words, true_words, divergence, order,
                                                check_input=False))
    return float(total / n_draws)
