"""The numbers the vignette's susie2 bullets cite, and issue 57's targets checked, from the
benchmark's tables (``alphavb reproduce susie2-benchmark`` writes ``susie2_benchmark.csv``
and ``susie2_benchmark_pips.csv``), so that a new stage's text is read off, not copied.

Targets (for the recommended configuration, alpha and background calibrated per replicate,
``SuSiE-inf, calibrated``): coverage of the 95% credible sets >= 0.95 within its MCSE in
S1, S2, the sparse scenarios and t3; power >= SuSiE-inf's at alpha = 1 in S1 and S2; power
within 0.02 of SuSiE's at alpha = 1 in the sparse scenarios; with LD from other individuals
(no calibration there), which method covers best. PIPs: per scenario and method, over the
variants with PIP >= 0.5, their mean PIP and the share that is causal.

Run: python benchmarks/susie2_key_numbers.py [results/susie2-benchmark]
"""

import argparse
import csv
from pathlib import Path

RECOMMENDED = "SuSiE-inf, calibrated"
LEVEL = 0.95
SPARSE = ("sparse1", "sparse2", "sparse3", "sparse4", "sparse5")
POWER_SLACK = 0.02


def read_rows(path):
    """The rows of a CSV as dicts, numbers as floats (text kept)."""
    def value(text):
        try:
            return float(text)
        except ValueError:
            return text

    with open(path, newline="", encoding="utf-8") as handle:
        return [{key: value(text) for key, text in row.items()} for row in csv.DictReader(handle)]


def _row(table, scenario, method):
    return next((row for row in table
                 if row["scenario"] == scenario and row["method"] == method), None)


def target_checks(table):
    """``[(scenario, target, found, met)]``: issue 57's targets on the benchmark table
    (module docstring); a scenario the table lacks is left out."""
    checks = []
    for scenario in (*SPARSE, "S1", "S2", "t3"):
        chosen = _row(table, scenario, RECOMMENDED)
        if chosen is None:
            continue
        coverage, error = chosen["coverage"], chosen["coverage_se"]
        if coverage != coverage:  # NaN: no credible set in any replicate
            checks.append((scenario, f"coverage >= {LEVEL} within MCSE", "no sets", False))
            continue
        if error > 0:
            short = max((LEVEL - coverage) / error, 0.0)
        else:  # every set covered, or none did
            short = 0.0 if coverage >= LEVEL else float("inf")
        checks.append((scenario, f"coverage >= {LEVEL} within MCSE",
                       f"{coverage:.3f} +- {error:.3f} ({short:.1f} MCSE short)",
                       coverage + error >= LEVEL))
        if scenario in ("S1", "S2"):
            peer = _row(table, scenario, "SuSiE-inf, alpha = 1")
            if peer is not None:
                checks.append((scenario, "power >= SuSiE-inf's",
                               f"{chosen['power']:.3f} vs {peer['power']:.3f}",
                               chosen["power"] >= peer["power"]))
        if scenario in SPARSE:
            peer = _row(table, scenario, "SuSiE, alpha = 1")
            if peer is not None:
                checks.append((scenario, f"power within {POWER_SLACK} of SuSiE's",
                               f"{chosen['power']:.3f} vs {peer['power']:.3f}",
                               chosen["power"] >= peer["power"] - POWER_SLACK))
    mismatch = [row for row in table if row["scenario"] == "ld_mismatch"
                and row["method"].endswith("alpha = 1")]
    if mismatch:
        best = max(mismatch, key=lambda row: row["coverage"])
        others = ", ".join(f"{row['method']} {row['coverage']:.3f}" for row in mismatch
                           if row is not best)
        checks.append(("ld_mismatch", "the best coverage at alpha = 1",
                       f"{best['method']} {best['coverage']:.3f} +- {best['coverage_se']:.3f} "
                       f"({others})", True))
    return checks


def pip_honesty(pips, threshold=0.5):
    """Per ``(setting, method)``: the variants at PIP >= ``threshold`` pooled over the bins,
    their number, mean PIP and the share that is causal."""
    found = {}
    for row in pips:
        low = float(str(row["bin"]).strip("[").split(",")[0])
        if low < threshold:
            continue
        count = int(row["variants"])
        key = (row["setting"], row["method"])
        n, pip_sum, causal_sum = found.get(key, (0, 0.0, 0.0))
        found[key] = (n + count, pip_sum + count * row["mean_pip"],
                      causal_sum + count * row["causal_share"])
    return {key: (n, pip_sum / n, causal_sum / n) for key, (n, pip_sum, causal_sum)
            in found.items() if n}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path,
                        default=Path(__file__).resolve().parent.parent / "results"
                        / "susie2-benchmark")
    args = parser.parse_args()
    table = read_rows(args.folder / "susie2_benchmark.csv")
    print("replicates per row:", sorted({int(row["replicates"]) for row in table}))
    for scenario, target, found, met in target_checks(table):
        print(f"{scenario:12s} {target:36s} {found:60s} {'met' if met else 'NOT met'}")
    print("\nvariants at PIP >= 0.5: number, mean PIP, causal share")
    for (setting, method), (n, mean_pip, share) in sorted(
            pip_honesty(read_rows(args.folder / "susie2_benchmark_pips.csv")).items()):
        if method.endswith("alpha = 1") or method.endswith("calibrated"):
            print(f"{setting:12s} {method:28s} {n:6d} {mean_pip:.3f} {share:.3f}")


if __name__ == "__main__":
    main()
