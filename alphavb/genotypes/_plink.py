"""The lazy PLINK 1 reader: a ``.bed`` as a dask array of individuals x variants.

The ``.bed`` is variant-major (:mod:`alphavb.datasets._plink` describes the format): the
calls of individuals ``a`` to ``b`` at a variant are bytes ``a / 4`` to ``ceil(b / 4)`` of
that variant's block, so a block of rows and variants is a strided read of the memory-mapped
file, decoded as :func:`~alphavb.datasets._plink.decode_calls` decodes the whole file. Row
blocks start at multiples of 4 individuals (whole bytes); a block is read when a task needs
it and never kept.

Choice of reader: the decoding is the eager reader's (ten lines of numpy, tested against
``plink2 --export A``), not ``bed-reader`` (Apache-2.0, Rust, fast) or ``pandas-plink``:
they add a compiled dependency for a step that costs ``n p`` byte operations where the
sufficient statistics the fits need cost ``n p^2`` multiply-adds; ``bed-reader`` stays the
choice for ``.pgen`` files, which this reader does not read.
"""

import re
import warnings

import numpy as np

from .._validation import bad_parameter, caller_stacklevel
from ..datasets._plink import BED_MAGIC, decode_calls, plink_lines, plink_paths

# the default block: at most this many genotypes (8 bytes each as float64: 64 MB)
BLOCK_ENTRIES = 2**23
# rows per block at most (a multiple of 4: whole bytes of the .bed), and the fewest rows of
# a block that holds every variant
MAX_BLOCK_ROWS = 8192
MIN_BLOCK_ROWS = 512
VARIANT_COLUMNS = ["chrom", "snp", "cm", "pos", "a1", "a2"]
SAMPLE_COLUMNS = ["fid", "iid", "father", "mother", "sex", "phenotype"]
# variants whose unused bits are checked for individuals the .fam does not list
PADDING_CHECKED = 64
# a last individual homozygous for allele 1 at every checked variant, at a chance below this
# given the others' calls, is taken for the padding of a .bed with fewer individuals
PHANTOM_PROBABILITY = 1e-6


class _BedBlocks:
    """The ``.bed`` as an array-like that :func:`dask.array.from_array` slices block by
    block: ``__getitem__`` of (rows, variants) slices reads and decodes those calls only.
    Holds the path and the shapes (picklable for a cluster), not the data."""

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, path, n_samples, n_variants, variant_index):
        self.path = str(path)
        self.n_samples, self.n_variants = int(n_samples), int(n_variants)
        self.variant_index = np.asarray(variant_index, dtype=np.int64)  # rows of the .bim
        self.shape = (self.n_samples, len(self.variant_index))

    def __getitem__(self, key):
        rows, columns = key
        start, stop, _ = rows.indices(self.n_samples)
        variants = self.variant_index[columns]
        width = (self.n_samples + 3) // 4
        body = np.memmap(self.path, dtype=np.uint8, mode="r", offset=len(BED_MAGIC),
                         shape=(self.n_variants, width))
        first, last = start // 4, (stop + 3) // 4
        raw = np.asarray(body[variants, first:last])         # (variants, bytes)
        calls = decode_calls(raw, last * 4 - first * 4, self.dtype)   # (rows, variants)
        offset = start - first * 4
        return calls[offset:offset + (stop - start)]


