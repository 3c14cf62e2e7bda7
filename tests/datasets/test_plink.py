"""The PLINK 1 reader: a file set written here from known genotypes (every code, a count
of individuals that is not a multiple of 4, missing calls), the mouse genotypes against
plink2's own export when plink2 is installed, and the named errors."""

import shutil
import subprocess

import numpy as np
import pytest

from alphavb.datasets import get_data_home, load_mouse_hs1940, read_plink
from tests.conftest import needs_plink_data

CODES = {2.0: 0b00, 1.0: 0b10, 0.0: 0b11}  # A1 counts; missing is 0b01


def write_plink(prefix, genotypes):
    """Write ``genotypes`` (n, p; A1 counts, NaN missing) as PLINK 1 binary files."""
    n, p = genotypes.shape
    width = (n + 3) // 4
    body = bytearray()
    for column in genotypes.T:
        block = bytearray(width)
        for i, value in enumerate(column):
            code = 0b01 if np.isnan(value) else CODES[float(value)]
            block[i // 4] |= code << (2 * (i % 4))
        body += block
    prefix.with_suffix(".bed").write_bytes(bytes([0x6C, 0x1B, 0x01]) + bytes(body))
    prefix.with_suffix(".bim").write_text("".join(
        f"{1 + j // 3}\trs{j}\t0\t{1000 * (j + 1)}\tA\tG\n" for j in range(p)))
    prefix.with_suffix(".fam").write_text("".join(
        f"f{i}\ti{i}\t0\t0\t1\t-9\n" for i in range(n)))


def test_reads_what_was_written(tmp_path):
    rng = np.random.default_rng(0)
    genotypes = rng.integers(0, 3, size=(7, 5)).astype(float)
    genotypes[2, 1] = genotypes[6, 4] = np.nan
    write_plink(tmp_path / "toy", genotypes)
    read = read_plink(tmp_path / "toy")
    np.testing.assert_array_equal(read.genotypes, genotypes)
    assert read.variant_id.tolist() == [f"rs{j}" for j in range(5)]
    assert read.chromosome.tolist() == ["1", "1", "1", "2", "2"]
    np.testing.assert_array_equal(read.position, 1000 * np.arange(1, 6))
    assert read.individual_id.tolist() == [f"i{i}" for i in range(7)]
    part = read_plink(tmp_path / "toy", variants=[4, 0])
    np.testing.assert_array_equal(part.genotypes, genotypes[:, [4, 0]])
    assert part.variant_id.tolist() == ["rs4", "rs0"]


def test_named_errors(tmp_path):
    write_plink(tmp_path / "toy", np.zeros((5, 3)))
    with pytest.raises(FileNotFoundError, match=r"other\.bed"):
        read_plink(tmp_path / "other")
    bed = tmp_path / "toy.bed"
    content = bed.read_bytes()
    bed.write_bytes(content[:-1])
    with pytest.raises(ValueError, match="need 6"):
        read_plink(tmp_path / "toy")
    bed.write_bytes(b"\x00" + content[1:])
    with pytest.raises(ValueError, match="magic"):
        read_plink(tmp_path / "toy")


def test_mouse_genotypes_match_plink2(tmp_path):
    needs_plink_data()
    mouse = load_mouse_hs1940()
    assert mouse.genotypes.shape == (1940, 12226)
    assert not np.isnan(mouse.genotypes).any()
    if shutil.which("plink2") is None:
        pytest.skip("plink2 is not installed")
    prefix = get_data_home() / "plink" / "mouse_hs1940"
    subprocess.run(["plink2", "--bfile", str(prefix), "--chr", "1", "--from-bp", "0",
                    "--to-bp", "20000000", "--export", "A", "--out", str(tmp_path / "raw"),
                    "--silent"], check=True)
    lines = (tmp_path / "raw.raw").read_text().splitlines()
    header, rows = lines[0].split(), [line.split()[6:] for line in lines[1:]]
    exported = np.array(rows, dtype=float)  # plink2 counts the allele of .bim column 6
    ids = [name.rsplit("_", 1)[0] for name in header[6:]]
    columns = [mouse.variant_id.tolist().index(name) for name in ids]
    np.testing.assert_array_equal(mouse.genotypes[:, columns], 2.0 - exported)


def test_an_integer_dtype_is_refused_for_its_missing_calls(tmp_path):
    """In an integer dtype a missing call would read as 0 copies of allele 1, a genotype."""
    genotypes = np.array([[2.0], [np.nan]])
    write_plink(tmp_path / "toy", genotypes)
    assert np.isnan(read_plink(tmp_path / "toy", dtype=np.float32).genotypes[1, 0])
    with pytest.raises(ValueError, match=r"dtype must be a float dtype.*got int8"):
        read_plink(tmp_path / "toy", dtype=np.int8)


def test_a_selection_of_no_variant_and_a_short_fam_line_are_named(tmp_path):
    write_plink(tmp_path / "toy", np.array([[2.0, 0.0], [1.0, 1.0]]))
    one = read_plink(tmp_path / "toy", variants=0)
    assert one.genotypes.shape == (2, 1) and one.genotypes[0, 0] == 2.0
    with pytest.raises(ValueError, match="variants selects none of the 2 variants"):
        read_plink(tmp_path / "toy", variants=[])
    (tmp_path / "toy.fam").write_text("f0 i0 0 0 1 -9\nf1\n")
    with pytest.raises(ValueError, match="family and the individual id"):
        read_plink(tmp_path / "toy")
