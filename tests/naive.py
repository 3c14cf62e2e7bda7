"""Slow, obviously correct NumPy references for the tests.

Nothing here is fast or clever: each function follows the formula of the spec line by line
(recomputing residuals from scratch, enumerating models) so that the kernels and the
estimators can be compared against it.
"""

import itertools

import numpy as np
from scipy.special import digamma, expit, gammaln, logsumexp
from scipy.stats import multivariate_normal

from alphavb._special import kl_beta, kl_inv_gamma


def spike_slab_sweep(X, y, phi, mu, s2, tau, elt, logit_pi, alpha, nu):
    """Spec §3 coordinate updates j = 0..d-1, with r_j recomputed from scratch each time."""
    phi, mu, s2 = phi.copy(), mu.copy(), s2.copy()
    for j in range(X.shape[1]):
        mean = phi * mu
        r_j = y - X @ mean + X[:, j] * mean[j]
        xx_j = X[:, j] @ X[:, j]
        s2[j] = 1.0 / (tau * (alpha * xx_j + 1.0 / nu))
        mu[j] = s2[j] * alpha * tau * (X[:, j] @ r_j)
        phi[j] = expit(logit_pi + 0.5 * np.log(s2[j] / nu) + 0.5 * elt + mu[j] ** 2 / (2 * s2[j]))
    return phi, mu, s2


def spike_slab_alpha_elbo(X, y, phi, mu, s2, alpha, nu, noise, pi):
    """The alpha-ELBO of spec §3, term by term, with a sum over j for every KL piece.

    ``noise`` is ``("fixed", sigma2)`` or ``("learned", a_n, b_n, a0, b0)``;
    ``pi`` is ``("fixed", pi)`` or ``("learned", a, b, a0, b0)``.
    """
    n = X.shape[0]
    if noise[0] == "fixed":
        tau, elt, kl_noise = 1.0 / noise[1], -np.log(noise[1]), 0.0
    else:
        _, a_n, b_n, a0, b0 = noise
        tau, elt, kl_noise = a_n / b_n, digamma(a_n) - np.log(b_n), kl_inv_gamma(a_n, b_n, a0, b0)
    if pi[0] == "fixed":
        elog, elog1m, kl_pi = np.log(pi[1]), np.log(1 - pi[1]), 0.0
    else:
        _, a, b, a0, b0 = pi
        elog, elog1m = digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)
        kl_pi = kl_beta(a, b, a0, b0)
    mean = phi * mu
    var = phi * (mu ** 2 + s2) - mean ** 2
    ess = np.sum((y - X @ mean) ** 2) + np.sum(np.sum(X ** 2, axis=0) * var)
    kl_total = 0.0
    for j in range(X.shape[1]):
        p = phi[j]
        ent = (p * np.log(p) if p > 0 else 0.0) + ((1 - p) * np.log(1 - p) if p < 1 else 0.0)
        kl_total += ent - p * elog - (1 - p) * elog1m
        kl_total += p * (-0.5 * np.log(s2[j]) - 0.5 + 0.5 * np.log(nu) - 0.5 * elt
                         + tau * (mu[j] ** 2 + s2[j]) / (2 * nu))
    kl_total += kl_noise + kl_pi
    return -0.5 * n * np.log(2 * np.pi) + 0.5 * n * elt - 0.5 * tau * ess - kl_total / alpha


