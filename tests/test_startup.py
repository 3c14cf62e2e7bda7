"""Start-up cost: what `import alphavb` loads, and the first fit in a fresh process."""

import json
import subprocess
import sys

SKLEARN_ONLY = """
import sys
import alphavb
print(sorted(name for name in ("numba", "autograd", "matplotlib", "dask", "statsmodels",
                               "tqdm", "arviz", "alphavb.blackbox") if name in sys.modules))
"""

FIRST_FIT = """
import json, time
from alphavb import AlphaLDA
from alphavb.datasets import make_lda_corpus
X, _, _ = make_lda_corpus(n_documents=50, n_topics=3, n_words=30, random_state=0)
start = time.perf_counter()
AlphaLDA(3, max_iter=5, random_state=0).fit(X)
print(json.dumps(time.perf_counter() - start))
"""


def run(code):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_import_loads_neither_numba_nor_the_black_box_backend():
    assert run(SKLEARN_ONLY) == []


def test_first_lda_fit_of_a_process_loads_cached_kernels():
    """The kernels are compiled once and cached on disk; a new process's first fit loads
    them (it took 2.4 s when the parallel kernels were compiled in every process). The
    bound is 1 s: loading measures 0.38-0.53 s on this 2-core machine, and 0.5 s failed
    twice in CI-like runs while nothing was compiled."""
    run(FIRST_FIT)  # warms the on-disk cache if this checkout has not compiled them yet
    assert min(run(FIRST_FIT) for _ in range(2)) <= 1.0
