"""The numba thread count of a fit, from scikit-learn's ``n_jobs``."""

from contextlib import contextmanager

import numba

from ._validation import bad_parameter


def thread_count(n_jobs, owner):
    """Threads for ``n_jobs`` (joblib's convention): ``None`` keeps numba's current count,
    ``k > 0`` uses ``min(k, available)``, ``-1`` all available, ``-k`` all but ``k - 1``."""
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        return numba.get_num_threads()
    if n_jobs == 0:
        raise bad_parameter(owner, "n_jobs", "None or a non-zero int", n_jobs,
                            "Use -1 for every core, or a positive count.")
    count = n_jobs if n_jobs > 0 else available + 1 + n_jobs
    return min(max(count, 1), available)


@contextmanager
def numba_threads(n_jobs, owner):
    """Run the enclosed numba kernels on :func:`thread_count` threads (numba's setting is
    per calling thread; the previous count is restored on exit)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(thread_count(n_jobs, owner))
    try:
        yield
    finally:
        numba.set_num_threads(previous)
