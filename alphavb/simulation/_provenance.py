"""What a study's rows depend on beyond its arguments: the code of its problem, the versions
of alphavb and its numerical stack, the platform and the thread counts.

:func:`source_fingerprint` enters the cache key (a changed function body or alphavb version
is a different study); :func:`study_manifest` is written beside the rows and kept in the
frame's ``attrs`` so a published table says what produced it.
"""

import hashlib
import inspect
import json
import os
import platform
import sys
import time

ENVIRONMENT_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                "NUMBA_NUM_THREADS", "SLURM_CPUS_PER_TASK")


def function_fingerprint(function):
    """SHA-256 of a function's source code (its bytecode and constants when the source is
    not available, e.g. in an interactive session; its pickle for other callables)."""
    try:
        text = inspect.getsource(function)
    except (OSError, TypeError):
        code = getattr(function, "__code__", None)
        if code is not None:
            text = repr((code.co_code, code.co_consts, code.co_names))
        else:
            import pickle

            text = repr(pickle.dumps(function))
    return hashlib.sha256(text.encode()).hexdigest()


def source_fingerprint(problem):
    """The fingerprints of the problem's ``simulate``, ``risk``, ``error`` and
    ``estimates``, by name."""
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


def study_manifest(problem, arguments):
    """Versions, platform, thread counts, the problem's code fingerprints and the study's
    ``arguments`` (a dict), as a JSON-friendly dict."""
    return {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": _versions(),
            "platform": {"system": platform.platform(), "machine": platform.machine(),
                         "processor": platform.processor(), "hostname": platform.node()},
            "threads": _threads(),
            "problem": {"name": problem.name, "settings": _describe(problem.settings),
                        "functions": {name: f"{f.__module__}.{getattr(f, '__qualname__', f)}"
                                      for name in ("simulate", "risk", "error", "estimates")
                                      if (f := getattr(problem, name)) is not None},
                        "source_sha256": source_fingerprint(problem)},
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
