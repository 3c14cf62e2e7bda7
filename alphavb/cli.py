"""Command line: ``alphavb reproduce TARGET [--out DIR] [--quick] [--jobs N] [--epochs N]
[--splits N] [--datasets A,B]`` (also
``python -m alphavb``)."""

import argparse
import inspect
import sys

from .reproduce import TARGETS


def main(argv=None):
    parser = argparse.ArgumentParser(prog="alphavb", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", help="reproduce a worked example of the paper")
    reproduce.add_argument("target", choices=sorted(TARGETS),
                           help="hdr: sparse regression, the paper's Figure 1; "
                                "gmm: Gaussian mixture, the paper's Figure 2; "
                                "lda: AP topics, the paper's Table 1 (needs the AP corpus); "
                                "bbalpha-uci: BB-alpha BNNs on the UCI benchmarks (needs "
                                "the UCI splits); aadm-toy: AADM's Figure 2 and Table 1; "
                                "aadm-uci: AADM, AVB and VI on the UCI benchmarks")
    reproduce.add_argument("--out", default=None,
                           help="output folder (default: results/TARGET)")
    reproduce.add_argument("--seed", type=int, default=0, help="random seed of the data")
    reproduce.add_argument("--quick", action="store_true",
                           help="a small version that runs in seconds (bbalpha-uci)")
    reproduce.add_argument("--jobs", type=int, default=1,
                           help="parallel worker processes (bbalpha-uci, aadm-toy, aadm-uci)")
    reproduce.add_argument("--epochs", type=int, default=None,
                           help="training epochs instead of the paper's (aadm-toy, aadm-uci)")
    reproduce.add_argument("--splits", type=int, default=None,
                           help="only the first N standard splits (bbalpha-uci, aadm-uci)")
    reproduce.add_argument("--datasets", default=None,
                           help="comma-separated UCI sets, e.g. boston,yacht (bbalpha-uci, "
                                "aadm-uci)")
    args = parser.parse_args(argv)
    out = args.out or f"results/{args.target}"
    target = TARGETS[args.target]
    options = {"out_dir": out, "random_state": args.seed}
    accepted = inspect.signature(target).parameters
    for flag, name, value, default in (("--quick", "quick", args.quick, False),
                                       ("--jobs", "n_jobs", args.jobs, 1),
                                       ("--epochs", "n_epochs", args.epochs, None),
                                       ("--splits", "n_splits", args.splits, None),
                                       ("--datasets", "datasets",
                                        args.datasets and tuple(args.datasets.split(",")),
                                        None)):
        if value != default:
            if name not in accepted:
                parser.error(f"{flag} is not an option of the {args.target} target")
            options[name] = value
    try:
        result = target(**options)
    except FileNotFoundError as error:  # a real data set is missing: say what is needed
        print(f"alphavb reproduce {args.target}: {error}", file=sys.stderr)
        return 2
    for path in result["files"]:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
