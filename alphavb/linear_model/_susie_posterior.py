"""The posterior of a fitted alpha-SuSiE, read off ``q``: the marginals of the
coefficients (a mixture with an atom at 0 per variable), their local false sign rates,
credible intervals and variances, draws, the summary rows and predictions
(:class:`SuSiEPosteriorMixin`)."""

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import Integer, Real, validate_params
from ._inclusion import mixture_intervals

# components of the mixture q(b_j) lighter than this are dropped (their mass is the error);
# beyond MIXTURE_MAX_COMPONENTS per variable the lightest are merged into one normal (many
# diffuse effects: their subsets grow combinatorially)
MIXTURE_WEIGHT_FLOOR = 1e-12
MIXTURE_MAX_COMPONENTS = 256


def _merged_lightest(weights, means, variances):
    """Each row's heaviest ``MIXTURE_MAX_COMPONENTS - 1`` components, and the rest merged
    into one normal of their weight, mean and variance (the mixture's mass and first two
    moments kept)."""
    order = np.argsort(-weights, axis=1, kind="stable")
    weights, means, variances = (np.take_along_axis(array, order, axis=1)
                                 for array in (weights, means, variances))
    head = MIXTURE_MAX_COMPONENTS - 1
    rest_weight = weights[:, head:].sum(axis=1)
    safe = np.where(rest_weight > 0.0, rest_weight, 1.0)
    rest_mean = np.sum(weights[:, head:] * means[:, head:], axis=1) / safe
    rest_variance = np.maximum(np.sum(weights[:, head:] * (variances[:, head:]
                                                           + means[:, head:] ** 2), axis=1)
                               / safe - rest_mean**2, 0.0)
    return (np.column_stack([weights[:, :head], rest_weight]),
            np.column_stack([means[:, :head], rest_mean]),
            np.column_stack([variances[:, :head], rest_variance]))


def coefficient_marginals(alpha, mean, variance):
    """The marginal ``q(b_j)`` of ``b_j = sum_l gamma_lj beta_lj`` over the given effects
    (L, p): the ``L`` effects are independent, so it is the mixture over the subsets ``S``
    of effects holding ``j``, weight ``prod_{l in S} alpha_lj prod_{l not in S} (1 -
    alpha_lj)``, of ``N(sum_S mean_lj, sum_S variance_lj)`` (the empty set: the atom at 0,
    variance 0). Built one effect at a time, dropping components below
    :data:`MIXTURE_WEIGHT_FLOOR`; beyond :data:`MIXTURE_MAX_COMPONENTS`, the lightest are
    merged into one normal of their mass, mean and variance.

    Returns
    -------
    weights, means, variances : ndarray of shape (p, M)
        Padded with weight-0 components.
    """
    p = alpha.shape[1]
    weights, means, variances = np.ones((p, 1)), np.zeros((p, 1)), np.zeros((p, 1))
    for a, m, v in zip(alpha, mean, variance, strict=True):
        weights = np.hstack([weights * (1.0 - a)[:, None], weights * a[:, None]])
        means = np.hstack([means, means + m[:, None]])
        variances = np.hstack([variances, variances + v[:, None]])
        kept = weights > MIXTURE_WEIGHT_FLOOR
        width = int(kept.sum(axis=1).max())
        if width > MIXTURE_MAX_COMPONENTS:
            weights, means, variances = _merged_lightest(weights, means, variances)
            kept = weights > MIXTURE_WEIGHT_FLOOR
            width = int(kept.sum(axis=1).max())
        order = np.argsort(~kept, axis=1, kind="stable")[:, :width]
        weights, means, variances = (np.take_along_axis(array, order, axis=1)
                                     for array in (weights, means, variances))
        weights = np.where(np.take_along_axis(kept, order, axis=1), weights, 0.0)
    return weights, means, variances


