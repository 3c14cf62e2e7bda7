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
from scipy.stats import norm
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._special import beta_expectations, kl_beta
from .._validation import Options, PositivePair, Real, bad_parameter
from ._base import (
    AlphaRegressionBase,
    NoiseFactor,
    expected_gaussian_loglik,
    fixed_noise_start,
    noise_block,
    response_variance,
)

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
    gram: np.ndarray | None = None  # X'X, for the joint update of the means when d <= n


@dataclass(frozen=True)
class _InclusionFactor:
    """``q(pi)`` (or the fixed ``pi``): ``E log pi``, ``E log(1 - pi)``, its KL to the prior
    and ``q(pi) = Beta(*posterior)`` when ``pi`` is learned."""

    elog: float
    elog1m: float
    kl: float = 0.0
    posterior: tuple | None = None


@dataclass(frozen=True)
class _SpikeSlabState:
    """``q(beta_j, z_j)``: ``phi``, ``mu``, ``s2`` (updated in place by the kernel), the
    residual ``y - X (phi mu)`` the kernel keeps current, ``q(sigma2)`` and ``q(pi)``."""

    phi: np.ndarray
    mu: np.ndarray
    s2: np.ndarray
    residual: np.ndarray
    noise: NoiseFactor
    pi: _InclusionFactor


