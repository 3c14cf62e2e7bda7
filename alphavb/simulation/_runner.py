"""Running a study: the cells of grid x replications, their seeds, failures, the cache,
shards of an array job, and one cell replayed.

A *cell* is one grid point and replication: simulate, fit (best of ``n_init`` starts),
score (risk, error, per-parameter estimates). Its record is one JSON object: the per-fit
row plus the estimates, stored in the :mod:`alphavb.cache` result cache under a content
hash of everything that determines it, whether the fit succeeded or failed.
"""

import itertools
import os
import warnings
from contextlib import nullcontext
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._approximation import check_mode, in_check_mode
from .._validation import (
    Integer,
    Options,
    Real,
    bad_parameter,
    caller_stacklevel,
    check_estimator_instance,
    validate_params,
)
from ..cache import ResultCache, cache_key
from ._cells import (
    FAILED,
    _blank_record,
    _fit_one,
    _native,
    _record_check,
    _run_cell,
    _split_grid,
    _Study,
)
from ._problems import ESTIMATE_FIELDS, PROBLEMS, Problem
from ._provenance import code_fingerprint, study_manifest, write_manifest

LOKY_IDLE_SECONDS = 10
RESULT_COLUMNS = ("replication", "risk", "error", "fit_seconds", "n_iter", "converged",
                  "status", "message", "warnings")
ESTIMATE_COLUMNS = ("replication", "parameter", *ESTIMATE_FIELDS, "status")
# the statuses of a row: a fit that ran (ok), raised or gave a non-finite risk or error
# (FAILED, module _cells); a cell not run after max_errors consecutive failures (skipped) or
# absent from the cache when collected (missing)
ON_ERROR = ("record", "raise")
DEFAULT_MAX_ERRORS = 50


# the declared constraints of the study's public functions (alphavb._validation)
_STUDY_CONSTRAINTS = {"n_replications": [Integer(1, None)], "n_draws": [Integer(1, None)],
                      "n_init": [Integer(1, None)], "level": [Real(0.0, 1.0, closed="neither")],
                      "max_errors": [None, Integer(1, None)], "random_state": [Integer(0, None)]}
_STUDY_HINTS = {"random_state": "The seed of the study (numpy's SeedSequence takes integers "
                                ">= 0): a fixed seed makes the study reproducible and its "
                                "cache reusable."}


# ----------------------------------------------------------------------- the whole study


def _resolve_problem(owner, problem):
    if isinstance(problem, str):
        if problem not in PROBLEMS:
            raise bad_parameter(owner, "problem", f"a Problem or one of {sorted(PROBLEMS)}",
                                problem)
        return PROBLEMS[problem]()
    if not isinstance(problem, Problem):
        raise bad_parameter(owner, "problem", "a Problem or the name of one",
                            type(problem).__name__)
    return problem


def _check_shard(shard):
    """``(k, K)`` with ``0 <= k < K``; None reads Slurm's array variables (else (0, 1))."""
    if shard is None:
        task, count = os.environ.get("SLURM_ARRAY_TASK_ID"), os.environ.get(
            "SLURM_ARRAY_TASK_COUNT")
        if task is None or count is None:
            return 0, 1
        first = int(os.environ.get("SLURM_ARRAY_TASK_MIN", "0"))
        shard = (int(task) - first, int(count))
        source = (f" (from SLURM_ARRAY_TASK_ID={task}, SLURM_ARRAY_TASK_MIN={first}, "
                  f"SLURM_ARRAY_TASK_COUNT={count}; run the array as --array=0-{count}"
                  f" with contiguous task ids)")
    else:
        source = ""
    if (not isinstance(shard, (tuple, list)) or len(shard) != 2
            or any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                   for v in shard) or not 0 <= shard[0] < shard[1]):
        raise bad_parameter("run_study", "shard", "a pair (k, K) of ints with 0 <= k < K",
                            shard, f"Shard k of K runs every K-th cell.{source}")
    return int(shard[0]), int(shard[1])


