"""PLINK 1 binary genotypes (``.bed`` / ``.bim`` / ``.fam``), read into memory.

The ``.bed`` format (PLINK 1.9's documentation, "PLINK 1 binary"): three magic bytes
``0x6c 0x1b 0x01`` (the last: variant-major), then one block per variant of ``ceil(n / 4)``
bytes, two bits per individual from the lowest bits up: ``00`` homozygous for the first
allele of the ``.bim`` line (A1), ``01`` missing, ``10`` heterozygous, ``11`` homozygous for
A2. :func:`read_plink` returns the count of A1 alleles (2, 1, 0; NaN where missing), as
PLINK's ``--recode A`` and ``pandas-plink`` do.
"""

from pathlib import Path

import numpy as np

from ._real import get_data_home

BED_MAGIC = bytes([0x6C, 0x1B, 0x01])
# the A1 count of each 2-bit code: 00 -> 2, 01 -> missing, 10 -> 1, 11 -> 0
_CODE_DOSAGE = np.array([2.0, np.nan, 1.0, 0.0])


def decode_calls(raw, n_rows, dtype=np.float64):
    """The calls of ``raw`` bytes of the ``.bed`` (variants, bytes; each row one variant's
    bytes for consecutive individuals, the first at the lowest bits of the first byte) as
    A1 counts of shape (n_rows, variants), NaN where missing."""
    codes = np.stack([(raw >> shift) & 3 for shift in (0, 2, 4, 6)], axis=-1)
    return _CODE_DOSAGE.astype(dtype)[codes.reshape(raw.shape[0], -1)[:, :n_rows]].T


def plink_paths(prefix):
    """The ``.bed``, ``.bim`` and ``.fam`` paths of ``prefix``, or a ``FileNotFoundError``
    naming those missing."""
    prefix = Path(prefix)
    paths = {ext: prefix.with_name(prefix.name + ext) for ext in (".bed", ".bim", ".fam")}
    missing = [str(path) for path in paths.values() if not path.exists()]
    if missing:
        raise FileNotFoundError(f"read_plink needs {', '.join(missing)} (PLINK 1 binary "
                                "files: .bed, .bim and .fam of one prefix).")
    return paths


def plink_lines(path):
    """The non-blank lines of a ``.bim`` or ``.fam``, each split on whitespace."""
    return [line.split() for line in Path(path).read_text().splitlines() if line.strip()]


def read_plink(prefix, variants=None, dtype=np.float64):
    """Genotypes of a PLINK 1 binary file set.

    Parameters
    ----------
    prefix : str or Path
        The path without its extension: ``prefix.bed``, ``.bim`` and ``.fam`` are read.
    variants : array-like of int or slice, default=None
        The variants (rows of the ``.bim``) to read; None: all.
    dtype : numpy float dtype, default=float64

    Returns
    -------
    sklearn.utils.Bunch
        ``genotypes`` (n_individuals, n_variants): A1 allele counts 0, 1, 2, NaN where
        missing; ``chromosome``, ``variant_id``, ``position`` (int), ``allele1``,
        ``allele2`` (per variant); ``family_id``, ``individual_id`` (per individual);
        ``fam`` the ``.fam`` lines split into fields.
    """
    from sklearn.utils import Bunch

    if not np.issubdtype(np.dtype(dtype), np.floating):
        raise ValueError(f"read_plink: dtype must be a float dtype, whose NaN marks a missing "
                         f"call; got {np.dtype(dtype)}, in which a missing call would read as "
                         "0 copies of allele 1. Pass dtype=np.float32 or np.float64.")
    paths = plink_paths(prefix)
    bim, fam = plink_lines(paths[".bim"]), plink_lines(paths[".fam"])
    if any(len(fields) != 6 for fields in bim):
        raise ValueError(f"{paths['.bim']}: every line needs 6 fields (chromosome, id, cM, "
                         "position, allele 1, allele 2).")
    if any(len(fields) < 2 for fields in fam):
        raise ValueError(f"{paths['.fam']}: every line needs at least the family and the "
                         "individual id (PLINK's .fam has 6 fields).")
    n, p = len(fam), len(bim)
    width = (n + 3) // 4
    raw = np.fromfile(paths[".bed"], dtype=np.uint8)
    if raw[:3].tobytes() != BED_MAGIC:
        raise ValueError(f"{paths['.bed']} does not start with PLINK 1's magic bytes 6c 1b "
                         "01 (variant-major); convert it with plink --make-bed.")
    if raw.size != 3 + p * width:
        raise ValueError(f"{paths['.bed']}: {raw.size - 3} bytes of genotypes, but the .bim "
                         f"({p} variants) and .fam ({n} individuals) need {p * width}.")
    chosen = np.atleast_1d(np.arange(p)[variants if variants is not None else slice(None)])
    if chosen.size == 0:
        raise ValueError(f"read_plink: variants selects none of the {p} variants of "
                         f"{paths['.bim']}; pass indices of rows of the .bim, a slice, or "
                         "None for all.")
    genotypes = decode_calls(raw[3:].reshape(p, width)[chosen], n, dtype)
    columns = list(zip(*bim, strict=True))
    return Bunch(genotypes=np.ascontiguousarray(genotypes),
                 chromosome=np.asarray(columns[0], dtype=object)[chosen],
                 variant_id=np.asarray(columns[1], dtype=object)[chosen],
                 position=np.asarray(columns[3], dtype=np.int64)[chosen],
                 allele1=np.asarray(columns[4], dtype=object)[chosen],
                 allele2=np.asarray(columns[5], dtype=object)[chosen],
                 family_id=np.array([fields[0] for fields in fam], dtype=object),
                 individual_id=np.array([fields[1] for fields in fam], dtype=object),
                 fam=fam)


def load_mouse_hs1940(data_home=None):
    """Genotypes of 1,940 heterogeneous-stock mice at 12,226 variants (GEMMA's example
    data, ``plink/mouse_hs1940.bed/.bim/.fam`` under the data home, :func:`get_data_home`;
    Debian's ``gemma-doc``). Not downloaded.

    Returns
    -------
    sklearn.utils.Bunch
        As :func:`read_plink` (no missing calls in these files).
    """
    prefix = get_data_home(data_home) / "plink" / "mouse_hs1940"
    if not prefix.with_name("mouse_hs1940.bed").exists():
        raise FileNotFoundError(
            f"load_mouse_hs1940 needs {prefix}.bed, .bim and .fam (GEMMA's example "
            "genotypes: apt-get download gemma-doc, dpkg -x, gunzip "
            "usr/share/doc/gemma/example/mouse_hs1940.*), or point data_home or the "
            "ALPHAVB_DATA environment variable at the folder holding plink/.")
    return read_plink(prefix)
