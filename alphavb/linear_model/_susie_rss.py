"""alpha-SuSiE on summary statistics: z-scores and an LD matrix (Zou, Carbonetto, Wang &
Stephens 2022, PLoS Genetics 18:e1010299), and the check of z against R.

From the z-scores ``z_j`` of ``n`` univariate regressions and the correlation matrix ``R``,
``z~_j = z_j sqrt((n - 1) / (z_j^2 + n - 2))`` is ``sqrt(n - 1)`` times the sample
correlation of ``x_j`` and ``y`` (the t-statistic's identity ``z^2 = r^2 (n - 2) / (1 -
r^2)``), so standardized data have the sufficient statistics

    X'X = (n - 1) R,   X'y = sqrt(n - 1) z~,   y'y = n - 1,

and the sweep of :mod:`alphavb.linear_model._susie` runs on them (susieR's ``susie_rss``
with ``n``, through ``susie_suff_stat``). With the in-sample ``R`` these are the data's own
statistics, so the fit is the individual-data fit of the standardized data (which has the
same PIPs and credible sets as the fit of the raw data). The tempered likelihood is
tempered there in the same way: the single effects see the residual variance ``sigma2 /
alpha``. ``regularization`` ``lambda`` replaces ``R`` by ``(1 - lambda) R + lambda I``.

:func:`ld_mismatch_diagnostic` is susieR's ``kriging_rss``: under the null ``z ~ N(0,
R_s)``, ``R_s = (1 - s) R + s I`` with ``s`` estimated by maximum likelihood, each ``z_j``
given the others is normal (its conditional mean and variance from the precision
``R_s^{-1}``); a ``z_j`` far from its conditional mean, whose sign flip is much likelier
under a scale mixture of that conditional (the log-likelihood ratio), points to an allele
coded the other way or an ``R`` that does not match the sample.
"""

from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar

from .._validation import bad_parameter

# eigenvalues of R below this count as 0 in the LD diagnostic (susieR's r_tol); R is
# positive semi-definite when its smallest is above -p times it (p bounds the largest)
EIGENVALUE_TOLERANCE = 1e-8


class SummaryStatistics(NamedTuple):
    """The sufficient statistics of standardized data that ``z``, ``R`` and ``n`` give
    (module docstring), and the (regularised) correlation matrix."""

    gram: np.ndarray
    zty: np.ndarray
    yty: float
    correlation: np.ndarray


def check_ld(owner, R, n_features, regularization=0.0):
    """``R`` as a float array, checked: square of side ``n_features``, finite, symmetric,
    unit diagonal, positive semi-definite; then ``(1 - lambda) R + lambda I``. The
    ``ValueError`` says how far ``R`` is from each and offers the fix."""
    R = np.array(R, dtype=float)  # a copy: the caller's matrix is never changed
    if R.shape != (n_features, n_features):
        raise bad_parameter(owner, "R", f"a ({n_features}, {n_features}) correlation matrix, "
                            "one row and column per z-score", f"shape {R.shape}")
    if not np.all(np.isfinite(R)):
        raise bad_parameter(owner, "R", "finite correlations",
                            f"{int(np.sum(~np.isfinite(R)))} NaN or infinite entries",
                            "Drop the variables whose correlations are missing.")
    asymmetry = float(np.max(np.abs(R - R.T)))
    if asymmetry > 1e-8 * max(1.0, float(np.max(np.abs(R)))):
        raise bad_parameter(owner, "R", "a symmetric matrix", f"|R - R'| up to {asymmetry:.3g}",
                            "Pass (R + R.T) / 2 if the asymmetry is rounding.")
    diagonal = np.diag(R)
    if np.max(np.abs(diagonal - 1.0)) > 1e-6:
        raise bad_parameter(owner, "R", "a correlation matrix (unit diagonal)",
                            f"diagonal entries from {diagonal.min():.4g} to "
                            f"{diagonal.max():.4g}",
                            "Pass the correlations (e.g. np.corrcoef of the reference "
                            "genotypes), not covariances.")
    tolerance = EIGENVALUE_TOLERANCE * n_features  # the largest eigenvalue is <= p
    regularised = R if not regularization else \
        (1.0 - regularization) * R + regularization * np.eye(n_features)
    if _positive_semi_definite(regularised, tolerance):
        return regularised
    smallest = float(np.linalg.eigvalsh(R)[0])
    if not regularization:
        lam = -smallest / (1.0 - smallest)
        raise bad_parameter(owner, "R", "a positive semi-definite matrix",
                            f"a smallest eigenvalue of {smallest:.3g}",
                            f"Pass regularization={lam:.2g} or more (R is then "
                            "(1 - lambda) R + lambda I, whose smallest eigenvalue is 0 at "
                            "that lambda), or an R from more reference samples.")
    raise bad_parameter(owner, "regularization", "a lambda that makes R positive "
                        "semi-definite", regularization,
                        f"Its smallest eigenvalue is still "
                        f"{(1.0 - regularization) * smallest + regularization:.3g}; pass "
                        f"at least {-smallest / (1.0 - smallest):.2g}.")


