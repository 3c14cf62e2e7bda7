"""How far a fit's variational posterior is from its exact alpha-posterior, measured at fit
time, and the warning when it is too far to be trusted.

A model that can measure it (the spike-and-slab models: the exact posterior near the fit,
:mod:`alphavb.linear_model._neighbourhood`; the linear model's closed form; importance
sampling for the Gaussian ``q`` of the black-box models, the mixture and LDA; a short run of
SuSiE's collapsed sampler, :mod:`alphavb.linear_model._susie_exact`) publishes an
:class:`ApproximationCheck` as ``approximation_check_`` and warns with
:class:`PosteriorApproximationWarning` when

* some variable's inclusion probability (PIP) differs from the exact one by more than
  :data:`PIP_ERROR_LIMIT`, or
* some coefficient's equal-tailed 95% variational interval holds less than
  :data:`INTERVAL_MASS_LIMIT` of the exact posterior, or
* (by importance sampling) the weights ``p / q`` are rough: their Pareto ``k`` above 0.7
  (Yao, Vehtari, Simpson & Gelman 2018) while their effective sample size is under 90% of
  the draws, so ``q`` is far from ``p`` and the masses estimated from them are unreliable
  (on iris, a diagonal mixture's ``k`` is 0.71 with an ESS of 4-14% of the draws, its masses
  above 0.82 by the weights, 0.77 by NUTS). ``k`` alone does not decide: it exceeds 0.7 on
  logistic fits whose weights are nearly equal and whose intervals hold 0.94 of the exact
  posterior.

The limits sit between what a user must be told (a PIP off by more than 0.2, an interval
holding less than 0.8) and what is accurate (PIPs within 0.05, intervals holding more than
0.9). The interval limit is below the middle of its band: the Jaakkola-Jordan intervals of
an ordinary logistic fit hold 0.82-0.87 of the exact posterior (the exact sampler agrees),
and a warning on every such fit would teach users to ignore it.
:func:`approximation_checks` says when fits measure it: ``"auto"`` (SuSiE's, the
mixture's and LDA's checks only where they cost at most a fifth of the fit's work), ``"always"`` or
``"never"``.
``benchmarks/bench_approximation_check.py`` measures the check against
:func:`alphavb.exact.compare_to_exact` on real data sets.
"""

import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from ._psis import KHAT_LIMIT

PIP_ERROR_LIMIT = 0.1
# the most free parameters alphavb.exact's NUTS samplers (the mixture's, LDA's) take
NUTS_MAX_PARAMETERS = 5000
INTERVAL_MASS_LIMIT = 0.82
CHECK_LEVEL = 0.95


class PosteriorApproximationWarning(UserWarning):
    """The variational posterior of a fit is far from the model's exact alpha-posterior (its
    PIPs or its intervals); ``approximation_check_`` holds the numbers and
    :func:`alphavb.exact.compare_to_exact` the full comparison."""


