r"""Simulation studies of the variational Bayes risk: grids x replications, in parallel.

:func:`run_study` fits an estimator to data simulated from a :class:`Problem` at every point
of a grid (sample size, ``alpha``, any estimator or problem parameter) and replication, and
records the variational Bayes risk of :mod:`alphavb.risk` with the fit's
diagnostics, one row per fit. :func:`fit_rate` regresses log risk on log n to estimate the
rate the paper's corollaries predict (Yang, Pati & Bhattacharya 2020, Cor. 4.1-4.5):

    risk ~ C / min(alpha, 1 - alpha) * c log(d n) / n,

with ``c = d`` for a regular ``d``-parameter model (Cor. 4.1, 4.3, D.1), ``c = s`` non-zero
coefficients out of ``d`` (Cor. 4.2) and ``c = d K`` for a ``K``-component mixture in
``R^d`` (Cor. 4.4); its log-log slope is ``-1 + 1 / log(d n)``, a little above -1.

Reproducibility
---------------
Every fit draws its data, its estimator's ``random_state`` and its risk's Monte-Carlo
draws from ``numpy.random.SeedSequence(random_state, spawn_key=(replication, key))``, where
``key`` is a hash of the data-generating parameters (the sample size and the problem's
grid parameters). So a result does not depend on ``n_jobs``, on the order of the grid, or on
which other grid points are run; and fits that differ only in estimator parameters (e.g.
``alpha``) see the same data and seeds (common random numbers: their differences are
paired).

Caching
-------
With ``cache_dir``, each fit's row is written (atomically) to the :mod:`alphavb.cache`
result cache under a content hash of everything that determines it (problem and its
settings, estimator class and parameters, array parameters by their bytes, grid point,
replication, seed, risk settings) as soon as the fit ends; a re-run reads those rows,
checking each one, and computes only the missing, unreadable or rejected rows, so an
interrupted study resumes where it stopped.
"""

import hashlib
import inspect
import itertools
import json
import time
import warnings
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from ._validation import bad_parameter
from .base import check_positive_int
from .cache import ResultCache, cache_key, non_negative_number, require
from .datasets import make_gmm, make_lda_corpus, make_sparse_regression
from .divergences import hellinger_categorical
from .risk import lda_risk, logistic_risk, mixture_risk, regression_risk

__all__ = [
    "PROBLEMS",
    "Problem",
    "fit_rate",
    "gaussian_mixture_problem",
    "lda_problem",
    "linear_regression_problem",
    "logistic_regression_problem",
    "rate_normalized_risk",
    "run_study",
    "spike_slab_problem",
    "theoretical_rate",
]

LOKY_IDLE_SECONDS = 10
RESULT_COLUMNS = ("replication", "risk", "error", "fit_seconds", "n_iter", "converged")


@dataclass(frozen=True)
class Problem:
    """A data-generating model, the truth it returns and the VB risk of a fit to it.

    Parameters
    ----------
    name : str
        Identifies the problem in cache keys.
    simulate : callable
        ``simulate(n_samples, random_state, **settings)`` returns ``(X, y, truth)``:
        the data (``y`` is None for unsupervised models) and a dict of true parameters.
    risk : callable
        ``risk(model, X, truth, n_draws, random_state)``: the variational Bayes risk.
    error : callable
        ``error(model, truth)``: the error of the fit's point estimate.
    settings : dict
        Default keyword arguments of ``simulate``; a grid can vary any of them.

    Notes
    -----
    ``simulate``, ``risk`` and ``error`` must be module-level functions so that the problem
    pickles to joblib's (and dask's) worker processes.
    """

    name: str
    simulate: Callable
    risk: Callable
    error: Callable
    settings: dict = field(default_factory=dict)


# ------------------------------------------------------------------ the paper's problems


def _simulate_linear_regression(n_samples, random_state, n_features, noise):
    rng = np.random.RandomState(random_state)
    coef = np.linspace(0.5, 2.0, n_features) * np.where(np.arange(n_features) % 2, -1, 1)
    X = rng.standard_normal((n_samples, n_features))
    y = X @ coef + noise * rng.standard_normal(n_samples)
    return X, y, {"coef": coef, "noise_variance": noise**2}


def _simulate_sparse_regression(n_samples, random_state, n_features, n_informative, noise):
    X, y, coef = make_sparse_regression(n_samples, n_features, n_informative, noise=noise,
                                        random_state=random_state)
    return X, y, {"coef": coef, "noise_variance": noise**2}


