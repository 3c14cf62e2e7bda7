"""Fixtures of the alpha-SuSiE tests: N3finemapping from the data home (skipped without it)."""

import pytest

from alphavb.datasets import get_data_home


@pytest.fixture(scope="module")
def n3():
    from alphavb.datasets import load_n3finemapping

    if not (get_data_home() / "susie" / "N3finemapping_X.csv").exists():
        pytest.skip("the susie data are not in the data home (set ALPHAVB_DATA)")
    return load_n3finemapping()
