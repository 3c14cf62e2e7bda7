"""What every closed-form (CAVI) alpha-VB estimator shares.

The alpha-VB solution (Yang, Pati & Bhattacharya 2020, eq. 2.6) maximises the alpha-ELBO

    L_alpha(q) = E_q[log p(Y, S | theta)] + H(q_S) - (1/alpha) KL(q_theta || p_theta),     (1)

with ``S`` the local latent variables (mixture labels, topic assignments) and ``theta`` the
global parameters. CAVI for (1) adds ``alpha`` times the data's expected sufficient statistics
to each conjugate block's prior natural parameters; the local step ``q(S_i) ∝
exp E_theta[log p(Y_i, S_i | theta)]`` has no ``alpha``. The ``objective="fractional"``
variant minimises the KL to the joint alpha-fractional posterior, i.e. maximises

    alpha E_q[log p(Y, S | theta)] + H(q_S) - KL(q_theta || p_theta),                      (2)

whose local step is ``q(S_i) ∝ exp(alpha E_theta[...])`` (the form of the algorithms in the
paper's supplement). (1) = (2) / alpha - (1/alpha - 1) H(q_S) (the paper's
Proposition 2.1), so without latents the two have the same maximiser.

Choosing alpha
--------------
``alpha`` multiplies the log-likelihood, so the data count as ``alpha * n`` observations:
the posterior spread grows by about ``1 / sqrt(alpha)`` and the prior weighs ``1 / alpha``
times more. The paper's risk bounds hold for every fixed ``alpha`` in (0, 1), with constants
of order ``1 / min(alpha, 1 - alpha)``; ``alpha = 1`` is ordinary variational Bayes. Values in
[0.5, 1) keep most of the data's information. Small ``alpha`` with a *learned* noise level
can prefer the explanation "everything is noise": on the README's spike-and-slab example
(n = 100, d = 500, four true variables) the learned-noise fit keeps all four at alpha >= 0.3
(PIPs ~1, noise variance 1.3-1.9) and none at alpha = 0.1 and 0.2 (sum of PIPs 0.3, noise
variance 28-31), while with the noise variance known (``noise_variance=1``) alpha = 0.1 and
0.2 still select them. That is the maximiser of the alpha-ELBO with 10-20 effective
observations, not a failed fit. To choose ``alpha`` by cross-validation compare held-out
scores (``score``, ``GridSearchCV``), never the objectives: ``elbo_`` carries ``1/alpha``
and is on a different scale for each ``alpha``.

:class:`CAVIEstimator` owns the fit loop of every CAVI model (starts, stopping rule, warm
start, ``ConvergenceWarning``, ``elbo_history_``) and declares the hooks a model fills in;
:class:`StochasticStepsMixin` is the ``partial_fit`` shared by the mixture and LDA;
the regressions' ``summary()`` is in :mod:`alphavb._coefficient_summary`.
"""

import time
import warnings
from abc import ABCMeta, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ._validation import (
    Boolean,
    Integer,
    Options,
    RandomState,
    Real,
    ValidatedParametersMixin,
    caller_stacklevel,
)

__all__ = ["OBJECTIVES", "CAVIEstimator", "CAVIResult", "ExactSampler", "StochasticStepsMixin",
           "column_scales", "column_standard_deviations", "feature_labels", "fitted_model",
           "models_with"]

OBJECTIVES = ("alpha-vb", "fractional")


