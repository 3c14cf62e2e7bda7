"""The susie2 benchmark's table in ``vignettes/README.rst``, from the benchmark's Markdown
table (``alphavb reproduce susie2-benchmark`` writes ``susie2_benchmark.md``): the columns
the vignette shows, as an RST simple table, printed or (``--write``) put in place of the
vignette's table (the one whose header starts ``scenario     method``). A cell the
Markdown table left as ``nan`` (a mean of no set, or an MCSE of one replicate) reads n/a.

Run: python benchmarks/susie2_vignette_table.py [results/susie2-benchmark/susie2_benchmark.md]
    [--write]
"""

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIGNETTE = ROOT / "vignettes" / "README.rst"
# (the Markdown table's column, the vignette's header)
COLUMNS = (("scenario", "scenario"), ("method", "method"), ("coverage", "coverage"),
           ("power", "power"), ("size", "size"), ("purity", "purity"),
           ("coverage_top3", "top-3 coverage"), ("sets", "sets"), ("alpha", "alpha"),
           ("seconds", "seconds"), ("n_sets", "n sets"))


def markdown_rows(text):
    """The rows of the Markdown table in ``text`` as dicts by column."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == len(header):
            rows.append(dict(zip(header, cells, strict=True)))
    return rows


def shown(cell):
    return cell.replace("nan +- nan", "n/a").replace("+- nan", "+- n/a")


def rst_table(rows):
    """The vignette's RST simple table of ``rows``."""
    headers = [header for _, header in COLUMNS]
    # a table written before the set counts were recorded has no n_sets column
    body = [[shown(row.get(key, "n/a")) for key, _ in COLUMNS] for row in rows]
    widths = [max(len(header), *(len(line[i]) for line in body))
              for i, header in enumerate(headers)]
    rule = "  ".join("=" * width for width in widths)

    def line(cells):
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths,
                                                                  strict=True)).rstrip()

    return "\n".join([rule, line(headers), rule, *map(line, body), rule])


def replace_table(vignette, table):
    """``vignette`` with its susie2 table (from the rule above ``scenario     method`` to
    the table's closing rule) replaced by ``table``."""
    lines = vignette.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("scenario     method")) - 1
    rules = [i for i in range(start, len(lines)) if lines[i].startswith("=" * 11 + "  ")]
    return "\n".join(lines[:start] + table.splitlines() + lines[rules[2] + 1:]) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("markdown", nargs="?",
                        default=ROOT / "results" / "susie2-benchmark" / "susie2_benchmark.md")
    parser.add_argument("--write", action="store_true", help="replace the vignette's table")
    args = parser.parse_args()
    table = rst_table(markdown_rows(Path(args.markdown).read_text(encoding="utf-8")))
    if args.write:
        VIGNETTE.write_text(replace_table(VIGNETTE.read_text(encoding="utf-8"), table),
                            encoding="utf-8")
    else:
        print(table)


if __name__ == "__main__":
    main()
