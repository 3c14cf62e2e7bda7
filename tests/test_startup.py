"""Start-up cost: what `import alphavb` loads (times are in benchmarks/bench_startup.py;
no test asserts a wall-clock time)."""

import json
import subprocess
import sys

SKLEARN_ONLY = """
import sys
import alphavb
print(sorted(name for name in ("numba", "autograd", "matplotlib", "dask", "statsmodels",
                               "tqdm", "arviz", "alphavb.blackbox") if name in sys.modules))
"""


def run(code):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_import_loads_neither_numba_nor_the_black_box_backend():
    assert run(SKLEARN_ONLY) == []



HELP_ONLY = """
import contextlib, io, sys
from alphavb import cli
for argv in (["--help"], ["reproduce", "--help"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        cli.main(argv)
print(sorted(name for name in ("numpy", "scipy", "sklearn", "numba", "matplotlib",
                               "alphavb.reproduce.rates") if name in sys.modules))
"""


def test_the_command_line_help_imports_no_numerical_library():
    """``alphavb --help`` took about 3 s importing every target; each target's module is
    now imported when it runs (the time is in benchmarks/bench_startup.py)."""
    assert run(HELP_ONLY) == []
