"""Every Python block of the README runs on its own, saved as a script and run in a fresh
interpreter, as a user who copies it into a file would run it."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.rst"


def python_blocks():
    """The ``.. code-block:: python`` blocks of the README, dedented, with their lines."""
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks = []
    for number, line in enumerate(lines):
        if line.strip() != ".. code-block:: python":
            continue
        body = []
        for following in lines[number + 2:]:
            if following.strip() and not following.startswith("    "):
                break
            body.append(following)
        blocks.append((number + 1, textwrap.dedent("\n".join(body)).strip() + "\n"))
    return blocks


BLOCKS = python_blocks()


def needs_missing_data(code):
    from alphavb.datasets import get_data_home

    home = Path(get_data_home())
    wanted = {"load_ap": home / "ap", "load_uci": home / "uci"}
    return [name for name, folder in wanted.items()
            if re.search(rf"\b{name}\(", code) and not folder.is_dir()]


def test_the_readme_has_blocks():
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("line, code", BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_readme_block_runs_on_its_own(line, code, tmp_path):
    missing = needs_missing_data(code)
    if missing:
        pytest.skip(f"{', '.join(missing)} needs a data set not in the data home")
    # a file, not python -c: dask's worker processes import the main script again (the
    # README's dask block failed as a script without its __main__ guard, not under -c)
    script = tmp_path / "readme_block.py"
    script.write_text(code, encoding="utf-8")
    # warnings as errors: a first-time user takes a warning for their own mistake
    result = subprocess.run([sys.executable, "-W", "error", str(script)], cwd=tmp_path,
                            capture_output=True,
                            text=True, timeout=600, check=False, env={**os.environ,
                                                                       "MPLBACKEND": "Agg"})
    assert result.returncode == 0, f"README block at line {line}:\n{result.stderr[-3000:]}"
