"""AlphaGaussianMixture on dask arrays: the same answer as in memory, whatever the chunking,
on a 2-worker LocalCluster and on dask's local scheduler."""

import numpy as np
import pytest

from alphavb import AlphaGaussianMixture
from alphavb.datasets import make_gmm

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

RTOL = 1e-10


def data(n_samples=3000):
    X, _, _ = make_gmm(n_samples=n_samples, random_state=0)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, n_samples)
    return X, weight


def settings(covariance_type):
    # eight sweeps, all recorded and compared (tol=0: no early stop)
    return {"n_components": 3, "covariance_type": covariance_type, "alpha": 0.7,
            "init_params": "random_from_data", "random_state": 0, "tol": 0.0, "max_iter": 8}


pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def assert_same_fit(ours, reference):
    assert ours.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(ours.elbo_history_, reference.elbo_history_, rtol=RTOL)
    for name in ("means_", "covariances_", "weights_", "degrees_of_freedom_",
                 "mean_precision_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(reference, name), rtol=RTOL,
                                   atol=1e-13)
    np.testing.assert_allclose(ours.mean_prior_, reference.mean_prior_, rtol=RTOL)
    np.testing.assert_allclose(ours.covariance_prior_, reference.covariance_prior_, rtol=RTOL)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "tied", "spherical"])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_on_a_cluster_equals_the_in_memory_fit_for_any_chunking(dask_client,
                                                                    covariance_type, weighted):
    X, weight = data()
    sample_weight = weight if weighted else None
    reference = AlphaGaussianMixture(**settings(covariance_type)).fit(
        X, sample_weight=sample_weight)
    for rows in (700, 3000):
        chunked = da.from_array(X, chunks=(rows, 1))
        weights = None if sample_weight is None else da.from_array(weight, chunks=rows // 2)
        ours = AlphaGaussianMixture(**settings(covariance_type)).fit(chunked,
                                                                     sample_weight=weights)
        assert_same_fit(ours, reference)


def test_fit_without_a_client_and_predictions_by_block():
    X, _ = data(2000)
    reference = AlphaGaussianMixture(**settings("full")).fit(X)
    chunked = da.from_array(X, chunks=(600, 2))
    ours = AlphaGaussianMixture(**settings("full")).fit(chunked)
    assert_same_fit(ours, reference)
    np.testing.assert_allclose(ours.predict_proba(chunked).compute(),
                               reference.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(chunked).compute(), reference.predict(X))
    np.testing.assert_allclose(ours.score_samples(chunked).compute(),
                               reference.score_samples(X), rtol=1e-9)


def test_partial_fit_on_dask_batches_equals_numpy_batches():
    X, _ = data(2400)
    common = {**settings("full"), "total_samples": len(X)}
    memory, blocks = AlphaGaussianMixture(**common), AlphaGaussianMixture(**common)
    for rows in np.array_split(np.arange(len(X)), 4):
        memory.partial_fit(X[rows])
        blocks.partial_fit(da.from_array(X[rows], chunks=(250, 2)))
    np.testing.assert_allclose(blocks.means_, memory.means_, rtol=RTOL)
    np.testing.assert_allclose(blocks.covariances_, memory.covariances_, rtol=RTOL)
    assert blocks.elbo_ == pytest.approx(memory.elbo_, rel=RTOL)


def test_bad_dask_input_is_refused_with_the_fix():
    X, _ = data(500)
    with pytest.raises(ValueError, match=r"'init_params' parameter .* 'random_from_data'"):
        AlphaGaussianMixture(3, init_params="random").fit(da.from_array(X, chunks=(100, 2)))
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        AlphaGaussianMixture(3, init_params="random_from_data").fit(
            da.from_array(bad, chunks=(100, 2)))
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        AlphaGaussianMixture(3, init_params="random_from_data").fit(
            da.from_array(X, chunks=(100, 2)), sample_weight=np.ones(3))
    # no features (an IndexError deep in the start), and strings (numpy's words)
    with pytest.raises(ValueError, match="0 features"):
        AlphaGaussianMixture(2).fit(da.zeros((100, 0), chunks=50))
    with pytest.raises(ValueError, match="needs numbers"):
        AlphaGaussianMixture(2).fit(da.from_array(np.full((20, 2), "a")))


@pytest.mark.parametrize("init_params", ["kmeans", "k-means++"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_default_kmeans_start_on_dask_equals_the_in_memory_one(init_params, weighted):
    """Up to KMEANS_SAMPLE_ROWS rows, k-means runs on the rows themselves: the same start,
    and so the same fit, as in memory."""
    X, weight = data(1500)
    sample_weight = weight if weighted else None
    # three sweeps: from a k-means start the fits reach their fixed point within a few, where
    # the sweep whose change is exactly 0 depends on rounding
    common = {**settings("full"), "init_params": init_params, "max_iter": 3}
    reference = AlphaGaussianMixture(**common).fit(X, sample_weight=sample_weight)
    ours = AlphaGaussianMixture(**common).fit(
        da.from_array(X, chunks=(400, 2)),
        sample_weight=None if sample_weight is None else da.from_array(weight, chunks=400))
    assert_same_fit(ours, reference)


def test_a_sampled_kmeans_start_does_not_depend_on_the_units(monkeypatch):
    """Above KMEANS_SAMPLE_ROWS the sampled k-means runs on unit columns, as the in-memory
    start does: clusters 4 years apart beside an unrelated income (sd $10,000) are found
    after one sweep. On the raw columns k-means split the incomes, and the three means of
    the years after one sweep lay within 0.15 of each other (6.07-6.22)."""
    from alphavb.mixture import _blocks

    rng = np.random.default_rng(0)
    years = np.array([2.0, 6.0, 10.0])[rng.integers(0, 3, 3000)] + 0.5 * rng.standard_normal(3000)
    X = np.column_stack([years, 50_000 + 10_000 * rng.standard_normal(3000)])
    monkeypatch.setattr(_blocks, "KMEANS_SAMPLE_ROWS", 300)
    common = {"n_components": 3, "alpha": 0.7, "max_iter": 1,
              "weight_concentration_prior_type": "dirichlet_distribution"}
    for seed in range(3):
        in_memory = AlphaGaussianMixture(random_state=seed, **common).fit(X)
        blocks = AlphaGaussianMixture(random_state=seed, **common).fit(
            da.from_array(X, chunks=(700, 2)))
        for model in (in_memory, blocks):
            assert np.ptp(model.means_[:, 0]) > 3.0, model.means_[:, 0]


def test_a_sampled_kmeans_start_reaches_the_in_memory_fit(monkeypatch):
    """Above KMEANS_SAMPLE_ROWS (lowered to 300 of 3,000 rows here) k-means runs on a
    uniform sample and every row, block by block, joins its nearest center: on these data
    each of five seeds converges to the fit of the in-memory k-means start."""
    from alphavb.mixture import _blocks

    X, weight = data(3000)
    # Dirichlet weights: the fit does not depend on the order of the components (a
    # stick-breaking prior's does), which k-means labels arbitrarily
    common = {"n_components": 3, "alpha": 0.7, "tol": 1e-12, "max_iter": 500,
              "weight_concentration_prior_type": "dirichlet_distribution"}
    monkeypatch.setattr(_blocks, "KMEANS_SAMPLE_ROWS", 300)
    for seed in range(5):
        reference = AlphaGaussianMixture(random_state=seed, **common).fit(X, sample_weight=weight)
        ours = AlphaGaussianMixture(random_state=seed, **common).fit(
            da.from_array(X, chunks=(700, 2)), sample_weight=da.from_array(weight, chunks=700))
        order = np.argsort(ours.means_[:, 0])
        expected = np.argsort(reference.means_[:, 0])
        # the same optimum (a relative objective change of 1e-12 pins it to about 1e-6)
        np.testing.assert_allclose(ours.means_[order], reference.means_[expected], rtol=1e-5)
        np.testing.assert_allclose(ours.weights_[order], reference.weights_[expected],
                                   rtol=1e-5)
        assert ours.elbo_ == pytest.approx(reference.elbo_, rel=1e-9)
