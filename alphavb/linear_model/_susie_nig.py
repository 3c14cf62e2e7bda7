"""The normal-inverse-gamma residual prior of SuSiE for small samples (Denault et al. 2025;
susieR 0.16.5's ``estimate_residual_method = "NIG"``) on the alpha-VB objective: the math.

Model: each single effect ``b_l | gamma_l = j, sigma2 ~ N(0, sigma2 s_l)`` and ``sigma2 ~
IG(a0 / 2, b0 / 2)``, integrated out of each single-effect regression, so the SER of the
residual ``r`` (``yy = r'r``, ``xy_j = x_j'r``, ``xx_j = x_j'x_j``) has Student-t
posteriors and closed-form Bayes factors. alpha-VB raises the likelihood to ``alpha``:
``N(r | x_j b, sigma2)^alpha`` is, up to ``(2 pi sigma2)^{-alpha n / 2}`` that the inverse
gamma absorbs, the likelihood of ``(sqrt(alpha) x_j, sqrt(alpha) r)``, so every formula
takes ``(alpha xx, alpha xy, alpha yy, alpha n)`` (the power likelihood; at ``alpha = 1``
susieR's):

    r0_j = s / (s + 1 / (alpha xx_j)),   RSS_j = yy (1 - r0_j xy_j^2 / (xx_j yy)),
    a1 = a0 + alpha n,   b1_j = b0 + alpha RSS_j,
    lbf_j = -1/2 [log(1 + alpha s xx_j) + a1 log(b1_j / (b0 + alpha yy))],
    E[b | j] = r0_j xy_j / xx_j,   Var(b | j) = b1_j / (a1 - 2) r0_j / (alpha xx_j),
    E[sigma2 | j] = b1_j / (a1 - 2),

and the log evidence of the single effect with ``l = 1`` is the exact (tempered) log
marginal likelihood ``log sum_j pi_j e^{lbf_j} + ll0``, ``ll0 = -(alpha n / 2) log(2 pi) +
IG(a0 / 2, b0 / 2) - IG((a0 + alpha n) / 2, (b0 + alpha yy) / 2)``, ``IG(a, b) = a log b -
lgamma(a)``. ``s_l`` is updated by EM, ``s = sum_j alpha_j E[b^2 / sigma2 | j] = sum_j
alpha_j [r0_j / (alpha xx_j) + E[b | j]^2 a1 / b1_j]``, and ``sigma2`` reported as the
posterior mean ``(b0 + alpha E||y - X b||^2) / (a0 + alpha n - 2)``. susieR's defaults are
``a0 = b0 = 1 / sqrt(n)``; here ``b0`` is relative to ``Var(y)`` (``b0 = Var(y) /
sqrt(n)``), so that a fit is the same in any units of ``y`` (the two agree when ``Var(y) =
1``).
"""

from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from .._special import LOG_2PI, log_sum_exp
from ._susie import SingleEffect


class NIGPrior(NamedTuple):
    """``sigma2 ~ IG(shape / 2, rate / 2)`` (susieR's ``alpha0``, ``beta0``)."""

    shape: float
    rate: float


def default_prior(n_samples, variance_y):
    """susieR 0.16.5's ``alpha0 = beta0 = 1 / sqrt(n)``, ``beta0`` in units of ``Var(y)``."""
    return NIGPrior(1.0 / np.sqrt(n_samples), variance_y / np.sqrt(n_samples))


def _inverse_gamma_factor(shape, rate):
    return shape * np.log(rate) - gammaln(shape)


def null_log_likelihood(yy, n, prior, alpha):
    """``ll0`` of the module docstring: the log marginal likelihood of ``b = 0``."""
    return (-0.5 * alpha * n * LOG_2PI + _inverse_gamma_factor(prior.shape / 2, prior.rate / 2)
            - _inverse_gamma_factor((prior.shape + alpha * n) / 2,
                                    (prior.rate + alpha * yy) / 2))


class NIGEffect(NamedTuple):
    """A fitted single effect (:class:`~alphavb.linear_model._susie.SingleEffect`) and
    ``E[sigma2]`` under it, ``sum_j alpha_j b1_j / (a1 - 2)`` (the scale of its ``V``)."""

    effect: SingleEffect
    residual_scale: float


def nig_single_effect(xtr, d, yy, n, scaled_variance, log_prior, prior, alpha,
                      estimate_prior_variance=True, log_null_prior=-np.inf):
    """The SER of a residual with ``xtr = X'r``, ``d = diag(X'X)`` and ``yy = r'r`` under
    the NIG prior (module docstring), ``scaled_variance`` the slab's ``s``; a column with
    ``d_j = 0`` has Bayes factor 1 and ``b_j = 0``."""
    informative = d > 0.0
    safe = np.where(informative, d, 1.0)
    xx, xy, ryy, rn = alpha * safe, alpha * xtr, alpha * yy, alpha * n
    a1 = prior.shape + rn
    if a1 <= 2.0:
        raise ValueError(f"AlphaSuSiE(residual_variance_method='nig'): a0 + alpha n = "
                         f"{a1:.3g} must exceed 2 (the posterior mean of sigma2 needs it); "
                         "raise alpha or fit more rows.")
    s = float(scaled_variance)
    r0 = s / (s + 1.0 / xx)
    explained = np.where(informative, r0 * xy * xy / xx, 0.0)
    rss = np.maximum(ryy - explained, 0.0)
    b1 = prior.rate + rss
    lbf = np.where(informative, -0.5 * (np.log1p(s * xx) + a1 * np.log(b1 / (prior.rate
                                                                             + ryy))), 0.0)
    log_posterior = lbf + log_prior
    log_evidence = log_sum_exp(np.append(log_posterior, log_null_prior))
    probabilities = np.exp(log_posterior - log_evidence)
    mean = np.where(informative, r0 * xy / xx, 0.0)
    variance = np.where(informative, b1 / (a1 - 2.0) * r0 / xx, 0.0)
    second_moment = variance + mean**2
    null_probability = float(np.exp(log_null_prior - log_evidence))
    residual_scale = float(probabilities @ (b1 / (a1 - 2.0))
                           + null_probability * (prior.rate + ryy) / (a1 - 2.0))
    if estimate_prior_variance:  # EM: E[b^2 / sigma2] under q_l
        scaled = np.where(informative, r0 / xx + mean**2 * a1 / b1, 0.0)
        uninformed = null_probability + float(np.sum(probabilities[~informative]))
        next_variance = float(probabilities @ scaled) + uninformed * s
    else:
        next_variance = s
    return NIGEffect(SingleEffect(probabilities, mean, second_moment, next_variance,
                                  log_evidence, null_probability), residual_scale)