class AlphaSpikeSlabRegression(AlphaRegressionBase):
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
        Temperature of the fractional likelihood; 1 is ordinary VB.
    slab_variance : float, default=1.0
        ``nu`` in the slab ``N(0, nu sigma2)``.
    prior_inclusion : float in (0, 1) or None, default=None
        Fixed prior inclusion probability ``pi``; ``None`` means ``1 / n_features`` (the
        paper's choice), or 1/2 when there is a single feature.
        Ignored when ``inclusion_prior`` is given.
    inclusion_prior : tuple (a, b) or None, default=None
        Beta hyper-prior on ``pi``, which is then learned.
    noise_variance : float or None, default=None
        Known noise variance; ``None`` learns it with the prior ``noise_prior``.
    noise_prior : tuple (shape, scale), default=(1e-6, 1e-6)
        Inverse-gamma prior of ``sigma2``.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (``X`` and ``y`` are centred).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        The alpha-ELBO or the KL to the fractional posterior (:mod:`alphavb.base`); the same
        maximiser here, ``elbo_`` differs by the factor ``alpha``.
    algorithm : {"coordinate", "paper"}, default="coordinate"
        ``"coordinate"``: one coordinate update per ``(beta_j, z_j)`` per sweep, several
        starts. ``"paper"``: the paper's Algorithm 1, ``phi`` started at 1 and a joint
        update of all slab means per sweep (module docstring); one start. For the paper's
        setting also pass the known ``noise_variance`` and ``slab_variance = nu / alpha``.
    n_init : int, default=3
        Number of starts (``algorithm="coordinate"``). Start 0 runs the first sweep at noise variance ``Var(y)/100``,
        start 1 at ``Var(y)``, start 2 at ``Var(y)/10``, later ones at random fractions.
    max_iter : int, default=1000
        Maximum number of sweeps per start.
    tol : float, default=1e-8
        Stop when the relative change of the objective is at most ``tol``.
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
        ``mu_j`` and ``s2_j``: mean and variance of ``beta_j`` given ``z_j = 1``.
    intercept_ : float
    noise_variance_ : float
        ``E_q[sigma2]`` (``inf`` if ``a_n <= 1``), or the known variance.
    noise_shape_, noise_scale_ : float or None
        Parameters of ``q(sigma2)``.
    prior_inclusion_ : float
        The resolved fixed ``pi`` (``nan`` when ``pi`` is learned).
    inclusion_posterior_ : tuple (a, b) or None
        ``q(pi) = Beta(a, b)`` when ``inclusion_prior`` is given.
    elbo_, elbo_history_, n_iter_, converged_ : see :class:`AlphaLinearRegression`.
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

    _parameter_constraints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_constraints,
        "slab_variance": [Real(0, None, closed="neither")],
        "prior_inclusion": [None, Real(0, 1, closed="neither")],
        "inclusion_prior": [None, PositivePair()],
        "algorithm": [Options("coordinate", "paper")],
    }
    _parameter_hints: ClassVar[dict] = {
        **AlphaRegressionBase._parameter_hints,
        "inclusion_prior": "It is the (a, b) of a Beta prior on pi.",
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        slab_variance=1.0,
        prior_inclusion=None,
        inclusion_prior=None,
        noise_variance=None,
        noise_prior=(1e-6, 1e-6),
        fit_intercept=True,
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
        self.inclusion_prior = inclusion_prior
        self.noise_variance = noise_variance
        self.noise_prior = noise_prior
        self.fit_intercept = fit_intercept
        self.objective = objective
        self.algorithm = algorithm
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _inclusion_parameters(self, n_features):
        """The fixed ``pi`` (or None) and the Beta prior of a learned one (or None)."""
        if self.inclusion_prior is not None:
            if self.prior_inclusion is not None:
                raise bad_parameter(
                    type(self).__name__, "prior_inclusion", "None when inclusion_prior is given",
                    self.prior_inclusion,
                    fix="Give either a fixed prior_inclusion or a Beta inclusion_prior.",
                )
            a, b = np.asarray(self.inclusion_prior, dtype=float)
            return None, (float(a), float(b))
        if self.prior_inclusion is None:
            # the paper's 1/d, kept inside (0, 1) when there is a single feature
            return min(1.0 / n_features, 0.5), None
        return float(self.prior_inclusion), None

    def fit(self, X, y):
        """Fit the spike-and-slab alpha-VB approximation by CAVI.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._fit_cavi(self._prepare_fit(X, y))
        self._set_intercept()
        return self

    def _prepare_fit(self, X, y):
        """Validate the parameters and the data; the data and priors the sweeps read."""
        self._validate_params()
        X, y, col_sq_norms = self._prepare_data(X, y, order="F")
        fixed_variance, noise_prior = self._noise_parameters()
        fixed_pi, pi_prior = self._inclusion_parameters(X.shape[1])
        self.prior_inclusion_ = np.nan if fixed_pi is None else fixed_pi
        gram = X.T @ X if self.algorithm == "paper" and X.shape[1] <= X.shape[0] else None
        return _SpikeSlabData(X, y, col_sq_norms, fixed_variance, noise_prior,
                              float(self.slab_variance), fixed_pi, pi_prior, gram)

    def _n_starts(self):
        return 1 if self.algorithm == "paper" else self.n_init

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

    @staticmethod
    def _inclusion_block(data, phi_sum, n_features):
        """``q(pi)`` update (or the fixed ``pi``).

        ``phi_sum=None`` gives the expectations under the prior, used by the first sweep.
        """
        if data.pi_prior is None:
            pi = data.fixed_pi
            return _InclusionFactor(np.log(pi), np.log1p(-pi))
        prior_a, prior_b = data.pi_prior
        if phi_sum is None:
            return _InclusionFactor(*beta_expectations(prior_a, prior_b))
        a, b = prior_a + phi_sum, prior_b + n_features - phi_sum
        elog, elog1m = beta_expectations(a, b)
        return _InclusionFactor(elog, elog1m, kl_beta(a, b, prior_a, prior_b),
                                (float(a), float(b)))

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:  # warm start: the fitted q, its residual on this data
            phi, mu = previous.phi.copy(), previous.mu.copy()
            return _SpikeSlabState(phi, mu, previous.s2.copy(), data.y - data.X @ (phi * mu),
                                   previous.noise, previous.pi)
        n_features = data.X.shape[1]
        y_variance = response_variance(data.y)
        if self.algorithm == "paper":  # Algorithm 1: phi = 1, the means from the first sweep
            return _SpikeSlabState(
                phi=np.ones(n_features), mu=np.zeros(n_features),
                s2=np.full(n_features, data.slab_variance), residual=data.y.copy(),
                noise=fixed_noise_start(data.fixed_variance,
                                        _START_NOISE_FRACTIONS[0] * y_variance),
                pi=self._inclusion_block(data, None, n_features))
        if start < len(_START_NOISE_FRACTIONS):
            fraction = _START_NOISE_FRACTIONS[start]
        else:
            fraction = 10.0 ** random_state.uniform(-3.0, 0.0)
        return _SpikeSlabState(
            phi=np.zeros(n_features),
            mu=np.zeros(n_features),
            s2=np.full(n_features, data.slab_variance),
            residual=data.y.copy(),
            noise=fixed_noise_start(data.fixed_variance, fraction * y_variance),
            pi=self._inclusion_block(data, None, n_features),
        )

    def _cavi_step(self, data, state):
        """One sweep: ``q(beta_j, z_j)`` for j = 1..d (in place), then ``q(sigma2)``, then
        ``q(pi)``; returns the new state and the objective (module docstring)."""
        # numba loads on the first fit, not on import
        from ._kernels import spike_slab_joint_sweep, spike_slab_sweep

        alpha, nu = float(self.alpha), data.slab_variance
        X = data.X
        n_samples, n_features = X.shape
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
        noise = noise_block(data.fixed_variance, data.noise_prior,
                            0.5 * (alpha * n_samples + phi_sum),
                            0.5 * (alpha * ess + second_moment / nu))
        pi = self._inclusion_block(data, phi_sum, n_features)
        kl_total = (
            neg_entropy_z
            - phi_sum * pi.elog
            - (n_features - phi_sum) * pi.elog1m
            - 0.5 * phi_log_s2
            + 0.5 * phi_sum * (np.log(nu) - 1.0 - noise.elt)
            + 0.5 * noise.tau * second_moment / nu
            + noise.kl
            + pi.kl
        )
        alpha_elbo = expected_gaussian_loglik(n_samples, noise.tau, noise.elt, ess) \
            - kl_total / alpha
        new_state = _SpikeSlabState(state.phi, state.mu, state.s2, state.residual, noise, pi)
        return new_state, self._objective_without_latents(alpha_elbo)

    def _set_parameters(self, state):
        self.inclusion_probabilities_ = state.phi
        self.slab_means_ = state.mu
        self.slab_variances_ = state.s2
        self.coef_ = state.phi * state.mu
        self.inclusion_posterior_ = state.pi.posterior
        self._set_noise_attributes(state.noise)

    def _draw_coef(self, n_samples, rng):
        """``z_j ~ Bernoulli(phi_j)`` and ``beta_j ~ N(mu_j, s2_j)`` if ``z_j = 1``, else 0,
        independently per feature; and ``pi ~ q(pi)`` when it is learned."""
        n_features = self.coef_.shape[0]
        included = rng.random_sample((n_samples, n_features)) < self.inclusion_probabilities_
        slab = self.slab_means_ + np.sqrt(self.slab_variances_) * rng.standard_normal(
            (n_samples, n_features))
        return {"coef": np.where(included, slab, 0.0), "inclusion": included}

    def sample_posterior(self, n_samples=1, random_state=None):
        rng = check_random_state(random_state)
        draws = super().sample_posterior(n_samples, rng)
        if self.inclusion_posterior_ is not None:
            draws["prior_inclusion"] = rng.beta(*self.inclusion_posterior_, size=n_samples)
        return draws

    sample_posterior.__doc__ = AlphaRegressionBase.sample_posterior.__doc__

    def _coef_variances(self):
        phi, mu = self.inclusion_probabilities_, self.slab_means_
        return phi * (self.slab_variances_ + (1.0 - phi) * mu * mu)

    def _coef_variance_along(self, X_centred):
        return (X_centred * X_centred) @ self._coef_variances()

    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each ``beta_j`` under ``q``.

        The marginal ``q(beta_j) = (1 - phi_j) delta_0 + phi_j N(mu_j, s2_j)`` has an atom at 0,
        so its quantiles are exact: ``0`` when the tail probability falls inside the atom,
        otherwise a normal quantile of the slab rescaled by ``phi_j``.

        Returns
        -------
        ndarray of shape (n_features, 2)
        """
        check_is_fitted(self)
        level = self._check_level(level)
        phi, mu = self.inclusion_probabilities_, self.slab_means_
        sd = np.sqrt(self.slab_variances_)
        below_atom = phi * norm.cdf(-mu / sd)        # q(beta_j < 0)
        above_atom = below_atom + (1.0 - phi)        # q(beta_j <= 0)
        bounds = []
        for p in (0.5 - 0.5 * level, 0.5 + 0.5 * level):
            with np.errstate(divide="ignore", invalid="ignore"):
                low_branch = mu + sd * norm.ppf(np.clip(p / phi, 0.0, 1.0))
                high_branch = mu + sd * norm.ppf(np.clip((p - (1.0 - phi)) / phi, 0.0, 1.0))
            bounds.append(np.where(p < below_atom, low_branch,
                                   np.where(p > above_atom, high_branch, 0.0)))
        return np.column_stack(bounds)

    def _summary_columns(self, level):
        interval = self.credible_intervals(level)
        return {"coef": self.coef_, "sd": np.sqrt(self._coef_variances()),
                "PIP": self.inclusion_probabilities_, "lower": interval[:, 0],
                "upper": interval[:, 1]}