_ELSEWHERE = object()  # a cell of another shard: it neither fails nor ends a run


def _point_records(records, point_index, n_replications):
    """The records of one grid point in replication order (``records`` maps job indices,
    which are laid out point by point, ``n_replications`` each; a cell outside ``records``,
    another shard's, is ``_ELSEWHERE``)."""
    start = point_index * n_replications
    return [records.get(i, _ELSEWHERE) for i in range(start, start + n_replications)]


def _first_stop(records, max_errors):
    """``(first, last)``: the replications of the first run of ``max_errors`` consecutive
    failures (None if there is no such run). ``records`` is the point's list in replication
    order; an unknown record (None) ends a run; another shard's cell is skipped, so that a
    shard stops on its own consecutive failures (every K-th replication)."""
    if max_errors is None:
        return None
    run, first = 0, None
    for replication, record in enumerate(records):
        if record is _ELSEWHERE:
            continue
        if record is not None and record["status"] in FAILED:
            run, first = run + 1, first if run else replication
        else:
            run = 0
        if run >= max_errors:
            return first, replication
    return None


class _CheckedStudy(NamedTuple):
    """A study's arguments checked: the study, its grid's names, points and cells, the cache
    key every row shares, the arguments its manifest records, and ``max_errors``."""

    study: object
    names: list
    points: list
    jobs: list
    base_key: dict
    arguments: dict
    max_errors: int | None


def _check_study(owner, problem, estimator, grid, n_replications, random_state, n_draws,
                 n_init, level, on_error, max_errors):
    """The :class:`_CheckedStudy` of the arguments of :func:`run_study` (or
    :func:`collect_study`, :func:`study_cell`), each checked."""
    problem = _resolve_problem(owner, problem)
    check_estimator_instance(owner, estimator, f"{owner}(problem, AlphaLinearRegression(), "
                             "grid)")
    # checked by the callers' declared constraints (_STUDY_CONSTRAINTS); the plain types
    # go into the cache key
    n_replications, n_draws, n_init = int(n_replications), int(n_draws), int(n_init)
    level = float(level)
    if max_errors is not None:
        max_errors = int(max_errors)
    routes = _split_grid(owner, grid, estimator, problem)
    study = _Study(problem, estimator, routes, int(random_state), n_draws, n_init, level,
                   on_error)
    names = list(grid)
    points = [dict(zip(names, map(_native, values), strict=True))
              for values in itertools.product(*grid.values())]
    jobs = [(p, point, r) for p, point in enumerate(points) for r in range(n_replications)]
    from .. import __version__

    base_key = {"problem": problem.name, "settings": problem.settings,
                "source": code_fingerprint(problem), "alphavb": __version__,
                "estimator": estimator, "seed": int(random_state), "n_draws": n_draws,
                "n_init": n_init, "level": level}
    arguments = {"grid": grid, "estimator": estimator, "n_replications": n_replications,
                 "random_state": int(random_state), "n_draws": n_draws, "n_init": n_init,
                 "level": level, "on_error": on_error, "max_errors": max_errors}
    return _CheckedStudy(study, names, points, jobs, base_key, arguments, max_errors)


def _key(base_key, point, replication):
    return cache_key({**base_key, "point": point, "replication": replication})


def _load(cache, base_key, jobs, indices, on_error):
    records = {}
    for index in indices:
        _, point, r = jobs[index]
        record = cache.load(_key(base_key, point, r), validate=_record_check(point, r))
        if record is not None and on_error == "raise" and record["status"] in FAILED:
            raise RuntimeError(f"run_study: the cached fit at {point}, replication {r} failed "
                               f"({record['status']}: {record['message']}); on_error='raise' "
                               "stops at it. Fix the cause and change what the key holds (a "
                               "setting, the problem's code, alphavb's version), delete the "
                               f"row ({cache.path(_key(base_key, point, r))}), or use "
                               "on_error='record'.")
        records[index] = record
    return records


