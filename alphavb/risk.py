r"""Divergences between densities and the variational Bayes risk of a fitted model (spec §9).

Yang, Pati & Bhattacharya (2020) bound the *variational Bayes risk*

    R(q) = \int r(theta, theta*) q(d theta),

the average over the fitted ``q`` of a divergence between the model at ``theta`` and at the
truth ``theta*`` (their Theorems 3.1-3.2 and Corollaries 4.1-4.5). Two divergences are used:

* the **squared Hellinger distance**, as in the paper,
  ``h^2(p, q) = \int (sqrt p - sqrt q)^2 = 2 (1 - BC(p, q))`` with the Bhattacharyya
  coefficient ``BC = \int sqrt(p q)``; it lies in [0, 2];
* the **Rényi divergence** of order ``a`` in (0, 1),
  ``D_a(p || q) = (1 / (a - 1)) log \int p^a q^(1-a)``. ``D_{1/2} = -2 log BC =
  -2 log(1 - h^2 / 2) >= h^2``.

Closed forms are given for (multivariate) normals and for categorical (Bernoulli)
distributions; Monte-Carlo versions cover any pair of densities one can evaluate, given draws
from the first. For models whose observations are not identically distributed (regression with
a fixed design, documents of LDA) ``r`` is the average over the observations,
``r(theta, theta*) = (1/n) sum_i h^2(p_{theta,i}, p_{theta*,i})``.

The risk functions draw ``theta`` from the fitted ``q`` and average ``r`` over the draws:

* :func:`regression_risk` for :class:`~alphavb.AlphaLinearRegression` and
  :class:`~alphavb.AlphaSpikeSlabRegression` (fixed design, Cor. 4.1-4.2);
* :func:`logistic_risk` for :class:`~alphavb.AlphaLogisticRegression` (Cor. 4.3, D.1);
* :func:`mixture_risk` for :class:`~alphavb.AlphaGaussianMixture` (Cor. 4.4; the divergence
  between two mixture densities is itself a Monte-Carlo average over draws from the truth);
* :func:`lda_risk` for :class:`~alphavb.AlphaLDA` (Cor. 4.5; per document, the distribution
  of one word, ``theta_d' beta``).
"""

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .base import _bad_parameter, check_positive_int, check_scalar_in_range

__all__ = [
    "hellinger_categorical",
    "hellinger_monte_carlo",
    "hellinger_mvn",
    "hellinger_normal",
    "lda_risk",
    "logistic_risk",
    "mixture_risk",
    "regression_risk",
    "renyi_categorical",
    "renyi_monte_carlo",
    "renyi_mvn",
    "renyi_normal",
]

DIVERGENCES = ("hellinger", "renyi")


def _check_order(owner, order):
    return check_scalar_in_range(owner, "order", order, 0.0, 1.0, low_open=True,
                                 high_open=True, fix="The Rényi order must lie in (0, 1).")


def _hellinger_from_renyi_half(renyi_half):
    """``h^2 = 2 (1 - BC)`` with ``BC = exp(-D_{1/2} / 2)``, accurate for small ``D``."""
    return -2.0 * np.expm1(-0.5 * renyi_half)


# ----------------------------------------------------------------------------- normals


def renyi_normal(mean1, var1, mean2, var2, order=0.5):
    """Rényi divergence ``D_a(N(mean1, var1) || N(mean2, var2))`` of univariate normals.

    With ``s_a^2 = a var2 + (1 - a) var1`` (spec §9),

        D_a = a (mean1 - mean2)^2 / (2 s_a^2) + (1 / (1 - a)) log(s_a / (s1^(1-a) s2^a)).

    Parameters
    ----------
    mean1, var1, mean2, var2 : array-like, broadcast together
        Means and (positive) variances.
    order : float in (0, 1), default=0.5

    Returns
    -------
    ndarray (or float) of the broadcast shape
    """
    a = _check_order("renyi_normal", order)
    mean1, var1, mean2, var2 = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                                     for v in (mean1, var1, mean2, var2)))
    var_a = a * var2 + (1.0 - a) * var1
    log_ratio = 0.5 * (np.log(var_a) - (1.0 - a) * np.log(var1) - a * np.log(var2))
    return a * (mean1 - mean2) ** 2 / (2.0 * var_a) + log_ratio / (1.0 - a)