def _positive_semi_definite(R, tolerance):
    """Whether ``R + tolerance I`` has a Cholesky factor (``R``'s smallest eigenvalue is
    above ``-tolerance``, up to rounding): a fifth of an eigendecomposition's work."""
    try:
        np.linalg.cholesky(R + tolerance * np.eye(R.shape[0]))
    except np.linalg.LinAlgError:
        return False
    return True


def check_z(owner, z):
    """``z`` as a finite 1-D float array (a copy)."""
    z = np.array(z, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise bad_parameter(owner, "z", "a 1-D array of z-scores, one per variable",
                            f"shape {z.shape}")
    missing = np.flatnonzero(~np.isfinite(z))
    if missing.size:
        raise bad_parameter(owner, "z", "finite z-scores",
                            f"NaN or infinite values at {missing[:5].tolist()}",
                            "Drop those variables from z and R (or impute their z-scores, "
                            "e.g. as 0, which susieR does silently).")
    return z


def check_n_samples(owner, n_samples):
    if n_samples is None:
        raise bad_parameter(owner, "n_samples", "the number of rows behind the z-scores",
                            None, "Pass n_samples (a rough value is better than none: "
                            "without it the fit would assume n is infinite).")
    if not (np.isscalar(n_samples) and np.isfinite(n_samples) and n_samples > 2):
        raise bad_parameter(owner, "n_samples", "a number of rows above 2", n_samples)
    return float(n_samples)


def reference_ld(owner, reference_X):
    """The correlation matrix of a reference panel's columns; a constant column (no
    correlation) is refused."""
    from sklearn.utils import check_array

    panel = check_array(reference_X, dtype=np.float64, input_name="reference_X")
    constant = np.flatnonzero(panel.std(axis=0) <= 1e-12 * np.abs(panel).max(initial=1.0))
    if constant.size or panel.shape[0] < 2:
        raise bad_parameter(owner, "reference_X", "at least 2 rows and columns that vary",
                            f"constant column(s) {constant[:5].tolist()}" if constant.size
                            else f"{panel.shape[0]} row", "Drop those variants from z and "
                            "the panel: their correlations are undefined.")
    return np.corrcoef(panel, rowvar=False)


def summary_statistics(owner, z, R, n_samples, regularization=0.0):
    """:class:`SummaryStatistics` of ``z``, ``R`` and ``n`` (module docstring), checked."""
    n = check_n_samples(owner, n_samples)
    if not (np.isscalar(regularization) and 0.0 <= regularization < 1.0):
        raise bad_parameter(owner, "regularization", "a lambda in [0, 1)", regularization)
    z = check_z(owner, z)
    R = check_ld(owner, R, z.size, float(regularization))
    adjusted = z * np.sqrt((n - 1.0) / (z * z + n - 2.0))
    return SummaryStatistics((n - 1.0) * R, np.sqrt(n - 1.0) * adjusted, n - 1.0, R)


class LDMismatch(NamedTuple):
    """:func:`ld_mismatch_diagnostic`'s result: per variable the (adjusted) ``z``, its
    conditional mean and variance given the others, the standardized difference and the
    log-likelihood ratio of a flipped sign; ``s`` the estimated inconsistency."""

    z: np.ndarray
    conditional_mean: np.ndarray
    conditional_variance: np.ndarray
    standardized_difference: np.ndarray
    log_lr: np.ndarray
    s: float

    def flagged(self):
        """The variables susieR marks: ``log_lr > 2`` and ``|z| > 2``."""
        return np.flatnonzero((self.log_lr > 2.0) & (np.abs(self.z) > 2.0))


def _mixture_weights(log_likelihood, n_iter=2000, tol=1e-10):
    """The maximum-likelihood weights of a mixture whose components have the given log
    likelihoods (rows: observations), by EM (a concave problem: susieR solves it with
    mixsqp)."""
    shifted = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    weights = np.full(shifted.shape[1], 1.0 / shifted.shape[1])
    previous = -np.inf
    for _ in range(n_iter):
        mixed = shifted @ weights
        value = float(np.sum(np.log(mixed)))
        weights = weights * (shifted / mixed[:, None]).mean(axis=0)
        if value - previous < tol * max(1.0, abs(value)):
            break
        previous = value
    return weights


def ld_mismatch_diagnostic(z, R, n_samples, s=None):
    """susieR's ``kriging_rss``: does ``z`` agree with ``R``? (module docstring).

    Parameters
    ----------
    z : array-like of shape (n_features,)
    R : array-like of shape (n_features, n_features)
        The LD matrix the fit would use (checked as :meth:`AlphaSuSiE.fit_summary` checks
        it).
    n_samples : int
    s : float in [0, 1) or None, default=None
        The inconsistency; None estimates it by maximum likelihood under the null (susieR's
        ``estimate_s_rss``, ``method="null-mle"``): 0 when ``z`` lies in ``R``'s column
        space with the spread ``R`` implies.

    Returns
    -------
    LDMismatch
    """
    owner = "ld_mismatch_diagnostic"
    n = check_n_samples(owner, n_samples)
    z = check_z(owner, z)
    R = check_ld(owner, R, z.size)
    z = z * np.sqrt((n - 1.0) / (z * z + n - 2.0))
    eigenvalues, vectors = np.linalg.eigh(R)
    eigenvalues = np.where(eigenvalues < EIGENVALUE_TOLERANCE, 0.0, eigenvalues)
    projected = vectors.T @ z
    if s is None:
        def negative_log_likelihood(value):
            spread = (1.0 - value) * eigenvalues + value
            return 0.5 * np.sum(np.log(spread)) + 0.5 * np.sum(projected**2 / spread)

        s = float(minimize_scalar(negative_log_likelihood, bounds=(0.0, 1.0),
                                  method="bounded", options={"xatol": 1e-8}).x)
    elif not 0.0 <= s < 1.0:
        raise bad_parameter(owner, "s", "a value in [0, 1)", s)
    spread = (1.0 - s) * eigenvalues + s
    inverse = np.where(spread > 0, 1.0 / np.where(spread > 0, spread, 1.0), 0.0)
    precision = (vectors * inverse) @ vectors.T
    diagonal = np.diag(precision)
    conditional_mean = -(precision @ z - diagonal * z) / diagonal
    conditional_variance = 1.0 / diagonal
    difference = (z - conditional_mean) / np.sqrt(conditional_variance)
    largest = float(np.max(difference**2))
    a_max = 2.0 if largest < 1.0 else 2.0 * np.sqrt(largest)
    n_points = int(np.ceil(np.log2(a_max / 0.8) / np.log2(1.05)))
    grid = 1.05 ** np.arange(-n_points, 1) * a_max
    sd = np.sqrt(conditional_variance)[:, None] * grid

    def log_normal(x):
        return -0.5 * np.log(2.0 * np.pi) - np.log(sd) - 0.5 * (x[:, None] / sd) ** 2

    def log_mixture(log_likelihood):
        top = log_likelihood.max(axis=1)
        return np.log(np.exp(log_likelihood - top[:, None]) @ (weights + 1e-15)) + top

    null = log_normal(z - conditional_mean)
    weights = _mixture_weights(null)
    log_lr = log_mixture(log_normal(z + conditional_mean)) - log_mixture(null)
    return LDMismatch(z, conditional_mean, conditional_variance, difference, log_lr, s)
