"""Command line: ``alphavb reproduce TARGET [--out DIR] [--quick] [--jobs N] [--epochs N]
[--replications N] [--splits N] [--seeds N] [--datasets A,B]`` (also ``python -m
alphavb``). ``TARGET`` ``all`` runs every target, each into ``OUT/TARGET`` (default
``results/TARGET``)."""

import argparse
import inspect
import os
import sys
import time
from pathlib import Path

from ._uci_folders import UCI_FOLDERS
from .reproduce import PARALLEL_TARGETS, TARGET_HELP, TARGETS


def _integer(minimum, allow_all_cores=False, maximum=None):
    """An argparse type: an int >= ``minimum`` (and <= ``maximum``; or -1, all cores, for
    ``--jobs``)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum and not (allow_all_cores and value == -1):
            extra = " (or -1 for all cores)" if allow_all_cores else ""
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}{extra}, "
                                             f"got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be an integer <= {maximum}, got {value}")
        return value

    return parse


def _names(known, what):
    """An argparse type: a comma-separated list of ``known`` names (spaces around a name are
    ignored), as a tuple; an empty or unknown name is a usage error."""
    def parse(text):
        names = tuple(name.strip() for name in text.split(","))
        if not all(names):
            raise argparse.ArgumentTypeError(f"{text!r} has an empty name (a comma too many?); "
                                             "write e.g. boston,yacht")
        unknown = [name for name in names if name not in known]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(map(repr, unknown))}; "
                                             f"choose from {', '.join(known)}")
        return names

    return parse


def _did_you_mean(word, known):
    """`` (did you mean 'x'?)`` for the closest of ``known`` to ``word``, or ``""``."""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _target_name(text):
    """An argparse type: a target name or ``all``, with the closest name suggested."""
    known = [*TARGETS, "all"]
    if text not in known:
        raise argparse.ArgumentTypeError(f"unknown target {text!r}{_did_you_mean(text, known)};"
                                         f" choose from {', '.join(known)}")
    return text


def _flags(args):
    """``(flag, the target's keyword, value, default)`` of each option of ``reproduce``."""
    return (("--quick", "quick", args.quick, False), ("--jobs", "n_jobs", args.jobs, 1),
            ("--epochs", "n_epochs", args.epochs, None),
            ("--splits", "n_splits", args.splits, None),
            ("--seeds", "n_seeds", args.seeds, None),
            ("--replications", "n_replications", args.replications, None),
            ("--datasets", "datasets", args.datasets, None))


def _check_out(parser, out, label="--out"):
    """``--out`` (or the default folder, ``label``) must be (or become) a writable folder:
    say so in one line otherwise."""
    if out is None:
        return
    if not str(out).strip():  # "" was taken as no --out: the default folder, written to
        parser.error(f"{label}: an empty path; name a folder (e.g. --out results/mine)")
    path = Path(out)
    if path.exists() and not path.is_dir():
        parser.error(f"{label} {out}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".alphavb-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        parser.error(f"{label} {out}: cannot write there ({error.strerror or error})")


DESCRIPTION = """\
Reproduce the worked examples of the alpha-VB, BB-alpha and AADM papers:

    alphavb reproduce TARGET [--out DIR] [--quick] [--jobs N] [--epochs N]
                             [--replications N] [--splits N] [--seeds N]
                             [--datasets A,B]

TARGET all runs every target, each into OUT/TARGET (default results/TARGET).
Also available as: python -m alphavb"""


def main(argv=None, show_rows=False):
    from . import __version__

    parser = argparse.ArgumentParser(prog="alphavb", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"alphavb {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", help="reproduce a worked example of the paper")
    reproduce.add_argument("target", type=_target_name, metavar="TARGET",
                           help="all, or one of: " + "; ".join(
                               f"{name}: {text}" for name, text in TARGET_HELP.items())
                           .replace("%", "%%"))  # argparse %-formats help ("95% intervals")
    reproduce.add_argument("--out", default=None,
                           help="output folder (default: results/TARGET; for all, the parent "
                                "of one folder per target)")
    # numpy's RandomState takes seeds below 2**32
    reproduce.add_argument("--seed", type=_integer(0, maximum=2**32 - 1), default=0,
                           help="random seed of the data (0 to 2**32 - 1)")
    reproduce.add_argument("--quick", action="store_true",
                           help="a small version (5 to 45 s a target on 2 busy cores; all: "
                                "about 4 minutes)")
    reproduce.add_argument("--jobs", type=_integer(1, allow_all_cores=True), default=1,
                           help="parallel worker processes, for the targets that use them ("
                                f"{', '.join(PARALLEL_TARGETS)}); the others run in one "
                                "process and accept it")
    reproduce.add_argument("--epochs", type=_integer(1), default=None,
                           help="training epochs instead of the paper's (aadm-toy, aadm-uci)")
    reproduce.add_argument("--seeds", type=_integer(1), default=None,
                           help="seeds of the fits per setting instead of the default "
                                "(aadm-toy: 3)")
    reproduce.add_argument("--replications", type=_integer(1), default=None,
                           help="replicates per scenario instead of the default "
                                "(susie2-benchmark: 500): a smaller count gives a table "
                                "sooner, and a larger one reuses its cached fits")
    reproduce.add_argument("--splits", type=_integer(1), default=None,
                           help="only the first N standard splits (bbalpha-uci, aadm-uci)")
    reproduce.add_argument("--datasets", type=_names(tuple(UCI_FOLDERS), "data set"),
                           default=None,
                           help="comma-separated UCI sets, e.g. boston,yacht (bbalpha-uci, "
                                f"aadm-uci; among {', '.join(UCI_FOLDERS)})")
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reproduce's own usage, not the top-level one, with the nearest option
        options = [option for action in reproduce._actions for option in action.option_strings]
        hint = _did_you_mean(unknown[0].split("=")[0], options)
        reproduce.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
    target = TARGETS.get(args.target)  # None for "all"
    accepted = inspect.signature(target).parameters if target is not None else None
    if target is not None:  # refused before any folder is made
        for flag, name, value, default in _flags(args):
            if value != default and name not in accepted and flag != "--jobs":
                reproduce.error(f"{flag} is not an option of the {args.target} target")
    # the folder written to, also when it is the default (a file named results was a
    # traceback from mkdir)
    if args.out is not None:
        _check_out(reproduce, args.out)
    else:
        _check_out(reproduce, "results" if args.target == "all" else f"results/{args.target}",
                   "the default output folder (--out)")
    cores = os.cpu_count() or 1
    if args.jobs == -1:
        args.jobs = cores
    elif args.jobs > cores:  # --jobs 100000 went to loky as it was
        print(f"alphavb reproduce: --jobs {args.jobs} is more than this machine's {cores} "
              f"cores; using {cores}", file=sys.stderr)
        args.jobs = cores
    flags = _flags(args)
    if target is not None:
        options = {"out_dir": args.out or f"results/{args.target}", "random_state": args.seed}
        options.update({name: value for _, name, value, default in flags
                        if value != default and name in accepted})
        return _run(args.target, target, options, show_rows)
    # all: each target takes the flags it has and ignores the others
    failed = []
    for name, target in TARGETS.items():
        accepted = inspect.signature(target).parameters
        options = {"out_dir": f"{args.out or 'results'}/{name}", "random_state": args.seed}
        options.update({key: value for _, key, value, default in flags
                        if value != default and key in accepted})
        start = time.perf_counter()
        print(f"== alphavb reproduce {name}", flush=True)
        if _run(name, target, options, show_rows) != 0:
            failed.append(name)
        print(f"== {name}: {time.perf_counter() - start:.1f} s", flush=True)
    if failed:
        print(f"alphavb reproduce all: {len(failed)} target(s) could not run: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 2
    return 0


def _run(name, target, options, show_rows):
    try:
        result = target(**options)
    except FileNotFoundError as error:  # a real data set is missing: say what is needed
        print(f"alphavb reproduce {name}: {error}", file=sys.stderr)
        return 2
    if show_rows:
        for row in result.get("rows", []):
            print(", ".join(f"{key}={value:.4g}" if isinstance(value, float) else
                            f"{key}={value}" for key, value in row.items()))
    for path in result["files"]:
        print(f"wrote {path}")
    return 0


def vignette(target, argv=None):
    """Entry point of the scripts in ``vignettes/``: ``python vignettes/SCRIPT.py [OUT_DIR]
    [flags]`` runs ``alphavb reproduce TARGET --out OUT_DIR [flags]`` and also prints the
    rows of its main table."""
    # Python puts the script's folder first on sys.path; there vignettes/coverage.py would
    # shadow the coverage package that numba imports when it loads
    script_folder = Path(sys.argv[0]).resolve().parent
    sys.path[:] = [entry for entry in sys.path
                   if not entry or Path(entry).resolve() != script_folder]
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-"):
        argv = ["--out", argv[0], *argv[1:]]
    return main(["reproduce", target, *argv], show_rows=True)


if __name__ == "__main__":
    sys.exit(main())
