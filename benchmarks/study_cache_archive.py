"""Carry a study's cache (``run_study(cache_dir=...)``) from one machine to the next in the
repository, so that a run of many hours resumes on a new machine instead of starting over.

``pack CACHE ARCHIVES`` writes the cached fits that no archive in ``ARCHIVES`` holds yet as
one new part, ``part-NNN.tar.xz`` (earlier parts are never rewritten, so the repository
stores each fit once). Only fits that ran are packed: a record whose checksum does not
match, or whose status is not ``"ok"`` (a failure may come from code edited under the
running study), is left out and refitted where the archive is unpacked.
``unpack ARCHIVES CACHE`` puts every archived fit in place that the cache lacks or holds
only as a failed or unreadable record (a run started on the new machine before the unpack
may have cached failures); a fit that ran is left as it is. ``run_study`` then refits only
what no part holds. ``CACHE`` is a study's ``cache_dir`` or a folder of them (the susie2
benchmark's, one per scenario); pack and unpack the same level. A part's bytes depend
only on the fits it holds (sorted names, no times or owners); a part is written under a
temporary name and linked into place only if no other pack took its number meanwhile.

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
import re
import sys
import tarfile
import uuid
from pathlib import Path, PurePosixPath

from alphavb.cache import _checksum

PART_PATTERN = "part-*.tar.xz"
PART_NAME = re.compile(r"part-(\d{3,})\.tar\.xz")


def _parts(archives):
    """``(number, path)`` of each part in ``archives``, in order; a file that looks like a
    part but is not named as pack names them is refused by name."""
    archives = Path(archives)
    if archives.exists() and not archives.is_dir():
        raise ValueError(f"archives: {archives} is a file; pass the folder of the parts.")
    found = []
    for part in archives.glob(PART_PATTERN):
        match = PART_NAME.fullmatch(part.name)
        if match is None:
            raise ValueError(f"archives: {part} is not named as pack names a part "
                             "(part-NNN.tar.xz); rename or remove it.")
        found.append((int(match.group(1)), part))
    return sorted(found)


def _members(part):
    """``[(name, content)]`` of one part, its whole xz stream checked first (a truncated or
    corrupted part is refused by name) and every member checked before any is used."""
    try:
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(part.read_bytes()))) as tar:
            members = tar.getmembers()
            for member in members:
                name = PurePosixPath(member.name)
                if (not member.isfile() or name.is_absolute() or ".." in name.parts
                        or name.suffix != ".json" or not name.stem):
                    raise ValueError(f"archives: {part} holds {member.name!r}, which is not "
                                     "a cache record; use only parts that pack wrote.")
            return [(PurePosixPath(member.name).as_posix(), tar.extractfile(member).read())
                    for member in members]
    except (lzma.LZMAError, tarfile.TarError, EOFError, OSError) as error:
        raise ValueError(f"archives: {part} cannot be read ({error}); restore it from the "
                         "repository (git checkout) or remove it.") from None


def archived_names(archives):
    """The member names (``FOLDER/NAME.json``, relative to the cache) of every part."""
    return {name for _, part in _parts(archives) for name, _ in _members(part)}


def _ran(content, name):
    """True when ``content`` is a cache record whose key matches its file ``name``, whose
    checksum holds and whose fit ran (status ``"ok"``)."""
    try:
        record = json.loads(content)
        key, row = record["key"], record["row"]
        return (isinstance(key, str) and PurePosixPath(name).stem == key[:32]
                and isinstance(row, dict) and record.get("checksum") == _checksum(row)
                and row.get("status") == "ok")
    except (ValueError, KeyError, TypeError, RecursionError):
        return False


def _records(cache):
    """``(name, path)`` of every record file under ``cache``, symlinked folders
    followed, the manifests (run_study writes them) and temporary files left out."""
    found = []
    for folder, _, files in os.walk(cache, followlinks=True):
        for file in files:
            if file.endswith(".json") and file != "manifest.json" and not file.startswith("."):
                path = Path(folder) / file
                found.append((path.relative_to(cache).as_posix(), path))
    return sorted(found)


def pack(cache, archives):
    """Write the fits of ``cache`` that no part holds as a new part; return its path (None
    when there is nothing new) and the number of records left out."""
    cache, archives = Path(cache), Path(archives)
    if not cache.is_dir():
        raise ValueError(f"cache: {cache} is not a folder; pass the study's cache_dir (or "
                         "the folder of several).")
    parts = _parts(archives)
    held = {name for _, part in parts for name, _ in _members(part)}
    new, left_out = [], 0
    for name, path in _records(cache):
        if name in held:
            continue
        content = path.read_bytes()
        if _ran(content, name):
            new.append((name, content))
        else:
            left_out += 1
    if not new:
        return None, left_out
    archives.mkdir(parents=True, exist_ok=True)
    target = archives / f"part-{max((n for n, _ in parts), default=0) + 1:03d}.tar.xz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content in new:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            tar.addfile(info, io.BytesIO(content))
    temporary = archives / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        temporary.write_bytes(lzma.compress(buffer.getvalue(), preset=9))
        os.link(temporary, target)  # fails, rather than overwrites, if the name was taken
    except FileExistsError:
        raise ValueError(f"archives: {target} was written by another pack meanwhile; run "
                         "pack again.") from None
    finally:
        temporary.unlink(missing_ok=True)
    return target, left_out


def unpack(archives, cache):
    """Put every archived record in place that ``cache`` lacks or holds only as a failed or
    unreadable record; return how many."""
    archives, cache = Path(archives), Path(cache)
    parts = _parts(archives)
    if not parts:
        raise ValueError(f"archives: {archives} holds no {PART_PATTERN}; pass the folder "
                         "that pack wrote.")
    if cache.exists() and not cache.is_dir():
        raise ValueError(f"cache: {cache} is a file; pass the study's cache_dir (or the "
                         "folder of several).")
    written = 0
    for _, part in parts:
        for name, content in _members(part):
            target = cache.joinpath(*PurePosixPath(name).parts)
            if target.exists() and _ran(target.read_bytes(), name):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.stem}.{os.getpid()}."
                                         f"{uuid.uuid4().hex[:8]}.tmp")
            temporary.write_bytes(content)
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
    try:
        if args.command == "pack":
            target, left_out = pack(args.cache, args.archives)
            print(f"{'wrote ' + str(target) if target else 'nothing new'}; the parts hold "
                  f"{len(archived_names(args.archives))} fits; {left_out} records left out "
                  "(failed, or not a valid record)")
        else:
            print(f"restored {unpack(args.archives, args.cache)} fits into {args.cache}")
    except ValueError as error:
        print(f"study_cache_archive.py {args.command}: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
