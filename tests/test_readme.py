"""Every Python block of the README and of the user guide (``docs/guide.rst``) runs on its
own, saved as a script and run in a fresh interpreter, as a user who copies it into a file
would run it."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.rst"
GUIDE = ROOT / "docs" / "guide.rst"


def python_blocks(document=README):
    """The ``.. code-block:: python`` blocks of ``document``, dedented, with their lines."""
    lines = document.read_text(encoding="utf-8").splitlines()
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


BLOCKS = [(f"{document.name}:{line}", code) for document in (README, GUIDE)
          for line, code in python_blocks(document)]


def needs_missing_data(code):
    from alphavb.datasets import get_data_home

    home = Path(get_data_home())
    wanted = {"load_ap": home / "ap", "load_uci": home / "uci"}
    missing = [name for name, folder in wanted.items()
               if re.search(rf"\b{name}\(", code) and not folder.is_dir()]
    if '"plink"' in code and not (home / "plink").is_dir():  # a genotype file of the home
        missing.append("plink")
    return missing


def test_the_readme_is_a_short_guide_with_a_block_per_model_family():
    """At most about 250 lines, with one runnable example per model family, choosing alpha
    and a study; the rest is in the guide, whose blocks run too."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    blocks = "\n".join(code for _, code in python_blocks(README))
    for name in ("AlphaSpikeSlabRegression", "AlphaSuSiE", "AlphaGaussianMixture", "AlphaLDA",
                 "BBAlphaRegressor", "AlphaSelector", "compare_to_exact", "run_study"):
        assert name in blocks, name
    assert len(python_blocks(GUIDE)) >= 10
    for document in ("docs/guide.rst", "vignettes/README.rst", "benchmarks/README.rst",
                     "docs/architecture.rst"):
        assert document in text and (ROOT / document).is_file(), document


def block_environment():
    """A block's interpreter imports the alphavb these tests import (``python -m pytest``
    puts the checkout first on the path; CI installs the same checkout). Then it loads
    numba's kernels from the disk cache the other tests filled, where from the installed
    copy (another path, so another cache) each block compiled its kernels again: 50-70 s of
    a new install's suite. ``test_the_installed_package_has_every_module`` checks the
    installed copy itself."""
    import alphavb

    package_root = str(Path(alphavb.__file__).resolve().parents[1])
    path = [package_root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(path)}


@pytest.mark.fresh_interpreter  # a fresh interpreter each (2-25 s)
@pytest.mark.parametrize("line, code", BLOCKS, ids=[place for place, _ in BLOCKS])
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
                            capture_output=True, text=True, timeout=600, check=False,
                            env=block_environment())
    assert result.returncode == 0, f"block at {line}:\n{result.stderr[-3000:]}"


INSTALLED_FILES = """
import json
from pathlib import Path
import alphavb
package = Path(alphavb.__file__).resolve().parent
print(json.dumps(sorted(str(path.relative_to(package)) for path in package.rglob("*.py"))))
"""


def test_the_installed_package_has_every_module(tmp_path):
    """The alphavb a user's script imports (a folder outside the checkout, the environment's
    own path: after ``pip install .`` the installed copy) holds every module of the
    checkout: a subpackage left out of pyproject.toml's package list fails here, as it would
    for a user (the README's blocks import the checkout, ``block_environment``)."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", INSTALLED_FILES], cwd=tmp_path,
                            env=environment, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    installed = json.loads(result.stdout.strip().splitlines()[-1])
    package = ROOT / "alphavb"
    checkout = sorted(str(path.relative_to(package)) for path in package.rglob("*.py"))
    assert installed == checkout, (
        f"the installed alphavb lacks {sorted(set(checkout) - set(installed))} and has "
        f"{sorted(set(installed) - set(checkout))} beyond the checkout: pip install . again")