def hellinger_normal(mean1, var1, mean2, var2):
    """Squared Hellinger distance ``h^2 = 2 (1 - BC)`` between univariate normals.

    ``BC = sqrt(2 s1 s2 / (s1^2 + s2^2)) exp(-(mean1 - mean2)^2 / (4 (s1^2 + s2^2)))``,
    i.e. ``exp(-D_{1/2} / 2)`` (:func:`renyi_normal` at order 1/2).

    Returns
    -------
    ndarray (or float) of the broadcast shape, in [0, 2]
    """
    return _hellinger_from_renyi_half(renyi_normal(mean1, var1, mean2, var2, 0.5))


def renyi_mvn(mean1, cov1, mean2, cov2, order=0.5):
    """Rényi divergence ``D_a(N(mean1, cov1) || N(mean2, cov2))`` of multivariate normals.

    With ``S_a = a cov2 + (1 - a) cov1`` and ``delta = mean1 - mean2``,

        D_a = (a/2) delta' S_a^{-1} delta
              + (1 / (2 (1 - a))) log(|S_a| / (|cov1|^(1-a) |cov2|^a)),

    which for one dimension is :func:`renyi_normal`.

    Parameters
    ----------
    mean1, mean2 : array-like of shape (..., p)
    cov1, cov2 : array-like of shape (..., p, p), symmetric positive definite
    order : float in (0, 1), default=0.5

    Returns
    -------
    ndarray of the broadcast batch shape (a float for single pairs)
    """
    a = _check_order("renyi_mvn", order)
    mean1, mean2 = np.asarray(mean1, dtype=float), np.asarray(mean2, dtype=float)
    cov1, cov2 = np.asarray(cov1, dtype=float), np.asarray(cov2, dtype=float)
    if cov1.shape[-2:] != (mean1.shape[-1],) * 2 or cov2.shape[-2:] != (mean2.shape[-1],) * 2:
        raise ValueError("renyi_mvn needs covariances of shape (..., p, p) for means of shape "
                         f"(..., p); got means {mean1.shape}, {mean2.shape} and covariances "
                         f"{cov1.shape}, {cov2.shape}.")
    cov_a = a * cov2 + (1.0 - a) * cov1
    delta = mean1 - mean2
    chol = np.linalg.cholesky(cov_a)
    white = np.linalg.solve(chol, delta[..., None])[..., 0]
    log_det = [np.linalg.slogdet(c)[1] for c in (cov_a, cov1, cov2)]
    value = (0.5 * a * np.sum(white**2, axis=-1)
             + (log_det[0] - (1.0 - a) * log_det[1] - a * log_det[2]) / (2.0 * (1.0 - a)))
    return value[()] if np.ndim(value) == 0 else value


def hellinger_mvn(mean1, cov1, mean2, cov2):
    """Squared Hellinger distance between multivariate normals, ``2 (1 - exp(-D_{1/2}/2))``
    with ``D_{1/2}`` from :func:`renyi_mvn`."""
    return _hellinger_from_renyi_half(renyi_mvn(mean1, cov1, mean2, cov2, 0.5))


# ------------------------------------------------------------------------- categorical


def _check_probabilities(owner, name, p):
    p = np.asarray(p, dtype=float)
    if p.ndim == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise _bad_parameter(owner, name, "an array of probabilities (finite, non-negative, "
                             "summing to 1 along the last axis)", "an invalid array")
    if not np.allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-8):
        raise _bad_parameter(owner, name, "probabilities summing to 1 along the last axis",
                             f"sums from {p.sum(axis=-1).min():.6g} to "
                             f"{p.sum(axis=-1).max():.6g}", "Normalize it first.")
    return p


