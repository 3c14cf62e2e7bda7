"""What the two spike-and-slab estimators share: the prior on the inclusion indicators, the
average over a grid of prior inclusion probabilities, and the spike-and-slab marginals.

Both models put ``z_j ~ Bernoulli(pi)`` on the inclusion indicators and use the block
family ``q(beta_j, z_j = 1) = phi_j N(mu_j, s2_j)``, ``q(beta_j, z_j = 0) = (1 - phi_j)
delta_0``. ``pi`` is fixed, or has a Beta prior and ``q(pi) = Beta(a, b)``, or runs over a
grid of values (Carbonetto & Stephens 2012, Sec. 2.5; varbvs's ``logodds``); the slab
variance may run over a grid too, paired setting by setting with ``pi`` as varbvs pairs its
``sa`` and ``logodds`` (a product grid is passed expanded, e.g. from ``np.meshgrid``).

Averaging over the grid. For settings ``h = 1..H`` (pairs ``(pi_h, sa_h)``) with prior
weights ``p(h)``, each setting is fitted (setting ``h > 1`` warm-started from the fit of
setting ``h - 1``, in the order given) and the settings are weighted by the approximate
alpha-posterior of ``h``::

    w_h ∝ p(h) exp(F_h),
    F_h = alpha L_alpha(q_h) = alpha E_q[log p(y | theta)] - KL(q_h || p_h),

``F_h`` being the lower bound on ``log ∫ p(y | theta)^alpha p(theta | pi_h) dtheta`` (the
fractional objective of :mod:`alphavb.base`; at ``alpha = 1`` the ELBO that varbvs uses).
The averaged posterior is the mixture ``sum_h w_h q_h``: the PIPs, the means and the
predictions are its weighted averages, the credible intervals its exact quantiles.
"""

import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
from scipy.special import expit, ndtr, ndtri
from scipy.stats import norm
from sklearn.utils.validation import check_is_fitted

from .._approximation import CHECK_LEVEL, ApproximationCheck, publish_check
from .._parallel import one_blas_thread
from .._special import beta_expectations, bisect_quantile, kl_beta, log_sum_exp
from .._validation import (
    Boolean,
    FiniteArray,
    PositivePair,
    ProbabilityGrid,
    Real,
    bad_parameter,
    validate_params,
)
from ..base import feature_labels


@dataclass(frozen=True)
class InclusionFactor:
    """``q(pi)`` (or the fixed ``pi``): ``E log pi``, ``E log(1 - pi)``, its KL to the prior
    and ``q(pi) = Beta(*posterior)`` when ``pi`` is learned."""

    elog: float
    elog1m: float
    kl: float = 0.0
    posterior: tuple | None = None


def inclusion_factor(fixed_pi, pi_prior, phi_sum, n_features):
    """``q(pi) = Beta(a0 + sum phi, b0 + d - sum phi)``, or the fixed ``pi``.

    ``phi_sum=None`` gives the expectations under the prior (used by the first sweep).
    """
    if pi_prior is None:
        return InclusionFactor(np.log(fixed_pi), np.log1p(-fixed_pi))
    prior_a, prior_b = pi_prior
    if phi_sum is None:
        return InclusionFactor(*beta_expectations(prior_a, prior_b))
    a, b = prior_a + phi_sum, prior_b + n_features - phi_sum
    elog, elog1m = beta_expectations(a, b)
    return InclusionFactor(elog, elog1m, kl_beta(a, b, prior_a, prior_b), (float(a), float(b)))


def inclusion_kl(neg_entropy_z, phi_sum, n_features, pi):
    """``sum_j KL(q(z_j) || p(z_j | pi))`` under ``q(pi)`` plus ``KL(q(pi) || p(pi))``."""
    return neg_entropy_z - phi_sum * pi.elog - (n_features - phi_sum) * pi.elog1m + pi.kl


