"""The values a mixture fit passes between its steps: the resolved component priors (what
a covariance family is built with, :mod:`~alphavb.mixture._families`), ``q(theta)`` and the
fit's state."""

from dataclasses import dataclass

import numpy as np

from ._estep import Statistics


@dataclass(frozen=True)
class ComponentPriors:
    """The resolved priors of the components: ``m0`` (p,), ``b0``, and for the learned
    covariances ``nu0``, ``Psi0`` (the family's shape) and ``reg_covar``; for ``"fixed"``
    the known covariance (p, p)."""

    mean: np.ndarray
    mean_precision: float
    degrees_of_freedom: float | None = None
    covariance: np.ndarray | float | None = None
    reg_covar: float = 0.0
    fixed_covariance: np.ndarray | None = None


@dataclass
class MixturePosterior:
    """``q(theta)`` and what the local step reads from it. ``weight_concentration`` is None
    for known weights; ``mean_covariances`` is set for ``"fixed"`` only, ``psi``,
    ``mean_precision`` and ``degrees_of_freedom`` for the other covariance types."""

    weights: np.ndarray = None
    log_weights: np.ndarray = None
    weight_concentration: np.ndarray | tuple | None = None  # (a, b) for the sticks
    means: np.ndarray = None
    precisions: np.ndarray = None
    prec_chol: np.ndarray = None
    log_const: np.ndarray = None
    psi: np.ndarray | None = None
    mean_precision: np.ndarray | None = None
    degrees_of_freedom: np.ndarray | None = None
    mean_covariances: np.ndarray | None = None


@dataclass(frozen=True)
class MixtureState:
    """``q(theta)``, the statistics it was updated from (None before the first sweep) and
    the total sample weight they stand for (``partial_fit``'s running sum)."""

    posterior: MixturePosterior
    statistics: Statistics | None
    seen: float
