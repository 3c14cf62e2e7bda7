"""One cell of a study (:mod:`alphavb.simulation._runner`): its seeds and grid point, the
simulated data, the fit (best of ``n_init`` starts), its scores and the JSON record the
cache keeps, whether the fit succeeded or failed.
"""

import inspect
import os
import time
import traceback
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from .._validation import Integer, bad_parameter, check_parameter
from .._warnings import RECORDED as _RECORDED
from ..cache import finite_number, non_negative_number, require
from ._problems import ESTIMATE_FIELDS, Problem, check_estimates

# the statuses of a failed fit: it raised (error) or gave a non-finite risk or error
FAILED = ("error", "non-finite")


# ------------------------------------------------------------------------ seeds and grid


def _stable_words(value):
    """Four 32-bit words of a SHA-256 of ``value``'s JSON (stable across runs)."""
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).digest()
    return tuple(int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(4))


def _seeds(entropy, replication, data_params):
    """Integer seeds of the data, the estimator and the risk draws of one fit."""
    sequence = np.random.SeedSequence(entropy, spawn_key=(replication,
                                                          *_stable_words(data_params)))
    return [int(child.generate_state(1)[0]) for child in sequence.spawn(3)]


def _split_grid(owner, grid, estimator, problem):
    """Check ``grid`` and route each name to the estimator or to the problem."""
    if not isinstance(grid, dict) or "n_samples" not in grid:
        raise bad_parameter(owner, "grid", "a dict of lists with an 'n_samples' entry",
                            grid, "E.g. grid={'n_samples': [100, 200, 400], "
                            "'alpha': [0.5, 1.0]}.")
    estimator_params = estimator.get_params(deep=False)
    simulate_params = set(inspect.signature(problem.simulate).parameters) | set(
        problem.settings)
    routes = {}
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not len(values):
            raise bad_parameter(owner, "grid", f"a non-empty list of values for '{name}'",
                                values)
        if name == "n_samples" or (name in simulate_params and name not in estimator_params):
            routes[name] = "data"
        elif name in estimator_params:
            routes[name] = "estimator"
        else:
            raise bad_parameter(owner, "grid", "names of estimator parameters, problem "
                                f"settings ({sorted(problem.settings)}) or 'n_samples'",
                                name)
    for n in grid["n_samples"]:
        check_parameter(owner, "grid['n_samples']", n, [Integer(1, None)])
    return routes


def _native(value):
    """A grid value in Python's own types: numpy scalars as Python numbers (np.int64(3) drew
    other seeds than 3 under the same cache key), arrays and tuples as lists of them, so
    that a value's seeds, cache key and cached row are those of its JSON form."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_native(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


def _json_floats(values):
    """Floats for JSON: a non-finite value becomes None (NaN in the frame)."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=float)]


# ---------------------------------------------------------------------------- one cell


def _objective(model):
    """The fitted objective: ``elbo_`` of the estimator or of its ``vb_``."""
    value = getattr(model, "elbo_", None)
    if value is None:
        value = getattr(getattr(model, "vb_", None), "elbo_", None)
    if value is None:
        raise ValueError(f"run_study's n_init > 1 keeps the fit with the largest elbo_, but "
                         f"{type(model).__name__} has none; use n_init=1.")
    return value


@dataclass(frozen=True)
class _Study:
    """Everything that determines the cells of one study (picklable to the workers)."""

    problem: Problem
    estimator: object
    routes: dict
    entropy: int
    n_draws: int
    n_init: int
    level: float
    on_error: str

    def seeds(self, point, replication):
        data_params = {k: v for k, v in point.items() if self.routes[k] == "data"}
        return data_params, _seeds(self.entropy, replication, data_params)


def _warning_text(caught):
    return "\n".join(f"{w.category.__name__}: {w.message}" for w in caught)


