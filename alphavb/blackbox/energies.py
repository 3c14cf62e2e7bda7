r"""Black-box alpha (BB-alpha) energies as pure functions of a flat parameter vector.

Hernández-Lobato, Li, Rowland, Hernández-Lobato, Bui & Turner, "Black-box alpha
divergence minimization", ICML 2016 (BB-alpha). Here ``alpha`` is the order of
the alpha-divergence (``alpha -> 0`` is VB, ``alpha = 1`` is EP-like), not the alpha-VB
temperature of the CAVI estimators.

Family and parametrization
--------------------------
``q(w) = prod_i N(w_i; m_i, v_i)`` with the flat vector ``q_params = [m, log v]`` (length
``2 P``): the log-variance is unconstrained, so every value of ``q_params`` is a valid
Gaussian. The prior is ``p0(w) = prod_i N(w_i; 0, v0)``.

Energies (mini-batch ``B`` of a data set of size ``N``, ``K`` Monte-Carlo draws)
-------------------------------------------------------------------------------
With ``logZ(m, v) = sum_i 0.5 log(2 pi v_i) + m_i^2 / (2 v_i)`` the Gaussian log-normalizer,
the tied site ``lam = (lam_q - lam_0) / N`` and the cavity ``lam_cav = lam_q - alpha lam``
(precision ``(1 - alpha/N)/v + (alpha/N)/v0``, natural mean ``(1 - alpha/N) m/v``, a valid
Gaussian for ``alpha <= N``)::

    exact:  E = logZ(0, v0) - logZ(q) - (N/alpha)(logZ(cav) - logZ(q))
                - (N / (alpha B)) sum_{n in B} [lse_k(alpha log p(y_n | w_k)) - log K],
                w_k ~ cavity
    reparametrized (Li & Gal 2017, AADM):
            E = KL(q || p0) - (N / (alpha B)) sum_{n in B} [lse_k(alpha log p(y_n | w_k)) - log K],
                w_k ~ q
    VB (alpha = 0, the limit of both):
            E = KL(q || p0) - (N / B) sum_{n in B} mean_k log p(y_n | w_k),  w_k ~ q

Draws are reparametrized, ``w_k = mean + sqrt(var) * eps_k`` with ``eps`` given by the caller,
so each energy is a deterministic, differentiable function of ``q_params`` for fixed ``eps``.
As ``alpha -> 0`` the first three terms of the exact energy tend to ``KL(q || p0)`` (a
first-order expansion of ``logZ`` around ``lam_q``) and ``(1/alpha) lse_k(alpha l_k)``
tends to ``mean_k l_k``, so both energies tend to the VB energy.
"""

import math

import autograd.numpy as anp
import numba
import numpy as np
from autograd.scipy.special import logsumexp
from autograd.scipy.stats import norm
from scipy import special

from .._special import LOG_2PI
from .._validation import bad_parameter
from ._mlp import _backward, _forward_pass

__all__ = ["ENERGIES", "LIKELIHOOD_TERMS", "bbalpha_energy", "bbalpha_energy_and_gradient",
           "exact_site_terms", "gaussian_log_likelihood", "kl_factorized_gaussian",
           "log_sum_exp_and_softmax", "per_coordinate", "probit_log_likelihood",
           "softmax_log_likelihood", "split_factorized_gaussian", "tempered_data_and_gradient",
           "tempered_data_term"]

ENERGIES = ("exact", "reparametrized")


def split_factorized_gaussian(q_params):
    """``(mean, log_variance)``: the two halves of the last axis of ``q_params = [m, log v]``."""
    n_weights = q_params.shape[-1] // 2
    return q_params[..., :n_weights], q_params[..., n_weights:]


def per_coordinate(value):
    """A scalar, or one value per fit (shape (M,)), made to broadcast against (M, P)."""
    return anp.expand_dims(value, -1) if anp.ndim(value) else value


