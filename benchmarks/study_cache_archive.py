"""Carry a study's cache (``run_study(cache_dir=...)``) from one machine to the next in the
repository, so that a run of many hours resumes on a new machine instead of starting over.

``pack CACHE ARCHIVES`` writes the cached fits that no archive in ``ARCHIVES`` holds yet as
one new part, ``part-NNN.tar.xz`` (earlier parts are never rewritten, so the repository
stores each fit once). Only fits that ran are packed: a record whose checksum does not
match, or whose status is not ``"ok"`` (a failure may come from code edited under the
running study), is left out and refitted where the archive is unpacked.
``unpack ARCHIVES CACHE`` puts every archived fit that the cache lacks in place (an entry
the cache already holds is left as it is); ``run_study`` then refits only what no part
holds. A part's bytes depend only on the fits it holds (sorted names, no times or owners).

Run: python benchmarks/study_cache_archive.py pack results/susie2-benchmark/cache
         benchmarks/cache/susie2-benchmark
     python benchmarks/study_cache_archive.py unpack benchmarks/cache/susie2-benchmark
         results/susie2-benchmark/cache
"""

import argparse
import io
import json
import lzma
import os
import tarfile
import uuid
from pathlib import Path, PurePosixPath

from alphavb.cache import ResultCache

PART_PATTERN = "part-*.tar.xz"


def archived_names(archives):
    """The member names (``FOLDER/NAME.json``, relative to the cache) of every part."""
    names = set()
    for part in sorted(Path(archives).glob(PART_PATTERN)):
        with tarfile.open(part, "r:xz") as tar:
            names.update(tar.getnames())
    return names


def _ran(path):
    """True when the file at ``path`` is a cache record whose checksum holds and whose
    fit ran (status ``"ok"``)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        key = record["key"]
    except (ValueError, KeyError, TypeError, OSError):
        return False
    if not isinstance(key, str) or path.stem != key[:32]:
        return False
    row = ResultCache(path.parent).load(key)
    return row is not None and row.get("status") == "ok"


def pack(cache, archives):
    """Write the fits of ``cache`` that no part holds as a new part; return its path (None
    when there is nothing new) and the number of records left out."""
    cache, archives = Path(cache), Path(archives)
    if not cache.is_dir():
        raise ValueError(f"cache: {cache} is not a folder; pass the study's cache_dir.")
    held = archived_names(archives)
    new, left_out = [], 0
    for path in sorted(cache.rglob("*.json")):
        name = path.relative_to(cache).as_posix()
        if name in held or path.name == "manifest.json":  # run_study writes the manifest
            continue
        if _ran(path):
            new.append((name, path.read_bytes()))
        else:
            left_out += 1
    if not new:
        return None, left_out
    archives.mkdir(parents=True, exist_ok=True)
    numbers = [int(part.name[5:8]) for part in archives.glob(PART_PATTERN)]
    target = archives / f"part-{max(numbers, default=0) + 1:03d}.tar.xz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content in new:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            tar.addfile(info, io.BytesIO(content))
    target.write_bytes(lzma.compress(buffer.getvalue(), preset=9))
    return target, left_out


def unpack(archives, cache):
    """Put every archived record that ``cache`` lacks in place; return how many."""
    archives, cache = Path(archives), Path(cache)
    parts = sorted(archives.glob(PART_PATTERN))
    if not parts:
        raise ValueError(f"archives: {archives} holds no {PART_PATTERN}; pass the folder "
                         "that pack wrote.")
    written = 0
    for part in parts:
        with tarfile.open(part, "r:xz") as tar:
            for member in tar.getmembers():
                name = PurePosixPath(member.name)
                if (not member.isfile() or name.is_absolute() or ".." in name.parts
                        or name.suffix != ".json"):
                    raise ValueError(f"archives: {part} holds {member.name!r}, which is not "
                                     "a cache record; use only parts that pack wrote.")
                target = cache.joinpath(*name.parts)
                if target.exists():
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                temporary = target.with_name(f".{target.stem}.{os.getpid()}."
                                             f"{uuid.uuid4().hex[:8]}.tmp")
                temporary.write_bytes(tar.extractfile(member).read())
                os.replace(temporary, target)
                written += 1
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", help="archive the fits no part holds yet")
    packing.add_argument("cache")
    packing.add_argument("archives")
    unpacking = commands.add_parser("unpack", help="restore archived fits into a cache")
    unpacking.add_argument("archives")
    unpacking.add_argument("cache")
    args = parser.parse_args(argv)
    if args.command == "pack":
        target, left_out = pack(args.cache, args.archives)
        held = len(archived_names(args.archives)) if Path(args.archives).is_dir() else 0
        print(f"{'wrote ' + str(target) if target else 'nothing new'}; the parts hold "
              f"{held} fits; {left_out} records left out (failed, or not a valid record)")
    else:
        print(f"restored {unpack(args.archives, args.cache)} fits into {args.cache}")


if __name__ == "__main__":
    main()