@dataclass(frozen=True)
class ApproximationCheck:
    """The exact alpha-posterior near a fit, beside the fit's variational one.

    Attributes
    ----------
    method : str
        How the exact numbers were found.
    feature_names : tuple of str
    variational_pips, exact_pips : ndarray of shape (n_features,) or (0,)
        The fit's PIPs and the exact posterior's (over the models the method found); empty
        for a model without inclusion indicators.
    interval_mass : ndarray of shape (n_features,)
        The exact posterior probability of each coefficient's variational ``level``
        interval.
    level : float
    n_models : int
        Models (sets of variables) the exact numbers are summed over.
    seconds : float
        The check's time.
    cause : str
        What usually makes this model's ``q`` differ from the exact posterior (the warning
        says it).
    khat : float
        The Pareto ``k`` of the importance weights ``p / q`` (:mod:`alphavb._psis`; NaN where
        the check is not by importance sampling): above :data:`KHAT_LIMIT` the masses and
        means estimated from the weights are rough.
    corrected_means : ndarray or None
        The posterior means by Pareto-smoothed importance sampling (unless ``rough``):
        ``q``'s means corrected towards the exact posterior's.
    rough : bool
        ``khat`` above its limit while the weights are far from equal (an effective sample
        size under 90% of the draws): ``q`` is far from the exact posterior (the check is
        not ``reliable``), and the masses and means from the weights are rough.
    call : str or None
        How to call :func:`alphavb.exact.compare_to_exact` on the fit (the warning says it);
        None for a model it has no exact sampler for (``AlphaGaussianVB``).
    noise_interval_mass : float
        The exact mass of ``q(sigma2)``'s interval (NaN where not measured). Reported, not
        warned on: a mean-field ``q(sigma2)`` counts the coefficients as data and is too
        narrow when they are many against the rows, while the coefficients' intervals, which
        the verdict reads, can still hold.
    """

    method: str
    feature_names: tuple
    variational_pips: np.ndarray
    exact_pips: np.ndarray
    interval_mass: np.ndarray
    level: float
    n_models: int
    seconds: float
    cause: str = ("the usual cause: correlated variables, of which a mean-field fit keeps one, "
                  "with too narrow an interval")
    noise_interval_mass: float = float("nan")
    khat: float = float("nan")
    corrected_means: np.ndarray | None = None
    rough: bool = False
    call: str = "compare_to_exact(model, X, y)"

    @property
    def pip_errors(self):
        return np.abs(self.variational_pips - self.exact_pips)

    @property
    def max_pip_error(self):
        return float(self.pip_errors.max(initial=0.0))

    @property
    def min_interval_mass(self):
        return float(self.interval_mass.min(initial=1.0))

    @property
    def reliable(self):
        """No PIP off by more than :data:`PIP_ERROR_LIMIT`, no interval holding less than
        :data:`INTERVAL_MASS_LIMIT` of the exact posterior and importance weights that are
        not ``rough``."""
        return (self.max_pip_error <= PIP_ERROR_LIMIT
                and self.min_interval_mass >= INTERVAL_MASS_LIMIT and not self.rough)

    def text(self):
        """One line: the largest PIP error and the smallest interval mass, with the variables
        they belong to, and the verdict."""
        pip_worst = int(np.argmax(self.pip_errors)) if len(self.exact_pips) else None
        mass_worst = int(np.argmin(self.interval_mass)) if len(self.interval_mass) else None
        parts = []
        if pip_worst is not None:
            parts.append(f"largest PIP error {self.max_pip_error:.3f} "
                         f"({self.feature_names[pip_worst]}: "
                         f"{self.variational_pips[pip_worst]:.3f} against "
                         f"{self.exact_pips[pip_worst]:.3f} exact)")
        if mass_worst is not None:
            parts.append(f"smallest exact mass of a {self.level:.0%} interval "
                         f"{self.min_interval_mass:.3f} ({self.feature_names[mass_worst]})")
        if np.isfinite(self.khat):
            parts.insert(0, f"PSIS k-hat {self.khat:.2f}" + (
                f" (above {KHAT_LIMIT} with unequal weights: q is far from the exact "
                "posterior, and the masses below are rough)" if self.rough else ""))
        if np.isfinite(self.noise_interval_mass):
            parts.append(f"the noise variance's interval holds {self.noise_interval_mass:.3f}")
        verdict = "within the limits" if self.reliable else "unreliable"
        return f"{'; '.join(parts)}: {verdict}"

    def warning_text(self, owner):
        compare = (f"compare everything with alphavb.exact.{self.call}, which draws from the "
                   "exact posterior." if self.call is not None else "compare with an MCMC "
                   "of prior x likelihood^alpha (alphavb has no exact sampler for a "
                   "likelihood of your own).")
        return (f"{owner}: the variational posterior is far from the exact alpha-posterior "
                f"({self.method}): {self.text()} ({self.cause}). Read the exact numbers in "
                f"approximation_check_, or {compare}")


CHECK_MODES = ("auto", "always", "never")
# "auto" checks where the check is cheap beside the fit; without_checks() is "never" for
# the fits a method makes for itself (a selection's resamples and folds), whose warnings
# it would silence anyway
_MODE = ContextVar("alphavb_approximation_checks", default="auto")
# "auto" runs a check whose predicted cost is at most this share of the fit's
CHEAP_SHARE = 0.2


@contextmanager
def approximation_checks(mode="always"):
    """When the fits inside this context measure their posterior against the exact one.

    Parameters
    ----------
    mode : {"always", "auto", "never"}, default="always"
        ``"auto"`` (the default outside any context): the linear, spike-and-slab and
        logistic models always (their checks take milliseconds, though up to 0.8 of a
        spike-and-slab regression's own 1-10 ms), SuSiE, the mixture and LDA where the
        check's predicted work is at most a fifth of the fit's (SuSiE: many rows against few
        effects; the mixture and LDA, whose checks pass over the data a thousand times:
        hardly ever), publishing ``approximation_check_ = None`` otherwise. ``"always"``: every
        check. ``"never"``: none (``approximation_check_`` None, no warning).

    Examples
    --------
    >>> import alphavb
    >>> with alphavb.approximation_checks("always"):  # doctest: +SKIP
    ...     model = alphavb.AlphaSuSiE().fit(X, y)

    The mode belongs to the calling thread: :func:`alphavb.simulation.run_study` hands it to
    its workers; a thread or process pool of your own starts from ``"auto"``.
    """
    if mode not in CHECK_MODES:
        raise ValueError(f"approximation_checks: mode must be one of {', '.join(CHECK_MODES)}; "
                         f"got {mode!r}.")
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def check_mode():
    """The mode of :func:`approximation_checks` in force here: a task run elsewhere (a joblib
    worker, a thread) starts from ``"auto"`` and is handed it (:func:`in_check_mode`)."""
    return _MODE.get()