def _execute(study, jobs, records, pending, cache, base_key, max_errors, n_jobs, backend,
             progress):
    """Fit the ``pending`` job indices in waves of ``max_errors`` replications per grid point
    (one wave without ``max_errors``), dropping the rest of a point once it has failed
    ``max_errors`` times in a row."""
    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    mode = check_mode()
    by_point = {}
    for index in pending:
        by_point.setdefault(jobs[index][0], []).append(index)
    n_replications = max(r for _, _, r in jobs) + 1
    width = n_replications if max_errors is None else max_errors
    # parallel_config (unlike Parallel's backend argument) registers joblib's dask backend;
    # loky workers do not watch their parent: after a kill -9 of this process they would
    # idle for loky's default 300 s; with a 10 s idle timeout they exit soon after their fit
    config = (parallel_config(backend=backend) if backend is not None
              else parallel_config(backend="loky", idle_worker_timeout=LOKY_IDLE_SECONDS)
              if n_jobs != 1 else nullcontext())
    bar = tqdm(total=len(pending), disable=not (progress and pending),
               desc=f"{study.problem.name} study")
    with config, Parallel(n_jobs=n_jobs, return_as="generator") as parallel:
        for wave in range(0, n_replications, width):
            batch = []
            for p, indices in by_point.items():
                if _first_stop(_point_records(records, p, n_replications),
                               max_errors) is not None:
                    continue
                batch += [i for i in indices if wave <= jobs[i][2] < wave + width]
            if not batch:
                continue
            # the caller's approximation_checks mode, which a worker would not inherit
            tasks = (delayed(in_check_mode)(mode, _fit_one, study, jobs[i][1], jobs[i][2],
                                            None if cache is None
                                            else (cache, _key(base_key, jobs[i][1],
                                                              jobs[i][2])))
                     for i in batch)
            # the results first: zip then exhausts the generator (joblib does not warn
            # about cancelled tasks)
            for record, index in zip(parallel(tasks), batch, strict=True):
                records[index] = record
                bar.update()
    bar.close()


def _assemble(names, points, jobs, indices, records, max_errors, n_replications):
    """The per-fit frame and the long estimates frame of the job ``indices``; records of a
    point after its first ``max_errors`` consecutive failures are marked skipped."""
    import pandas as pd

    final = {}
    for p, point in enumerate(points):
        point_records = _point_records(records, p, n_replications)
        stop = _first_stop(point_records, max_errors)
        for r, record in enumerate(point_records):
            index = p * n_replications + r
            if index not in records:
                continue
            if stop is not None and r > stop[1]:
                record = _blank_record(point, r, "skipped",
                                       f"not run: replications {stop[0]} to {stop[1]} failed "
                                       f"in a row (max_errors={max_errors})")
            elif record is None:
                record = _blank_record(point, r, "missing", "not in cache_dir")
            final[index] = record
    rows = [{k: v for k, v in final[i].items() if k != "estimates"} for i in indices]
    fits = pd.DataFrame(rows, columns=[*names, *RESULT_COLUMNS])
    for column in ("risk", "error", "fit_seconds"):
        fits[column] = fits[column].astype(float)
    # a fit without estimates (failed, skipped, missing) still has its rows, with NaN, for
    # the parameters its grid point's successful fits have (another point's where none
    # succeeded; one row of no parameter where no fit did), so that summaries count it
    point_names = {}
    for i in indices:
        estimates = final[i]["estimates"]
        if estimates is not None:
            point_names.setdefault(jobs[i][0], estimates["parameter"])
    any_names = next(iter(point_names.values()), [None])
    long_rows = []
    for i in indices:
        record, (p, point, r) = final[i], jobs[i]
        estimates = record["estimates"]
        keys = {**point, "replication": r}
        if estimates is None:
            long_rows += [{**keys, "parameter": name, "status": record["status"]}
                          for name in point_names.get(p, any_names)]
            continue
        for j, name in enumerate(estimates["parameter"]):
            long_rows.append({**keys, "parameter": name,
                              **{f: estimates[f][j] for f in ESTIMATE_FIELDS},
                              "status": record["status"]})
    long = pd.DataFrame(long_rows, columns=[*names, *ESTIMATE_COLUMNS])
    for column in ESTIMATE_FIELDS:
        long[column] = long[column].astype(float)
    return fits, long


