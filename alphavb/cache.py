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
import types
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
    constants = tuple(_code_description(c) if hasattr(c, "co_code") else _constant(c)
                      for c in code.co_consts)
    return (code.co_code, constants, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount)


def _constant(value):
    """A code constant's repr; a set literal's (a frozenset) with its items sorted, as its
    own repr follows the process's hash seed."""
    if isinstance(value, frozenset):
        return f"frozenset({sorted(repr(item) for item in value)!r})"
    return repr(value)


def _repr_whole(value):
    """Whether ``repr(value)`` names it whole and the same in every process, as a default
    argument's fingerprint has read it: not for an array or a pandas object (their reprs
    elide the middle), a set (its order follows the hash seed) or an object whose repr
    holds its address."""
    if isinstance(value, (np.ndarray, set, frozenset)) or \
            type(value).__module__.split(".")[0] == "pandas":
        return False
    if isinstance(value, (tuple, list)):
        return all(_repr_whole(item) for item in value)
    if isinstance(value, dict):
        return all(_repr_whole(key) and _repr_whole(item) for key, item in value.items())
    return " at 0x" not in repr(value)


def function_fingerprint(function):
    """SHA-256 of what a function runs: its code object (bytecode, constants, names; nested
    functions included), its default arguments and a closure's captured values (a bound
    method's object too); a ``functools.partial`` by its function's fingerprint and its
    arguments; another callable by its class's ``__call__`` and its pickle. Not the values
    of the module globals a function reads: a study's function should take what varies as
    arguments or settings. A function that captures itself (a recursive closure) reads as
    ``"recursive"`` there. A value that cannot be pickled is read by its repr, which may
    hold its address: its key then differs between processes (a row refitted, never
    another's read).

    Not its source text: a process whose file is edited while it runs would read the new
    file at the old line numbers (``inspect.getsource``) and fingerprint the wrong lines.
    The bytecode follows every edit of the body that changes what runs (a comment does not;
    a docstring does) and the Python version."""
    return _fingerprint(function, ())


def _fingerprint(function, active):
    """:func:`function_fingerprint`, with ``active`` the ids of the functions and containers
    being described (one met again among them is ``"recursive"``)."""
    import functools

    if id(function) in active:
        return "recursive"
    active = (*active, id(function))
    code = getattr(function, "__code__", None)
    code = code if isinstance(code, types.CodeType) else None  # a class's descriptor is not
    if isinstance(function, functools.partial):
        text = repr((_fingerprint(function.func, active),
                     _value_description(function.args, active),
                     _value_description(function.keywords, active)))
    elif code is None:
        call = type(function).__call__ if callable(function) else None
        text = repr((_fingerprint(call, active) if hasattr(call, "__code__") else None,
                     _value_description(function, active)))
    else:
        defaults = [function.__defaults__, function.__kwdefaults__]
        text = repr((_code_description(code),
                     *(repr(value) if _repr_whole(value)  # as always: caches keep their keys
                       else repr(_value_description(value, active)) for value in defaults)))
        if function.__closure__:  # what a closure captured is part of what it runs
            text += repr(tuple(_value_description(_cell_value(cell), active)
                               for cell in function.__closure__))
        if getattr(function, "__self__", None) is not None and hasattr(function, "__func__"):
            text += repr(_value_description(function.__self__, active))  # a bound method
    return hashlib.sha256(text.encode()).hexdigest()


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a name the function has not bound yet
        return "<empty cell>"


def _value_description(value, active=()):
    """A captured or bound value as a fingerprint reads it: a function by its fingerprint
    (a wrapper's, as ``lru_cache``'s, by the function it wraps), a class made in a function
    by its body, an estimator as a key reads it, a container by its items (a set's sorted),
    anything else by its pickle; an object that has none by its attributes, else by its
    repr (which may hold its address: a key of another process, or of a later object at
    the same address, then differs or, rarely, meets this one)."""
    import inspect

    from sklearn.base import BaseEstimator

    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    if callable(value) and hasattr(value, "__wrapped__"):
        value = inspect.unwrap(value)
    if callable(value) and (hasattr(value, "__code__") or hasattr(value, "func")):
        return _fingerprint(value, active)
    if isinstance(value, type) and _local(value):
        return ("class", value.__qualname__, _class_description(value, active))
    if isinstance(value, BaseEstimator):  # by content, as a key reads it (arrays whole)
        return json.dumps(_canonical_estimator(value, active), sort_keys=True)
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        if id(value) in active:
            return "recursive"
        active = (*active, id(value))
    if isinstance(value, (list, tuple)):
        return tuple(_value_description(item, active) for item in value)
    if isinstance(value, dict):
        return tuple((repr(key), _value_description(item, active))
                     for key, item in value.items())
    if isinstance(value, (set, frozenset)):  # its pickle follows the process's hash seed
        return ("set", tuple(sorted(repr(_value_description(item, active))
                                    for item in value)))
    try:
        return pickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError):  # unpicklable
        if hasattr(value, "__dict__") and id(value) not in active:
            return (_value_description(type(value), active),
                    _value_description(vars(value), (*active, id(value))))
        return repr(value)


