"""alpha-SuSiE with the normal-inverse-gamma residual prior (``residual_variance_method=
"nig"``): susieR 0.16.5's fits reproduced (tests/data/susier_nig.json, written by
benchmarks/susier_nig_reference.py), the one-effect evidence against a numerical integral
of its definition at alpha = 1 and 0.5, and the bad input refused by name."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from scipy.special import gammaln

from alphavb import AlphaSuSiE

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "susier_nig.json"


@pytest.mark.parametrize("case", ["y1_n574", "y1_n47", "y2_n574", "y2_n47"])
def test_equals_susier_0_16_5(n3, case):
    """PIPs, sigma2, V (susieR's ``V * rv``), sets and iterations of 0.16.5's NIG fit, on
    N3finemapping's responses in units of their sd, on all rows and on the first 47, at
    0.16.5's NIG tolerance 1e-6."""
    reference = json.loads(REFERENCE.read_text())["fits"][case]
    response, rows = int(case[1]) - 1, int(case.split("_n")[1])
    X = n3.data[:rows]
    X = X[:, X.std(axis=0, ddof=1) > 1e-12]  # the columns that vary (R's sd > 0)
    y = n3.target[:rows, response]
    y = y / y.std(ddof=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 100 sweeps do not reach 1e-6 on all rows
        model = AlphaSuSiE(residual_variance_method="nig", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(model.inclusion_probabilities_, reference["pip"], atol=1e-9)
    np.testing.assert_allclose(model.prior_variances_, reference["V"], rtol=1e-7, atol=1e-12)
    assert model.noise_variance_ == pytest.approx(reference["sigma2"], rel=1e-9)
    assert model.n_iter_ == reference["niter"]
    assert sorted(found["variables"] for found in model.credible_sets_) == sorted(
        sorted(np.atleast_1d(found).tolist()) for found in reference["cs"])


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_one_effect_evidence_is_the_marginal_likelihood(alpha):
    """With one effect and ``V`` fixed, the objective (``objective="fractional"``) is ``log
    sum_j pi_j int int N(y | x_j b, sigma2)^alpha N(b | 0, sigma2 s) IG(sigma2 | a0 / 2,
    b0 / 2) db dsigma2``, integrated here numerically."""
    rng = np.random.default_rng(0)
    n, p = 8, 2
    X = rng.standard_normal((n, p))
    y = 0.9 * X[:, 0] + rng.standard_normal(n)
    s = 0.3
    model = AlphaSuSiE(n_effects=1, alpha=alpha, residual_variance_method="nig",
                       scaled_prior_variance=s, estimate_prior_variance=False,
                       fit_intercept=False, standardize=False, objective="fractional",
                       tol=1e-10).fit(X, y)
    variance_y = np.var(y, ddof=1)
    shape, rate = 1 / np.sqrt(n), variance_y / np.sqrt(n)

    yy, xy, xx = y @ y, X.T @ y, np.sum(X * X, axis=0)
    prior_constant = shape / 2 * np.log(rate / 2) - gammaln(shape / 2)

    def log_integrand(b, sigma2, j):  # the three densities, written out
        squares = yy - 2 * b * xy[j] + b * b * xx[j]
        return (alpha * (-0.5 * n * np.log(2 * np.pi * sigma2) - 0.5 * squares / sigma2)
                - 0.5 * np.log(2 * np.pi * sigma2 * s) - 0.5 * b * b / (sigma2 * s)
                + prior_constant - (shape / 2 + 1) * np.log(sigma2) - rate / 2 / sigma2)

    evidences = []
    for j in range(p):
        offset = max(log_integrand(b, v, j) for b in np.linspace(-2, 2, 81)
                     for v in np.geomspace(0.05, 20, 81))
        value, _ = integrate.dblquad(
            lambda b, v, j=j, offset=offset: np.exp(log_integrand(b, v, j) - offset),
            0.0, np.inf, -np.inf, np.inf, epsabs=0, epsrel=1e-8)
        evidences.append(np.log(value) + offset)
    expected = np.log(np.mean(np.exp(evidences)))  # pi_j = 1/2 (sqrt(eps) is negligible)
    assert model.elbo_ == pytest.approx(expected, abs=1e-6)


def test_small_sample_tempering_widens_and_bad_input_is_refused():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 40))
    X[:, 1:] += 0.6 * X[:, :-1]
    y = 1.2 * X[:, 7] + rng.standard_normal(30)
    full = AlphaSuSiE(n_effects=3, residual_variance_method="nig").fit(X, y)
    tempered = AlphaSuSiE(n_effects=3, alpha=0.5, residual_variance_method="nig").fit(X, y)
    assert full.inclusion_probabilities_[7] > 0.5
    assert tempered.inclusion_probabilities_[7] <= full.inclusion_probabilities_[7] + 1e-12
    with pytest.raises(ValueError, match="estimate_residual_variance"):
        AlphaSuSiE(residual_variance_method="nig", estimate_residual_variance=False).fit(X, y)
    with pytest.raises(ValueError, match="residual_variance_method"):
        AlphaSuSiE(residual_variance_method="nig", unmappable_effects="inf").fit(X, y)
    with pytest.raises(ValueError, match="must exceed 2"):
        AlphaSuSiE(residual_variance_method="nig", alpha=0.05).fit(X[:20], y[:20])
    with pytest.raises(ValueError, match="residual_variance_method"):
        AlphaSuSiE(residual_variance_method="NIG").fit(X, y)


def test_summary_data_without_n_is_refused_by_name():
    # the NIG posterior of sigma2 counts the rows: z-scores without n_samples cannot give
    # it (it ended in a NaN objective before)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((150, 12))
    y = X[:, 4] + rng.standard_normal(150)
    z = X.T @ (y - y.mean()) / np.sqrt(150 * np.var(y))
    with pytest.raises(ValueError, match=r"n_samples.*residual_variance_method='nig'"):
        AlphaSuSiE(n_effects=3, residual_variance_method="nig").fit_summary(
            z, np.corrcoef(X, rowvar=False))


def test_refinement_with_the_nig_prior_and_several_effects():
    # the NIG fit with L > 1 stops on its probabilities; the refinement compares its
    # candidates by F, as susieR's run_refine (it compared the stopping values and crashed)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((120, 30))
    X[:, 1] = X[:, 0] + 0.1 * rng.standard_normal(120)
    y = X[:, 0] - X[:, 10] + rng.standard_normal(120)
    plain = AlphaSuSiE(n_effects=4, residual_variance_method="nig").fit(X, y)
    refined = AlphaSuSiE(n_effects=4, residual_variance_method="nig", refine=True).fit(X, y)
    assert refined.elbo_ >= plain.elbo_ - 1e-9
