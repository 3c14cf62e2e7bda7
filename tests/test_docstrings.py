"""The examples in the docstrings run and print what they say."""

import doctest
import importlib

import pytest

MODULES = ["alphavb.linear_model._bayes_linear", "alphavb.linear_model._spike_slab",
           "alphavb.mixture._gaussian_mixture", "alphavb.topics._lda",
           "alphavb.blackbox._bbalpha", "alphavb.blackbox._gaussian_vb",
           "alphavb.blackbox._aadm",
           "alphavb.simulation._runner", "alphavb.simulation._summary"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