def exact_site_terms(mean, log_variance, prior_variance, alpha, n_total):
    """The site terms of the exact energy and the cavity's mean and standard deviation.

    ``logZ(0, v0) - logZ(q) - (N/alpha)(logZ(cav) - logZ(q))`` written per coordinate with
    precisions ``p = 1/v`` and natural means ``h = m p``: ``logZ = 0.5 log(2 pi) + 0.5 log v
    + h m / 2``, the ``2 pi`` terms cancel, and with ``c = N / alpha``

        sites = 0.5 sum_i [log v0 + c (a_i + b_i) - a_i],
        a_i = log v_i + m_i h_i,   b_i = log p_cav,i - h_cav,i m_cav,i,

    where the cavity ``lam_q - (alpha/N)(lam_q - lam_0)`` has ``p_cav = (1 - alpha/N) p +
    (alpha/N)/v0`` (a valid Gaussian for ``alpha <= N``), ``h_cav = (1 - alpha/N) h`` and
    ``m_cav = h_cav / p_cav``. One expression instead of three log-normalizers: the training
    step's cost is dominated by the number of traced operations. ``mean`` and
    ``log_variance`` have shape (..., P); ``prior_variance`` and ``alpha`` are scalars or
    have the leading shape (...); the sites have the leading shape.
    """
    ratio = per_coordinate(alpha / n_total)
    prior_variance = per_coordinate(prior_variance)
    precision = anp.exp(-log_variance)
    natural = mean * precision
    cavity_precision = (1.0 - ratio) * precision + ratio / prior_variance
    cavity_natural = (1.0 - ratio) * natural
    cavity_mean = cavity_natural / cavity_precision
    a = log_variance + mean * natural
    b = anp.log(cavity_precision) - cavity_natural * cavity_mean
    # alpha = 0 entries (a stack may mix them in): the cavity is q, a + b = 0, and the
    # caller replaces their sites by the KL
    scale = per_coordinate(n_total / np.where(np.asarray(alpha) == 0, 1.0, alpha))
    sites = 0.5 * anp.sum(anp.log(prior_variance) + scale * (a + b) - a, axis=-1)
    return sites, cavity_mean, cavity_precision**-0.5


def kl_factorized_gaussian(mean, log_variance, prior_variance):
    """``KL(prod N(m_i, v_i) || prod N(0, v0))`` in closed form, from ``log v``, summed over
    the last axis (``prior_variance`` a scalar or one value per leading entry)."""
    prior_variance = per_coordinate(prior_variance)
    return 0.5 * anp.sum((anp.exp(log_variance) + mean**2) / prior_variance - log_variance
                         + anp.log(prior_variance) - 1.0, axis=-1)


def tempered_data_term(log_lik, alpha, n_total):
    """``(N / (alpha B)) sum_{n in B} [lse_k(alpha l_kn) - log K]``, the data term of the
    energies, for ``log_lik`` of shape (..., K, B); ``alpha = 0`` gives its limit
    ``(N / B) sum_n mean_k l_kn``. ``alpha`` is a scalar or one value per leading entry
    (zeros among them take the limit)."""
    n_draws, batch_size = log_lik.shape[-2], log_lik.shape[-1]
    vb = (n_total / batch_size) * anp.sum(anp.mean(log_lik, axis=-2), axis=-1)
    if np.ndim(alpha) == 0:
        if alpha == 0:
            return vb
        return (n_total / (alpha * batch_size)) * anp.sum(
            logsumexp(alpha * log_lik, axis=-2) - np.log(n_draws), axis=-1)
    alpha = np.asarray(alpha, dtype=float)
    zero = alpha == 0
    safe = np.where(zero, 1.0, alpha)  # the limit replaces these entries below
    tempered = (n_total / (safe * batch_size)) * anp.sum(
        logsumexp(safe[..., None, None] * log_lik, axis=-2) - np.log(n_draws), axis=-1)
    return anp.where(zero, vb, tempered)