def spike_slab_enumeration(X, y, alpha, sigma2, nu, pi, Z=None):
    """Exact PIPs and log-normaliser of the alpha-fractional spike-and-slab posterior.

    Sums over all 2^d models ``z``: with the tempered likelihood
    ``N(y | X beta + Z gamma, sigma2)^alpha``, the slab ``N(0, nu sigma2)`` and a flat prior
    on ``gamma`` (no ``Z``: no ``gamma``), the model weight is
    ``pi^|z| (1-pi)^(d-|z|) int N(y | X_z b + Z g, sigma2)^alpha N(b | 0, nu sigma2 I) db dg``.

    Returns
    -------
    pips : ndarray of shape (d,)
    log_normaliser : float
        ``log sum_z p(z) int p(y | beta, gamma)^alpha p(beta | z) dbeta dgamma``.
    """
    n, d = X.shape
    Z = np.zeros((n, 0)) if Z is None else Z
    log_weights, models = [], []
    for z in itertools.product([0, 1], repeat=d):
        idx = np.flatnonzero(z)
        k = len(idx)
        value = k * np.log(pi) + (d - k) * np.log1p(-pi)
        value += -0.5 * n * alpha * np.log(2 * np.pi * sigma2) - alpha * (y @ y) / (2 * sigma2)
        F = np.column_stack([X[:, idx], Z])
        if F.shape[1]:
            prior_precision = np.r_[np.full(k, 1.0 / (nu * sigma2)), np.zeros(Z.shape[1])]
            A = alpha * F.T @ F / sigma2 + np.diag(prior_precision)
            b = alpha * F.T @ y / sigma2
            value += 0.5 * b @ np.linalg.solve(A, b) - 0.5 * np.linalg.slogdet(A)[1]
            value += -0.5 * k * np.log(nu * sigma2) + 0.5 * Z.shape[1] * np.log(2 * np.pi)
        log_weights.append(value)
        models.append(z)
    log_weights = np.array(log_weights)
    log_norm = logsumexp(log_weights)
    probs = np.exp(log_weights - log_norm)
    return probs @ np.array(models, dtype=float), log_norm


def fractional_gaussian_posterior(X, y, alpha, sigma2, prior_precision):
    """Mean and covariance of the alpha-fractional posterior of Bayesian linear regression."""
    precision = alpha * X.T @ X / sigma2 + np.diag(prior_precision)
    cov = np.linalg.inv(precision)
    return cov @ (alpha * X.T @ y / sigma2), cov


def fractional_gaussian_log_normaliser(X, y, alpha, sigma2, prior_precision):
    """``log int N(y | X beta, sigma2 I)^alpha N(beta | 0, diag(1/prior_precision)) dbeta``.

    ``N(y | m, s I)^alpha = (2 pi s)^(n (1 - alpha) / 2) alpha^(-n/2) N(y | m, (s/alpha) I)``,
    and the Gaussian integral of the last factor is ``N(y | 0, (s/alpha) I + X P0^-1 X')``.
    """
    n = X.shape[0]
    cov = sigma2 / alpha * np.eye(n) + X @ np.diag(1.0 / prior_precision) @ X.T
    return (0.5 * n * (1 - alpha) * np.log(2 * np.pi * sigma2) - 0.5 * n * np.log(alpha)
            + multivariate_normal(np.zeros(n), cov).logpdf(y))


def mixture_local_step(X, weight, means, precisions, log_const, scale):
    """Spec §4 local step and weighted statistics, with full precision matrices and logsumexp.

    Returns ``resp, N_k, ybar_k, C_k`` (centred scatter, two passes) and
    ``sum_i w_i sum_k r_ik log r_ik``.
    """
    n_components = means.shape[0]
    log_rho = np.empty((X.shape[0], n_components))
    for k in range(n_components):
        diff = X - means[k]
        log_rho[:, k] = scale * (log_const[k] - 0.5 * np.einsum("ij,jl,il->i", diff,
                                                                 precisions[k], diff))
    log_resp = log_rho - logsumexp(log_rho, axis=1, keepdims=True)
    resp = np.exp(log_resp)
    weighted = resp * weight[:, None]
    nk = weighted.sum(axis=0)
    ybar = weighted.T @ X / nk[:, None]
    scatter = np.array([(X - ybar[k]).T @ ((X - ybar[k]) * weighted[:, k, None])
                        for k in range(n_components)])
    neg_entropy = np.sum(np.where(resp > 0, weighted * log_resp, 0.0))
    return resp, nk, ybar, scatter, neg_entropy


