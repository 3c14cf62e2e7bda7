"""alpha-VB Bayesian linear regression (Yang, Pati & Bhattacharya 2020, Cor. 4.1).

Model: ``y = X beta + eps``, ``eps ~ N(0, sigma2 I)``, ``beta ~ N(0, diag(1/prior_precision))``,
``sigma2 ~ InvGamma(a0, b0)`` or known. Family ``q(beta) q(sigma2)`` with
``q(beta) = N(m, V)`` (full covariance) and ``q(sigma2) = InvGamma(a_n, b_n)``. CAVI for the
alpha-ELBO (the paper's eq. 2.6; :mod:`alphavb.base`), with ``tau = E[1/sigma2]``::

    V   = (alpha tau X'X + Lambda0)^{-1}
    m   = alpha tau V X'y
    a_n = a0 + alpha n / 2
    b_n = b0 + (alpha / 2) (||y - X m||^2 + tr(X'X V))

With ``sigma2`` known, one update gives ``q(beta)`` equal to the alpha-fractional posterior
``N((alpha X'X/sigma2 + Lambda0)^{-1} alpha X'y / sigma2, (alpha X'X/sigma2 + Lambda0)^{-1})``.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from sklearn.utils.validation import check_is_fitted

from .._special import kl_gaussian_diag_prior
from .._validation import FiniteArray, Real, validate_params
from ._base import (
    AlphaRegressionBase,
    NoiseFactor,
    expected_gaussian_loglik,
    fixed_noise_start,
    noise_block,
    normal_quantile,
    resolve_prior_precision,
    response_variance,
)


@dataclass(frozen=True)
class _LinearData:
    """The (centred) data and resolved priors one fit reads."""

    X: np.ndarray
    y: np.ndarray
    gram: np.ndarray  # X'X (d <= n) or X D^{-1} X' (d > n, the dual)
    xty: np.ndarray
    fixed_variance: float | None
    noise_prior: tuple
    prior_precision: np.ndarray
    n_observations: float  # the likelihood's count: n, or the sum of the weights

    @property
    def dual(self):
        return self.X.shape[1] > self.X.shape[0]


@dataclass(frozen=True)
class _DenseCovariance:
    """``V`` as a (d, d) matrix (the primal update, d <= n)."""

    matrix: np.ndarray

    def diagonal(self):
        return np.diag(self.matrix)

    def dense(self):
        return self.matrix

    def quadratic_along(self, X):
        return np.einsum("ij,jk,ik->i", X, self.matrix, X)

    def draw(self, mean, n_draws, rng):
        return rng.multivariate_normal(mean, self.matrix, size=n_draws)


@dataclass(frozen=True)
class _LowRankCovariance:
    """``V = diag(prior_variance) - factor factor'`` (the dual update, d > n), with
    ``factor = D^{-1} X' L^{-T}``, ``L L' = K = I / c + X D^{-1} X'`` and ``c = alpha tau``."""

    prior_variance: np.ndarray
    factor: np.ndarray
    chol: np.ndarray
    scale: float

    def diagonal(self):
        return self.prior_variance - np.einsum("ij,ij->i", self.factor, self.factor)

    def dense(self):
        return np.diag(self.prior_variance) - self.factor @ self.factor.T

    def quadratic_along(self, X):
        return (X * X) @ self.prior_variance - np.sum((X @ self.factor) ** 2, axis=1)

    def draw(self, mean, n_draws, rng):
        """Exact draws in O(d n) each (Bhattacharya, Chakraborty & Mallick 2016):
        ``u ~ N(0, D^{-1})``, ``e ~ N(0, I_n)``, ``z = u - F (F' D u + L^{-1} e / sqrt(c))``
        has covariance ``D^{-1} - F F' = V``."""
        d, n = self.factor.shape
        u = np.sqrt(self.prior_variance) * rng.standard_normal((n_draws, d))
        e = rng.standard_normal((n_draws, n))
        inner = (u / self.prior_variance) @ self.factor + solve_triangular(
            self.chol, e.T, lower=True).T / np.sqrt(self.scale)
        return mean + u - inner @ self.factor.T


@dataclass(frozen=True)
class _LinearState:
    """``q(beta) = N(mean, cov)`` (``None`` before the first sweep) and ``q(sigma2)``."""

    noise: NoiseFactor
    mean: np.ndarray | None = None
    cov: _DenseCovariance | _LowRankCovariance | None = None


