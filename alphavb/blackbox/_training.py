"""The one training loop of the stochastic-gradient estimators: BB-alpha, AADM, Gaussian VB.

Each estimator writes its objective as pure functions built by a factory (as autograd's
``examples/black_box_svi.py`` does) and hands them to :func:`train`, which owns the rest:
mini-batches, Adam, the KL warm-up, the convergence rule, early stopping on held-out data,
non-finite checks and the progress bar.

Stacked fits
------------
Several independent fits of one model (other data of the same size, other seeds, other
alphas) train together as one computation: every parameter array has a leading axis of
length ``M``, one entry per fit; each fit draws its mini-batches and Monte-Carlo noise from
its own random stream, and a fit that has converged is frozen while the others go on. Each
fit therefore takes exactly the steps it would take alone, and the per-operation cost of
NumPy is shared by the ``M`` fits. BB-alpha's and AADM's steps are computed in closed form,
every array per fit in the same order whatever the stack, so a fit ends bitwise where it
ends alone, whatever the other fits' alphas (tested on small networks; checked at the
AADM paper's sizes over 3 boston epochs with 1 and 2 BLAS threads). That holds for one
number of BLAS threads: the same fit with 1 and with 2 OpenBLAS threads differs by about
1e-17 after one epoch (the library splits a product differently), and so would another
BLAS or CPU; long adversarial training amplifies such rounding to the run-to-run spread
the vignettes report, so ``alphavb reproduce`` fits with one BLAS thread. (Before the
closed-form AADM step, autograd summed broadcast gradients in an order that depended on
the stack, and thousands of adversarial steps amplified that rounding: one boston fit,
9,100 steps, had test log-likelihood -2.40 in a stack of 5 and -2.52 in a stack of 8.)

Convergence rule
----------------
The energy of one mini-batch is noisy (Monte-Carlo draws, the batch), so the rule looks at
a smoothed energy: the mean, per training row, of the step energies over a *block* of
epochs holding at least ``block_steps`` steps (one epoch on large data, many on small
data). A fit reaches a plateau when its best block has not been beaten by more than ``tol`` for
``n_iter_no_change`` consecutive blocks, the rule of scikit-learn's ``MLPRegressor`` on a
smoothed energy. At a plateau Adam's step size is divided by 5 (scikit-learn's "adaptive"
learning rate), up to ``n_decays`` times, since with a constant step the iterates keep
wandering around the optimum at a distance set by the gradient noise; the fit has converged
at the plateau after the last decay. With a validation score (early stopping) the block's
score is that score, and the fit ends with the parameters of its best block. Blocks of the
KL warm-up are not compared (the objective still changes). ``tol=None`` trains every epoch of
the budget at a constant step (the papers' protocol); the rule is then only evaluated, with
``tol = 0``, for ``converged``.
"""

import itertools
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from autograd import make_vjp
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

from .._validation import caller_stacklevel
from ._optim import Adam


class Objective(NamedTuple):
    """The pure functions of a stochastic objective, for :func:`train`.

    Attributes
    ----------
    draw : callable
        ``draw(rng, n_rows)``: the random inputs of one step of one fit (a tuple of arrays),
        drawn from that fit's ``numpy.random.Generator``; ``n_rows`` is the mini-batch size.
    value_and_grad : callable
        ``value_and_grad(params, adversary, batch, draws, kl_weight)`` returns ``(values,
        gradients)``: ``values`` of shape (M, C), whose column 0 is the objective to minimize
        (an estimate for the whole training set) and whose other columns are recorded
        diagnostics; ``gradients`` of column 0's sum, with the structure of ``params``.
        ``batch`` holds the mini-batch rows of each data array, shape (M, B, ...), and
        ``draws`` the stacked draws, shape (M, ...).
    adversary_value_and_grad : callable or None
        ``adversary_value_and_grad(adversary, params, batch, draws)`` returns ``(losses of
        shape (M,), gradients)`` of an adversary (AADM's discriminator) that takes its
        Adam step before the objective's, on the same draws.
    """

    draw: Callable
    value_and_grad: Callable
    adversary_value_and_grad: Callable = None


@dataclass(frozen=True)
class Schedule:
    """How long and how fast to train (see the module docstring for the rule).

    Attributes
    ----------
    batch_size : int
        Rows per step at most: an epoch takes ``ceil(n_rows / batch_size)`` steps on nearly
        equal mini-batches.
    learning_rate : float or array of shape (M,)
        Adam step size of each fit.
    max_epochs : int
    max_steps : int or None
        Stop after this many steps even within an epoch.
    warmup_epochs : int
        The KL weight passed to the objective is ``epoch / warmup_epochs`` during the
        warm-up, then 1.
    tol : float or None
        Improvement of the smoothed energy per training row (or of the validation score)
        that counts as progress; ``None`` disables stopping.
    n_iter_no_change : int
        Blocks without progress before a fit has converged.
    block_steps : int
        Least number of steps in a block.
    n_decays : int
        Plateaus at which the step sizes are divided by ``1 / decay_factor`` before the
        next plateau ends the fit.
    decay_factor : float
    adversary_learning_rate : float or array of shape (M,), optional
    """

    batch_size: int
    learning_rate: object
    max_epochs: int
    max_steps: int = None
    warmup_epochs: int = 0
    tol: float = 1e-4
    n_iter_no_change: int = 10
    block_steps: int = 100
    n_decays: int = 0
    decay_factor: float = 0.2
    adversary_learning_rate: object = None