def bbalpha_energy(q_params, log_likelihood, eps, n_total, alpha, prior_variance,
                   energy="exact"):
    """The BB-alpha energy of a mini-batch (module docstring), to be minimized.

    Parameters
    ----------
    q_params : array of shape (..., 2 * P)
        ``[m, log v]`` of the factorized Gaussian ``q`` (a leading axis stacks several
        ``q``, e.g. one per fit).
    log_likelihood : callable
        ``log_likelihood(weights)`` with ``weights`` of shape (..., K, P) returns the array
        ``log p(y_n | x_n, w_k)`` of shape (..., K, B) for the mini-batch.
    eps : ndarray of shape (..., K, P)
        Standard-normal base draws.
    n_total : int
        Size ``N`` of the whole training set (the mini-batch sum is scaled by ``N / B``).
    alpha : float or ndarray of the leading shape
        Divergence order, ``alpha >= 0``; ``0`` gives the VB energy directly.
    prior_variance : float or array of the leading shape
        ``v0`` (may be an autograd value when it is learned).
    energy : {"exact", "reparametrized"}

    Returns
    -------
    float or array of the leading shape
        The Monte-Carlo estimate of the energy.
    """
    if energy not in ENERGIES:
        raise bad_parameter("bbalpha_energy", "energy", f"one of {ENERGIES}", energy,
                            "'exact' is the BB-alpha paper's energy.")
    mean, log_variance = split_factorized_gaussian(q_params)
    zero = np.asarray(alpha) == 0
    if energy == "exact" and not np.all(zero):
        sites, cavity_mean, cavity_sd = exact_site_terms(mean, log_variance, prior_variance,
                                                         alpha, n_total)
        if np.any(zero):  # the VB limit of these fits: their cavity is q, their sites the KL
            sites = anp.where(zero, kl_factorized_gaussian(mean, log_variance, prior_variance),
                              sites)
        draws = _per_draw(cavity_mean) + _per_draw(cavity_sd) * eps
    else:  # the reparametrized energy, and the VB energy at alpha = 0
        draws = _per_draw(mean) + _per_draw(anp.exp(0.5 * log_variance)) * eps
        sites = kl_factorized_gaussian(mean, log_variance, prior_variance)
    return sites - tempered_data_term(log_likelihood(draws), alpha, n_total)


def _per_draw(value):
    """(..., P) made to broadcast against draws (..., K, P)."""
    return anp.expand_dims(value, -2)


def gaussian_log_likelihood(outputs, y, noise_variance):
    """``log N(y_n; f_k(x_n), noise_variance)`` for outputs of shape (K, B)."""
    return -0.5 * (LOG_2PI + anp.log(noise_variance)) - (y - outputs)**2 / (2.0 * noise_variance)


def probit_log_likelihood(outputs, y_sign):
    """``log Phi(y_n f_k(x_n))`` with labels ``y_sign`` in {-1, +1}, outputs of shape (K, B)."""
    return norm.logcdf(y_sign * outputs)


def softmax_log_likelihood(outputs, y_one_hot):
    """``log softmax(f_k(x_n))[y_n]`` for outputs (K, B, C) and one-hot labels (B, C)."""
    return anp.sum(outputs * y_one_hot, axis=-1) - logsumexp(outputs, axis=-1)


# -- the training hot path: the energy and its gradient derived by hand ---------------------
#
# ``bbalpha_energy`` above is the readable definition, differentiated by autograd; tracing
# its ~50 operations costs more than the arithmetic at the papers' sizes. The function below
# computes the same energy for a stack of M fits with its gradient by the chain rule through
# the same steps (sites, cavity, draws, network, likelihood, log-sum-exp), in plain NumPy;
# tests/blackbox/test_energies.py checks value and gradient against autograd on
# ``bbalpha_energy`` for every energy, likelihood and alpha.

def log_sum_exp_and_softmax(values, axis):
    """``logsumexp`` of ``values`` over ``axis`` (the axis kept, length 1) and the softmax
    over it, in plain NumPy with the maximum shifted out: scipy's array-API versions cost
    about 0.2 ms a call at the training step's sizes, a third of a BB-alpha step."""
    top = np.max(values, axis=axis, keepdims=True)
    shifted = np.exp(values - top)
    total = np.sum(shifted, axis=axis, keepdims=True)
    return top + np.log(total), shifted / total