def feature_labels(estimator):
    """The names of a fitted estimator's features, as summaries, plots and ArviZ label them:
    ``feature_names_in_`` as strings, else ``x0, x1, ...``; None without
    ``n_features_in_``."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names]
    n_features = getattr(estimator, "n_features_in_", None)
    return None if n_features is None else [f"x{j}" for j in range(n_features)]


@dataclass(frozen=True)
class ExactSampler:
    """Where :mod:`alphavb.exact` finds a model's sampler of its exact alpha-posterior.

    A model names its sampler as the class attribute ``_exact_sampler`` (as scikit-learn's
    estimators carry their tags), so that :func:`alphavb.exact.sample_exact` and
    :func:`~alphavb.exact.compare_to_exact` ask the model rather than test its type; the
    sampler is looked up by name because :mod:`alphavb.exact` imports the models.

    Attributes
    ----------
    module : str
        The sampler's module in :mod:`alphavb.exact` (``"_spike_slab"``).
    function : str
        ``function(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng, **fit_params)``.
    fit_params : tuple of str
        The fit parameters besides ``X`` and ``y`` it takes.
    rows : str or None
        For a model without ``summary_frame``: the module's function giving the labels and
        the flat columns of the compared parameters from draws (None: the coefficients and
        the intercept).
    """

    module: str
    function: str
    fit_params: tuple = ()
    rows: str | None = None


@dataclass(frozen=True)
class CAVIResult:
    """What one run of the CAVI loop returns (:meth:`CAVIEstimator._run_cavi`).

    Attributes
    ----------
    state : the model's state dataclass
        The final state of the best start.
    history : ndarray
        The objective after each evaluated sweep of that start (``elbo_history_``).
    n_iter : int
        Sweeps it ran (``n_iter_``).
    converged : bool
        Whether the stopping rule was met before ``max_iter`` (``converged_``).
    checked : list
        The last value the stopping rule checked: a run continued from this one (a warm
        start, the next setting of a grid) is judged against it.
    """

    state: object
    history: np.ndarray
    n_iter: int
    converged: bool
    checked: list

    @property
    def objective(self):
        """The final objective (``elbo_``)."""
        return float(self.history[-1])


class CAVIEstimator(ValidatedParametersMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of the coordinate-ascent (CAVI) alpha-VB estimators.

    The base class owns the loop, as scikit-learn's ``BaseMixture`` does: the ``n_init``
    starts, the stopping rule (relative change of the objective at most ``tol``), warm start,
    the best start's final state and ``ConvergenceWarning``. A model fills in four hooks and
    keeps its variational parameters in one small state object (a dataclass):

    * ``_initialize(data, random_state, start, previous)``: the state that start number
      ``start`` (0-based) of the ``n_init`` starts begins from; with ``previous`` (the fitted
      state, on a warm start) the state that continues from it on ``data``;
    * ``_cavi_step(data, state)``: one full sweep over every block of the mean-field family
      (for stochastic VI, one pass over the mini-batches), returning the new state and the
      exact value of the chosen objective there (or ``None`` when the step does not compute
      it: ``_evaluate(data, state)`` then gives it on the sweeps the stopping rule checks): the
      alpha-ELBO of Yang, Pati & Bhattacharya (2020, eq. 2.6) for ``"alpha-vb"``,
      ``E_q[alpha log p(Y, S | theta)] + H(q_S) - KL(q_theta || p_theta)`` (the KL to the
      joint alpha-fractional posterior, their supplement's algorithms) for ``"fractional"``;
    * ``_set_parameters(state)``: publish the state as the fitted attributes;
    * ``_get_parameters()``: the published state (a warm start continues from it; the base
      keeps it, so a model rarely overrides this one).

    The first three are abstract: a model that lacks one cannot be instantiated. A model's
    ``fit`` validates the data, resolves the priors into ``*_prior_`` attributes and calls
    ``self._fit_cavi(data)``; ``data`` is whatever that ``fit`` prepared (validated arrays
    and resolved priors).

    What a model may override (each has a default here): ``_setting_data``,
    ``_publish_data`` and ``_publish_results`` (a grid of prior settings fitted in turn and
    published together, what the fitted model keeps of the data), ``_stopping_value`` and
    ``_has_converged`` (the stopping rule; default the relative change of the objective),
    ``_check_every`` and ``_evaluate`` (a rule checked every few sweeps), ``_state_fits`` and
    ``_state_parameters`` (when a warm start may continue), ``_n_starts`` (default
    ``n_init``), ``_final_objective`` and the ``_report_*`` progress lines. What
    ``max_iter`` counts, for the ``ConvergenceWarning``, is ``data.sweep_name`` where the
    data say (LDA's online learning: passes), else sweeps.

    What the base provides: ``_fit_cavi`` and ``_run_cavi`` (the one fit driver: the
    settings, the ``n_init`` starts, the loop, warm start, the best start kept, ``elbo_``,
    ``elbo_history_``, ``n_iter_``, ``converged_`` and a ``ConvergenceWarning`` naming the
    budget to raise), the declared parameter constraints of ``alpha``, ``objective``,
    ``max_iter``, ``tol``, ``n_init``, ``warm_start``, ``random_state`` and ``verbose``
    (checked when ``fit`` starts), and pickling and cloning as a scikit-learn estimator.
    :class:`StochasticStepsMixin` adds ``partial_fit`` (stochastic VI) on the same state.
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Real(0, 1, closed="right")],
        "objective": [Options(*OBJECTIVES)],
        "max_iter": [Integer(1, None)],
        "tol": [Real(0, None)],
        "n_init": [Integer(1, None)],
        "warm_start": [Boolean()],
        "random_state": [RandomState()],
        "verbose": [Integer(0, None), Boolean()],
    }
    _parameter_hints: ClassVar[dict] = {
        "alpha": "alpha is the likelihood's temperature: use alpha = 1 for ordinary VB and "
                 "alpha < 1 for the fractional posterior.",
    }

    @abstractmethod
    def _initialize(self, data, random_state, start, previous=None):
        """The starting state of start ``start``, or the continuation of ``previous``."""

    @abstractmethod
    def _cavi_step(self, data, state):
        """One sweep from ``state``: return ``(new_state, objective)``."""

    @abstractmethod
    def _set_parameters(self, state):
        """Publish ``state`` as fitted attributes."""

    def _get_parameters(self):
        """The fitted state (what ``_set_parameters`` was last given)."""
        return self._state

    # parameters that shape the fitted state: a warm start after one of them changed starts
    # cold, as scikit-learn's estimators do (e.g. n_components)
    _state_parameters: ClassVar[tuple] = ()

    def _continues(self, data=None):
        """Whether ``fit`` continues from the fitted state: ``warm_start`` on a fitted model
        whose state still fits, i.e. none of ``_state_parameters`` changed since, and (given
        ``data``) ``_state_fits(data)``. Otherwise the fit starts cold."""
        if not (getattr(self, "warm_start", False) and hasattr(self, "_state")):
            return False
        fitted = getattr(self, "_fitted_state_parameters", {})
        if any(fitted.get(name) != getattr(self, name) for name in self._state_parameters):
            return False
        return data is None or self._state_fits(data)

    def _state_fits(self, data):
        """Whether the fitted state can start a fit of ``data`` (e.g. the same features)."""
        return True

    def _store(self, state):
        self._keep_state(state)
        self._set_parameters(state)

    def _keep_state(self, state):
        """Keep ``state`` as the one a warm start continues from, with the parameters that
        shaped it."""
        self._state = state
        self._fitted_state_parameters = {name: getattr(self, name)
                                         for name in self._state_parameters}

    def _n_starts(self):
        """How many starts a fresh fit runs (``n_init`` where the model has it)."""
        return getattr(self, "n_init", 1)

    def _check_every(self):
        """Sweeps between two checks of the stopping rule (0: never check)."""
        return 1

    def _objective_without_latents(self, alpha_elbo):
        """Value of the chosen objective for a model with no local latent variables: without
        latents the fractional objective is ``alpha`` times the alpha-ELBO, so both have the
        same maximiser."""
        return self.alpha * alpha_elbo if self.objective == "fractional" else alpha_elbo

    def _stopping_value(self, data, state, objective):
        """The number the stopping rule follows (the objective; LDA may follow the training
        perplexity instead)."""
        return objective

    def _has_converged(self, current, previous):
        """The stopping rule: relative change of the objective at most ``tol``."""
        return abs(current - previous) <= self.tol * abs(current)

    def _evaluate(self, data, state):
        """The objective at ``state``, for a ``_cavi_step`` that returned ``None`` (called on
        the sweeps the stopping rule checks)."""
        raise NotImplementedError(f"{type(self).__name__}._cavi_step returned no objective")

    def _final_objective(self, data, state, converged):
        """An objective to append to the history when the loop ends (None: nothing; online
        LDA evaluates the final topics when it did not converge)."""

    def _fit_cavi(self, data):
        """Fit ``data`` and publish the result, the one fit driver of every CAVI model.

        The loop runs once per setting of ``_setting_data(data)`` (one, ``data`` itself,
        unless a model fits a grid of priors); the first setting continues from the fitted state on
        a warm start, each later one from the setting before it. Then ``_publish_data(data)``
        and ``_publish_results(data, results)`` publish the fit (the state's attributes,
        ``elbo_``, ``elbo_history_``, ``n_iter_``, ``converged_``), and a
        ``ConvergenceWarning`` follows unless every setting converged. Returns the list of
        :class:`CAVIResult`, one per setting.
        """
        previous = self._warm_start_result(data)
        results = []
        for setting in self._setting_data(data):
            previous = self._run_cavi(setting, previous)
            results.append(previous)
        self._publish_data(data)
        self._publish_results(data, results)
        self._warn_not_converged(all(result.converged for result in results), data)
        return results

    def _setting_data(self, data):
        """The data of each setting a fit runs, in order: ``[data]`` (a model that averages
        over a grid of priors returns one per grid point)."""
        return [data]

    def _publish_data(self, data):
        """Publish what preparation resolved of the training data: the fitted attributes in
        ``data.fitted_attributes`` where the data hold them (the regressions: the rows
        fitted, the noise prior, the columns' scales, the covariates), once, with the fitted
        state; preparation itself sets none (but for scikit-learn's ``n_features_in_``,
        ``feature_names_in_`` and a classifier's ``classes_``, which validation sets)."""
        self.__dict__.update(getattr(data, "fitted_attributes", {}))

    def _publish_results(self, data, results):
        """Publish the settings' results (one by default: :meth:`_publish_result`)."""
        (result,) = results
        self._publish_result(result)

    def _warm_start_result(self, data):
        """The result a fit of ``data`` continues from: on a warm start whose state still fits
        (``_continues``), the fitted model's state, objective and last value its stopping
        rule checked; otherwise None (a cold start)."""
        if not self._continues(data):
            return None
        return CAVIResult(self._get_parameters(), np.array([getattr(self, "elbo_", -np.inf)]),
                          0, False, list(getattr(self, "_last_checked", [])))

    def _publish_result(self, result):
        """Publish a :class:`CAVIResult` as the fitted model."""
        self._store(result.state)
        self._last_checked = result.checked
        self.elbo_ = result.objective
        self.elbo_history_ = np.asarray(result.history)
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged

    def _run_cavi(self, data, previous=None):
        """Run the CAVI loop on ``data`` and return the best start as a :class:`CAVIResult`,
        publishing nothing.

        ``previous`` (a :class:`CAVIResult`) is continued from, in one start, as a warm start
        does (the next setting of a grid continues from the last); without it the
        ``n_init`` starts run from ``_initialize``.
        """
        do_init = previous is None
        n_init = self._n_starts() if do_init else 1
        random_state = check_random_state(self.random_state)
        check_every = self._check_every()
        best = None
        for start in range(n_init):
            started = time.perf_counter()
            self._report_start(start)
            state = self._initialize(data, random_state, start,
                                     None if do_init else previous.state)
            history = []
            # a warm start is judged against where the previous fit ended, so repeated short
            # fits (max_iter=1) converge as one long fit would
            checked = [] if do_init else list(previous.checked)
            converged = False
            for sweep in range(1, self.max_iter + 1):
                tic = time.perf_counter()
                state, value = self._cavi_step(data, state)
                check = bool(check_every) and sweep % check_every == 0
                if value is None and check:
                    value = self._evaluate(data, state)
                change = None
                if value is not None:
                    if not np.isfinite(value):
                        raise FloatingPointError(
                            f"{type(self).__name__}: the objective became {value} after "
                            f"sweep {sweep} of start {start}. Check the data scale "
                            "(standardise X and y) or use a stronger prior."
                        )
                    if history:
                        last = history[-1]
                    else:  # scikit-learn's first change is from -inf; a warm start's from elbo_
                        last = -np.inf if do_init else previous.history[-1]
                    change = value - last
                    history.append(value)
                tracked = None
                if check:
                    tracked = self._stopping_value(data, state, value)
                    converged = bool(checked) and bool(self._has_converged(tracked, checked[-1]))
                    checked = [tracked]
                self._report_sweep(data, state, sweep, change, tracked,
                                   time.perf_counter() - tic)
                if converged:
                    break
            final = self._final_objective(data, state, converged)
            if final is not None:
                history.append(final)
            self._report_end(converged, time.perf_counter() - started, history[-1])
            if best is None or history[-1] > best[1][-1]:
                best = (state, history, converged, checked, sweep)
        state, history, converged, checked, n_sweeps = best
        return CAVIResult(state, np.asarray(history), n_sweeps, converged, checked)

    # scikit-learn's BaseMixture messages (verbose=1: starts and their end; verbose>=2: also
    # every verbose_interval sweeps, with timing and the objective's change)

    def _report_start(self, start):
        if self.verbose:
            print(f"Initialization {start}")

    def _report_sweep(self, data, state, sweep, change, tracked, seconds):
        if self.verbose and sweep % getattr(self, "verbose_interval", 1) == 0:
            if self.verbose == 1:
                print(f"  Iteration {sweep}")
            else:
                print(f"  Iteration {sweep}\t time lapse {seconds:.5f}s\t ll change "
                      f"{change:.5f}")

    def _report_end(self, converged, seconds, objective):
        status = "converged" if converged else "did not converge"
        if self.verbose == 1:
            print(f"Initialization {status}.")
        elif self.verbose:
            print(f"Initialization {status}. time lapse {seconds:.5f}s\t lower bound "
                  f"{objective:.5f}.")

    def _warn_not_converged(self, converged, data):
        """The ``ConvergenceWarning`` of a fit of ``data`` that met ``max_iter`` before its
        stopping rule (none when the rule is never checked); it names what ``max_iter``
        counts: ``data.sweep_name`` where the data say (online LDA: passes), else sweeps."""
        if converged or not self._check_every():
            return
        warnings.warn(
            f"{type(self).__name__} did not converge in max_iter={self.max_iter} "
            f"{getattr(data, 'sweep_name', 'sweeps')} (tol={self.tol}). Increase max_iter or "
            "tol.",
            ConvergenceWarning, stacklevel=caller_stacklevel(),
        )


class StochasticStepsMixin:
    """``partial_fit`` for CAVI models whose global blocks are conjugate: stochastic VI
    (Hoffman, Blei, Wang & Paisley 2013). Step ``t`` (1, 2, ...) moves the global natural
    parameters a fraction ``rho_t = (learning_offset + t)^(-learning_decay)`` towards the
    update the mini-batch would give if it were the whole data set; ``learning_decay`` in
    (0.5, 1] makes the steps satisfy the Robbins-Monro conditions.

    A model provides ``_batch_data(X, reset, **fit_params)`` (the validated mini-batch),
    ``_first_batch_state(data, random_state)`` (the state the first call starts from) and
    ``_stochastic_step(data, state, step, random_state)`` (the new state).
    ``n_batch_iter_`` counts the steps from ``_batch_iter_start`` (scikit-learn's LDA starts
    at 1, its mixtures at 0).
    """

    _batch_iter_start = 0

    def _step_size(self):
        """``rho_t`` of the next step."""
        t = self.n_batch_iter_ - self._batch_iter_start + 1
        return (self.learning_offset + t) ** (-self.learning_decay)

    def _take_step(self, data, state, random_state):
        """One stochastic step on the mini-batch ``data``; counts it in ``n_batch_iter_``."""
        state = self._stochastic_step(data, state, self._step_size(), random_state)
        self.n_batch_iter_ += 1
        return state

    def _partial_fit(self, X, **fit_params):
        first = not hasattr(self, "_state")
        self._validate_params()
        data = self._batch_data(X, reset=first, **fit_params)
        random_state = check_random_state(self.random_state)
        if first:
            state = self._first_batch_state(data, random_state)
            self.n_batch_iter_ = self._batch_iter_start
        else:
            state = self._get_parameters()
        self._store(self._take_step(data, state, random_state))
        self.approximation_check_ = None  # a check of the last fit is not one of this step
        return self


def column_scales(X, standardize, sqrt_weight=None, offset=0.0):
    """A model's ``column_scale_``: :func:`column_standard_deviations` of ``X`` with
    ``standardize``, else ones; its sweeps see ``X / column_scale_``."""
    if not standardize:
        return np.ones(X.shape[1])
    return column_standard_deviations(X, sqrt_weight, offset)


def column_standard_deviations(X, sqrt_weight=None, offset=0.0):
    """The (weighted) standard deviation of each column of ``X`` about its mean, as
    ``StandardScaler`` computes it (divisor ``n``, or the weights' total; AlphaSuSiE divides
    by ``n - 1`` as susieR does, :func:`alphavb.linear_model._susie.standard_deviations`),
    from the rows times ``sqrt(w_i)`` (``None``: no weights). 1 for a column that is
    constant up to rounding (a deviation below ``1e-12`` times the column's root mean square,
    e.g. 0.1 + 0.2 beside 0.3); ``offset`` is the mean that was taken off a centred ``X``, so
    that the root mean square is the raw column's."""
    if sqrt_weight is None:
        sqrt_weight = np.ones(X.shape[0])
    total = float(sqrt_weight @ sqrt_weight)
    mean = sqrt_weight @ X / total
    # two passes (sum_i w_i (x_i - mean)^2 = sum_i (sqrt(w_i) x_i - sqrt(w_i) mean)^2), as
    # np.std, not E[x^2] - mean^2, which cancels on a column far from 0
    scale = np.sqrt(np.sum((X - sqrt_weight[:, None] * mean) ** 2, axis=0) / total)
    size = np.sqrt(np.sum(X * X, axis=0) / total + np.square(offset))
    return np.where(scale > 1e-12 * size, scale, 1.0)


def models_with(capability):
    """The public estimators (``alphavb.__all__``, in its order) whose class names
    ``capability`` (e.g. ``"_exact_sampler"``), for the messages of the functions that ask a
    model for it."""
    import alphavb

    return [model for model in (getattr(alphavb, name) for name in alphavb.__all__)
            if getattr(model, capability, None) is not None]


def fitted_model(estimator):
    """The fitted model ``estimator`` stands in for: the ``best_estimator_`` of a fitted
    :class:`~alphavb.model_selection.AlphaSelector` (or of scikit-learn's ``GridSearchCV``),
    anything else as it is. The metrics, plots, risks and ``to_inference_data`` call it
    first, so that they accept a selector in place of its model."""
    best = getattr(estimator, "__dict__", {}).get("best_estimator_")
    return estimator if best is None else best

