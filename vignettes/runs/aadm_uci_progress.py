"""The full AADM UCI run's progress: one table row per cached fit, as vignettes/README.rst
shows it, and paired differences of test LL between methods on the splits both have.

Reads the JSON rows that ``alphavb reproduce aadm-uci --out vignettes/runs/aadm-uci``
caches under ``vignettes/runs/aadm-uci/fits`` (no fitting). ``--write`` puts the text in
vignettes/README.rst between the comments ``.. aadm-uci-progress`` and
``.. end of aadm-uci-progress`` (the rest of the file unchanged).

Run: python vignettes/runs/aadm_uci_progress.py [--write] [FITS_FOLDER]
"""

import json
import sys
import textwrap
from pathlib import Path

import numpy as np

from alphavb.reproduce._output import _standard_error
from alphavb.reproduce.aadm import AADM_UCI_METHODS, AUTHORS_CODE_SPLITS, AUTHORS_CODE_SUFFIX

FITS = Path(__file__).parent / "aadm-uci" / "fits"
VIGNETTE = Path(__file__).parents[1] / "README.rst"
START, END = ".. aadm-uci-progress\n", ".. end of aadm-uci-progress\n"
DATASETS, N_SPLITS = ("boston", "yacht"), 20


def read_rows(folder):
    rows = []
    for path in sorted(Path(folder).glob("*.json")):
        rows.append(json.loads(path.read_text(encoding="utf-8"))["row"])
    return sorted(rows, key=lambda r: (r["dataset"], r["split"], r["method"]))


def table(rows):
    widths = (6, 5, max(len(m) for m in AADM_UCI_METHODS), 7, 9, 11)
    rule = "  ".join("=" * w for w in widths)
    lines = [rule, "  ".join(f"{h:<{w}}" for h, w in zip(
        ("set", "split", "method", "test LL", "test RMSE", "CPU s / fit"), widths,
        strict=True)), rule]
    for r in rows:
        cpu = r.get("fit_cpu_seconds")
        lines.append(f"{r['dataset']:<6}  {r['split']:>5}  {r['method']:<{widths[2]}}  "
                     f"{r['test_ll']:>7.3f}  {r['test_rmse']:>9.3f}  "
                     f"{'' if cpu is None else f'{cpu:.0f}':>11}")
    lines.append(rule)
    return "\n".join(lines)


# the paired differences of test LL the section reports: (first, second) methods
PAIRS = (("AADM alpha=1", "AVB"), ("AADM alpha=0.5", "AVB"), ("AVB", "VI"),
         ("AVB", "AVB (authors' code)"), ("AADM alpha=1", "AADM alpha=1 (authors' code)"),
         ("AADM alpha=1 (authors' code)", "AVB (authors' code)"))


def paired(rows, first, second):
    """Per data set, the test LL of ``first`` minus ``second`` on the splits both have: the
    splits, the mean and its standard error, the median, and on how many ``first`` is
    ahead (a data set where no split has both is left out)."""
    by = {(r["dataset"], r["split"], r["method"]): r["test_ll"] for r in rows}
    result = {}
    for dataset in sorted({r["dataset"] for r in rows}):
        splits = sorted(s for (d, s, m) in by if d == dataset and m == first
                        and (d, s, second) in by)
        if splits:
            gaps = np.array([by[dataset, s, first] - by[dataset, s, second] for s in splits])
            result[dataset] = {"splits": splits, "mean": gaps.mean(),
                               "se": _standard_error(gaps),
                               "median": float(np.median(gaps)),
                               "ahead": int(np.sum(gaps > 0))}
    return result


def paired_lines(rows):
    """One line per data set and pair of ``PAIRS`` that share a split."""
    lines = []
    for first, second in PAIRS:
        for dataset, d in paired(rows, first, second).items():
            n = len(d["splits"])
            se = f" +- {d['se']:.3f}" if n > 1 else ""
            lines.append(f"- {dataset}, {first} minus {second}: {d['mean']:+.3f}{se} (median "
                         f"{d['median']:+.3f}; ahead on {d['ahead']} of {n} split"
                         f"{'s' if n > 1 else ''})")
    return "\n".join(lines)


def counts(rows):
    """How many of the run's fits are done, per data set, and the CPU seconds per fit."""
    authors = [m for m in AADM_UCI_METHODS if m.endswith(AUTHORS_CODE_SUFFIX)]
    per_set = (N_SPLITS * (len(AADM_UCI_METHODS) - len(authors))
               + len(authors) * min(AUTHORS_CODE_SPLITS, N_SPLITS))
    done = ", ".join(f"{name} {sum(r['dataset'] == name for r in rows)}"
                     for name in DATASETS)
    kinds = ("AADM or AVB", "VI", "the authors' code")
    cpu = {}
    for r in rows:
        if r.get("fit_cpu_seconds") is not None:
            kind = kinds[1] if r["method"] == "VI" else kinds[2 if "authors" in r["method"] else 0]
            cpu.setdefault(r["dataset"], {}).setdefault(kind, []).append(r["fit_cpu_seconds"])

    def span(values):
        low, high = round(min(values)), round(max(values))
        return f"{low}" if low == high else f"{low}-{high}"

    spans = "; ".join(f"{name}: " + ", ".join(f"{kind} {span(by_kind[kind])}"
                                             for kind in kinds if kind in by_kind)
                      for name, by_kind in sorted(cpu.items()))
    return textwrap.fill(f"{len(rows)} of the {per_set * len(DATASETS)} fits are done "
                         f"({done}). CPU seconds per fit: {spans}.", 92)


def section(rows):
    text = f"{counts(rows)}\n\n{table(rows)}\n"
    lines = paired_lines(rows)
    if lines:
        text += ("\nPaired differences of test LL in nats on the splits both methods have "
                 "so far\n(mean +- s.e.; positive: the first is ahead):\n\n" + lines + "\n")
    return text


def write(rows, vignette=VIGNETTE):
    text = vignette.read_text(encoding="utf-8")
    if text.count(START) != 1 or text.count(END) != 1:
        raise SystemExit(f"{vignette} needs one {START.strip()!r} and one {END.strip()!r}")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    vignette.write_text(f"{head}{START}\n{section(rows)}\n{END}\n{tail.lstrip()}",
                        encoding="utf-8")


def main(argv):
    folder = [a for a in argv if a != "--write"]
    folder = Path(folder[0]) if folder else FITS
    if not folder.is_dir():  # an unknown flag or a typo would otherwise report 0 fits done
        usage = __doc__.splitlines()[-1].removeprefix("Run: ")
        sys.exit(f"FITS_FOLDER {folder} is not a folder; usage: {usage}")
    rows = read_rows(folder)
    if "--write" in argv:
        write(rows)
    print(section(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