@dataclass
class TrainingResult:
    """What :func:`train` returns; the arrays' leading axis is the fit.

    Attributes
    ----------
    params, adversary : list of ndarray
        The final parameters (the best block's with a validation score).
    history : list of ndarray
        Per fit, the epoch means of the objective's value columns, shape (n_epochs, C),
        and of the adversary's loss as a last column when there is one.
    n_epochs, n_steps : ndarray of int, shape (M,)
        Epochs and Adam steps each fit took.
    converged : ndarray of bool, shape (M,)
    best_score : ndarray of shape (M,) or None
        The best validation score, with a validation score.
    """

    params: list
    adversary: list
    history: list
    n_epochs: np.ndarray
    n_steps: np.ndarray
    converged: np.ndarray
    best_score: np.ndarray = None


def warmup_weight(epoch, n_warmup_epochs):
    """The KL weight of epoch ``epoch`` (0-based): ``epoch / n_warmup`` during the warm-up,
    then 1 (the AADM authors' schedule)."""
    return 1.0 if epoch >= n_warmup_epochs else epoch / n_warmup_epochs


def _stack_draws(objective, rngs, n_rows, dtype=np.float64):
    per_fit = [objective.draw(rng, n_rows) for rng in rngs]
    return tuple(np.stack(parts).astype(dtype, copy=False) for parts in zip(*per_fit, strict=True))


# error_model="numpy" and an integer count: the loop vectorizes (0.07 ms for 333k float32
# entries on 1 thread, against 0.15 ms for np.isfinite(np.sum(g)), the former check)
@numba.njit(cache=True, error_model="numpy")
def _count_non_finite(values):
    """The number of NaN and infinite entries of the 1-d array ``values``."""
    largest = np.finfo(values.dtype).max
    count = 0
    for value in values:
        count += 0 if np.abs(value) <= largest else 1
    return count


def _finite(value, gradients):
    """Whether the values and gradients are finite (no NaN, no infinity)."""
    return np.all(np.isfinite(value)) and all(
        _count_non_finite(_as_float_vector(g)) == 0 for g in gradients)


def _as_float_vector(array):
    array = np.asarray(array)
    return (array if array.dtype.kind == "f" else array.astype(float)).reshape(-1)


class _ConvergenceRule:
    """Best block score, blocks since it was beaten, and the fits that have converged."""

    def __init__(self, n_fits, tol, n_iter_no_change):
        self.tol, self.patience = tol, n_iter_no_change
        self.best = np.full(n_fits, -np.inf)
        self.n_bad = np.zeros(n_fits, dtype=int)
        self.n_decays = np.zeros(n_fits, dtype=int)

    def update(self, score):
        """Record the block ``score`` (higher is better) of every fit; return the fits whose
        score is their best so far."""
        improved = score > self.best + (self.tol or 0.0)
        better = score > self.best
        self.n_bad = np.where(improved, 0, self.n_bad + 1)
        self.best = np.where(better, score, self.best)
        return better

    @property
    def plateau(self):
        return self.n_bad >= self.patience

    def decay(self, fits):
        """Count a step-size decay of ``fits``; their patience starts again."""
        self.n_decays[fits] += 1
        self.n_bad[fits] = 0


def train(objective, params, data, rngs, schedule, **options):
    """:func:`train_steps` on one BLAS thread (:func:`alphavb._parallel.one_blas_thread`):
    the networks' products are small, so threads only add synchronisation (AADM on diabetes:
    8-9 s on one thread, 50-83 s on OpenBLAS's two), and the fit would depend on the
    caller's thread count, which rounds the products differently."""
    from .._parallel import one_blas_thread

    with one_blas_thread():
        return train_steps(objective, params, data, rngs, schedule, **options)


