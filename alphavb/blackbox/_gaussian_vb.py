r"""Gaussian and mixture-of-Gaussians alpha-VB for models without conjugacy: Yang, Pati &
Bhattacharya (2020), Cor. 4.3 (Gaussian family) and Cor. D.1 (mixtures): maximize over ``q``

    L_alpha(q) = E_q[log p(Y | theta)] - (1/alpha) KL(q || p),                          (1)

where ``alpha`` in (0, 1] is the alpha-VB *temperature*: the maximizer over all ``q`` is the
alpha-fractional posterior ``p(Y | theta)^alpha p(theta) / Z``. Gaussian family
``q = N(m, L L')`` (``family="full"``) or ``N(m, diag(s^2))`` (``"diag"``); ``L`` has a
positive diagonal stored as its logarithm. The expectation is a reparametrized average
over base draws ``theta_s = m + L eps_s``.

With ``optimizer="lbfgs"`` the draws are fixed (sample-average approximation), so (1) is a
deterministic function and L-BFGS converges in a few dozen iterations. The base draws are
moment-matched (centred, then whitened so that their sample mean is 0 and their sample
covariance is exactly ``I``; needs ``n_mc_samples > n_params``): then ``E_q`` of any
quadratic log-likelihood is computed exactly, and a Gaussian likelihood gives exactly the
fractional posterior. ``optimizer="adam"`` draws fresh base draws at every step and can use
mini-batches (``batch_size``), scaling the batch log-likelihood by ``n / batch``.

Mixtures ``q = sum_j w_j N(m_j, Sigma_j)`` (``n_components > 1``) have no closed-form
entropy; the Jensen surrogate (Zobay 2014), a lower bound of (1), is maximized instead:

    Lbar_alpha(q) = sum_j w_j E_{q_j}[log p(Y | theta)]
                    + (1/alpha) (sum_j w_j E_{q_j}[log p(theta)] - sum_j w_j log E_{q_j}[q(theta)]),
    E_{q_j}[q(theta)] = sum_l w_l N(m_j; m_l, Sigma_j + Sigma_l).

The prior is ``N(prior_mean, diag(prior_variance))``. A mixture fit starts from the
one-component fit: each component has its covariance, and the means are spread around its
mean by centred draws scaled by the prior standard deviation.
"""

import time
import warnings
from typing import ClassVar

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad
from autograd.scipy.linalg import solve_triangular
from autograd.scipy.special import logsumexp
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._approximation import CHECK_LEVEL, importance_check, publish_check
from .._special import LOG_2PI
from .._validation import (
    Boolean,
    CallableValue,
    FiniteArray,
    Integer,
    Options,
    RandomState,
    Real,
    ValidatedParametersMixin,
    bad_parameter,
    caller_stacklevel,
    validate_params,
)
from ._gaussian_families import FAMILIES
from ._training import (
    Objective,
    Schedule,
    stacked_value_and_grad,
    train,
    warn_if_not_converged,
)

OPTIMIZERS = ("lbfgs", "adam")
DEFAULT_TOL = {"lbfgs": 1e-9, "adam": 1e-4}
PSIS_DRAWS = 1000  # draws of q for the fit-time check (Yao et al. 2018: 1,000-4,000)
STATIONARITY_TOL = 1e-2  # largest |gradient| in natural units of a converged L-BFGS fit


def moment_matched_normal(rng, n_draws, dim):
    """Standard-normal draws whose sample mean is 0 and sample covariance is exactly I
    (when ``n_draws > dim``; only centred otherwise)."""
    eps = rng.standard_normal((n_draws, dim))
    eps -= eps.mean(axis=0)
    if n_draws > dim:
        factor = np.linalg.cholesky(eps.T @ eps / n_draws)
        eps = np.linalg.solve(factor, eps.T).T
    return eps


