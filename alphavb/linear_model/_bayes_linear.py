"""alpha-VB Bayesian linear regression (Yang, Pati & Bhattacharya 2020, Cor. 4.1).

Model: ``y = X beta + eps``, ``eps ~ N(0, sigma2 I)``, ``sigma2 ~ InvGamma(a0, b0)`` or known,
and the coefficient prior ``beta ~ N(0, s diag(1/lambda))`` with ``s = sigma2`` (the default
``coef_prior="conjugate"``, as in scikit-learn's ``BayesianRidge`` family, varbvs and susieR,
so the prior is in the units of ``y``) or ``s = 1`` (``coef_prior="independent"``, the
paper's Cor. 4.1). With ``standardize=True`` ``lambda`` is the precision of the coefficient
of the standardized column: ``lambda_j = prior_precision sd_j^2`` on the original one.
Family ``q(beta) q(sigma2)`` with ``q(beta) = N(m, V)`` (full covariance) and ``q(sigma2) =
InvGamma(a_n, b_n)``. CAVI for the alpha-ELBO (the paper's eq. 2.6; :mod:`alphavb.base`),
with ``tau = E[1/sigma2]``, ``Lambda0 = diag(lambda)`` and ``t = tau`` (conjugate) or 1::

    V   = (alpha tau X'X + t Lambda0)^{-1}
    m   = alpha tau V X'y
    a_n = a0 + alpha n / 2 [+ d / 2]
    b_n = b0 + (alpha / 2) (||y - X m||^2 + tr(X'X V)) [+ (m' Lambda0 m + tr(Lambda0 V)) / 2]

(the bracketed terms with the conjugate prior, whose ``m = (alpha X'X + Lambda0)^{-1} alpha
X'y`` does not depend on ``tau``). The conjugate prior's ``E_q KL(q(beta) || p(beta |
sigma2))`` is the Gaussian KL to ``N(0, (tau Lambda0)^{-1})`` plus ``d (log tau - E log
1/sigma2) / 2``.

With ``sigma2`` known, one update gives ``q(beta)`` equal to the alpha-fractional posterior
``N((alpha X'X/sigma2 + t Lambda0)^{-1} alpha X'y / sigma2, (alpha X'X/sigma2 + t
Lambda0)^{-1})``, ``t = 1/sigma2`` (conjugate) or 1.

Scale: with the defaults (``coef_prior="conjugate"``, ``standardize=True``,
``noise_prior="auto"``, i.e. ``InvGamma(1e-6, 1e-6 Var(y))``) a fit on ``c y`` and on ``X``
with its columns rescaled is the same fit in the new units.
"""

import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import gammaincc, gammainccinv, stdtr
from sklearn.utils.validation import check_is_fitted

