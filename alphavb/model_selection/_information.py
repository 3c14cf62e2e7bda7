r"""Information matching (Holmes & Walker 2017, Biometrika 104; Lyddon, Holmes & Walker
2019, Biometrika 106, Sec. 3): ``alpha = tr(J I^{-1} J) / tr(J)`` with ``J`` the mean
Hessian of the negative log-likelihood and ``I`` the mean outer product of the per-row
scores, both at the maximum-likelihood estimate. 1 for a correct model in large samples.

Closed forms for Gaussian and logistic regression; for the Gaussian mixture the scores and
the Hessian come from autograd (:func:`sandwich_alpha`). The ratio depends on the
parametrization (``J`` and ``I`` transform as a bilinear form and its inverse): each function
states its own.
"""

import numpy as np


def _needs_rows(n, p):
    if n < 2 * p:
        raise ValueError(f"Information matching estimates a {p} x {p} score covariance from "
                         f"{n} rows; it needs at least 2 rows per parameter ({2 * p}). Use "
                         "method='safebayes' when n is close to the number of parameters.")


def sandwich_ratio(J, I):
    """``tr(J I^{-1} J) / tr(J)`` (``I`` inverted on its range)."""
    from scipy.linalg import pinvh

    return float(np.trace(J @ pinvh(I) @ J) / np.trace(J))


def _design(X, fit_intercept):
    """The design in unit-free coordinates: each column centred (with an intercept) and
    divided by its root mean square (a constant column by 1), then a leading 1 for the
    intercept. The traces of the ratio depend on the parametrization, so without this the
    alpha changed with the units of X (0.98 against 0.40 for one column in other units)."""
    X = np.asarray(X, dtype=float)
    centred = X - X.mean(axis=0) if fit_intercept else X
    scale = np.sqrt(np.mean(centred**2, axis=0))
    tiny = scale <= 1e-12 * np.sqrt(np.mean(X**2, axis=0))
    scaled = centred / np.where(tiny, 1.0, scale)
    return np.column_stack([np.ones(len(X)), scaled]) if fit_intercept else scaled


def information_alpha(X, y, fit_intercept=True, noise_variance=None):
    """Gaussian linear regression at the least-squares ``(b, beta)``, ``sigma2`` the known
    ``noise_variance`` or, when None, profiled at the mean squared residual: per row the
    score is ``x_i r_i / sigma2`` and the Hessian ``x_i x_i' / sigma2``, so ``J = X'X / (n
    sigma2)`` and ``I = sum_i r_i^2 x_i x_i' / (n sigma2^2)`` (``x_i`` the unit-free row of
    :func:`_design`, with a leading 1 for the intercept). Not capped."""
    design = _design(X, fit_intercept)
    n, p = design.shape
    _needs_rows(n, p)
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    variance = residual @ residual / n if noise_variance is None else float(noise_variance)
    # residuals at rounding level (an exact fit) make I rounding noise: refuse them
    if not residual @ residual / n > 1e-20 * max(np.var(y), np.mean(y**2), 1e-300):
        raise ValueError("Information matching: the least-squares fit is exact (every "
                         "residual is 0), so the score covariance is 0 and the ratio is "
                         "undefined. Use method='safebayes' or 'cv'.")
    J = design.T @ design / (n * variance)
    I = (design * residual[:, None] ** 2).T @ design / (n * variance**2)
    return sandwich_ratio(J, I)


def logistic_information_alpha(X, positive, fit_intercept=True, max_iter=100):
    """Logistic regression (``positive`` the 0/1 labels) at the maximum-likelihood ``(b,
    beta)`` by Newton's method: per row the score is ``x_i (y_i - p_i)`` and the Hessian
    ``p_i (1 - p_i) x_i x_i'``. Refuses data whose classes a hyperplane (nearly) separates,
    where the estimate does not exist. Not capped."""
    from scipy.special import expit

    design = _design(X, fit_intercept)
    n, p = design.shape
    _needs_rows(n, p)
    coef = np.zeros(p)
    for _ in range(max_iter):
        prob = expit(design @ coef)
        weights = prob * (1.0 - prob)
        hessian = (design * weights[:, None]).T @ design
        step = np.linalg.lstsq(hessian, design.T @ (positive - prob), rcond=None)[0]
        coef += step
        if np.max(np.abs(design @ coef)) > 30.0:  # fitted probabilities within 1e-13 of 0/1
            break
        if np.max(np.abs(step)) <= 1e-10 * (1.0 + np.max(np.abs(coef))):
            prob = expit(design @ coef)
            J = (design * (prob * (1.0 - prob))[:, None]).T @ design / n
            I = (design * ((positive - prob) ** 2)[:, None]).T @ design / n
            return sandwich_ratio(J, I)
    raise ValueError("Information matching needs the maximum-likelihood estimate of the "
                     "logistic regression, which does not exist here: the classes are "
                     "(nearly) separated by a hyperplane of X. Use method='safebayes' or "
                     "'calibrate'.")


