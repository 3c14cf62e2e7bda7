"""The result cache: keys by content, atomic rows, and rows checked when read."""

import functools
import json
import warnings

import numpy as np
import pytest

from alphavb import AlphaLinearRegression
from alphavb.cache import CacheWarning, ResultCache, cache_key
from alphavb.simulation import linear_regression_problem, run_study

GRID = {"n_samples": [40], "alpha": [0.5, 1.0]}


def test_arrays_are_keyed_by_their_bytes_not_their_repr():
    a = np.zeros(5000)
    b = a.copy()
    b[2500] = 1e-9  # numpy's repr shows neither: it elides arrays over 1,000 entries
    assert repr(a) == repr(b)
    assert cache_key({"prior_precision": a}) != cache_key({"prior_precision": b})
    assert cache_key({"prior_precision": a}) == cache_key({"prior_precision": a.copy()})
    # dtype and shape are part of the content
    assert cache_key(np.zeros(4)) != cache_key(np.zeros(4, dtype=np.float32))
    assert cache_key(np.zeros(4)) != cache_key(np.zeros((2, 2)))
    # dict order does not matter, values do, exactly
    assert cache_key({"a": 1, "b": 0.1}) == cache_key({"b": 0.1, "a": 1})
    assert cache_key({"a": 0.1}) != cache_key({"a": 0.1 + 1e-17 * 8})


def test_estimators_differing_in_the_middle_of_a_large_array_share_no_rows(tmp_path):
    precision = np.ones(1500)
    other = precision.copy()
    other[750] = 2.0
    problem = linear_regression_problem(n_features=1500)
    first = AlphaLinearRegression(prior_precision=precision, max_iter=3)
    second = AlphaLinearRegression(prior_precision=other, max_iter=3)
    settings = {"n_replications": 1, "progress": False, "n_draws": 5, "cache_dir": tmp_path}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_study(problem, first, {"n_samples": [20]}, **settings)
        run_study(problem, second, {"n_samples": [20]}, **settings)
    assert len([p for p in tmp_path.glob("*.json") if p.name != "manifest.json"]) == 2


def _shifted_estimator(shift):
    """An estimator class made by a function: its name is the same for every shift."""

    class Shifted(AlphaLinearRegression):
        def fit(self, X, y, *args, **kwargs):
            return super().fit(X, y + shift, *args, **kwargs)

    return Shifted(max_iter=5)


def _timed_estimator():
    """A class made by a function that names its key's settings itself, as the SuSiE 2.0
    benchmark's timed selector does: its key is its name and those settings."""

    class Timed(AlphaLinearRegression):
        def _cache_key_parameters(self):
            return {**self.get_params(deep=False), "rule": "v1"}

        def fit(self, X, y, *args, **kwargs):
            return super().fit(X, y, *args, **kwargs)

    return Timed(max_iter=5)


def _coded_estimator(sign):
    """Two bodies of one local class name that differ in their code alone."""
    if sign > 0:
        class Coded(AlphaLinearRegression):
            def fit(self, X, y, *args, **kwargs):
                return super().fit(X, y, *args, **kwargs)
    else:
        class Coded(AlphaLinearRegression):
            def fit(self, X, y, *args, **kwargs):
                return super().fit(X, -y, *args, **kwargs)
    return Coded()


def _offset_estimator(offset):
    class Offset(AlphaLinearRegression):
        fitted_offset = offset

    return Offset()