def _regression_risk(model, X, truth, n_draws, random_state):
    return regression_risk(model, X, truth["coef"], truth["noise_variance"], n_draws=n_draws,
                           random_state=random_state)


def _coef_error(model, truth):
    """``||E_q[beta] - beta*||_2`` (the intercept, if any, is left out)."""
    return float(np.linalg.norm(np.ravel(model.coef_) - truth["coef"]))


def _simulate_logistic_regression(n_samples, random_state, n_features, scale):
    from scipy.special import expit

    rng = np.random.RandomState(random_state)
    coef = scale * np.linspace(-1.0, 1.0, n_features)
    X = rng.standard_normal((n_samples, n_features))
    y = (rng.random_sample(n_samples) < expit(X @ coef)).astype(int)
    return X, y, {"coef": coef}


def _logistic_risk(model, X, truth, n_draws, random_state):
    return logistic_risk(model, X, truth["coef"], n_draws=n_draws, random_state=random_state)


def _simulate_gaussian_mixture(n_samples, random_state, n_components, n_features, mean_scale):
    X, _, means = make_gmm(n_samples, n_components, n_features, mean_scale=mean_scale,
                           random_state=random_state)
    return X, None, {"means": means}


def _mixture_risk(model, X, truth, n_draws, random_state):
    return mixture_risk(model, truth["means"], n_draws=n_draws, random_state=random_state)


def _matched_mean_error(model, truth):
    """Root mean squared distance between the true means and the fitted ones, matched by
    the assignment that minimizes it (labels are arbitrary)."""
    from scipy.optimize import linear_sum_assignment

    cost = np.sum((truth["means"][:, None] - model.means_[None]) ** 2, axis=-1)
    rows, cols = linear_sum_assignment(cost)
    return float(np.sqrt(cost[rows, cols].mean()))


def _simulate_lda(n_samples, random_state, n_documents, n_topics, n_words, topic_word_prior):
    X, doc_topic, topic_word = make_lda_corpus(n_documents, n_topics, n_words, n_samples,
                                               topic_word_prior=topic_word_prior,
                                               random_state=random_state)
    return X, None, {"doc_topic": doc_topic, "topic_word": topic_word, "X": X}


def _lda_risk(model, X, truth, n_draws, random_state):
    return lda_risk(model, X, truth["doc_topic"], truth["topic_word"], n_draws=n_draws,
                    random_state=random_state)


def _lda_plug_in_error(model, truth):
    """Mean over documents of the squared Hellinger distance between the plug-in word
    distribution ``E[theta_d]' E[beta]`` and the true ``theta*_d' beta*``."""
    doc_topic = model.transform(truth["X"])
    topics = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return float(np.mean(hellinger_categorical(doc_topic @ topics,
                                               truth["doc_topic"] @ truth["topic_word"])))


def linear_regression_problem(n_features=5, noise=1.0):
    """Low-dimensional linear regression with a fixed Gaussian design (Cor. 4.1).

    ``X`` has independent N(0, 1) entries and ``y = X beta* + noise * eps``, with
    ``beta*`` evenly spaced in magnitude from 0.5 to 2 with alternating signs. Risk:
    :func:`~alphavb.risk.regression_risk` on the training design; error:
    ``||E_q[beta] - beta*||_2``. Rate: ``d log(d n) / n``.
    """
    return Problem("linear_regression", _simulate_linear_regression, _regression_risk,
                   _coef_error, {"n_features": n_features, "noise": noise})


def spike_slab_problem(n_features=200, n_informative=4, noise=1.0):
    """Sparse regression as in the paper's Figure 1 (Cor. 4.2).

    :func:`~alphavb.datasets.make_sparse_regression` (``s = n_informative`` coefficients
    from 1.5 to 3, the rest 0). Risk: :func:`~alphavb.risk.regression_risk`; error:
    ``||E_q[beta] - beta*||_2``. Rate: ``s log(d n) / n``.
    """
    return Problem("spike_slab", _simulate_sparse_regression, _regression_risk, _coef_error,
                   {"n_features": n_features, "n_informative": n_informative, "noise": noise})


