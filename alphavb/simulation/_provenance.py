"""What a study's rows depend on beyond its arguments: the code of its problem, the versions
of alphavb and its numerical stack, the platform and the thread counts.

:func:`code_fingerprint` enters the cache key (a changed function body or alphavb version
is a different study); :func:`study_manifest` is written beside the rows and kept in the
frame's ``attrs`` so a published table says what produced it.
"""

import hashlib
import json
import os
import platform
import sys
import time

ENVIRONMENT_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                "NUMBA_NUM_THREADS", "SLURM_CPUS_PER_TASK")


def _code_description(code):
    """What a code object runs, without where it is: bytecode, constants (nested code
    objects described the same way), names and arguments; no file name or line numbers,
    so moving a function in its file keeps its fingerprint."""
    constants = tuple(_code_description(c) if hasattr(c, "co_code") else repr(c)
                      for c in code.co_consts)
    return (code.co_code, constants, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount)


def function_fingerprint(function):
    """SHA-256 of what a function runs: its code object (bytecode, constants, names; nested
    functions included), its default arguments and a closure's captured values; a
    ``functools.partial`` by its function's fingerprint and its arguments; another callable
    by its class's ``__call__`` and its pickle. Not the values of the module globals a
    function reads: a study's function should take what varies as arguments or settings.

    Not its source text: a process whose file is edited while it runs would read the new
    file at the old line numbers (``inspect.getsource``) and fingerprint the wrong lines.
    The bytecode follows every edit of the body that changes what runs (a comment does not;
    a docstring does) and the Python version."""
    import functools
    import pickle

    code = getattr(function, "__code__", None)
    if isinstance(function, functools.partial):
        text = repr((function_fingerprint(function.func), _value_description(function.args),
                     _value_description(function.keywords)))
    elif code is None:
        call = type(function).__call__ if callable(function) else None
        text = repr((function_fingerprint(call) if hasattr(call, "__code__") else None,
                     pickle.dumps(function)))
    else:
        text = repr((_code_description(code), repr(function.__defaults__),
                     repr(function.__kwdefaults__)))
        if function.__closure__:  # what a closure captured is part of what it runs
            text += repr(tuple(_value_description(cell.cell_contents)
                               for cell in function.__closure__))
    return hashlib.sha256(text.encode()).hexdigest()


def _value_description(value):
    """A captured or bound value as a fingerprint reads it: a function by its fingerprint,
    a container by its items, anything else by its pickle (its repr when it has none)."""
    import pickle

    if callable(value) and (hasattr(value, "__code__") or hasattr(value, "func")):
        return function_fingerprint(value)
    if isinstance(value, (list, tuple)):
        return tuple(_value_description(item) for item in value)
    if isinstance(value, dict):
        return tuple((repr(key), _value_description(item)) for key, item in value.items())
    try:
        return pickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError):  # unpicklable: its repr
        return repr(value)


def code_fingerprint(problem):
    """The code fingerprints (:func:`function_fingerprint`) of the problem's ``simulate``,
    ``risk``, ``error`` and ``estimates``, by name."""
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