def _local(kind):
    """Whether a class or function was defined inside a function (its name is then the
    same for every definition, whatever it captured)."""
    return "<locals>" in kind.__qualname__ or "<lambda>" in kind.__qualname__


def _member_description(member, active):
    """A class body's entry as :func:`_class_description` reads it: a method (plain,
    static, class, a property's getter, setter and deleter, cached, ``lru_cache``d,
    scikit-learn's ``available_if``) by what it wraps, another descriptor not at all
    (scikit-learn's metadata requests), any other value by :func:`_value_description`;
    None to leave it out."""
    import functools

    if isinstance(member, (functools.partial, type)):
        return _value_description(member, active)
    if isinstance(member, property):
        return tuple(None if part is None else _value_description(part, active)
                     for part in (member.fget, member.fset, member.fdel))
    for attribute in ("__func__", "func", "fn"):
        inner = getattr(member, attribute, None)
        if callable(inner):
            return _value_description(inner, active)
    if hasattr(member, "__get__") and not hasattr(member, "__code__") \
            and not hasattr(member, "__wrapped__"):
        return None
    return _value_description(member, active)


# what a class body holds that is not the class's behaviour
_CLASS_BOOKKEEPING = ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                      "__abstractmethods__", "_abc_impl", "__parameters__", "__slots__",
                      "__firstlineno__", "__static_attributes__")


def _class_description(kind, active=()):
    """What the classes of ``kind``'s lineage that were defined inside a function hold: the
    fingerprints of their methods (code, defaults and what they captured there, but
    ``__class__``, which ``super()`` uses; dunder methods too), their attributes and the
    classes nested in them, as a SHA-256; None when no class of it is local or they hold
    nothing, or when one names its key's settings itself (``_cache_key_parameters``: the
    class owns its key, as the SuSiE 2.0 benchmark's)."""
    locals_ = [owner for owner in kind.__mro__ if _local(owner)]
    if not locals_ or any("_cache_key_parameters" in vars(owner) for owner in locals_):
        return None
    if id(kind) in active:
        return "recursive"
    active = (*active, id(kind))
    described = []
    for owner in locals_:
        for name, member in sorted(vars(owner).items()):
            if name in _CLASS_BOOKKEEPING or name.startswith("__metadata_request__"):
                continue
            description = _member_description(member, active)
            if description is not None:
                described.append((owner.__qualname__, name, description))
    return hashlib.sha256(repr(described).encode()).hexdigest() if described else None


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
    if isinstance(value, (set, frozenset)):  # sorted: its order follows the hash seed
        return {type(value).__name__: sorted((_canonical(v) for v in value),
                                             key=lambda item: json.dumps(item, sort_keys=True))}
    if isinstance(value, BaseEstimator):
        return _canonical_estimator(value)
    if isinstance(value, np.random.RandomState):
        return {"random_state": _canonical(list(value.get_state()))}
    if callable(value) and hasattr(value, "__qualname__"):
        return _canonical_callable(value)
    try:
        return {"pickle": hashlib.sha256(pickle.dumps(value)).hexdigest()}
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        if callable(value):  # a partial of a lambda or of a local class's method
            return {"callable": function_fingerprint(value)}
        raise TypeError(f"cache_key cannot identify a setting of type "
                        f"{type(value).__name__}: {error}") from None


def _canonical_estimator(value, active=()):
    """An estimator by its class and parameters (or the settings it names for its key:
    ``_cache_key_parameters``, e.g. a rule its results depend on); a class made inside a
    function also by its body and what it took there (:func:`_class_description`)."""
    kind = type(value)
    params = (value._cache_key_parameters() if hasattr(value, "_cache_key_parameters")
              else value.get_params(deep=False))
    encoded = {"estimator": f"{kind.__module__}.{kind.__qualname__}",
               "params": _canonical(params)}
    body = _class_description(kind, active)
    if body is not None:
        encoded["captured"] = body
    return encoded


def _canonical_callable(value):
    """A function or class by its name; a lambda, a closure or a class made inside a
    function, whose name many share, also by its code and what it captured; a bound
    method also by its object (the fit of one estimator is not another's)."""
    name = f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, type):
        body = _class_description(value)
        return {"callable": name} if body is None else {"callable": name, "code": body}
    if _local(value):
        return {"callable": name, "code": function_fingerprint(value)}
    owner = getattr(value, "__self__", None)
    if hasattr(value, "__func__") and owner is not None and not isinstance(owner, type):
        return {"callable": name, "self": function_fingerprint(value)}
    return {"callable": name}


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
