"""numba kernels of the spike-and-slab CAVI sweep (Yang, Pati & Bhattacharya
2020, Cor. 4.2; the updates are in :mod:`alphavb.linear_model._spike_slab`).

Plain functions over arrays; the estimator calls :func:`spike_slab_sweep` once per sweep.
The NumPy reference used in the tests is ``tests/naive.py``.
"""

import math

import numba
import numpy as np

# Reassociation lets LLVM vectorise the dot-product reduction; no flag that assumes away
# NaN or inf is set, so non-finite values still propagate to the objective and are caught.
_REDUCTION_FLAGS = {"reassoc", "contract"}


@numba.njit(cache=True, fastmath=_REDUCTION_FLAGS)
def _column_dot(X, j, v):
    """``X[:, j] @ v``."""
    total = 0.0
    for i in range(X.shape[0]):
        total += X[i, j] * v[i]
    return total


@numba.njit(cache=True)
def _set_block(X, j, residual, phi, mu, s2, mu_j, s2_j, logit):
    """Store ``q(beta_j, z_j)`` = (``phi_j = expit(logit)``, ``mu_j``, ``s2_j``), keep
    ``residual = y - X (phi * mu)`` current, and return the block's Bernoulli negative entropy
    ``phi log phi + (1 - phi) log(1 - phi) = phi logit - softplus(logit)`` (overflow-free)."""
    e = math.exp(-abs(logit))
    phi_j = 1.0 / (1.0 + e) if logit >= 0.0 else e / (1.0 + e)
    delta = phi_j * mu_j - phi[j] * mu[j]
    if delta != 0.0:
        for i in range(X.shape[0]):
            residual[i] -= X[i, j] * delta
    phi[j] = phi_j
    mu[j] = mu_j
    s2[j] = s2_j
    return phi_j * logit - (max(logit, 0.0) + math.log1p(e))


@numba.njit(cache=True)
def _sweep_sums(col_sq_norms, residual, phi, mu, s2, neg_entropy_z):
    """The sums the objective needs after a sweep (returned by both sweeps)."""
    variance_term = 0.0
    slab_second_moment = 0.0
    phi_sum = 0.0
    phi_log_s2 = 0.0
    for j in range(phi.shape[0]):
        # Var_q(beta_j) = phi (mu^2 + s2) - (phi mu)^2, written without cancellation
        variance_term += col_sq_norms[j] * phi[j] * (s2[j] + (1.0 - phi[j]) * mu[j] * mu[j])
        slab_second_moment += phi[j] * (mu[j] * mu[j] + s2[j])
        phi_sum += phi[j]
        phi_log_s2 += phi[j] * math.log(s2[j])
    sq_residual = 0.0
    for i in range(residual.shape[0]):
        sq_residual += residual[i] * residual[i]
    return sq_residual + variance_term, slab_second_moment, phi_sum, phi_log_s2, neg_entropy_z


@numba.njit(cache=True)
def spike_slab_sweep(X, col_sq_norms, residual, phi, mu, s2, tau, elt, logit_pi, alpha,
                     slab_variance):
    """One pass of the coordinate updates ``j = 0..d-1`` of ``q(beta_j, z_j)``
    (module docstring of :mod:`alphavb.linear_model._spike_slab`).

    For each ``j``, with ``r_j = y - sum_{k != j} X_k phi_k mu_k``::

        s2_j = 1 / (tau (alpha ||X_j||^2 + 1/nu))
        mu_j = s2_j alpha tau X_j' r_j
        logit(phi_j) = logit_pi + 0.5 log(s2_j/nu) + 0.5 elt + mu_j^2 / (2 s2_j)

    ``residual = y - X (phi * mu)`` is kept up to date (O(n) per coordinate), so one sweep
    reads each column of ``X`` (Fortran order) from memory once. ``phi``, ``mu``, ``s2`` and
    ``residual`` are updated in place.

    Returns
    -------
    expected_sq_residual : float
        ``E_q ||y - X beta||^2 = ||residual||^2 + sum_j ||X_j||^2 Var_q(beta_j)``.
    slab_second_moment : float
        ``sum_j phi_j (mu_j^2 + s2_j)``.
    phi_sum : float
        ``sum_j phi_j``.
    phi_log_s2 : float
        ``sum_j phi_j log s2_j``.
    neg_entropy_z : float
        ``sum_j phi_j log phi_j + (1 - phi_j) log(1 - phi_j)``.
    """
    inv_nu = 1.0 / slab_variance
    log_nu = math.log(slab_variance)
    log_tau = math.log(tau)
    neg_entropy_z = 0.0
    for j in range(X.shape[1]):
        x_r = _column_dot(X, j, residual) + col_sq_norms[j] * phi[j] * mu[j]
        precision = alpha * col_sq_norms[j] + inv_nu
        log_s2 = -log_tau - math.log(precision)
        s2_j = 1.0 / (tau * precision)
        mu_j = s2_j * alpha * tau * x_r
        logit = logit_pi + 0.5 * (log_s2 - log_nu) + 0.5 * elt + 0.5 * mu_j * mu_j / s2_j
        neg_entropy_z += _set_block(X, j, residual, phi, mu, s2, mu_j, s2_j, logit)
    return _sweep_sums(col_sq_norms, residual, phi, mu, s2, neg_entropy_z)