def normal_gamma_log_evidence_1d(x, weight, alpha, m0, b0, psi0, nu0):
    """``log int p(mu, lam) prod_i N(x_i | mu, 1/lam)^(alpha w_i) dmu dlam`` by 2-D quadrature.

    Prior ``lam ~ Gamma(nu0/2, rate=psi0/2)``, ``mu | lam ~ N(m0, 1/(b0 lam))``: the p = 1
    case of the full, diagonal and spherical mixture priors. The integrand is written from
    scipy densities and integrated over ``(mu, log lam)`` around its maximum.
    """
    from scipy import integrate, optimize

    def log_integrand(mu, log_lam):
        lam = np.exp(log_lam)
        shape, rate = 0.5 * nu0, 0.5 * psi0
        log_gamma = shape * np.log(rate) - gammaln(shape) + (shape - 1) * log_lam - rate * lam
        log_mu = 0.5 * (np.log(b0 * lam / (2 * np.pi)) - b0 * lam * (mu - m0) ** 2)
        log_lik = 0.5 * (np.log(lam / (2 * np.pi)) - lam * (x - mu) ** 2)
        return log_gamma + log_lam + log_mu + alpha * np.dot(weight, log_lik)

    start = [np.average(x, weights=weight), -np.log(np.var(x) + 1e-3)]
    best = optimize.minimize(lambda v: -log_integrand(*v), start, method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000})
    mu_hat, t_hat = best.x
    peak = -best.fun

    def half_width(t):  # 12 conditional standard deviations of mu given lam = exp(t)
        return 12.0 / np.sqrt(np.exp(t) * (b0 + alpha * weight.sum()))

    value, _ = integrate.dblquad(
        lambda mu, t: np.exp(log_integrand(mu, t) - peak),
        t_hat - 8.0, t_hat + 8.0, lambda t: mu_hat - half_width(t),
        lambda t: mu_hat + half_width(t), epsabs=0.0, epsrel=1e-11)
    return peak + np.log(value)


def normal_wishart_log_evidence(X, weight, alpha, m0, b0, psi0, nu0):
    """Closed-form ``log int p(mu, Lambda) prod_i N(x_i | mu, Lambda^-1)^(alpha w_i)``.

    Murphy, "Conjugate Bayesian analysis of the Gaussian distribution" (2007), eq. 266, with
    the data counted ``alpha w_i`` times (the 2^(n p / 2) factors cancel, leaving pi).
    """
    from scipy.special import multigammaln

    p = X.shape[1]
    counts = alpha * weight
    n = counts.sum()
    xbar = counts @ X / n
    scatter = (X - xbar).T @ ((X - xbar) * counts[:, None])
    b_n, nu_n = b0 + n, nu0 + n
    psi_n = psi0 + scatter + (b0 * n / b_n) * np.outer(xbar - m0, xbar - m0)
    return (-0.5 * n * p * np.log(np.pi) + multigammaln(0.5 * nu_n, p)
            - multigammaln(0.5 * nu0, p) + 0.5 * nu0 * np.linalg.slogdet(psi0)[1]
            - 0.5 * nu_n * np.linalg.slogdet(psi_n)[1] + 0.5 * p * np.log(b0 / b_n))


def spherical_log_evidence(X, weight, alpha, m0, b0, psi0, nu0):
    """Spherical prior (``Lambda = lam I``, ``lam ~ Gamma(p nu0/2, rate=p psi0/2)``): the
    mean integrated in closed form (a Gaussian convolution), then 1-D quadrature over
    ``log lam``."""
    from scipy import integrate, optimize, stats

    p = X.shape[1]
    counts = alpha * weight
    n = counts.sum()
    xbar = counts @ X / n
    spread = np.sum(counts * np.sum((X - xbar) ** 2, axis=1))
    shrunk = b0 * n / (b0 + n) * np.sum((xbar - m0) ** 2)

    def log_integrand(t):
        lam = np.exp(t)
        return (stats.gamma.logpdf(lam, 0.5 * p * nu0, scale=2.0 / (p * psi0)) + t
                + 0.5 * n * p * (t - np.log(2 * np.pi)) - 0.5 * lam * (spread + shrunk)
                + 0.5 * p * np.log(b0 / (b0 + n)))

    t_hat = optimize.minimize_scalar(lambda t: -log_integrand(t)).x
    peak = log_integrand(t_hat)
    value, _ = integrate.quad(lambda t: np.exp(log_integrand(t) - peak), t_hat - 8.0,
                              t_hat + 8.0, epsabs=0.0, epsrel=1e-12)
    return peak + np.log(value)