def _frames(owner, checked, cache_dir, shard, fit, n_jobs=1, backend=None, progress=False):
    """The work of :func:`run_study` (``fit=True``) and :func:`collect_study` on the
    :class:`_CheckedStudy` ``checked``."""
    study, names, points, jobs, base_key, arguments, max_errors = checked
    n_replications, random_state = arguments["n_replications"], arguments["random_state"]
    on_error = arguments["on_error"]
    k, n_shards = _check_shard(shard) if fit else (0, 1)
    cache = None if cache_dir is None else ResultCache(cache_dir)
    if cache is None and n_shards > 1:
        raise bad_parameter(owner, "cache_dir", "a folder shared by the shards", None,
                            f"Shard {k} of {n_shards} keeps its rows only in cache_dir; "
                            "collect_study(cache_dir, ...) assembles them.")
    if cache is not None and fit:
        cache.check_writable("cache_dir")
    mine = [i for i in range(len(jobs)) if i % n_shards == k]
    records = {} if cache is None else _load(cache, base_key, jobs, mine, on_error)
    pending = [i for i in mine if records.get(i) is None] if fit else []
    if pending:
        _execute(study, jobs, records, pending, cache, base_key, max_errors, n_jobs, backend,
                 progress)
    records = {i: records.get(i) for i in mine}
    fits, long = _assemble(names, points, jobs, mine, records, max_errors, n_replications)
    manifest = study_manifest(study.problem, {**arguments, "shard": [k, n_shards]},
                              base_key["source"])
    if cache is not None and pending:  # it describes the run that fitted rows
        write_manifest(cache.folder, manifest)
    for frame in (fits, long):
        frame.attrs.update({"problem": study.problem.name,
                            "settings": dict(study.problem.settings),
                            "random_state": int(random_state), "manifest": manifest})
    return fits, long


