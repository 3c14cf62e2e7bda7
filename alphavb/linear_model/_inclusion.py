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

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import norm
from sklearn.utils.validation import check_is_fitted

from .._special import beta_expectations, bisect_quantile, kl_beta
from .._validation import (
    FiniteArray,
    PositivePair,
    ProbabilityGrid,
    Real,
    bad_parameter,
    validate_params,
)


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


class SpikeSlabMixin:
    """The inclusion prior, the grid average and the spike-and-slab marginals.

    The estimator provides ``_fit_setting(data, continuing)`` (one fit at ``data``'s
    ``fixed_pi`` or learned ``q(pi)`` and ``slab_variance``, through the CAVI loop, publishing
    its attributes) and ``_setting_attributes`` (the attributes one setting publishes; over
    a grid those in ``_averaged_attributes`` become the weighted average, the others are
    stacked, one row per setting); its ``fit`` calls ``_fit_settings(data)``.
    """

    _inclusion_constraints: ClassVar[dict] = {
        "slab_variance": [Real(0, None, closed="neither"), FiniteArray(positive=True)],
        "prior_inclusion": [None, Real(0, 1, closed="neither"), ProbabilityGrid()],
        "prior_log_odds": [None, FiniteArray()],
        "inclusion_prior": [None, PositivePair()],
        "hyper_prior": [None, FiniteArray(positive=True)],
    }
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
        settings."""
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
        return settings, pi_prior, log_prior - logsumexp(log_prior)

    def _publish_blocks(self, state):
        """The attributes of ``q(beta_j, z_j)`` and ``q(pi)`` from a state with ``phi``,
        ``mu``, ``s2`` and ``pi``."""
        self.inclusion_probabilities_ = state.phi
        self.slab_means_ = state.mu
        self.slab_variances_ = state.s2
        self.coef_ = state.phi * state.mu
        self.inclusion_posterior_ = state.pi.posterior

    def _scalar_slab_variance(self):
        """``slab_variance`` as a float, or None for a grid (each setting sets its own)."""
        slab = np.asarray(self.slab_variance, dtype=float)
        return float(slab) if slab.ndim == 0 else None

    def _fit_settings(self, data):
        """Fit every setting of the inclusion grid and publish the (averaged) posterior.

        A single setting publishes its fit unchanged. For a grid, setting ``h > 0`` starts
        from the fit of setting ``h - 1`` (as a warm start does, so fitting the settings one
        by one with ``warm_start=True`` gives the same numbers).
        """
        settings, pi_prior, log_prior = self._inclusion_parameters(data.X.shape[1])
        records, elbos, n_iter, converged, histories = [], [], [], [], []
        for h, (pi, slab_variance) in enumerate(settings):
            setting = replace(data, fixed_pi=pi, pi_prior=pi_prior, slab_variance=slab_variance)
            self._fit_setting(setting, continuing=True if h > 0 else None)
            records.append({name: np.copy(getattr(self, name))
                            for name in self._setting_attributes})
            elbos.append(self.elbo_)
            n_iter.append(self.n_iter_)
            converged.append(self.converged_)
            histories.append(self.elbo_history_)
        pis = np.array([np.nan if pi is None else pi for pi, _ in settings])
        self.prior_inclusion_ = float(pis[0])
        self.slab_variance_ = settings[0][1]
        log_weights = log_prior + np.asarray(elbos) * (
            self.alpha if self.objective == "alpha-vb" else 1.0)
        self.hyper_weights_ = np.exp(log_weights - logsumexp(log_weights))
        self._settings = None
        if len(settings) == 1:
            return
        self._settings = {name: np.stack([r[name] for r in records]) for name in records[0]}
        weights = self.hyper_weights_
        for name, values in self._settings.items():
            if values.dtype == object:  # None in every setting (e.g. a known noise level)
                setattr(self, name, None)
            elif name in self._averaged_attributes:
                average = np.tensordot(weights, values, axes=1)
                setattr(self, name, float(average) if average.ndim == 0 else average)
            else:
                setattr(self, name, values)
        self.setting_inclusion_probabilities_ = self._settings["inclusion_probabilities_"]
        self.prior_inclusion_ = pis
        self.slab_variance_ = np.array([sa for _, sa in settings])
        self.elbo_ = np.asarray(elbos)
        self.n_iter_ = np.asarray(n_iter)
        self.converged_ = bool(all(converged))
        self.elbo_history_ = histories

    def _setting_arrays(self, *names):
        """The per-setting values of the named attributes, one row per setting (a single
        setting gives one row)."""
        if getattr(self, "_settings", None) is None:
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

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each ``beta_j`` under ``q``.

        The marginal ``q(beta_j) = (1 - phi_j) delta_0 + phi_j N(mu_j, s2_j)`` has an atom at 0,
        so its quantiles are exact: ``0`` when the tail probability falls inside the atom,
        otherwise a normal quantile of the slab rescaled by ``phi_j``. Over a grid the
        marginal is the mixture ``sum_h w_h q_h(beta_j)`` and its quantiles are found by
        bisection of its distribution function (to 1e-12 of the slab scale).

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
        weights = self.hyper_weights_[:, None]

        def cdf(x):  # the mixture's P(beta_j <= x), feature by feature
            atom = np.where(x >= 0.0, 1.0 - phi, 0.0)
            return np.sum(weights * (atom + phi * norm.cdf((x - mu) / sd)), axis=0)

        low = np.min(mu - 40.0 * sd, axis=0).clip(max=0.0)
        high = np.max(mu + 40.0 * sd, axis=0).clip(min=0.0)
        tolerance = 1e-12 * np.max(sd, axis=0)
        bounds = []
        for p in tails:
            _, hi = bisect_quantile(cdf, p, low, high, tolerance)
            bounds.append(np.where(np.abs(hi) <= tolerance, 0.0, hi))
        return np.column_stack(bounds)

    def _summary_columns(self, level):
        interval = self.credible_intervals(level)
        return {"coef": self.coef_, "sd": np.sqrt(self._coef_variances()),
                "PIP": self.inclusion_probabilities_, "lower": interval[:, 0],
                "upper": interval[:, 1]}


def _single_quantile(p, phi, mu, sd):
    """The ``p``-quantile of ``(1 - phi) delta_0 + phi N(mu, sd^2)``, feature by feature."""
    below_atom = phi * norm.cdf(-mu / sd)        # q(beta_j < 0)
    above_atom = below_atom + (1.0 - phi)        # q(beta_j <= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        low_branch = mu + sd * norm.ppf(np.clip(p / phi, 0.0, 1.0))
        high_branch = mu + sd * norm.ppf(np.clip((p - (1.0 - phi)) / phi, 0.0, 1.0))
    return np.where(p < below_atom, low_branch, np.where(p > above_atom, high_branch, 0.0))
