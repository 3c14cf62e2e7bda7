"""The thread count of a fit, from scikit-learn's ``n_jobs``."""

from ._validation import bad_parameter


def thread_count(n_jobs, owner):
    """Threads for ``n_jobs`` (joblib's convention): ``None`` is numba's current thread
    count, ``k > 0`` is ``min(k, available)``, ``-1`` all available, ``-k`` all but
    ``k - 1``; ``available`` is ``NUMBA_NUM_THREADS`` (the cores, unless that variable is set).
    """
    import numba  # loaded on the first fit, not on `import alphavb`

    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        return numba.get_num_threads()
    if n_jobs == 0:
        raise bad_parameter(owner, "n_jobs", "None or a non-zero int", n_jobs,
                            "Use -1 for every core, or a positive count.")
    count = n_jobs if n_jobs > 0 else available + 1 + n_jobs
    return min(max(count, 1), available)
