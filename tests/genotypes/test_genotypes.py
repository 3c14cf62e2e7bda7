"""The lazy PLINK reader (alphavb.genotypes): blocks of rows and variants decoded as the
eager reader decodes the whole file, on files written here (missing calls, a count of
individuals that is not a multiple of 4, several row and variant blocks) and against
plink2's own export of the shared genotypes (HLC has missing calls); selection by region,
ids, allele frequency and missingness; the named errors."""

import pickle
import shutil
import subprocess
import warnings

import numpy as np
import pytest

pytest.importorskip("dask")

from alphavb.datasets import get_data_home, load_mouse_hs1940
from alphavb.genotypes import _plink as lazy
from alphavb.genotypes import read_plink
from tests.datasets.test_plink import write_plink


@pytest.fixture
def toy(tmp_path):
    rng = np.random.default_rng(0)
    genotypes = rng.integers(0, 3, size=(23, 9)).astype(float)
    genotypes[rng.random((23, 9)) < 0.1] = np.nan
    genotypes[:, 8] = 0.0            # monomorphic
    genotypes[:20, 7] = np.nan       # mostly missing
    write_plink(tmp_path / "toy", genotypes)
    return tmp_path / "toy", genotypes


def test_blocks_of_rows_and_variants_decode_as_the_file(toy, monkeypatch):
    prefix, genotypes = toy
    # row blocks of 6 (6 + 6 + 6 + 5): blocks that start inside a byte of the .bed
    monkeypatch.setattr(lazy, "MAX_BLOCK_ROWS", 6)
    data = read_plink(prefix, chunk_size=2)
    assert data.X.chunks == ((6, 6, 6, 5), (2, 2, 2, 2, 1))
    np.testing.assert_array_equal(data.X.compute(), genotypes)
    np.testing.assert_array_equal(data.X[5:19, 3:8].compute(), genotypes[5:19, 3:8])
    assert data.variants.columns.tolist() == ["chrom", "snp", "cm", "pos", "a1", "a2"]
    assert data.samples["iid"].tolist() == [f"i{i}" for i in range(23)]
    # a cluster's workers get the blocks by pickle: the path and shapes, not the data
    again = pickle.loads(pickle.dumps(data.X))
    np.testing.assert_array_equal(again.compute(), genotypes)


def test_select_by_region_ids_frequency_and_missingness(toy):
    prefix, genotypes = toy
    data = read_plink(prefix)
    # write_plink puts variants 0-2 on chromosome 1, 3-5 on 2, 6-8 on 3, at 1000 (j + 1)
    region = data.select(region="2:4000-6000")
    assert region.variants["snp"].tolist() == ["rs3", "rs4", "rs5"]
    np.testing.assert_array_equal(region.X.compute(), genotypes[:, 3:6])
    assert data.select(region=("chr3", 7000, 7000)).variants["snp"].tolist() == ["rs6"]
    named = data.select(variants=["rs8", "rs1"])
    assert named.variants["snp"].tolist() == ["rs1", "rs8"]      # in the file's order
    frequency, missing = data.allele_frequencies()
    called = ~np.isnan(genotypes)
    np.testing.assert_allclose(frequency, np.nansum(genotypes, 0) / (2 * called.sum(0)))
    np.testing.assert_allclose(missing, 1 - called.mean(0))
    common = data.select(maf=0.05, max_missing=0.5)
    expected = [f"rs{j}" for j in range(9)
                if min(frequency[j], 1 - frequency[j]) >= 0.05 and missing[j] <= 0.5]
    assert common.variants["snp"].tolist() == expected and "rs8" not in expected
    np.testing.assert_array_equal(common.X.compute(),
                                  genotypes[:, common.variants.index.to_numpy()])


def test_named_errors(toy, tmp_path):
    prefix, _ = toy
    data = read_plink(prefix)
    with pytest.raises(ValueError, match="region"):
        data.select(region="9:1-100")
    with pytest.raises(ValueError, match="region"):
        data.select(region="chromosome one")
    with pytest.raises(ValueError, match="rs99"):
        data.select(variants=["rs99"])
    with pytest.raises(ValueError, match="chunk_size"):
        read_plink(prefix, chunk_size=0)
    with pytest.raises(FileNotFoundError, match=r"other\.bed"):
        read_plink(tmp_path / "other")
    bed = prefix.with_suffix(".bed")
    content = bed.read_bytes()
    bed.write_bytes(content[:-2])
    with pytest.raises(ValueError, match=f"has {len(content) - 2} bytes.*need {len(content)}"):
        read_plink(prefix)
    bed.write_bytes(content)
    prefix.with_suffix(".fam").write_text("f0 i0 0 0\n")
    with pytest.raises(ValueError, match=r"\.fam, line 1: 4 fields; every line needs 6"):
        read_plink(prefix)


