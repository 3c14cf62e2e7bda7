"""alpha-SuSiE's fit of z-scores with an LD matrix from other individuals
(``fit_summary(..., ld_mismatch="eb", reference_n_samples=B)``): susieR 0.16.5's
``R_finite`` and ``R_mismatch = "eb"`` reproduced (tests/data/susier_mismatch.json, written
by benchmarks/susier_mismatch_reference.py), the inflation's limits, the diagnostics'
flag, and bad input refused by name."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from alphavb import AlphaSuSiE
from tests.linear_model.susie_helpers import correlated, z_scores

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "susier_mismatch.json"


@pytest.fixture(scope="module")
def halves(n3):
    reference = json.loads(REFERENCE.read_text())
    X = n3.data[:, reference["columns"]]
    return X[:287], X[287:], n3.target[:287], reference["fits"]


@pytest.mark.parametrize("response", [0, 1])
@pytest.mark.parametrize("case", ["finite", "eb", "eb_finite"])
def test_equals_susier_0_16_5(halves, response, case):
    """PIPs, V, sets, iterations, lambda, the effective reference size and Q of 0.16.5's
    fits of one half's z-scores with the other half's LD."""
    sample, panel, Y, fits = halves
    reference = fits[f"y{response + 1}_{case}"]
    options = {}
    if case != "eb":
        options["reference_n_samples"] = 287
    if case != "finite":
        options["ld_mismatch"] = "eb"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = AlphaSuSiE().fit_summary(z_scores(sample, Y[:, response]),
                                         np.corrcoef(panel, rowvar=False), 287, **options)
    said = [str(w.message) for w in caught]
    assert any("reference_n_samples" in text for text in said) == (case == "eb")
    np.testing.assert_allclose(model.inclusion_probabilities_, reference["pip"], atol=1e-7)
    np.testing.assert_allclose(model.prior_variances_, reference["V"], rtol=1e-5,
                               atol=1e-9)
    assert model.n_iter_ == reference["niter"]
    assert sorted(found["variables"] for found in model.credible_sets_) == sorted(
        sorted(np.atleast_1d(found).tolist()) for found in reference["cs"])
    if case == "finite":
        assert model.ld_mismatch_.mismatch_variance == 0.0
        return
    found = model.ld_mismatch_
    assert found.mismatch_variance == pytest.approx(reference["lambda_bias"], rel=1e-6)
    assert found.effective_reference_size == pytest.approx(reference["B_corrected"],
                                                           rel=1e-6)
    assert found.artifact_share == pytest.approx(reference["Q_art"], rel=1e-6)
    assert found.artifact_flag == reference["artifact_flag"]
    assert found.sensitivity_flag == reference["R_sensitivity_flag"]


def test_infinite_reference_without_mismatch_is_the_plain_fit():
    """``B`` at 1e15 and no ``lambda``: every inflation is 1 + 1e-15 s, the fit is
    ``fit_summary``'s without them (the probabilities within 1e-9)."""
    rng = np.random.default_rng(0)
    X = correlated(400, 60, rng)
    y = X[:, 20] + rng.standard_normal(400)
    z, R = z_scores(X, y), np.corrcoef(X, rowvar=False)
    plain = AlphaSuSiE(n_effects=5).fit_summary(z, R, 400)
    finite = AlphaSuSiE(n_effects=5).fit_summary(z, R, 400, reference_n_samples=1e15)
    np.testing.assert_allclose(finite.inclusion_probabilities_,
                               plain.inclusion_probabilities_, atol=1e-9)