def nig_expected_log_likelihood(erss, n, prior, alpha, d, probabilities, scaled_variances):
    """susieR 0.16.5's recorded objective for ``L > 1`` (its ``nig_eloglik``), tempered:
    ``E_q[log N(y | X b, sigma2)]`` with ``q(sigma2) = IG((a0 + alpha n) / 2, (b0 + alpha
    E RSS) / 2)``, ``E RSS = A + E[sigma2] B``, ``B = sum_l sum_j alpha_lj r0_lj``. Not a
    bound: the fit with ``L > 1`` stops on its probabilities."""
    shape = (prior.shape + alpha * n) / 2
    rate = (prior.rate + alpha * erss) / 2
    safe = np.where(d > 0, alpha * d, 1.0)
    r0 = scaled_variances[:, None] / (scaled_variances[:, None] + 1.0 / safe)
    spread = float(np.sum(probabilities * np.where(d > 0, r0, 0.0)))
    fixed = alpha * erss - rate / (shape - 1.0) * spread
    from scipy.special import digamma

    return (-0.5 * alpha * n * LOG_2PI - 0.5 * alpha * n * (np.log(rate) - digamma(shape))
            - 0.5 * (fixed * shape / rate + spread))


def nig_residual_variance(erss, n, prior, alpha):
    """The posterior mean of ``sigma2``, ``(b0 + alpha E RSS) / (a0 + alpha n - 2)``."""
    return (prior.rate + alpha * erss) / (prior.shape + alpha * n - 2.0)


def nig_sweep(data, state, *, alpha, prior, estimate_prior_variance=True):
    """One sweep of the single effects under the NIG prior (module docstring), on individual
    data or sufficient statistics: ``sigma2`` (reported only: the SERs integrate it out)
    from the last sweep's ``E RSS``, then each effect's SER of its residual. Returns the
    state (``residual_scales`` the effects' ``E[sigma2]``) and the objective: with one
    effect the exact log marginal likelihood, else :func:`nig_expected_log_likelihood`."""
    from ._susie import (
        _correlation_with_residual,
        _squared_norm,
        design_times,
        expected_residual_sum_of_squares,
    )

    n = data.n_samples
    sigma2 = state.residual_variance
    if state.erss is not None:
        sigma2 = nig_residual_variance(state.erss, n, prior, alpha)
    probabilities, mean = state.probabilities.copy(), state.mean.copy()
    second_moment, prior_variance = state.second_moment.copy(), state.prior_variance.copy()
    fit, effect_fits = state.fit.copy(), state.effect_fits.copy()
    null_alpha, kl = state.null_alpha.copy(), state.kl.copy()
    scales = np.empty(probabilities.shape[0])
    effect_squares = np.empty(probabilities.shape[0])
    coef = np.sum(probabilities * mean, axis=0)
    log_marginal = 0.0
    for effect in range(probabilities.shape[0]):
        fit -= effect_fits[effect]
        coef = coef - probabilities[effect] * mean[effect]
        xtr = _correlation_with_residual(data, fit)
        if data.gram is None:
            residual = data.y - fit
            yy = float(residual @ residual)
        else:
            yy = max(data.yty - 2.0 * float(coef @ data.zty) + float(coef @ fit),
                     np.finfo(float).eps)
        found = nig_single_effect(xtr, data.d, yy, n, prior_variance[effect], data.log_prior,
                                  prior, alpha, estimate_prior_variance, data.log_null_prior)
        single = found.effect
        probabilities[effect], mean[effect] = single.probabilities, single.mean
        second_moment[effect] = single.second_moment
        prior_variance[effect] = single.prior_variance
        null_alpha[effect], scales[effect] = single.null_probability, found.residual_scale
        kl[effect] = 0.0
        if probabilities.shape[0] == 1:
            log_marginal = single.log_evidence + null_log_likelihood(yy, n, prior, alpha)
        values = single.probabilities * single.mean
        effect_fits[effect] = design_times(data, values)
        effect_squares[effect] = _squared_norm(data, values, effect_fits[effect])
        fit += effect_fits[effect]
        coef = coef + values
    erss = expected_residual_sum_of_squares(data, fit, effect_squares, probabilities, mean,
                                            second_moment)
    new = state._replace(probabilities=probabilities, mean=mean, second_moment=second_moment,
                         prior_variance=prior_variance, kl=kl, residual_variance=sigma2,
                         fit=fit, erss=erss, effect_fits=effect_fits, null_alpha=null_alpha,
                         residual_scales=scales)
    if probabilities.shape[0] == 1:
        return new, log_marginal
    return new, nig_expected_log_likelihood(erss, n, prior, alpha, data.d, probabilities,
                                            state.prior_variance)