@validate_params({**_STUDY_CONSTRAINTS, "on_error": [Options(*ON_ERROR)]}, _STUDY_HINTS)
def run_study(problem, estimator, grid, n_replications=10, random_state=0, n_jobs=1,
              backend=None, cache_dir=None, n_draws=200, n_init=1, progress=True, *,
              level=0.95, on_error="record", max_errors=DEFAULT_MAX_ERRORS, shard=None,
              return_estimates=False):
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
        ``dask.distributed.Client`` the caller has created (needs ``distributed``). Each
        row's ``warnings`` are its own cell's in threads too (threading, a dask worker's
        threads), alphavb's fits included; a fit of your own that silences warnings with
        ``warnings.catch_warnings`` changes the filters of the whole process (Python before
        3.14), so other threads' rows may miss theirs: use processes for such fits.
    cache_dir : str, Path or None, default=None
        Folder of cached rows; rows already there are read instead of refitted. A
        ``manifest.json`` there describes the last run that fitted rows (see Returns).
    n_draws : int, default=200
        Draws from ``q`` for the risk.
    n_init : int, default=1
        Fits per data set, from independent seeds; the one with the largest ``elbo_`` is
        kept (for estimators without their own restarts, e.g. ``AlphaLDA``).
    progress : bool, default=True
        Show a tqdm progress bar of the fits.
    level : float in (0, 1), default=0.95
        Mass of the credible intervals of the problem's ``estimates``.
    on_error : {"record", "raise"}, default="record"
        ``"record"``: a fit that raises, or whose risk or error is not finite, becomes a row
        with ``status`` ``"error"`` or ``"non-finite"`` and the ``message`` (cached like
        any row: its seeds are fixed, so it would fail again); ``"raise"``: the exception
        (``FloatingPointError`` for a non-finite result) stops the study.
    max_errors : int or None, default=50
        A grid point stops after this many consecutive failed replications; its later
        replications are rows with ``status="skipped"``. Failed replications are never
        redrawn (that would bias coverage). None: never stop.
    shard : (int, int) or None, default=None
        ``(k, K)``: run only the k-th of K disjoint parts of the grid x replications (every
        K-th cell, so each part has about the same number of fits at every grid point),
        into a ``cache_dir`` the parts share; :func:`collect_study` assembles them. None:
        ``(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT)`` inside a
        Slurm array job, else the whole study. With K > 1, ``max_errors`` counts only the
        failures a part can see; :func:`collect_study` applies it to the whole.
    return_estimates : bool, default=False
        Also return the long frame of per-parameter estimates.

    Returns
    -------
    fits : pandas.DataFrame
        One row per fit, in grid order then replication: the grid values, ``replication``,
        ``risk`` (variational Bayes risk), ``error`` (of the point estimate), ``fit_seconds``
        (all ``n_init`` fits), ``n_iter`` and ``converged`` (of the kept fit; None for an
        estimator without ``n_iter_`` or ``converged_``), ``status`` (``"ok"``, ``"error"``,
        ``"non-finite"``, ``"skipped"``), ``message`` (why it failed) and ``warnings`` (the
        text of every warning raised while simulating, fitting and scoring it,
        ``ConvergenceWarning`` included, one per line). ``fits.attrs["manifest"]`` records
        the versions of Python, numpy, scipy, numba, scikit-learn, pandas and alphavb, the
        platform, thread counts (numba, BLAS, the environment), the problem's functions
        with SHA-256 of their source, and the study's arguments.
    estimates : pandas.DataFrame
        With ``return_estimates=True``: one row per fit and parameter, the grid values,
        ``replication``, ``parameter``, ``estimate`` (posterior mean), ``se`` (posterior
        sd), ``lower``, ``upper`` (the estimator's credible interval at ``level``),
        ``true`` and the fit's ``status`` (NaN values for fits that did not succeed), the
        input of :func:`summarise_study`.

    Notes
    -----
    The cache key of a row holds, besides every argument that determines it, alphavb's
    version and a SHA-256 of the code of the problem's ``simulate``, ``risk``, ``error``
    and ``estimates`` (their bytecode, constants and defaults; not of the functions they
    call), so editing those functions or upgrading alphavb (or Python) invalidates the
    rows.

    Examples
    --------
    >>> from alphavb import AlphaLinearRegression
    >>> from alphavb.simulation import run_study, fit_rate
    >>> df = run_study("linear_regression", AlphaLinearRegression(),
    ...                {"n_samples": [100, 400, 1600], "alpha": [0.5, 1.0]},
    ...                n_replications=3, progress=False)
    >>> df.shape
    (18, 11)
    >>> rates = fit_rate(df, complexity=5)
    >>> bool(rates["slope"].between(-1.3, -0.7).all())
    True
    """
    checked = _check_study("run_study", problem, estimator, grid, n_replications, random_state,
                           n_draws, n_init, level, on_error, max_errors)
    fits, long = _frames("run_study", checked, cache_dir, shard, fit=True, n_jobs=n_jobs,
                         backend=backend, progress=progress)
    return (fits, long) if return_estimates else fits


@validate_params(_STUDY_CONSTRAINTS, _STUDY_HINTS)
def collect_study(cache_dir, problem, estimator, grid, n_replications=10, random_state=0,
                  n_draws=200, n_init=1, *, level=0.95, max_errors=DEFAULT_MAX_ERRORS,
                  return_estimates=False):
    """Assemble a study from the rows its shards wrote to ``cache_dir``, fitting nothing.

    Takes the arguments the shards were run with (those that determine the rows; see
    :func:`run_study`). A cell whose row is not in ``cache_dir`` is a row with ``status``
    ``"missing"``; a ``UserWarning`` says how many are missing and how many failed, and
    ``fits.attrs["missing"]`` lists the missing cells (grid values and replication).
    Re-running :func:`run_study` without ``shard`` fits the missing cells instead.

    Returns
    -------
    fits or (fits, estimates) : pandas.DataFrame
        As :func:`run_study` returns them.
    """
    if cache_dir is None or os.path.isfile(cache_dir):
        raise bad_parameter("collect_study", "cache_dir", "the folder the shards wrote to",
                            cache_dir, "" if cache_dir is None else "It is a file.")
    checked = _check_study("collect_study", problem, estimator, grid, n_replications,
                           random_state, n_draws, n_init, level, "record", max_errors)
    fits, long = _frames("collect_study", checked, cache_dir, None, fit=False)
    missing = fits[fits["status"] == "missing"]
    failed = int(fits["status"].isin(FAILED).sum())
    fits.attrs["missing"] = missing.drop(columns=list(RESULT_COLUMNS[1:])).to_dict("records")
    if len(missing) or failed:
        first = ", ".join(str(cell) for cell in fits.attrs["missing"][:3])
        # a failed row is cached as any row: a rerun reads it again; fixing the cause
        # (a setting, the problem's code, alphavb's version) changes its key
        advice = []
        if len(missing):
            advice.append(f"run the missing shards, or run_study without shard to fit them "
                          f"({len(missing)} of {len(fits)} missing from {cache_dir}: "
                          f"{first}{', ...' if len(missing) > 3 else ''})")
        if failed:
            advice.append(f"{failed} failed (status 'error' or 'non-finite'; their messages "
                          "are in the rows, and a rerun reads them from the cache again)")
        warnings.warn(f"collect_study: {'; '.join(advice)}.", UserWarning,
                      stacklevel=caller_stacklevel())
    return (fits, long) if return_estimates else fits


@dataclass(frozen=True)
class StudyCell:
    """One cell of a study, replayed: ``seeds`` (``"data"``, ``"fit"``, ``"risk"``), the
    data ``X``, ``y`` and ``truth`` exactly as :func:`run_study` simulated them, the kept
    fitted ``model``, the study's ``row`` of it and its ``estimates`` rows."""

    seeds: dict
    X: object
    y: object
    truth: dict
    model: object
    row: dict
    estimates: object


@validate_params({"replication": [Integer(0, None)],
                  **{name: _STUDY_CONSTRAINTS[name]
                     for name in ("n_draws", "n_init", "level", "random_state")}}, _STUDY_HINTS)
def study_cell(problem, estimator, point, replication, random_state=0, n_draws=200, n_init=1,
               *, level=0.95):
    """Replay one cell of a study (batchtools' ``testJob``, SimDesign's ``load_seed``).

    Parameters
    ----------
    problem, estimator, random_state, n_draws, n_init, level
        As passed to :func:`run_study`.
    point : dict
        The cell's grid values, e.g. ``{"n_samples": 200, "alpha": 0.5}`` (one value per
        grid name of the study).
    replication : int

    Returns
    -------
    StudyCell
        Its ``row`` equals the study's row of this cell (``fit_seconds`` aside); a fit that
        raises raises here, so it can be debugged.
    """
    if not isinstance(point, dict) or "n_samples" not in point:
        raise bad_parameter("study_cell", "point", "a dict of grid values with 'n_samples'",
                            point, "E.g. point={'n_samples': 200, 'alpha': 0.5}.")
    grid = {name: [value] for name, value in point.items()}
    study, names, points, jobs, *_ = _check_study(
        "study_cell", problem, estimator, grid, int(replication) + 1, random_state, n_draws,
        n_init, level, "raise", None)
    record, model, (X, y, truth), seeds = _run_cell(study, points[0], int(replication))
    index = len(jobs) - 1
    _, long = _assemble(names, points, jobs, [index], {index: record}, None,
                        int(replication) + 1)
    return StudyCell(seeds, X, y, truth, model,
                     {k: v for k, v in record.items() if k != "estimates"}, long)