def in_check_mode(mode, function, *args, **kwargs):
    """``function(*args, **kwargs)`` inside ``approximation_checks(mode)``: what a task sent
    to a worker runs, so that the caller's mode reaches its fits."""
    with approximation_checks(mode):
        return function(*args, **kwargs)


def without_checks():
    """Fits inside this context publish no check (``approximation_check_`` None) and spend
    no time on it: for the many fits a method makes for itself and never shows."""
    return approximation_checks("never")


def publish_check(estimator, compute, owner=None, cost_share=0.0):
    """Publish ``compute()`` (an :class:`ApproximationCheck`, or None where the model has no
    cheap exact reference in this setting) as ``estimator.approximation_check_`` and warn,
    in the name of ``owner`` (default: the estimator's class), when it is not reliable.
    ``compute`` is not called under :func:`approximation_checks` ``"never"``, nor under
    ``"auto"`` when ``cost_share`` (the check's predicted work over the fit's) exceeds
    :data:`CHEAP_SHARE`."""
    from ._validation import caller_stacklevel

    mode = _MODE.get()
    run = mode == "always" or (mode == "auto" and cost_share <= CHEAP_SHARE)
    check = compute() if run else None
    estimator.approximation_check_ = check
    if check is not None and not check.reliable:
        warnings.warn(check.warning_text(owner or type(estimator).__name__),
                      PosteriorApproximationWarning, stacklevel=caller_stacklevel())


@dataclass(frozen=True)
class ImportanceWeights:
    """Pareto-smoothed importance weights ``p / q`` of draws of ``q``
    (:func:`importance_weights`).

    Attributes
    ----------
    weights : ndarray of shape (n_draws,)
        The smoothed weights, normalised to sum to 1 (0 where a draw has no density).
    khat : float
        Their Pareto ``k``.
    rough : bool
        ``khat`` above :data:`~alphavb._psis.KHAT_LIMIT` (or not fitted) while the raw
        weights are far from equal (Kish's effective sample size under 90% of the draws).
    n_finite : int
        Draws with a density.
    """

    weights: np.ndarray
    khat: float
    rough: bool
    n_finite: int


def importance_weights(log_weights):
    """The :class:`ImportanceWeights` of ``log p - log q`` per draw; NaN (no density) counts
    as a zero weight. None when every weight is zero."""
    from ._psis import pareto_khat

    log_weights = np.where(np.isnan(log_weights), -np.inf, log_weights)  # no density there
    finite = int(np.isfinite(log_weights).sum())
    if not finite:
        return None
    khat, weights = pareto_khat(log_weights)
    raw = np.exp(log_weights - log_weights.max())
    # nearly equal weights (Kish's effective sample size >= 90% of the draws) estimate well
    # whatever the fitted tail shape, which is then unstable (1.5 where q is exact); a k-hat
    # that could not be fitted (NaN) counts as above the limit
    rough = (not khat <= KHAT_LIMIT) and raw.sum() ** 2 / (raw @ raw) < 0.9 * len(raw)
    return ImportanceWeights(weights, khat, bool(rough), finite)


def weighted_check(weighted, mass, means, names, started, cause, call):
    """The :class:`ApproximationCheck` of importance ``weighted`` draws of ``q``
    (:class:`ImportanceWeights`): ``mass`` of each parameter's interval of ``q`` and its
    weighted ``means`` (published unless the weights are rough); ``started`` is the
    ``time.perf_counter()`` of the check's start."""
    import time

    n_draws = len(weighted.weights)
    counted = "" if weighted.n_finite == n_draws else f" ({weighted.n_finite} with a density)"
    return ApproximationCheck(
        method=f"Pareto-smoothed importance sampling, {n_draws} draws of q{counted}",
        feature_names=tuple(names), variational_pips=np.zeros(0), exact_pips=np.zeros(0),
        interval_mass=mass, level=CHECK_LEVEL, n_models=n_draws,
        seconds=time.perf_counter() - started, khat=weighted.khat,
        corrected_means=None if weighted.rough else means, cause=cause,
        rough=weighted.rough, call=call)


def importance_check(draws, log_weights, lower, upper, names, started, cause,
                     call="compare_to_exact(model, X, y)"):
    """An :class:`ApproximationCheck` by Pareto-smoothed importance sampling
    (:mod:`alphavb._psis`): ``draws`` of ``q`` (n_draws, n_params) with ``log_weights``
    ``log p - log q``; the weighted mass of each ``[lower_j, upper_j]`` (``q``'s intervals),
    the k-hat, the corrected means unless the weights are rough; ``started`` is the
    ``time.perf_counter()`` of the check's start. NaN log weights (no density) count as
    zero weights; None when every weight is zero."""
    weighted = importance_weights(log_weights)
    if weighted is None:
        return None
    mass = weighted.weights @ ((draws >= lower) & (draws <= upper))
    return weighted_check(weighted, mass, weighted.weights @ draws, names, started, cause,
                          call)
