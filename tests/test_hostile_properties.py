"""Property-based tests of the newest surface under random input: warm-start sequences that
change the model's size or the data between fits, random covariates and prior grids, and
random corruptions of the loaders' files. Each input either fits with every property a fit
must have, or is refused with a ValueError that names it; nothing else."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from alphavb import (
    AlphaGaussianMixture,
    AlphaLDA,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)
from tests.conftest import assert_monotone

QUIET = {"max_examples": 15, "deadline": None,
         "suppress_health_check": [HealthCheck.function_scoped_fixture]}


@settings(**QUIET)
@given(seed=st.integers(0, 2**31 - 1),
       sizes=st.lists(st.integers(1, 4), min_size=2, max_size=4))
def test_warm_start_sequences_of_the_mixture_and_lda(seed, sizes):
    """Any sequence of n_components with warm_start=True: each fit has the current size, and
    a fit after a change equals a cold fit of the same settings."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 2)) + rng.integers(0, 3, size=(60, 1)) * 4.0
    counts = rng.poisson(2.0, size=(30, 12))
    mixture = AlphaGaussianMixture(warm_start=True, max_iter=20, random_state=0)
    lda = AlphaLDA(warm_start=True, max_iter=3, random_state=0)
    previous = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for size in sizes:
            mixture.set_params(n_components=size).fit(X)
            lda.set_params(n_components=size).fit(counts)
            assert mixture.weights_.shape == (size,) and mixture.means_.shape == (size, 2)
            assert lda.components_.shape == (size, 12)
            assert_monotone(mixture.elbo_history_)
            if size != previous:
                cold = AlphaGaussianMixture(size, max_iter=20, random_state=0).fit(X)
                np.testing.assert_array_equal(mixture.means_, cold.means_)
                cold_lda = AlphaLDA(size, max_iter=3, random_state=0).fit(counts)
                np.testing.assert_array_equal(lda.components_, cold_lda.components_)
            previous = size


@settings(**QUIET)
@given(seed=st.integers(0, 2**31 - 1),
       widths=st.lists(st.integers(1, 6), min_size=2, max_size=4),
       classifier=st.booleans())