class Genotypes:
    """Genotypes of a PLINK 1 file set, read lazily.

    Attributes
    ----------
    X : dask.array.Array of shape (n_samples, n_variants)
        A1 allele counts (0, 1, 2) as float64, NaN for a missing call, in blocks of at
        most 2**23 genotypes (:func:`read_plink`'s ``chunk_size``).
    variants : pandas.DataFrame
        The ``.bim``: ``chrom``, ``snp``, ``cm``, ``pos``, ``a1``, ``a2`` (one row per
        column of ``X``, its index the variant's row in the ``.bim``).
    samples : pandas.DataFrame
        The ``.fam``'s six columns: ``fid``, ``iid``, ``father``, ``mother``, ``sex``,
        ``phenotype``.
    """

    def __init__(self, blocks, variants, samples, chunk_size=None):
        self._blocks, self._chunk_size = blocks, chunk_size
        self.variants, self.samples = variants, samples
        n, p = blocks.shape
        rows, per_chunk = default_blocks(n, p)
        if chunk_size is not None:
            rows, per_chunk = min(n, MAX_BLOCK_ROWS), chunk_size
        self._chunks = (_row_chunks(n, rows), _variant_chunks(p, per_chunk))

    @property
    def X(self):
        da = _dask_array()

        return da.from_array(self._blocks, chunks=self._chunks, asarray=True, fancy=False,
                             lock=False, name=f"bed-{_token(self._blocks, self._chunks)}")

    @property
    def shape(self):
        return self._blocks.shape

    def __repr__(self):
        return (f"Genotypes({self.shape[0]} samples x {self.shape[1]} variants of "
                f"{self._blocks.path})")

    def select(self, *, region=None, variants=None, maf=None, max_missing=None):
        """The variants in ``region`` (``"chrom:start-end"`` in base pairs, ends included,
        or a tuple ``(chrom, start, end)``), named in ``variants`` (ids of the ``.bim``'s
        ``snp`` column, or a boolean mask over the current variants), with minor-allele
        frequency at least ``maf`` and a share of missing calls at most ``max_missing``
        (one pass over the selected calls for these two; a variant with no called genotype
        has no frequency, and ``maf`` drops it). Chromosomes match as PLINK numbers them
        (``chr1`` is ``1``, ``X`` is ``23``). The variants keep the file's order (an id
        named twice in the ``.bim`` selects both). Returns a new :class:`Genotypes`;
        raises a ``ValueError`` naming the criterion that leaves no variant."""
        keep = np.ones(len(self.variants), dtype=bool)
        if region is not None:
            chrom, start, end = _region(region)
            codes = np.array([chromosome_code(name) for name in self.variants["chrom"]])
            keep &= ((codes == chrom)
                     & (self.variants["pos"].to_numpy() >= start)
                     & (self.variants["pos"].to_numpy() <= end))
            _nonempty(keep, "region", region)
        if variants is not None:
            keep &= _variant_mask(self.variants, variants)
            _nonempty(keep, "variants", "the given ids" if not isinstance(variants, np.ndarray)
                      else "the given mask")
        chosen = self._subset(keep)
        if maf is None and max_missing is None:
            return chosen
        for name, value, high in (("maf", maf, 0.5), ("max_missing", max_missing, 1.0)):
            if value is not None and not (isinstance(value, (int, float, np.number))
                                          and 0.0 <= float(value) <= high):
                raise bad_parameter("Genotypes.select", name, f"a number in [0, {high}]",
                                    value)
        frequency, missing = chosen.allele_frequencies()
        keep = np.ones(len(frequency), dtype=bool)
        if maf is not None:
            keep &= np.minimum(frequency, 1.0 - frequency) >= float(maf)
            _nonempty(keep, "maf", maf)
        if max_missing is not None:
            keep &= missing <= float(max_missing)
            _nonempty(keep, "max_missing", max_missing)
        return chosen._subset(keep)

    def allele_frequencies(self):
        """Per variant, the frequency of A1 among the called genotypes (NaN where every
        call is missing) and the share of missing calls: one pass over ``X``."""
        import dask

        da = _dask_array()
        X = self.X
        called = da.sum(~da.isnan(X), axis=0)
        total = da.nansum(X, axis=0)
        called, total = dask.compute(called, total)
        with np.errstate(invalid="ignore", divide="ignore"):
            frequency = total / (2.0 * called)
        return frequency, 1.0 - called / self.shape[0]

    def _subset(self, keep):
        index = self._blocks.variant_index[keep]
        blocks = _BedBlocks(self._blocks.path, self._blocks.n_samples,
                            self._blocks.n_variants, index)
        return Genotypes(blocks, self.variants[keep], self.samples, self._chunk_size)