def hellinger_categorical(p, q):
    """Squared Hellinger distance ``sum_v (sqrt p_v - sqrt q_v)^2`` between categorical
    distributions along the last axis (a Bernoulli is ``[1 - p, p]``).

    Returns
    -------
    ndarray of the broadcast batch shape (a float for single pairs), in [0, 2]
    """
    p = _check_probabilities("hellinger_categorical", "p", p)
    q = _check_probabilities("hellinger_categorical", "q", q)
    return _hellinger_categorical(p, q)[()]


def renyi_categorical(p, q, order=0.5):
    """Rényi divergence ``(1/(a-1)) log sum_v p_v^a q_v^(1-a)`` between categorical
    distributions along the last axis (computed in logs; ``0^a = 0``)."""
    a = _check_order("renyi_categorical", order)
    p = _check_probabilities("renyi_categorical", "p", p)
    q = _check_probabilities("renyi_categorical", "q", q)
    return _renyi_categorical(p, q, a)[()]


def _hellinger_categorical(p, q):
    """:func:`hellinger_categorical` without the input checks (for internal loops)."""
    return np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=-1)


def _renyi_categorical(p, q, a):
    """:func:`renyi_categorical` without the input checks (for internal loops)."""
    p, q = np.broadcast_arrays(p, q)
    both = (p > 0) & (q > 0)
    with np.errstate(divide="ignore"):
        terms = np.where(both, a * np.log(p) + (1.0 - a) * np.log(q), -np.inf)
    return logsumexp(terms, axis=-1) / (a - 1.0)


# ------------------------------------------------------------------------- Monte Carlo


def _log_ratio_draws(owner, log_p, log_q, sample_p, n_samples, random_state):
    """``log q(x) - log p(x)`` at ``n_samples`` draws ``x ~ p``."""
    n_samples = check_positive_int(owner, "n_samples", n_samples)
    draws = sample_p(n_samples, check_random_state(random_state))
    log_ratio = np.asarray(log_q(draws), dtype=float) - np.asarray(log_p(draws), dtype=float)
    if log_ratio.shape != (n_samples,) or np.any(np.isnan(log_ratio)):
        raise ValueError(f"{owner}: log_p and log_q must map the {n_samples} draws of sample_p "
                         f"to {n_samples} log densities without NaN; got shape "
                         f"{log_ratio.shape}.")
    return log_ratio


def hellinger_monte_carlo(log_p, log_q, sample_p, n_samples=10_000, random_state=None):
    """Monte-Carlo squared Hellinger distance between two densities.

    Uses ``h^2(p, q) = E_p[(sqrt(q(x)/p(x)) - 1)^2]`` (exact wherever ``q`` puts no mass
    outside the support of ``p``): every term is non-negative, and the estimator's variance
    vanishes as ``q -> p``.

    Parameters
    ----------
    log_p, log_q : callable
        Map an array of draws to their log densities (shape (n_samples,)).
    sample_p : callable
        ``sample_p(n, rng)`` returns ``n`` draws from ``p`` (``rng`` a ``RandomState``).
    n_samples : int, default=10000
    random_state : int, RandomState or None

    Returns
    -------
    estimate : float
    standard_error : float
    """
    log_ratio = _log_ratio_draws("hellinger_monte_carlo", log_p, log_q, sample_p, n_samples,
                                 random_state)
    terms = _hellinger_terms(log_ratio)
    return float(terms.mean()), float(terms.std(ddof=1) / np.sqrt(n_samples))


def renyi_monte_carlo(log_p, log_q, sample_p, order=0.5, n_samples=10_000, random_state=None):
    """Monte-Carlo Rényi divergence ``(1/(a-1)) log E_p[(q(x)/p(x))^(1-a)]`` (log-sum-exp).

    Parameters are those of :func:`hellinger_monte_carlo`, with ``order`` in (0, 1).

    Returns
    -------
    float (biased by O(1/n_samples), as the log of an average)
    """
    a = _check_order("renyi_monte_carlo", order)
    log_ratio = _log_ratio_draws("renyi_monte_carlo", log_p, log_q, sample_p, n_samples,
                                 random_state)
    return float(_renyi_from_log_ratios(log_ratio, a))


