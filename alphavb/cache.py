"""One result cache for simulation studies and reproductions.

A cached result is one row (a JSON object) stored under a key that hashes *every* setting
that made it: :func:`cache_key` encodes the settings canonically (dicts by sorted key; numpy
arrays by dtype, shape and a SHA-256 of their bytes, never by their ``repr``, which elides
the middle of arrays over 1,000 entries; estimators by class and ``get_params``, and a class
defined inside a function also by what it captured there; lambdas and closures by their
code and captured values, other functions by name; floats exactly) and hashes the
encoding. :class:`ResultCache` writes each row atomically (a temporary file, then
``os.replace``), so a killed run leaves no half-written row, together with its key and a
checksum of its content. A row is read back only if the file parses, its key and checksum
match and the caller's ``validate`` accepts it; otherwise the row is refitted and a
:class:`CacheWarning` names the file, so a corrupted or hand-edited row never reaches a
table.
"""

import hashlib
import json
import os
import pickle
import uuid
import warnings
from pathlib import Path

import numpy as np

from ._validation import caller_stacklevel

__all__ = ["CacheWarning", "ResultCache", "cache_key", "function_fingerprint"]


class CacheWarning(UserWarning):
    """A cached row could not be used (unreadable, edited, or rejected); it is refitted."""


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
    A function that captures itself (a recursive closure) reads as ``"recursive"`` there.

    Not its source text: a process whose file is edited while it runs would read the new
    file at the old line numbers (``inspect.getsource``) and fingerprint the wrong lines.
    The bytecode follows every edit of the body that changes what runs (a comment does not;
    a docstring does) and the Python version."""
    return _fingerprint(function, ())


def _fingerprint(function, active):
    """:func:`function_fingerprint`, with ``active`` the ids of the functions whose
    fingerprints are being taken (a function met again among them is ``"recursive"``)."""
    import functools

    if id(function) in active:
        return "recursive"
    active = (*active, id(function))
    code = getattr(function, "__code__", None)
    if isinstance(function, functools.partial):
        text = repr((_fingerprint(function.func, active),
                     _value_description(function.args, active),
                     _value_description(function.keywords, active)))
    elif code is None:
        call = type(function).__call__ if callable(function) else None
        text = repr((_fingerprint(call, active) if hasattr(call, "__code__") else None,
                     pickle.dumps(function)))
    else:
        text = repr((_code_description(code), repr(function.__defaults__),
                     repr(function.__kwdefaults__)))
        if function.__closure__:  # what a closure captured is part of what it runs
            text += repr(tuple(_value_description(cell.cell_contents, active)
                               for cell in function.__closure__))
    return hashlib.sha256(text.encode()).hexdigest()


def _value_description(value, active=()):
    """A captured or bound value as a fingerprint reads it: a function by its fingerprint,
    a container by its items, anything else by its pickle (its repr when it has none)."""
    if callable(value) and (hasattr(value, "__code__") or hasattr(value, "func")):
        return _fingerprint(value, active)
    if isinstance(value, (list, tuple)):
        return tuple(_value_description(item, active) for item in value)
    if isinstance(value, dict):
        return tuple((repr(key), _value_description(item, active))
                     for key, item in value.items())
    try:
        return pickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError):  # unpicklable: its repr
        return repr(value)


def _local(kind):
    """Whether a class or function was defined inside a function (its name is then the
    same for every definition, whatever it captured)."""
    return "<locals>" in kind.__qualname__ or "<lambda>" in kind.__qualname__


def _captured_by_class(kind):
    """What the classes of ``kind``'s lineage that were defined inside a function took from
    it: the values their methods capture (but ``__class__``, which ``super()`` uses) and
    their public data attributes, as a SHA-256; None when there is nothing."""
    captured = []
    for owner in kind.__mro__:
        if not _local(owner):
            continue
        for name, member in sorted(vars(owner).items()):
            function = getattr(member, "__func__", getattr(member, "fget", member))
            if hasattr(function, "__code__"):
                cells = [(variable, cell.cell_contents) for variable, cell in
                         zip(function.__code__.co_freevars, function.__closure__ or (),
                             strict=True) if variable != "__class__"]
                if cells:
                    captured.append((owner.__qualname__, name, _value_description(cells)))
            elif not (name.startswith("_") or callable(member) or hasattr(member, "__get__")):
                # a public data attribute (not scikit-learn's request descriptors, not abc's)
                captured.append((owner.__qualname__, name, _value_description(member)))
    return hashlib.sha256(repr(captured).encode()).hexdigest() if captured else None


def _canonical(value):
    """A JSON-serializable structure that identifies ``value`` by content."""
    from sklearn.base import BaseEstimator

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return {"float": float(value).hex()}
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        if array.dtype.hasobject:
            return {"object_array": [_canonical(v) for v in array.ravel().tolist()],
                    "shape": list(array.shape)}
        return {"ndarray": array.dtype.str, "shape": list(array.shape),
                "sha256": hashlib.sha256(array.tobytes()).hexdigest()}
    if isinstance(value, dict):
        return {"dict": [[_canonical(k), _canonical(v)]
                         for k, v in sorted(value.items(), key=lambda item: repr(item[0]))]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [_canonical(v) for v in value]}
    if isinstance(value, BaseEstimator):
        kind = type(value)
        # an estimator may key on more than its parameters (a rule its results depend on)
        params = (value._cache_key_parameters() if hasattr(value, "_cache_key_parameters")
                  else value.get_params(deep=False))
        encoded = {"estimator": f"{kind.__module__}.{kind.__qualname__}",
                   "params": _canonical(params)}
        captured = _captured_by_class(kind) if _local(kind) else None
        if captured is not None:  # a class made by a function: what it took from there
            encoded["captured"] = captured
        return encoded
    if isinstance(value, np.random.RandomState):
        return {"random_state": _canonical(list(value.get_state()))}
    if callable(value) and hasattr(value, "__qualname__"):
        name = f"{value.__module__}.{value.__qualname__}"
        if _local(value):  # a lambda or a closure: one name for many functions
            return {"callable": name, "code": function_fingerprint(value)}
        return {"callable": name}
    try:
        return {"pickle": hashlib.sha256(pickle.dumps(value)).hexdigest()}
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise TypeError(f"cache_key cannot identify a setting of type "
                        f"{type(value).__name__}: {error}") from None


def cache_key(settings):
    """The SHA-256 (hex) of the canonical encoding of ``settings`` (any nesting of dicts,
    lists, tuples, scalars, numpy arrays, estimators and functions)."""
    text = json.dumps(_canonical(settings), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _checksum(row):
    return hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()


class ResultCache:
    """Rows stored as ``FOLDER/<key prefix>.json``, one file per key.

    Parameters
    ----------
    folder : str or Path
        Created on the first write.
    """

    def __init__(self, folder):
        self.folder = Path(folder)

    def check_writable(self, owner="cache_dir"):
        """Create the folder and make sure rows can be written there; raise ``ValueError``
        naming ``owner`` otherwise. Remove the temporary files of writers that died."""
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"The '{owner}' {self.folder} is a file, not a folder. Pass a "
                             "folder (it is created if missing).")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            probe = self.folder / f".write-test.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise ValueError(f"The '{owner}' {self.folder} cannot be written to "
                             f"({error.strerror or error}). Pass a writable folder.") from None
        for stale in self.folder.glob(".*.tmp"):
            if not _process_alive(_writer_pid(stale)):
                stale.unlink(missing_ok=True)

    def path(self, key):
        return self.folder / f"{key[:32]}.json"

    def load(self, key, validate=None):
        """The row stored under ``key``, or None when there is none or it cannot be used.

        ``validate(row)`` raises ``ValueError`` (saying why) for a row that must not be
        used; such rows, unreadable files and files whose key or checksum do not match are
        reported with a :class:`CacheWarning` naming the file, and None is returned.
        """
        path = self.path(key)
        if not path.exists():
            return None
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict) or record.get("key") != key:
                raise ValueError("it belongs to other settings")
            row = record.get("row")
            if not isinstance(row, dict) or record.get("checksum") != _checksum(row):
                raise ValueError("its content does not match its checksum (edited by hand?)")
            if validate is not None:
                validate(row)
        except (ValueError, UnicodeDecodeError, OSError, RecursionError) as error:
            reason = ("it is not valid JSON" if isinstance(error, (json.JSONDecodeError,
                                                                   UnicodeDecodeError))
                      else "it is nested too deeply to be a row"
                      if isinstance(error, RecursionError)
                      else f"it cannot be read: {error.strerror or error}"
                      if isinstance(error, OSError) else str(error))
            warnings.warn(f"Cached result {path} cannot be used ({reason}); it is "
                          "computed again.", CacheWarning, stacklevel=caller_stacklevel())
            return None
        return row

    def store(self, key, row):
        """Write ``row`` (a JSON-serializable dict) under ``key``, atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(key)
        if path.is_dir():  # not ours to remove: the result stands, uncached
            warnings.warn(f"Cached result {path} is a folder, so this result is not cached; "
                          "move the folder away to cache it.", CacheWarning,
                          stacklevel=caller_stacklevel())
            return
        record = {"key": key, "checksum": _checksum(row), "row": row}
        temporary = path.with_name(f".{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            temporary.write_text(json.dumps(record), encoding="utf-8")
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)


def _writer_pid(path):
    """The process id in a temporary file's name ``.<name>.<pid>.<random>.tmp``."""
    parts = path.name.split(".")
    return int(parts[-3]) if len(parts) >= 4 and parts[-3].isdigit() else None


def _process_alive(pid):
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def require(row, checks):
    """Raise ``ValueError`` unless ``row`` has every key of ``checks`` with a value the
    check accepts (``checks`` maps a key to a predicate or to an expected value)."""
    for key, check in checks.items():
        if key not in row:
            raise ValueError(f"it has no '{key}'")
        value = row[key]
        ok = check(value) if callable(check) else value == check
        if not ok:
            raise ValueError(f"its '{key}' is {value!r}")


def finite_number(value):
    """A JSON number (not a bool) that is finite."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and bool(np.isfinite(value)))


def non_negative_number(value):
    return finite_number(value) and value >= 0
