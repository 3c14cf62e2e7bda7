"""Writes tests/data/susier_inf_search.json: susieR 0.16.5's SuSiE-inf (``susie(X, y, L =
3, unmappable_effects = "inf")``) on ten loci with a background
(``tests/linear_model/susie_helpers.ar_background_locus``, seeds 0-9), where its search of
each effect's V over V itself in [0, 1] and its stop on a cycle of the probabilities
matter: on these loci a search over log V kept V at a local optimum in 2 of 10 (seeds 0
and 7), and seed 0's method of moments alternates (a 2-cycle, iteration 8).

Per fit (``fits.seed<k>``): ``pip``, ``V``, ``sigma2``, ``tau2``, ``niter``,
``converged``, ``cs``, ``theta`` and ``seconds``, as ``susier_inf_reference.py``'s.

Run: python benchmarks/susier_inf_search_reference.py --susier-lib <library holding
    susieR 0.16.5>   (default: $SUSIER_LIB)
"""

import sys
from pathlib import Path

import numpy as np
from susier_rscript import background_line, write_reference  # benchmarks/ is the script's folder

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' locus
from tests.linear_model.susie_helpers import ar_background_locus

SEEDS = range(10)

R_SCRIPT = r"""
fits <- list()
for (seed in 0:9) {
  X <- as.matrix(read.csv(file.path(folder, sprintf("X%d.csv", seed)), header = FALSE))
  dimnames(X) <- NULL
  y <- scan(file.path(folder, sprintf("y%d.csv", seed)), quiet = TRUE)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(suppressMessages(susie(X, y, L = 3, unmappable_effects = "inf")))
  fits[[paste0("seed", seed)]] <- summarise(fit, proc.time()[["elapsed"]] - t0)
  fits[[paste0("seed", seed)]]$reason <- fit$convergence_reason
}
out <- list(susieR = as.character(packageVersion("susieR")), fits = fits)
"""


def write_loci(folder):
    for seed in SEEDS:
        X, y = ar_background_locus(seed)
        np.savetxt(folder / f"X{seed}.csv", X, delimiter=",", fmt="%.17g")
        np.savetxt(folder / f"y{seed}.csv", y, fmt="%.17g")


def main():
    write_reference(__doc__.split("\n\n")[0], R_SCRIPT, "susier_inf_search.json",
                    background_line, write_loci)


if __name__ == "__main__":
    main()