def fixed_covariance_log_evidence(X, weight, alpha, m0, b0, covariance):
    """``log int N(mu | m0, I/b0) prod_i N(x_i | mu, Sigma)^(alpha w_i) dmu`` through the
    identity ``log Z = log prior(mu) + alpha loglik(mu) - log posterior(mu)`` at the posterior
    mean (the Gaussian posterior found by completing the square)."""
    p = X.shape[1]
    precision = np.linalg.inv(covariance)
    counts = alpha * weight
    post_cov = np.linalg.inv(b0 * np.eye(p) + counts.sum() * precision)
    post_mean = post_cov @ (b0 * m0 + precision @ (counts @ X))
    loglik = np.sum(counts * multivariate_normal(post_mean, covariance).logpdf(X))
    return (multivariate_normal(m0, np.eye(p) / b0).logpdf(post_mean) + loglik
            - multivariate_normal(post_mean, post_cov).logpdf(post_mean))


def lda_e_step(X_dense, elog_beta, gamma, doc_topic_prior, alpha, scale, max_iter, tol):
    """Spec §5 per-document loop with explicit phi arrays (one document at a time), then the
    topic statistics and ``sum_dv n_dv log Z_dv`` from the final gamma. Returns new arrays."""
    gamma = gamma.copy()
    n_topics = elog_beta.shape[0]
    statistics = np.zeros_like(elog_beta)
    log_norm = 0.0
    for d, counts in enumerate(X_dense):
        words = np.flatnonzero(counts)
        for _ in range(max_iter):
            elog_theta = digamma(gamma[d]) - digamma(gamma[d].sum())
            log_phi = scale * (elog_theta[None, :] + elog_beta[:, words].T)  # (words, K)
            phi = np.exp(log_phi - logsumexp(log_phi, axis=1, keepdims=True))
            updated = doc_topic_prior + alpha * counts[words] @ phi
            change = np.mean(np.abs(updated - gamma[d]))
            gamma[d] = updated
            if change < tol:
                break
        elog_theta = digamma(gamma[d]) - digamma(gamma[d].sum())
        log_phi = scale * (elog_theta[None, :] + elog_beta[:, words].T)
        log_z = logsumexp(log_phi, axis=1)
        statistics[:, words] += (counts[words, None] * np.exp(log_phi - log_z[:, None])).T
        log_norm += counts[words] @ log_z
        assert n_topics == gamma.shape[1]
    return gamma, statistics, log_norm


def lda_alpha_elbo(X_dense, gamma, lam, a, eta, alpha, objective, phi_lam=None):
    """Spec §5 objective, term by term, at q = (phi, gamma, lambda) where phi is the
    phi-update given gamma and ``phi_lam`` (default: ``lam``)."""
    elog_beta = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
    phi_lam = lam if phi_lam is None else phi_lam
    elog_beta_phi = digamma(phi_lam) - digamma(phi_lam.sum(axis=1, keepdims=True))
    elog_theta = digamma(gamma) - digamma(gamma.sum(axis=1, keepdims=True))
    scale = alpha if objective == "fractional" else 1.0
    data, entropy = 0.0, 0.0
    for d, counts in enumerate(X_dense):
        words = np.flatnonzero(counts)
        log_phi = scale * (elog_theta[d][None, :] + elog_beta_phi[:, words].T)
        log_phi -= logsumexp(log_phi, axis=1, keepdims=True)
        phi = np.exp(log_phi)
        data += np.sum(counts[words, None] * phi * (elog_theta[d][None, :] + elog_beta[:, words].T))
        entropy -= np.sum(counts[words, None] * phi * log_phi)

    def kl_dir(q, p):
        return (gammaln(q.sum()) - gammaln(q).sum() - gammaln(p * len(q)) + len(q) * gammaln(p)
                + np.dot(q - p, digamma(q) - digamma(q.sum())))

    kl = sum(kl_dir(g, a) for g in gamma) + sum(kl_dir(row, eta) for row in lam)
    if objective == "fractional":
        return alpha * data + entropy - kl
    return data + entropy - kl / alpha