def test_a_class_made_by_a_function_is_keyed_by_what_it_captured(tmp_path):
    """Two estimators of one local class name that shift y by 0 and by 50 share no rows
    (the second was served the first one's risks from the cache), nor two whose code
    differs; a local class that names its key's settings keeps its key (the benchmark's
    cache)."""
    assert cache_key(_shifted_estimator(0.0)) == cache_key(_shifted_estimator(0.0))
    assert cache_key(_shifted_estimator(0.0)) != cache_key(_shifted_estimator(50.0))
    assert cache_key(_offset_estimator(1.0)) != cache_key(_offset_estimator(2.0))
    assert cache_key(_timed_estimator()) == cache_key(_timed_estimator())
    assert cache_key(_coded_estimator(1)) != cache_key(_coded_estimator(-1))
    assert cache_key(_coded_estimator(1)) == cache_key(_coded_estimator(1))
    assert cache_key({"kind": type(_coded_estimator(1))}) != cache_key(
        {"kind": type(_coded_estimator(-1))})  # a local class as a value (it raised)
    assert "captured" not in json.dumps(__import__("alphavb.cache").cache._canonical(
        _timed_estimator()))
    settings = {"n_replications": 2, "progress": False, "n_draws": 5, "cache_dir": tmp_path}
    problem = linear_regression_problem(n_features=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = run_study(problem, _shifted_estimator(0.0), {"n_samples": [40]}, **settings)
        shifted = run_study(problem, _shifted_estimator(50.0), {"n_samples": [40]}, **settings)
        fresh = run_study(problem, _shifted_estimator(50.0), {"n_samples": [40]},
                          **{**settings, "cache_dir": None})
    assert np.allclose(shifted["risk"], fresh["risk"])
    assert not np.allclose(shifted["risk"], plain["risk"])


def test_lambdas_and_closures_are_keyed_by_their_code_and_captures():
    def scaled(scale):
        return lambda x: scale * x

    assert cache_key({"f": scaled(1.0)}) == cache_key({"f": scaled(1.0)})
    assert cache_key({"f": scaled(1.0)}) != cache_key({"f": scaled(100.0)})
    assert cache_key({"f": lambda x: x}) != cache_key({"f": lambda x: -x})
    # a module-level function keeps its key: its name
    assert json.loads(json.dumps(__import__("alphavb.cache").cache._canonical(np.exp))) == {
        "callable": "numpy.exp"}


def test_keys_of_closures_are_the_same_in_every_process():
    """A set literal's constant, a captured set and an array default were read by their
    repr or pickle, which follow the process's hash seed (or elide an array's middle):
    another process computed another key, and two arrays that differ in the middle one."""
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from alphavb.cache import cache_key\n"
            "def make(tags, default):\n"
            "    return lambda x, d=default: (x in {'alpha', 'beta', 'gamma'}, tags, d)\n"
            "print(cache_key({'f': make({'a', 'b', 'c', 'd'}, np.zeros(3000))}))\n")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**__import__("os").environ,
                                            "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")}
    assert len(keys) == 1
    zeros, middle = np.zeros(3000), np.zeros(3000)
    middle[1500] = 1.0
    assert cache_key({"f": lambda x, d=zeros: d}) != cache_key({"f": lambda x, d=middle: d})
    import pandas as pd  # a frame's repr elides its middle rows as an array's does

    frame, other = pd.DataFrame({"x": zeros[:200]}), pd.DataFrame({"x": middle[1400:1600]})
    assert cache_key({"f": lambda x, d=frame: d}) != cache_key({"f": lambda x, d=other: d})
    # a partial of a lambda: keyed by its fingerprint (it raised, unpicklable)
    assert cache_key({"f": functools.partial(lambda x, k: k * x, k=1)}) != cache_key(
        {"f": functools.partial(lambda x, k: k * x, k=2)})


def _self_referring_estimator(switch):
    class Default(AlphaLinearRegression):
        def fit(self, X, y, *args, **kwargs):
            return default if switch else super().fit(X, y, *args, **kwargs)

    default = Default()
    return Default()


def _typed_default(n, dtype=float, names=("a", "b")):
    return np.zeros(n, dtype=dtype), names


def _helper_class(k):
    class Helper:
        def scale(self):
            return k

    return Helper


def test_keys_a_third_hostile_test_found_apart_or_broken():
    """A function with a type as a default kept its fingerprint of before (its repr is
    whole; the fix for arrays had changed it); a bound method of a module-level estimator
    is keyed with its object (two estimators' fits shared a key); a closure over a class
    made in a function reads the class's body (its repr is the same for every body); a
    captured module does not raise."""
    import hashlib

    from alphavb import AlphaSuSiE
    from alphavb.cache import _code_description, function_fingerprint

    old = repr((_code_description(_typed_default.__code__),
                repr(_typed_default.__defaults__), repr(_typed_default.__kwdefaults__)))
    assert function_fingerprint(_typed_default) == hashlib.sha256(old.encode()).hexdigest()
    assert cache_key({"f": AlphaSuSiE(n_effects=1).fit}) != cache_key(
        {"f": AlphaSuSiE(n_effects=2).fit})
    assert cache_key({"f": AlphaSuSiE(n_effects=1).fit}) == cache_key(
        {"f": AlphaSuSiE(n_effects=1).fit})

    def closure_over(kind):
        return lambda: kind().scale()

    assert cache_key({"f": closure_over(_helper_class(1))}) != cache_key(
        {"f": closure_over(_helper_class(2))})
    assert cache_key({"f": closure_over(np)}) == cache_key({"f": closure_over(np)})