def logistic_regression_problem(n_features=3, scale=1.5):
    """Logistic regression with a Gaussian design, a regular parametric model (Cor. 4.3,
    D.1): ``beta*`` evenly spaced in ``[-scale, scale]``, no intercept. Risk:
    :func:`~alphavb.risk.logistic_risk`; error: ``||E_q[beta] - beta*||_2``. Rate:
    ``d log(d n) / n``.
    """
    return Problem("logistic_regression", _simulate_logistic_regression, _logistic_risk,
                   _coef_error, {"n_features": n_features, "scale": scale})


def gaussian_mixture_problem(n_components=3, n_features=2, mean_scale=5.0):
    """The paper's Gaussian mixture (Figure 2, Cor. 4.4): :func:`~alphavb.datasets.make_gmm`,
    equal weights and identity covariances, means redrawn each replication. Risk:
    :func:`~alphavb.risk.mixture_risk`; error: the root mean squared distance between
    matched true and fitted means. Rate: ``d K log(d n) / n``.
    """
    return Problem("gaussian_mixture", _simulate_gaussian_mixture, _mixture_risk,
                   _matched_mean_error, {"n_components": n_components,
                                         "n_features": n_features, "mean_scale": mean_scale})


def lda_problem(n_documents=50, n_topics=3, n_words=40, topic_word_prior=0.1):
    """LDA corpora of ``n_documents`` documents whose mean length is the study's
    ``n_samples`` (Cor. 4.5): :func:`~alphavb.datasets.make_lda_corpus`. The per-document
    topic proportions are estimated from that document's words alone, so the risk
    (:func:`~alphavb.risk.lda_risk`) falls with the document length. Error: the same
    divergence at the plug-in estimate ``E[theta_d]' E[beta]``.
    """
    return Problem("lda", _simulate_lda, _lda_risk, _lda_plug_in_error,
                   {"n_documents": n_documents, "n_topics": n_topics, "n_words": n_words,
                    "topic_word_prior": topic_word_prior})


PROBLEMS = {"linear_regression": linear_regression_problem, "spike_slab": spike_slab_problem,
            "logistic_regression": logistic_regression_problem,
            "gaussian_mixture": gaussian_mixture_problem, "lda": lda_problem}


# ------------------------------------------------------------------------- the runner