def tempered_data_and_gradient(log_lik, alpha, n_total):
    """:func:`tempered_data_term` of a stack, ``log_lik`` (M, K, B) and ``alpha`` (M,) in
    the same precision, with its gradient in closed form: ``dD/dl_kn = (N / B)
    softmax_k(alpha l_kn)``, ``N / (K B)`` at ``alpha = 0``. The training steps' one
    writing of the data term (BB-alpha's and AADM's)."""
    n_draws, batch = log_lik.shape[1], log_lik.shape[2]
    zero = alpha == 0
    safe = np.where(zero, 1.0, alpha)[:, None, None]
    log_normalizer, softmax = log_sum_exp_and_softmax(safe * log_lik, 1)
    tempered_sum = np.sum(log_normalizer[:, 0] - math.log(n_draws), axis=1)
    data = np.where(zero, (n_total / batch) * np.sum(np.mean(log_lik, axis=1), axis=1),
                    n_total / (safe[:, 0, 0] * batch) * tempered_sum)
    responsibility = np.where(zero[:, None, None], 1.0 / n_draws, softmax)
    return data, (n_total / batch) * responsibility


def _gaussian_terms(outputs, targets, noise_variance):
    """``(l, dl/df, dl/dsigma^2)`` of ``log N(y; f, sigma^2)``; outputs (M, K, B, 1),
    targets (M, 1, B), ``noise_variance`` (M,)."""
    s2 = noise_variance[:, None, None]
    residual = targets - outputs[..., 0]
    log_lik = -0.5 * (LOG_2PI + np.log(s2)) - residual**2 / (2.0 * s2)
    return log_lik, (residual / s2)[..., None], -0.5 / s2 + residual**2 / (2.0 * s2**2)


def _probit_terms(outputs, targets, noise_variance):
    """``log Phi(y f)`` with ``y`` in {-1, +1}: ``dl/df = y phi(y f) / Phi(y f)``."""
    z = targets * outputs[..., 0]
    log_lik = special.log_ndtr(z)
    ratio = np.exp(-0.5 * z**2 - 0.5 * LOG_2PI - log_lik)
    return log_lik, (targets * ratio)[..., None], None


def _softmax_terms(outputs, targets, noise_variance):
    """``f_y - lse(f)`` with one-hot targets (M, 1, B, C): ``dl/df = t - softmax(f)``."""
    log_normalizer, probabilities = log_sum_exp_and_softmax(outputs, -1)
    log_lik = np.sum(outputs * targets, axis=-1) - log_normalizer[..., 0]
    return log_lik, targets - probabilities, None


LIKELIHOOD_TERMS = {"gaussian": _gaussian_terms, "probit": _probit_terms,
                    "softmax": _softmax_terms}


