"""benchmarks/study_cache_archive.py: a study's cache packed on one machine and unpacked on
another resumes the study without refitting what was packed."""

import importlib.util
import io
import json
import tarfile
from pathlib import Path

import pandas as pd
import pytest

from alphavb import AlphaLinearRegression
from alphavb.cache import ResultCache
from alphavb.simulation import _runner, linear_regression_problem, run_study

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "study_cache_archive.py"
spec = importlib.util.spec_from_file_location("study_cache_archive", SCRIPT)
archive = importlib.util.module_from_spec(spec)
spec.loader.exec_module(archive)


def _study(cache_dir, n_replications=2):
    return run_study(linear_regression_problem(n_features=3), AlphaLinearRegression(),
                     {"n_samples": [50], "alpha": [0.5, 1.0]}, n_replications=n_replications,
                     random_state=3, progress=False, n_draws=20, cache_dir=cache_dir)


@pytest.fixture
def fit_calls(monkeypatch):
    calls = []
    original = _runner._fit_one

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(_runner, "_fit_one", counted)
    return calls


def test_a_packed_cache_resumes_elsewhere_without_refitting(tmp_path, fit_calls):
    here, there, parts = tmp_path / "here" / "S1", tmp_path / "there" / "S1", tmp_path / "parts"
    first = _study(here)
    assert len(fit_calls) == 4
    # a failed fit and an edited record are left out; the manifest is not a fit
    ResultCache(here).store("f" * 64, {"status": "error", "message": "ImportError"})
    edited = ResultCache(here).path("e" * 64)
    edited.write_text(json.dumps({"key": "e" * 64, "checksum": "0", "row": {"status": "ok"}}))
    target, left_out = archive.pack(here.parent, parts)
    assert target.name == "part-001.tar.xz" and left_out == 2
    assert len(archive.archived_names(parts)) == 4
    assert archive.pack(here.parent, parts) == (None, 2)  # nothing new
    # another machine, where a run started before the unpack cached a failure: the four
    # fits come back (the failure replaced), nothing is refitted, the frame is the same
    name = sorted(archive.archived_names(parts))[0]
    ResultCache(there).store(Path(name).stem + "0" * 32, {"status": "error"})
    assert archive.unpack(parts, tmp_path / "there") == 4  # 3 without the failure's
    again = _study(there)
    assert len(fit_calls) == 4
    pd.testing.assert_frame_equal(first, again)
    # the study grows there; the next part holds only the new fits
    _study(there, n_replications=3)
    assert len(fit_calls) == 6
    target, _ = archive.pack(tmp_path / "there", parts)
    assert target.name == "part-002.tar.xz"
    assert len(archive.archived_names(parts)) == 6
    # restoring leaves the records a cache holds as they are
    assert archive.unpack(parts, tmp_path / "there") == 0


def test_parts_are_reproducible_and_unpack_refuses_foreign_members(tmp_path):
    _study(tmp_path / "cache" / "S1")
    one, _ = archive.pack(tmp_path / "cache", tmp_path / "a")
    two, _ = archive.pack(tmp_path / "cache", tmp_path / "b")
    assert one.read_bytes() == two.read_bytes()
    with pytest.raises(ValueError, match=r"archives: .* holds no"):
        archive.unpack(tmp_path / "empty", tmp_path / "cache")
    with pytest.raises(ValueError, match=r"cache: .* is not a folder"):
        archive.pack(tmp_path / "missing", tmp_path / "a")
    # a part holding a path out of the cache is refused, and nothing of it is written
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with tarfile.open(foreign / "part-001.tar.xz", "w:xz") as tar:
        for name in ("S1/" + "a" * 32 + ".json", "../outside.json"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(ValueError, match="not a cache record"):
        archive.unpack(foreign, tmp_path / "restored")
    assert not (tmp_path / "outside.json").exists() and not (tmp_path / "restored").exists()


def test_parts_are_numbered_past_999_never_overwritten_and_checked_whole(tmp_path,
                                                                        monkeypatch):
    parts = tmp_path / "parts"
    _study(tmp_path / "cache" / "S1", n_replications=1)
    first, _ = archive.pack(tmp_path / "cache", parts)
    first.rename(parts / "part-999.tar.xz")
    _study(tmp_path / "cache" / "S1", n_replications=2)
    assert archive.pack(tmp_path / "cache", parts)[0].name == "part-1000.tar.xz"
    _study(tmp_path / "cache" / "S1", n_replications=3)
    # another pack took the number meanwhile (its list of parts read before): refused
    seen = archive._parts(parts)
    monkeypatch.setattr(archive, "_parts", lambda folder: seen[:1])
    with pytest.raises(ValueError, match="written by another pack meanwhile"):
        archive.pack(tmp_path / "cache", parts)
    monkeypatch.undo()
    assert archive.pack(tmp_path / "cache", parts)[0].name == "part-1001.tar.xz"
    assert len(archive.archived_names(parts)) == 6
    # a part cut short is refused by name, even when only the xz footer is lost
    whole = (parts / "part-1000.tar.xz").read_bytes()
    (parts / "part-1000.tar.xz").write_bytes(whole[:-20])
    with pytest.raises(ValueError, match=r"part-1000\.tar\.xz cannot be read"):
        archive.unpack(parts, tmp_path / "elsewhere")
    (parts / "part-7.tar.xz").write_bytes(whole)
    with pytest.raises(ValueError, match=r"part-7\.tar\.xz is not named"):
        archive.archived_names(parts)
