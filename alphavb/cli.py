"""Command line: ``alphavb reproduce TARGET [--out DIR]`` (also ``python -m alphavb``)."""

import argparse
import sys

from .reproduce import TARGETS


def main(argv=None):
    parser = argparse.ArgumentParser(prog="alphavb", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", help="reproduce a worked example of the paper")
    reproduce.add_argument("target", choices=sorted(TARGETS),
                           help="hdr: sparse regression, the paper's Figure 1; "
                                "gmm: Gaussian mixture, the paper's Figure 2; "
                                "lda: AP topics, the paper's Table 1 (needs the AP corpus)")
    reproduce.add_argument("--out", default=None,
                           help="output folder (default: results/TARGET)")
    reproduce.add_argument("--seed", type=int, default=0, help="random seed of the data")
    args = parser.parse_args(argv)
    out = args.out or f"results/{args.target}"
    try:
        result = TARGETS[args.target](out_dir=out, random_state=args.seed)
    except FileNotFoundError as error:  # a real data set is missing: say what is needed
        print(f"alphavb reproduce {args.target}: {error}", file=sys.stderr)
        return 2
    for path in result["files"]:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
