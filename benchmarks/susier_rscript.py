"""What the reference writers of susieR 0.16.5's fits share (``susier_inf_reference.py``,
``susier_ash_reference.py``, ``susier_nig_reference.py``, ``susier_mismatch_reference.py``):
the command line, one R process on one BLAS thread, the R that loads susieR 0.16.5 and
reads N3finemapping (``X``, ``Y``) from the data home and the R that writes ``out`` as
JSON (around each script's own R), ``summarise`` (the R summary of a fit with a
background) and the JSON written to ``tests/data``."""

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from alphavb.datasets import get_data_home

# run before each script's R: susieR 0.16.5 and N3finemapping's X and Y
R_PREAMBLE = r"""
.libPaths(c(commandArgs(TRUE)[1], .libPaths()))
suppressPackageStartupMessages({library(susieR); library(jsonlite)})
stopifnot(as.character(packageVersion("susieR")) == "0.16.5")
folder <- commandArgs(TRUE)[2]
if (file.exists(file.path(folder, "N3finemapping_X.csv"))) {
  X <- as.matrix(read.csv(file.path(folder, "N3finemapping_X.csv"), header = FALSE))
  Y <- as.matrix(read.csv(file.path(folder, "N3finemapping_Y.csv"), header = FALSE))
  dimnames(X) <- NULL
}
summarise <- function(fit, seconds) {
  cs <- lapply(fit$sets$cs, function(v) unname(v) - 1L)
  list(pip = unname(fit$pip), V = unname(fit$V), sigma2 = fit$sigma2, tau2 = fit$tau2,
       niter = fit$niter, converged = fit$converged, cs = unname(cs),
       theta = as.vector(fit$theta), seconds = seconds)
}
"""
# run after it: its ``out`` as JSON
R_WRITE = r"""
writeLines(toJSON(out, auto_unbox = TRUE, digits = I(15), null = "null"), commandArgs(TRUE)[3])
"""


def background_line(fit):
    """The printed line of a fit with a background (SuSiE-inf, SuSiE-ash)."""
    return (f"sigma2 {fit['sigma2']:.6g} tau2 {fit['tau2']:.4g} sets {len(fit['cs'])} "
            f"iterations {fit['niter']} {fit['seconds']:.2f} s")


def write_reference(description, r_script, out_name, line, write_data=None):
    """Run ``r_script`` between :data:`R_PREAMBLE` and :data:`R_WRITE` (it reads ``X``,
    ``Y`` and sets ``out``) and store the JSON as ``tests/data/<out_name>`` (or ``--out``);
    print ``name: line(fit)`` per fit. ``write_data(folder)``: the script's own data, written
    to a folder it reads as ``folder`` (instead of N3finemapping's)."""
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
        script.write_text(R_PREAMBLE + r_script + R_WRITE)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        folder = get_data_home() / "susie"
        if write_data is not None:
            folder = Path(tmp)
            write_data(folder)
        subprocess.run(["Rscript", str(script), args.susier_lib, str(folder), str(raw)],
                       check=True, env=env)
        result = json.loads(raw.read_text())
    Path(args.out).write_text(json.dumps(result) + "\n")
    for name, fit in result["fits"].items():
        print(f"{name}: {line(fit)}")
