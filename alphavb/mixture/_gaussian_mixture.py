"""alpha-VB Gaussian mixture (Yang, Pati & Bhattacharya 2020, Cor. 4.4 and
supplement Algorithm 2).

Model
-----
``S_i ~ Categorical(pi)``, ``x_i | S_i = k ~ N(mu_k, Lambda_k^{-1})``, with ``pi`` known
(``fixed_weights``), ``pi ~ Dirichlet(w0 1_K)`` (``"dirichlet_distribution"``) or the
Dirichlet process's stick-breaking weights ``pi_k = v_k prod_{j<k} (1 - v_j)``,
``v_k ~ Beta(1, w0)`` (``"dirichlet_process"``, scikit-learn's default; ``q(S)`` is truncated
to the first ``K`` components, as in Blei & Jordan 2006 and scikit-learn), and the component
prior

* ``"full"``: Normal-Wishart, ``Lambda_k ~ W(Psi0^{-1}, nu0)``,
  ``mu_k | Lambda_k ~ N(m0, (b0 Lambda_k)^{-1})`` (Bishop, PRML §10.2);
* ``"diag"``: for each feature ``j`` independently the Normal-Gamma
  ``lambda_kj ~ Gamma(nu0/2, rate=psi0_j/2)``, ``mu_kj | lambda_kj ~ N(m0_j, 1/(b0 lambda_kj))``
  (the one-dimensional Wishart of the same parameters);
* ``"spherical"``: ``Lambda_k = lambda_k I`` with ``lambda_k ~ Gamma(p nu0/2, rate=p psi0/2)``
  and ``mu_k | lambda_k ~ N(m0, (b0 lambda_k)^{-1} I)``;
* ``"fixed"``: ``Lambda_k = Sigma^{-1}`` known (the paper: ``Sigma = I``) and
  ``mu_k ~ N(m0, I / b0)`` (the paper: ``1 / b0 = 50``);
* ``"tied"``: the ``"full"`` prior, with the variational family restricted to one factor
  ``q(Lambda_k) = W(nu, Psi)`` shared by every component. The optimal shared factor has the
  average of the components' natural parameters, ``nu = nu0 + alpha N / K`` and
  ``Psi = (1/K) sum_k Psi_k`` (the ``Psi_k`` of ``"full"`` below): exactly scikit-learn's
  tied update, and its objective counts the Wishart KL ``K`` times, as scikit-learn's
  bound does. (A model with one precision matrix drawn once would instead give
  ``nu0 + alpha N`` and ``Psi0 + sum_k (Psi_k - Psi0)``; it is not what scikit-learn fits.)

``Psi0`` is scikit-learn's ``covariance_prior``, ``nu0`` its ``degrees_of_freedom_prior``,
``b0`` its ``mean_precision_prior``, ``w0`` its ``weight_concentration_prior``; in every
case ``E[Lambda_k] = nu_k Psi_k^{-1}``, so ``covariances_ = Psi_k / nu_k`` as in scikit-learn.

Updates
-----------------
With weighted statistics ``N_k = sum_i w_i r_ik``, ``ybar_k``, and the centred scatter
``C_k = sum_i w_i r_ik (x_i - ybar_k)(x_i - ybar_k)'``, every conjugate block adds
``alpha`` times the data's statistics to the prior's:

    q(pi) = Dirichlet(w0 + alpha N_k)   or   q(v_k) = Beta(1 + alpha N_k, w0 + alpha sum_{j>k} N_j)
    b_k = b0 + alpha N_k,   m_k = (b0 m0 + alpha N_k ybar_k) / b_k,   nu_k = nu0 + alpha N_k
    Psi_k = Psi0 + alpha C_k + (b0 alpha N_k / b_k)(ybar_k - m0)(ybar_k - m0)'

(``"diag"`` keeps the diagonal; ``"spherical"`` the trace over ``p``; ``"tied"`` averages
``nu_k`` and ``Psi_k`` over ``k``), and for ``"fixed"``
``V_k = (b0 I + alpha N_k Sigma^{-1})^{-1}``, ``m_k = V_k (b0 m0 + alpha N_k Sigma^{-1} ybar_k)``.
The local step is ``r_ik = softmax_k(s * log rho_ik)`` with ``s = 1`` (``"alpha-vb"``) or
``s = alpha`` (``"fractional"``) and

    log rho_ik = E[log pi_k] + 0.5 E[log|Lambda_k|] - (p/2) log 2 pi
                 - 0.5 [p / b_k + (x_i - m_k)' E[Lambda_k] (x_i - m_k)]

(for ``"fixed"``: ``-0.5 log|Sigma| - 0.5 [(x_i - m_k)' Sigma^{-1} (x_i - m_k)
+ tr(Sigma^{-1} V_k)]``).
``E[log pi_k]`` is ``psi(a_k) - psi(sum a)`` for the Dirichlet and
``E[log v_k] + sum_{j<k} E[log(1 - v_j)]`` for the sticks.

``reg_covar = r > 0`` (scikit-learn adds ``r I`` to each component's covariance estimate)
is an exact penalty here: every row's likelihood under component ``k`` carries the factor
``exp(-r tr(Lambda_k) / 2)``, so the scatter gains ``r N_k I`` and ``log rho_ik`` the term
``-r tr(E[Lambda_k]) / 2``, and CAVI still never lowers the objective. (scikit-learn's E-step
leaves that term out, so with ``r > 0`` the two fixed points differ at order ``r``; the
default ``0`` is the unpenalised model.)

Objective
---------
``sum_ik w_i r_ik log rho_ik`` is linear in the statistics, so after the global step the
expected log-likelihood is evaluated exactly from ``(N_k, ybar_k, C_k)``:
``sum_k N_k c_k - 0.5 [tr(E[Lambda_k] C_k) + N_k (ybar_k - m_k)' E[Lambda_k] (ybar_k - m_k)]``
with ``c_k`` the constant part of ``log rho_ik``. The alpha-ELBO (the paper's eq. 2.6) is that
plus ``H(q_S) = -sum_i w_i sum_k r_ik log r_ik`` minus ``(1/alpha)`` times the KL of every
global block to its prior (``KL(Beta(a_k, b_k) || Beta(1, w0))`` per stick); ``"fractional"``
(eq. 2) puts ``alpha`` on the expected
log-likelihood instead.

Sample weights multiply each row's contribution to every sum above (a row of weight 2 is
two copies of the row). ``partial_fit`` runs stochastic VI (Hoffman et al. 2013): the
statistics of a mini-batch, scaled to ``total_samples``, are blended into the running
statistics with weight ``(learning_offset + t)^(-learning_decay)``; since every natural
parameter is affine in ``(N_k, N_k ybar_k, C_k + N_k ybar_k ybar_k')``, blending those is
the natural-gradient step.
"""