def _plink_data(name):
    prefix = get_data_home() / "plink" / name
    if not prefix.with_name(name + ".bed").exists():
        pytest.skip("the PLINK data are not in the data home (set ALPHAVB_DATA)")
    return prefix


def test_mouse_genotypes_equal_the_eager_reader():
    prefix = _plink_data("mouse_hs1940")
    data = read_plink(prefix)
    assert data.X.shape == (1940, 12226)
    np.testing.assert_array_equal(data.X[:, 4000:4600].compute(),
                                  load_mouse_hs1940().genotypes[:, 4000:4600])


def test_hlc_calls_equal_plink2_missing_ones_included(tmp_path):
    """HLC (427 x 358,499) has missing calls: the first 3 Mb of chromosome 1 as plink2
    --export A writes them (NA where missing; 373 of its 427 rows hold one)."""
    prefix = _plink_data("HLC")
    if shutil.which("plink2") is None:
        pytest.skip("plink2 is not installed")
    subprocess.run(["plink2", "--bfile", str(prefix), "--chr", "1", "--from-bp", "0",
                    "--to-bp", "3000000", "--export", "A", "--out", str(tmp_path / "raw"),
                    "--silent"], check=True)
    lines = (tmp_path / "raw.raw").read_text().splitlines()
    header = lines[0].split()
    exported = np.array([[np.nan if value == "NA" else float(value)
                          for value in line.split()[6:]] for line in lines[1:]])
    data = read_plink(prefix).select(region="1:0-3000000")
    assert data.variants["snp"].tolist() == [name.rsplit("_", 1)[0] for name in header[6:]]
    calls = data.X.compute()
    assert np.isnan(calls).any()
    # plink2 counts the allele of the .bim's column 6 (A2), the reader A1 as PLINK 1's
    # --recode A does
    np.testing.assert_array_equal(calls, 2.0 - exported)