def _hellinger_terms(log_ratio):
    """``(sqrt(q/p) - 1)^2`` at draws from ``p``, given ``log q - log p``: their mean is the
    Monte-Carlo squared Hellinger distance."""
    return np.expm1(0.5 * log_ratio) ** 2


def _renyi_from_log_ratios(log_ratio, a):
    """``(1/(a-1)) log mean((q/p)^(1-a))`` over the last axis of ``log q - log p`` at draws
    from ``p`` (log-sum-exp)."""
    return (logsumexp((1.0 - a) * log_ratio, axis=-1) - np.log(log_ratio.shape[-1])) / (a - 1.0)


# --------------------------------------------------------------- risk of fitted models


def _check_risk_call(owner, model, fitted_attribute, divergence, order, n_draws):
    """The checks every risk function starts with; returns the Rényi order and draws."""
    check_is_fitted(model, fitted_attribute)
    if divergence not in DIVERGENCES:
        raise _bad_parameter(owner, "divergence", f"one of {DIVERGENCES}", divergence)
    order = _check_order(owner, order) if divergence == "renyi" else None
    return order, check_positive_int(owner, "n_draws", n_draws)


def _normal_divergence(divergence, order, mean1, var1, mean2, var2):
    if divergence == "hellinger":
        return hellinger_normal(mean1, var1, mean2, var2)
    return renyi_normal(mean1, var1, mean2, var2, order)


def _categorical_divergence(divergence, order, p, q):
    """Between distributions the risk functions build themselves (no input checks)."""
    if divergence == "hellinger":
        return _hellinger_categorical(p, q)
    return _renyi_categorical(p, q, order)


def _check_design(owner, X, n_features):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != n_features or X.shape[0] == 0 or not np.all(
            np.isfinite(X)):
        raise _bad_parameter(owner, "X", f"a finite non-empty array of shape (n, {n_features})"
                             " (the design the model was fitted to)", f"shape {X.shape}")
    return X