class AlphaLinearRegression(AlphaRegressionBase):
    """Bayesian linear regression fitted by alpha-VB (mean-field normal x inverse-gamma).

    Maximises the alpha-ELBO ``E_q[log p(y | beta, sigma2)] - (1/alpha) KL(q || prior)``
    (Yang, Pati & Bhattacharya 2020, eq. 2.6 and Cor. 4.1) by coordinate ascent over
    ``q(beta) = N(coef_, coef_cov_)`` and ``q(sigma2) = InvGamma(noise_shape_, noise_scale_)``.

    Parameters
    ----------
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not the divergence order ``alpha`` of BB-alpha and AADM.)
    noise_variance : float or None, default=None
        Known noise variance ``sigma2``; ``None`` learns it with the prior ``noise_prior``.
    prior_precision : float or array of shape (n_features,), default=1.0
        Precision of the zero-mean Gaussian prior of the coefficients.
    noise_prior : tuple (shape, scale), default=(1e-6, 1e-6)
        Inverse-gamma prior of ``sigma2`` (a Gamma(1e-6, 1e-6) prior on the precision, as in
        scikit-learn's ``BayesianRidge``).
        Its scale is in the units of ``y`` squared: when it is over 1% of the fitted
        ``q(sigma2)``'s scale (``y`` on a small scale, e.g. ``y * 1e-5``), the default sets
        the noise level and the fit warns; pass ``(1e-6, 1e-6 * np.var(y))``.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (``X`` and ``y`` are centred).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        The alpha-ELBO or the KL to the fractional posterior (:mod:`alphavb.base`). For this
        model the two have the same maximiser and ``elbo_`` differs by the factor ``alpha``.
    max_iter : int, default=1000
        Maximum number of CAVI sweeps per start.
    tol : float, default=1e-10
        Stop when the relative change of the objective is at most ``tol``.
    n_init : int, default=1
        Number of starts (the first starts ``sigma2`` at ``Var(y)``, the others at random
        fractions of it); the start with the best objective is kept.
    warm_start : bool, default=False
        If True, ``fit`` continues from the previous fit's ``q(sigma2)`` (one start).
    random_state : int, RandomState or None, default=None
    verbose : int, default=0

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Posterior mean ``m`` of the coefficients.
    coef_cov_ : ndarray of shape (n_features, n_features)
        Posterior covariance ``V``.
    intercept_ : float
    noise_variance_ : float
        ``E_q[sigma2] = b_n / (a_n - 1)`` (``inf`` if ``a_n <= 1``), or the known variance.
    noise_shape_, noise_scale_ : float or None
        Parameters of ``q(sigma2)`` (``None`` when the variance is known).
    prior_precision_ : ndarray of shape (n_features,)
    elbo_ : float
        Final value of the objective of the best start.
    elbo_history_ : ndarray
        Objective after each sweep of the best start (never decreasing).
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when ``X`` has feature names

    Choosing alpha: the data count as ``alpha * n`` observations; see "Choosing alpha" in
    :mod:`alphavb.base` (and the README) before tuning it, and compare held-out scores,
    not ``elbo_``, across values.

    Examples
    --------
    >>> import numpy as np
    >>> from alphavb import AlphaLinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=50)
    >>> model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    >>> np.round(model.coef_, 1)
    array([ 1. , -2. ,  0.5])
    """

    _parameter_constraints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_constraints,
        "prior_precision": [FiniteArray(positive=True)],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        noise_variance=None,
        prior_precision=1.0,
        noise_prior=(1e-6, 1e-6),
        fit_intercept=True,
        objective="alpha-vb",
        max_iter=1000,
        tol=1e-10,
        n_init=1,
        warm_start=False,
        random_state=None,
        verbose=0,
    ):
        self.alpha = alpha
        self.noise_variance = noise_variance
        self.prior_precision = prior_precision
        self.noise_prior = noise_prior
        self.fit_intercept = fit_intercept
        self.objective = objective
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit ``q(beta) q(sigma2)`` by CAVI.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the rows in the likelihood: an integer weight counts its
            row that many times (the fit equals the fit of the repeated rows), and the
            likelihood counts ``alpha * sum(sample_weight)`` observations.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, _ = self._prepare_data(X, y, sample_weight=sample_weight)
        fixed_variance, noise_prior = self._noise_parameters()
        self.prior_precision_ = resolve_prior_precision(
            type(self).__name__, self.prior_precision, X.shape[1])
        if X.shape[1] > X.shape[0]:  # d > n: the n x n dual (Woodbury identity)
            gram = (X / self.prior_precision_) @ X.T
        else:
            gram = X.T @ X
        self._fit_cavi(_LinearData(X, y, gram, X.T @ y, fixed_variance, noise_prior,
                                   self.prior_precision_, self._weight_total))
        return self

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:
            return _LinearState(previous.noise)
        y_variance = response_variance(data.y)
        scale = 1.0 if start == 0 else 10.0 ** random_state.uniform(-3.0, 0.0)
        return _LinearState(fixed_noise_start(data.fixed_variance, scale * y_variance))

    def _cavi_step(self, data, state):
        """One CAVI sweep: ``q(beta)``, then ``q(sigma2)`` (module docstring); returns the new
        state and the objective."""
        alpha, tau = self.alpha, state.noise.tau
        n_samples = data.n_observations
        if data.dual:
            mean, cov, trace_gram_cov, log_det_cov = self._dual_coef_block(data, alpha * tau)
        else:
            precision = alpha * tau * data.gram
            precision[np.diag_indices_from(precision)] += data.prior_precision
            chol = cholesky(precision, lower=True)
            mean = cho_solve((chol, True), alpha * tau * data.xty)
            cov = _DenseCovariance(cho_solve((chol, True), np.eye(mean.shape[0])))
            trace_gram_cov = np.sum(data.gram * cov.matrix)
            log_det_cov = -2.0 * np.sum(np.log(np.diag(chol)))
        residual = data.y - data.X @ mean
        expected_sq_residual = residual @ residual + trace_gram_cov
        noise = noise_block(data.fixed_variance, data.noise_prior,
                            0.5 * alpha * n_samples, 0.5 * alpha * expected_sq_residual)
        kl_coef = kl_gaussian_diag_prior(mean, cov.diagonal(), log_det_cov,
                                         data.prior_precision)
        alpha_elbo = (
            expected_gaussian_loglik(n_samples, noise.tau, noise.elt, expected_sq_residual)
            - (kl_coef + noise.kl) / alpha
        )
        return _LinearState(noise, mean, cov), self._objective_without_latents(alpha_elbo)

    @staticmethod
    def _dual_coef_block(data, c):
        """``q(beta)`` for d > n by the Woodbury identity, in O(n^2 d) (not O(d^3)).

        With ``D = diag(prior_precision)``, ``G = X D^{-1} X'`` and ``K = I_n / c + G``
        (``c = alpha tau``): ``V = (D + c X'X)^{-1} = D^{-1} - D^{-1} X' K^{-1} X D^{-1}``,
        ``m = c V X'y = D^{-1} X' K^{-1} y``, ``tr(X'X V) = (n - tr(K^{-1}) / c) / c`` and
        ``log|V| = -(log|D| + n log c + log|K|)``. Returns ``m``, ``V``, ``tr(X'X V)`` and
        ``log|V|``.
        """
        n_samples = data.X.shape[0]
        kernel = data.gram.copy()
        kernel[np.diag_indices_from(kernel)] += 1.0 / c
        chol = cholesky(kernel, lower=True)
        prior_variance = 1.0 / data.prior_precision
        mean = prior_variance * (data.X.T @ cho_solve((chol, True), data.y))
        whitened = solve_triangular(chol, data.X * prior_variance, lower=True)   # L^{-1} X D^-1
        inverse_chol = solve_triangular(chol, np.eye(n_samples), lower=True)
        trace_gram_cov = (n_samples - np.sum(inverse_chol**2) / c) / c
        log_det_cov = -(np.sum(np.log(data.prior_precision)) + n_samples * np.log(c)
                        + 2.0 * np.sum(np.log(np.diag(chol))))
        cov = _LowRankCovariance(prior_variance, whitened.T, chol, c)
        return mean, cov, trace_gram_cov, log_det_cov

    def _set_parameters(self, state):
        self.coef_ = state.mean
        self._covariance = state.cov
        self.intercept_ = self._intercept(state.mean)
        self.__dict__.update(self._noise_attributes(state.noise))

    @property
    def coef_cov_(self):
        """Posterior covariance ``V`` of the coefficients, (n_features, n_features). When
        ``n_features > n_samples`` it is kept as ``D^{-1} - F F'`` and built on access."""
        check_is_fitted(self, "coef_")
        return self._covariance.dense()

    def _coef_variance_along(self, X_centred):
        return self._covariance.quadratic_along(X_centred)

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each coefficient under ``q(beta)``.

        Parameters
        ----------
        level : float in (0, 1), default=0.95
            Probability mass of each interval (0.95: from the 2.5% to the 97.5% quantile).

        Returns
        -------
        ndarray of shape (n_features, 2)
        """
        check_is_fitted(self)
        z = normal_quantile(level)
        sd = np.sqrt(self._covariance.diagonal())
        return np.column_stack([self.coef_ - z * sd, self.coef_ + z * sd])

    def _draw_coef(self, n_samples, rng):
        """``beta ~ N(coef_, coef_cov_)``."""
        return {"coef": self._covariance.draw(self.coef_, n_samples, rng)}

    def _summary_columns(self, level):
        sd = np.sqrt(self._covariance.diagonal())
        interval = self.credible_intervals(level)
        return {"coef": self.coef_, "sd": sd, "lower": interval[:, 0], "upper": interval[:, 1]}
