"""Compare two output folders of ``alphavb reproduce`` (e.g. ``all --quick`` before and after
a restructuring): figures pixel by pixel, CSV tables cell by cell, Markdown tables line by
line, ignoring what measures the machine rather than the fit (columns and cells that hold
seconds, the caches' manifests).

Run: python benchmarks/compare_reproduce.py BEFORE_DIR AFTER_DIR
Prints one line per file that differs (or is missing) and exits with 1 if any does.
"""

import csv
import re
import sys
from pathlib import Path

# a column whose values are times, the machine, or how the run grouped its fits: its name
# says so
TIMING = re.compile(r"(seconds|time|_s$|elapsed|minutes|hours|platform|stack_size)",
                    re.IGNORECASE)
# a Markdown cell or line that reports a time ("12.3 s", "4 min")
TIMED_TEXT = re.compile(r"\d+(\.\d+)?\s*(s|ms|min|minutes|seconds|hours|h)\b")


def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return rows
    keep = [i for i, name in enumerate(rows[0]) if not TIMING.search(name)]
    return [[row[i] for i in keep if i < len(row)] for row in rows]


def _markdown_lines(path):
    """The lines, with a table's timing columns (by their header) and timed text removed."""
    lines, keep = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            keep = None
            lines.append(TIMED_TEXT.sub("<time>", line))
            continue
        cells = line.strip().strip("|").split("|")
        if keep is None:  # a table's header
            keep = [i for i, cell in enumerate(cells) if not TIMING.search(cell.strip())]
        lines.append("|".join(cells[i] for i in keep if i < len(cells)))
    return lines


def _same_image(before, after):
    import numpy as np
    from matplotlib.image import imread

    a, b = imread(before), imread(after)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def compare(before, after):
    """The relative paths of the output files that differ between the two folders."""
    before, after = Path(before), Path(after)
    differing = []
    for path in sorted(before.rglob("*")):
        relative = path.relative_to(before)
        if not path.is_file() or "cache" in relative.parts or "fits" in relative.parts:
            continue  # the caches hold timings and paths; their results are in the tables
        other = after / relative
        if not other.is_file():
            differing.append(f"{relative}: missing after")
        elif path.suffix == ".png":
            if not _same_image(path, other):
                differing.append(f"{relative}: the pixels differ")
        elif path.suffix == ".csv":
            if _csv_rows(path) != _csv_rows(other):
                differing.append(f"{relative}: the cells differ")
        elif path.suffix == ".md":
            if _markdown_lines(path) != _markdown_lines(other):
                differing.append(f"{relative}: the lines differ")
        elif path.read_bytes() != other.read_bytes():
            differing.append(f"{relative}: the bytes differ")
    return differing


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__)
        return 2
    differing = compare(*argv)
    for line in differing:
        print(line)
    print(f"{len(differing)} files differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