def gaussian_kl_to_prior(mean, covariance, log_det, prior_mean, prior_variance):
    """``KL(N(m, Sigma) || N(mu0, diag(v0)))`` in closed form."""
    diff = mean - prior_mean
    return 0.5 * (anp.sum(anp.diagonal(covariance, axis1=-1, axis2=-2) / prior_variance)
                  + anp.sum(diff**2 / prior_variance) - mean.shape[0]
                  + anp.sum(anp.log(prior_variance) * anp.ones(mean.shape[0])) - log_det)


def jensen_entropy_bound(means, covariances, log_weights):
    """``-sum_j w_j log sum_l w_l N(m_j; m_l, Sigma_j + Sigma_l)``, a lower bound of the
    mixture's entropy (Zobay 2014)."""
    J, P = means.shape
    rows = []
    for j in range(J):
        terms = []
        for component in range(J):
            chol = anp.linalg.cholesky(covariances[j] + covariances[component])
            z = solve_triangular(chol, means[j] - means[component], lower=True)
            log_det = 2.0 * anp.sum(anp.log(anp.diagonal(chol, axis1=-1, axis2=-2)))
            terms.append(-0.5 * (P * LOG_2PI + log_det + anp.sum(z**2)))
        rows.append(logsumexp(anp.stack(terms) + log_weights))
    return -anp.sum(anp.exp(log_weights) * anp.stack(rows))