from .._approximation import CHECK_LEVEL, ApproximationCheck, publish_check
from .._special import kl_gaussian_diag_prior
from .._validation import Boolean, FiniteArray, Options, Real, bad_parameter, validate_params
from ..base import ExactSampler, column_scales, feature_labels
from ._base import (
    MIN_NOISE_SHAPE,
    AlphaRegressionBase,
    Centring,
    NoiseFactor,
    exact_noise_shape,
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
    prior_precision: np.ndarray  # on the columns of X (lambda sd^2 with standardize)
    n_observations: float  # the likelihood's count: n, or the sum of the weights
    conjugate: bool  # beta | sigma2 ~ N(0, sigma2 / lambda), else beta ~ N(0, 1 / lambda)
    centring: Centring  # what the fitted model keeps of the rows (published once)
    # what preparation resolved, published once with the fitted state: n_samples_fit_,
    # noise_prior_, column_scale_ and prior_precision_
    fitted_attributes: dict

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
    """``q(beta) = N(mean, cov)`` (``None`` before the first sweep), the ``E[1/sigma2]``
    that ``cov`` was computed at, and ``q(sigma2)``."""

    noise: NoiseFactor
    mean: np.ndarray | None = None
    cov: _DenseCovariance | _LowRankCovariance | None = None
    cov_tau: float = 1.0


class AlphaLinearRegression(AlphaRegressionBase):
    """Bayesian linear regression fitted by alpha-VB (mean-field normal x inverse-gamma).

    Maximises the alpha-ELBO ``E_q[log p(y | beta, sigma2)] - (1/alpha) KL(q || prior)``
    (Yang, Pati & Bhattacharya 2020, eq. 2.6 and Cor. 4.1) by coordinate ascent over
    ``q(beta) = N(coef_, coef_cov_)`` and ``q(sigma2) = InvGamma(noise_shape_, noise_scale_)``.

    Parameters
    ----------
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    noise_variance : float or None, default=None
        Known noise variance ``sigma2``; ``None`` learns it with the prior ``noise_prior``.
    prior_precision : float or array of shape (n_features,), default=1.0
        Precision ``lambda`` of the zero-mean Gaussian prior of the coefficients: of the
        coefficient of the standardized column with ``standardize=True``, in units of
        ``1/sigma2`` with ``coef_prior="conjugate"`` (``beta_j | sigma2 ~ N(0, sigma2 /
        lambda)``: the default prior puts a standardized coefficient on the scale of the
        noise, whatever the units of ``X`` and ``y``).
    coef_prior : {"conjugate", "independent"}, default="conjugate"
        ``"conjugate"``: ``beta | sigma2 ~ N(0, sigma2 / lambda)``, the prior scaled by the
        noise variance (as varbvs, susieR and the spike-and-slab models here scale the
        slab). ``"independent"``: ``beta ~ N(0, 1 / lambda)`` whatever ``sigma2`` (the
        paper's Cor. 4.1; its scale is then in the units of ``y``).
    noise_prior : "auto" or tuple (shape, scale), default="auto"
        Inverse-gamma prior of ``sigma2``. ``"auto"`` is ``InvGamma(1e-6, 1e-6 Var(y))``: as
        vague as scikit-learn's ``BayesianRidge`` Gamma(1e-6, 1e-6) on the precision, but in
        the units of ``y``, so it never sets the noise level (a fit whose residual variance
        is under about 1e-8 Var(y) warns). A tuple is used as given (``(1e-6, 1e-6)`` is the
        earlier default, in the raw units of ``y`` squared).
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (``X`` and ``y`` are centred).
    standardize : bool, default=True
        Put the prior on the coefficients of the columns scaled to unit standard deviation
        (``column_scale_``), so that the fit does not depend on the units of ``X``; the
        fitted attributes are on the original scale. ``False`` puts ``prior_precision`` on
        the raw coefficients (the paper's setting).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        The alpha-ELBO or the KL to the fractional posterior (:mod:`alphavb.base`). For this
        model the two have the same maximiser and ``elbo_`` differs by the factor ``alpha``.
    max_iter : int, default=1000
        Maximum number of CAVI sweeps per start.
    tol : float, default=1e-10
        Stop when the objective per observation (per unit of ``sample_weight``) changes by
        at most ``tol``: a change that does not depend on the units of ``y`` (rescaling
        ``y`` shifts the objective by ``-n log c``), where a relative change would.
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
    noise_prior_ : tuple (shape, scale)
        The resolved inverse-gamma prior of ``sigma2`` (``"auto"`` evaluated on ``y``).
    prior_precision_ : ndarray of shape (n_features,)
        The prior precision ``lambda`` of each raw coefficient (``prior_precision`` times
        ``column_scale_ ** 2`` with ``standardize``), in units of ``1/sigma2`` with the
        conjugate prior.
    column_scale_ : ndarray of shape (n_features,)
        The standard deviation of each column of ``X`` (1 for a constant one) with
        ``standardize=True``, else ones.
    elbo_ : float
        Final value of the objective of the best start.
    elbo_history_ : ndarray
        Objective after each sweep of the best start (never decreasing).
    n_iter_ : int
    converged_ : bool
    approximation_check_ : ApproximationCheck or None
        The fit beside its exact alpha-posterior (the normal-inverse-gamma closed form;
        :mod:`alphavb._approximation`); None for the independent prior with a learned
        noise variance.
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
    >>> X = rng.normal(size=(200, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=200)
    >>> model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    >>> np.round(model.coef_, 1)
    array([ 1. , -2. ,  0.5])
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_linear", "sample_linear", ("sample_weight",))
    _model_kind: ClassVar[str] = "linear_regression"

    _parameter_constraints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_constraints,
        "prior_precision": [FiniteArray(positive=True)],
        "coef_prior": [Options("conjugate", "independent")],
        "standardize": [Boolean()],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        noise_variance=None,
        prior_precision=1.0,
        coef_prior="conjugate",
        noise_prior="auto",
        fit_intercept=True,
        standardize=True,
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
        self.coef_prior = coef_prior
        self.noise_prior = noise_prior
        self.fit_intercept = fit_intercept
        self.standardize = standardize
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
        self._fit_cavi(self._prepare_fit(X, y, sample_weight))
        return self

    def fit_sufficient(self, XtX, Xty, yty, n_samples, *, X_mean=None, y_mean=None,
                       n_covariates=0, covariates_log_det=0.0):
        """Fit ``q(beta) q(sigma2)`` to sufficient statistics ``X'X``, ``X'y``, ``y'y`` and
        ``n``: the same fit as :meth:`fit` on the rows they summarise, from ``p x p`` numbers
        (:func:`alphavb.linear_model.sufficient_statistics` or
        :func:`alphavb.genotypes.sufficient_statistics` computes them).

        The model reads the rows only through these statistics: the fit runs on ``p + 1``
        rows that have them and counts ``n`` observations
        (:func:`~alphavb.linear_model._base.statistics_rows`).

        Parameters
        ----------
        XtX : array-like of shape (n_features, n_features)
            ``X'X`` of the centred rows (with ``fit_intercept``), or of the rows as they are
            (without): symmetric, positive semi-definite.
        Xty : array-like of shape (n_features,)
        yty : float
        n_samples : float > 1
            The number of rows (the likelihood counts ``alpha n``).
        X_mean, y_mean : array-like of shape (n_features,), float, default=None
            The rows' means, both or neither: with ``fit_intercept`` they give
            ``intercept_`` (0 without them); without, they centre ``Var(y)`` (the noise
            prior's scale) and the columns' standard deviations as :meth:`fit` centres them
            (without them the rows are taken as centred, another fit when they are not).
        n_covariates, covariates_log_det : int, float, default=0, 0.0
            0 only: this model takes no covariates (statistics with covariates projected
            out fit :class:`~alphavb.AlphaSpikeSlabRegression` or
            :class:`~alphavb.AlphaSuSiE`).

        Returns
        -------
        self
        """
        self._validate_params()
        if n_covariates:
            raise bad_parameter(type(self).__name__, "n_covariates", "0 (the model takes no "
                                "covariates)", n_covariates, "Fit AlphaSpikeSlabRegression "
                                "or AlphaSuSiE to statistics with covariates projected out.")
        self._fit_cavi(self._prepare_sufficient(XtX, Xty, yty, n_samples, X_mean, y_mean))
        return self

    def _prepare_sufficient(self, XtX, Xty, yty, n_samples, X_mean, y_mean):
        """The :class:`_LinearData` of sufficient statistics (:meth:`fit_sufficient`)."""
        rows = self._statistics_rows(XtX, Xty, yty, n_samples, X_mean, y_mean)
        fixed_variance, noise_prior = self._noise_from_variance(rows.variance_y)
        scale = rows.column_sd if self.standardize else np.ones(len(rows.xty))
        prior_precision = resolve_prior_precision(
            type(self).__name__, self.prior_precision, len(rows.xty)) * scale**2
        return _LinearData(rows.X, rows.y, rows.gram, rows.xty, fixed_variance, noise_prior,
                           prior_precision, rows.n_samples, self.coef_prior == "conjugate",
                           rows.centring, {"n_samples_fit_": rows.n_samples,
                                           "noise_prior_": noise_prior, "column_scale_": scale,
                                           "prior_precision_": prior_precision})

    def _prepare_fit(self, X, y, sample_weight=None):
        """Validate the parameters and the data; the (centred) data and resolved priors the
        sweeps read (also what :func:`alphavb.exact.sample_exact` samples from)."""
        self._validate_params()
        rows = self._prepare_data(X, y, sample_weight=sample_weight)
        X, y = rows.X, rows.y
        fixed_variance, noise_prior = self._noise_parameters(rows)
        scale = column_scales(X, self.standardize, rows.sqrt_weight, rows.centring.X_offset)
        # lambda on the standardized column is lambda sd^2 on the raw one
        prior_precision = resolve_prior_precision(
            type(self).__name__, self.prior_precision, X.shape[1]) * scale**2
        if X.shape[1] > X.shape[0]:  # d > n: the n x n dual (Woodbury identity)
            gram = (X / prior_precision) @ X.T
        else:
            gram = X.T @ X
        return _LinearData(X, y, gram, X.T @ y, fixed_variance, noise_prior, prior_precision,
                           rows.centring.weight_total, self.coef_prior == "conjugate",
                           rows.centring, {"n_samples_fit_": X.shape[0],
                                           "noise_prior_": noise_prior, "column_scale_": scale,
                                           "prior_precision_": prior_precision})

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:
            return _LinearState(previous.noise)
        if data.conjugate and data.fixed_variance is None:
            y_variance = 1.0 / self._conjugate_fixed_point_tau(data)
        else:
            y_variance = response_variance(data.y)
        scale = 1.0 if start == 0 else 10.0 ** random_state.uniform(-3.0, 0.0)
        return _LinearState(fixed_noise_start(data.fixed_variance, scale * y_variance))

    def _conjugate_fixed_point_tau(self, data):
        """``E[1/sigma2]`` at the fixed point of the conjugate prior's CAVI, in closed form.

        With ``beta | sigma2 ~ N(0, sigma2 / lambda)``, ``m = (alpha X'X + Lambda0)^{-1}
        alpha X'y`` does not depend on ``tau`` and ``alpha tr(X'X V) + tr(Lambda0 V) = d /
        tau``, so the sweep ``tau -> (a0 + (alpha n + d)/2) / (b0 + (Q + d / tau) / 2)``,
        ``Q = alpha ||y - X m||^2 + m' Lambda0 m``, has the fixed point ``(a0 + alpha n / 2)
        / (b0 + Q / 2)``. The sweep contracts only by ``d / (2 a_n)`` (0.998 at n = 20, d =
        5,000), so the first start begins there and converges in two sweeps.
        """
        alpha = self.alpha
        mean = self._coef_block(data, 1.0, 1.0)[0]
        residual = data.y - data.X @ mean
        quadratic = alpha * (residual @ residual) + data.prior_precision @ (mean * mean)
        prior_shape, prior_scale = data.noise_prior
        return (prior_shape + 0.5 * alpha * data.n_observations) / (prior_scale
                                                                     + 0.5 * quadratic)

    def _cavi_step(self, data, state):
        """One CAVI sweep: ``q(beta)``, then ``q(sigma2)`` (module docstring); returns the new
        state and the objective."""
        alpha, tau = self.alpha, state.noise.tau
        n_samples, n_features = data.n_observations, data.X.shape[1]
        # the prior precision of beta given the current q(sigma2): tau lambda (conjugate)
        mean, cov, trace_gram_cov, log_det_cov = self._coef_block(
            data, tau, tau if data.conjugate else 1.0)
        residual = data.y - data.X @ mean
        expected_sq_residual = residual @ residual + trace_gram_cov
        shape_increment = 0.5 * alpha * n_samples
        scale_increment = 0.5 * alpha * expected_sq_residual
        if data.conjugate:  # the prior of beta | sigma2 adds d/2 and E[beta' Lambda0 beta]/2
            shape_increment += 0.5 * n_features
            scale_increment += 0.5 * (data.prior_precision @ (mean * mean + cov.diagonal()))
        noise = noise_block(data.fixed_variance, data.noise_prior, shape_increment,
                            scale_increment)
        kl_coef = kl_gaussian_diag_prior(mean, cov.diagonal(), log_det_cov,
                                         (noise.tau if data.conjugate else 1.0)
                                         * data.prior_precision)
        if data.conjugate:  # E_q log|sigma2 Lambda0^-1| = -d E[log 1/sigma2] - log|Lambda0|
            kl_coef += 0.5 * n_features * (np.log(noise.tau) - noise.elt)
        alpha_elbo = (
            expected_gaussian_loglik(n_samples, noise.tau, noise.elt, expected_sq_residual)
            - (kl_coef + noise.kl) / alpha
        )
        return (_LinearState(noise, mean, cov, tau),
                self._objective_without_latents(alpha_elbo))

    def _coef_block(self, data, tau, prior_scale):
        """``q(beta) = N(m, V)`` given ``tau = E[1/sigma2]``: ``V = (alpha tau X'X +
        prior_scale Lambda0)^{-1}``, ``m = alpha tau V X'y``; returns ``m``, ``V``, ``tr(X'X
        V)`` and ``log|V|``."""
        c = self.alpha * tau
        if data.dual:
            return self._dual_coef_block(data, c, prior_scale)
        precision = c * data.gram
        precision[np.diag_indices_from(precision)] += prior_scale * data.prior_precision
        chol = cholesky(precision, lower=True)
        mean = cho_solve((chol, True), c * data.xty)
        cov = _DenseCovariance(cho_solve((chol, True), np.eye(mean.shape[0])))
        return (mean, cov, np.sum(data.gram * cov.matrix),
                -2.0 * np.sum(np.log(np.diag(chol))))

    @staticmethod
    def _dual_coef_block(data, c, prior_scale):
        """``q(beta)`` for d > n by the Woodbury identity, in O(n^2 d) (not O(d^3)).

        With ``D = prior_scale diag(prior_precision)``, ``G = X D^{-1} X'`` and ``K = I_n / c
        + G`` (``c = alpha tau``): ``V = (D + c X'X)^{-1} = D^{-1} - D^{-1} X' K^{-1} X
        D^{-1}``, ``m = c V X'y = D^{-1} X' K^{-1} y``, ``tr(X'X V) = (n - tr(K^{-1}) / c) /
        c`` and ``log|V| = -(log|D| + n log c + log|K|)``. Returns ``m``, ``V``, ``tr(X'X V)``
        and ``log|V|``.
        """
        n_samples = data.X.shape[0]
        kernel = data.gram / prior_scale  # data.gram is X diag(1/prior_precision) X'
        kernel[np.diag_indices_from(kernel)] += 1.0 / c
        chol = cholesky(kernel, lower=True)
        precision = prior_scale * data.prior_precision
        prior_variance = 1.0 / precision
        mean = prior_variance * (data.X.T @ cho_solve((chol, True), data.y))
        whitened = solve_triangular(chol, data.X * prior_variance, lower=True)   # L^{-1} X D^-1
        inverse_chol = solve_triangular(chol, np.eye(n_samples), lower=True)
        trace_gram_cov = (n_samples - np.sum(inverse_chol**2) / c) / c
        log_det_cov = -(np.sum(np.log(precision)) + n_samples * np.log(c)
                        + 2.0 * np.sum(np.log(np.diag(chol))))
        cov = _LowRankCovariance(prior_variance, whitened.T, chol, c)
        return mean, cov, trace_gram_cov, log_det_cov

    def _publish_results(self, data, results):
        super()._publish_results(data, results)
        publish_check(self, lambda: self._approximation_check(data))

    def _approximation_check(self, data):
        """The exact alpha-posterior beside ``q`` where it has a closed form
        (:mod:`alphavb.exact._linear`): with the conjugate prior ``beta_j | y`` is Student t
        with ``2 c`` degrees of freedom, mean ``m_j`` (alpha-VB's) and scale ``sqrt(r / c
        (A^{-1})_jj)``, ``A = alpha X'X + Lambda0`` (``A^{-1} = tau V``, ``V`` alpha-VB's
        covariance computed at ``tau``), ``c = a0 + (alpha n - k) / 2``, ``r = b0 + (alpha
        ||y - X m||^2 + m' Lambda0 m) / 2``, and ``sigma2 | y ~ InvGamma(c, r)``, where ``q``
        has the shape ``a0 + (alpha n + d) / 2``; with a known variance ``q`` is exact. None
        for the independent prior with a learned variance (no closed form:
        :func:`alphavb.exact.compare_to_exact`) and where ``c`` is too small for the exact
        posterior to exist."""

        alpha, (prior_shape, prior_scale) = self.alpha, data.noise_prior
        shape = exact_noise_shape(prior_shape, alpha, data.n_observations,
                                  int(self.fit_intercept))
        if data.fixed_variance is None and (not data.conjugate or shape < MIN_NOISE_SHAPE):
            return None
        started = time.perf_counter()
        state, z = self._state, normal_quantile(CHECK_LEVEL)
        sd = np.sqrt(state.cov.diagonal())
        names = tuple(str(name) for name in feature_labels(self))
        noise_mass = np.nan
        if data.fixed_variance is not None:  # q(beta) is the exact posterior
            mass = np.full(len(sd), CHECK_LEVEL)
        else:
            residual = data.y - data.X @ state.mean
            rate = prior_scale + 0.5 * (alpha * residual @ residual
                                        + data.prior_precision @ (state.mean * state.mean))
            exact_sd = np.sqrt(state.cov.diagonal() * state.cov_tau * rate / shape)
            tails = np.array([0.5 - 0.5 * CHECK_LEVEL, 0.5 + 0.5 * CHECK_LEVEL])
            # q(sigma2)'s interval: x_p = b_n / gammainccinv(a_n, p) has P(sigma2 <= x_p) = p
            ends = state.noise.scale / gammainccinv(state.noise.shape, tails)
            noise_mass = float(np.abs(np.diff(gammaincc(shape, rate / ends)))[0])
            mass = 2.0 * stdtr(2.0 * shape, z * sd / exact_sd) - 1.0
        return ApproximationCheck(
            method="the normal-inverse-gamma closed form", feature_names=names,
            variational_pips=np.zeros(0), exact_pips=np.zeros(0), interval_mass=mass,
            level=CHECK_LEVEL, n_models=1, seconds=time.perf_counter() - started,
            cause="the usual cause: few rows for the coefficients, whose exact posterior is "
                  "Student t where q is normal", noise_interval_mass=noise_mass)

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

    def _row_log_predictive(self, X, y, n_draws, random_state):
        """Per row, the log predictive density (:func:`alphavb.metrics.log_predictive_density`):
        given ``sigma2`` the predictive is ``N(yhat, Var_q(x' beta) + sigma2 (1 + leverage of
        the intercept))``, averaged over ``n_draws`` draws of ``q(sigma2)`` (exact with a known
        noise variance)."""
        from scipy.special import logsumexp
        from sklearn.utils import check_random_state
        from sklearn.utils.validation import validate_data

        from .._validation import check_targets

        mean = self.predict(X)  # X as given: predict checks its feature names against fit's
        X = validate_data(self, X, dtype=np.float64, reset=False)
        y = check_targets("log_predictive_density", y, X.shape[0])
        coef_variance = self._coef_variance_along(X - self._centring.X_offset)
        if self.noise_shape_ is None:
            noise = np.array([float(self.noise_variance_)])
        else:
            rng = check_random_state(random_state)
            noise = 1.0 / rng.gamma(self.noise_shape_, 1.0 / self.noise_scale_, size=n_draws)
        variance = coef_variance[None, :] + noise[:, None] * (1.0 + self._intercept_leverage())
        log_density = -0.5 * (np.log(2.0 * np.pi * variance) + (y - mean) ** 2 / variance)
        return logsumexp(log_density, axis=0) - np.log(len(noise))

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
