import numpy as np
import pytest

from alphavb.datasets import make_gmm, make_sparse_regression


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
