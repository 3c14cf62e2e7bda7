import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def assert_monotone(history, rel=1e-10):
    """The objective after each sweep never decreases (to a relative rounding tolerance)."""
    history = np.asarray(history)
    assert np.all(np.isfinite(history))
    drops = history[:-1] - history[1:]
    assert np.all(drops <= rel * np.abs(history[1:])), f"largest drop {drops.max()}"