def _run_cell(study, point, replication):
    """Simulate, fit and score one cell. Returns ``(record, model, data, seeds)``; the record
    is the cached JSON object (the row plus ``"estimates"``)."""
    problem = study.problem
    data_params, (data_seed, fit_seed, risk_seed) = study.seeds(point, replication)
    record = _blank_record(point, replication, "ok")
    model, data = None, None
    with _RECORDED as caught:
        try:
            settings = {**problem.settings,
                        **{k: v for k, v in data_params.items() if k != "n_samples"}}
            X, y, truth = problem.simulate(point["n_samples"], data_seed, **settings)
            data = (X, y, truth)
            params = {k: v for k, v in point.items() if study.routes[k] == "estimator"}
            has_seed = "random_state" in study.estimator.get_params(deep=False)
            start = time.perf_counter()
            for start_index in range(study.n_init):
                candidate = clone(study.estimator).set_params(**params)
                if has_seed:
                    candidate.set_params(random_state=(fit_seed + start_index) % 2**32)
                candidate.fit(X) if y is None else candidate.fit(X, y)
                if model is None or _objective(candidate) > _objective(model):
                    model = candidate
            record["fit_seconds"] = time.perf_counter() - start
            n_iter = getattr(model, "n_iter_", None)
            converged = getattr(getattr(model, "vb_", model), "converged_", None)
            record["n_iter"] = None if n_iter is None else int(n_iter)
            record["converged"] = None if converged is None else bool(converged)
            risk = float(problem.risk(model, X, truth, study.n_draws, risk_seed))
            error = float(problem.error(model, truth))
            record["risk"], record["error"] = _json_floats([risk, error])
            if problem.estimates is not None:
                names, arrays = check_estimates(problem,
                                                problem.estimates(model, truth, study.level))
                record["estimates"] = {"parameter": names,
                                       **{k: _json_floats(v) for k, v in arrays.items()}}
            if risk < 0 or error < 0:  # a divergence and a distance: a bug in the problem
                raise ValueError(f"the problem's risk ({risk}) or error ({error}) is "
                                 "negative; both must be >= 0 (a divergence and a distance)")
            if not (np.isfinite(risk) and np.isfinite(error)):
                if study.on_error == "raise":
                    raise FloatingPointError(
                        f"run_study: the fit at {point}, replication {replication} gave risk "
                        f"{risk} and error {error}; a study row must be finite (check the "
                        "estimator's settings at this point).")
                record["status"] = "non-finite"
                record["message"] = f"risk {risk}, error {error}"
        except Exception as failure:
            if study.on_error == "raise":
                raise
            record["status"] = "error"
            where = traceback.extract_tb(failure.__traceback__)[-1]
            record["message"] = (f"{type(failure).__name__}: {failure} (at {where.name}, "
                                 f"{os.path.basename(where.filename)}:{where.lineno})")
    record["warnings"] = _warning_text(caught)
    return record, model, data, {"data": data_seed, "fit": fit_seed, "risk": risk_seed}


def _fit_one(study, point, replication, store):
    """A worker's task: run the cell and write its record to the cache (atomically, as soon
    as it exists: a killed run leaves no half-written row)."""
    record = _run_cell(study, point, replication)[0]
    if store is not None:
        cache, key = store
        cache.store(key, record)
    return record


def _optional(check):
    return lambda value: value is None or check(value)


def _record_check(point, replication):
    """The validation of a cached record of ``point`` and ``replication``."""
    def estimates_ok(value):
        if value is None:
            return True
        return (isinstance(value, dict) and set(value) == {"parameter", *ESTIMATE_FIELDS}
                and len({len(v) for v in value.values()}) == 1
                and all(v is None or finite_number(v)
                        for name in ESTIMATE_FIELDS for v in value[name]))

    checks = {**dict(point.items()),
              "replication": replication, "status": lambda v: v in ("ok", *FAILED),
              "risk": _optional(non_negative_number), "error": _optional(non_negative_number),
              "fit_seconds": _optional(non_negative_number),
              "n_iter": lambda v: v is None or (isinstance(v, int) and v >= 0),
              "converged": lambda v: v is None or isinstance(v, bool),
              "message": lambda v: isinstance(v, str), "warnings": lambda v: isinstance(v, str),
              "estimates": estimates_ok}

    def check(record):
        require(record, checks)
        if record["status"] == "ok" and (record["risk"] is None or record["error"] is None):
            raise ValueError("it is marked ok without a risk and an error")

    return check


def _blank_record(point, replication, status, message=""):
    """A cell's record before (or without) a fit: the grid values, no results."""
    return {**point, "replication": replication,
            "risk": None, "error": None, "fit_seconds": None, "n_iter": None,
            "converged": None, "status": status, "message": message, "warnings": "",
            "estimates": None}