@numba.njit(cache=True)
def spike_slab_joint_sweep(X, col_sq_norms, residual, phi, mu, s2, new_mu, tau, elt, logit_pi,
                           alpha, slab_variance):
    """The paper's Algorithm 1 sweep after its joint update of the slab means: ``mu`` is
    set to ``new_mu`` (the maximiser over all ``mu`` given ``phi``, computed by the caller),
    ``s2_j = 1 / (tau (alpha ||X_j||^2 + 1/nu))``, then ``phi_j`` for ``j = 0..d-1`` at its
    exact coordinate optimum given everything else::

        logit(phi_j) = logit_pi + 0.5 (log(s2_j / nu) + 1 + elt)
                       - tau (mu_j^2 + s2_j) / (2 nu)
                       + alpha tau (mu_j X_j' r_j - ||X_j||^2 (mu_j^2 + s2_j) / 2)

    (with ``mu_j`` at its own coordinate optimum this is the formula of
    :func:`spike_slab_sweep`). ``residual = y - X (phi * mu)`` is kept up to date; ``phi``,
    ``mu``, ``s2`` and ``residual`` are updated in place. Returns the sums of
    :func:`spike_slab_sweep`.
    """
    n, d = X.shape
    inv_nu = 1.0 / slab_variance
    log_nu = math.log(slab_variance)
    log_tau = math.log(tau)
    for j in range(d):
        delta = phi[j] * (new_mu[j] - mu[j])
        if delta != 0.0:
            for i in range(n):
                residual[i] -= X[i, j] * delta
        mu[j] = new_mu[j]
    neg_entropy_z = 0.0
    for j in range(d):
        precision = alpha * col_sq_norms[j] + inv_nu
        log_s2 = -log_tau - math.log(precision)
        s2_j = 1.0 / (tau * precision)
        mu_j = mu[j]
        x_r = _column_dot(X, j, residual) + col_sq_norms[j] * phi[j] * mu_j
        second = mu_j * mu_j + s2_j
        logit = (logit_pi + 0.5 * (log_s2 - log_nu + 1.0 + elt) - 0.5 * tau * second * inv_nu
                 + alpha * tau * (mu_j * x_r - 0.5 * col_sq_norms[j] * second))
        neg_entropy_z += _set_block(X, j, residual, phi, mu, s2, mu_j, s2_j, logit)
    return _sweep_sums(col_sq_norms, residual, phi, mu, s2, neg_entropy_z)


