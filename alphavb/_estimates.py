"""Per-parameter summaries of a fitted model's ``q`` against a truth: the estimate, its sd
and the ``level`` credible interval of each coefficient, mixture mean or topic-word
probability. The simulation studies report them (:mod:`alphavb.simulation`) and alpha
selection by calibration reads them (:mod:`alphavb.model_selection`), so they live beneath
both.
"""

import numpy as np
from scipy.stats import beta as beta_distribution
from scipy.stats import norm

from ._special import bisect_quantile
from .divergences import hellinger_categorical

# draws of q behind the Monte-Carlo intervals of models whose marginals have no closed form
# here (a mixture q of the logistic model is exact; these are the mixtures other than
# "fixed" and estimators known only through sample_posterior); a fixed seed keeps them
# reproducible
INTERVAL_DRAWS = 4000


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


def match_means(true_means, fitted_means):
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
    order, _ = match_means(true, model.means_)
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
