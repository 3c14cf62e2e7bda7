"""summarise_study against R's rsimsum, side by side on the same frame.

rsimsum is on CRAN only (not in Debian). It installs from its source (ellessenne/rsimsum;
release 0.13.0, the last one whose dependencies Debian 12 has: ``apt-get install
r-base-core r-cran-checkmate r-cran-ggplot2 r-cran-ggridges r-cran-knitr r-cran-rlang
r-cran-scales r-cran-tidyr``, then ``R CMD INSTALL -l LIB rsimsum``).

The script builds a deterministic frame (three methods, two groups, 40 replications, two
missing estimates; no random numbers, so the numbers do not depend on a generator),
runs ``simsum(..., methodvar = "method", ref = "A")`` on each group with model-based
intervals and with ``ci.limits``, and compares every statistic's estimate and MCSE with
``summarise_study``. With ``--write`` it stores rsimsum's numbers in
``tests/data/rsimsum_reference.csv``, which ``tests/test_summary.py`` checks against
without R.

Run: python benchmarks/rsimsum_parity.py [--r-lib LIB] [--write]
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from alphavb.simulation import summarise_study

REFERENCE = Path(__file__).parents[1] / "tests" / "data" / "rsimsum_reference.csv"

R_SCRIPT = """
suppressMessages(library(rsimsum, lib.loc = if (nzchar("{lib}")) "{lib}" else NULL))
d <- read.csv("{frame}")
out <- list()
for (g in unique(d$group)) {{
  dg <- d[d$group == g, ]
  truth <- dg$true[1]
  for (kind in c("se", "limits")) {{
    limits <- if (kind == "limits") c("lo", "up") else NULL
    s <- simsum(data = dg, estvarname = "b", se = "se", true = truth,
                methodvar = "method", ref = "A", ci.limits = limits)
    t <- tidy(s); t$group <- g; t$kind <- kind
    out[[length(out) + 1]] <- t
  }}
}}
res <- do.call(rbind, out)
res$est <- sprintf("%.17g", res$est); res$mcse <- sprintf("%.17g", res$mcse)
write.csv(res, "{out}", row.names = FALSE)
cat(as.character(packageVersion("rsimsum", lib.loc = if (nzchar("{lib}")) "{lib}" else NULL)))
"""


def parity_frame():
    """Three methods x two groups x 40 replications of closed-form numbers; method C has
    missing estimates at replications 3 and 17, and each method its own interval limits
    (``lo``, ``up``: asymmetric, as a spike-and-slab interval is)."""
    rows = []
    for m, method in enumerate("ABC"):
        for g, group in enumerate(("g1", "g2")):
            for i in range(40):
                theta = (np.nan if method == "C" and i in (3, 17) else
                         0.5 + 0.3 * np.sin(1.7 * i + 0.9 * g) + 0.1 * m * np.cos(0.7 * i)
                         + 0.02 * m)
                se = 0.25 + 0.05 * np.cos(2.3 * i + m) + 0.02 * g
                rows.append({"method": method, "group": group, "replication": i, "b": theta,
                             "se": se, "lo": theta - 1.7 * se, "up": theta + 2.1 * se,
                             "true": 0.5 + 0.1 * g})
    return pd.DataFrame(rows)


def ours(frame, kind):
    limits = {"lower": "lo", "upper": "up"} if kind == "limits" else {}
    table = summarise_study(frame, estimate="b", true="true", se="se", method="method",
                            ref="A", by="group", **limits)
    return table.assign(kind=kind)


def compare(reference, frame):
    """Rows of both tables merged, with the absolute differences of est and mcse."""
    table = pd.concat([ours(frame, kind) for kind in ("se", "limits")])
    merged = table.merge(reference, on=["kind", "group", "method", "stat"],
                         suffixes=("", "_rsimsum"))
    for column in ("est", "mcse"):
        merged[f"{column}_diff"] = (merged[column] - merged[f"{column}_rsimsum"]).abs()
    return merged


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--r-lib", default="", help="library folder rsimsum is installed in")
    parser.add_argument("--write", action="store_true", help=f"write {REFERENCE}")
    args = parser.parse_args()
    frame = parity_frame()
    with tempfile.TemporaryDirectory() as folder:
        frame_path, out_path = Path(folder) / "frame.csv", Path(folder) / "rsimsum.csv"
        frame.to_csv(frame_path, index=False, float_format="%.17g")
        script = R_SCRIPT.format(lib=args.r_lib, frame=frame_path, out=out_path)
        version = subprocess.run(["Rscript", "-e", script], check=True, capture_output=True,
                                 text=True).stdout.strip()
        reference = pd.read_csv(out_path)
    merged = compare(reference, frame)
    print(f"rsimsum {version}: {len(merged)} statistics compared")
    both = merged.dropna(subset=["est_rsimsum"])
    print(f"largest |est difference|: {both['est_diff'].max():.3g}")
    mcse = merged.dropna(subset=["mcse", "mcse_rsimsum"])
    print(f"largest |mcse difference|: {mcse['mcse_diff'].max():.3g}")
    differ = merged[merged["mcse"].notna() != merged["mcse_rsimsum"].notna()]
    for row in differ.itertuples():
        print(f"  {row.kind} {row.group} {row.method} {row.stat}: ours {row.mcse:.6g}, "
              f"rsimsum {row.mcse_rsimsum}")
    if args.write:
        REFERENCE.parent.mkdir(exist_ok=True)
        reference.to_csv(REFERENCE, index=False, float_format="%.17g")
        print(f"wrote {REFERENCE}")


if __name__ == "__main__":
    main()