def test_sufficient_statistics_on_a_local_cluster_equal_numpys(toy, monkeypatch):
    """On a dask.distributed LocalCluster, blocks of 6 rows by 2 variants: X'X, X'y, y'y, n
    and the means of the mean-imputed rows equal NumPy's to 1e-10, and with covariates the
    statistics of the rows with the covariates and the intercept projected out."""
    from dask.distributed import Client, LocalCluster

    from alphavb.genotypes import sufficient_statistics

    prefix, genotypes = toy
    monkeypatch.setattr(lazy, "MAX_BLOCK_ROWS", 6)
    data = read_plink(prefix, chunk_size=2)
    assert len(data.X.chunks[0]) == 4 and len(data.X.chunks[1]) == 5
    rng = np.random.default_rng(1)
    y = rng.standard_normal(23)
    Z = rng.standard_normal((23, 2))
    kept = data.select(variants=[f"rs{j}" for j in range(7)])   # not the monomorphic one
    imputed = np.where(np.isnan(genotypes), np.nanmean(genotypes, axis=0), genotypes)[:, :7]
    centred, target = imputed - imputed.mean(axis=0), y - y.mean()
    W = np.column_stack([np.ones(23), Z])
    P = np.eye(23) - W @ np.linalg.pinv(W)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster):
        plain = sufficient_statistics(kept.X, y)
        projected = sufficient_statistics(kept.X, y, covariates=Z)
    np.testing.assert_allclose(plain["XtX"], centred.T @ centred, atol=1e-10)
    np.testing.assert_allclose(plain["Xty"], centred.T @ target, atol=1e-10)
    assert plain["yty"] == pytest.approx(target @ target, abs=1e-10)
    assert plain["n_samples"] == 23 and plain["y_mean"] == pytest.approx(y.mean())
    np.testing.assert_allclose(plain["X_mean"], imputed.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(projected["XtX"], imputed.T @ P @ imputed, atol=1e-10)
    np.testing.assert_allclose(projected["Xty"], imputed.T @ P @ y, atol=1e-10)
    assert projected["yty"] == pytest.approx(y @ P @ y, abs=1e-10)
    assert projected["X_mean"] is None and projected["n_covariates"] == 2
    Z_c = Z - Z.mean(axis=0)
    assert projected["covariates_log_det"] == pytest.approx(
        np.linalg.slogdet(Z_c.T @ Z_c)[1], abs=1e-10)


def test_sufficient_statistics_read_each_block_once_without_missing_calls(toy, monkeypatch):
    """One pass over the file where no call is missing (the means come from the same pass
    as the products), two where some are (the second for the missing calls' products), and
    blocks with and without missing calls combine to NumPy's statistics of the mean-imputed
    rows."""
    from alphavb.genotypes import sufficient_statistics

    prefix, genotypes = toy
    monkeypatch.setattr(lazy, "MAX_BLOCK_ROWS", 6)
    reads = []
    decode = lazy._BedBlocks.__getitem__

    def counted(self, key):
        if all(part.stop > part.start for part in key):  # not dask's empty probe
            reads.append(str(key))
        return decode(self, key)

    monkeypatch.setattr(lazy._BedBlocks, "__getitem__", counted)
    data = read_plink(prefix)
    kept = data.select(variants=[f"rs{j}" for j in range(7)])
    called = genotypes[:, :7].copy()
    called[:6] = np.where(np.isnan(called[:6]), 1.0, called[:6])  # a block with no NaN
    y = np.random.default_rng(2).standard_normal(23)
    stats = sufficient_statistics(kept.X, y)
    # the toy has missing calls: a second pass reads each block once more for them
    assert len(reads) == 2 * len(data.X.chunks[0]) == 8 and len(set(reads)) == 4
    complete = np.where(np.isnan(genotypes), 1.0, genotypes)
    write_plink(prefix.with_name("complete"), complete)
    reads.clear()
    sufficient_statistics(read_plink(prefix.with_name("complete")).X, y)
    assert len(reads) == 4 and len(set(reads)) == 4     # no missing call: one pass
    imputed = np.where(np.isnan(genotypes), np.nanmean(genotypes, axis=0), genotypes)[:, :7]
    centred = imputed - imputed.mean(axis=0)
    np.testing.assert_allclose(stats["XtX"], centred.T @ centred, atol=1e-10)
    import dask.array as da

    mixed = sufficient_statistics(da.from_array(called, chunks=(6, 7)), y)
    imputed = np.where(np.isnan(called), np.nanmean(called, axis=0), called)
    centred = imputed - imputed.mean(axis=0)
    np.testing.assert_allclose(mixed["XtX"], centred.T @ centred, atol=1e-10)
    np.testing.assert_allclose(mixed["Xty"], centred.T @ (y - y.mean()), atol=1e-10)


def test_sufficient_statistics_name_what_they_drop_or_refuse(toy):
    from alphavb.genotypes import sufficient_statistics

    prefix, _ = toy
    data = read_plink(prefix)
    y = np.arange(23.0)
    y[[3, 4]] = np.nan
    with pytest.warns(UserWarning, match="2 of 23 rows have a NaN trait"), \
            pytest.warns(UserWarning, match="1 variants .*column 8.* one genotype"):
        stats = sufficient_statistics(data.X, y)
    assert stats["n_samples"] == 21
    with pytest.raises(ValueError, match="covariates"), \
            pytest.warns(UserWarning, match="NaN trait"):
        sufficient_statistics(data.X, y, covariates=np.column_stack([np.ones(23),
                                                                     np.arange(23.0)]))
    with pytest.raises(ValueError, match="one value per row"):
        sufficient_statistics(data.X, np.ones(5))


def test_mouse_locus_fits_equal_the_dense_fit():
    """A locus of mouse_hs1940 (chromosome 1 to 40 Mb, MAF >= 0.05, 530 of 1,940 traits
    missing): fit_sufficient on the blockwise statistics equals the fit on the dense rows
    (PIPs within 1e-6), with covariates too (their flat prior's degrees of freedom in
    sigma2, their log-determinant in the objective), at alpha = 1 and 0.5."""
    from alphavb import AlphaSuSiE
    from alphavb.genotypes import sufficient_statistics

    prefix = _plink_data("mouse_hs1940")
    data = read_plink(prefix).select(region="1:0-40000000", maf=0.05)
    y = np.genfromtxt(prefix.with_name("mouse_hs1940.pheno.txt"))[:, 0]
    known = ~np.isnan(y)
    X = data.X.compute()[known]
    with pytest.warns(UserWarning, match="530 of 1940"):
        stats = sufficient_statistics(data.X, y)
    dense = AlphaSuSiE().fit(X, y[known])
    blockwise = AlphaSuSiE().fit_sufficient(**stats)
    np.testing.assert_allclose(blockwise.inclusion_probabilities_,
                               dense.inclusion_probabilities_, atol=1e-6)
    Z = np.random.default_rng(0).standard_normal((len(y), 2))
    with pytest.warns(UserWarning, match="530 of 1940"):
        projected_stats = sufficient_statistics(data.X, y, covariates=Z)
    for alpha in (1.0, 0.5):
        with_covariates = AlphaSuSiE(alpha=alpha).fit(X, y[known], covariates=Z[known])
        from_stats = AlphaSuSiE(alpha=alpha).fit_sufficient(**projected_stats)
        np.testing.assert_allclose(from_stats.inclusion_probabilities_,
                                   with_covariates.inclusion_probabilities_, atol=1e-6)
        assert from_stats.noise_variance_ == pytest.approx(with_covariates.noise_variance_,
                                                           rel=1e-6)
        assert from_stats.elbo_ == pytest.approx(with_covariates.elbo_, rel=1e-9)
    with pytest.raises(ValueError, match="n_covariates"):
        AlphaSuSiE().fit_sufficient(**{**projected_stats, "n_covariates": -1})


def test_default_blocks_hold_every_variant_unless_the_file_is_wide():
    """Blocks of every variant (the sufficient statistics' blocks: no rechunk) by as many rows
    as keep 2**23 genotypes, a multiple of 4; a file so wide that fewer than 512 rows would
    fit keeps up to 8,192 rows by as many variants as fit (a block of few rows would touch
    every page of the .bed)."""
    assert lazy.default_blocks(200_000, 2_000) == (4192, 2_000)
    assert lazy.default_blocks(300, 2_000) == (300, 2_000)
    assert lazy.default_blocks(427, 358_499) == (427, 2**23 // 427)
    assert lazy.default_blocks(337_000, 10_000) == (836, 10_000)


def test_second_hostile_round(toy, tmp_path):
    """What the hostile test of the genotype surface found: two block layouts of one file
    are two dask arrays; chromosomes match as PLINK numbers them; a .bim line of 7 fields,
    a non-integer position, a constant trait, an infinite call and a maf out of [0, 0.5]
    are refused by name; a variant conditioned on (passed as a covariate) gets a row of 0s
    and a warning, not rounding."""
    import dask.array as da

    from alphavb.genotypes import sufficient_statistics

    prefix, genotypes = toy
    a, b = read_plink(prefix), read_plink(prefix, chunk_size=2)
    assert a.X.name != b.X.name
    np.testing.assert_array_equal(da.concatenate([a.X, b.X], axis=1).compute(),
                                  np.hstack([genotypes, genotypes]))
    assert lazy.chromosome_code("chrX") == lazy.chromosome_code("23") == "23"
    assert lazy.chromosome_code("chr01") == lazy.chromosome_code(1) == "1"
    bim = prefix.with_suffix(".bim")
    lines = bim.read_text().splitlines()
    bim.write_text("\n".join(["chr" + line for line in lines]) + "\n")
    assert read_plink(prefix).select(region="1:0-3000").variants["snp"].tolist() == [
        "rs0", "rs1", "rs2"]
    bim.write_text("\n".join([lines[0], lines[1] + "\tx", *lines[2:]]) + "\n")
    with pytest.raises(ValueError, match=r"line 2: 7 fields.*exactly 6"):
        read_plink(prefix)
    bim.write_text("\n".join([lines[0].replace("\t1000\t", "\t1000.5\t"), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"line 1: the pos field '1000.5'"):
        read_plink(prefix)
    bim.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="maf"):
        a.select(maf=0.6)
    with pytest.raises(ValueError, match="a trait that varies"):
        sufficient_statistics(a.X, np.full(23, 3.3))
    with pytest.raises(ValueError, match="infinite"):
        sufficient_statistics(np.where(np.arange(23)[:, None] == 4, np.inf, 1.0)
                              * np.ones((23, 3)), np.arange(23.0))
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(60, 8)).astype(float)
    y = X[:, 2] + rng.standard_normal(60)
    with pytest.warns(UserWarning, match="1 variants .*column 2.* spanned by the covariates"):
        stats = sufficient_statistics(X, y, covariates=X[:, [2]])
    assert np.all(stats["XtX"][2] == 0.0) and stats["Xty"][2] == 0.0


def test_the_calibration_refuses_statistics_with_covariates_projected_out():
    """AlphaSelector's calibration draws its replicates without covariates: statistics with
    covariates projected out are refused by name, not calibrated wrongly."""
    from alphavb import AlphaSuSiE
    from alphavb.model_selection import AlphaSelector

    selector = AlphaSelector(AlphaSuSiE(), method="calibrate")
    with pytest.raises(ValueError, match="n_covariates"):
        selector.fit_sufficient(np.eye(3), np.ones(3), 5.0, 50, n_covariates=2,
                                covariates_log_det=1.0)


def test_fine_map_many_traits_and_loci(tmp_path):
    """Three traits at two loci and a region with no variant, on the mouse genotypes: one
    row per credible set (the pair fitted by hand gives the same sets), an error row for the
    empty region, the same table from a LocalCluster and from the cache."""
    import pandas as pd
    from dask.distributed import Client, LocalCluster

    from alphavb import AlphaSpikeSlabRegression, AlphaSuSiE
    from alphavb.genotypes import fine_map, sufficient_statistics

    prefix = _plink_data("mouse_hs1940")
    data = read_plink(prefix)
    phenotypes = np.genfromtxt(prefix.with_name("mouse_hs1940.pheno.txt"))[:, :3]
    traits = pd.DataFrame(phenotypes, columns=["t1", "t2", "t3"])
    loci = {"a": "1:0-40000000", "b": "2:0-40000000", "empty": "5:0-10"}
    table = fine_map(data, traits, loci, cache_dir=tmp_path, progress=False)
    assert set(table["trait"]) == {"t1", "t2", "t3"}
    errors = table[table["status"] == "error"]
    assert set(errors["locus"]) == {"empty"} and errors["message"].str.contains(
        "region").all()
    with pytest.warns(UserWarning, match="NaN trait"):
        by_hand = AlphaSuSiE().fit_sufficient(**sufficient_statistics(
            data.select(region=loci["a"]).X, phenotypes[:, 0]))
    sets = table[(table["trait"] == "t1") & (table["locus"] == "a")]
    assert len(sets) == len(by_hand.credible_sets_) > 0
    assert sets["size"].tolist() == [len(cs["variables"]) for cs in by_hand.credible_sets_]
    assert (sets["message"].str.contains("NaN trait")).all()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster):
        distributed = fine_map(data, traits, loci, progress=False)
    pd.testing.assert_frame_equal(distributed, table)
    cached = fine_map(data, traits, loci, cache_dir=tmp_path, progress=False)
    ok = table["status"] == "ok"
    pd.testing.assert_frame_equal(cached[ok].drop(columns="message"),
                                  table[ok].drop(columns="message"))
    assert len(list(tmp_path.glob("*.json"))) == 6          # the errors are not cached
    with pytest.raises(ValueError, match="traits"):
        fine_map(data, {"short": np.ones(5)}, loci)
    with pytest.raises(ValueError, match="credible sets"):
        fine_map(data, traits, loci, estimator=AlphaSpikeSlabRegression())


def test_third_hostile_round(toy, tmp_path):
    """What the hostile test of fit_sufficient and fine_map found: a column in units of 1e6
    beside columns of 1 (fit_sufficient lost its eigenvalue: a PIP of 1 on the wrong
    variable), one mean without the other, a cache that served another selection's sets,
    and duplicated names that dropped a locus or a trait."""
    import pandas as pd

    from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression
    from alphavb.genotypes import fine_map
    from alphavb.linear_model import sufficient_statistics as dense_statistics

    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5))
    y = X[:, 1] - 2 * X[:, 2] + rng.standard_normal(200)
    X[:, 0] *= 1e6
    stats = dense_statistics(X, y)
    for model in (AlphaLinearRegression(), AlphaSpikeSlabRegression(random_state=0)):
        dense = type(model)(**model.get_params()).fit(X, y)
        fitted = model.fit_sufficient(**stats)
        np.testing.assert_allclose(fitted.coef_, dense.coef_, rtol=1e-8, atol=1e-12)
        assert fitted.noise_variance_ == pytest.approx(dense.noise_variance_, rel=1e-8)
    with pytest.raises(ValueError, match="y_mean"):
        AlphaLinearRegression().fit_sufficient(**{**stats, "y_mean": None})
    prefix, _ = toy
    traits = {"t": rng.standard_normal(23)}
    data = read_plink(prefix)
    fine_map(data, traits, ["1:0-9000"], cache_dir=tmp_path, progress=False)
    narrower = data.select(variants=["rs0", "rs1"])
    again = fine_map(narrower, traits, ["1:0-9000"], cache_dir=tmp_path, progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 2             # another selection: refitted
    assert all(set(variants) <= {"rs0", "rs1"} for variants in again["variants"])
    with pytest.raises(ValueError, match="distinct"):
        fine_map(data, traits, [("A", "1:0-9000"), ("A", "2:0-9000")])
    with pytest.raises(ValueError, match="distinct"):
        fine_map(data, pd.DataFrame(np.ones((23, 2)), columns=["a", "a"]), ["1:0-9000"])
    with pytest.raises(ValueError, match="covariates"):
        fine_map(data, traits, ["1:0-9000"], covariates=np.ones((5, 1)))


def test_fourth_hostile_round(toy, tmp_path):
    """What the fourth hostile test of the genotype surface found: a .fam listing fewer
    individuals than the .bed holds, within a byte (read silently, the last individual
    dropped); sufficient statistics that blamed y for a bad X, raised an IndexError for
    covariates of the wrong length beside a NaN trait, numpy's words for strings, and NaN
    statistics for values whose squares overflow; a warning that promised the prior's PIPs
    for a constant variant; fine_map's loci as one string (read letter by letter) or as
    (chrom, start, end) tuples (an unpacking error), and a trait of strings."""
    from alphavb.genotypes import fine_map, sufficient_statistics

    genotypes = np.tile([[0.0, 1.0, 2.0]], (10, 1))
    genotypes[9] = 1.0                      # the 10th individual: heterozygous calls
    write_plink(tmp_path / "ten", genotypes)
    fam = tmp_path / "ten.fam"
    fam.write_text("".join(fam.read_text().splitlines(keepends=True)[:9]))
    with pytest.raises(ValueError, match=r"calls past the .fam's 9 individuals"):
        read_plink(tmp_path / "ten")
    prefix, calls = toy
    X = np.nan_to_num(calls)
    y = np.random.default_rng(1).standard_normal(23)
    with_nan = y.copy()
    with_nan[0] = np.nan
    cases = [((X[:, 0], y), "'X' parameter"), ((X[..., None], y), "'X' parameter"),
             ((X, np.full(23, "a")), "'y' parameter.*numbers"),
             ((np.full((23, 2), "a"), y), "'X' parameter.*numbers"),
             ((X * 1e200, y), "'X' parameter.*overflow"),
             ((X, y * 1e200), "'y' parameter.*squares")]
    for (bad_X, bad_y), match in cases:
        with pytest.raises(ValueError, match=match):
            sufficient_statistics(bad_X, bad_y)
    with pytest.raises(ValueError, match=r"'covariates' parameter.*23 rows"):
        sufficient_statistics(X, with_nan, covariates=np.ones((22, 1)))
    # a covariate missing where the trait is: those rows go together, as before
    covariate = np.random.default_rng(2).standard_normal((23, 1))
    covariate[0] = np.nan
    with pytest.warns(UserWarning, match="NaN trait"):
        kept = sufficient_statistics(X, with_nan, covariates=covariate)
    with pytest.warns(UserWarning):
        dropped = sufficient_statistics(X[1:], y[1:], covariates=covariate[1:])
    np.testing.assert_allclose(kept["XtX"], dropped["XtX"])
    with pytest.warns(UserWarning, match="say nothing of them .a Bayes factor of 1"):
        sufficient_statistics(X, y)          # variant 8 is monomorphic
    data = read_plink(prefix)
    traits = {"t": y}
    with pytest.raises(ValueError, match=r"'loci' parameter.*Pass a list"):
        fine_map(data, traits, "1:0-9000", progress=False)
    table = fine_map(data, traits, [("1", 0, 9000)], progress=False)
    assert set(table["locus"]) == {"1:0-9000"}
    with pytest.raises(ValueError, match=r"'traits' parameter.*numbers"):
        fine_map(data, {"t": np.full(23, "a")}, ["1:0-9000"], progress=False)



def test_a_fam_longer_than_the_bed_within_a_byte_is_warned_of(tmp_path):
    """A .fam that lists a 10th individual for a .bed of 9 (the same 3 bytes per variant)
    read the padding as a 10th individual, homozygous at every variant, silently; now a
    warning says so when the others' calls make that unlikely for a real individual (below
    1e-6). The 9 real individuals read without one, and so do monomorphic variants."""
    genotypes = np.random.default_rng(0).integers(0, 3, size=(9, 40)).astype(float)
    genotypes[8] = 1.0                      # the last real individual: heterozygous
    write_plink(tmp_path / "nine", genotypes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(read_plink(tmp_path / "nine").X.compute(), genotypes)
    fam = tmp_path / "nine.fam"
    lines = fam.read_text()
    fam.write_text(lines + "f10 i10 0 0 0 -9\n")
    with pytest.warns(UserWarning, match=r"last individual \(i10\) is homozygous.*first 40 "
                                         r"variants"):
        read_plink(tmp_path / "nine")
    # 12 listed for the same 3 bytes: a multiple of 4 was not checked at all
    fam.write_text(lines + "".join(f"f{i} i{i} 0 0 0 -9\n" for i in (10, 11, 12)))
    with pytest.warns(UserWarning, match=r"last individual \(i12\)"):
        read_plink(tmp_path / "nine")
    # a real last individual homozygous where everyone is (monomorphic variants) is not one
    write_plink(tmp_path / "flat", np.full((9, 40), 2.0))  # 2 copies of allele 1: 00
    # ... nor one variant where the last of 5 alone is homozygous (its "chance of 0")
    write_plink(tmp_path / "small", np.array([[1.0], [1.0], [1.0], [1.0], [2.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_plink(tmp_path / "flat")
        read_plink(tmp_path / "small")


def test_fifth_hostile_round(toy):
    """What the fifth hostile test found: pandas' missing values (pd.NA) in a covariate or a
    trait ended in a TypeError (or 'values of type object') though NaN is taken there;
    string covariates got numpy's words; one (chrom, start, end) tuple as loci was read as
    three loci ("Got '1000'")."""
    import pandas as pd

    from alphavb.genotypes import fine_map, sufficient_statistics

    prefix, calls = toy
    X = np.nan_to_num(calls)
    y = np.random.default_rng(1).standard_normal(23)
    y[0] = np.nan
    covariate = np.random.default_rng(2).standard_normal(23)
    covariate[0] = np.nan
    nullable = pd.DataFrame({"c": pd.array([pd.NA, *covariate[1:]], dtype="Float64")})
    with pytest.warns(UserWarning, match="NaN trait"):
        expected = sufficient_statistics(X, y, covariates=covariate[:, None])
    with pytest.warns(UserWarning, match="NaN trait"):
        from_pandas = sufficient_statistics(X, pd.Series(pd.array([pd.NA, *y[1:]],
                                                                  dtype="Float64")),
                                            covariates=nullable)
    np.testing.assert_allclose(from_pandas["XtX"], expected["XtX"])
    np.testing.assert_allclose(from_pandas["Xty"], expected["Xty"])
    data = read_plink(prefix)
    with pytest.raises(ValueError, match=r"'covariates' parameter of fine_map.*numbers"):
        fine_map(data, {"t": y}, ["1:0-9000"], covariates=np.full((23, 1), "a"),
                 progress=False)
    table = fine_map(data, {"t": pd.Series(pd.array([pd.NA, *y[1:]], dtype="Float64"))},
                     ["1:0-9000"], covariates=nullable, progress=False)
    assert (table["status"] == "ok").all()
    with pytest.raises(ValueError, match=r"'loci' parameter.*one region.*Pass a list"):
        fine_map(data, {"t": y}, ("1", 0, 9000), progress=False)
