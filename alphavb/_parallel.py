"""Threads for the closed-form models' kernels, in one place for the mixture and LDA.

``thread_count`` turns scikit-learn's ``n_jobs`` into a thread count; ``pool`` keeps one
thread pool per count for the process (creating one per E-step costs more than a
mini-batch's E-step). Two ways to split a kernel's work make the results independent of the
thread count:

* :func:`in_ranges`: ``kernel(first, last)`` over consecutive ranges of items, each range
  writing only its own rows (LDA's document and word kernels);
* :func:`fixed_slots`: ``fill(slot)`` for a fixed number of slots, each an accumulator that
  one task fills in a fixed order (the mixture's row chunks: chunk ``c`` adds into slot
  ``c % n_slots``); the caller adds the slots in slot order.

:func:`one_blas_thread` runs BLAS on one thread for work made of many small matrix products
(the networks' Adam steps, the exact samplers' and the approximation check's kernels), where
BLAS's own threads only add synchronisation and make the result depend on the caller's
thread settings (a different count rounds the products differently).
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._validation import bad_parameter

# Four ranges per thread balance uneven items (LDA's documents differ in length).
RANGES_PER_THREAD = 4
# Fewer items than this per thread run in the calling thread: handing a few documents to a
# pool costs more than their E-step, and a process's first call would make every thread
# wait while one loads the cached kernel (0.27 s against 0.20 s for 50 documents).
MIN_ITEMS_PER_THREAD = 64

_POOLS = {}
_BLAS = []  # the threadpoolctl controller, made once (scanning the libraries costs 0.5 ms)


def one_blas_thread():
    """A context manager in which BLAS (numpy's and scipy's OpenBLAS or MKL) runs on one
    thread, whatever the caller set, and the caller's setting returns after it."""
    if not _BLAS:
        import scipy.linalg  # noqa: F401 (scipy's BLAS loaded, so that the controller sees it)
        from threadpoolctl import ThreadpoolController

        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


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


def pool(n_threads):
    """The process's thread pool of ``n_threads`` workers (made on first use)."""
    if n_threads not in _POOLS:
        _POOLS[n_threads] = ThreadPoolExecutor(max_workers=n_threads,
                                               thread_name_prefix="alphavb")
    return _POOLS[n_threads]


def in_ranges(kernel, n_items, n_threads):
    """``kernel(first, last)`` over consecutive ranges covering ``range(n_items)``, on
    ``n_threads`` threads (in this thread, as one range, when ``n_threads`` is 1 or there
    are fewer than ``MIN_ITEMS_PER_THREAD`` items per thread)."""
    if n_threads <= 1 or n_items < MIN_ITEMS_PER_THREAD * n_threads:
        kernel(0, n_items)
        return
    bounds = np.linspace(0, n_items, min(n_items, RANGES_PER_THREAD * n_threads) + 1)
    bounds = bounds.astype(np.int64)
    list(pool(n_threads).map(kernel, bounds[:-1], bounds[1:]))


def fixed_slots(fill, n_slots, n_threads):
    """``[fill(slot) for slot in range(n_slots)]``, the slots run on at most ``n_threads``
    threads (in this thread when that is 1)."""
    n_threads = min(n_threads, n_slots)
    if n_threads > 1:
        return list(pool(n_threads).map(fill, range(n_slots)))
    return [fill(slot) for slot in range(n_slots)]