# error_model="numpy": divisions without a ZeroDivisionError branch, so the loop can vectorize
@numba.njit(cache=True, error_model="numpy")
def _site_terms(mean, log_variance, prior_variance, r, c, tempered):
    """Per fit ``m``: the energy's first term and its gradient, and the centre and scale of
    the draws ``w = centre + scale eps`` with their derivatives by ``(m, log v, v0)``.

    A fit with ``tempered[m]`` has the exact energy's tied sites (Hernández-Lobato et al.
    2016, eq. 12): with ``p = 1/v``, ``h = m p``, the cavity ``p_c = (1 - r) p + r / v0``,
    ``h_c = (1 - r) h``, ``m_c = h_c / p_c``, ``s_c = p_c^(-1/2)`` (``r = alpha / N``) and
    ``sites = sum_j [log v0 + c (a + b) - a] / 2``, ``a = log v + m h``, ``b = log p_c -
    h_c m_c``, ``c = N / alpha``; the draws are centred on the cavity. The others have
    ``KL(q || p0)`` and draws from ``q``. Each fit's arithmetic is its own whatever the
    other fits of a stack (a VB fit stacked with tempered ones is bitwise its fit alone),
    in one pass over the weights instead of some forty array operations.

    Returns ``sites`` (M,), ``grad_m``, ``grad_lv`` (M, P), ``grad_v0`` (M,), ``centre``,
    ``scale``, ``dmc_dm``, ``dmc_dlv``, ``dmc_dv0``, ``dsc_dlv``, ``dsc_dv0`` (M, P).
    """
    n_fits, n_weights = mean.shape
    sites = np.empty(n_fits, dtype=mean.dtype)
    grad_v0 = np.empty(n_fits, dtype=mean.dtype)
    grad_m, grad_lv = np.empty_like(mean), np.empty_like(mean)
    centre, scale = np.empty_like(mean), np.empty_like(mean)
    dmc_dm, dmc_dlv, dmc_dv0 = np.empty_like(mean), np.empty_like(mean), np.empty_like(mean)
    dsc_dlv, dsc_dv0 = np.empty_like(mean), np.empty_like(mean)
    for f in range(n_fits):
        v0 = prior_variance[f]
        log_v0 = np.log(v0)
        total, total_v0 = 0.0, 0.0
        for j in range(n_weights):
            mu, lv = mean[f, j], log_variance[f, j]
            variance = np.exp(lv)
            if not tempered[f]:
                total += 0.5 * ((variance + mu * mu) / v0 - lv + log_v0 - 1.0)
                total_v0 += 0.5 * (1.0 / v0 - (variance + mu * mu) / v0**2)
                grad_m[f, j] = mu / v0
                grad_lv[f, j] = 0.5 * (variance / v0 - 1.0)
                sd = np.sqrt(variance)
                centre[f, j], scale[f, j] = mu, sd
                dmc_dm[f, j], dmc_dlv[f, j], dmc_dv0[f, j] = 1.0, 0.0, 0.0
                dsc_dlv[f, j], dsc_dv0[f, j] = 0.5 * sd, 0.0
                continue
            rf, cf = r[f], c[f]
            precision = 1.0 / variance
            natural = mu * precision
            cavity_precision = (1.0 - rf) * precision + rf / v0
            cavity_natural = (1.0 - rf) * natural
            cavity_mean = cavity_natural / cavity_precision
            cavity_sd = cavity_precision**-0.5
            a = lv + mu * natural
            b = np.log(cavity_precision) - cavity_natural * cavity_mean
            total += 0.5 * (log_v0 + cf * (a + b) - a)
            d_pc_d_lv = -(1.0 - rf) * precision
            d_pc_d_v0 = -rf / v0**2
            db_dm = -2.0 * (1.0 - rf) * precision * cavity_mean
            db_dlv = (d_pc_d_lv / cavity_precision + 2.0 * cavity_natural * cavity_mean
                      + cavity_mean**2 * d_pc_d_lv)
            db_dv0 = d_pc_d_v0 * (1.0 / cavity_precision + cavity_mean**2)
            grad_m[f, j] = 0.5 * ((cf - 1.0) * 2.0 * natural + cf * db_dm)
            grad_lv[f, j] = 0.5 * ((cf - 1.0) * (1.0 - mu * natural) + cf * db_dlv)
            total_v0 += 0.5 * (1.0 / v0 + cf * db_dv0)
            centre[f, j], scale[f, j] = cavity_mean, cavity_sd
            dmc_dm[f, j] = (1.0 - rf) * precision / cavity_precision
            dmc_dlv[f, j] = -cavity_mean * rf / (v0 * cavity_precision)
            dmc_dv0[f, j] = -cavity_mean / cavity_precision * d_pc_d_v0
            dsc_dlv[f, j] = -0.5 * cavity_sd / cavity_precision * d_pc_d_lv
            dsc_dv0[f, j] = -0.5 * cavity_sd / cavity_precision * d_pc_d_v0
        sites[f], grad_v0[f] = total, total_v0
    return (sites, grad_m, grad_lv, grad_v0, centre, scale, dmc_dm, dmc_dlv, dmc_dv0,
            dsc_dlv, dsc_dv0)


