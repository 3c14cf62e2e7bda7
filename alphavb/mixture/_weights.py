"""The weight priors of :class:`~alphavb.AlphaGaussianMixture`: one class per kind of
``pi`` (module docstring of :mod:`alphavb.mixture._gaussian_mixture`, "Model"), each with
its conjugate update from the tempered counts, its KL to the prior and its draws.

:func:`weight_prior` is the one place that reads ``weight_concentration_prior_type`` and
``fixed_weights``.
"""

import numpy as np

from .._special import (
    dirichlet_expected_log,
    kl_beta,
    kl_dirichlet,
    stick_breaking_expected_log,
    stick_breaking_mean,
)


class KnownWeights:
    """``pi`` known (``fixed_weights``): no factor to fit."""

    def __init__(self, weights):
        self.weights = weights

    def update(self, tempered):
        """``(weight_concentration, weights, E[log pi])``; no concentration (None)."""
        return None, self.weights, np.log(self.weights)

    def kl(self, concentration):
        return 0.0

    def draw(self, concentration, weights, n, rng):
        """``n`` copies of the known weights."""
        return np.broadcast_to(weights, (n, len(weights))).copy()


class DirichletWeights:
    """``pi ~ Dirichlet(w0 1_K)`` (``"dirichlet_distribution"``): ``q(pi) = Dirichlet(w0 +
    alpha N_k)``."""

    def __init__(self, concentration_prior):
        self.concentration_prior = concentration_prior

    def update(self, tempered):
        """``q(pi)`` from the tempered counts ``alpha N_k``: its parameters (scikit-learn's
        ``weight_concentration_``), ``E[pi]`` and ``E[log pi_k]``."""
        concentration = self.concentration_prior + tempered
        return (concentration, concentration / concentration.sum(),
                dirichlet_expected_log(concentration))

    def kl(self, concentration):
        return kl_dirichlet(concentration,
                            np.full_like(concentration, self.concentration_prior))

    def draw(self, concentration, weights, n, rng):
        return rng.dirichlet(concentration, size=n)


class StickBreakingWeights:
    """The Dirichlet process's sticks (``"dirichlet_process"``): ``q(v_k) = Beta(1 + alpha
    N_k, w0 + alpha sum_{j>k} N_j)``, returned as the pair of arrays ``(a, b)``;
    ``weights_`` is ``E[pi_k]`` renormalised over the ``K`` components, as scikit-learn
    reports it."""

    def __init__(self, concentration_prior):
        self.concentration_prior = concentration_prior

    def update(self, tempered):
        later = np.concatenate((np.cumsum(tempered[::-1])[-2::-1], [0.0]))
        a, b = 1.0 + tempered, self.concentration_prior + later
        mean = stick_breaking_mean(a, b)
        return (a, b), mean / mean.sum(), stick_breaking_expected_log(a, b)

    def kl(self, concentration):
        a, b = concentration
        return np.sum(kl_beta(a, b, 1.0, self.concentration_prior))

    def draw(self, concentration, weights, n, rng):
        """``v_k ~ Beta(a_k, b_k)``, ``pi_k = v_k prod_{j<k}(1 - v_j)``, renormalised."""
        return stick_breaking_weights(rng.beta(*concentration, size=(n, len(weights))))


def stick_breaking_weights(sticks):
    """``pi_k = v_k prod_{j<k}(1 - v_j)`` from sticks ``v`` (..., K), renormalised over the
    ``K`` components as ``weights_`` is (the draws of ``q`` and of the exact sampler)."""
    rest = np.cumprod(1.0 - sticks, axis=-1)
    weights = sticks * np.concatenate((np.ones((*sticks.shape[:-1], 1)), rest[..., :-1]),
                                      axis=-1)
    return weights / weights.sum(axis=-1, keepdims=True)


WEIGHT_PRIORS = {"dirichlet_process": StickBreakingWeights,
                 "dirichlet_distribution": DirichletWeights}


def weight_prior_class(prior_type, fixed_weights):
    """The class of the weight prior: :class:`KnownWeights` when ``fixed_weights`` is given,
    else the ``prior_type`` prior's."""
    return KnownWeights if fixed_weights is not None else WEIGHT_PRIORS[prior_type]


def weight_prior(prior_type, concentration_prior, fixed_weights):
    """The weight prior: known ``fixed_weights`` (an array), else the ``prior_type`` prior
    with concentration ``w0``."""
    kind = weight_prior_class(prior_type, fixed_weights)
    return kind(fixed_weights if kind is KnownWeights else concentration_prior)
