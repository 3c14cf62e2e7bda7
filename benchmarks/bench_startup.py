"""Start-up times in fresh processes: ``alphavb --help``, ``import alphavb``, and the first
``AlphaLDA`` fit of a process (50 documents, 3 topics, 30 words, 5 sweeps; its numba kernels
loaded from the on-disk cache, numba's own import included), median of ``--repeats`` runs
after one warm-up run that fills the kernel cache if this checkout has not compiled it yet.

The issue's targets: ``--help`` under 1 s, the first LDA fit at most 0.3 s. Beside them,
numba's floor: its import and the first call of a one-line cached function, which pays
numba's one-time set-up of its registries. No test asserts these times (a loaded CI
machine failed such a test); tests/test_startup.py checks what is imported instead.

Run: python benchmarks/bench_startup.py [--repeats R]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_LDA_FIT = """
import json, time
from alphavb import AlphaLDA
from alphavb.datasets import make_lda_corpus
X, _, _ = make_lda_corpus(n_documents=50, n_topics=3, n_words=30, random_state=0)
start = time.perf_counter()
AlphaLDA(3, max_iter=5, random_state=0).fit(X)
print(json.dumps(time.perf_counter() - start))
"""


# numba's own floor: the first call in a fresh process of a one-line cached function (after
# numba's import), which sets up numba's typing and code-generation registries once
TRIVIAL_KERNEL = """
import numba

@numba.njit(cache=True)
def add_one(x):
    return x + 1.0
"""
FIRST_TRIVIAL_CALL = """
import json, sys, time
sys.path.insert(0, {folder!r})
start = time.perf_counter()
import numba
imported = time.perf_counter()
import trivial_kernel
trivial_kernel.add_one(1.0)
print(json.dumps([imported - start, time.perf_counter() - imported]))
"""
LDA_AFTER_NUMBA = FIRST_LDA_FIT.replace("start = time.perf_counter()",
                                        "import numba\nstart = time.perf_counter()")


def wall_seconds(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def inner_seconds(code):
    result = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    measures = {
        "alphavb --help (wall, process included)":
            lambda: wall_seconds([sys.executable, "-m", "alphavb", "--help"]),
        "python -c pass (the interpreter alone)":
            lambda: wall_seconds([sys.executable, "-c", "pass"]),
        "import alphavb (wall, process included)":
            lambda: wall_seconds([sys.executable, "-c", "import alphavb"]),
        "import alphavb.linear_model (scikit-learn; wall)":
            lambda: wall_seconds([sys.executable, "-c", "import alphavb.linear_model"]),
        "first AlphaLDA fit of a process (inside it)": lambda: inner_seconds(FIRST_LDA_FIT),
    }
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "trivial_kernel.py").write_text(TRIVIAL_KERNEL)
        trivial = FIRST_TRIVIAL_CALL.format(folder=folder)
        inner_seconds(trivial)  # warm-up: compiles it into its cache
        measures["numba's import (the floor, part 1)"] = lambda: inner_seconds(trivial)[0]
        measures["first call of a one-line cached numba function"] = (
            lambda: inner_seconds(trivial)[1])
        measures["first AlphaLDA fit after numba's import"] = (
            lambda: inner_seconds(LDA_AFTER_NUMBA))
        inner_seconds(FIRST_LDA_FIT)  # warm-up: compiles the kernels once if needed
        print(f"median of {args.repeats} fresh processes, seconds")
        for name, measure in measures.items():
            values = [measure() for _ in range(args.repeats)]
            print(f"{name:52s} {statistics.median(values):7.3f}  "
                  f"(min {min(values):.3f}, max {max(values):.3f})")


if __name__ == "__main__":
    main()