def coef_variance(phi, mu, s2):
    """``Var_q(beta_j) = phi (s2 + (1 - phi) mu^2)`` (``phi (mu^2 + s2) - (phi mu)^2`` written
    without cancellation), elementwise."""
    return phi * (s2 + (1.0 - phi) * mu * mu)


def slab_kl(phi, mu, s2, slab_variance):
    """``sum_j phi_j KL(N(mu_j, s2_j) || N(0, sa))``, the slab part of ``KL(q(beta, z) ||
    p(beta | z))`` (its spike part is 0)."""
    return 0.5 * float(np.sum(phi * (np.log(slab_variance / s2) - 1.0
                                     + (mu * mu + s2) / slab_variance)))


class InclusionSummaryMixin:
    """The summary columns of a model with inclusion probabilities: ``coef``, ``sd``,
    ``PIP``, ``lfsr`` and the credible interval (the model's ``credible_intervals``)."""

    def _summary_columns(self, level):
        interval = self.credible_intervals(level)
        return {"coef": self.coef_, "sd": np.sqrt(self._coef_variances()),
                "PIP": self.inclusion_probabilities_, "lfsr": self.lfsr_,
                "lower": interval[:, 0], "upper": interval[:, 1]}


def mixture_intervals(weights, means, sds, level):
    """Equal-tailed ``level`` intervals of, per row, the mixture ``sum_m weights N(means,
    sds^2)`` (arrays of shape (n_features, M); a component of sd 0 is an atom at its mean):
    bisection of the mixture's distribution function to 1e-12 of its largest sd, a bound
    within that of 0 set to 0 (the atom of a spike-and-slab marginal)."""
    slab = sds > 0

    def cdf(x):  # P(beta_j <= x), feature by feature (ndtr: norm.cdf without its checks)
        column = x[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            below = ndtr((column - means) / np.where(slab, sds, 1.0))
        return np.sum(weights * np.where(slab, below, column >= means), axis=1)

    tails = (0.5 - 0.5 * level, 0.5 + 0.5 * level)
    # a row whose mass below 0 is under the lower tail while its mass up to 0 reaches the
    # upper one has both bounds at 0 (most variables of a sparse fit): no bisection
    with np.errstate(divide="ignore", invalid="ignore"):
        below = np.sum(weights * np.where(slab, ndtr(-means / np.where(slab, sds, 1.0)),
                                          means < 0.0), axis=1)
    up_to_zero = below + np.sum(weights * (~slab & (means == 0.0)), axis=1)
    searched = ~((below < tails[0]) & (up_to_zero >= tails[1]))
    # cdf above reads these names: from here on, the searched rows only
    weights, means, sds, slab = (weights[searched], means[searched], sds[searched],
                                 slab[searched])
    low = np.min(np.where(slab, means - 40.0 * sds, 0.0), axis=1).clip(max=0.0)
    high = np.max(np.where(slab, means + 40.0 * sds, 0.0), axis=1).clip(min=0.0)
    tolerance = 1e-12 * np.max(sds, axis=1, initial=0.0)
    bounds = np.zeros((len(searched), 2))
    for column, p in enumerate(tails):
        _, upper = bisect_quantile(cdf, p, low, high, tolerance)
        bounds[searched, column] = np.where(np.abs(upper) <= tolerance, 0.0, upper)
    return bounds


def grid_arrays(settings, pi_prior):
    """The exact posterior's view of the prior grid (the collapsed sampler's and the fit's
    check, :mod:`~alphavb.linear_model._neighbourhood`): each setting's ``pi`` (NaN where
    ``pi`` has a Beta prior, integrated out), each setting's slab variance, and the Beta
    prior ``(a, b)`` (``(1, 1)``, unused, without one)."""
    prior_pi = np.array([np.nan if pi is None else pi for pi, _ in settings])
    slabs = np.array([sa for _, sa in settings])
    beta_a, beta_b = pi_prior if pi_prior is not None else (1.0, 1.0)
    return prior_pi, slabs, float(beta_a), float(beta_b)


class SpikeSlabMixin(InclusionSummaryMixin):
    """The inclusion prior, the grid average and the spike-and-slab marginals.

    The estimator provides ``_state_attributes(state)`` (the fitted attributes of one
    setting's state, a dict); its ``fit`` calls the base's ``_fit_cavi(data)``, which runs the
    CAVI loop once per setting of ``_setting_data(data)`` (each a
    :class:`~alphavb.base.CAVIResult`) and publishes once (``_publish_results``):
    ``setting_<name>`` holds every setting's value of each attribute (one row per setting,
    for a single setting too), and ``<name>`` keeps the meaning it has for one setting: the
    weighted average over the grid for those in ``_averaged_attributes``, the moments of the
    averaged posterior for ``slab_means_`` and ``slab_variances_``, otherwise the value of
    the selected setting (the largest weight).
    """

    _inclusion_constraints: ClassVar[dict] = {
        "slab_variance": [Real(0, None, closed="neither"), FiniteArray(positive=True)],
        "prior_inclusion": [None, Real(0, 1, closed="neither"), ProbabilityGrid()],
        "prior_log_odds": [None, FiniteArray()],
        "inclusion_prior": [None, PositivePair()],
        "hyper_prior": [None, FiniteArray(positive=True)],
        "standardize": [Boolean()],
    }
    # a fit on other column scales continues from a state in other units: start cold
    _state_parameters: ClassVar[tuple] = ("standardize",)
    _inclusion_hints: ClassVar[dict] = {
        "inclusion_prior": "It is the (a, b) of a Beta prior on pi.",
        "prior_log_odds": "It is log10(pi / (1 - pi)), one value or a grid, as varbvs's "
                          "logodds.",
    }
    # attributes that are the mixture's weighted average over a grid (others are stacked)
    _averaged_attributes = ("inclusion_probabilities_", "coef_", "intercept_",
                            "covariate_coef_")

    def _inclusion_parameters(self, n_features):
        """The settings ``(pi, sa)`` to fit (``pi = None`` when it is learned), the Beta
        prior of a learned ``pi`` (or None) and the normalised log prior weights of the
        settings: resolved once per fit, when it is prepared (the data's ``grid``); one
        setting is a grid of one."""
        owner = type(self).__name__
        given = [name for name in ("inclusion_prior", "prior_inclusion", "prior_log_odds")
                 if getattr(self, name) is not None]
        if len(given) > 1:
            raise bad_parameter(
                owner, given[1], f"None when {given[0]} is given", getattr(self, given[1]),
                fix="Give either a fixed prior_inclusion (pi; a grid allowed), prior_log_odds "
                    "(log10 odds; a grid allowed) or a Beta inclusion_prior.")
        if self.inclusion_prior is not None:
            a, b = np.asarray(self.inclusion_prior, dtype=float)
            grid, pi_prior = [None], (float(a), float(b))
        elif self.prior_log_odds is not None:
            log_odds = np.asarray(self.prior_log_odds, dtype=float)
            if log_odds.ndim > 1:
                raise bad_parameter(owner, "prior_log_odds", "a float or a 1-D grid",
                                    self.prior_log_odds)
            grid, pi_prior = list(expit(np.log(10.0) * np.atleast_1d(log_odds))), None
            if not all(0.0 < pi < 1.0 for pi in grid):
                raise bad_parameter(owner, "prior_log_odds", "log10 odds whose pi is inside "
                                    "(0, 1) in float64 (|value| < 15)", self.prior_log_odds)
        elif self.prior_inclusion is None:
            # the paper's 1/d, kept inside (0, 1) when there is a single feature
            grid, pi_prior = [min(1.0 / n_features, 0.5)], None
        else:
            grid, pi_prior = list(np.atleast_1d(np.asarray(self.prior_inclusion, float))), None
        slab = np.atleast_1d(np.asarray(self.slab_variance, dtype=float))
        if slab.ndim > 1 or (len(slab) > 1 and len(grid) > 1 and len(slab) != len(grid)):
            raise bad_parameter(
                owner, "slab_variance", f"a float or a 1-D array paired with the {len(grid)} "
                "prior inclusion setting(s) (the same length)", self.slab_variance,
                fix="For every combination pass the product grid, e.g. from np.meshgrid "
                    "(as varbvs pairs its sa and logodds).")
        n_settings = max(len(grid), len(slab))
        settings = [(None if pi is None else float(pi), float(sa)) for pi, sa in
                    zip(np.broadcast_to(np.array(grid, dtype=object), n_settings),
                        np.broadcast_to(slab, n_settings), strict=True)]
        if self.hyper_prior is None:
            log_prior = np.zeros(n_settings)
        else:
            prior = np.atleast_1d(np.asarray(self.hyper_prior, dtype=float))
            if prior.shape != (n_settings,):
                raise bad_parameter(
                    owner, "hyper_prior", f"an array of {n_settings} positive weights, one "
                    "per prior setting", self.hyper_prior)
            log_prior = np.log(prior)
        return settings, pi_prior, log_prior - log_sum_exp(log_prior)

    def _block_attributes(self, state):
        """The attributes of ``q(beta_j, z_j)`` and ``q(pi)`` from a state with ``phi``,
        ``mu``, ``s2`` and ``pi``, on the original scale of ``X`` (``beta_j`` of a column
        divided by ``column_scale_[j]`` is ``column_scale_[j] beta_j``)."""
        scale = self.column_scale_
        return {"inclusion_probabilities_": state.phi, "slab_means_": state.mu / scale,
                "slab_variances_": state.s2 / (scale * scale),
                "coef_": state.phi * state.mu / scale,
                "inclusion_posterior_": state.pi.posterior}

    def _set_parameters(self, state):
        self.__dict__.update(self._state_attributes(state))

    def _state_fits(self, data):
        """A warm start on other features starts cold (the fitted q has one block each)."""
        return self._state.phi.shape == (data.X.shape[1],)

    def _scalar_slab_variance(self):
        """``slab_variance`` as a float, or None for a grid (each setting sets its own)."""
        slab = np.asarray(self.slab_variance, dtype=float)
        return float(slab) if slab.ndim == 0 else None

    def _setting_data(self, data):
        """One data object per setting of the inclusion grid, in the order given: the base
        loop fits setting ``h > 0`` from the result of setting ``h - 1`` (as a warm start
        does, so fitting the settings one by one with ``warm_start=True`` gives the same
        numbers); the first follows ``warm_start``."""
        settings, pi_prior, _ = data.grid
        return [replace(data, fixed_pi=pi, pi_prior=pi_prior, slab_variance=slab_variance)
                for pi, slab_variance in settings]

    def _publish_results(self, data, results):
        """Publish the settings' fits once: one setting as it is, a grid as the average of
        ``sum_h w_h q_h`` (module docstring); ``setting_*``, ``hyper_weights_`` and
        ``lfsr_`` in both."""
        settings, _, log_prior = data.grid
        records = [self._state_attributes(result.state) for result in results]
        self._publish_settings(settings, log_prior, results, records)
        self.lfsr_ = self._local_false_sign_rates()
        publish_check(self, lambda: self._approximation_check(data, results))

    def _approximation_check(self, data, results):
        """The exact alpha-posterior near the fit beside ``q`` (:mod:`alphavb._approximation`):
        the best-first search of :mod:`~alphavb.linear_model._neighbourhood` from the median
        model, on the estimator's collapsed model (``_collapsed_model(data, results)``);
        None where that has no exact posterior."""
        from ._neighbourhood import neighbourhood_posterior

        started = time.perf_counter()
        pips = np.array(self.inclusion_probabilities_, dtype=float)
        collapsed = self._collapsed_model(data, results)
        if collapsed is None:
            return None
        intervals = self.credible_intervals(CHECK_LEVEL) * self.column_scale_[:, None]
        with one_blas_thread():  # the search's products are k x k
            posterior = neighbourhood_posterior(collapsed, np.flatnonzero(pips > 0.5))
            mass = posterior.interval_mass(intervals[:, 0], intervals[:, 1])
        return ApproximationCheck(
            method=f"{self._collapsed_description} near the fit, {posterior.n_models} models",
            feature_names=tuple(str(name) for name in feature_labels(self)),
            variational_pips=pips, exact_pips=posterior.inclusion_probabilities,
            interval_mass=mass, level=CHECK_LEVEL, n_models=posterior.n_models,
            seconds=time.perf_counter() - started)

    @staticmethod
    def _collapsed_prior(grid):
        """The prior ``grid`` (``data.grid``: :meth:`_inclusion_parameters`, resolved once
        when the fit is prepared) as :class:`~alphavb.linear_model._neighbourhood.
        CollapsedModel` takes it: ``(slab variances, pi per setting, log prior weights, Beta
        prior)``."""
        settings, pi_prior, log_prior = grid
        prior_pi, slabs, beta_a, beta_b = grid_arrays(settings, pi_prior)
        return slabs, prior_pi, np.asarray(log_prior, dtype=float), (beta_a, beta_b)

    def _publish_settings(self, settings, log_prior, results, records):
        """Publish the settings' results as the average of ``sum_h w_h q_h`` (module
        docstring; one setting has the weight 1); ``setting_*`` and ``hyper_weights_``."""
        elbos = np.array([result.objective for result in results])
        log_weights = log_prior + elbos * (self.alpha if self.objective == "alpha-vb" else 1.0)
        weights = np.exp(log_weights - log_sum_exp(log_weights))
        selected = int(np.argmax(weights))
        pis = np.array([np.nan if pi is None else pi for pi, _ in settings])
        slabs = np.array([sa for _, sa in settings])
        stacked = {name: np.stack([record[name] for record in records]) for name in records[0]}
        # a warm start continues from the last setting, as the grid ran
        self._keep_state(results[-1].state)
        self._last_checked = results[-1].checked
        self._settings = stacked
        for name, values in stacked.items():
            if not name.startswith("_"):
                setattr(self, "setting_" + name, None if values.dtype == object else values)
        self.setting_elbo_ = elbos
        self.setting_elbo_history_ = [result.history for result in results]
        self.setting_n_iter_ = np.array([result.n_iter for result in results])
        self.setting_converged_ = np.array([result.converged for result in results])
        self.setting_prior_inclusion_, self.setting_slab_variance_ = pis, slabs
        self.hyper_weights_ = weights
        chosen = results[selected]
        self.__dict__.update(records[selected])  # one setting: its fit as it is
        self.elbo_, self.elbo_history_ = chosen.objective, chosen.history
        self.n_iter_ = chosen.n_iter
        self.converged_ = bool(all(result.converged for result in results))
        for name in self._averaged_attributes:  # the averages over the grid (H = 1: weight 1)
            if stacked[name].dtype != object:
                average = np.tensordot(weights, stacked[name], axes=1)
                setattr(self, name, float(average) if average.ndim == 0 else average)
        self.slab_means_, self.slab_variances_ = _included_moments(
            weights, stacked["inclusion_probabilities_"], stacked["slab_means_"],
            stacked["slab_variances_"])
        self.prior_inclusion_ = float(weights @ pis)  # nan when pi is learned
        self.slab_variance_ = float(weights @ slabs)

    def _setting_arrays(self, *names):
        """The per-setting values of the named attributes, one row per setting. A single
        setting's row is its published attribute (bitwise the stacked row: weight 1), so that
        draws, intervals and risks read what the user reads and edits, as scikit-learn's
        ``predict`` reads ``coef_``; over a grid the published values are averages, and the
        settings' own fits are read."""
        if len(self.hyper_weights_) == 1:
            return [np.asarray(getattr(self, name))[None] for name in names]
        return [self._settings[name] for name in names]

    def _coef_variances(self):
        """``Var(beta_j)`` under the (mixture) posterior: the weighted within-setting
        variance ``phi (s2 + (1 - phi) mu^2)`` plus the spread of the settings' means."""
        phi, mu, s2 = self._setting_arrays("inclusion_probabilities_", "slab_means_",
                                           "slab_variances_")
        mean = phi * mu
        within = coef_variance(phi, mu, s2) + (mean - self.coef_) ** 2
        return self.hyper_weights_ @ within

    def _coef_moments_along(self, X_centred):
        """Per setting: the mean and variance of ``x' beta`` for each row of ``X_centred``,
        arrays of shape (n_settings, n_samples)."""
        phi, mu, s2 = self._setting_arrays("inclusion_probabilities_", "slab_means_",
                                           "slab_variances_")
        means = (phi * mu) @ X_centred.T
        variances = coef_variance(phi, mu, s2) @ (X_centred * X_centred).T
        return means, variances

    def _draw_coef(self, n_samples, rng):
        """Draws of ``beta``: a setting ``h ~ w`` per draw (grids only), then per feature
        ``z_j ~ Bernoulli(phi_hj)`` and ``beta_j ~ N(mu_hj, s2_hj)`` if ``z_j = 1``, else 0."""
        phi, mu, s2 = self._setting_arrays("inclusion_probabilities_", "slab_means_",
                                           "slab_variances_")
        n_settings, n_features = phi.shape
        setting = (rng.choice(n_settings, size=n_samples, p=self.hyper_weights_)
                   if n_settings > 1 else np.zeros(n_samples, dtype=int))
        included = rng.random_sample((n_samples, n_features)) < phi[setting]
        slab = mu[setting] + np.sqrt(s2[setting]) * rng.standard_normal((n_samples, n_features))
        draws = {"coef": np.where(included, slab, 0.0), "inclusion": included}
        if n_settings > 1:
            draws["setting"] = setting
        return draws

    def _local_false_sign_rates(self):
        """``lfsr_j = min(q(beta_j >= 0), q(beta_j <= 0))`` (Stephens 2017): with the atom at
        0 both include ``1 - phi_j``, so ``lfsr_j = 1 - PIP_j + sum_h w_h phi_hj Phi(-|mu_hj| /
        s_hj)`` for one sign; the smaller of the two signs' values."""
        phi, mu, s2 = self._setting_arrays("inclusion_probabilities_", "slab_means_",
                                           "slab_variances_")
        sd = np.sqrt(s2)
        weights = self.hyper_weights_
        atom = 1.0 - weights @ phi
        below = weights @ (phi * norm.cdf(-mu / sd))     # q(beta_j < 0)
        above = weights @ (phi * norm.sf(-mu / sd))      # q(beta_j > 0)
        return np.minimum(atom + below, atom + above).clip(0.0, 1.0)

    @validate_params({"fdr": [Real(0.0, 1.0, closed="neither")]})
    def select(self, fdr=0.05):
        """The variables selected at Bayesian false discovery rate ``fdr`` (Newton, Noueiry,
        Sarkar & Ahlquist 2004).

        The variables are taken in decreasing order of PIP, and the largest such set whose
        expected false discovery proportion, the mean of ``1 - PIP`` over the set, is at most
        ``fdr`` is selected (the mean grows as variables are added, so this is a threshold
        on the PIP).

        Parameters
        ----------
        fdr : float in (0, 1), default=0.05
            The largest expected proportion of false discoveries among the selected.

        Returns
        -------
        ndarray of bool, shape (n_features,)
            True for a selected variable (as ``get_support()`` of scikit-learn's selectors).
        """
        check_is_fitted(self)
        pip = np.asarray(self.inclusion_probabilities_, dtype=float)
        order = np.argsort(-pip, kind="stable")
        expected_fdp = np.cumsum(1.0 - pip[order]) / np.arange(1, len(pip) + 1)
        n_selected = int(np.sum(expected_fdp <= fdr))  # expected_fdp is non-decreasing
        selected = np.zeros(len(pip), dtype=bool)
        selected[order[:n_selected]] = True
        return selected

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each ``beta_j`` under ``q``.

        The marginal ``q(beta_j) = (1 - phi_j) delta_0 + phi_j N(mu_j, s2_j)`` has an atom at 0,
        so its quantiles are exact: ``0`` when the tail probability falls inside the atom,
        otherwise a normal quantile of the slab rescaled by ``phi_j``. Over a grid the
        marginal is the mixture ``sum_h w_h q_h(beta_j)`` and its quantiles are found by
        bisection of its distribution function (to 1e-12 of the slab scale).

        Because of the atom, an interval need not contain the posterior mean ``coef_ =
        PIP_j mu_j``, which averages the atom and the slab: a variable with PIP below
        ``(1 - level) / 2`` has the interval ``[0, 0]`` and a mean that is not 0. Draw them
        with :func:`alphavb.plotting.plot_forest`, not as error bars around the mean.

        Parameters
        ----------
        level : float in (0, 1), default=0.95
            Probability mass of each interval (0.95: from the 2.5% to the 97.5% quantile).

        Returns
        -------
        ndarray of shape (n_features, 2)
        """
        check_is_fitted(self)
        phi, mu, s2 = self._setting_arrays("inclusion_probabilities_", "slab_means_",
                                           "slab_variances_")
        sd = np.sqrt(s2)
        tails = (0.5 - 0.5 * level, 0.5 + 0.5 * level)
        if phi.shape[0] == 1:
            return np.column_stack([_single_quantile(p, phi[0], mu[0], sd[0]) for p in tails])
        # over a grid: per feature the mixture of each setting's atom and slab
        weights = self.hyper_weights_[:, None]
        return mixture_intervals(
            np.concatenate([(weights * (1.0 - phi)).T, (weights * phi).T], axis=1),
            np.concatenate([np.zeros_like(mu).T, mu.T], axis=1),
            np.concatenate([np.zeros_like(sd).T, sd.T], axis=1), level)



def _included_moments(weights, phi, mu, s2):
    """The mean and variance of ``beta_j`` given ``z_j = 1`` under ``sum_h w_h q_h``:
    ``m_j = sum_h w_h phi_hj mu_hj / PIP_j`` and ``sum_h w_h phi_hj (s2_hj + mu_hj^2) / PIP_j -
    m_j^2`` with ``PIP_j = sum_h w_h phi_hj`` (so that ``coef_ = PIP x slab_means_`` as for
    one setting); where every ``phi_hj`` is 0 the ``w``-average of the slabs."""
    included = weights[:, None] * phi
    pip = included.sum(axis=0)
    share = np.where(pip > 0, included / np.where(pip > 0, pip, 1.0), weights[:, None])
    mean = np.sum(share * mu, axis=0)
    variance = np.sum(share * (s2 + (mu - mean) ** 2), axis=0)
    return mean, variance


def _single_quantile(p, phi, mu, sd):
    """The ``p``-quantile of ``(1 - phi) delta_0 + phi N(mu, sd^2)``, feature by feature."""
    below_atom = phi * ndtr(-mu / sd)            # q(beta_j < 0)
    above_atom = below_atom + (1.0 - phi)        # q(beta_j <= 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # ndtri: scipy's norm.ppf, faster
        low_branch = mu + sd * ndtri(np.clip(p / phi, 0.0, 1.0))
        high_branch = mu + sd * ndtri(np.clip((p - (1.0 - phi)) / phi, 0.0, 1.0))
    return np.where(p < below_atom, low_branch, np.where(p > above_atom, high_branch, 0.0))