def _dask_array():
    try:
        import dask.array as da
    except ImportError:  # pragma: no cover - dask is in the test extra
        raise ImportError('alphavb.genotypes reads lazily with dask: pip install '
                          '"alphavb[dask]"') from None
    return da


def _token(blocks, chunks):
    """The dask name of the blocks: the file, its selection and the blocks' layout (two
    layouts of one file are two arrays)."""
    from dask.base import tokenize

    return tokenize(blocks.path, blocks.n_samples, blocks.n_variants,
                    blocks.variant_index.tobytes(), chunks)


def _region(region):
    if isinstance(region, str):
        match = re.fullmatch(r"\s*(?:chr)?([^:\s]+):(\d+)-(\d+)\s*", region)
        if match is None:
            raise bad_parameter("Genotypes.select", "region", "'chrom:start-end' (base "
                                "pairs) or a tuple (chrom, start, end)", region)
        chrom, start, end = match.groups()
    else:
        try:
            chrom, start, end = region
        except (TypeError, ValueError):
            raise bad_parameter("Genotypes.select", "region", "'chrom:start-end' (base "
                                "pairs) or a tuple (chrom, start, end)", region) from None
    try:
        start, end = _base_pair(start), _base_pair(end)
    except (TypeError, ValueError):
        raise bad_parameter("Genotypes.select", "region", "whole base pairs as its start and "
                            "end", region) from None
    if end < start:
        raise bad_parameter("Genotypes.select", "region", "an end at or after its start",
                            region)
    return chromosome_code(chrom), start, end


def _base_pair(value):
    number = float(value)
    if not number.is_integer():
        raise ValueError(value)
    return int(number)


# PLINK's numeric codes of the non-autosomes (chrX 23, chrY 24, the pseudo-autosomal XY
# 25, mitochondrial 26)
_CHROMOSOME_CODES = {"X": "23", "Y": "24", "XY": "25", "MT": "26", "M": "26"}


def chromosome_code(name):
    """A chromosome's name as PLINK numbers it: without a ``chr`` prefix or leading zeros,
    X, Y, XY and MT (M) as 23-26, so that ``chr1``, ``1`` and ``01`` are one chromosome and
    ``X`` is the ``23`` of a .bim written by PLINK."""
    text = str(name).strip()
    text = text[3:] if text.lower().startswith("chr") else text
    text = _CHROMOSOME_CODES.get(text.upper(), text)
    if text.isdigit():
        return text.lstrip("0") or "0"
    return text


def _variant_mask(table, variants):
    values = np.asarray(variants)
    if values.dtype == bool:
        if values.shape != (len(table),):
            raise bad_parameter("Genotypes.select", "variants", f"a boolean mask of the "
                                f"{len(table)} variants", f"shape {values.shape}")
        return values
    wanted = {str(value) for value in np.atleast_1d(values)}
    unknown = wanted - set(table["snp"].astype(str))
    if unknown:
        raise bad_parameter("Genotypes.select", "variants", "ids of the .bim's snp column",
                            sorted(unknown)[:5])
    return table["snp"].astype(str).isin(wanted).to_numpy()


def _nonempty(keep, name, value):
    if not keep.any():
        raise bad_parameter("Genotypes.select", name, "a criterion that keeps a variant",
                            value, fix="No variant of the file set meets it.")


