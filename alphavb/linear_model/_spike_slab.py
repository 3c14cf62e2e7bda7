"""alpha-VB spike-and-slab linear regression (Yang, Pati & Bhattacharya 2020, Cor. 4.2).

Model::

    y | beta, sigma2 ~ N(X beta, sigma2 I_n)
    z_j ~ Bernoulli(pi),  beta_j | z_j = 1 ~ N(0, nu sigma2),  beta_j | z_j = 0 = 0
    sigma2 ~ InvGamma(a0, b0) (or known),  pi fixed or ~ Beta(a_pi, b_pi)

Family ``q(sigma2) q(pi) prod_j q(beta_j, z_j)`` with
``q(beta_j, z_j = 1) = phi_j N(mu_j, s2_j)``. One CAVI sweep updates the blocks ``j = 1..d``
(numba kernel :func:`~alphavb.linear_model._kernels.spike_slab_sweep`), then ``q(sigma2)``::

    a_n = a0 + (alpha n + sum_j phi_j) / 2
    b_n = b0 + (alpha ESS + sum_j phi_j (mu_j^2 + s2_j) / nu) / 2,
    ESS = E_q ||y - X beta||^2,

then ``q(pi) = Beta(a_pi + sum phi, b_pi + d - sum phi)``. The objective is the alpha-ELBO::

    L_alpha = -(n/2) log 2pi + (n/2) Elt - (tau/2) ESS - (1/alpha) KL_total,
    KL_total = sum_j [phi_j log phi_j + (1 - phi_j) log(1 - phi_j)
                      - phi_j E log pi - (1 - phi_j) E log(1 - pi)]
             + sum_j phi_j [-log(s2_j)/2 - 1/2 + log(nu)/2 - Elt/2 + tau (mu_j^2 + s2_j) / (2 nu)]
             + KL(q(sigma2) || p(sigma2)) + KL(q(pi) || p(pi)).

``algorithm="paper"`` is the supplement's Algorithm 1 (after Huang, Wang & Liang 2016): every
``phi_j`` starts at 1, and each sweep first updates all slab means jointly, ``mu`` solving

    [diag(alpha ||X_j||^2 (1 - phi_j) + 1/nu) + alpha X'X diag(phi)] mu = alpha X'y

(the maximiser of the objective over ``mu`` given ``phi``: each ``mu_j`` is then its own
coordinate optimum; an (n, n) Woodbury solve when d > n), then each ``phi_j`` at its exact
coordinate optimum given the new means (kernel ``spike_slab_joint_sweep``), then
``q(sigma2)`` and ``q(pi)`` as above. Every step maximises the objective over its block, so it
never decreases either. The paper runs it with the noise level known (its ``sigma~ = sigma /
sqrt(alpha)``, i.e. ``noise_variance=sigma^2`` here, since the tempered likelihood is a
Gaussian of variance ``sigma^2 / alpha``) and with its slab ``N(0, nu sigma~^2)`` also
rescaled, which is ``slab_variance = nu / alpha`` here.

Several starts: the objective is multi-modal in ``sigma2`` (an "empty model" mode that
explains everything as noise, and the mode that finds the signal). The starts differ in the
noise variance used by the first sweep; the start with the best objective is kept.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.utils import check_random_state

from .._validation import Options, bad_parameter
from ..base import ExactSampler, column_scales
from ._base import (
    MIN_NOISE_SHAPE,
    AlphaRegressionBase,
    Centring,
    NoiseFactor,
    exact_noise_shape,
    expected_gaussian_loglik,
    fixed_noise_start,
    noise_block,
    response_variance,
    weighted_variance,
)
from ._covariates import Covariates, GaussianCovariatesMixin
from ._inclusion import InclusionFactor, SpikeSlabMixin, inclusion_factor, inclusion_kl

# Noise variance of the first sweep, as fractions of Var(y), for the deterministic starts;
# later starts draw the fraction log-uniformly in [1e-3, 1]. A small starting noise makes the
# first sweep include the strong signals (as the paper's Algorithm 1 does with phi = 1).
_START_NOISE_FRACTIONS = (1e-2, 1.0, 1e-1)


@dataclass(frozen=True)
class _SpikeSlabData:
    """The (centred, Fortran-ordered) data and resolved priors one fit reads."""

    X: np.ndarray
    y: np.ndarray
    col_sq_norms: np.ndarray
    fixed_variance: float | None
    noise_prior: tuple
    slab_variance: float
    fixed_pi: float | None
    pi_prior: tuple | None
    gram: np.ndarray | None  # X'X, for the joint update of the means when d <= n
    covariates: Covariates | None
    n_observations: float  # the likelihood's count: n, or the sum of the weights
    weighted: bool  # the rows were given weights (data.y holds sqrt(w_i) y_i)
    centring: Centring  # what the fitted model keeps of the rows (published once)
    sqrt_weight: np.ndarray  # the rows' factors (ones without weights)
    # what preparation resolved, published once with the fitted state: n_samples_fit_,
    # noise_prior_, column_scale_ and n_covariates_in_
    fitted_attributes: dict
    grid: tuple  # the prior settings, resolved once (_inclusion_parameters)
    variance_y: float | None = None  # Var(y) of sufficient statistics (not of data.y)


@dataclass(frozen=True)
class _SpikeSlabState:
    """``q(beta_j, z_j)``: ``phi``, ``mu``, ``s2`` (updated in place by the kernel), the
    residual ``y - X (phi mu)`` the kernel keeps current, ``q(sigma2)`` and ``q(pi)``."""

    phi: np.ndarray
    mu: np.ndarray
    s2: np.ndarray
    residual: np.ndarray
    noise: NoiseFactor
    pi: InclusionFactor


class AlphaSpikeSlabRegression(SpikeSlabMixin, GaussianCovariatesMixin, AlphaRegressionBase):
    """Spike-and-slab linear regression fitted by alpha-VB.

    Maximises the alpha-ELBO (Yang, Pati & Bhattacharya 2020, eq. 2.6 and Cor. 4.2) over the
    block mean-field family of Carbonetto & Stephens (2012): one ``q(beta_j, z_j)`` per feature
    (a point mass at 0 with probability ``1 - phi_j``, ``N(mu_j, s2_j)`` with probability
    ``phi_j``), ``q(sigma2)`` and ``q(pi)``. The likelihood is tempered by ``alpha``; the slab
    ``N(0, nu sigma2)`` is not (the prior is not tempered; the paper's Algorithm 1 also
    rescales the slab).

    Parameters
    ----------
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    slab_variance : float, default=1.0
        ``nu`` in the slab ``N(0, nu sigma2)``. With ``standardize=True`` the slab is on the
        coefficient of the standardized column, so ``beta_j`` of the original column has the
        slab ``N(0, nu sigma2 / sd_j^2)`` and selection does not depend on the units of
        ``X``; with ``standardize=False`` it is ``N(0, nu sigma2)`` in the units of ``X``
        (varbvs's and the paper's convention).
        A 1-D array is a grid of slab variances, averaged over as ``prior_inclusion``'s
        grid is (paired with it entry by entry when both are grids, as varbvs pairs ``sa``
        and ``logodds``).
    prior_inclusion : float in (0, 1), 1-D array of them, or None, default=None
        Fixed prior inclusion probability ``pi``, or a grid of them to average over
        (:mod:`alphavb.linear_model._inclusion`); ``None`` means ``1 / n_features`` (the
        paper's choice), or 1/2 when there is a single feature.
    prior_log_odds : float or 1-D array, default=None
        The same as base-10 log-odds ``log10(pi / (1 - pi))`` (varbvs's ``logodds``).
    inclusion_prior : tuple (a, b) or None, default=None
        Beta hyper-prior on ``pi``, which is then learned (not with a ``pi`` grid).
    hyper_prior : array of shape (n_settings,) or None, default=None
        Prior weights of a grid's settings (normalised); ``None`` is uniform (varbvs).
    noise_variance : float or None, default=None
        Known noise variance; ``None`` learns it with the prior ``noise_prior``.
    noise_prior : "auto" or tuple (shape, scale), default="auto"
        Inverse-gamma prior of ``sigma2``. ``"auto"`` is ``InvGamma(1e-6, 1e-6 Var(y))``,
        vague and in the units of ``y``, so that the fit on ``c y`` is the fit on ``y`` in
        the new units (a fit whose residual variance is under about 1e-8 Var(y) warns that
        the prior sets the noise level). A tuple is used as given (``(1e-6, 1e-6)``, the
        earlier default and varbvs-like, is in the raw units of ``y`` squared).
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (``X`` and ``y`` are centred).
    standardize : bool, default=True
        Scale each column of ``X`` to unit standard deviation before fitting (susieR's
        default); every fitted attribute and prediction is reported on the original scale
        (``column_scale_``). ``False`` fits the raw columns, as varbvs and the paper do.
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        The alpha-ELBO or the KL to the fractional posterior (:mod:`alphavb.base`); the same
        maximiser here, ``elbo_`` differs by the factor ``alpha``.
    algorithm : {"coordinate", "paper"}, default="coordinate"
        ``"coordinate"``: one coordinate update per ``(beta_j, z_j)`` per sweep, several
        starts. ``"paper"``: the paper's Algorithm 1, ``phi`` started at 1 and a joint
        update of all slab means per sweep (module docstring); one start. For the paper's
        setting also pass the known ``noise_variance`` and ``slab_variance = nu / alpha``.
    n_init : int, default=3
        Number of starts (``algorithm="coordinate"``); the best objective is kept. Start 0
        runs the first sweep at noise variance ``Var(y)/100``, start 1 at ``Var(y)``, start
        2 at ``Var(y)/10``; starts ``3 .. d + 2`` include only the variable with the
        (``start - 2``)-th largest ``(X_j'y)^2 / ||X_j||^2`` (at ``Var(y)/100``), which
        reaches the other modes of a posterior where several correlated variables can each
        explain ``y`` alone (on varbvs's Leukemia data with a 0/1 outcome, ``n_init=10``
        raises the alpha-ELBO from -27.2 to -19.9); later starts use random fractions.
    max_iter : int, default=1000
        Maximum number of sweeps per start.
    tol : float, default=1e-8
        Stop when the objective per observation (per unit of ``sample_weight``) changes by
        at most ``tol``: a change that does not depend on the units of ``y`` (rescaling
        ``y`` shifts the objective by ``-n log c``), where a relative change would.
    warm_start : bool, default=False
        If True, ``fit`` continues from the previous fit's ``q`` (one start).
    random_state : int, RandomState or None, default=None
    verbose : int, default=0

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Posterior means ``phi_j mu_j``.
    inclusion_probabilities_ : ndarray of shape (n_features,)
        Posterior inclusion probabilities ``phi_j`` (PIPs).
    slab_means_, slab_variances_ : ndarray of shape (n_features,)
        ``mu_j`` and ``s2_j``: mean and variance of ``beta_j`` given ``z_j = 1`` (over a
        grid, under the averaged posterior, so ``coef_ = PIP x slab_means_`` still).
    intercept_ : float
    noise_variance_ : float
        ``E_q[sigma2]`` (``inf`` if ``a_n <= 1``), or the known variance.
    noise_shape_, noise_scale_ : float or None
        Parameters of ``q(sigma2)`` (over a grid, of the selected setting).
    noise_prior_ : tuple (shape, scale)
        The resolved inverse-gamma prior of ``sigma2`` (``"auto"`` evaluated on ``y``).
    prior_inclusion_ : float
        The resolved fixed ``pi`` (``nan`` when ``pi`` is learned); over a grid its
        posterior mean ``sum_h w_h pi_h``.
    slab_variance_ : float
        The slab variance; over a grid its posterior mean ``sum_h w_h sa_h``.
    hyper_weights_ : ndarray of shape (n_settings,)
        Posterior weights of the settings, ``∝ hyper_prior x exp(alpha x alpha-ELBO)``
        (``[1.0]`` for a single setting). Over a grid ``coef_``, the PIPs,
        ``intercept_``, ``covariate_coef_``, ``noise_variance_`` and the predictions are the
        weighted averages; ``elbo_``, ``elbo_history_``, ``n_iter_``, ``noise_shape_`` and
        ``noise_scale_`` are those of the selected setting (the largest weight), and
        ``converged_`` says whether every setting converged. The type and shape of these
        attributes do not depend on the number of settings.
    setting_elbo_, setting_n_iter_, setting_converged_ : ndarray of shape (n_settings,)
        Each setting's objective, sweeps and convergence (``setting_elbo_history_``: a
        list of each setting's history).
    setting_prior_inclusion_, setting_slab_variance_ : ndarray of shape (n_settings,)
        Each setting's ``pi`` (``nan`` when learned) and slab variance.
    setting_inclusion_probabilities_, setting_coef_, setting_slab_means_, \
setting_slab_variances_ : ndarray of shape (n_settings, n_features)
        Each setting's fit (one row for a single setting); likewise ``setting_intercept_``,
        ``setting_covariate_coef_``, ``setting_noise_variance_``, ``setting_noise_shape_``
        and ``setting_noise_scale_`` (None with a known noise variance),
        ``setting_inclusion_posterior_`` (None unless ``pi`` is learned).
    covariate_coef_ : ndarray of shape (n_covariates,)
        Posterior means of the covariates' coefficients (``fit(..., covariates=Z)``).
    n_covariates_in_ : int
    column_scale_ : ndarray of shape (n_features,)
        The standard deviation of each column of ``X`` (1 for a constant column) with
        ``standardize=True``, else ones.
    lfsr_ : ndarray of shape (n_features,)
        Local false sign rates, ``min(q(beta_j >= 0), q(beta_j <= 0))`` (Stephens 2017):
        the posterior probability of getting the sign of ``beta_j`` wrong (at least ``1 -
        PIP_j``). :meth:`select` selects variables at a Bayesian FDR from the PIPs.
    inclusion_posterior_ : tuple (a, b) or None
        ``q(pi) = Beta(a, b)`` when ``inclusion_prior`` is given.
    elbo_, elbo_history_, n_iter_, converged_ : see :class:`AlphaLinearRegression`.
    approximation_check_ : ApproximationCheck or None
        The fit beside the exact alpha-posterior near it (exact PIPs, the exact mass of each
        95% interval; :mod:`alphavb._approximation`); a ``PosteriorApproximationWarning``
        when they are far off. None where the noise variance has no exact posterior.
    n_features_in_ : int

    Choosing alpha: the data count as ``alpha * n`` observations; see "Choosing alpha" in
    :mod:`alphavb.base` (and the README) before tuning it, and compare held-out scores,
    not ``elbo_``, across values.

    Examples
    --------
    >>> from alphavb import AlphaSpikeSlabRegression
    >>> from alphavb.datasets import make_sparse_regression
    >>> X, y, coef = make_sparse_regression(random_state=0)
    >>> model = AlphaSpikeSlabRegression(alpha=0.5).fit(X, y)
    >>> [int(j) for j in (model.inclusion_probabilities_ > 0.5).nonzero()[0]]
    [0, 1, 2, 3]
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_spike_slab", "sample_spike_slab", ("covariates", "sample_weight"))
    _model_kind: ClassVar[str] = "gaussian_regression"

    _parameter_constraints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_constraints,
        **SpikeSlabMixin._inclusion_constraints,
        "algorithm": [Options("coordinate", "paper")],
    }
    _parameter_hints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_hints,
        **SpikeSlabMixin._inclusion_hints,
    }
    _averaged_attributes = (*SpikeSlabMixin._averaged_attributes, "noise_variance_")

    def __init__(
        self,
        alpha=1.0,
        *,
        slab_variance=1.0,
        prior_inclusion=None,
        prior_log_odds=None,
        inclusion_prior=None,
        hyper_prior=None,
        noise_variance=None,
        noise_prior="auto",
        fit_intercept=True,
        standardize=True,
        objective="alpha-vb",
        algorithm="coordinate",
        n_init=3,
        max_iter=1000,
        tol=1e-8,
        warm_start=False,
        random_state=None,
        verbose=0,
    ):
        self.alpha = alpha
        self.slab_variance = slab_variance
        self.prior_inclusion = prior_inclusion
        self.prior_log_odds = prior_log_odds
        self.inclusion_prior = inclusion_prior
        self.hyper_prior = hyper_prior
        self.noise_variance = noise_variance
        self.noise_prior = noise_prior
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.objective = objective
        self.algorithm = algorithm
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, covariates=None, sample_weight=None):
        """Fit the spike-and-slab alpha-VB approximation by CAVI.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The candidate variables (each gets the spike-and-slab prior).
        y : array-like of shape (n_samples,)
        covariates : array-like of shape (n_samples, n_covariates), default=None
            Unpenalised covariates ``Z`` (flat prior, integrated out exactly; module
            :mod:`~alphavb.linear_model._covariates`). ``predict`` then needs them too.
            In ``GridSearchCV`` they reach each fold through scikit-learn's metadata routing
            (``sklearn.set_config(enable_metadata_routing=True)``,
            ``set_fit_request(covariates=True)`` and ``set_score_request(covariates=True)``;
            the README has the lines).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the rows in the likelihood: an integer weight counts its
            row that many times (the fit equals the fit of the repeated rows), and the
            likelihood counts ``alpha * sum(sample_weight)`` observations.

        Returns
        -------
        self
        """
        self._fit_cavi(self._prepare_fit(X, y, covariates, sample_weight))
        return self

    def fit_sufficient(self, XtX, Xty, yty, n_samples, *, X_mean=None, y_mean=None,
                       n_covariates=0, covariates_log_det=0.0):
        """Fit to sufficient statistics ``X'X``, ``X'y``, ``y'y`` and ``n`` (as
        :meth:`AlphaLinearRegression.fit_sufficient
        <alphavb.AlphaLinearRegression.fit_sufficient>`): the fit on the rows they
        summarise, from ``p x p`` numbers (its sweeps run on ``p + 1`` rows with those
        statistics, :func:`~alphavb.linear_model._base.statistics_rows`).

        Parameters
        ----------
        XtX, Xty, yty, n_samples, X_mean, y_mean
            As :meth:`AlphaLinearRegression.fit_sufficient
            <alphavb.AlphaLinearRegression.fit_sufficient>`.
        n_covariates, covariates_log_det : int, float, default=0, 0.0
            0 only, for now: ``fit(X, y, covariates=Z)`` standardizes the columns and sets
            the noise prior's scale before it projects the covariates out, which statistics
            with covariates projected out no longer tell (:class:`~alphavb.AlphaSuSiE`,
            which standardizes after, takes them).

        Returns
        -------
        self
        """
        self._validate_params()
        if n_covariates:
            raise bad_parameter(type(self).__name__, "n_covariates", "0 (statistics without "
                                "covariates projected out)", n_covariates, "Its fit with "
                                "covariates reads the columns' scales before the projection; "
                                "fit the rows with covariates=, or AlphaSuSiE.")
        rows = self._statistics_rows(XtX, Xty, yty, n_samples, X_mean, y_mean)
        fixed_variance, noise_prior = self._noise_from_variance(rows.variance_y)
        scale = rows.column_sd if self.standardize else np.ones(len(rows.xty))
        X = np.asfortranarray(rows.X / scale)
        gram = rows.gram / np.outer(scale, scale) if self.algorithm == "paper" else None
        self._fit_cavi(_SpikeSlabData(
            X=X, y=rows.y, col_sq_norms=np.diag(rows.gram) / scale**2,
            fixed_variance=fixed_variance, noise_prior=noise_prior,
            slab_variance=self._scalar_slab_variance(), fixed_pi=None, pi_prior=None,
            gram=gram, covariates=None, n_observations=rows.n_samples, weighted=False,
            centring=rows.centring, sqrt_weight=np.ones(len(rows.y)),
            fitted_attributes={"n_samples_fit_": rows.n_samples, "noise_prior_": noise_prior,
                               "column_scale_": scale, "n_covariates_in_": 0},
            grid=self._inclusion_parameters(X.shape[1]), variance_y=rows.variance_y))
        return self

    def _prepare_fit(self, X, y, covariates=None, sample_weight=None):
        """Validate the parameters and the data; the data and priors the sweeps read."""
        self._validate_params()
        rows = self._prepare_data(X, y, order="F", sample_weight=sample_weight)
        scale = column_scales(rows.X, self.standardize,
                              rows.sqrt_weight if rows.weighted else None,
                              rows.centring.X_offset)
        # the noise prior reads the (weighted, centred) response before covariates are
        # projected out
        fixed_variance, noise_prior = self._noise_parameters(rows)
        projected, covariates = self._take_out_covariates(rows, covariates)
        X, col_sq_norms = projected.X, projected.col_sq_norms
        n_covariates = 0 if covariates is None else covariates.n_columns
        if n_covariates or self.standardize:
            X = np.asfortranarray(X / scale)
            col_sq_norms = np.einsum("ij,ij->j", X, X)
        gram = X.T @ X if self.algorithm == "paper" and X.shape[1] <= X.shape[0] else None
        return _SpikeSlabData(
            X=X, y=projected.y, col_sq_norms=col_sq_norms, fixed_variance=fixed_variance,
            noise_prior=noise_prior, slab_variance=self._scalar_slab_variance(), fixed_pi=None,
            pi_prior=None, gram=gram, covariates=covariates,
            n_observations=rows.centring.weight_total, weighted=rows.weighted,
            centring=projected.centring, sqrt_weight=rows.sqrt_weight,
            fitted_attributes={"n_samples_fit_": rows.X.shape[0], "noise_prior_": noise_prior,
                               "column_scale_": scale, "n_covariates_in_": n_covariates},
            grid=self._inclusion_parameters(X.shape[1]))

    def _n_starts(self):
        return 1 if self.algorithm == "paper" else self.n_init

    _collapsed_description = "the exact alpha-posterior"

    def _collapsed_noise(self, data):
        """The noise variance in the exact posterior: ``("integrated", c, b0)`` with the
        posterior shape ``c = a0 + (alpha n - k) / 2`` (``k`` flat columns: intercept and
        covariates, each integrated out) and the prior scale, or ``("known", sigma2)``."""
        if data.fixed_variance is not None:
            return "known", float(data.fixed_variance)
        n_flat = int(self.fit_intercept) + data.fitted_attributes["n_covariates_in_"]
        shape, scale = data.noise_prior
        return "integrated", exact_noise_shape(shape, self.alpha, data.n_observations,
                                               n_flat), scale

    def _collapsed_model(self, data, results):
        """The model with its coefficients integrated out: the rows times ``sqrt(alpha)``
        (:mod:`~alphavb.linear_model._neighbourhood`); None when too few observations leave
        the noise variance without an exact posterior (its shape under
        :data:`~alphavb.linear_model._base.MIN_NOISE_SHAPE`)."""
        from ._neighbourhood import CollapsedModel

        noise = self._collapsed_noise(data)
        if noise[0] == "integrated" and noise[1] < MIN_NOISE_SHAPE:
            return None
        root = np.sqrt(float(self.alpha))
        return CollapsedModel(root * data.X, root * data.y, 0,
                              *self._collapsed_prior(data.grid), noise)

    def _joint_means(self, data, phi):
        """The slab means maximising the objective given ``phi`` (module docstring):
        ``A mu = alpha X'y`` with ``A = E + alpha X'X diag(phi)``, ``E = diag(alpha ||X_j||^2
        (1 - phi_j) + 1/nu)``; by Woodbury through an (n, n) system when d > n."""
        alpha = float(self.alpha)
        X, y = data.X, data.y
        diagonal = alpha * data.col_sq_norms * (1.0 - phi) + 1.0 / data.slab_variance
        rhs = alpha * (X.T @ y)
        if data.gram is not None:
            return np.linalg.solve(np.diag(diagonal) + alpha * data.gram * phi, rhs)
        scaled = X * (phi / diagonal)                       # X diag(phi) E^{-1}
        inner = np.eye(X.shape[0]) + alpha * scaled @ X.T
        first = rhs / diagonal
        return first - alpha * (X.T @ np.linalg.solve(inner, scaled @ rhs)) / diagonal

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:  # warm start: the fitted q, its residual on this data
            phi, mu = previous.phi.copy(), previous.mu.copy()
            pi = previous.pi if data.pi_prior is not None else inclusion_factor(
                data.fixed_pi, None, None, len(phi))  # a fixed pi may have changed
            return _SpikeSlabState(phi, mu, previous.s2.copy(), data.y - data.X @ (phi * mu),
                                   previous.noise, pi)
        n_features = data.X.shape[1]
        y_variance = self._response_variance(data)
        if self.algorithm == "paper":  # Algorithm 1: phi = 1, the means from the first sweep
            return _SpikeSlabState(
                phi=np.ones(n_features), mu=np.zeros(n_features),
                s2=np.full(n_features, data.slab_variance), residual=data.y.copy(),
                noise=fixed_noise_start(data.fixed_variance,
                                        _START_NOISE_FRACTIONS[0] * y_variance),
                pi=inclusion_factor(data.fixed_pi, data.pi_prior, None, n_features))
        phi, mu = np.zeros(n_features), np.zeros(n_features)
        residual = data.y.copy()
        n_fixed = len(_START_NOISE_FRACTIONS)
        if start < n_fixed:
            fraction = _START_NOISE_FRACTIONS[start]
        elif start < n_fixed + n_features:
            # only the (start - 2)-th strongest single variable, at its least-squares mean
            fraction = _START_NOISE_FRACTIONS[0]
            norms = data.col_sq_norms
            safe_norms = np.where(norms > 0.0, norms, 1.0)   # a constant column scores -inf
            fit = data.X.T @ data.y / safe_norms
            score = np.where(norms > 0.0, fit * fit * norms, -np.inf)
            j = np.argsort(-score, kind="stable")[start - n_fixed]
            phi[j], mu[j] = 1.0, fit[j]
            residual -= data.X[:, j] * mu[j]
        else:
            fraction = 10.0 ** random_state.uniform(-3.0, 0.0)
        return _SpikeSlabState(
            phi=phi,
            mu=mu,
            s2=np.full(n_features, data.slab_variance),
            residual=residual,
            noise=fixed_noise_start(data.fixed_variance, fraction * y_variance),
            pi=inclusion_factor(data.fixed_pi, data.pi_prior, None, n_features),
        )

    def _response_variance(self, data):
        """``Var(y)``, the scale of the starting noise variances: weighted with weights (the
        rows of ``data.y`` are then ``sqrt(w_i) y_i``), so that integer weights start where
        the repeated rows do."""
        if data.variance_y is not None:  # sufficient statistics: data.y are p + 1 rows
            return data.variance_y if data.variance_y > 0.0 else 1.0
        if not data.weighted:
            return response_variance(data.y)
        variance = float(weighted_variance(data.y, data.sqrt_weight))
        return variance if variance > 0.0 else 1.0

    def _cavi_step(self, data, state):
        """One sweep: ``q(beta_j, z_j)`` for j = 1..d (in place), then ``q(sigma2)``, then
        ``q(pi)``; returns the new state and the objective (module docstring)."""
        # numba loads on the first fit, not on import
        from ._kernels import spike_slab_joint_sweep, spike_slab_sweep

        alpha, nu = float(self.alpha), data.slab_variance
        X = data.X
        n_features = X.shape[1]
        n_samples = data.n_observations  # the likelihood counts the weights
        noise, pi = state.noise, state.pi
        if self.algorithm == "paper":
            ess, second_moment, phi_sum, phi_log_s2, neg_entropy_z = spike_slab_joint_sweep(
                X, data.col_sq_norms, state.residual, state.phi, state.mu, state.s2,
                self._joint_means(data, state.phi), noise.tau, noise.elt,
                pi.elog - pi.elog1m, alpha, nu,
            )
        else:
            ess, second_moment, phi_sum, phi_log_s2, neg_entropy_z = spike_slab_sweep(
                X, data.col_sq_norms, state.residual, state.phi, state.mu, state.s2,
                noise.tau, noise.elt, pi.elog - pi.elog1m, alpha, nu,
            )
        covariates = data.covariates
        n_covariates = 0 if covariates is None else covariates.n_columns
        noise = noise_block(data.fixed_variance, data.noise_prior,
                            0.5 * (alpha * n_samples - n_covariates + phi_sum),
                            0.5 * (alpha * ess + second_moment / nu))
        pi = inclusion_factor(data.fixed_pi, data.pi_prior, phi_sum, n_features)
        kl_total = (
            inclusion_kl(neg_entropy_z, phi_sum, n_features, pi)
            - 0.5 * phi_log_s2
            + 0.5 * phi_sum * (np.log(nu) - 1.0 - noise.elt)
            + 0.5 * noise.tau * second_moment / nu
            + noise.kl
        )
        if n_covariates:  # gamma integrated out (module _covariates)
            kl_total -= covariates.objective_constant(alpha, noise.elt)
        alpha_elbo = expected_gaussian_loglik(n_samples, noise.tau, noise.elt, ess) \
            - kl_total / alpha
        new_state = _SpikeSlabState(state.phi, state.mu, state.s2, state.residual, noise, pi)
        return new_state, self._objective_without_latents(alpha_elbo)

    def _state_attributes(self, state):
        blocks = self._block_attributes(state)
        return {**blocks, **self._covariate_attributes(blocks["coef_"]),
                **self._noise_attributes(state.noise)}

    def _coef_variance_along(self, X_centred):
        means, variances = self._coef_moments_along(X_centred)
        spread = (means - self.hyper_weights_ @ means) ** 2
        return self.hyper_weights_ @ (variances + spread)

    def sample_posterior(self, n_samples=1, random_state=None):
        rng = check_random_state(random_state)
        draws = super().sample_posterior(n_samples, rng)
        if self.inclusion_posterior_ is not None:
            draws["prior_inclusion"] = rng.beta(*self.inclusion_posterior_, size=n_samples)
        return self._draw_covariates(draws, rng)

    sample_posterior.__doc__ = AlphaRegressionBase.sample_posterior.__doc__

