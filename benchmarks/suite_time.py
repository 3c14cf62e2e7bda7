"""The test suite's time on a new install, and where it goes: issue 57's "under 6 minutes on 2
quiet cores", measured as CI measures it.

A fresh clone of the repository's HEAD in a temporary folder, a new virtual environment,
``pip install ".[test]"`` (as ``.ci/run`` does), then the README's test command twice with
``--durations=0``: first with numba's kernel cache empty (a new install; numba compiles every
kernel at its first call) and then again with the cache the first run filled. The table gives
each test file's summed test time in both runs; their difference is mostly compilation
(numba's, in the test processes and in the README blocks' own interpreters). JAX's programs
are compiled in both runs (tests/conftest.py gives each run its own JAX cache).

Run: python benchmarks/suite_time.py [--keep FOLDER] [--top 25]
(about 20 minutes on 2 cores; pause other work first: the numbers are wall times)
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DURATION = re.compile(r"^([0-9.]+)s (call|setup|teardown)\s+(\S+)")


def durations(output):
    """``{(phase, test id): seconds}`` from pytest's ``--durations=0`` report."""
    found = {}
    for line in output.splitlines():
        match = DURATION.match(line)
        if match:
            found[(match[2], match[3])] = float(match[1])
    return found


def run_suite(python, clone, environment):
    """``(wall seconds, per-test durations, pytest's last line)`` of one suite run."""
    start = time.perf_counter()
    result = subprocess.run([python, "-m", "pytest", "tests", "-n", "2", "--durations=0",
                             "-q", "-p", "no:cacheprovider"], cwd=clone, env=environment,
                            capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    lines = result.stdout.strip().splitlines()
    return wall, durations(result.stdout), lines[-1] if lines else result.stderr[-500:]


def by_file(found):
    totals = collections.Counter()
    for (_, test), seconds in found.items():
        totals[test.split("::")[0]] += seconds
    return totals


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="make the clone in this (new) folder and keep it")
    parser.add_argument("--top", type=int, default=25,
                        help="files and tests listed (default 25 each)")
    args = parser.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="alphavb-suite-"))
    clone = folder / "alphavb"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    python = str(folder / "venv" / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", ".[test]"], cwd=clone,
                   check=True)
    environment = dict(os.environ)
    if "ALPHAVB_DATA" not in environment and (ROOT.parent / "shared" / "data").is_dir():
        environment["ALPHAVB_DATA"] = str(ROOT.parent / "shared" / "data")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, text=True,
                            capture_output=True, check=True).stdout.strip()
    cold = run_suite(python, clone, environment)
    warm = run_suite(python, clone, environment)
    print(f"commit {commit}; pytest -n 2 in a fresh clone and virtual environment")
    for name, (wall, found, last) in (("empty kernel cache", cold), ("cache filled", warm)):
        print(f"  {name}: {wall:.1f} s wall, {sum(found.values()):.1f} s of tests ({last})")
    cold_files, warm_files = by_file(cold[1]), by_file(warm[1])
    print(f"\n{'file':<62} {'cold s':>8} {'warm s':>8}")
    for name, seconds in cold_files.most_common(args.top):
        print(f"{name:<62} {seconds:8.1f} {warm_files[name]:8.1f}")
    print(f"\n{'test (the longest calls)':<100} {'cold s':>8} {'warm s':>8}")
    calls = sorted(((seconds, test) for (phase, test), seconds in cold[1].items()
                    if phase == "call"), reverse=True)
    for seconds, test in calls[:args.top]:
        print(f"{test[:100]:<100} {seconds:8.1f} {warm[1].get(('call', test), 0.0):8.1f}")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