def test_a_recursive_closure_has_a_fingerprint():
    """A nested function that calls itself captures itself; its fingerprint ended in a
    RecursionError."""
    from alphavb.cache import function_fingerprint

    def countdown(scale):
        def step(k):
            return scale if k == 0 else step(k - 1)

        return step

    # a local class whose method captures an instance of itself (a RecursionError)
    assert cache_key(_self_referring_estimator(1)) == cache_key(_self_referring_estimator(1))
    assert cache_key(_self_referring_estimator(1)) != cache_key(_self_referring_estimator(0))
    assert function_fingerprint(countdown(1.0)) == function_fingerprint(countdown(1.0))
    assert function_fingerprint(countdown(1.0)) != function_fingerprint(countdown(2.0))


def test_rows_are_written_atomically_with_key_and_checksum(tmp_path):
    cache = ResultCache(tmp_path / "rows")
    key = cache_key({"x": 1})
    cache.store(key, {"risk": 0.5})
    assert cache.load(key) == {"risk": 0.5}
    assert [p.name for p in (tmp_path / "rows").iterdir()] == [f"{key[:32]}.json"]


def _study(tmp_path):
    return run_study(linear_regression_problem(n_features=2), AlphaLinearRegression(), GRID,
                     n_replications=2, random_state=3, progress=False, n_draws=20,
                     cache_dir=tmp_path)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "edit", "nan", "other key"])
def test_a_damaged_row_is_refitted_and_named(tmp_path, damage):
    first = _study(tmp_path)
    path = min(tmp_path.glob("*.json"))
    record = json.loads(path.read_text())
    if damage == "truncate":
        path.write_text(path.read_text()[:40])
    elif damage == "garbage":
        path.write_bytes(b"\xff\xfe\x00garbage")
    elif damage == "edit":  # a plausible hand edit: the checksum no longer matches
        record["row"]["risk"] = 0.0
        path.write_text(json.dumps(record))
    elif damage == "nan":  # a consistent record whose row is not a valid result
        from alphavb.cache import _checksum

        record["row"]["risk"] = float("nan")
        record["checksum"] = _checksum(record["row"])
        path.write_text(json.dumps(record))
    else:
        record["key"] = "0" * 64
        path.write_text(json.dumps(record))
    with pytest.warns(CacheWarning, match=path.name):
        again = _study(tmp_path)
    # the damaged row was computed again, so the table is the first one (times aside)
    columns = [c for c in first.columns if c != "fit_seconds"]
    np.testing.assert_array_equal(first[columns].to_numpy(), again[columns].to_numpy())
    # and the file is whole again
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        _study(tmp_path)


def test_a_cache_dir_that_cannot_hold_rows_is_named(tmp_path):
    a_file = tmp_path / "rows.json"
    a_file.write_text("{}")
    for bad in (a_file, a_file / "below"):
        with pytest.raises(ValueError, match=r"'cache_dir'.*(is a file|cannot be written)"):
            _study(bad)


def test_temporary_files_of_dead_writers_are_removed(tmp_path):
    import os

    tmp_path.mkdir(exist_ok=True)
    dead = tmp_path / ".0123.999999999.deadbeef.tmp"   # no process has this id
    alive = tmp_path / f".0123.{os.getpid()}.deadbeef.tmp"
    dead.write_text("half a row")
    alive.write_text("being written")
    _study(tmp_path)
    assert not dead.exists() and alive.exists()


def test_the_progress_bar_counts_every_fit(tmp_path, capsys):
    run_study(linear_regression_problem(n_features=2), AlphaLinearRegression(), GRID,
              n_replications=2, random_state=3, progress=True, n_draws=20)
    assert "4/4" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["folder", "nested"])
def test_a_row_that_is_a_folder_or_nested_too_deeply_is_refitted(tmp_path, damage):
    """Both raised (IsADirectoryError, RecursionError) instead of being computed again
    with a warning, as the docs promise; a folder is left alone and the row not cached."""
    first = _study(tmp_path)
    path = min(tmp_path.glob("*.json"))
    path.unlink()
    if damage == "folder":
        path.mkdir()
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(CacheWarning, match=path.name):
        again = _study(tmp_path)
    columns = [c for c in first.columns if c != "fit_seconds"]
    np.testing.assert_array_equal(first[columns].to_numpy(), again[columns].to_numpy())
    assert path.is_dir() == (damage == "folder")