def test_warm_start_sequences_of_the_spike_and_slab_models_on_other_features(
        seed, widths, classifier):
    rng = np.random.default_rng(seed)
    model = (AlphaSpikeSlabClassifier(warm_start=True, n_init=1) if classifier
             else AlphaSpikeSlabRegression(warm_start=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for width in widths:
            X = rng.normal(size=(50, width))
            signal = X[:, 0] + rng.normal(size=50)
            y = (signal > 0).astype(int) if classifier else signal
            if classifier and len(np.unique(y)) < 2:
                continue
            model.fit(X, y)
            assert model.coef_.shape == (width,)
            assert np.all((model.inclusion_probabilities_ >= 0)
                          & (model.inclusion_probabilities_ <= 1))
            assert_monotone(model.elbo_history_, rel=1e-8)


@settings(**QUIET)
@given(seed=st.integers(0, 2**31 - 1), n_covariates=st.integers(1, 4),
       log_scales=st.lists(st.floats(-12, 12), min_size=4, max_size=4),
       grid=st.lists(st.floats(0.01, 0.9), min_size=1, max_size=4), classifier=st.booleans(),
       n_rows=st.integers(4, 40))
def test_random_covariates_and_grids_fit_or_are_refused_by_name(
        seed, n_covariates, log_scales, grid, classifier, n_rows):
    """Covariates of any scale (1e-12 to 1e12), any count against the rows, and any grid of
    prior inclusions: a fit whose weights sum to 1, whose PIPs are probabilities, whose
    objective never decreases in any setting and whose predictions are finite; or a
    ValueError naming the covariates."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 3))
    Z = rng.normal(size=(n_rows, n_covariates)) * 10.0 ** np.array(log_scales[:n_covariates])
    signal = X[:, 0] + rng.normal(size=n_rows)
    y = (signal > 0).astype(int) if classifier else signal
    if classifier and len(np.unique(y)) < 2:
        return
    model = (AlphaSpikeSlabClassifier(prior_inclusion=grid, n_init=2) if classifier
             else AlphaSpikeSlabRegression(prior_inclusion=grid))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model.fit(X, y, covariates=Z)
        except ValueError as error:
            assert "covariates" in str(error) or "flat-prior columns" in str(error), error
            return
    assert model.hyper_weights_.sum() == pytest.approx(1.0)
    assert np.all((model.inclusion_probabilities_ >= 0) & (model.inclusion_probabilities_ <= 1))
    for history in model.setting_elbo_history_:
        assert_monotone(history, rel=1e-8)
    output = model.predict_proba(X, covariates=Z) if classifier else model.predict(
        X, covariates=Z)
    assert np.all(np.isfinite(output))


@settings(**QUIET)
@given(data=st.data())
def test_random_corruptions_of_the_loaders_files(tmp_path_factory, data):
    """A byte of ap.dat or of a UCI split file replaced, deleted or duplicated: the loader
    returns data consistent with its files or raises a ValueError naming the file (or,
    for a larger split count, a FileNotFoundError naming the split file it now needs)."""
    from alphavb.datasets import load_ap, load_uci
    from tests.datasets.test_datasets import write_fake_uci, write_lda_c

    home = tmp_path_factory.mktemp("home")
    write_lda_c(home, ["2 0:3 2:1", "1 1:2", "0", "3 0:1 1:1 2:5"], ["apple", "pear", "plum"])
    write_fake_uci(home / "uci" / "yacht" / "data")
    targets = [home / "ap" / "ap.dat", home / "uci" / "yacht" / "data" / "index_train_1.txt",
               home / "uci" / "yacht" / "data" / "index_features.txt",
               home / "uci" / "yacht" / "data" / "n_splits.txt"]
    path = data.draw(st.sampled_from(targets))
    content = bytearray(path.read_bytes())
    position = data.draw(st.integers(0, len(content) - 1))
    action = data.draw(st.sampled_from(["replace", "delete", "duplicate"]))
    if action == "replace":
        content[position] = data.draw(st.sampled_from(list(b"0123456789 :\n\t-.ex")))
    elif action == "delete":
        del content[position]
    else:
        content.insert(position, content[position])
    path.write_bytes(bytes(content))
    try:
        if path.parent.name == "ap":
            bunch = load_ap(data_home=home, download_if_missing=False)
            lines = path.read_text().rstrip("\n\r\t ").splitlines()
            assert bunch.data.shape == (len(lines), 3)
            assert np.all(bunch.data.data >= 0)
        else:
            bunch = load_uci("yacht", data_home=home, download_if_missing=False)
            target_column = bunch.target
            assert bunch.data.shape[0] == target_column.shape[0]
            for train, test in zip(bunch.train_indices, bunch.test_indices, strict=True):
                assert np.intersect1d(train, test).size == 0
                assert len(np.unique(train)) == len(train)
    except ValueError as error:
        assert path.name in str(error) or "data.txt" in str(error), error
    except FileNotFoundError as error:  # a larger split count: the files it now needs
        assert path.name == "n_splits.txt" and "index_" in str(error), error


@settings(max_examples=200, deadline=None)
@given(n_items=st.integers(0, 60), largest=st.integers(1, 8), n_jobs=st.integers(1, 4))
def test_stacks_of_a_resumable_run_cover_the_fits_in_order(n_items, largest, n_jobs):
    # every fit in exactly one stack, in order; no stack above the limit; sizes within one
    # of each other; as many stacks as a multiple of the workers when there are fits enough
    from alphavb.reproduce._uci import stack_pieces

    pieces = stack_pieces(list(range(n_items)), largest, n_jobs)
    assert [item for piece in pieces for item in piece] == list(range(n_items))
    sizes = [len(piece) for piece in pieces]
    assert all(1 <= size <= largest for size in sizes)
    assert not sizes or max(sizes) - min(sizes) <= 1
    assert len(pieces) % n_jobs == 0 or len(pieces) == n_items
    assert len(pieces) <= max(-(-n_items // largest) + n_jobs - 1, 0)
