r"""Black-box alpha (BB-alpha) energies as pure functions of a flat parameter vector.

Hernández-Lobato, Li, Rowland, Hernández-Lobato, Bui & Turner, "Black-box alpha
divergence minimization", ICML 2016 (BB-alpha); spec §7. Here ``alpha`` is the order of
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

import autograd.numpy as anp
import numpy as onp
from autograd.scipy.special import logsumexp
from autograd.scipy.stats import norm

ENERGIES = ("exact", "reparametrized")
LOG_2PI = float(onp.log(2 * onp.pi))


def split_factorized_gaussian(q_params):
    """``(mean, log_variance)``: the two halves of ``q_params = [m, log v]``."""
    n_weights = q_params.shape[0] // 2
    return q_params[:n_weights], q_params[n_weights:]


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
    step's cost is dominated by the number of traced operations.
    """
    ratio = alpha / n_total
    precision = anp.exp(-log_variance)
    natural = mean * precision
    cavity_precision = (1.0 - ratio) * precision + ratio / prior_variance
    cavity_natural = (1.0 - ratio) * natural
    cavity_mean = cavity_natural / cavity_precision
    a = log_variance + mean * natural
    b = anp.log(cavity_precision) - cavity_natural * cavity_mean
    sites = 0.5 * (mean.shape[0] * anp.log(prior_variance)
                   + anp.sum((n_total / alpha) * (a + b) - a))
    return sites, cavity_mean, cavity_precision**-0.5


def kl_factorized_gaussian(mean, log_variance, prior_variance):
    """``KL(prod N(m_i, v_i) || prod N(0, v0))`` in closed form, from ``log v``."""
    return 0.5 * (anp.sum((anp.exp(log_variance) + mean**2) / prior_variance - log_variance)
                  + mean.shape[0] * (anp.log(prior_variance) - 1.0))


def tempered_data_term(log_lik, alpha, n_total):
    """``(N / (alpha B)) sum_{n in B} [lse_k(alpha l_kn) - log K]``, the data term of the
    energies, for ``log_lik`` of shape (K, B); ``alpha = 0`` gives its limit
    ``(N / B) sum_n mean_k l_kn``."""
    n_draws, batch_size = log_lik.shape[0], log_lik.shape[1]
    if alpha == 0:
        return (n_total / batch_size) * anp.sum(anp.mean(log_lik, axis=0))
    return (n_total / (alpha * batch_size)) * anp.sum(
        logsumexp(alpha * log_lik, axis=0) - onp.log(n_draws))


def bbalpha_energy(q_params, log_likelihood, eps, n_total, alpha, prior_variance,
                   energy="exact"):
    """The BB-alpha energy of a mini-batch (module docstring), to be minimized.

    Parameters
    ----------
    q_params : array of shape (2 * P,)
        ``[m, log v]`` of the factorized Gaussian ``q``.
    log_likelihood : callable
        ``log_likelihood(weights)`` with ``weights`` of shape (K, P) returns the array
        ``log p(y_n | x_n, w_k)`` of shape (K, B) for the mini-batch.
    eps : ndarray of shape (K, P)
        Standard-normal base draws.
    n_total : int
        Size ``N`` of the whole training set (the mini-batch sum is scaled by ``N / B``).
    alpha : float
        Divergence order, ``alpha >= 0``; ``0`` gives the VB energy directly.
    prior_variance : float
        ``v0`` (may be an autograd value when it is learned).
    energy : {"exact", "reparametrized"}

    Returns
    -------
    float
        The Monte-Carlo estimate of the energy.
    """
    mean, log_variance = split_factorized_gaussian(q_params)
    if energy == "exact" and alpha > 0:
        sites, cavity_mean, cavity_sd = exact_site_terms(mean, log_variance, prior_variance,
                                                         alpha, n_total)
        log_lik = log_likelihood(cavity_mean + cavity_sd * eps)
    elif energy in ENERGIES:  # the reparametrized energy, and the VB energy at alpha = 0
        log_lik = log_likelihood(mean + anp.exp(0.5 * log_variance) * eps)
        sites = kl_factorized_gaussian(mean, log_variance, prior_variance)
    else:
        raise ValueError(f"energy must be one of {ENERGIES}, got {energy!r}.")
    return sites - tempered_data_term(log_lik, alpha, n_total)


def gaussian_log_likelihood(outputs, y, noise_variance):
    """``log N(y_n; f_k(x_n), noise_variance)`` for outputs of shape (K, B)."""
    return -0.5 * (LOG_2PI + anp.log(noise_variance)) - (y - outputs)**2 / (2.0 * noise_variance)


def probit_log_likelihood(outputs, y_sign):
    """``log Phi(y_n f_k(x_n))`` with labels ``y_sign`` in {-1, +1}, outputs of shape (K, B)."""
    return norm.logcdf(y_sign * outputs)


def softmax_log_likelihood(outputs, y_one_hot):
    """``log softmax(f_k(x_n))[y_n]`` for outputs (K, B, C) and one-hot labels (B, C)."""
    return anp.sum(outputs * y_one_hot, axis=-1) - logsumexp(outputs, axis=-1)