# -- black-box backend (spec §7) ---------------------------------------------------------

def traced_mlp_forward(weights, X, layer_shapes, activation):
    """The MLP written op by op in autograd.numpy: autograd traces every operation, so its
    gradient is independent of the hand-written VJP of ``alphavb.blackbox._mlp``."""
    import autograd.numpy as anp

    functions = {"relu": lambda h: anp.maximum(h, 0.0), "tanh": anp.tanh,
                 "leaky_relu": lambda h: anp.where(h > 0, h, 0.2 * h),
                 "logistic": lambda h: 1.0 / (1.0 + anp.exp(-h)), "identity": lambda h: h}
    lead, start, hidden = weights.shape[:-1], 0, X
    for layer, (n_in, n_out) in enumerate(layer_shapes):
        W = anp.reshape(weights[..., start:start + n_in * n_out], (*lead, n_in, n_out))
        b = weights[..., start + n_in * n_out:start + n_in * n_out + n_out]
        start += n_in * n_out + n_out
        # one einsum per row of W: written independently of matmul's broadcasting
        hidden = anp.sum(hidden[..., :, :, None] * W[..., None, :, :], axis=-2) \
            + b[..., None, :]
        if layer < len(layer_shapes) - 1:
            hidden = functions[activation](hidden)
    return hidden


def linear_gaussian_exact_energy(q_params, X, y, noise_variance, prior_variance, alpha):
    """The exact BB-alpha energy of ``y = [X, 1] w + N(0, noise_variance)`` in closed form.

    The tempered likelihood is ``p^alpha = (2 pi s2)^((1 - alpha)/2) alpha^(-1/2)
    N(y; f, s2 / alpha)``, and a Gaussian integrated against the Gaussian cavity
    ``N(m_c, diag(v_c))`` gives ``log E_cav[p^alpha] = (1 - alpha)/2 log(2 pi s2)
    - 1/2 log alpha + log N(y; x'm_c, s2/alpha + sum_i x_i^2 v_ci)``. ``alpha = 0`` gives the
    VB energy ``KL(q || p0) + sum_n [1/2 log(2 pi s2) + ((y - x'm)^2 + sum_i x_i^2 v_i)/(2 s2)]``.
    Written independently of ``alphavb.blackbox.energies`` (and differentiable by autograd).
    """
    import autograd.numpy as anp

    n_total = X.shape[0]
    design = np.column_stack([X, np.ones(n_total)])
    n_weights = design.shape[1]
    mean, variance = q_params[:n_weights], anp.exp(q_params[n_weights:])
    log_2pi = np.log(2 * np.pi)

    def log_z(m, v):
        return anp.sum(0.5 * anp.log(2 * np.pi * v) + m**2 / (2 * v))

    kl = 0.5 * anp.sum(variance / prior_variance + mean**2 / prior_variance - 1
                       - anp.log(variance / prior_variance))
    if alpha == 0:
        fitted_var = anp.dot(design**2, variance)
        residual = y - anp.dot(design, mean)
        return kl + anp.sum(0.5 * (log_2pi + np.log(noise_variance))
                            + (residual**2 + fitted_var) / (2 * noise_variance))
    ratio = alpha / n_total
    precision = (1 - ratio) / variance + ratio / prior_variance
    cav_var = 1 / precision
    cav_mean = (1 - ratio) * mean / variance * cav_var
    sites = (0.5 * n_weights * np.log(2 * np.pi * prior_variance) - log_z(mean, variance)
             - (n_total / alpha) * (log_z(cav_mean, cav_var) - log_z(mean, variance)))
    predictive_var = noise_variance / alpha + anp.dot(design**2, cav_var)
    log_tilted = (0.5 * (1 - alpha) * (log_2pi + np.log(noise_variance)) - 0.5 * np.log(alpha)
                  - 0.5 * (log_2pi + anp.log(predictive_var))
                  - (y - anp.dot(design, cav_mean))**2 / (2 * predictive_var))
    return sites - anp.sum(log_tilted) / alpha