def sandwich_alpha(row_loglik, theta):
    """:func:`sandwich_ratio` at ``theta`` by autograd: ``row_loglik(Theta)`` returns the
    log-likelihood of each row ``i`` at the parameters ``Theta[i]`` when ``Theta`` has one
    row per data row, and at ``Theta[0]`` for every row when it has one. The per-row scores
    are then one gradient of ``sum_i l_i(Theta_i)`` (no loop over rows) and ``J`` the Hessian
    of the mean."""
    import autograd
    import autograd.numpy as anp

    theta = np.asarray(theta, dtype=float)
    n = len(row_loglik(theta[None]))
    _needs_rows(n, theta.size)
    scores = autograd.grad(lambda rows: anp.sum(row_loglik(rows)))(np.tile(theta, (n, 1)))
    J = -autograd.hessian(lambda t: anp.mean(row_loglik(t[None])))(theta)
    eigenvalues = np.linalg.eigvalsh(0.5 * (J + J.T))
    if eigenvalues[0] <= 1e-10 * eigenvalues[-1]:
        raise ValueError("Information matching: the Hessian of the log-likelihood is not "
                         "positive definite at the estimate (a parameter the data do not "
                         "determine). Use method='safebayes' or 'calibrate'.")
    return sandwich_ratio(J, scores.T @ scores / n)


def _lower_triangular(p):
    """Constant maps from the ``p (p + 1) / 2`` free entries of a lower-triangular factor
    (diagonal on the log scale) to its flattened ``p x p`` entries."""
    rows, cols = np.tril_indices(p)
    off = np.zeros((p * p, len(rows)))
    diag = np.zeros((p * p, len(rows)))
    for j, (r, c) in enumerate(zip(rows, cols, strict=True)):
        (diag if r == c else off)[r * p + c, j] = 1.0
    return rows, cols, off, diag


class _MixtureParameters:
    """Unconstrained parameters of a Gaussian mixture's likelihood: weights as log-ratios to
    the last component (unless ``fixed_weights``), the means, and the lower Cholesky factors
    ``L_k`` of the precisions with log-diagonals (full, one shared for tied; log-precisions
    for diag and spherical; none for fixed)."""

    def __init__(self, model, keep):
        from ..mixture._families import family_of

        p = model.means_.shape[1]
        self.K, self.p, self.family = len(keep), p, family_of(model)
        self.free_weights = model.fixed_weights_ is None
        weights = model.weights_[keep] / model.weights_[keep].sum()
        chol = np.linalg.cholesky(np.broadcast_to(
            self.family.as_matrices(model.precisions_, p), (len(model.weights_), p, p))[keep])
        self.fixed_log_weights = np.log(weights)
        self.fixed_chol = chol
        rows, cols, off, diag = _lower_triangular(p)
        self.maps = (rows, cols, off, diag, (rows == cols).astype(float))
        pieces = [np.log(weights[:-1] / weights[-1])] if self.free_weights else []
        pieces.append(model.means_[keep].ravel())
        pieces += self.family.free_factors(chol, self.maps)
        self.theta = np.concatenate(pieces)

    def unpack(self, theta):
        """``(log_weights (r, K), means (r, K, p), chol (r, K, p, p))`` from ``theta`` (r, m)."""
        import autograd.numpy as anp
        from autograd.scipy.special import logsumexp

        K, p, r = self.K, self.p, theta.shape[0]
        at = 0
        if self.free_weights:
            ratios = anp.concatenate([theta[:, :K - 1], anp.zeros((r, 1))], axis=1)
            log_weights = ratios - logsumexp(ratios, axis=1, keepdims=True)
            at = K - 1
        else:
            log_weights = self.fixed_log_weights[None] + anp.zeros((r, 1))
        means = anp.reshape(theta[:, at:at + K * p], (r, K, p))
        at += K * p
        chol = self.family.factors(theta, at, K, p, self.maps, self.fixed_chol)
        return log_weights, means, chol


def mixture_information_alpha(model, X, keep):
    """Gaussian mixture at the maximum-likelihood estimate, found by L-BFGS from the plug-in
    estimate of ``model`` (an alpha = 1 fit) over the components ``keep``, in the
    parametrization of ``_MixtureParameters``; scores and Hessian by autograd. Not capped."""
    import autograd
    import autograd.numpy as anp
    from scipy.optimize import minimize

    from ..mixture._density import mixture_log_density

    parameters = _MixtureParameters(model, keep)
    X = np.asarray(X, dtype=float)

    def row_loglik(theta):
        return mixture_log_density(X, *parameters.unpack(theta))

    def objective(theta):
        return -anp.mean(row_loglik(theta[None]))

    _needs_rows(len(X), parameters.theta.size)
    gradient = autograd.grad(objective)
    result = minimize(objective, parameters.theta, jac=gradient, method="L-BFGS-B",
                      options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 2000})
    if not np.all(np.isfinite(result.x)) or np.max(np.abs(gradient(result.x))) > 1e-5:
        raise ValueError("Information matching: the mixture's maximum-likelihood estimate "
                         "was not found from the alpha = 1 fit (a component may collapse "
                         "onto few points). Use fewer n_components, or method='safebayes' "
                         "or 'calibrate'.")
    return sandwich_alpha(row_loglik, result.x)