def _stable_words(value):
    """Four 32-bit words of a SHA-256 of ``value``'s JSON (stable across runs)."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).digest()
    return tuple(int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(4))


def _seeds(entropy, replication, data_params):
    """Integer seeds of the data, the estimator and the risk draws of one fit."""
    sequence = np.random.SeedSequence(entropy, spawn_key=(replication,
                                                          *_stable_words(data_params)))
    return [int(child.generate_state(1)[0]) for child in sequence.spawn(3)]


def _split_grid(grid, estimator, problem):
    """Check ``grid`` and route each name to the estimator or to the problem."""
    if not isinstance(grid, dict) or "n_samples" not in grid:
        raise bad_parameter("run_study", "grid", "a dict of lists with an 'n_samples' entry",
                             grid, "E.g. grid={'n_samples': [100, 200, 400], "
                             "'alpha': [0.5, 1.0]}.")
    estimator_params = estimator.get_params(deep=False)
    simulate_params = set(inspect.signature(problem.simulate).parameters) | set(
        problem.settings)
    routes = {}
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not len(values):
            raise bad_parameter("run_study", "grid", f"a non-empty list of values for '{name}'",
                                 values)
        if name == "n_samples" or (name in simulate_params and name not in estimator_params):
            routes[name] = "data"
        elif name in estimator_params:
            routes[name] = "estimator"
        else:
            raise bad_parameter("run_study", "grid", "names of estimator parameters, problem "
                                 f"settings ({sorted(problem.settings)}) or 'n_samples'",
                                 name)
    for n in grid["n_samples"]:
        check_positive_int("run_study", "grid['n_samples']", n)
    return routes


def _plain(value):
    """A JSON-friendly Python scalar for numpy scalars."""
    return value.item() if isinstance(value, np.generic) else value


def _objective(model):
    """The fitted objective: ``elbo_`` of the estimator or of its ``vb_``."""
    value = getattr(model, "elbo_", None)
    if value is None:
        value = getattr(getattr(model, "vb_", None), "elbo_", None)
    if value is None:
        raise ValueError(f"run_study's n_init > 1 keeps the fit with the largest elbo_, but "
                         f"{type(model).__name__} has none; use n_init=1.")
    return value


def _fit_one(problem, estimator, point, routes, replication, entropy, n_draws, n_init, store):
    """Simulate, fit (best of ``n_init`` starts by ``elbo_``) and score one grid point;
    ``store`` is None or ``(cache, key)``, where the row is written as soon as it exists."""
    data_params = {k: v for k, v in point.items() if routes[k] == "data"}
    data_seed, fit_seed, risk_seed = _seeds(entropy, replication, data_params)
    settings = {**problem.settings, **{k: v for k, v in data_params.items() if k != "n_samples"}}
    X, y, truth = problem.simulate(point["n_samples"], data_seed, **settings)
    params = {k: v for k, v in point.items() if routes[k] == "estimator"}
    has_seed = "random_state" in estimator.get_params(deep=False)
    best, start = None, time.perf_counter()
    for start_index in range(n_init):
        model = clone(estimator).set_params(**params)
        if has_seed:
            model.set_params(random_state=(fit_seed + start_index) % 2**32)
        with warnings.catch_warnings():  # non-convergence is recorded in the row instead
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X) if y is None else model.fit(X, y)
        if best is None or _objective(model) > _objective(best):
            best = model
    seconds = time.perf_counter() - start
    vb = getattr(best, "vb_", best)
    risk = float(problem.risk(best, X, truth, n_draws, risk_seed))
    error = float(problem.error(best, truth))
    if not (np.isfinite(risk) and np.isfinite(error)):
        raise FloatingPointError(f"run_study: the fit at {point}, replication {replication} "
                                 f"gave risk {risk} and error {error}; a study row must be "
                                 "finite (check the estimator's settings at this point).")
    n_iter, converged = getattr(best, "n_iter_", None), getattr(vb, "converged_", None)
    row = {**{k: _plain(v) for k, v in point.items()}, "replication": replication,
           "risk": risk, "error": error, "fit_seconds": seconds,
           "n_iter": None if n_iter is None else int(n_iter),
           "converged": None if converged is None else bool(converged)}
    if store is not None:
        cache, key = store
        cache.store(key, row)  # atomic: a killed run leaves no half-written row
    return row


def _row_check(point, replication):
    """The validation of a cached row of ``point`` and ``replication``."""
    checks = {**{name: _plain(value) for name, value in point.items()},
              "replication": replication, "risk": non_negative_number,
              "error": non_negative_number, "fit_seconds": non_negative_number,
              "n_iter": lambda v: v is None or (isinstance(v, int) and v >= 0),
              "converged": lambda v: v is None or isinstance(v, bool)}
    return lambda row: require(row, checks)


def run_study(problem, estimator, grid, n_replications=10, random_state=0, n_jobs=1,
              backend=None, cache_dir=None, n_draws=200, n_init=1, progress=True):
    """Fit ``estimator`` to ``problem`` at every grid point and replication; one row per fit.

    Parameters
    ----------
    problem : Problem or str
        A :class:`Problem`, or the name of one of the paper's problems in :data:`PROBLEMS`
        (with its default settings): ``"linear_regression"``, ``"spike_slab"``,
        ``"logistic_regression"``, ``"gaussian_mixture"`` or ``"lda"``.
    estimator : estimator
        An unfitted alphavb estimator; it is cloned for every fit.
    grid : dict of str to list
        Values to cross. ``"n_samples"`` is required; every other name is an estimator
        parameter (e.g. ``"alpha"``) or a setting of the problem (e.g. ``"n_features"``).
    n_replications : int, default=10
    random_state : int, default=0
        Entropy of the ``SeedSequence`` all the seeds derive from (see the module notes).
    n_jobs : int, default=1
        Parallel fits through joblib (-1: all cores). The results do not depend on it.
    backend : str or None, default=None
        joblib backend: None (loky processes), ``"threading"``, or ``"dask"`` to run on the
        ``dask.distributed.Client`` the caller has created (needs ``distributed``).
    cache_dir : str, Path or None, default=None
        Folder of cached rows; rows already there are read instead of refitted.
    n_draws : int, default=200
        Draws from ``q`` for the risk.
    n_init : int, default=1
        Fits per data set, from independent seeds; the one with the largest ``elbo_`` is
        kept (for estimators without their own restarts, e.g. ``AlphaLDA``).
    progress : bool, default=True
        Show a tqdm progress bar of the fits.

    Returns
    -------
    pandas.DataFrame
        One row per fit, in grid order then replication: the grid values, ``replication``,
        ``risk`` (variational Bayes risk), ``error`` (of the point estimate), ``fit_seconds``
        (all ``n_init`` fits), ``n_iter`` and ``converged`` (of the kept fit; None for an
        estimator without ``n_iter_`` or ``converged_``). A non-finite risk or error raises
        ``FloatingPointError`` rather than entering the table.

    Examples
    --------
    >>> from alphavb import AlphaLinearRegression
    >>> from alphavb.simulation import run_study, fit_rate
    >>> df = run_study("linear_regression", AlphaLinearRegression(),
    ...                {"n_samples": [100, 400, 1600], "alpha": [0.5, 1.0]},
    ...                n_replications=3, progress=False)
    >>> df.shape
    (18, 8)
    >>> rates = fit_rate(df, complexity=5)
    >>> bool(rates["slope"].between(-1.3, -0.7).all())
    True
    """
    import pandas as pd
    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    if isinstance(problem, str):
        if problem not in PROBLEMS:
            raise bad_parameter("run_study", "problem", f"a Problem or one of "
                                 f"{sorted(PROBLEMS)}", problem)
        problem = PROBLEMS[problem]()
    elif not isinstance(problem, Problem):
        raise bad_parameter("run_study", "problem", "a Problem or the name of one",
                             type(problem).__name__)
    n_replications = check_positive_int("run_study", "n_replications", n_replications)
    n_draws = check_positive_int("run_study", "n_draws", n_draws)
    n_init = check_positive_int("run_study", "n_init", n_init)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state,
                                                                    (int, np.integer)):
        raise bad_parameter("run_study", "random_state", "an int (the seed of the study)",
                             random_state, "A fixed seed makes the study reproducible and "
                             "its cache reusable.")
    routes = _split_grid(grid, estimator, problem)
    names = list(grid)
    points = [dict(zip(names, values)) for values in itertools.product(*grid.values())]
    jobs = [(point, r) for point in points for r in range(n_replications)]
    cache = None if cache_dir is None else ResultCache(cache_dir)
    if cache is not None:
        cache.check_writable("cache_dir")
    base_key = {"problem": problem.name, "settings": problem.settings,
                "estimator": estimator, "seed": int(random_state), "n_draws": n_draws,
                "n_init": n_init}

    def store(point, replication):
        if cache is None:
            return None
        return cache, cache_key({**base_key, "point": point, "replication": replication})

    rows = [None] * len(jobs)
    missing = []
    for index, (point, r) in enumerate(jobs):
        if cache is not None:
            rows[index] = cache.load(store(point, r)[1], validate=_row_check(point, r))
        if rows[index] is None:
            missing.append(index)
    tasks = (delayed(_fit_one)(problem, estimator, jobs[i][0], routes, jobs[i][1],
                               int(random_state), n_draws, n_init, store(*jobs[i]))
             for i in missing)
    # parallel_config (unlike Parallel's backend argument) registers joblib's dask backend
    # loky workers do not watch their parent: after a kill -9 of this process they would
    # idle for loky's default 300 s; with a 10 s idle timeout they exit soon after their fit
    config = (parallel_config(backend=backend) if backend is not None
              else parallel_config(backend="loky", idle_worker_timeout=LOKY_IDLE_SECONDS)
              if n_jobs != 1 else nullcontext())
    with config:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
        # the results first: zip then exhausts the generator (the bar reaches n, and joblib
        # does not warn about cancelled tasks)
        for row, index in zip(tqdm(results, total=len(missing),
                                   disable=not (progress and missing),
                                   desc=f"{problem.name} study"), missing):
            rows[index] = row
    frame = pd.DataFrame(rows, columns=[*names, *RESULT_COLUMNS])
    frame.attrs.update({"problem": problem.name, "settings": dict(problem.settings),
                        "random_state": int(random_state)})
    return frame


# ---------------------------------------------------------------------------- rates


def rate_normalized_risk(df, complexity, dimension=None, x="n_samples", y="risk"):
    """The risk divided by the theoretical rate: ``n * risk / (c log(d n))``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`run_study`.
    complexity : float or str
        ``c``: ``d`` (Cor. 4.1, 4.3), ``s`` (4.2), ``d K`` (4.4); or a column of ``df``.
    dimension : float, str or None, default=None
        ``d`` inside the logarithm (a number or a column); None uses ``complexity``.
    x, y : str
        Columns of the sample size and the risk.

    Returns
    -------
    pandas.Series
        Roughly constant in ``n`` when the risk attains the rate; the paper's bound makes
        it ``O(1 / min(alpha, 1 - alpha))``.
    """
    def column_or_value(value, name):
        if isinstance(value, str):
            if value not in df:
                raise bad_parameter("rate_normalized_risk", name, "a number or a column of "
                                     f"df ({list(df.columns)})", value)
            return df[value].to_numpy(dtype=float)
        if isinstance(value, (bool, np.bool_)) or not np.isscalar(value) or not value > 0:
            raise bad_parameter("rate_normalized_risk", name, "a positive number or a "
                                 "column of df", value)
        return float(value)

    c = column_or_value(complexity, "complexity")
    d = c if dimension is None else column_or_value(dimension, "dimension")
    return df[y] / theoretical_rate(df[x].to_numpy(dtype=float), c, d)


def theoretical_rate(n, complexity, dimension):
    """The rate of the paper's corollaries, ``c log(d n) / n`` (see the module notes)."""
    return complexity * np.log(dimension * n) / n