class AlphaGaussianVB(ValidatedParametersMixin, BaseEstimator):

    """Gaussian or mixture-of-Gaussians alpha-VB for an autograd-differentiable likelihood.

    Maximizes ``E_q[log p(Y | theta)] - (1/alpha) KL(q || p)`` (Yang, Pati & Bhattacharya
    2020, eq. 2.6 with Cor. 4.3), or the Jensen surrogate for a mixture (Cor. D.1).
    See the module docstring for the parametrization and the optimizers.

    Parameters
    ----------
    log_likelihood : callable
        ``log_likelihood(theta, X, y)`` with ``theta`` of shape (S, n_params) returns the
        total log-likelihood of the data ``(X, y)`` at each of the S parameter vectors,
        shape (S,), written with ``autograd.numpy``. (``vectorized=False``: ``theta`` has
        shape (n_params,) and the result is a scalar.) ``y`` is ``None`` when ``fit`` got none.
    n_params : int
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    family : {"full", "diag"}, default="full"
    n_components : int, default=1
    prior_mean : float or array of shape (n_params,), default=0.0
    prior_variance : float or array of shape (n_params,), default=1.0
    optimizer : {"lbfgs", "adam"}, default="lbfgs"
    n_mc_samples : int, default=100
        Base draws per component (fixed for L-BFGS, fresh at each Adam step).
    max_iter : int, default=500
        L-BFGS iterations or Adam steps.
    tol : float, None or "auto", default="auto"
        L-BFGS: the stopping tolerance on the relative change of the objective ("auto":
        1e-9). Adam: the rule of the black-box training loop
        (:mod:`alphavb.blackbox._training`): training stops when the objective per row of
        ``X``, averaged over blocks of at least 100 steps, has not improved by more than
        ``tol`` for ``n_iter_no_change`` blocks ("auto": 1e-4; ``None`` takes all
        ``max_iter`` steps). Either warns (``ConvergenceWarning``) when ``max_iter`` ends
        first.
    n_iter_no_change : int, default=10
        Adam only: blocks without improvement that make a plateau.
    n_lr_decays : int, default=2
        Adam only: plateaus at which the step size is divided by 5 before the next one
        ends training.
    learning_rate : float, default=0.01
        Adam only.
    batch_size : int or None, default=None
        Adam only: rows of ``X`` per step (``None`` is all of them), in shuffled epochs.
    vectorized : bool, default=True
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    mean_ : ndarray of shape (n_components, n_params)
    covariance_ : ndarray of shape (n_components, n_params, n_params)
    weights_ : ndarray of shape (n_components,)
    elbo_ : float
        The objective (the Jensen surrogate for a mixture) at the fitted ``q``: on L-BFGS's
        fixed draws, or with Adam the mean of the epoch estimates over the last tenth of the
        epochs (``elbo_history_`` holds every epoch's mean estimate). ``objective()``
        re-estimates it.
    elbo_history_ : ndarray
        The objective after each L-BFGS iteration (on its fixed draws), or each Adam
        epoch's mean estimate.
    n_iter_ : int
        L-BFGS iterations, or Adam steps.
    converged_ : bool
        L-BFGS reported success after at least one iteration, or Adam's rule was met.
    approximation_check_, khat_ : ApproximationCheck, float
        ``q`` beside the exact alpha-posterior by Pareto-smoothed importance sampling.

    Examples
    --------
    A Poisson rate: ``theta`` is the log-rate, the data are 50 counts with mean 3.18. At
    ``alpha = 0.5`` the fractional posterior has sd ``1 / sqrt(alpha n rate) = 0.112``.

    >>> import autograd.numpy as anp
    >>> import numpy as np
    >>> from alphavb import AlphaGaussianVB
    >>> counts = np.random.default_rng(0).poisson(3.0, size=50)
    >>> def log_likelihood(theta, X, y):  # theta: (S, 1) draws of the log-rate
    ...     log_rate = theta[:, :1]
    ...     return anp.sum(X[None, :] * log_rate - anp.exp(log_rate), axis=1)
    >>> vb = AlphaGaussianVB(log_likelihood, n_params=1, alpha=0.5, random_state=0).fit(counts)
    >>> print(np.round(np.exp(vb.mean_[0, 0]), 2), np.round(np.sqrt(vb.covariance_[0, 0, 0]), 3))
    3.11 0.112
    """

    # who a failure is reported as, and what to check (a model built on this class, such as
    # AlphaLogisticRegression, names itself and its own inputs: its user wrote no
    # log_likelihood)
    _blame = ("AlphaGaussianVB", "check log_likelihood and the prior")
    # how compare_to_exact takes a model with an exact sampler that fits through this one
    # (AlphaLogisticRegression); None: a likelihood of the user's own has none
    _exact_call = None

    def __init__(self, log_likelihood=None, n_params=None, alpha=1.0, family="full",
                 n_components=1, prior_mean=0.0, prior_variance=1.0, optimizer="lbfgs",
                 n_mc_samples=100, max_iter=500, tol="auto", n_iter_no_change=10,
                 n_lr_decays=2, learning_rate=0.01, batch_size=None, vectorized=True,
                 random_state=None):
        self.log_likelihood = log_likelihood
        self.n_params = n_params
        self.alpha = alpha
        self.family = family
        self.n_components = n_components
        self.prior_mean = prior_mean
        self.prior_variance = prior_variance
        self.optimizer = optimizer
        self.n_mc_samples = n_mc_samples
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_lr_decays = n_lr_decays
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.vectorized = vectorized
        self.random_state = random_state

    # -- checks --------------------------------------------------------------------------

    _parameter_constraints: ClassVar[dict] = {
        "log_likelihood": [CallableValue()],
        "n_params": [Integer(1, None)],
        "alpha": [Real(0, 1, closed="right")],
        "family": [Options(*FAMILIES)],
        "n_components": [Integer(1, None)],
        "prior_mean": [FiniteArray()],
        "prior_variance": [FiniteArray(positive=True)],
        "optimizer": [Options(*OPTIMIZERS)],
        "n_mc_samples": [Integer(1, None)],
        "max_iter": [Integer(1, None)],
        "tol": [Options("auto"), None, Real(0, None)],
        "n_iter_no_change": [Integer(1, None)],
        "n_lr_decays": [Integer(0, None)],
        "learning_rate": [Real(0, None, closed="neither")],
        "batch_size": [None, Integer(1, None)],
        "vectorized": [Boolean()],
        "random_state": [RandomState()],
    }
    _parameter_hints: ClassVar[dict] = {
        "log_likelihood": "Pass a callable log_likelihood(theta, X, y).",
        "alpha": "alpha is the likelihood's temperature (alpha-VB): 1 is ordinary VB.",
        "tol": "Or None to train every epoch of the budget.",
    }

    def _check_parameters(self):
        """Check the declared constraints; the prior as two arrays of shape (n_params,)."""
        self._validate_params()
        owner = type(self).__name__
        prior_mean = _prior_vector(owner, "prior_mean", self.prior_mean, self.n_params, False)
        prior_variance = _prior_vector(owner, "prior_variance", self.prior_variance,
                                       self.n_params, True)
        return self.n_params, prior_mean, prior_variance

    # -- objective -----------------------------------------------------------------------

    def _expected_log_likelihood(self, thetas, X, y, scale):
        """``scale * mean_s log p(Y | theta_s)`` per component; thetas has shape (J, S, P)."""
        J, S, P = thetas.shape
        flat = anp.reshape(thetas, (J * S, P))
        if self.vectorized:
            values = self.log_likelihood(flat, X, y)
        else:
            values = anp.stack([self.log_likelihood(flat[i], X, y) for i in range(J * S)])
        return scale * anp.mean(anp.reshape(values, (J, S)), axis=1)

    def _objective(self, flat, eps, X, y, scale):
        means, factors, log_weights = self._family.unpack(flat)
        expected = self._expected_log_likelihood(self._family.draws(means, factors, eps), X, y,
                                                 scale)
        covariances = self._family.covariances(factors)
        log_dets = self._family.log_dets(factors)
        mu0, v0 = self._prior
        if self._family.n_components == 1:
            kl = gaussian_kl_to_prior(means[0], covariances[0], log_dets[0], mu0, v0)
            return expected[0] - kl / self.alpha
        weights = anp.exp(log_weights)
        expected_log_prior = -0.5 * (anp.sum(anp.log(2 * np.pi * v0))
                                     + anp.sum((means - mu0)**2 / v0, axis=1)
                                     + anp.sum(anp.diagonal(covariances, axis1=-1, axis2=-2) / v0,
                                               axis=1))
        entropy_bound = jensen_entropy_bound(means, covariances, log_weights)
        return (anp.sum(weights * expected)
                + (anp.sum(weights * expected_log_prior) + entropy_bound) / self.alpha)

    def objective(self, X=None, y=None, n_mc_samples=None, random_state=None):
        """The objective (1), or the Jensen surrogate for a mixture, at the fitted ``q``,
        estimated with fresh moment-matched draws."""
        check_is_fitted(self, "flat_")
        rng = check_random_state(random_state)
        eps = self._base_draws(rng, n_mc_samples or self.n_mc_samples)
        X, y = self._check_data(X, y)
        return float(self._objective(self.flat_, eps, X, y, 1.0))

    def _base_draws(self, rng, n_draws):
        return np.stack([moment_matched_normal(rng, n_draws, self._family.n_params)
                         for _ in range(self._family.n_components)])

    # -- fitting -------------------------------------------------------------------------

    @staticmethod
    def _check_data(X, y):
        if X is None:
            return None, y
        X = np.asarray(X)
        if X.ndim == 0 or X.shape[0] == 0:
            raise ValueError("AlphaGaussianVB: X must hold at least one observation (rows "
                             f"along the first axis); got shape {X.shape}.")
        if np.issubdtype(X.dtype, np.number) and not np.all(np.isfinite(X)):
            raise ValueError("AlphaGaussianVB: X holds NaN or infinite values; remove or "
                             "impute them before fit.")
        if y is not None:
            y = np.asarray(y)
            if y.shape[:1] != X.shape[:1]:
                raise ValueError(f"AlphaGaussianVB: y must have one entry per row of X "
                                 f"({X.shape[0]}); got shape {y.shape}.")
            if np.issubdtype(y.dtype, np.number) and not np.all(np.isfinite(y)):
                raise ValueError("AlphaGaussianVB: y holds NaN or infinite values.")
        return X, y

    def fit(self, X=None, y=None):
        """Fit ``q`` to the data ``X`` (observations along the first axis) and ``y``."""
        n_params, prior_mean, prior_variance = self._check_parameters()
        X, y = self._check_data(X, y)
        rng = check_random_state(self.random_state)
        self._prior = (prior_mean, prior_variance)
        n_components = self.n_components
        # one Gaussian first: the start of every mixture component
        family = FAMILIES[self.family]
        self._family = family(n_params, 1)
        start_sd = np.sqrt(np.minimum(prior_variance, 1.0)) * 0.1
        flat = self._family.pack(prior_mean[None], self._family.start_factors(start_sd),
                                 np.zeros(1))
        self._check_log_likelihood(flat, X, y, rng)
        flat = self._optimize(flat, X, y, rng)
        if n_components > 1:
            means, factors, _ = self._family.unpack(flat)
            # centred draws of one prior standard deviation around the one-component mean, so
            # the components can reach modes the single Gaussian did not see
            spread = means + np.sqrt(prior_variance) * moment_matched_normal(
                rng, n_components, n_params)
            self._family = family(n_params, n_components)
            flat = self._family.pack(spread, np.repeat(factors, n_components, axis=0),
                                     np.full(n_components, -np.log(n_components)))
            flat = self._optimize(flat, X, y, rng)
        self.flat_ = flat
        means, factors, log_weights = self._family.unpack(flat)
        self.mean_ = np.asarray(means)
        self.covariance_ = np.asarray(self._family.covariances(factors))
        self.weights_ = np.exp(np.asarray(log_weights))
        publish_check(self, lambda: self._approximation_check(X, y, rng),
                      getattr(self, "_blame", (None,))[0])
        self.khat_ = getattr(self.approximation_check_, "khat", np.nan)  # None: no check
        return self

    def _approximation_check(self, X, y, rng):
        """``q`` against the exact alpha-posterior ``p ∝ N(prior) x likelihood^alpha`` by
        Pareto-smoothed importance sampling (Yao, Vehtari, Simpson & Gelman 2018):
        ``PSIS_DRAWS`` draws of ``q`` weighted by ``p / q`` (:func:`importance_check`)."""
        from scipy.special import logsumexp as scipy_logsumexp
        from scipy.stats import multivariate_normal

        from .._estimates import _normal_mixture_quantiles

        started = time.perf_counter()
        theta = self.sample(PSIS_DRAWS, random_state=rng.randint(2**31 - 1))
        with np.errstate(all="ignore"):  # a log-likelihood undefined at a draw is NaN there
            if self.vectorized:  # in chunks of draws: about 1e6 numbers at once, whatever n
                chunk = max(1, int(1e6 // max(np.shape(X)[0] if np.ndim(X) else 1, 1)))
                log_likelihood = np.concatenate([np.asarray(self.log_likelihood(
                    theta[start:start + chunk], X, y), dtype=float)
                    for start in range(0, len(theta), chunk)])
            else:
                log_likelihood = np.array([self.log_likelihood(row, X, y) for row in theta])
        prior_mean, prior_variance = self._prior
        log_prior = -0.5 * np.sum((theta - prior_mean) ** 2 / prior_variance
                                  + np.log(2 * np.pi * prior_variance), axis=1)
        log_q = scipy_logsumexp([np.log(weight) + multivariate_normal(mean, cov).logpdf(theta)
                                 for weight, mean, cov in zip(self.weights_, self.mean_,
                                                              self.covariance_, strict=True)],
                                axis=0)
        sds = np.sqrt(np.diagonal(self.covariance_, axis1=1, axis2=2))
        tails = (0.5 - 0.5 * CHECK_LEVEL, 0.5 + 0.5 * CHECK_LEVEL)
        lower, upper = _normal_mixture_quantiles(self.weights_, self.mean_, sds, tails)
        names = getattr(self, "_parameter_names", None) or tuple(
            f"theta[{j}]" for j in range(theta.shape[1]))
        return importance_check(
            theta, self.alpha * log_likelihood + log_prior - log_q, lower, upper, names,
            started, "the usual cause: a posterior that is skewed, heavy-tailed or "
                     "multimodal where q is Gaussian", call=self._exact_call)

    def _resolved_tol(self):
        return DEFAULT_TOL[self.optimizer] if isinstance(self.tol, str) else self.tol

    def _check_log_likelihood(self, flat, X, y, rng):
        """Call ``log_likelihood`` once at the start and refuse a result of the wrong shape
        (an (S, 1) array would broadcast silently into a meaningless objective)."""
        means, factors, _ = self._family.unpack(flat)
        thetas = np.asarray(self._family.draws(means, factors, self._base_draws(rng, 2)))
        theta = thetas.reshape(-1, thetas.shape[-1])
        if self.vectorized:
            value, expected = self.log_likelihood(theta, X, y), (theta.shape[0],)
            form = "an array of shape (S,), one total log-likelihood per row of theta (S, "\
                f"{theta.shape[1]})"
        else:
            value, expected = self.log_likelihood(theta[0], X, y), ()
            form = "a scalar (vectorized=False)"
        if np.shape(value) != expected:
            raise ValueError(f"AlphaGaussianVB: log_likelihood must return {form}; got shape "
                             f"{np.shape(value)}. Sum over the data inside log_likelihood.")
        if not np.all(np.isfinite(value)):
            owner, fix = self._blame
            raise ValueError(f"{owner}: the log-likelihood is not finite at the starting point "
                             f"(near the prior mean); {fix}.")

    def _optimize(self, flat, X, y, rng):
        if self.optimizer == "lbfgs":
            return self._optimize_lbfgs(flat, X, y, rng)
        return self._optimize_adam(flat, X, y, rng)

    def _optimize_lbfgs(self, flat, X, y, rng):
        negative = value_and_grad(lambda f, eps, Xb, yb, scale:
                                  -self._objective(f, eps, Xb, yb, scale))
        eps = self._base_draws(rng, self.n_mc_samples)
        history = []  # the objective after each L-BFGS iteration (fixed draws: exact)

        def record(intermediate_result):
            history.append(-float(intermediate_result.fun))

        # L-BFGS's tests are not scale free: on badly scaled data (y * 1e50) it can stop far
        # from the optimum, and its relative ftol early when the objective grows with n
        # (60,000 rows: gradient 0.02). Converged: a small gradient in natural units (nats per
        # posterior sd, per log-scale); two more passes, ftol / 1e3 each, reach it.
        options, n_iter = {"maxiter": self.max_iter, "gtol": 1e-10,
                           "ftol": self._resolved_tol() or 0.0}, 0
        for _ in range(3):
            with np.errstate(over="ignore", invalid="ignore"):
                result = minimize(negative, flat, args=(eps, X, y, 1.0), jac=True,
                                  method="L-BFGS-B", callback=record, options=options)
            if not (np.isfinite(result.fun) and np.all(np.isfinite(result.x))):
                owner, fix = self._blame
                raise FloatingPointError(f"{owner}: the objective is not finite at the "
                                         f"optimum; {fix}.")
            n_iter += int(result.nit)
            self.stationarity_ = float(np.max(np.abs(
                np.asarray(result.jac) * self._family.natural_units(result.x))))
            if not result.success or result.nit == 0 or self.stationarity_ < STATIONARITY_TOL:
                break
            flat, options["ftol"] = result.x, options["ftol"] * 1e-3
        self.elbo_history_ = np.asarray(history, dtype=float)
        self.elbo_, self.n_iter_ = -float(result.fun), n_iter
        self.converged_ = (bool(result.success) and n_iter > 0
                           and self.stationarity_ < STATIONARITY_TOL)
        if not self.converged_:
            if n_iter == 0:
                reason = "it stopped at its starting point"
            elif not result.success:
                reason = f"max_iter={self.max_iter} iterations ended first ({result.message})"
            else:
                reason = (f"it stopped where the gradient in natural units is still "
                          f"{self.stationarity_:.3g} (it should be below {STATIONARITY_TOL:g})")
            warnings.warn(f"{self._blame[0]} (L-BFGS) did not converge: {reason}. Raise "
                          "max_iter, rescale the data or the prior, or use optimizer='adam'.",
                          ConvergenceWarning, stacklevel=caller_stacklevel())
        return result.x

    def _optimize_adam(self, flat, X, y, rng):
        """Adam on fresh moment-matched draws at every step, in the shared training loop."""
        n_rows = 1 if X is None else X.shape[0]
        batch_size = n_rows if self.batch_size is None else min(self.batch_size, n_rows)
        n_draws = self.n_mc_samples

        def draw(generator, n_batch):
            return (self._base_draws(generator, n_draws),)

        def values(params, adversary, batch, draws, kl_weight):
            rows = batch[0][0]
            X_batch = None if X is None else X[rows]
            y_batch = None if y is None else y[rows]
            scale = n_rows / len(rows)
            return anp.reshape(-self._objective(params[0][0], draws[0][0], X_batch, y_batch,
                                                scale), (1, 1))

        schedule = Schedule(batch_size=batch_size, learning_rate=self.learning_rate,
                            max_epochs=self.max_iter, max_steps=self.max_iter,
                            tol=self._resolved_tol(), n_iter_no_change=self.n_iter_no_change,
                            n_decays=self.n_lr_decays)
        result = train(Objective(draw, stacked_value_and_grad(values)), [flat[None]],
                       [np.arange(n_rows)[None]], [np.random.default_rng(rng.randint(2**31))],
                       schedule, name="AlphaGaussianVB")
        history = -result.history[0][:, 0]
        self.elbo_history_ = history
        self.elbo_ = float(np.mean(history[-max(1, len(history) // 10):]))
        self.n_iter_ = self.n_steps_ = int(result.n_steps[0])
        self.converged_ = bool(result.converged[0])
        warn_if_not_converged(self, "max_iter", self.max_iter, schedule.tol)
        return result.params[0][0]

    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws from the fitted ``q``: ``{"theta": ndarray of shape (n_samples, n_params)}``
        (the same draws as :meth:`sample`)."""
        return {"theta": self.sample(n_samples, random_state)}

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample(self, n_samples=1, random_state=None):
        """Draws ``theta ~ q``: ndarray of shape (n_samples, n_params)."""
        check_is_fitted(self, "flat_")
        rng = check_random_state(random_state)
        components = rng.choice(len(self.weights_), size=n_samples, p=self.weights_)
        draws = np.empty((n_samples, self.mean_.shape[1]))
        for j in range(len(self.weights_)):
            rows = components == j
            draws[rows] = rng.multivariate_normal(self.mean_[j], self.covariance_[j],
                                                  size=int(rows.sum()))
        return draws


def _prior_vector(owner, name, value, n_params, positive):
    """A scalar or length-n_params prior parameter (its values checked by the declared
    constraints) as a vector of shape (n_params,)."""
    vector = np.asarray(value, dtype=float)
    if vector.shape not in ((), (n_params,)):
        requirement = ("a positive float" if positive else "a finite float")
        raise bad_parameter(owner, name, f"{requirement} or an array of shape ({n_params},) "
                             "of them", value)
    return np.broadcast_to(vector, (n_params,)).copy()
