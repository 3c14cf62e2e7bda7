"""Numba's compile time on a new install: the first spike-and-slab fits of a fresh process
whose kernel cache is empty (``NUMBA_CACHE_DIR`` a new temporary folder each run), as a new
user, or CI on a fresh clone, meets them.

Measured inside the process, per run: a first ``AlphaSpikeSlabRegression`` fit (60 x 30,
its approximation check included), a one-column fit after it (another array layout: its
kernels compile again), an ``AlphaSpikeSlabClassifier`` fit after both; and, in other
processes, a first classifier fit alone. The same fits with the cache filled take a few
milliseconds. Medians of ``--repeats`` runs; the folder of the imported ``alphavb`` is
printed, so that a run of another checkout (``PYTHONPATH=that/checkout``) shows which.

Run: python benchmarks/bench_compile.py [--repeats R]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

SETUP = """
import json, time, warnings
import numpy as np
import alphavb
from alphavb import AlphaSpikeSlabClassifier, AlphaSpikeSlabRegression
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 30))
y = X[:, 0] - X[:, 1] + rng.normal(size=60)
seconds = {}
def timed(name, fit):
    start = time.perf_counter()
    fit()
    seconds[name] = time.perf_counter() - start
"""
REGRESSION_FIRST = SETUP + """
timed("first AlphaSpikeSlabRegression fit", lambda: AlphaSpikeSlabRegression().fit(X, y))
timed("a one-column fit after it", lambda: AlphaSpikeSlabRegression().fit(X[:, :1], y))
timed("an AlphaSpikeSlabClassifier fit after both",
      lambda: AlphaSpikeSlabClassifier().fit(X, y > 0))
timed("the regression again (cache in memory)", lambda: AlphaSpikeSlabRegression().fit(X, y))
print(json.dumps([alphavb.__file__, seconds]))
"""
CLASSIFIER_FIRST = SETUP + """
timed("first AlphaSpikeSlabClassifier fit (alone)",
      lambda: AlphaSpikeSlabClassifier().fit(X, y > 0))
print(json.dumps([alphavb.__file__, seconds]))
"""


def cold_run(code):
    """Run ``code`` in a fresh process with an empty numba cache; its seconds."""
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache, "OPENBLAS_NUM_THREADS": "1"}
        result = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True, env=environment)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs = [cold_run(REGRESSION_FIRST) for _ in range(args.repeats)]
    runs += [cold_run(CLASSIFIER_FIRST) for _ in range(args.repeats)]
    print(f"alphavb from {os.path.dirname(runs[0][0])}")
    print(f"median of {args.repeats} fresh processes with an empty kernel cache, seconds")
    for name in dict.fromkeys(name for _, seconds in runs for name in seconds):
        values = [seconds[name] for _, seconds in runs if name in seconds]
        print(f"{name:46s} {statistics.median(values):7.3f}  "
              f"(min {min(values):.3f}, max {max(values):.3f})")

if __name__ == "__main__":
    main()