def train_steps(objective, params, data, rngs, schedule, *, adversary=None,
                validation_score=None, name="model", learning_rate_name="learning_rate",
                verbose=False, dtype=np.float64):
    """Minimize ``objective`` over ``params`` for a stack of ``M`` fits with Adam.

    Parameters
    ----------
    objective : Objective
    params : list of ndarray, each of shape (M, ...)
        Starting values (copied; the caller's arrays are not modified).
    data : list of ndarray, each of shape (M, n_rows, ...)
        Training arrays whose rows (axis 1) are split into mini-batches.
    rngs : list of numpy.random.Generator
        One random stream per fit (mini-batch order and draws).
    schedule : Schedule
    adversary : list of ndarray, optional
        Starting values of the adversary's parameters.
    validation_score : callable, optional
        ``validation_score(params, adversary)`` returns the held-out score (M,) (higher is
        better) that replaces the smoothed energy in the convergence rule.
    name, learning_rate_name : str
        The estimator and the parameter a non-finite step's error names.
    verbose : bool
        Show a progress bar over epochs.
    dtype : {numpy.float64, numpy.float32}
        The precision of training: parameters, Adam's moments, the data and the draws (drawn
        in float64 from the fits' streams and rounded, so a float32 fit meets the same
        numbers). The result's parameters are float64 either way.

    Returns
    -------
    TrainingResult
    """
    params = [np.array(part, dtype=dtype, order="C") for part in params]
    adversary = [np.array(part, dtype=dtype, order="C") for part in (adversary or [])]
    data = [np.asarray(part, dtype=dtype) if np.issubdtype(np.asarray(part).dtype, np.floating)
            else part for part in data]
    n_fits, n_rows = params[0].shape[0], data[0].shape[1]
    batch_size = min(schedule.batch_size, n_rows)
    steps_per_epoch = -(-n_rows // batch_size)
    # nearly equal mini-batches (sizes differ by at most one row): a short last batch would
    # weigh each of its rows by N / B, the noisiest estimate of the epoch
    bounds = np.arange(steps_per_epoch + 1) * n_rows // steps_per_epoch
    epochs_per_block = max(1, -(-schedule.block_steps // steps_per_epoch))
    optimizer = Adam(params, schedule.learning_rate)
    adversary_optimizer = (Adam(adversary, schedule.adversary_learning_rate)
                           if objective.adversary_value_and_grad is not None else None)
    rule = _ConvergenceRule(n_fits, schedule.tol, schedule.n_iter_no_change)
    active = np.ones(n_fits, dtype=bool)
    n_epochs = np.zeros(n_fits, dtype=int)
    n_steps = np.zeros(n_fits, dtype=int)
    history, block = [], []
    best_params = None
    fits = np.arange(n_fits)[:, None]
    epochs = tqdm(range(schedule.max_epochs), disable=not verbose, desc=name)
    for epoch in epochs:
        kl_weight = warmup_weight(epoch, schedule.warmup_epochs)
        orders = np.stack([rng.permutation(n_rows) for rng in rngs])
        totals = None
        for start, stop in itertools.pairwise(bounds):
            rows = orders[:, start:stop]
            batch = [part[fits, rows] for part in data]
            draws = _stack_draws(objective, rngs, rows.shape[1], dtype)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                # an overflow is reported below, as one error that says what to do
                if adversary_optimizer is not None:
                    loss, gradients = objective.adversary_value_and_grad(adversary, params,
                                                                         batch, draws)
                    # after the networks' last step: either rate may have sent it there
                    _check_step(loss, gradients, name, epoch, "discriminator_learning_rate or "
                                f"{learning_rate_name}")
                    adversary_optimizer.step(adversary, gradients, active)
                values, gradients = objective.value_and_grad(params, adversary, batch, draws,
                                                             kl_weight)
            _check_step(values, gradients, name, epoch, learning_rate_name)
            optimizer.step(params, gradients, active)
            n_steps += active
            step_values = np.asarray(values, dtype=float)
            if adversary_optimizer is not None:  # its loss is recorded as the last column
                step_values = np.column_stack([step_values, loss])
            totals = step_values * rows.shape[1] if totals is None else \
                totals + step_values * rows.shape[1]
            if schedule.max_steps is not None and optimizer.n_steps >= schedule.max_steps:
                break
        n_epochs += active
        history.append(totals / stop)
        if epoch >= schedule.warmup_epochs:  # a block never mixes in warm-up epochs
            block.append(history[-1][:, 0])
        epochs.set_postfix(objective=f"{np.mean(history[-1][active, 0]):.4g}", refresh=False)
        budget_spent = (epoch + 1 == schedule.max_epochs or (
            schedule.max_steps is not None and optimizer.n_steps >= schedule.max_steps))
        if len(block) == epochs_per_block or (budget_spent and block):
            if validation_score is not None:
                score = np.asarray(validation_score(params, adversary), dtype=float)
            else:
                score = -np.mean(block, axis=0) / n_rows
            better = rule.update(score) & active
            if validation_score is not None:
                best_params = _keep_best(best_params, params, adversary, better)
            if schedule.tol is not None:
                decay = rule.plateau & active & (rule.n_decays < schedule.n_decays)
                for step in (optimizer, adversary_optimizer):
                    if step is not None:
                        step.step_size[decay] *= schedule.decay_factor
                rule.decay(decay)
                active &= ~rule.plateau
            block = []
        if not active.any() or budget_spent:
            break
    if validation_score is not None and best_params is not None:
        params, adversary = best_params
    return TrainingResult(
        params=[part.astype(np.float64) for part in params],
        adversary=[part.astype(np.float64) for part in adversary],
        history=[np.array([row[m] for row in history[:n_epochs[m]]]) for m in range(n_fits)],
        n_epochs=n_epochs, n_steps=n_steps, converged=rule.plateau.copy(),
        best_score=rule.best.copy() if validation_score is not None else None)


def _keep_best(best, params, adversary, better):
    """Copies of the parameters of the fits whose score is their best so far."""
    if best is None:
        return [part.copy() for part in params], [part.copy() for part in adversary]
    for kept, current in zip(best[0] + best[1], params + adversary, strict=True):
        kept[better] = current[better]
    return best


def _check_step(values, gradients, name, epoch, parameter):
    """Refuse a non-finite objective or gradient with one error that says what to do."""
    if not _finite(values, gradients):
        raise FloatingPointError(
            f"{name}: the objective or its gradient is not finite at epoch {epoch + 1}; "
            f"lower {parameter} or standardize the data (normalize=True).")


def stacked_value_and_grad(fun):
    """``value_and_grad`` for an objective of ``M`` stacked fits: ``fun(params, *args)``
    returns one value per fit, shape (M,), or values of shape (M, C) whose column 0 is the
    objective (the others are diagnostics); the result is ``(values, gradient of the sum of
    the objectives)``. Fits have disjoint parameters, so that gradient is each fit's own."""
    def value_and_grad(params, *args):
        vjp, values = make_vjp(lambda p: fun(p, *args))(params)
        cotangent = np.zeros(np.shape(values))
        cotangent[(slice(None), 0)[:cotangent.ndim]] = 1.0
        return values, vjp(cotangent)

    return value_and_grad


def warn_if_not_converged(estimator, budget_name, budget, tol):
    """The ``ConvergenceWarning`` of a fit whose budget ended before its convergence rule
    was met (not with ``tol=None``, which asks for the whole budget)."""
    if tol is None or estimator.converged_:
        return
    warnings.warn(
        f"{type(estimator).__name__} did not converge in its budget, {budget_name}={budget} "
        f"({estimator.n_steps_} Adam steps): its objective per row, averaged over blocks of "
        f"at least 100 steps, had not yet gone {estimator.n_iter_no_change} blocks "
        f"(n_iter_no_change) without improving by more than tol={tol:g}. Raise {budget_name} "
        "(or learning_rate).", ConvergenceWarning, stacklevel=caller_stacklevel())


def fit_stacked(estimators, X, y):
    """Fit several black-box estimators at once, each exactly as its own ``fit`` would.

    Fits of one class whose structural settings agree (network sizes, draws, batch size,
    budget, ...) and whose data have the same shape (e.g. the splits of one UCI set) are
    trained as one stacked computation (module docstring of
    :mod:`alphavb.blackbox._training`); they may differ in ``divergence_order``,
    ``random_state``, ``learning_rate`` and the prior and noise variances. Other estimators
    are grouped with their like. The result of each estimator is that of
    ``estimator.fit(X[i], y[i])``, bitwise: the per-operation cost of NumPy is shared, not the
    randomness (training runs on one BLAS thread, so the caller's thread count does not
    matter; bitwise equality still needs the same BLAS and CPU).

    Parameters
    ----------
    estimators : list of BBAlphaRegressor, BBAlphaClassifier or AADMRegressor
    X, y : lists of array-like, one per estimator

    Returns
    -------
    list
        The fitted ``estimators``.
    """
    if not (len(estimators) == len(X) == len(y)):
        raise ValueError(f"fit_stacked needs one X and one y per estimator; got "
                         f"{len(estimators)} estimators, {len(X)} X and {len(y)} y.")
    groups = defaultdict(list)
    for estimator, X_fit, y_fit in zip(estimators, X, y, strict=True):
        # (AlphaLogisticRegression has a _prepare_fit of its own, not a stacked network's)
        if not hasattr(estimator, "_fit_prepared"):
            raise ValueError(f"fit_stacked fits black-box estimators (BBAlphaRegressor, "
                             f"BBAlphaClassifier, AADMRegressor); got {type(estimator).__name__}.")
        prepared = estimator._prepare_fit(X_fit, y_fit)
        groups[prepared.key].append((estimator, prepared))
    for members in groups.values():
        stack, prepared = zip(*members, strict=True)
        type(stack[0])._fit_prepared(list(stack), list(prepared))
    return list(estimators)
