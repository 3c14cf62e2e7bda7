import contextlib
import os
import shutil
import tempfile

import numpy as np
import pytest

# the BLAS libraries' thread counts: one thread per xdist worker
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def pytest_configure(config):
    """One BLAS thread in each xdist worker when the tests run in several (set before the
    workers start, which read it when they load numpy): with two workers on two cores, each
    worker's OpenBLAS kept two threads spinning for work and the same tests took a third more
    CPU time (tests/mixture, linear_model, topics, the estimator checks and model selection:
    151-155 against 110-116 CPU s). A count the caller set is kept.

    One JAX compilation cache for the whole run (both xdist workers inherit it): NUTS's
    programs are compiled once and loaded by every later chain and test whose program is the
    same. Without it XLA compiles each chain's and each test's programs again, which was 40 of
    the 150 CPU seconds of tests/exact/test_exact_nuts.py. A loaded program is the compiled one, so
    the draws are unchanged; a cache the caller set (JAX_COMPILATION_CACHE_DIR) is kept."""
    workers = getattr(config.option, "numprocesses", None)  # xdist's -n, resolved to a count
    if isinstance(workers, int) and workers > 1:
        for name in BLAS_THREADS:
            os.environ.setdefault(name, "1")
    if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
        config.alphavb_jax_cache = tempfile.mkdtemp(prefix="alphavb-jax-")
        os.environ["JAX_COMPILATION_CACHE_DIR"] = config.alphavb_jax_cache
        os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
        os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"


def pytest_collection_modifyitems(config, items):
    """The tests marked ``slow`` (``slow(seconds)``: about that long on a new install, from
    ``benchmarks/suite_time.py``) run first, the longest first: a long test collected last
    would keep one xdist worker busy after the other had finished (the reproduce tests sit
    at the end of the alphabet); at the front, the other worker steals the rest of the queue
    (``--dist worksteal`` in pyproject.toml), and the kernels they compile (the exact
    samplers) are in numba's disk cache early. The tests marked ``fresh_interpreter`` (the
    README's and the guide's blocks, 2-30 s each) run last: their interpreters import the
    same copy of alphavb as the workers (``block_environment`` in tests/test_readme.py) and
    then load its kernels from the disk cache the other tests filled (on a new install)."""
    def place(item):
        if item.get_closest_marker("fresh_interpreter") is not None:
            return 2, 0
        slow = item.get_closest_marker("slow")
        if slow is None:
            return 1, 0
        return 0, -(slow.args[0] if slow.args else 0)

    items.sort(key=place)


def pytest_unconfigure(config):
    """The run's JAX cache goes with the process that made it."""
    folder = getattr(config, "alphavb_jax_cache", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def needs_plink_data():
    """Skip the calling test unless GEMMA's mouse_hs1940 PLINK files are in the data home."""
    from alphavb.datasets import get_data_home

    if not (get_data_home() / "plink" / "mouse_hs1940.bed").exists():
        pytest.skip("the PLINK data are not in the data home (set ALPHAVB_DATA)")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def assert_monotone(history, rel=1e-10):
    """The objective after each sweep never decreases (to a relative rounding tolerance)."""
    history = np.asarray(history)
    assert np.all(np.isfinite(history))
    drops = history[:-1] - history[1:]
    assert np.all(drops <= rel * np.abs(history[1:])), f"largest drop {drops.max()}"


def assert_draws_rescaled(model, scaled, scale):
    """``model`` (standardized columns) and ``scaled`` (a raw fit on ``X / scale``) draw the
    same posterior: coefficients rescaled by ``scale``, intercepts equal."""
    draws = model.sample_posterior(5, random_state=0)
    scaled_draws = scaled.sample_posterior(5, random_state=0)
    np.testing.assert_allclose(draws["coef"] * scale, scaled_draws["coef"], rtol=1e-8,
                               atol=1e-12)
    np.testing.assert_allclose(draws["intercept"], scaled_draws["intercept"], rtol=1e-8)


def run_with_two_numba_threads(code):
    """Run ``code`` in a fresh interpreter whose numba pool has 2 threads (whatever the
    machine's core count), so a thread-invariance check cannot pass vacuously on 1 thread.
    ``code`` must print "ok" when its checks pass."""
    import os
    import subprocess
    import sys
    import textwrap

    environment = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    preamble = "import numba\nassert numba.config.NUMBA_NUM_THREADS == 2\n"
    result = subprocess.run([sys.executable, "-c", preamble + textwrap.dedent(code)],
                            capture_output=True, text=True, env=environment, timeout=300,
                            check=False)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr


@contextlib.contextmanager
def recording_pools():
    """Within it, ``alphavb._parallel.pool`` records the thread count of every pool it hands
    out, in the list it yields (a thread-count test's check that ``n_jobs`` is obeyed)."""
    from unittest import mock

    from alphavb import _parallel

    real_pool, pools = _parallel.pool, []

    def recording_pool(n_threads):
        pools.append(n_threads)
        return real_pool(n_threads)

    with mock.patch.object(_parallel, "pool", recording_pool):
        yield pools


@pytest.fixture(scope="module")
def dask_client():
    """A dask.distributed LocalCluster of 2 worker processes (one thread each) for the tests
    of one module (closed after it, so later tests get dask's default scheduler again)."""
    import warnings

    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's port and resource notices
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           dashboard_address=":0", processes=True)
        with distributed.Client(cluster) as client:
            yield client
        cluster.close()
