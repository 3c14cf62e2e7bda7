"""susieR 0.16.5's own SuSiE-inf and SuSiE-ash beside alphavb's on replicates of the
susie2 benchmark (``alphavb reproduce susie2-benchmark``: windows of 5,000 mouse_hs1940
variants, 1,000 mice, the same seeds as the benchmark's replicates), one thread each.

Per replicate and background: the largest PIP difference, whether the 95% credible sets
are the same, each package's credible sets' coverage and power (the benchmark's causal
variants) and seconds. Both packages read ``scale(X)`` and ``y`` of sd 1 (susieR's
Mr.ASH reads the raw X while its single effects read the standardized one, and stops at
an absolute tolerance: the two agree on standardized columns and y).

Run: ALPHAVB_DATA=../shared/data python benchmarks/susie2_susier_side_by_side.py \\
    --susier-lib LIB [--scenarios S1 S2 sparse3] [--replicates 5]
"""

import argparse
import os
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from bench_susie import write_arrays  # benchmarks/ is the script's folder
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.reproduce import susie2_benchmark as benchmark
from alphavb.simulation._cells import _seeds

R_FIT = r"""
args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]; n <- as.integer(args[2]); p <- as.integer(args[3])
.libPaths(c(args[4], .libPaths())); background <- args[5]
suppressMessages(library(susieR))
read <- function(name, size) readBin(file.path(folder, paste0(name, ".bin")), "double", size)
X <- scale(matrix(read("X", n * p), n, p)); y <- read("y", n)
attributes(X) <- list(dim = c(n, p))
seconds <- system.time(fit <- suppressMessages(susie(X, y, L = 10,
                                                  unmappable_effects = background)))
writeBin(as.double(susie_get_pip(fit)), file.path(folder, "pip.bin"))
sets <- if (is.null(fit$sets$cs)) "" else
  paste(sapply(fit$sets$cs, function(v) paste(sort(v) - 1L, collapse = ",")), collapse = ";")
writeLines(c(sprintf("%.4f", seconds[["elapsed"]]), sets), file.path(folder, "out.txt"))
"""


def susier_fit(folder, X, y, background, library):
    """(PIPs, credible sets as sorted tuples, seconds) of susieR 0.16.5's fit."""
    write_arrays(folder, {"X": X, "y": y})
    script = Path(folder, "fit.R")
    script.write_text(R_FIT)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    subprocess.run(["Rscript", str(script), folder, str(X.shape[0]), str(X.shape[1]),
                    library, background], check=True, env=env, capture_output=True)
    seconds, sets = Path(folder, "out.txt").read_text().split("\n")[:2]
    found = [tuple(int(v) for v in part.split(",")) for part in sets.split(";") if part]
    return np.fromfile(Path(folder, "pip.bin"), dtype="<f8"), found, float(seconds)


def scores(sets, causal):
    """(sets holding a causal variant, sets, causal variants in a set)."""
    covering = sum(bool(set(found) & causal) for found in sets)
    return covering, len(sets), len(causal & set().union(*sets)) if sets else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--susier-lib", default=os.environ.get("SUSIER_LIB"))
    parser.add_argument("--scenarios", nargs="+", default=["S1", "S2", "sparse3"])
    parser.add_argument("--replicates", type=int, default=5)
    args = parser.parse_args()
    if not args.susier_lib:
        parser.error("give --susier-lib or set SUSIER_LIB (the library of susieR 0.16.5)")
    print(f"{'scenario':9s} {'rep':>3s} {'bg':3s} {'max|dPIP|':>9s} {'same sets':>9s} "
          f"{'alphavb cov, pow':>16s} {'susieR cov, pow':>16s} {'alphavb s':>9s} "
          f"{'susieR s':>8s}")
    totals = {}
    with tempfile.TemporaryDirectory() as folder, threadpool_limits(1):
        for scenario in args.scenarios:
            for replicate in range(args.replicates):
                seed = _seeds(0, replicate, {"n_samples": benchmark.data.N_SAMPLES})[0]
                X, y, truth = benchmark._simulate(benchmark.data.N_SAMPLES, seed, scenario,
                                                  benchmark.data.WINDOW)
                X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
                y = (y - y.mean()) / y.std(ddof=1)  # susieR's Mr.ASH stops in y's units
                causal = set(truth["causal"].tolist())
                for background in ("inf", "ash"):
                    started = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = AlphaSuSiE(unmappable_effects=background).fit(X, y)
                    ours_seconds = time.perf_counter() - started
                    ours = [tuple(sorted(found["variables"]))
                            for found in model.credible_sets_]
                    pips, theirs, their_seconds = susier_fit(folder, X, y, background,
                                                             args.susier_lib)
                    a, b = scores(ours, causal), scores(theirs, causal)
                    total = totals.setdefault(background, np.zeros(8))
                    total += [*a, *b, ours_seconds, their_seconds]
                    ours_text = f"{a[0]}/{a[1]}, {a[2]}/{len(causal)}"
                    their_text = f"{b[0]}/{b[1]}, {b[2]}/{len(causal)}"
                    print(f"{scenario:9s} {replicate:3d} {background:3s} "
                          f"{np.max(np.abs(model.inclusion_probabilities_ - pips)):9.1e} "
                          f"{sorted(ours) == sorted(theirs)!s:>9s} {ours_text:>16s} "
                          f"{their_text:>16s} {ours_seconds:9.2f} {their_seconds:8.2f}",
                          flush=True)
    for background, total in totals.items():
        print(f"{background}: alphavb sets {total[0]:.0f}/{total[1]:.0f} covering, "
              f"susieR {total[3]:.0f}/{total[4]:.0f}; time {total[6]:.1f} s against "
              f"{total[7]:.1f} s ({total[6] / total[7]:.2f}x)")


if __name__ == "__main__":
    main()