def default_blocks(n_samples, n_variants):
    """Rows and variants per block within :data:`BLOCK_ENTRIES` genotypes: every variant in
    a block of rows (a multiple of 4, at most :data:`MAX_BLOCK_ROWS`), as the sufficient
    statistics take them, while that leaves at least :data:`MIN_BLOCK_ROWS` rows; else up to
    :data:`MAX_BLOCK_ROWS` rows by as many variants as fit (a wide file: a block of a few
    rows would read every page of the ``.bed``)."""
    rows = BLOCK_ENTRIES // max(n_variants, 1) // 4 * 4
    if rows >= MIN_BLOCK_ROWS:
        return min(n_samples, rows, MAX_BLOCK_ROWS), n_variants
    rows = min(n_samples, MAX_BLOCK_ROWS)
    return rows, max(1, BLOCK_ENTRIES // rows)


def _variant_chunks(n_variants, per_chunk):
    per_chunk = max(1, min(int(per_chunk), n_variants))
    sizes = [per_chunk] * (n_variants // per_chunk)
    if n_variants % per_chunk:
        sizes.append(n_variants % per_chunk)
    return tuple(sizes)


def _row_chunks(n_samples, rows):
    sizes = [rows] * (n_samples // rows)
    if n_samples % rows:
        sizes.append(n_samples % rows)
    return tuple(sizes)


def _table(path, names, what, exact):
    """The whitespace-separated lines of ``path`` as strings: ``len(names)`` fields each
    (at least that many when not ``exact``: a .fam may carry more columns, as GEMMA's)."""
    import pandas as pd

    columns = len(names)
    lines = plink_lines(path)
    if not lines:
        raise ValueError(f"{path} is empty: it needs one line per "
                         f"{'variant' if exact else 'individual'} ({what}).")
    for number, fields in enumerate(lines, start=1):
        if len(fields) < columns or (exact and len(fields) != columns):
            raise ValueError(f"{path}, line {number}: {len(fields)} fields; every line needs "
                             f"{'exactly ' if exact else ''}{columns} ({what}; an id may "
                             "not hold a space).")
    return pd.DataFrame([fields[:columns] for fields in lines], columns=names)


def _numbers(table, path):
    """The .bim's cM as floats and positions as ints, or an error naming the line."""
    import pandas as pd

    cm = pd.to_numeric(table["cm"], errors="coerce").to_numpy(dtype=float)
    position = pd.to_numeric(table["pos"], errors="coerce").to_numpy(dtype=float)
    for column, values, whole in (("cm", cm, False), ("pos", position, True)):
        bad = ~np.isfinite(values) | (whole & (np.mod(values, 1.0) != 0.0))
        if bad.any():
            line = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{path}, line {line + 1}: the {column} field "
                             f"{table[column].iloc[line]!r} is not "
                             f"{'a whole base pair' if whole else 'a number'}.")
    table["cm"], table["pos"] = cm, position.astype(np.int64)
    return table


def read_plink(prefix, *, chunk_size=None):
    """PLINK 1 binary genotypes (``prefix.bed``, ``.bim``, ``.fam``), read lazily.

    Parameters
    ----------
    prefix : str or Path
        The path without its extension.
    chunk_size : int, default=None
        Variants per block of ``X`` (blocks of at most 8,192 individuals). None: blocks
        of every variant by as many rows (a multiple of 4, at most 8,192) as keep a block
        within 2**23 genotypes (64 MB as float64), the blocks the sufficient statistics
        read; a file of more than 16,384 variants: up to 8,192 rows by as many variants as
        fit (8,192 x 1,024 with 8,192 rows or more).

    Returns
    -------
    Genotypes
        ``X`` (a dask array), ``variants`` (the ``.bim``), ``samples`` (the ``.fam``);
        nothing of the ``.bed`` is read until ``X`` is computed.

    Raises
    ------
    FileNotFoundError
        Naming the missing files.
    ValueError
        A ``.bed`` without PLINK 1's variant-major magic bytes, or whose size is not what
        the ``.bim``'s variants and the ``.fam``'s individuals need (both sizes named), or
        a ``.bim`` or ``.fam`` line with too few fields; calls in the unused bits of a
        variant's last byte (a ``.fam`` with fewer individuals than the ``.bed``).

    Warns
    -----
    UserWarning
        The ``.fam``'s last individual reads homozygous for allele 1 at each of the first
        64 variants, as the unused bits of a ``.bed`` with fewer individuals do, at a chance
        below 1e-6 given the others' calls (only the ``.fam`` tells how many individuals
        the ``.bed`` holds).
    """
    paths = plink_paths(prefix)
    if chunk_size is not None and (isinstance(chunk_size, bool)
                                   or not isinstance(chunk_size, (int, np.integer))
                                   or chunk_size < 1):
        raise bad_parameter("read_plink", "chunk_size", "a positive int (variants per "
                            "block) or None", chunk_size)
    variants = _numbers(_table(paths[".bim"], VARIANT_COLUMNS, "chromosome, id, cM, "
                               "position, allele 1, allele 2", exact=True), paths[".bim"])
    samples = _table(paths[".fam"], SAMPLE_COLUMNS, "family id, individual id, father, "
                     "mother, sex, phenotype", exact=False)
    n, p = len(samples), len(variants)
    with open(paths[".bed"], "rb") as bed:
        magic = bed.read(len(BED_MAGIC))
    if magic != BED_MAGIC:
        raise ValueError(f"{paths['.bed']} does not start with PLINK 1's magic bytes 6c 1b "
                         "01 (variant-major); convert it with plink --make-bed.")
    expected = len(BED_MAGIC) + p * ((n + 3) // 4)
    size = paths[".bed"].stat().st_size
    if size != expected:
        raise ValueError(f"{paths['.bed']} has {size} bytes; the .bim's {p} variants and the "
                         f".fam's {n} individuals need {expected} (a truncated or mismatched "
                         "file).")
    _check_padding(paths, n, p, samples)
    return Genotypes(_BedBlocks(paths[".bed"], n, p, np.arange(p)), variants, samples,
                     chunk_size)


def _check_padding(paths, n, p, samples, n_checked=PADDING_CHECKED):
    """Refuse a ``.fam`` with fewer individuals than the ``.bed`` holds, when the size check
    cannot tell (the same bytes per variant): the bits past the ``n``-th individual of a
    variant's last byte are 0 in a file PLINK wrote, so calls there, in any of the first
    ``n_checked`` variants, are individuals the ``.fam`` does not list. More individuals in
    the ``.fam`` than in the ``.bed`` within a byte read those 0 bits, homozygous for allele
    1 at every variant: a warning when the last individual is so at each of the checked
    variants and the others' frequencies of that call (each with half a call added either
    way; the others homozygous everywhere left out) make it less likely than
    ``PHANTOM_PROBABILITY`` for a real individual (a monomorphic variant, or allele 1 the
    common one, says little)."""
    if p == 0 or n == 0:
        return
    block = (n + 3) // 4
    count = min(p, n_checked)
    with open(paths[".bed"], "rb") as bed:
        bed.seek(len(BED_MAGIC))
        data = np.frombuffer(bed.read(count * block), dtype=np.uint8).reshape(count, block)
    last = (data[:, (n - 1) // 4] >> (2 * ((n - 1) % 4))) & 0b11
    if n > 1 and not np.any(last):  # 00: homozygous for allele 1 everywhere
        others = ((data[:, :, None] >> np.array([0, 2, 4, 6], dtype=np.uint8)) & 0b11
                  ).reshape(count, 4 * block)[:, :n - 1]
        # the others that read homozygous everywhere too may be padding as well: left out
        others = others[:, np.any(others, axis=0)]
        called = np.sum(others != 0b01, axis=1)  # 01: missing
        # the share of the call among the others, half a call added either way (a share of
        # 0 among a few individuals is no certainty)
        share = (np.sum(others == 0, axis=1) + 0.5) / (called + 1.0)
        log_chance = float(np.sum(np.log(share[called > 0])))
        if log_chance < np.log(PHANTOM_PROBABILITY):
            warnings.warn(f"read_plink: the .fam's last individual "
                          f"({samples['iid'].iloc[-1]}) is homozygous for allele 1 at each "
                          f"of the first {count} variants (a chance of {np.exp(log_chance):.1g} "
                          "for an individual of these frequencies), as the unused bits of a "
                          ".bed with fewer individuals read: if the .fam lists more "
                          "individuals than the .bed holds, its last rows are not "
                          "individuals. Use the .fam written with this .bed.", UserWarning,
                          stacklevel=caller_stacklevel())
    used = 2 * (n % 4)
    if used and np.any(data[:, -1] >> used):
        raise ValueError(f"{paths['.bed']} holds calls past the .fam's {n} individuals (in "
                         f"the unused bits of a variant's last byte): the .fam lists fewer "
                         "individuals than the .bed has. Use the .fam written with this "
                         ".bed.")