def fit_rate(df, x="n_samples", y="risk", by="alpha", level=0.95, complexity=None,
             dimension=None):
    """Fit ``log risk = a + slope * log n`` by OLS (statsmodels), per value of ``by``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`run_study` (each replication is one observation).
    x, y : str, default="n_samples", "risk"
    by : str, list of str or None, default="alpha"
        Column(s) to group by (those absent from ``df`` are ignored); None fits all rows
        together.
    level : float in (0, 1), default=0.95
        Confidence level of the slope's interval.
    complexity, dimension : see :func:`rate_normalized_risk`
        If given, the table also has the mean rate-normalized risk and ``bound_slope``, the
        log-log slope of ``c log(d n) / n`` between the smallest and largest ``n``.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``slope``, ``slope_low``, ``slope_high``, ``intercept``,
        ``r_squared``, ``n_fits`` (and ``normalized_risk``, ``bound_slope``).
    """
    import pandas as pd
    import statsmodels.api as sm

    from .base import check_scalar_in_range

    level = check_scalar_in_range("fit_rate", "level", level, 0.0, 1.0, low_open=True,
                                  high_open=True)
    for name, column in (("x", x), ("y", y)):
        if column not in df:
            raise bad_parameter("fit_rate", name, f"a column of df ({list(df.columns)})",
                                 column)
        values = df[column].to_numpy(dtype=float)
        if not np.all(np.isfinite(values) & (values > 0)):
            raise ValueError(f"fit_rate takes logs of column {column!r}, so it must be finite "
                             "and positive; drop or fix the rows that are not (e.g. "
                             f"df[df[{column!r}] > 0]).")
    if df[x].nunique() < 2:
        raise ValueError(f"fit_rate needs at least two values of {x!r} to fit a slope.")
    by = [] if by is None else [by] if isinstance(by, str) else list(by)
    by = [name for name in by if name in df]
    groups = df.groupby(by, sort=True) if by else [((), df)]
    normalized = None
    if complexity is not None:
        normalized = rate_normalized_risk(df, complexity, dimension, x, y)
    rows = []
    for value, part in groups:
        design = sm.add_constant(np.log(part[x].to_numpy(dtype=float)))
        fit = sm.OLS(np.log(part[y].to_numpy(dtype=float)), design).fit()
        low, high = fit.conf_int(alpha=1.0 - level)[1]
        row = dict(zip(by, value if isinstance(value, tuple) else (value,)))
        row.update({"slope": fit.params[1], "slope_low": low, "slope_high": high,
                    "intercept": fit.params[0], "r_squared": fit.rsquared,
                    "n_fits": len(part)})
        if normalized is not None:
            row["normalized_risk"] = float(normalized[part.index].mean())
            d = complexity if dimension is None else dimension
            d = part[d].iloc[0] if isinstance(d, str) else d
            row["bound_slope"] = bound_slope(part[x].min(), part[x].max(), d)
        rows.append(row)
    return pd.DataFrame(rows)


def bound_slope(n_low, n_high, dimension):
    """Log-log slope of the rate ``log(d n) / n`` between ``n_low`` and ``n_high``:
    ``-1 + (log log(d n_high) - log log(d n_low)) / (log n_high - log n_low)``, between
    ``-1`` and ``-1 + 1 / log(d n_low)``."""
    return -1.0 + (np.log(np.log(dimension * n_high)) - np.log(np.log(dimension * n_low))) / (
        np.log(n_high) - np.log(n_low))