def bbalpha_energy_and_gradient(mean, log_variance, prior_variance, noise_variance, eps,
                                X_batch, targets, alpha, n_total, energy, layer_shapes,
                                activation, likelihood):
    """The BB-alpha energy of ``M`` stacked fits and its gradient, in closed form.

    The energy is :func:`bbalpha_energy` with the network ``f_w`` of
    :mod:`alphavb.blackbox._mlp` and the likelihood ``likelihood``; the gradient is derived
    by hand through its steps (see the comments), equal to autograd's on
    :func:`bbalpha_energy` (tested).

    Parameters
    ----------
    mean, log_variance : ndarray of shape (M, P)
    prior_variance, noise_variance : ndarray of shape (M,)
        ``v0`` and ``sigma^2`` (the latter unused by the classification likelihoods).
    eps : ndarray of shape (M, K, P)
    X_batch : ndarray of shape (M, B, d)
    targets : ndarray of shape (M, B) or (M, B, C)
    alpha : ndarray of shape (M,)
        Divergence orders; zeros give the VB energy.
    n_total : int
    energy : {"exact", "reparametrized"}
    layer_shapes, activation : the network's
    likelihood : {"gaussian", "probit", "softmax"}

    Returns
    -------
    energies : ndarray of shape (M,)
    gradients : tuple of ndarrays
        With respect to ``mean`` (M, P), ``log_variance`` (M, P), ``prior_variance`` (M,)
        and ``noise_variance`` (M,).
    """
    # the scalars of each fit in the parameters' precision (float32 training stays float32)
    alpha, prior_variance, noise_variance = (np.asarray(value, dtype=mean.dtype) for value in
                                             (alpha, prior_variance, noise_variance))
    zero = alpha == 0
    # per fit: the exact energy's sites and cavity, or (VB fits, the reparametrized energy)
    # the KL and q itself, in one pass over the weights (_site_terms)
    tempered = (energy == "exact") & ~zero
    r = np.where(tempered, alpha / n_total, 0.0).astype(mean.dtype)
    c = (n_total / np.where(tempered, alpha, 1.0)).astype(mean.dtype)
    (sites, grad_m, grad_lv, grad_v0, centre, scale, dmc_dm, dmc_dlv, dmc_dv0, dsc_dlv,
     dsc_dv0) = _site_terms(mean, log_variance, prior_variance, r, c, tempered)
    weights = centre[:, None] + scale[:, None] * eps                  # (M, K, P)
    X_draws = X_batch[:, None]
    outputs, saved = _forward_pass(weights, X_draws, layer_shapes, activation)
    log_lik, dl_df, dl_dnoise = LIKELIHOOD_TERMS[likelihood](
        outputs, targets[:, None], noise_variance)                    # (M, K, B), ...
    data, d_data_d_l = tempered_data_and_gradient(log_lik, alpha, n_total)
    d_energy_d_l = -d_data_d_l                                        # (M, K, B)
    upstream = d_energy_d_l[..., None] * dl_df                       # (M, K, B, n_out)
    (grad_w,) = _backward(upstream, weights, X_draws, layer_shapes, activation, saved,
                          argnums=(0,))
    grad_centre = grad_w.sum(axis=1)
    grad_scale = np.sum(grad_w * eps, axis=1)
    grad_m = grad_m + grad_centre * dmc_dm
    grad_lv = grad_lv + grad_centre * dmc_dlv + grad_scale * dsc_dlv
    grad_v0 = grad_v0 + np.sum(grad_centre * dmc_dv0 + grad_scale * dsc_dv0, axis=1)
    grad_noise = (np.zeros_like(noise_variance) if dl_dnoise is None
                  else np.sum(d_energy_d_l * dl_dnoise, axis=(1, 2)))
    return sites - data, (grad_m, grad_lv, grad_v0, grad_noise)
