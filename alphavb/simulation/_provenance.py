"""What a study's rows depend on beyond its arguments: the code of its problem, the versions
of alphavb and its numerical stack, the platform and the thread counts.

:func:`code_fingerprint` enters the cache key (a changed function body or alphavb version
is a different study); :func:`study_manifest` is written beside the rows and kept in the
frame's ``attrs`` so a published table says what produced it.
"""

import json
import os
import platform
import sys
import time

from ..cache import function_fingerprint

ENVIRONMENT_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                "NUMBA_NUM_THREADS", "SLURM_CPUS_PER_TASK")


def code_fingerprint(problem):
    """The code fingerprints (:func:`alphavb.cache.function_fingerprint`) of the problem's
    ``simulate``, ``risk``, ``error`` and ``estimates``, by name."""
    return {name: function_fingerprint(function) for name in ("simulate", "risk", "error",
                                                              "estimates")
            if (function := getattr(problem, name)) is not None}


def _versions():
    import numba
    import numpy
    import pandas
    import scipy
    import sklearn

    from .. import __version__

    return {"python": sys.version.split()[0], "alphavb": __version__,
            "numpy": numpy.__version__, "scipy": scipy.__version__, "numba": numba.__version__,
            "scikit-learn": sklearn.__version__, "pandas": pandas.__version__}


def _threads():
    import numba
    from threadpoolctl import threadpool_info

    return {"cpu_count": os.cpu_count(), "numba": numba.get_num_threads(),
            "blas": [{"library": pool.get("internal_api"), "threads": pool.get("num_threads")}
                     for pool in threadpool_info()],
            "environment": {name: os.environ[name] for name in ENVIRONMENT_THREAD_VARIABLES
                            if name in os.environ}}


def arithmetic_platform():
    """One line naming what decides the rounding of a floating-point run: the processor,
    the BLAS library with its kernel (OpenBLAS picks one per processor) and NumPy, e.g.
    ``"AMD EPYC; openblas 0.3.31 Haswell; numpy 2.4.6"``. Long runs whose rounding differs
    drift apart (an adversarial fit of 2,000 epochs by ~0.1-0.2 nats of test
    log-likelihood), so a cached result records it."""
    import numpy
    from threadpoolctl import threadpool_info

    processor = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            names = [line.split(":", 1)[1].strip() for line in cpuinfo
                     if line.startswith("model name")]
        processor = names[0] if names else processor
    except OSError:
        pass
    blas = [f"{pool.get('internal_api')} {pool.get('version')} {pool.get('architecture')}"
            for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return "; ".join([processor, *blas, f"numpy {numpy.__version__}"])


def _describe(value):
    """A JSON-friendly description of a study argument (estimators by their repr)."""
    if isinstance(value, dict):
        return {str(k): _describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        return value.item()
    return repr(value)


def study_manifest(problem, arguments, fingerprints):
    """Versions, platform, thread counts, the problem's code ``fingerprints`` (those of
    :func:`code_fingerprint`, already in the cache key) and the study's ``arguments`` (a
    dict), as a JSON-friendly dict."""
    return {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": _versions(),
            "platform": {"system": platform.platform(), "machine": platform.machine(),
                         "processor": platform.processor(), "hostname": platform.node()},
            "threads": _threads(),
            "problem": {"name": problem.name, "settings": _describe(problem.settings),
                        "functions": {name: f"{f.__module__}.{getattr(f, '__qualname__', f)}"
                                      for name in ("simulate", "risk", "error", "estimates")
                                      if (f := getattr(problem, name)) is not None},
                        "code_sha256": fingerprints},
            "arguments": _describe(arguments)}


def write_manifest(folder, manifest):
    """Write ``manifest.json`` in ``folder`` atomically (shards write it concurrently)."""
    import uuid
    from pathlib import Path

    path = Path(folder) / "manifest.json"
    temporary = path.with_name(f".manifest.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        temporary.write_text(json.dumps(manifest, indent=1, default=repr), encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path