@numba.njit(cache=True)
def logistic_spike_slab_sweep(X, weights, xty, xdx, XtW, neg_Xr, neg_w, phi, mu, s2, logit_pi,
                              alpha, slab_variance):
    """One pass of the coordinate updates ``j = 0..d-1`` of ``q(beta_j, z_j)`` for the
    logistic spike-and-slab model under the Jaakkola-Jordan bound (module docstring of
    :mod:`alphavb.linear_model._spike_slab_logistic`, eq. (5)).

    With the bound's weights ``u = weights`` held fixed the tempered likelihood is Gaussian
    in ``beta``, with precision matrix ``X' D^ X``, ``D^ = diag(u) - W W'`` (the covariates
    integrated out) and linear term ``X' y^ = xty``. For each ``j``::

        s2_j = 1 / (alpha xdx_j + 1/sa),                xdx_j = (X' D^ X)_jj
        mu_j = s2_j alpha (xty_j - X_j' D^ X r + xdx_j r_j),   r = phi * mu
        logit(phi_j) = logit_pi + 0.5 log(s2_j / sa) + mu_j^2 / (2 s2_j)

    ``neg_Xr = -X r`` and ``neg_w = -W' X r`` (``XtW = X' W``) are kept current, so
    ``X_j' D^ X r = X_j' (u * X r) - XtW_j . W' X r`` costs O(n + k). ``phi``, ``mu``, ``s2``,
    ``neg_Xr`` and ``neg_w`` are updated in place.

    Returns
    -------
    neg_entropy_z : float
        ``sum_j phi_j log phi_j + (1 - phi_j) log(1 - phi_j)``.
    """
    n, d = X.shape
    k = XtW.shape[1]
    inv_sa = 1.0 / slab_variance
    log_sa = math.log(slab_variance)
    neg_entropy_z = 0.0
    for j in range(d):
        x_u_xr = 0.0
        for i in range(n):
            x_u_xr -= X[i, j] * weights[i] * neg_Xr[i]
        for m in range(k):
            x_u_xr += XtW[j, m] * neg_w[m]
        r_j = phi[j] * mu[j]
        s2_j = 1.0 / (alpha * xdx[j] + inv_sa)
        mu_j = s2_j * alpha * (xty[j] - x_u_xr + xdx[j] * r_j)
        logit = logit_pi + 0.5 * (math.log(s2_j) - log_sa) + 0.5 * mu_j * mu_j / s2_j
        neg_entropy_z += _set_block(X, j, neg_Xr, phi, mu, s2, mu_j, s2_j, logit)
        delta = phi[j] * mu_j - r_j
        for m in range(k):
            neg_w[m] -= XtW[j, m] * delta
    return neg_entropy_z


@numba.njit(cache=True)
def linear_prefix_fixed_points(alphas, eigenvalues, z, w, yy, n_rows, a0, b0, tau0, fixed_tau,
                               max_iter, tol):
    """Bayesian linear regression's CAVI on one prefix, for every alpha, in the eigenbasis of
    the whitened centred Gram matrix ``W X'X W = U diag(eigenvalues) U'`` (``z = U' W X'y``,
    ``w = U' W x`` for the next row): the sweep ``tau -> (a0 + alpha n / 2) / (b0 + alpha
    (||y - X m||^2 + tr(X'X V)) / 2)`` of :mod:`alphavb.linear_model._bayes_linear`, with
    ``||y - X m||^2 = yy - 2 c sum(r z^2) + c^2 sum(r^2 lambda z^2)``, ``tr(X'X V) = sum(r
    lambda)``, ``r = 1 / (c lambda + 1)``, ``c = alpha tau``, iterated from ``tau0`` until
    the relative change of ``tau`` is at most ``tol`` (``fixed_tau > 0``: the known
    ``1/sigma2``, no iteration). Returns per alpha ``tau``, ``x' m`` and ``x' V x``."""
    n_alphas, d = alphas.shape[0], eigenvalues.shape[0]
    taus = np.empty(n_alphas)
    means = np.empty(n_alphas)
    variances = np.empty(n_alphas)
    for a in range(n_alphas):
        alpha = alphas[a]
        tau = fixed_tau if fixed_tau > 0.0 else tau0
        shape = a0 + 0.5 * alpha * n_rows
        iterations = 0 if fixed_tau > 0.0 else max_iter
        for _ in range(iterations):
            c = alpha * tau
            fit, fit_sq, trace = 0.0, 0.0, 0.0
            for j in range(d):
                r = 1.0 / (c * eigenvalues[j] + 1.0)
                fit += r * z[j] * z[j]
                fit_sq += r * r * eigenvalues[j] * z[j] * z[j]
                trace += r * eigenvalues[j]
            residual = max(yy - 2.0 * c * fit + c * c * fit_sq, 0.0)
            new_tau = shape / (b0 + 0.5 * alpha * (residual + trace))
            change = abs(new_tau - tau)
            tau = new_tau
            if change <= tol * new_tau:
                break
        c = alpha * tau
        mean, variance = 0.0, 0.0
        for j in range(d):
            r = 1.0 / (c * eigenvalues[j] + 1.0)
            mean += c * r * z[j] * w[j]
            variance += r * w[j] * w[j]
        taus[a], means[a], variances[a] = tau, mean, variance
    return taus, means, variances


