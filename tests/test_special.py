"""Each closed form of alphavb._special against direct numerical integration."""

import numpy as np
import pytest
from scipy import integrate, stats

from alphavb._special import (
    beta_expectations,
    dirichlet_expected_log,
    inv_gamma_expectations,
    inv_gamma_mean,
    kl_beta,
    kl_dirichlet,
    kl_gamma,
    kl_gaussian_diag_prior,
    kl_inv_gamma,
    kl_wishart,
    log_multigamma,
    wishart_expected_log_det,
)


def kl_by_quadrature(q, p, low, high):
    def integrand(x):
        log_q = q.logpdf(x)
        return np.exp(log_q) * (log_q - p.logpdf(x))
    return integrate.quad(integrand, low, high, limit=200, epsabs=1e-12, epsrel=1e-10)[0]


@pytest.mark.parametrize("a, b, a0, b0", [(3.0, 2.0, 1.0, 1.0), (50.5, 60.0, 0.01, 0.01),
                                         (1.5, 0.3, 2.0, 5.0)])
def test_kl_inv_gamma_matches_quadrature(a, b, a0, b0):
    q, p = stats.invgamma(a, scale=b), stats.invgamma(a0, scale=b0)

    def integrand(u):  # in u = log(x): the KL is invariant under the change of variable
        x = np.exp(u)
        log_q = q.logpdf(x)
        return np.exp(log_q + u) * (log_q - p.logpdf(x))

    low, high = np.log(q.ppf(1e-15)), np.log(q.isf(1e-15))
    expected = integrate.quad(integrand, low, high, limit=200, epsabs=1e-12, epsrel=1e-10)[0]
    assert kl_inv_gamma(a, b, a0, b0) == pytest.approx(expected, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("a, b, a0, b0", [(2.0, 5.0, 1.0, 1.0), (10.0, 490.0, 1.0, 3.0),
                                         (0.7, 0.9, 2.0, 2.0)])
def test_kl_beta_matches_quadrature(a, b, a0, b0):
    q, p = stats.beta(a, b), stats.beta(a0, b0)
    assert kl_beta(a, b, a0, b0) == pytest.approx(kl_by_quadrature(q, p, 0, 1), rel=1e-6)


def test_inv_gamma_expectations_match_quadrature():
    a, b = 4.5, 3.2
    q = stats.invgamma(a, scale=b)
    tau, elt = inv_gamma_expectations(a, b)
    assert tau == pytest.approx(q.expect(lambda x: 1.0 / x), rel=1e-9)
    assert elt == pytest.approx(q.expect(lambda x: -np.log(x)), rel=1e-9)
    assert inv_gamma_mean(a, b) == pytest.approx(q.mean(), rel=1e-12)
    assert inv_gamma_mean(0.9, b) == np.inf


def test_beta_expectations_match_quadrature():
    a, b = 2.5, 7.0
    q = stats.beta(a, b)
    elog, elog1m = beta_expectations(a, b)
    assert elog == pytest.approx(q.expect(np.log), rel=1e-9)
    assert elog1m == pytest.approx(q.expect(lambda x: np.log1p(-x)), rel=1e-9)


def test_kl_gaussian_matches_full_matrix_formula():
    rng = np.random.default_rng(0)
    d = 4
    A = rng.normal(size=(d, d))
    cov = A @ A.T + d * np.eye(d)
    mean = rng.normal(size=d)
    precision = rng.uniform(0.5, 3.0, size=d)
    prior_cov = np.diag(1 / precision)
    expected = 0.5 * (np.trace(np.linalg.solve(prior_cov, cov))
                      + mean @ np.linalg.solve(prior_cov, mean) - d
                      + np.linalg.slogdet(prior_cov)[1] - np.linalg.slogdet(cov)[1])
    got = kl_gaussian_diag_prior(mean, np.diag(cov), np.linalg.slogdet(cov)[1], precision)
    assert got == pytest.approx(expected, rel=1e-12)


def test_kl_gamma_matches_quadrature():
    a, b, a0, b0 = 2.5, 0.7, 1.2, 3.0
    q, p = stats.gamma(a, scale=1 / b), stats.gamma(a0, scale=1 / b0)
    expected, _ = integrate.quad(lambda x: q.pdf(x) * (q.logpdf(x) - p.logpdf(x)), 0, np.inf,
                                 epsabs=1e-13)
    assert kl_gamma(a, b, a0, b0) == pytest.approx(expected, rel=1e-9)


def test_kl_dirichlet_and_expected_log_match_monte_carlo():
    a, a0 = np.array([1.5, 2.0, 0.7]), np.full(3, 0.4)
    draws = stats.dirichlet(a).rvs(400000, random_state=0)
    log_ratio = (stats.dirichlet(a).logpdf(draws.T) - stats.dirichlet(a0).logpdf(draws.T))
    standard_error = log_ratio.std() / np.sqrt(len(log_ratio))
    assert abs(kl_dirichlet(a, a0) - log_ratio.mean()) < 4 * standard_error
    np.testing.assert_allclose(dirichlet_expected_log(a), np.log(draws).mean(axis=0), atol=5e-3)
    # a two-component Dirichlet is a Beta
    assert kl_dirichlet(a[:2], a0[:2]) == pytest.approx(kl_beta(*a[:2], *a0[:2]), rel=1e-12)


def test_kl_wishart_matches_monte_carlo_and_reduces_to_gamma(rng):
    p = 3
    A, B = rng.normal(size=(p, p)), rng.normal(size=(p, p))
    psi, psi0 = A @ A.T + p * np.eye(p), B @ B.T + np.eye(p)
    nu, nu0 = 6.5, 3.2
    q = stats.wishart(df=nu, scale=np.linalg.inv(psi))
    prior = stats.wishart(df=nu0, scale=np.linalg.inv(psi0))
    draws = q.rvs(30000, random_state=1).transpose(1, 2, 0)
    log_ratio = q.logpdf(draws) - prior.logpdf(draws)
    standard_error = log_ratio.std() / np.sqrt(log_ratio.size)
    assert abs(kl_wishart(psi, nu, psi0, nu0) - log_ratio.mean()) < 4 * standard_error
    log_dets = np.linalg.slogdet(draws.transpose(2, 0, 1))[1]
    expected = wishart_expected_log_det(nu, np.linalg.slogdet(psi)[1], p)
    assert abs(expected - log_dets.mean()) < 4 * log_dets.std() / np.sqrt(log_dets.size)
    # p = 1: Wishart(1/psi, nu) = Gamma(nu/2, rate=psi/2)
    assert kl_wishart(np.array([[2.0]]), 5.0, np.array([[0.7]]), 2.0) == pytest.approx(
        kl_gamma(2.5, 1.0, 1.0, 0.35), rel=1e-12)
    # a stack of matrices gives one KL per matrix
    stacked = kl_wishart(np.stack([psi, 2 * psi]), np.array([nu, nu + 1]), psi0, nu0)
    assert stacked[1] == pytest.approx(kl_wishart(2 * psi, nu + 1, psi0, nu0), rel=1e-12)


def test_log_multigamma_matches_scipy():
    from scipy.special import multigammaln

    for p in (1, 2, 5):
        assert log_multigamma(3.7, p) == pytest.approx(multigammaln(3.7, p), rel=1e-13)


def test_log_gamma_ratio_keeps_its_digits_for_huge_arguments():
    from alphavb._special import log_gamma_ratio

    # integer a: log Gamma(x + a) - log Gamma(x) = sum_k log(x + k), with no cancellation
    for x in [0.3, 2.0, 999.0, 1001.0, 1e5, 1e8, 3e16, 1e200]:
        for a in [1, 2, 5]:
            exact = sum(np.log(x + k) for k in range(a))
            assert log_gamma_ratio(x, a) == pytest.approx(exact, rel=1e-12)
    # the series and the direct difference meet at the switch
    for a in [0.5, 1.5, 4.5]:
        assert log_gamma_ratio(1e3 * (1 + 1e-12), a) == pytest.approx(
            log_gamma_ratio(1e3 * (1 - 1e-12), a), rel=1e-12)
    np.testing.assert_allclose(log_gamma_ratio(np.array([3.0, 3e16]), 0.5),
                               [log_gamma_ratio(3.0, 0.5), log_gamma_ratio(3e16, 0.5)])


def test_student_t_log_pdf_matches_scipy(rng):
    """The multivariate t of the mixture's predictive against scipy's, in 1 and 3 dims."""
    from alphavb._special import student_t_log_pdf

    for dim, dof in [(1, 2.5), (3, 7.0), (3, 1e6)]:
        root = rng.normal(size=(dim, dim)) + 2.0 * np.eye(dim)
        shape = root @ root.T
        x = rng.normal(size=(20, dim)) * 3.0
        maha = np.einsum("ni,ij,nj->n", x, np.linalg.inv(shape), x)
        ours = student_t_log_pdf(maha, dof, dim, np.linalg.slogdet(shape)[1])
        reference = stats.multivariate_t(loc=np.zeros(dim), shape=shape, df=dof).logpdf(x)
        np.testing.assert_allclose(ours, reference, rtol=1e-10)


def test_upper_cholesky_of_inverse_factors_the_inverse(rng):
    from alphavb._special import upper_cholesky_of_inverse

    roots = rng.normal(size=(4, 3, 3)) + 2.0 * np.eye(3)
    matrices = roots @ np.swapaxes(roots, 1, 2)
    upper, log_det = upper_cholesky_of_inverse(matrices)
    np.testing.assert_allclose(upper @ np.swapaxes(upper, 1, 2), np.linalg.inv(matrices),
                               rtol=1e-10, atol=1e-12)
    assert np.all(np.tril(upper, -1) == 0.0)
    np.testing.assert_allclose(log_det, np.linalg.slogdet(matrices)[1], rtol=1e-12)


def test_dirichlet_density_and_draws_take_one_dirichlet_per_row():
    """A stack of Dirichlets (LDA's topics): each row's density is scipy's, and the draws of
    each row have that row's means."""
    from alphavb._special import log_dirichlet_density, log_dirichlet_draws

    concentration = np.array([[0.5, 1.0, 3.0], [4.0, 0.2, 0.9]])
    logs = log_dirichlet_draws(concentration, 40_000, np.random.RandomState(0))
    assert logs.shape == (40_000, 2, 3)
    np.testing.assert_allclose(np.exp(logs).mean(axis=0),
                               concentration / concentration.sum(axis=1, keepdims=True),
                               atol=3e-3)
    density = log_dirichlet_density(logs[:3], concentration)
    expected = [[stats.dirichlet.logpdf(np.exp(logs[s, k]), concentration[k]) for k in range(2)]
                for s in range(3)]
    np.testing.assert_allclose(density, expected, rtol=1e-10)