class SuSiEPosteriorMixin:
    """What :class:`~alphavb.AlphaSuSiE` reads off its fitted effects (module docstring):
    the kept effects (``kept_effects_``) enter the marginals, intervals, ``lfsr_`` and
    draws; a fit of summary statistics has no intercept and does not predict."""

    def _kept(self):
        return self.kept_effects_

    def _marginals(self):
        """The mixture ``q(b_j)``: (weights, means, variances) of shape (p, M)."""
        kept = self._kept()
        return coefficient_marginals(self.single_effect_probabilities_[kept],
                                     self.effect_means_[kept], self.effect_variances_[kept])

    def _coef_variances(self):
        """``Var_q(b_j) = sum_l [a_lj (v_lj + m_lj^2) - (a_lj m_lj)^2]`` (effects
        independent)."""
        kept = self._kept()
        a, m = self.single_effect_probabilities_[kept], self.effect_means_[kept]
        v = self.effect_variances_[kept]
        return np.sum(a * (v + m * m) - (a * m) ** 2, axis=0)

    def _coef_variance_along(self, X_centred):
        """``Var_q(x' b) = sum_l Var(x' b_l)``, ``Var(x' b_l) = sum_j a_lj x_j^2 (v_lj +
        m_lj^2) - (x' (a_l m_l))^2``."""
        kept = self._kept()
        a, m = self.single_effect_probabilities_[kept], self.effect_means_[kept]
        v = self.effect_variances_[kept]
        second = (a * (v + m * m)) @ (X_centred * X_centred).T
        first = (a * m) @ X_centred.T
        return np.sum(second - first * first, axis=0)

    @property
    def lfsr_(self):
        """Local false sign rates ``min(q(b_j >= 0), q(b_j <= 0))`` of the mixture
        marginals (module docstring), computed when first read."""
        check_is_fitted(self, "single_effect_probabilities_")
        if "_lfsr" not in self.__dict__:
            self._lfsr = self._local_false_sign_rates()
        return self._lfsr

    def _local_false_sign_rates(self):
        weights, means, variances = self._marginals()
        sd = np.sqrt(variances)
        atom = np.sum(np.where(sd > 0, 0.0, weights), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd > 0, means / np.where(sd > 0, sd, 1.0), 0.0)
        slab = np.where(sd > 0, weights, 0.0)
        below = np.sum(slab * norm.cdf(-z), axis=1)
        above = np.sum(slab * norm.sf(-z), axis=1)
        return np.minimum(atom + below, atom + above).clip(0.0, 1.0)

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each ``b_j`` under ``q``: quantiles of the
        mixture ``q(b_j)`` (module docstring; an atom at 0, so an interval may be
        ``[0, 0]``), by bisection to ``1e-12`` of its scale.

        Parameters
        ----------
        level : float in (0, 1), default=0.95

        Returns
        -------
        ndarray of shape (n_features, 2)
        """
        check_is_fitted(self)
        weights, means, variances = self._marginals()
        return mixture_intervals(weights, means, np.sqrt(variances), level)

    def _other_summary_rows(self, level):
        """The intercept and covariates; none after :meth:`fit_summary` (z-scores carry
        no intercept)."""
        if self._fit_kind in ("summary", "sufficient-no-means"):
            return []
        return super()._other_summary_rows(level)

    def _draw_coef(self, n_samples, rng):
        """Per draw and effect ``l`` (with ``V_l > 1e-9``), ``gamma_l ~ Mult(1, a_l)`` and
        ``beta_l ~ N(m_lj, v_lj)`` at its variable; ``b`` the sum."""
        kept = np.flatnonzero(self._kept())
        coef = np.zeros((n_samples, self.n_features_in_))
        rows = np.arange(n_samples)
        for effect in kept:
            probabilities = self.single_effect_probabilities_[effect]
            chosen = rng.choice(probabilities.size, size=n_samples,
                                p=probabilities / probabilities.sum())
            coef[rows, chosen] += (self.effect_means_[effect, chosen]
                                   + np.sqrt(self.effect_variances_[effect, chosen])
                                   * rng.standard_normal(n_samples))
        return {"coef": coef}

    def predict(self, X, return_std=False, covariates=None):
        """Posterior-predictive mean (and standard deviation, ``sqrt(Var_q(x' b + z'
        gamma) + sigma2 (1 + ...))`` with the intercept's and covariates' spread) under
        ``q``; not after :meth:`fit_summary`. With an infinitesimal background the mean
        adds ``x' E[theta]`` (``infinitesimal_effects_``); the standard deviation leaves
        out ``theta``'s posterior spread.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        return_std : bool, default=False
        covariates : array-like of shape (n_samples, n_covariates), default=None

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
        y_std : ndarray of shape (n_samples,), only when ``return_std``
        """
        check_is_fitted(self)
        if self._fit_kind == "summary":
            raise ValueError("This AlphaSuSiE was fitted on summary statistics "
                             "(fit_summary): its effects are on the scale of standardized "
                             "variables and response, with no intercept, so it cannot "
                             "predict y. Fit it with fit(X, y) to predict.")
        if self._fit_kind == "sufficient-no-means":
            raise ValueError("This AlphaSuSiE was fitted on sufficient statistics without "
                             "X_mean and y_mean, so it has no intercept to predict y with. "
                             "Pass X_mean and y_mean to fit_sufficient.")
        predicted = super().predict(X, return_std=return_std, covariates=covariates)
        background = getattr(self, "infinitesimal_effects_", None)
        if background is None or not background.any():
            return predicted
        shift = np.asarray(X, dtype=float) @ background  # X was checked by super()
        if return_std:
            return predicted[0] + shift, predicted[1]
        return predicted + shift

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws from ``q``: ``"coef"`` (n_samples, n_features), ``"intercept"``,
        ``"noise_variance"`` (the point estimate ``sigma2``, repeated) and, with
        covariates, ``"covariate_coef"`` (given each draw's ``b``, as
        :class:`~alphavb.AlphaSpikeSlabRegression` draws them)."""
        check_is_fitted(self)
        rng = check_random_state(random_state)
        draws = self._draw_covariates(super().sample_posterior(n_samples, rng), rng)
        if self._fit_kind == "summary":  # z-scores carry no intercept
            draws["intercept"] = np.zeros(n_samples)
        elif self._fit_kind == "sufficient-no-means":  # no means, no intercept
            draws["intercept"] = np.full(n_samples, np.nan)
        return draws
