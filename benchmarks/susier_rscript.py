"""What the reference writers of susieR 0.16.5's fits share (``susier_inf_reference.py``,
``susier_nig_reference.py``, ``susier_mismatch_reference.py``): the command line, one R
process on one BLAS thread reading N3finemapping from the data home, and the JSON written
to ``tests/data``."""

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from alphavb.datasets import get_data_home


def write_reference(description, r_script, out_name, line):
    """Run ``r_script`` (its arguments: the susieR 0.16.5 library, the folder of the
    N3finemapping CSVs, the JSON to write) and store its JSON as ``tests/data/<out_name>``
    (or ``--out``); print ``line(name, fit)`` per fit."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--susier-lib", default=os.environ.get("SUSIER_LIB"),
                        help="the R library holding susieR 0.16.5")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1]
                                             / "tests" / "data" / out_name))
    args = parser.parse_args()
    if not args.susier_lib:
        parser.error("pass --susier-lib (or set SUSIER_LIB): the library holding susieR "
                     "0.16.5 (../shared/peers/susieR-0.16.5.md)")
    with tempfile.TemporaryDirectory() as tmp:
        script, raw = Path(tmp) / "reference.R", Path(tmp) / "reference.json"
        script.write_text(r_script)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        subprocess.run(["Rscript", str(script), args.susier_lib,
                        str(get_data_home() / "susie"), str(raw)], check=True, env=env)
        result = json.loads(raw.read_text())
    Path(args.out).write_text(json.dumps(result) + "\n")
    for name, fit in result["fits"].items():
        print(f"{name}: {line(fit)}")