def test_small_reference_widens_the_sets_and_an_empty_direction_is_flagged():
    """With an in-sample LD a small ``B`` only inflates (the PIP of the effect's neighbours
    can only rise); a reference of fewer rows than variables leaves directions of R empty
    where a z-score from another sample has weight: Q above 0.1, and a warning that names
    the diagnostic."""
    rng = np.random.default_rng(1)
    X = correlated(600, 80, rng)
    y = 0.6 * X[:, 30] + rng.standard_normal(600)
    z = z_scores(X, y)
    R = np.corrcoef(X, rowvar=False)
    plain = AlphaSuSiE(n_effects=3).fit_summary(z, R, 600)
    inflated = AlphaSuSiE(n_effects=3).fit_summary(z, R, 600, reference_n_samples=30)
    assert inflated.inclusion_probabilities_[30] <= plain.inclusion_probabilities_[30]
    assert len(inflated.credible_sets_[0]["variables"]) >= len(plain.credible_sets_[0][
        "variables"])
    panel = correlated(40, 80, np.random.default_rng(2))
    small = np.corrcoef(panel, rowvar=False)
    with pytest.warns(UserWarning, match="ld_mismatch_diagnostic"):
        model = AlphaSuSiE(n_effects=3).fit_summary(z, small, 600, ld_mismatch="eb",
                                                    reference_n_samples=40)
    with pytest.warns(UserWarning, match="without reference_n_samples"):
        AlphaSuSiE(n_effects=3).fit_summary(z, R, 600, ld_mismatch="eb")
    assert model.ld_mismatch_.artifact_flag and model.ld_mismatch_.artifact_share > 0.1


def test_a_panel_of_the_sample_is_not_called_a_mismatch():
    """The sample as its own panel (``reference_X=X``, so B = n): no mismatch variance and
    nothing where R is empty, but both sets lose more than log 20 of Bayes factor to the
    panel's 1 / B. The warning says that, not that the LD and the z-scores may not match
    (which it said, pointing at a mismatch there was none of)."""
    rng = np.random.default_rng(0)
    n, p = 200, 80
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):
        X[:, j] = 0.9 * X[:, j - 1] + np.sqrt(0.19) * rng.standard_normal(n)
    z = z_scores(X, X[:, [10, 40]] @ [0.6, 0.6] + rng.standard_normal(n))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = AlphaSuSiE(n_effects=5).fit_summary(z, reference_X=X, n_samples=n,
                                                    ld_mismatch="eb")
    found = model.ld_mismatch_
    assert found.mismatch_variance == 0.0 and not found.artifact_flag
    assert found.sensitivity_flag
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "sampling error alone" in messages[0]
    assert "may not match" not in messages[0]


def test_bad_input_is_refused_by_name():
    rng = np.random.default_rng(3)
    X = correlated(100, 20, rng)
    z, R = z_scores(X, X[:, 3] + rng.standard_normal(100)), np.corrcoef(X, rowvar=False)
    with pytest.raises(ValueError, match="ld_mismatch"):
        AlphaSuSiE().fit_summary(z, R, 100, ld_mismatch="EB")
    with pytest.raises(ValueError, match="reference_n_samples"):
        AlphaSuSiE().fit_summary(z, R, 100, reference_n_samples=-5)
    with pytest.raises(ValueError, match="n_samples"):
        AlphaSuSiE().fit_summary(z, R, ld_mismatch="eb")
    with pytest.raises(ValueError, match="estimate_residual_variance"):
        AlphaSuSiE(estimate_residual_variance=True).fit_summary(z, R, 100, ld_mismatch="eb")
    # the panel's size alone with a background named ld_mismatch ("Got None instead")
    # ... and with any estimate_residual_variance: each value named the next one
    for options in ({"unmappable_effects": "inf"}, {"residual_variance_method": "nig"},
                    {"unmappable_effects": "inf", "estimate_residual_variance": False},
                    {"residual_variance_method": "nig", "estimate_residual_variance": True}):
        with pytest.raises(ValueError, match=r"'reference_n_samples' parameter.*Got 50"):
            AlphaSuSiE(**options).fit_summary(z, R, 100, reference_n_samples=50)
        with pytest.raises(ValueError, match=r"'ld_mismatch' parameter.*Got 'eb'.*Drop "
                                             r"ld_mismatch and reference_n_samples"):
            AlphaSuSiE(**options).fit_summary(z, R, 100, ld_mismatch="eb",
                                              reference_n_samples=50)
    R0 = R.copy()
    AlphaSuSiE().fit_summary(z, R, 100, ld_mismatch="eb", reference_n_samples=50)
    assert np.array_equal(R, R0)


def test_a_reference_panel_of_one_row_is_refused():
    """A correlation needs two rows: reference_n_samples under 2 names itself."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4))
    z = rng.standard_normal(4)
    R = np.corrcoef(X, rowvar=False)
    for size in (1, 0.5, 0):
        with pytest.raises(ValueError, match=r"reference_n_samples.*at least 2"):
            AlphaSuSiE(n_effects=2).fit_summary(z, R, 100, ld_mismatch="eb",
                                                reference_n_samples=size)