from typing import ClassVar

import numpy as np
from scipy.special import logsumexp
from sklearn.base import DensityMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._approximation import publish_check
from .._parallel import thread_count
from .._validation import FiniteArray, Integer, Options, Real, validate_params
from ..base import CAVIEstimator, ExactSampler, StochasticStepsMixin
from ._blocks import lazy_over_row_blocks
from ._check import check_cost_share, has_check, mixture_check
from ._families import FAMILIES, family_class
from ._preparation import (
    initial_responsibilities,
    resolved_data_priors,
    resolved_parameters,
    validated_rows,
)
from ._state import ComponentPriors, MixturePosterior, MixtureState
from ._weights import WEIGHT_PRIORS, weight_prior

COVARIANCE_TYPES = tuple(FAMILIES)
WEIGHT_PRIOR_TYPES = tuple(WEIGHT_PRIORS)
INIT_PARAMS = ("kmeans", "k-means++", "random", "random_from_data")


class AlphaGaussianMixture(StochasticStepsMixin, DensityMixin, CAVIEstimator):
    """Gaussian mixture fitted by alpha-VB (coordinate ascent on the alpha-ELBO).

    Mean-field ``q(pi) q(mu, Lambda) q(S)`` for the mixture of Yang, Pati & Bhattacharya
    (2020, Cor. 4.4, supplement Algorithm 2): the likelihood is raised to the power
    ``alpha``, so every data statistic in the conjugate updates is multiplied by ``alpha``
    (the paper's eq. 2.6; module docstring). ``alpha = 1`` is scikit-learn's
    ``BayesianGaussianMixture`` (same parameters and defaults, the same fixed point for
    "full" and "tied" with either weight prior; for "diag" and "spherical" scikit-learn's
    E-step uses a Wishart's ``E[log|Lambda|]``, which differs from its own Gamma factors, so
    there the fixed points differ slightly and ours is the exact one), extended with sample
    weights, stochastic VI (``partial_fit``) and the paper's known-covariance,
    known-weights model. scikit-learn's own tests of ``BayesianGaussianMixture`` pass on it
    (``tests/test_sklearn_suites.py``).

    Parameters
    ----------
    n_components : int, default=1
        Number of mixture components ``K``.
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        ``"alpha-vb"`` maximises the alpha-ELBO (the paper's eq. 2.6);
        ``"fractional"`` minimises KL to the joint fractional posterior (:mod:`alphavb.base`), whose
        local step is ``softmax(alpha log rho)``.
    covariance_type : {"full", "tied", "diag", "spherical", "fixed"}, default="full"
        ``"tied"``: one Wishart factor shared by every component (module docstring);
        ``"fixed"``: every component has the known covariance ``fixed_covariance``.
    fixed_covariance : array-like of shape (n_features, n_features), default=None
        The known covariance of ``"fixed"``; ``None`` is the identity (the paper).
    fixed_weights : array-like of shape (n_components,), default=None
        Known mixing weights (positive, summing to 1); ``None`` learns them under the prior
        ``weight_concentration_prior_type``.
    weight_concentration_prior_type : {"dirichlet_process", "dirichlet_distribution"}, \
default="dirichlet_process"
        Stick-breaking (Dirichlet process, truncated at ``n_components``: unneeded
        components get weights near 0) or a symmetric Dirichlet. scikit-learn's default.
    weight_concentration_prior : float, default=None
        ``w0``: the Dirichlet parameter, or the concentration of the Dirichlet process
        (``v_k ~ Beta(1, w0)``); ``None`` is ``1 / n_components``.
    mean_precision_prior : float, default=None
        ``b0``. For full/diag/spherical, ``mu_k | Lambda_k ~ N(m0, (b0 Lambda_k)^{-1})``
        (``None``: 1, as scikit-learn). For ``"fixed"``, ``mu_k ~ N(m0, I / b0)``
        (``None``: 1/50, the paper's prior variance 50).
    mean_prior : array-like of shape (n_features,), default=None
        ``m0``; ``None`` is the (weighted) mean of ``X``.
    degrees_of_freedom_prior : float, default=None
        ``nu0``; ``None`` is ``n_features``. Must exceed ``n_features - 1`` for ``"full"``
        and be positive for ``"diag"``/``"spherical"``.
    covariance_prior : float or array-like, default=None
        ``Psi0``: (p, p) for ``"full"``, (p,) for ``"diag"``, a float for ``"spherical"``.
        ``None`` is the (weighted) sample covariance of ``X`` (its diagonal; its mean
        diagonal), as scikit-learn; when that is singular (fewer rows than features, a
        constant or collinear feature), ``1e-6`` times the average variance is added to its
        diagonal.
    reg_covar : float, default=0.0
        Penalty ``exp(-reg_covar tr(Lambda_k) / 2)`` on every row's likelihood: adds
        ``reg_covar`` to the diagonal of each component's covariance estimate, as
        scikit-learn's ``reg_covar`` does (its default is 1e-6), while the objective stays
        exact (module docstring). Not used by ``"fixed"``.
    init_params : {"kmeans", "k-means++", "random", "random_from_data"}, default="kmeans"
        How the first responsibilities are drawn, as in scikit-learn's mixtures but with
        k-means on unit columns (so that the start does not depend on the units). On a dask
        array ``"kmeans"`` and ``"k-means++"`` run on the rows in memory when there are at
        most ``KMEANS_SAMPLE_ROWS`` (100,000), else on a uniform sample of that many rows
        (in the sample's unit columns), every row joining its nearest center block by block;
        ``"random_from_data"`` draws the same rows as in memory; ``"random"`` is refused.
    n_init : int, default=1
        Number of starts; the one with the largest objective is kept.
    max_iter : int, default=100
        Maximum number of sweeps per start.
    tol : float, default=1e-6
        Stop when the objective per row (per unit of ``sample_weight``) changes by at most
        ``tol``, as scikit-learn's mixtures stop (their default is 1e-3). The change does
        not depend on the units of ``X`` (rescaling a feature shifts the objective by a
        constant), where a relative change would.
    random_state : int, RandomState or None, default=None
    warm_start : bool, default=False
        If True, ``fit`` starts from the previous fit's variational parameters (one start),
        and its stopping rule compares with where the previous fit ended.
    verbose : int, default=0
        1 prints each start and how it ended, 2 also every ``verbose_interval`` sweeps the
        time and the change of the objective (scikit-learn's messages).
    verbose_interval : int, default=10
        Sweeps between two progress lines of ``verbose=2``.
    learning_offset, learning_decay : float, default=10.0, 0.7
        ``partial_fit`` step size ``(learning_offset + t)^(-learning_decay)`` at its ``t``-th
        call (``t = 1, 2, ...``); ``learning_decay`` in (0.5, 1] makes the steps satisfy the
        Robbins-Monro conditions.
    total_samples : float, default=None
        Size of the data set ``partial_fit`` draws its mini-batches from; ``None`` is the
        total sample weight seen so far (right for one pass over a stream; set it to the
        data size when making several passes).
    n_jobs : int, default=None
        Threads the local step runs on (chunks of rows): ``None`` is numba's current thread
        count (all cores unless ``numba.set_num_threads`` or ``NUMBA_NUM_THREADS`` lowered
        it), ``-1`` all cores, ``k`` at most ``k``. Results do not depend on it. A dask
        ``X``'s blocks run on the workers' threads instead.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
        ``E_q[pi]`` (or ``fixed_weights``).
    weight_concentration_ : ndarray of shape (n_components,) or tuple of two
        Dirichlet parameters of ``q(pi)``, or for ``"dirichlet_process"`` the pair of arrays
        ``(a, b)`` of the sticks' ``q(v_k) = Beta(a_k, b_k)`` (scikit-learn's format; learned
        weights only).
    means_ : ndarray of shape (n_components, n_features)
        ``E_q[mu_k] = m_k``.
    mean_precision_ : ndarray of shape (n_components,)
        ``b_k`` (not for ``"fixed"``).
    mean_covariances_ : ndarray of shape (n_components, n_features, n_features)
        ``V_k = Cov_q(mu_k)`` (``"fixed"`` only).
    degrees_of_freedom_ : ndarray of shape (n_components,) or float
        ``nu_k`` (not for ``"fixed"``; one float for ``"tied"``).
    covariances_ : ndarray
        ``E_q[Lambda_k]^{-1} = Psi_k / nu_k``: (K, p, p) full, (p, p) tied, (K, p) diag,
        (K,) spherical, (p, p) fixed (the known covariance).
    precisions_, precisions_cholesky_ : ndarray
        ``E_q[Lambda_k]`` and its upper Cholesky factor, shaped like ``covariances_``.
    elbo_, lower_bound_ : float
        Final objective of the best start. Its constants differ from scikit-learn's
        ``lower_bound_`` (which drops terms that do not depend on the fit), so the two
        differ by a constant on the same fit; compare changes, not values.
    elbo_history_, lower_bounds_ : ndarray
        Objective after each sweep of the best start (``lower_bounds_``: scikit-learn's
        name).
    n_iter_ : int
    converged_ : bool
    n_batch_iter_ : int
        Number of ``partial_fit`` steps taken.
    approximation_check_ : ApproximationCheck or None
        ``q`` against the exact alpha-posterior (allocations summed out) by Pareto-smoothed
        importance sampling (:mod:`~alphavb.mixture._check`): the PSIS k-hat and the exact
        mass of each weight's, mean's and variance's 95% interval of ``q``, with a
        ``PosteriorApproximationWarning`` when one holds less than 0.82. A thousand
        likelihood passes: run inside ``alphavb.approximation_checks("always")`` (None
        otherwise, for the tied family, for dask arrays, which it would read a thousand
        times, and after ``partial_fit``).

    Notes
    -----
    ``score_samples`` is the log posterior-predictive density: a mixture of
    Student-t densities (Bishop eq. 10.81, with the alpha-posterior's parameters) weighted by
    ``E[pi_k]``; ``N(m_k, Sigma + V_k)`` components for ``"fixed"``. ``sample`` draws from the
    plug-in mixture (``weights_``, ``means_``, ``covariances_``), as scikit-learn does.

    Choosing alpha: the data count as ``alpha * n`` observations; see "Choosing alpha" in
    :mod:`alphavb.base` (and the README) before tuning it, and compare held-out scores,
    not ``elbo_``, across values.

    Examples
    --------
    >>> from alphavb import AlphaGaussianMixture
    >>> from alphavb.datasets import make_gmm
    >>> X, labels, true_means = make_gmm(random_state=0)
    >>> model = AlphaGaussianMixture(n_components=3, alpha=0.5, covariance_type="fixed",
    ...                              fixed_weights=[1/3, 1/3, 1/3], random_state=0).fit(X)
    >>> model.converged_
    True
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_mixture", "sample_mixture", ("sample_weight",), rows="mixture_rows")
    _model_kind: ClassVar[str] = "gaussian_mixture"

    # a warm start after one of these changed starts cold (CAVIEstimator._continues)
    _state_parameters: ClassVar[tuple] = ("n_components", "covariance_type",
                                          "weight_concentration_prior_type")
    _parameter_constraints: ClassVar[dict] = {
        **CAVIEstimator._parameter_constraints,
        "n_components": [Integer(1, None)],
        "covariance_type": [Options(*COVARIANCE_TYPES)],
        "weight_concentration_prior_type": [Options(*WEIGHT_PRIOR_TYPES)],
        "reg_covar": [Real(0, None)],
        "verbose_interval": [Integer(1, None)],
        "fixed_covariance": [None, FiniteArray()],
        "fixed_weights": [None, FiniteArray(positive=True)],
        "weight_concentration_prior": [None, Real(0, None, closed="neither")],
        "mean_precision_prior": [None, Real(0, None, closed="neither")],
        "mean_prior": [None, FiniteArray()],
        "degrees_of_freedom_prior": [None, Real(0, None, closed="neither")],
        "covariance_prior": [None, FiniteArray()],
        "init_params": [Options(*INIT_PARAMS)],
        "learning_offset": [Real(0, None)],
        "learning_decay": [Real(0.5, 1, closed="right")],
        "total_samples": [None, Real(0, None, closed="neither")],
        "n_jobs": [None, Integer(None, None)],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        "learning_decay": "Steps must satisfy Robbins-Monro.",
    }

    def __init__(self, n_components=1, *, alpha=1.0, objective="alpha-vb",
                 covariance_type="full", fixed_covariance=None, fixed_weights=None,
                 weight_concentration_prior_type="dirichlet_process",
                 weight_concentration_prior=None, mean_precision_prior=None, mean_prior=None,
                 degrees_of_freedom_prior=None, covariance_prior=None, reg_covar=0.0,
                 init_params="kmeans", n_init=1, max_iter=100, tol=1e-6, random_state=None,
                 warm_start=False, verbose=0, verbose_interval=10, learning_offset=10.0,
                 learning_decay=0.7, total_samples=None, n_jobs=None):
        self.n_components = n_components
        self.alpha = alpha
        self.objective = objective
        self.covariance_type = covariance_type
        self.weight_concentration_prior_type = weight_concentration_prior_type
        self.reg_covar = reg_covar
        self.verbose_interval = verbose_interval
        self.fixed_covariance = fixed_covariance
        self.fixed_weights = fixed_weights
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.init_params = init_params
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.learning_offset = learning_offset
        self.learning_decay = learning_decay
        self.total_samples = total_samples
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ validation

    def _validate_input(self, X, sample_weight, reset):
        return validated_rows(self, X, sample_weight, reset)

    def _resolve_parameters(self, n_features):
        """The parameters whose check or default depends on ``n_features``, resolved into
        ``*_prior_`` and ``fixed_*_`` attributes (the declared constraints are checked)."""
        self._set_attributes(resolved_parameters(self, n_features))

    def _resolve_data_priors(self, X, weight):
        """Priors whose defaults depend on the data (``m0`` and ``Psi0``), then the family and
        the weight prior with every resolved prior."""
        self._set_attributes(resolved_data_priors(self, X, weight))
        self._build_priors()

    def _set_attributes(self, attributes):
        for name, value in attributes.items():
            setattr(self, name, value)

    def _build_priors(self):
        """The covariance family (:mod:`~alphavb.mixture._families`) and the weight prior
        (:mod:`~alphavb.mixture._weights`) with the resolved priors, built once a fit."""
        self._covariance_family = family_class(self.covariance_type)(ComponentPriors(
            mean=self.mean_prior_, mean_precision=self.mean_precision_prior_,
            degrees_of_freedom=getattr(self, "degrees_of_freedom_prior_", None),
            covariance=getattr(self, "covariance_prior_", None), reg_covar=self.reg_covar,
            fixed_covariance=getattr(self, "fixed_covariance_", None)))
        self._weight_prior = weight_prior(self.weight_concentration_prior_type,
                                          getattr(self, "weight_concentration_prior_", None),
                                          self.fixed_weights_)

    # ------------------------------------------------------------------ the two steps

    def _global_step(self, stats):
        """The conjugate updates (module docstring) from the statistics: the new ``q(theta)``."""
        tempered = self.alpha * stats.nk
        post = MixturePosterior()
        post.weight_concentration, post.weights, post.log_weights = self._weight_prior.update(
            tempered)
        post.log_const = self._covariance_family.update(post, stats, tempered, self.alpha,
                                                        post.log_weights)
        return post

    def _kl_global(self, post):
        """Sum of ``KL(q || prior)`` over the global blocks."""
        kl = self._weight_prior.kl(post.weight_concentration)
        for term in self._covariance_family.kl_terms(post):
            kl += term
        return kl

    def _objective(self, post, stats, neg_entropy):
        """The exact objective (module docstring) at ``q(S)`` with these statistics and
        ``q(theta) = post``."""
        expected_loglik = (np.dot(stats.nk, post.log_const)
                           - 0.5 * np.sum(self._covariance_family.expected_quadratics(
                               post, stats)))
        kl = self._kl_global(post)
        if self.objective == "fractional":
            return self.alpha * expected_loglik - neg_entropy - kl
        return expected_loglik - neg_entropy - kl / self.alpha

    def _local_step(self, rows, post, accumulate=True):
        """The local step of the row source ``rows`` (:class:`~alphavb.mixture._estep.MemoryRows`
        or :class:`~alphavb.mixture._blocks.BlockRows`) at ``q(theta) = post``."""
        scale = float(self.alpha) if self.objective == "fractional" else 1.0
        return rows.local_step(post, self._covariance_family.statistics, scale, accumulate,
                               thread_count(self.n_jobs, type(self).__name__))

    # ------------------------------------------------------------------ CAVI driver hooks

    def _initial_responsibilities(self, X, weight, user_weight, random_state):
        """The first responsibilities (``init_params``), as scikit-learn draws them."""
        return initial_responsibilities(self, X, weight, user_weight, random_state)

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:  # warm start: continue from the fitted q(theta)
            return MixtureState(previous.posterior, None, float(data.weight.sum()))
        stats = self._initial_statistics(data, random_state)
        return MixtureState(self._global_step(stats), None, float(data.weight.sum()))

    def _initial_statistics(self, data, random_state):
        """The statistics of the first responsibilities (``init_params``)."""
        return data.initial_statistics(self, self._covariance_family.statistics, random_state)

    def _stopping_value(self, data, state, objective):
        """The objective per row (:meth:`_has_converged` stops on its absolute change)."""
        return objective / state.seen

    def _has_converged(self, current, previous):
        return abs(current - previous) <= self.tol

    def _cavi_step(self, data, state):
        """The local step (responsibilities and their statistics), then the global step."""
        _, stats, neg_entropy = self._local_step(data, state.posterior)
        post = self._global_step(stats)
        return (MixtureState(post, stats, state.seen),
                self._objective(post, stats, neg_entropy))

    def _set_parameters(self, state):
        """Publish ``q(theta)`` as scikit-learn-named attributes."""
        post = state.posterior
        self.weights_ = post.weights.copy()
        if post.weight_concentration is not None:
            self.weight_concentration_ = post.weight_concentration
        self.means_ = post.means
        self._set_attributes(self._covariance_family.fitted_attributes(post))

    # ------------------------------------------------------------------ public API

    def fit(self, X, y=None, sample_weight=None):
        """Fit by coordinate ascent on the objective (``n_init`` starts, best kept).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; an integer weight ``m`` counts the row ``m`` times.

        Returns
        -------
        self
        """
        self._validate_params()
        data = self._validate_input(X, sample_weight, reset=not self._continues())
        self._resolve_parameters(data.X.shape[1])
        if data.X.shape[0] < self.n_components:
            raise ValueError(f"{type(self).__name__}: Expected n_samples >= n_components but "
                             f"got n_components = {self.n_components}, n_samples = "
                             f"{data.X.shape[0]}. Lower n_components or pass more rows.")
        self._resolve_data_priors(data.X, data.weight)
        self._fit_cavi(data)
        self.lower_bound_, self.lower_bounds_ = self.elbo_, self.elbo_history_
        self.n_batch_iter_ = 0
        publish_check(self, lambda: mixture_check(self, data.X, data.weight,
                                                  check_random_state(self.random_state)),
                      cost_share=check_cost_share(self) if has_check(self) else 0.0)
        return self

    def _draws_log_likelihood(self, draws, X):
        """``log p(x_i | theta_s)``, the mixture density of each row of ``X`` at each draw of
        ``q`` (:func:`alphavb.metrics.draws_log_likelihood`), (n_draws, n_rows)."""
        from sklearn.utils.validation import validate_data

        from ._density import draws_log_density

        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.concatenate([  # (chunk, n, K, p) at a time
            draws_log_density(self, X, draws["weights"][s:s + 25, None],
                              draws["means"][s:s + 25, None],
                              draws["precisions"][s:s + 25, None])
            for s in range(0, len(draws["weights"]), 25)])

    def _draw_dimensions(self, draws, features):
        """ArviZ's dimensions of ``sample_posterior``'s draws (:mod:`alphavb.inference_data`):
        per component, then per feature (twice for a matrix)."""
        axes = ["component", "feature", "feature_bis"]
        dims = {name: axes[:values.ndim - 1] for name, values in draws.items()}
        return dims, {"component": np.arange(self.n_components), "feature": features,
                      "feature_bis": features}

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then return the most probable component of each row of ``X``."""
        return self.fit(X, sample_weight=sample_weight).predict(X)

    def partial_fit(self, X, y=None, sample_weight=None):
        """One stochastic-VI step on a mini-batch (Hoffman et al. 2013).

        The batch's statistics are scaled to ``total_samples`` and blended into the running
        statistics with step ``(learning_offset + t)^(-learning_decay)``; ``q(theta)`` is then
        the conjugate update of the blend. The first call on an unfitted estimator draws
        starting responsibilities for the batch with ``init_params``. ``elbo_`` is the
        objective estimated from this batch, scaled to ``total_samples``.

        Returns
        -------
        self
        """
        return self._partial_fit(X, sample_weight=sample_weight)

    def _batch_data(self, X, reset, sample_weight=None):
        data = self._validate_input(X, sample_weight, reset=reset)
        self._resolve_parameters(data.X.shape[1])
        if not reset:  # the priors resolved at the first batch, with these parameters
            self._build_priors()
        return data

    def _first_batch_state(self, data, random_state):
        self._resolve_data_priors(data.X, data.weight)
        if data.X.shape[0] < self.n_components:
            raise ValueError(f"{type(self).__name__}: the first partial_fit batch needs at "
                             f"least n_components={self.n_components} rows.")
        stats = self._initial_statistics(data, random_state).scaled(
            self._data_scale(data.weight, 0.0))
        return MixtureState(self._global_step(stats), stats, 0.0)

    def _stochastic_step(self, data, state, step, random_state):
        """Blend the batch's statistics, scaled to the data size, into the running ones
        (a natural-gradient step, module docstring); ``elbo_`` is the batch's estimate."""
        seen = state.seen + float(data.weight.sum())
        running = state.statistics
        if self.total_samples is None and state.seen > 0:
            # the data set has grown: the running statistics now stand for all rows seen
            running = running.scaled(seen / state.seen)
        scale = self._data_scale(data.weight, seen)
        _, batch_stats, neg_entropy = self._local_step(data, state.posterior)
        batch_stats = batch_stats.scaled(scale)
        running = running.blend(batch_stats, step)
        post = self._global_step(running)
        self.elbo_ = self.lower_bound_ = float(
            self._objective(post, batch_stats, scale * neg_entropy))
        return MixtureState(post, running, seen)

    def _data_scale(self, weight, seen):
        total = seen if self.total_samples is None else float(self.total_samples)
        return max(total, float(weight.sum())) / float(weight.sum())

    @lazy_over_row_blocks(n_columns=lambda model: model.n_components)
    def predict_proba(self, X):
        """Responsibilities ``q(S_i = k)`` of the local step at the fitted ``q(theta)``.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            (a dask array, computed block by block when asked, for a dask ``X``)
        """
        check_is_fitted(self)
        rows = self._validate_input(X, None, reset=False)
        return self._local_step(rows, self._state.posterior, accumulate=False)[0]

    @lazy_over_row_blocks()
    def predict(self, X):
        """Most probable component of each row (argmax of :meth:`predict_proba`)."""
        return np.argmax(self.predict_proba(X), axis=1)

    @lazy_over_row_blocks()
    def score_samples(self, X):
        """Log posterior-predictive density ``log p(x | data)`` of each row.

        ``sum_k E[pi_k] p_k(x)`` with ``p_k`` the predictive of component ``k`` under the
        fitted ``q``: a multivariate Student-t with ``nu_k + 1 - p`` degrees of freedom and
        precision ``(nu_k + 1 - p) b_k / (1 + b_k) Psi_k^{-1}`` (full; Bishop eq. 10.81);
        a product of univariate t's with ``nu_k`` degrees of freedom (diag); a multivariate t
        with ``p nu_k`` degrees of freedom and scale ``(Psi_k / nu_k)(1 + b_k) / b_k I``
        (spherical); ``N(m_k, Sigma + V_k)`` (fixed).

        Returns
        -------
        ndarray of shape (n_samples,)
            (a dask array for a dask ``X``)
        """
        check_is_fitted(self)
        X, _, _ = self._validate_input(X, None, reset=False)
        post = self._state.posterior
        log_density = self._covariance_family.log_predictive(X, post)
        return logsumexp(log_density + np.log(post.weights), axis=1)

    def score(self, X, y=None):
        """Mean log posterior-predictive density of the rows of ``X``."""
        return float(np.mean(self.score_samples(X)))

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the mixture's parameters from the fitted ``q(theta)``.

        * weights ``~ Dirichlet(weight_concentration_)``; for ``"dirichlet_process"`` the
          sticks ``v_k ~ Beta(*weight_concentration_)`` give ``pi_k = v_k prod_{j<k}(1 - v_j)``,
          renormalised over the ``K`` components as ``weights_`` is (the known ``weights_``
          when ``fixed_weights`` is given);
        * ``"full"``: ``Lambda_k ~ Wishart(degrees_of_freedom_k, (covariances_k
          degrees_of_freedom_k)^{-1})``; ``"tied"``: every component's ``Lambda_k`` an
          independent draw of the one fitted Wishart (the factors of the tied family are equal,
          not the precisions, module docstring); ``"diag"``: ``lambda_kj ~ Gamma(nu_k / 2,
          rate=psi_kj / 2)``; ``"spherical"``: ``lambda_k ~ Gamma(p nu_k / 2, rate=p psi_k / 2)``
          (``psi = nu * covariances_``); then ``mu_k | Lambda_k ~ N(means_k, (mean_precision_k
          Lambda_k)^{-1})``;
        * ``"fixed"``: ``mu_k ~ N(means_k, mean_covariances_k)``, the covariance the known one.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        dict of str to ndarray
            ``"weights"`` (n_samples, K), ``"means"`` (n_samples, K, p), ``"precisions"`` and
            ``"covariances"`` (its inverse): (n_samples, K, p, p) for full, tied and fixed,
            (n_samples, K, p) for diag, (n_samples, K) for spherical.
        """
        check_is_fitted(self)
        n = int(n_samples)
        rng = check_random_state(random_state)
        weights = self._weight_prior.draw(getattr(self, "weight_concentration_", None),
                                          self.weights_, n, rng)
        means, precisions, covariances = self._covariance_family.sample_posterior(self, n, rng)
        return {"weights": weights, "means": means, "precisions": precisions,
                "covariances": covariances}

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample(self, n_samples=1):
        """Draw from the plug-in mixture (``weights_``, ``means_``, ``covariances_``).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        labels : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        rng = check_random_state(self.random_state)
        counts = rng.multinomial(n_samples, self.weights_)
        family = self._covariance_family
        draws = [family.draw_rows(self, rng, k, count) for k, count in enumerate(counts)]
        labels = np.repeat(np.arange(self.n_components), counts)
        return np.vstack(draws), labels