# ----------------------------------------------------------------- alpha-SuSiE's single effect

_SQRT_EPS = math.sqrt(2.220446049250313e-16)
_GOLDEN = 0.5 * (3.0 - math.sqrt(5.0))


@numba.njit(cache=True)
def ser_log_evidence(log_v, betahat, shat2, log_prior):
    """``log sum_j pi_j BF_j(V)`` at ``V = exp(log_v)`` (the single effect's evidence,
    :mod:`alphavb.linear_model._susie`), by log-sum-exp."""
    v = math.exp(log_v)
    p = betahat.shape[0]
    terms = np.empty(p)
    largest = -np.inf
    for j in range(p):
        ratio = v / shat2[j]
        z2 = betahat[j] * betahat[j] / shat2[j]
        value = -0.5 * math.log1p(ratio) + 0.5 * z2 * ratio / (1.0 + ratio) + log_prior[j]
        terms[j] = value
        largest = max(largest, value)
    total = 0.0
    for j in range(p):
        total += math.exp(terms[j] - largest)
    return largest + math.log(total)


@numba.njit(cache=True)
def _searched_log_v(x, linear):
    """``log V`` of the search's point ``x``: ``V`` itself on the linear scale (0 and below:
    ``V = 0``, whose evidence is the prior's), ``log V`` on the log scale."""
    if not linear:
        return x
    return math.log(x) if x > 0.0 else -np.inf


@numba.njit(cache=True)
def ser_best_log_prior_variance(betahat, shat2, log_prior, lower, upper, xatol, linear=False):
    """The ``V`` maximising :func:`ser_log_evidence` by Brent's bounded search (golden
    sections and parabolic steps; Brent 1973, ch. 5, the rule of scipy's
    ``minimize_scalar(method="bounded")`` and R's ``optimize``), to ``xatol``: over ``log
    V`` in ``[lower, upper]``, or with ``linear`` over ``V`` itself (susieR 0.16.5's search
    for SuSiE-inf, in ``[0, 1]``). Returns ``(log V, log evidence there)``."""
    a, b = lower, upper
    x = w = v = a + _GOLDEN * (b - a)
    fx = fw = fv = -ser_log_evidence(_searched_log_v(x, linear), betahat, shat2, log_prior)
    step = previous_step = 0.0
    middle = 0.5 * (a + b)
    tol1 = _SQRT_EPS * abs(x) + xatol / 3.0
    tol2 = 2.0 * tol1
    for _ in range(500):
        if abs(x - middle) <= tol2 - 0.5 * (b - a):
            break
        use_golden = True
        if abs(previous_step) > tol1:  # try a parabola through x, w, v
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            older = previous_step
            previous_step = step
            if abs(p) < abs(0.5 * q * older) and q * (a - x) < p < q * (b - x):
                use_golden = False
                step = p / q
                if (x + step - a) < tol2 or (b - x - step) < tol2:
                    step = tol1 if middle >= x else -tol1
        if use_golden:
            previous_step = (a - x) if x >= middle else (b - x)
            step = _GOLDEN * previous_step
        u = x + step if abs(step) >= tol1 else x + (tol1 if step >= 0.0 else -tol1)
        fu = -ser_log_evidence(_searched_log_v(u, linear), betahat, shat2, log_prior)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv = w, fw
            w, fw = x, fx
            x, fx = u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv = w, fw
                w, fw = u, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
        middle = 0.5 * (a + b)
        tol1 = _SQRT_EPS * abs(x) + xatol / 3.0
        tol2 = 2.0 * tol1
    return _searched_log_v(x, linear), -fx