def logistic_spike_slab_iteration(X, y, Z, phi, mu, s2, eta, logit_pi, alpha, sa):
    """varbvs's binomial updates, tempered (module docstring of
    ``alphavb.linear_model._spike_slab_logistic``, eqs. (3)-(4)), written with dense
    matrices: ``D^`` and ``y^`` formed explicitly, ``r`` recomputed for every coordinate,
    then ``eta`` from the explicit joint moments of ``t = X beta + Z gamma``."""
    phi, mu, s2 = phi.copy(), mu.copy(), s2.copy()
    u = np.tanh(eta / 2) / (2 * eta)
    D = np.diag(u)
    A = Z.T @ D @ Z
    A_inv = np.linalg.inv(A) if Z.shape[1] else np.zeros((0, 0))
    D_hat = D - D @ Z @ A_inv @ Z.T @ D
    y_hat = (y - 0.5) - D @ Z @ A_inv @ Z.T @ (y - 0.5)
    precision = X.T @ D_hat @ X
    for j in range(X.shape[1]):
        r = phi * mu
        s2[j] = 1.0 / (alpha * precision[j, j] + 1.0 / sa)
        others = precision[j] @ r - precision[j, j] * r[j]
        mu[j] = s2[j] * alpha * (X[:, j] @ y_hat - others)
        phi[j] = expit(logit_pi + 0.5 * np.log(s2[j] / sa) + mu[j] ** 2 / (2 * s2[j]))
    r = phi * mu
    v = phi * (s2 + mu ** 2) - r ** 2
    P = np.eye(len(y)) - Z @ A_inv @ Z.T @ D
    mean_t = P @ X @ r + Z @ A_inv @ Z.T @ (y - 0.5)
    var_t = (P @ X) ** 2 @ v + np.diag(Z @ A_inv @ Z.T) / alpha
    return phi, mu, s2, np.sqrt(mean_t ** 2 + var_t)


def logistic_spike_slab_alpha_elbo(X, y, Z, phi, mu, s2, eta, pi, alpha, sa):
    """The alpha-ELBO under the Jaakkola-Jordan bound, by the uncollapsed route: the optimal
    ``q(gamma | beta) = N(A^{-1} Z'(y - 1/2 - D X beta), (alpha A)^{-1})`` written out, the
    bound's expectation from the explicit joint moments of ``t``, the flat prior's
    ``KL = -entropy(q(gamma | beta))``, and the KL of every ``(beta_j, z_j)`` summed."""
    u = np.tanh(eta / 2) / (2 * eta)
    D = np.diag(u)
    k = Z.shape[1]
    A = Z.T @ D @ Z
    A_inv = np.linalg.inv(A) if k else np.zeros((0, 0))
    r = phi * mu
    v = phi * (s2 + mu ** 2) - r ** 2
    P = np.eye(len(y)) - Z @ A_inv @ Z.T @ D
    mean_t = P @ X @ r + Z @ A_inv @ Z.T @ (y - 0.5)
    second_t = mean_t ** 2 + (P @ X) ** 2 @ v + np.diag(Z @ A_inv @ Z.T) / alpha
    log_sig = -np.log1p(np.exp(-eta))
    bound = np.sum(log_sig - eta / 2 + u * eta ** 2 / 2 + (y - 0.5) * mean_t - u * second_t / 2)
    entropy_gamma = 0.5 * k * np.log(2 * np.pi * np.e) - 0.5 * np.linalg.slogdet(alpha * A)[1] \
        if k else 0.0
    kl = -entropy_gamma
    for j in range(X.shape[1]):
        p = phi[j]
        kl += p * np.log(p / pi) + (1 - p) * np.log((1 - p) / (1 - pi))
        kl += p * (0.5 * np.log(sa / s2[j]) - 0.5 + (mu[j] ** 2 + s2[j]) / (2 * sa))
    return bound - kl / alpha