def _check_true_vector(owner, name, value, size):
    value = np.asarray(value, dtype=float)
    if value.shape != (size,) or not np.all(np.isfinite(value)):
        raise _bad_parameter(owner, name, f"a finite array of shape ({size},)",
                             f"shape {value.shape}")
    return value


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
    * with an intercept, ``b = ybar - xbar' beta`` (the flat-prior intercept, spec §2).

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
        Order of the Rényi divergence (ignored for Hellinger).
    random_state : int, RandomState or None

    Returns
    -------
    float
    """
    owner = "regression_risk"
    order, n_draws = _check_risk_call(owner, model, "coef_", divergence, order, n_draws)
    X = _check_design(owner, X, model.coef_.shape[0])
    coef = _check_true_vector(owner, "coef", coef, X.shape[1])
    noise_variance = check_scalar_in_range(owner, "noise_variance", noise_variance, 0.0, None,
                                           low_open=True)
    intercept = check_scalar_in_range(owner, "intercept", intercept, -np.inf, np.inf,
                                      low_open=True, high_open=True)
    rng = check_random_state(random_state)
    if hasattr(model, "inclusion_probabilities_"):
        included = rng.random_sample((n_draws, X.shape[1])) < model.inclusion_probabilities_
        slab = model.slab_means_ + np.sqrt(model.slab_variances_) * rng.standard_normal(
            (n_draws, X.shape[1]))
        betas = np.where(included, slab, 0.0)
    else:
        betas = rng.multivariate_normal(model.coef_, model.coef_cov_, size=n_draws)
    if getattr(model, "noise_shape_", None) is not None:  # 1/sigma2 ~ Gamma(shape, rate=scale)
        variances = 1.0 / rng.gamma(model.noise_shape_, 1.0 / model.noise_scale_, size=n_draws)
    else:
        variances = np.full(n_draws, float(model.noise_variance_))
    if model.fit_intercept:
        intercepts = model._y_offset - betas @ model._X_offset
    else:
        intercepts = np.zeros(n_draws)
    means = betas @ X.T + intercepts[:, None]                       # (n_draws, n)
    per_draw = _normal_divergence(divergence, order, means, variances[:, None],
                                  X @ coef + intercept, noise_variance).mean(axis=1)
    return float(per_draw.mean())


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

    from .blackbox._gaussian_vb import _design

    owner = "logistic_risk"
    order, n_draws = _check_risk_call(owner, model, "vb_", divergence, order, n_draws)
    X = _check_design(owner, X, model.coef_.shape[1])
    coef = _check_true_vector(owner, "coef", coef, X.shape[1])
    draws = model.vb_.sample(n_draws, random_state=check_random_state(random_state))
    fitted = expit(draws @ _design(X, model.fit_intercept).T)       # (n_draws, n)
    true = expit(X @ coef + intercept)
    pairs = np.stack([fitted, 1.0 - fitted], axis=-1), np.stack([true, 1.0 - true], axis=-1)
    return float(_categorical_divergence(divergence, order, *pairs).mean())


def _mixture_log_density(points, weights, means, covariances):
    """Log density at ``points`` (m, p) of the mixtures in a batch: weights (S, K), means
    (S, K, p), covariances (S, K, p, p). Returns (S, m)."""
    chol = np.linalg.cholesky(covariances)                           # (S, K, p, p)
    diff = points[None, None, :, :] - means[:, :, None, :]           # (S, K, m, p)
    white = np.linalg.solve(chol[:, :, None], diff[..., None])[..., 0]
    log_det = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)  # (S, K)
    p = points.shape[1]
    log_component = -0.5 * (np.sum(white**2, axis=-1) + log_det[..., None]
                            + p * np.log(2 * np.pi))
    with np.errstate(divide="ignore"):
        return logsumexp(log_component + np.log(weights)[..., None], axis=1)


def mixture_risk(model, means, covariances=None, weights=None, n_draws=100, n_points=2000,
                 divergence="hellinger", order=0.5, random_state=None):
    """Variational Bayes risk of a fitted :class:`~alphavb.AlphaGaussianMixture` (Cor. 4.4).

    ``R = E_q[r(p_theta, p_theta*)]`` for the mixture densities ``p_theta`` and the true
    ``p_theta*``. ``r`` has no closed form between mixtures: it is the Monte-Carlo estimate of
    :func:`hellinger_monte_carlo` (or :func:`renyi_monte_carlo`) over ``n_points`` draws
    from the truth, the same points for every draw of ``theta`` (label switching does not
    matter: the densities are compared). ``theta`` is drawn from ``q``:

    * ``covariance_type="fixed"``: ``mu_k ~ N(means_k, mean_covariances_k)``, covariances
      the known ``covariances_``;
    * ``"full"``: ``Lambda_k ~ Wishart`` (``degrees_of_freedom_``, scale the inverse of
      ``covariances_ * degrees_of_freedom_``), ``mu_k | Lambda_k ~ N(means_k,
      (mean_precision_k Lambda_k)^{-1})``;
    * weights ``~ Dirichlet(weight_concentration_)``, or the known ``weights_``.

    Parameters
    ----------
    model : fitted AlphaGaussianMixture with ``covariance_type`` "fixed" or "full"
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
    order, n_draws = _check_risk_call(owner, model, "means_", divergence, order, n_draws)
    n_points = check_positive_int(owner, "n_points", n_points)
    if model.covariance_type not in ("fixed", "full"):
        raise _bad_parameter(owner, "model", "an AlphaGaussianMixture fitted with "
                             "covariance_type 'fixed' or 'full'", model.covariance_type)
    true_means = np.asarray(means, dtype=float)
    n_true, p = true_means.shape if true_means.ndim == 2 else (0, 0)
    if p != model.means_.shape[1] or not np.all(np.isfinite(true_means)):
        raise _bad_parameter(owner, "means", f"a finite array of shape (K, {model.means_.shape[1]})",
                             f"shape {true_means.shape}")
    true_cov = np.broadcast_to(np.eye(p) if covariances is None else
                               np.asarray(covariances, dtype=float), (n_true, p, p))
    true_weights = (np.full(n_true, 1.0 / n_true) if weights is None else
                    _check_probabilities(owner, "weights", weights))
    rng = check_random_state(random_state)
    K = model.n_components
    if hasattr(model, "weight_concentration_") and model.fixed_weights_ is None:
        draw_weights = rng.dirichlet(model.weight_concentration_, size=n_draws)
    else:
        draw_weights = np.broadcast_to(model.weights_, (n_draws, K))
    if model.covariance_type == "fixed":
        chol = np.linalg.cholesky(model.mean_covariances_)               # (K, p, p)
        draw_means = model.means_ + np.einsum("kij,skj->ski", chol,
                                              rng.standard_normal((n_draws, K, p)))
        draw_cov = np.broadcast_to(model.covariances_, (n_draws, K, p, p))
    else:
        from scipy.stats import wishart

        draw_means = np.empty((n_draws, K, p))
        draw_cov = np.empty((n_draws, K, p, p))
        for k in range(K):
            dof = model.degrees_of_freedom_[k]
            scale = np.linalg.inv(model.covariances_[k] * dof)
            precisions = wishart(df=dof, scale=scale).rvs(size=n_draws, random_state=rng)
            precisions = precisions.reshape(n_draws, p, p)
            draw_cov[:, k] = np.linalg.inv(precisions)
            mean_chol = np.linalg.cholesky(draw_cov[:, k] / model.mean_precision_[k])
            draw_means[:, k] = model.means_[k] + np.einsum("sij,sj->si", mean_chol,
                                                           rng.standard_normal((n_draws, p)))
    labels = rng.choice(n_true, size=n_points, p=true_weights)
    points = true_means[labels] + np.einsum(
        "nij,nj->ni", np.linalg.cholesky(true_cov)[labels], rng.standard_normal((n_points, p)))
    log_true = _mixture_log_density(points, true_weights[None], true_means[None],
                                    np.asarray(true_cov)[None])[0]
    log_fitted = _mixture_log_density(points, draw_weights, draw_means, draw_cov)  # (S, m)
    log_ratio = log_fitted - log_true
    if divergence == "hellinger":
        return float(np.mean(_hellinger_terms(log_ratio)))
    return float(np.mean(_renyi_from_log_ratios(log_ratio, order)))


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
    order, n_draws = _check_risk_call(owner, model, "components_", divergence, order, n_draws)
    gamma = model.transform(X, normalize=False)
    doc_topic = _check_probabilities(owner, "doc_topic", doc_topic)
    topic_word = _check_probabilities(owner, "topic_word", topic_word)
    if doc_topic.shape != (gamma.shape[0], topic_word.shape[0]) or topic_word.shape[1] != (
            model.components_.shape[1]):
        raise _bad_parameter(owner, "doc_topic", f"an array of shape ({gamma.shape[0]}, K) "
                             f"with topic_word of shape (K, {model.components_.shape[1]})",
                             f"shapes {doc_topic.shape} and {topic_word.shape}")
    rng = check_random_state(random_state)
    true_words = doc_topic @ topic_word
    total = 0.0
    for _ in range(n_draws):
        beta = _dirichlet_rows(rng, model.components_)
        theta = _dirichlet_rows(rng, gamma)
        words = theta @ beta
        total += np.mean(_categorical_divergence(divergence, order, words, true_words))
    return float(total / n_draws)


def _dirichlet_rows(rng, concentration):
    """One Dirichlet draw per row of ``concentration`` (normalized Gamma draws)."""
    draws = rng.standard_gamma(concentration)
    return draws / draws.sum(axis=1, keepdims=True)
