"""The full AADM UCI run's progress: one table row per cached fit, as vignettes/README.rst
shows it, and the paired AVB comparison on the splits both AVB rows have.

Reads the JSON rows that ``alphavb reproduce aadm-uci --out vignettes/runs/aadm-uci``
caches under ``vignettes/runs/aadm-uci/fits`` (no fitting).

Run: python vignettes/runs/aadm_uci_progress.py [FITS_FOLDER]
"""

import json
import sys
from pathlib import Path

import numpy as np

FITS = Path(__file__).parent / "aadm-uci" / "fits"


def read_rows(folder):
    rows = []
    for path in sorted(Path(folder).glob("*.json")):
        rows.append(json.loads(path.read_text(encoding="utf-8"))["row"])
    return sorted(rows, key=lambda r: (r["dataset"], r["split"], r["method"]))


def table(rows):
    widths = (6, 5, 19, 7, 9, 11)
    rule = "  ".join("=" * w for w in widths)
    lines = [rule, "  ".join(f"{h:<{w}}" for h, w in zip(
        ("set", "split", "method", "test LL", "test RMSE", "CPU s / fit"), widths)), rule]
    for r in rows:
        cpu = r.get("fit_cpu_seconds")
        lines.append(f"{r['dataset']:<6}  {r['split']:>5}  {r['method']:<19}  "
                     f"{r['test_ll']:>7.3f}  {r['test_rmse']:>9.3f}  "
                     f"{'' if cpu is None else f'{cpu:.0f}':>11}")
    lines.append(rule)
    return "\n".join(lines)


def paired_avb(rows):
    """Mean and s.e. over shared splits of AVB minus the authors'-code AVB (test LL)."""
    by = {(r["dataset"], r["split"], r["method"]): r for r in rows}
    lines = []
    for dataset in sorted({r["dataset"] for r in rows}):
        splits = sorted(s for (d, s, m) in by if d == dataset and m == "AVB (authors' code)"
                        and (d, s, "AVB") in by)
        if not splits:
            continue
        gaps = np.array([by[dataset, s, "AVB"]["test_ll"]
                         - by[dataset, s, "AVB (authors' code)"]["test_ll"] for s in splits])
        se = gaps.std(ddof=1) / np.sqrt(len(gaps)) if len(gaps) > 1 else float("nan")
        lines.append(f"{dataset}, splits {', '.join(map(str, splits))}: AVB minus the "
                     f"authors'-code AVB {gaps.mean():+.3f} +- {se:.3f} nats")
    return "\n".join(lines)


def main():
    rows = read_rows(sys.argv[1] if len(sys.argv) > 1 else FITS)
    print(f"{len(rows)} fits")
    print(table(rows))
    print(paired_avb(rows))


if __name__ == "__main__":
    main()