def logistic_spike_slab_enumeration(X, y, alpha, sa, pi, fit_intercept=True, n_draws=20000,
                                    seed=0):
    """PIPs of the alpha-fractional logistic spike-and-slab posterior by enumerating all 2^d
    models; each model's ``int prod_i p(y_i | t_i)^alpha N(beta_M | 0, sa I) d beta_M
    d intercept`` (flat prior on the intercept) is integrated numerically by importance
    sampling from a multivariate t (5 degrees of freedom) at the Laplace approximation.

    Returns
    -------
    pips : ndarray of shape (d,)
    log_normaliser : float
        ``log sum_M p(M) int ...``, which ``alpha`` times the alpha-ELBO must not exceed.
    """
    rng = np.random.default_rng(seed)
    n, d = X.shape
    df = 5.0
    log_weights, models = [], []
    for z in itertools.product([0, 1], repeat=d):
        idx = np.flatnonzero(z)
        F = np.column_stack([X[:, idx]] + ([np.ones(n)] if fit_intercept else []))
        m = F.shape[1]
        prior_precision = np.array([1.0 / sa] * len(idx) + [0.0] * (m - len(idx)))
        log_prior = len(idx) * np.log(pi) + (d - len(idx)) * np.log1p(-pi)
        log_prior -= 0.5 * len(idx) * np.log(2 * np.pi * sa)
        if m == 0:
            log_weights.append(log_prior + alpha * np.sum(-np.log(2.0) * np.ones(n)))
            models.append(z)
            continue

        theta = np.zeros(m)
        for _ in range(100):  # Newton's method for the mode
            p = expit(F @ theta)
            grad = alpha * F.T @ (y - p) - prior_precision * theta
            hess = alpha * (F * (p * (1 - p))[:, None]).T @ F + np.diag(prior_precision)
            step = np.linalg.solve(hess, grad)
            theta = theta + step
            if np.max(np.abs(step)) < 1e-12:
                break
        p = expit(F @ theta)
        hess = alpha * (F * (p * (1 - p))[:, None]).T @ F + np.diag(prior_precision)
        cov = np.linalg.inv(hess)
        chol = np.linalg.cholesky(cov)
        normal = rng.standard_normal((n_draws, m))
        chi = rng.chisquare(df, size=n_draws)
        draws = theta + (normal @ chol.T) * np.sqrt(df / chi)[:, None]
        maha = np.sum(np.linalg.solve(chol, (draws - theta).T) ** 2, axis=0)
        log_q = (gammaln((df + m) / 2) - gammaln(df / 2) - 0.5 * m * np.log(df * np.pi)
                 - np.sum(np.log(np.diag(chol))) - 0.5 * (df + m) * np.log1p(maha / df))
        t = draws @ F.T
        log_target = (alpha * np.sum(y * t - np.logaddexp(0.0, t), axis=1)
                      - 0.5 * np.sum(prior_precision * draws ** 2, axis=1))
        log_weights.append(log_prior + logsumexp(log_target - log_q) - np.log(n_draws))
        models.append(z)
    log_weights = np.asarray(log_weights)
    post = np.exp(log_weights - logsumexp(log_weights))
    return post @ np.asarray(models, dtype=float), float(logsumexp(log_weights))
