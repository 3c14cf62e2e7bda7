import numpy as np
import pytest

from alphavb.datasets import make_sparse_regression


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
