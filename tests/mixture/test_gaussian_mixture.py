"""AlphaGaussianMixture: exact answers, agreement with scikit-learn, weights and streaming."""

import pickle
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture

from alphavb import AlphaGaussianMixture
from alphavb.datasets import make_gmm
from alphavb.mixture._estep import DiagonalStatistics, MemoryRows, Statistics
from alphavb.mixture._estep import local_step as _local_step
from tests.conftest import assert_monotone, run_with_two_numba_threads
from tests.naive import (
    fixed_covariance_log_evidence,
    mixture_local_step,
    normal_gamma_log_evidence_1d,
    normal_wishart_log_evidence,
    spherical_log_evidence,
)

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical", "fixed"]
WEIGHT_PRIOR_TYPES = ["dirichlet_process", "dirichlet_distribution"]
DIRICHLET = {"weight_concentration_prior_type": "dirichlet_distribution"}


def stick_log_evidence(total_weight, alpha, w0):
    """K = 1 under the stick-breaking prior: v ~ Beta(1, w0) and p(S_i = 1 | v) = v, so the
    labels add log int Beta(v; 1, w0) v^(alpha N) dv = log B(1 + alpha N, w0) - log B(1, w0)
    to alpha times the evidence (the Dirichlet prior adds 0: pi_1 = 1)."""
    from scipy.special import betaln

    return betaln(1.0 + alpha * total_weight, w0) - betaln(1.0, w0)


def overlapping_blobs(n=300, p=3, random_state=1):
    X, _ = make_blobs(n, n_features=p, centers=4, cluster_std=[1.0, 2.0, 1.5, 0.7],
                      random_state=random_state)
    return X


def iterate_map(model, X, weight, n_sweeps):
    """Apply the CAVI map (local step, then global step) ``n_sweeps`` more times."""
    post = model._get_parameters().posterior
    for _ in range(n_sweeps):
        post = model._global_step(model._local_step(MemoryRows(X, weight, None), post)[1])
    model._store(replace(model._get_parameters(), posterior=post))
    return model


# ---------------------------------------------------------------- the kernel


@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_kernel_matches_the_numpy_reference(rng, diagonal, scale):
    n, p, K = 500, 4, 3
    X = rng.normal(size=(n, p)) * 3
    weight = rng.uniform(0, 2, size=n)
    means = rng.normal(size=(K, p)) * 3
    prec_chol = np.triu(rng.normal(size=(K, p, p))) + 2 * np.eye(p)
    if diagonal:
        prec_chol = prec_chol * np.eye(p)
    precisions = prec_chol @ np.swapaxes(prec_chol, 1, 2)
    log_const = rng.normal(size=K)
    resp, stats, neg_entropy = _local_step(X, weight, means, prec_chol, log_const, scale,
                                           DiagonalStatistics if diagonal else Statistics)
    ref_resp, nk, ybar, scatter, ref_neg_entropy = mixture_local_step(
        X, weight, means, precisions, log_const, scale)
    np.testing.assert_allclose(resp, ref_resp, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(stats.nk, nk, rtol=1e-12)
    np.testing.assert_allclose(stats.means, ybar, rtol=1e-11, atol=1e-12)
    expected = np.diagonal(scatter, axis1=1, axis2=2) if diagonal else scatter
    np.testing.assert_allclose(stats.scatter, expected, rtol=1e-10, atol=1e-9)
    assert neg_entropy == pytest.approx(ref_neg_entropy, rel=1e-12)


def test_results_do_not_depend_on_the_thread_count():
    # in a process whose numba pool has 2 threads, so 1 and 2 threads are both run
    run_with_two_numba_threads("""
        import warnings
        import numpy as np
        from sklearn.exceptions import ConvergenceWarning
        from alphavb import AlphaGaussianMixture
        from alphavb.mixture import _estep

        _estep.CHUNK_ROWS = 256
        X = np.random.default_rng(12345).normal(size=(5000, 3))
        model = AlphaGaussianMixture(4, random_state=0, max_iter=5, tol=0.0)
        fits = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fits.append(model.fit(X).elbo_history_.copy())
        np.testing.assert_array_equal(fits[0], fits[1])
        print("ok")
    """)


def test_n_jobs_sets_the_thread_count_and_not_the_results():
    """n_jobs = 1 runs the local step in this thread; 2, -1 and None (numba's 2 threads) on
    the shared pool of 2; every fit equal bitwise, in memory and for predictions."""
    run_with_two_numba_threads("""
        import numpy as np
        from alphavb import AlphaGaussianMixture
        from alphavb.mixture import _estep
        from tests.conftest import recording_pools

        _estep.CHUNK_ROWS = 256
        X = np.random.default_rng(7).normal(size=(3000, 2))
        fits = []
        with recording_pools() as pools:
            for n_jobs in (1, 2, -1, None):
                pools.clear()
                model = AlphaGaussianMixture(3, n_jobs=n_jobs, max_iter=4, tol=0.0,
                                             random_state=0)
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fits.append(model.fit(X))
                assert pools == [] if n_jobs == 1 else (pools and set(pools) == {2}), pools
        for fit in fits[1:]:
            np.testing.assert_array_equal(fit.elbo_history_, fits[0].elbo_history_)
            np.testing.assert_array_equal(fit.means_, fits[0].means_)
            np.testing.assert_array_equal(fit.predict_proba(X), fits[0].predict_proba(X))
        print("ok")
    """)
    with pytest.raises(ValueError, match="n_jobs"):
        AlphaGaussianMixture(2, n_jobs=0).fit(np.zeros((5, 1)) + np.arange(5)[:, None])


def test_components_far_from_the_origin_keep_their_scatter(rng):
    """The kernel's shift by the current means avoids cancellation (raw moments would lose
    about 16 of 16 digits here)."""
    X = 1e8 + rng.normal(size=(2000, 2))
    model = AlphaGaussianMixture(1, random_state=0, mean_precision_prior=1e-6).fit(X)
    # Psi = Psi0 + (n - 1) cov with the default Psi0 = cov, and nu = 2 + n
    expected = np.cov(X.T) * len(X) / (len(X) + 2)
    np.testing.assert_allclose(model.covariances_[0], expected, rtol=1e-7, atol=1e-9)


# ---------------------------------------------------------------- exact answers


@pytest.mark.parametrize("alpha", [0.3, 1.0])
@pytest.mark.parametrize("weight_prior", WEIGHT_PRIOR_TYPES)
def test_one_component_one_feature_objective_is_the_evidence(rng, alpha, weight_prior):
    """K = 1 has no latent choice, q is the exact fractional posterior, so
    alpha * ELBO = log Z_alpha (spec §1); checked against 2-D quadrature. With one feature
    the full, diag and spherical priors are the same Normal-Gamma."""
    x = rng.normal(1.0, 2.0, size=25)
    weight = rng.uniform(0.5, 1.5, size=25)
    prior = {"mean_prior": [0.3], "mean_precision_prior": 0.7, "degrees_of_freedom_prior": 2.5}
    psi0 = 1.7
    expected = normal_gamma_log_evidence_1d(x, weight, alpha, 0.3, 0.7, psi0, 2.5)
    if weight_prior == "dirichlet_process":
        expected += stick_log_evidence(weight.sum(), alpha, 1.0)
    for covariance_type, covariance_prior in [("full", [[psi0]]), ("tied", [[psi0]]),
                                              ("diag", [psi0]), ("spherical", psi0)]:
        model = AlphaGaussianMixture(1, alpha=alpha, covariance_type=covariance_type,
                                     covariance_prior=covariance_prior,
                                     weight_concentration_prior_type=weight_prior, **prior)
        model.fit(x[:, None], sample_weight=weight)
        assert alpha * model.elbo_ == pytest.approx(expected, abs=1e-8), covariance_type


@pytest.mark.parametrize("alpha", [0.5, 1.0])
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
@pytest.mark.parametrize("weight_prior", WEIGHT_PRIOR_TYPES)
def test_one_component_objective_is_the_evidence(rng, alpha, covariance_type, objective,
                                                 weight_prior):
    p = 3
    X = rng.normal(size=(40, p)) @ np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.5], [0, 0, 2.0]])
    weight = rng.uniform(0.5, 1.5, size=40)
    m0, b0, nu0 = np.array([0.1, -0.2, 0.3]), 0.5, 4.5
    A = rng.normal(size=(p, p))
    psi0 = {"full": A @ A.T + np.eye(p), "tied": A @ A.T + np.eye(p),
            "diag": np.array([0.5, 1.0, 2.0]), "spherical": 1.3, "fixed": None}[covariance_type]
    sigma = A @ A.T / p + np.eye(p)
    model = AlphaGaussianMixture(
        1, alpha=alpha, objective=objective, covariance_type=covariance_type,
        mean_prior=m0, mean_precision_prior=b0,
        degrees_of_freedom_prior=None if covariance_type == "fixed" else nu0,
        covariance_prior=psi0, fixed_covariance=sigma if covariance_type == "fixed" else None,
        weight_concentration_prior_type=weight_prior, weight_concentration_prior=0.4,
    ).fit(X, sample_weight=weight)
    if covariance_type in ("full", "tied"):  # with one component, tied is full
        expected = normal_wishart_log_evidence(X, weight, alpha, m0, b0, psi0, nu0)
    elif covariance_type == "diag":
        expected = sum(normal_wishart_log_evidence(X[:, [j]], weight, alpha, m0[[j]], b0,
                                                   np.array([[psi0[j]]]), nu0)
                       for j in range(p))
    elif covariance_type == "spherical":
        expected = spherical_log_evidence(X, weight, alpha, m0, b0, psi0, nu0)
    else:
        expected = fixed_covariance_log_evidence(X, weight, alpha, m0, b0, sigma)
    if weight_prior == "dirichlet_process":
        expected += stick_log_evidence(weight.sum(), alpha, 0.4)
    value = model.elbo_ if objective == "fractional" else alpha * model.elbo_
    assert value == pytest.approx(expected, abs=1e-8)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("weight_prior", WEIGHT_PRIOR_TYPES)
@pytest.mark.parametrize("reg_covar", [0.0, 0.3])
def test_objective_equals_a_pointwise_evaluation(rng, covariance_type, weight_prior, reg_covar):
    """The statistics-based objective equals the objective summed row by row from the
    fitted attributes (independent of the shifted-statistics algebra)."""
    from scipy.special import digamma

    X = overlapping_blobs(200, 2)
    weight = rng.uniform(0.2, 2.0, size=len(X))
    alpha = 0.6
    model = AlphaGaussianMixture(3, alpha=alpha, covariance_type=covariance_type,
                                 weight_concentration_prior_type=weight_prior,
                                 reg_covar=reg_covar, random_state=0, max_iter=3, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, sample_weight=weight)
    # one more sweep by hand: responsibilities at the current q(theta), then the update
    post = model._get_parameters().posterior
    resp = model._local_step(MemoryRows(X, np.ones(len(X)), None), post)[0]
    stats = model._local_step(MemoryRows(X, weight, None), post)[1]
    new = model._global_step(stats)
    p = X.shape[1]
    if weight_prior == "dirichlet_process":
        # E[log pi_k] = E[log v_k] + sum_{j<k} E[log(1 - v_j)], written out
        a, b = new.weight_concentration
        log_pi = np.array([digamma(a[k]) - digamma(a[k] + b[k])
                           + sum(digamma(b[j]) - digamma(a[j] + b[j]) for j in range(k))
                           for k in range(3)])
    else:
        log_pi = digamma(new.weight_concentration) - digamma(new.weight_concentration.sum())
    expected_loglik = np.zeros(len(X))
    for k in range(3):
        diff = X - new.means[k]
        if covariance_type == "fixed":
            precision = np.linalg.inv(model.fixed_covariance_)
            term = (-0.5 * np.linalg.slogdet(model.fixed_covariance_)[1]
                    - 0.5 * np.einsum("ij,jl,il->i", diff, precision, diff)
                    - 0.5 * np.trace(precision @ new.mean_covariances[k]))
        else:
            nu, beta = new.degrees_of_freedom[k], new.mean_precision[k]
            if covariance_type in ("full", "tied"):
                W = np.linalg.inv(new.psi[k])
                log_det = (digamma(0.5 * (nu - np.arange(p))).sum() + p * np.log(2)
                           + np.linalg.slogdet(W)[1])
                quad = nu * np.einsum("ij,jl,il->i", diff, W, diff)
                trace = nu * np.trace(W)
            elif covariance_type == "diag":
                log_det = np.sum(digamma(0.5 * nu) - np.log(0.5 * new.psi[k]))
                quad = np.sum(nu / new.psi[k] * diff**2, axis=1)
                trace = np.sum(nu / new.psi[k])
            else:
                log_det = p * (digamma(0.5 * p * nu) - np.log(0.5 * p * new.psi[k]))
                quad = nu / new.psi[k] * np.sum(diff**2, axis=1)
                trace = p * nu / new.psi[k]
            # reg_covar: the penalty -reg tr(Lambda_k) / 2 of every row's likelihood
            term = 0.5 * log_det - 0.5 * (p / beta + quad) - 0.5 * reg_covar * trace
        expected_loglik += resp[:, k] * (log_pi[k] - 0.5 * p * np.log(2 * np.pi) + term)
    entropy = -np.sum(weight[:, None] * resp * np.log(resp, where=resp > 0,
                                                       out=np.zeros_like(resp)))
    expected = weight @ expected_loglik + entropy - model._kl_global(new) / alpha
    neg_entropy = model._local_step(MemoryRows(X, weight, None), post)[2]
    assert model._objective(new, stats, neg_entropy) == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
@pytest.mark.parametrize("weights", [{"weight_concentration_prior_type": "dirichlet_process"},
                                     DIRICHLET, {"fixed_weights": [0.2, 0.3, 0.5]}],
                         ids=["process", "distribution", "known"])
@pytest.mark.parametrize("alpha", [0.4, 1.0])
@pytest.mark.parametrize("reg_covar", [0.0, 0.01])
def test_objective_never_decreases(covariance_type, objective, weights, alpha, reg_covar):
    X = overlapping_blobs()
    model = AlphaGaussianMixture(3, alpha=alpha, objective=objective,
                                 covariance_type=covariance_type, reg_covar=reg_covar, **weights,
                                 init_params="random", random_state=2, max_iter=60, tol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X)
    assert model.n_iter_ > 5
    assert_monotone(model.elbo_history_)


# ---------------------------------------------------------------- scikit-learn


@pytest.mark.parametrize("init_params", ["kmeans", "random"])
@pytest.mark.parametrize("covariance_type", ["full", "tied"])
@pytest.mark.parametrize("weight_prior", WEIGHT_PRIOR_TYPES)
def test_alpha_one_reaches_scikit_learns_fixed_point(init_params, covariance_type,
                                                     weight_prior):
    """Full and tied Wisharts, Dirichlet or stick-breaking weights. (For "diag" and
    "spherical" scikit-learn's E-step uses the Wishart's E[log|Lambda|] = sum_j psi((nu - j)/2)
    + ..., not the independent Gammas' p psi(nu/2) + ... of its own M-step, so its fixed point
    differs from exact VB by ~1e-5 here; the one-component evidence tests show ours is exact.)"""
    X = overlapping_blobs()
    covariance = np.cov(X.T) * 0.5
    priors = {"weight_concentration_prior": 0.3, "mean_precision_prior": 0.8,
              "mean_prior": X.mean(axis=0) + 0.2, "degrees_of_freedom_prior": 4.0,
              "covariance_prior": {"full": covariance, "tied": covariance,
                                   "diag": np.diag(covariance),
                                   "spherical": np.diag(covariance).mean()}[covariance_type],
              "covariance_type": covariance_type,
              "weight_concentration_prior_type": weight_prior}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference = BayesianGaussianMixture(
            n_components=4, init_params=init_params, reg_covar=0.0, tol=0.0, max_iter=400,
            random_state=3, **priors).fit(X)
    model = AlphaGaussianMixture(4, init_params=init_params, random_state=3, tol=1e-12,
                                 **priors).fit(X)
    iterate_map(model, X, np.ones(len(X)), 400)
    np.testing.assert_allclose(model.means_, reference.means_, atol=1e-6)
    np.testing.assert_allclose(model.weight_concentration_, reference.weight_concentration_,
                               atol=1e-6)
    np.testing.assert_allclose(model.degrees_of_freedom_, reference.degrees_of_freedom_,
                               atol=1e-6)
    np.testing.assert_allclose(model.mean_precision_, reference.mean_precision_, atol=1e-6)
    np.testing.assert_allclose(model.covariances_, reference.covariances_, atol=1e-6)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-6)


def test_tied_diag_and_spherical_updates_are_averages_of_the_full_update():
    """scikit-learn's test_compare_covar_type through alphavb's own hooks: from the same
    responsibilities, tied Psi = mean_k of the full Psi_k (and nu the mean nu_k), diag Psi_k
    = the diagonal of full Psi_k, spherical = the mean of the diagonal."""
    X = overlapping_blobs(200, 3)
    resp = np.random.default_rng(0).dirichlet(np.ones(4), size=len(X))
    psi0 = np.cov(X.T)
    posts = {}
    for kind, prior in [("full", psi0), ("tied", psi0), ("diag", np.diag(psi0)),
                        ("spherical", np.diag(psi0).mean())]:
        model = AlphaGaussianMixture(4, alpha=0.7, covariance_type=kind, covariance_prior=prior)
        model._resolve_parameters(3)
        model._resolve_data_priors(X, np.ones(len(X)))
        layout = model._covariance_family.statistics
        stats = layout.from_responsibilities(X, np.ones(len(X)), resp)
        posts[kind] = model._global_step(stats)
    full = posts["full"]
    np.testing.assert_allclose(posts["tied"].psi[0], full.psi.mean(axis=0), rtol=1e-12)
    assert posts["tied"].degrees_of_freedom[0] == pytest.approx(full.degrees_of_freedom.mean())
    np.testing.assert_allclose(posts["diag"].psi, np.diagonal(full.psi, axis1=1, axis2=2),
                               rtol=1e-12)
    np.testing.assert_allclose(posts["spherical"].psi, posts["diag"].psi.mean(axis=1),
                               rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_dirichlet_process_prunes_the_unneeded_components(alpha):
    """Ten components on the paper's three-component data: the stick-breaking prior leaves
    three with the mass of their clusters and the other seven near 0. (One start ends in a
    local optimum whose spare mass is 0.002-0.012 over seeds 0-3, whether k-means starts on
    the raw or the unit-variance columns; the best of three starts has 1e-4 to 2e-4.)"""
    X, _, true_means = make_gmm(random_state=0)
    model = AlphaGaussianMixture(10, alpha=alpha, random_state=0, max_iter=500,
                                 n_init=3).fit(X)
    heavy = np.sort(model.weights_)[::-1]
    assert np.all(heavy[:3] > 0.25) and heavy[3:].sum() < 0.01
    found = model.means_[np.argsort(model.weights_)[-3:]]
    gaps = np.linalg.norm(found[:, None] - true_means[None], axis=-1)
    assert np.all(gaps.min(axis=0) < 0.2)
    a, b = model.weight_concentration_
    np.testing.assert_allclose(a - 1.0, alpha * model.predict_proba(X).sum(axis=0), atol=1e-3)
    np.testing.assert_allclose(b[:-1] - b[-1], np.cumsum((a - 1.0)[::-1])[-2::-1], atol=1e-9)


def test_verbose_prints_scikit_learns_lines(capsys):
    X = overlapping_blobs(100, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        AlphaGaussianMixture(2, verbose=2, verbose_interval=2, max_iter=4, tol=0.0,
                             random_state=0).fit(X)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Initialization 0"
    assert [line.split("\t")[0] for line in lines[1:3]] == ["  Iteration 2", "  Iteration 4"]
    assert lines[3].startswith("Initialization did not converge. time lapse")
    assert len(lines) == 4


def test_default_priors_are_scikit_learns():
    X = overlapping_blobs()
    model = AlphaGaussianMixture(2, max_iter=1, tol=0.0)
    reference = BayesianGaussianMixture(n_components=2, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X)
        reference.fit(X)
    for name in ["weight_concentration_prior_", "mean_precision_prior_", "mean_prior_",
                 "degrees_of_freedom_prior_", "covariance_prior_"]:
        np.testing.assert_allclose(getattr(model, name), getattr(reference, name), rtol=1e-12)


# ---------------------------------------------------------------- alpha, weights, streaming


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_alpha_scales_the_data_exactly_like_sample_weights(covariance_type):
    """Spec §4: every data statistic enters the global blocks times alpha, and the local
    step of "alpha-vb" has no alpha, so alpha = 0.5 is alpha = 1 with halved weights, and
    its alpha-ELBO is twice the other's (the KL carries 1/alpha)."""
    X = overlapping_blobs()
    common = {"n_components": 3, "covariance_type": covariance_type, "init_params": "random",
                  "random_state": 5, "tol": 1e-12, "mean_prior": X.mean(axis=0)}
    if covariance_type != "fixed":
        common["covariance_prior"] = {"full": np.cov(X.T), "tied": np.cov(X.T),
                                      "diag": X.var(axis=0),
                                      "spherical": X.var()}[covariance_type]
    half = AlphaGaussianMixture(alpha=0.5, **common).fit(X)
    halved = AlphaGaussianMixture(alpha=1.0, **common).fit(X, sample_weight=np.full(len(X), 0.5))
    assert half.n_iter_ == halved.n_iter_
    np.testing.assert_allclose(half.means_, halved.means_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(half.weights_, halved.weights_, rtol=1e-10)
    np.testing.assert_allclose(half.covariances_, halved.covariances_, rtol=1e-10)
    assert half.elbo_ == pytest.approx(2 * halved.elbo_, rel=1e-10)


def test_integer_weights_equal_repeated_rows(rng):
    X, _, _ = make_gmm(n_samples=300, random_state=1)
    counts = rng.integers(0, 4, size=len(X))
    settings = {"n_components": 3, "alpha": 0.7, "random_state": 0, "tol": 1e-13}
    weighted = AlphaGaussianMixture(**settings).fit(X, sample_weight=counts)
    repeated = AlphaGaussianMixture(**settings).fit(np.repeat(X, counts, axis=0))
    iterate_map(weighted, X, counts.astype(float), 50)
    iterate_map(repeated, np.repeat(X, counts, axis=0), np.ones(counts.sum()), 50)
    order = np.argsort(weighted.means_[:, 0])
    assert np.array_equal(order, np.argsort(repeated.means_[:, 0]))
    np.testing.assert_allclose(weighted.means_, repeated.means_, rtol=1e-9)
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-9)
    np.testing.assert_allclose(weighted.weight_concentration_, repeated.weight_concentration_,
                               rtol=1e-9)
    assert weighted.elbo_ == pytest.approx(repeated.elbo_, rel=1e-9)


@pytest.mark.parametrize("diagonal", [False, True])
def test_blending_statistics_equals_the_statistics_of_the_weighted_union(rng, diagonal):
    """The SVI step (1 - rho) S_a + rho S_b in natural parameters is the statistics of the
    two data sets pooled with weights 1 - rho and rho."""
    layout = DiagonalStatistics if diagonal else Statistics
    A, B = rng.normal(size=(30, 3)), rng.normal(2.0, 1.5, size=(20, 3))
    resp_a, resp_b = rng.dirichlet(np.ones(2), 30), rng.dirichlet(np.ones(2), 20)
    wa, wb = rng.uniform(0.5, 2, 30), rng.uniform(0.5, 2, 20)
    step = 0.3
    blended = layout.from_responsibilities(A, wa, resp_a).blend(
        layout.from_responsibilities(B, wb, resp_b), step)
    pooled = layout.from_responsibilities(
        np.vstack([A, B]), np.concatenate([(1 - step) * wa, step * wb]),
        np.vstack([resp_a, resp_b]))
    np.testing.assert_allclose(blended.nk, pooled.nk, rtol=1e-13)
    np.testing.assert_allclose(blended.means, pooled.means, rtol=1e-12)
    np.testing.assert_allclose(blended.scatter, pooled.scatter, rtol=1e-12)


def test_partial_fit_on_the_whole_data_converges_to_the_batch_fixed_point():
    X = overlapping_blobs()
    settings = {"n_components": 4, "alpha": 0.8, "random_state": 3, "tol": 1e-13}
    batch = AlphaGaussianMixture(**settings).fit(X)
    iterate_map(batch, X, np.ones(len(X)), 200)
    stream = AlphaGaussianMixture(**settings, learning_offset=1.0, learning_decay=0.51,
                                  total_samples=len(X))
    for _ in range(300):
        stream.partial_fit(X)
    order = [np.argmin(np.linalg.norm(batch.means_ - m, axis=1)) for m in stream.means_]
    np.testing.assert_allclose(stream.means_, batch.means_[order], atol=1e-6)
    np.testing.assert_allclose(stream.weights_, batch.weights_[order], atol=1e-6)
    np.testing.assert_allclose(stream.covariances_, batch.covariances_[order], atol=1e-6)


def test_partial_fit_over_mini_batches_approaches_the_batch_fit():
    X, _, _ = make_gmm(n_samples=2000, random_state=4)
    batch = AlphaGaussianMixture(3, alpha=0.5, random_state=0).fit(X)
    stream = AlphaGaussianMixture(3, alpha=0.5, random_state=0, total_samples=len(X))
    shuffle = np.random.default_rng(0)
    for _ in range(20):
        for rows in np.array_split(shuffle.permutation(len(X)), 20):
            stream.partial_fit(X[rows])
    order = [np.argmin(np.linalg.norm(batch.means_ - m, axis=1)) for m in stream.means_]
    assert sorted(order) == [0, 1, 2]
    np.testing.assert_allclose(stream.means_, batch.means_[order], atol=0.03)
    np.testing.assert_allclose(stream.weights_, batch.weights_[order], atol=0.01)
    np.testing.assert_allclose(stream.covariances_, batch.covariances_[order], atol=0.05)
    assert stream.n_batch_iter_ == 400


def test_partial_fit_without_total_samples_counts_what_it_has_seen():
    X, _, _ = make_gmm(n_samples=600, random_state=4)
    model = AlphaGaussianMixture(3, random_state=0, **DIRICHLET)
    for rows in np.array_split(np.arange(600), 6):
        model.partial_fit(X[rows])
    # after one pass the statistics describe the 600 rows seen, not the last 100
    assert model.weight_concentration_.sum() == pytest.approx(600 + 1.0, rel=1e-12)


# ---------------------------------------------------------------- the paper and the API


def test_paper_simulation_converges_fast_and_recovers_the_means():
    X, labels, true_means = make_gmm(random_state=0)
    for alpha in (0.5, 0.95, 1.0):
        model = AlphaGaussianMixture(3, alpha=alpha, covariance_type="fixed",
                                     fixed_weights=np.full(3, 1 / 3), mean_prior=np.zeros(2),
                                     random_state=0).fit(X)
        assert model.converged_ and model.n_iter_ < 20
        order = [np.argmin(np.linalg.norm(model.means_ - m, axis=1)) for m in true_means]
        assert sorted(order) == [0, 1, 2]
        assert np.max(np.linalg.norm(model.means_[order] - true_means, axis=1)) < 0.15
        agreement = np.mean(np.array(order)[labels] == model.predict(X))
        assert agreement > 0.97


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_predictive_density_integrates_to_one(covariance_type):
    X, _, _ = make_gmm(n_samples=60, random_state=2, mean_scale=2.0, min_separation=0.0)
    model = AlphaGaussianMixture(2, alpha=0.5, covariance_type=covariance_type,
                                 random_state=0).fit(X)
    grid = np.linspace(-14, 14, 561)
    xx, yy = np.meshgrid(grid, grid)
    density = np.exp(model.score_samples(np.column_stack([xx.ravel(), yy.ravel()])))
    assert density.sum() * (grid[1] - grid[0]) ** 2 == pytest.approx(1.0, abs=2e-3)


def draw_precisions(model, k, n_draws, random_state):
    """Draws of Lambda_k from q (the known precision for "fixed")."""
    from scipy.stats import gamma, wishart

    p = model.means_.shape[1]
    kind = model.covariance_type
    if kind == "fixed":
        return np.broadcast_to(np.linalg.inv(model.covariances_), (n_draws, p, p))
    if kind == "tied":
        nu = model.degrees_of_freedom_
        return wishart(nu, np.linalg.inv(model.covariances_ * nu)).rvs(
            n_draws, random_state=random_state)
    nu = model.degrees_of_freedom_[k]
    psi = model.covariances_[k] * nu
    if kind == "full":
        return wishart(nu, np.linalg.inv(psi)).rvs(n_draws, random_state=random_state)
    if kind == "diag":
        lam = gamma(0.5 * nu, scale=2.0 / psi).rvs((n_draws, p), random_state=random_state)
        return lam[:, :, None] * np.eye(p)
    lam = gamma(0.5 * p * nu, scale=2.0 / (p * psi)).rvs(n_draws, random_state=random_state)
    return lam[:, None, None] * np.eye(p)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("n_samples, n_components", [(80, 2), (5, 1)])
@pytest.mark.parametrize("weight_prior", WEIGHT_PRIOR_TYPES)
def test_predictive_density_matches_monte_carlo_over_q(rng, n_samples, n_components,
                                                       covariance_type, weight_prior):
    """score_samples is E_q[p(x | theta)]: compare with draws of (pi, mu, Lambda) from q.
    With 5 points the Student-t has few degrees of freedom, so its tails are checked too.
    For the stick-breaking prior the predictive weights the components by E[pi_k]
    renormalised over the K components (scikit-learn's weights_); the density is linear in
    pi and q(pi) is independent of q(mu, Lambda), so those weights are used as they are."""
    from scipy.stats import dirichlet

    X = overlapping_blobs(n_samples, 2)
    model = AlphaGaussianMixture(n_components, alpha=0.5, covariance_type=covariance_type,
                                 weight_concentration_prior_type=weight_prior,
                                 random_state=0).fit(X)
    # tail points a few predictive scales out (the known covariance of "fixed" is I)
    spread = 1.0 if covariance_type == "fixed" else np.sqrt(X.var(axis=0).mean())
    points = np.vstack([X[:3], X.mean(axis=0) + spread * np.array([[4.0, 0.0], [0.0, -7.0]])])
    n_draws = 40000
    if weight_prior == "dirichlet_process":
        pis = np.broadcast_to(model.weights_, (n_draws, n_components))
    elif n_components > 1:
        pis = dirichlet(model.weight_concentration_).rvs(n_draws, random_state=1)
    else:
        pis = np.ones((n_draws, 1))
    density = np.zeros((n_draws, len(points)))
    for k in range(n_components):
        lams = draw_precisions(model, k, n_draws, 2 + k)
        if covariance_type == "fixed":
            mean_covs = np.broadcast_to(model.mean_covariances_[k], lams.shape)
        else:
            mean_covs = np.linalg.inv(lams) / model.mean_precision_[k]
        mus = model.means_[k] + np.einsum("dij,dj->di", np.linalg.cholesky(mean_covs),
                                          rng.standard_normal((n_draws, 2)))
        diff = points[None, :, :] - mus[:, None, :]
        maha = np.einsum("dni,dij,dnj->dn", diff, lams, diff)
        log_pdf = 0.5 * np.linalg.slogdet(lams)[1][:, None] - np.log(2 * np.pi) - 0.5 * maha
        density += pis[:, [k]] * np.exp(log_pdf)
    standard_error = density.std(axis=0) / np.sqrt(n_draws) / density.mean(axis=0)
    np.testing.assert_allclose(np.log(density.mean(axis=0)), model.score_samples(points),
                               atol=4 * standard_error.max() + 1e-3)


def test_fit_predict_and_predict_agree_and_probabilities_sum_to_one():
    X = overlapping_blobs()
    model = AlphaGaussianMixture(4, random_state=0)
    labels = model.fit_predict(X)
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert model.score(X) == pytest.approx(model.score_samples(X).mean())


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_sample_draws_from_the_fitted_mixture(covariance_type):
    X, _, _ = make_gmm(random_state=3)
    model = AlphaGaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    draws, labels = model.sample(20000)
    assert draws.shape == (20000, 2) and labels.shape == (20000,)
    for k in range(3):
        np.testing.assert_allclose(draws[labels == k].mean(axis=0), model.means_[k], atol=0.05)
    np.testing.assert_allclose(np.bincount(labels) / 20000, model.weights_, atol=0.02)


def test_warm_start_continues_from_the_previous_fit():
    X = overlapping_blobs()
    model = AlphaGaussianMixture(4, random_state=0, max_iter=3, tol=0.0, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X)
        first = model.elbo_
        model.fit(X)
    cold = AlphaGaussianMixture(4, random_state=0, max_iter=6, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cold.fit(X)
    assert model.elbo_ >= first
    assert model.elbo_ == pytest.approx(cold.elbo_, rel=1e-12)


def test_best_of_several_starts_is_kept():
    X = overlapping_blobs()
    single = [AlphaGaussianMixture(4, init_params="random", random_state=s, **DIRICHLET)
              .fit(X).elbo_ for s in range(4)]
    several = AlphaGaussianMixture(4, init_params="random", n_init=4, random_state=0,
                                   **DIRICHLET).fit(X)
    assert several.elbo_ >= max(single) - 1e-6 * abs(max(single))


@pytest.mark.parametrize("init_params", ["kmeans", "k-means++", "random", "random_from_data"])
def test_every_initialisation_finds_the_paper_clusters(init_params):
    X, _, true_means = make_gmm(random_state=0)
    model = AlphaGaussianMixture(3, init_params=init_params, n_init=3, random_state=0).fit(X)
    gaps = np.linalg.norm(model.means_[:, None] - true_means[None], axis=-1)
    assert np.all(gaps.min(axis=0) < 0.2)


def test_pickle_round_trip_and_inputs_untouched():
    X = overlapping_blobs()
    weight = np.linspace(0.5, 1.5, len(X))
    X_before, weight_before = X.copy(), weight.copy()
    model = AlphaGaussianMixture(3, random_state=0).fit(X, sample_weight=weight)
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(weight, weight_before)
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.score_samples(X), model.score_samples(X))


def test_zero_weight_rows_are_ignored(rng):
    X, _, _ = make_gmm(n_samples=300, n_features=3, random_state=5)
    weight = (rng.uniform(size=len(X)) > 0.3).astype(float)
    settings = {"n_components": 3, "random_state": 0, "tol": 1e-12}
    kept = AlphaGaussianMixture(**settings).fit(X[weight > 0])
    masked = AlphaGaussianMixture(**settings).fit(X, sample_weight=weight)
    iterate_map(kept, X[weight > 0], np.ones(int(weight.sum())), 100)
    iterate_map(masked, X, weight, 100)
    order = [np.argmin(np.linalg.norm(kept.means_ - m, axis=1)) for m in masked.means_]
    np.testing.assert_allclose(masked.means_, kept.means_[order], atol=1e-8)
    masked_post = masked._get_parameters().posterior
    kept_post = kept._get_parameters().posterior
    masked_rows = MemoryRows(X, weight, None)
    assert masked._objective(masked_post, *masked._local_step(masked_rows, masked_post)[1:]) \
        == pytest.approx(kept._objective(kept_post, *kept._local_step(
            MemoryRows(X[weight > 0], np.ones(int(weight.sum())), None), kept_post)[1:]), rel=1e-10)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("params, name", [
    ({"alpha": 0.0}, "alpha"),
    ({"alpha": 1.5}, "alpha"),
    ({"objective": "kl"}, "objective"),
    ({"covariance_type": "tide"}, "covariance_type"),
    ({"weight_concentration_prior_type": "dirichlet"}, "weight_concentration_prior_type"),
    ({"reg_covar": -1e-6}, "reg_covar"),
    ({"verbose_interval": 0}, "verbose_interval"),
    ({"init_params": "kmedoids"}, "init_params"),
    ({"n_components": 0}, "n_components"),
    ({"fixed_weights": [0.5, 0.6]}, "fixed_weights"),
    ({"fixed_weights": [1.0, 0.0]}, "fixed_weights"),
    ({"fixed_weights": [1.0]}, "fixed_weights"),
    ({"weight_concentration_prior": -1.0}, "weight_concentration_prior"),
    ({"mean_precision_prior": 0.0}, "mean_precision_prior"),
    ({"mean_prior": [0.0]}, "mean_prior"),
    ({"degrees_of_freedom_prior": 0.5}, "degrees_of_freedom_prior"),
    ({"covariance_prior": np.eye(3)}, "covariance_prior"),
    ({"covariance_prior": -np.eye(2)}, "covariance_prior"),
    ({"covariance_type": "diag", "covariance_prior": [1.0, -1.0]}, "covariance_prior"),
    ({"covariance_type": "fixed", "fixed_covariance": [[1.0, 2.0], [2.0, 1.0]]},
     "fixed_covariance"),
    ({"learning_decay": 0.5}, "learning_decay"),
    ({"learning_offset": -1.0}, "learning_offset"),
    ({"total_samples": 0}, "total_samples"),
    ({"max_iter": 0}, "max_iter"),
    ({"tol": -1.0}, "tol"),
])
def test_bad_parameters_name_themselves(params, name):
    X, _, _ = make_gmm(n_samples=50, random_state=0)
    params = {"n_components": 2, **params}
    message = f"'{name}' parameter of AlphaGaussianMixture"
    if name == "degrees_of_freedom_prior":  # scikit-learn's documented wording
        message = ("AlphaGaussianMixture: The parameter 'degrees_of_freedom_prior' should be "
                   "greater than 1, but got 0.500")
    with pytest.raises(ValueError, match=message):
        AlphaGaussianMixture(**params).fit(X)


@pytest.mark.parametrize("make_bad, message", [
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, X), "NaN"),
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 3, np.inf, X), "infinity"),
    (lambda X: X[:, 0], "2D array"),
    (lambda X: X[:1], "n_samples >= n_components"),
    (lambda X: X[:0], "minimum of 1"),
    (lambda X: X * 1e160, "overflow"),
])
def test_bad_data_is_refused_with_the_fix(make_bad, message):
    X, _, _ = make_gmm(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match=message):
        AlphaGaussianMixture(2).fit(make_bad(X))


@pytest.mark.parametrize("weight, message", [
    (-np.ones(50), "Negative values"),
    (np.zeros(50), "non-zero"),
    (np.ones(49), "sample_weight"),
    (np.full(50, np.nan), "NaN"),
])
def test_bad_sample_weight_is_refused(weight, message):
    X, _, _ = make_gmm(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match=message):
        AlphaGaussianMixture(2).fit(X, sample_weight=weight)


def test_singular_data_covariance_gets_a_ridge_in_the_default_prior():
    X = np.column_stack([np.arange(20.0), np.ones(20)])
    model = AlphaGaussianMixture(2, random_state=0).fit(X)
    variance = np.var(X[:, 0], ddof=1)
    # 1e-6 times each feature's own variance (the constant one: 1e-6 times the average
    # variance), so that the ridge scales with the feature's units
    np.testing.assert_allclose(model.covariance_prior_,
                               [[variance * (1 + 1e-6), 0], [0, 0.5e-6 * variance]])
    rescaled = AlphaGaussianMixture(2, random_state=0).fit(X * [1e3, 1.0])
    assert rescaled.covariance_prior_[0, 0] == pytest.approx(1e6 * variance * (1 + 1e-6))
    assert np.all(np.isfinite(model.means_)) and np.isfinite(model.elbo_)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_huge_sample_weights_give_the_large_sample_predictive(covariance_type):
    # weights c * 1 are c copies of each row: as c grows the predictive density converges
    # (the Student-t components have nu ~ c degrees of freedom); before the log-gamma ratio
    # was computed without cancellation, c = 1e15 gave -41.4 instead of -4.14
    X, _, _ = make_gmm(n_samples=60, random_state=0)
    scores = [AlphaGaussianMixture(2, covariance_type=covariance_type, random_state=0)
              .fit(X, sample_weight=np.full(60, c)).score(X) for c in (1e6, 1e14, 1e15, 1e100)]
    np.testing.assert_allclose(scores, scores[0], rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(0.05, 1.0),
       covariance_type=st.sampled_from(COVARIANCE_TYPES),
       objective=st.sampled_from(["alpha-vb", "fractional"]), n=st.integers(4, 40),
       p=st.integers(1, 3), k=st.integers(1, 4), weighted=st.booleans())
def test_random_small_problems_keep_every_property(seed, alpha, covariance_type, objective, n,
                                                   p, k, weighted):
    rng = np.random.default_rng(seed)
    k = min(k, n)
    X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10.0, size=p) + rng.normal(scale=5, size=p)
    weight = rng.uniform(0.0, 3.0, size=n) if weighted else None
    X_before, weight_before = X.copy(), None if weight is None else weight.copy()
    model = AlphaGaussianMixture(k, alpha=alpha, covariance_type=covariance_type,
                                 objective=objective, max_iter=30, tol=0.0, random_state=seed,
                                 init_params="random_from_data" if weighted else "kmeans")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, sample_weight=weight)
    assert_monotone(model.elbo_history_)
    for value in (model.weights_, model.means_, model.covariances_, model.score_samples(X),
                  model.predict_proba(X)):
        assert np.all(np.isfinite(value))
    np.testing.assert_array_equal(X, X_before)
    if weighted:
        np.testing.assert_array_equal(weight, weight_before)


def test_weights_that_overflow_the_fit_are_refused_by_name():
    """One weight of 1e300 ended in 'objective became nan ... check the data scale (X and
    y)' (a LinAlgError on dask); the error now names sample_weight, in memory and on dask."""
    from alphavb.datasets import make_gmm

    X, _, _ = make_gmm(n_samples=200, random_state=0)
    weight = np.ones(200)
    weight[3] = 1e300
    with pytest.raises(ValueError, match="sample_weight sums to 1e\\+300"):
        AlphaGaussianMixture(2, random_state=0).fit(X, sample_weight=weight)
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="sample_weight sums to 1e\\+300"):
        AlphaGaussianMixture(2, init_params="random_from_data", random_state=0).fit(
            da.from_array(X, chunks=(50, 2)), sample_weight=weight)
    weight[3] = 1e50  # large, and still a fit
    assert np.isfinite(AlphaGaussianMixture(2, random_state=0).fit(X, sample_weight=weight)
                       .elbo_)


def test_a_fitted_mixture_keeps_its_covariance_family_after_set_params():
    """What reads the fitted q after ``set_params(covariance_type=...)`` (the risk's draws,
    information matching) uses the family the fit used, not the one now named: the risk
    of a diagonal fit is the same before and after the parameter changes."""
    from alphavb.datasets import make_gmm
    from alphavb.mixture._families import DiagFamily, family_of
    from alphavb.risk import mixture_risk

    X, _, means = make_gmm(n_samples=300, random_state=0)
    model = AlphaGaussianMixture(3, covariance_type="diag", random_state=0).fit(X)
    before = mixture_risk(model, means, n_draws=5, n_points=200, random_state=0)
    model.set_params(covariance_type="full")
    assert family_of(model) is DiagFamily
    assert mixture_risk(model, means, n_draws=5, n_points=200, random_state=0) == before


def test_posterior_draws_with_about_as_many_rows_as_variables():
    """12 rows of 20 variables: the fitted covariance's smallest eigenvalue is about 1e-8,
    the inverse of a drawn precision is indefinite to rounding, and sample_posterior ended
    in numpy's "Matrix is not positive definite"; the means are now drawn through the
    precision's own factor, with the covariance (beta Lambda)^-1 they must have."""
    from alphavb.mixture._families import _mean_noise

    X = np.random.RandomState(0).randn(12, 20)
    for alpha in (1.0, 0.5):
        model = AlphaGaussianMixture(n_components=1, random_state=0, alpha=alpha).fit(X)
        draws = model.sample_posterior(50, random_state=0)
        assert all(np.all(np.isfinite(value)) for value in draws.values())
    # the second way on its own: a covariance whose factor fails, a precision that has one
    rng = np.random.default_rng(1)
    root = rng.standard_normal((3, 3))
    precision = root @ root.T + 3.0 * np.eye(3)
    n = 40000
    noise = _mean_noise(np.broadcast_to(-np.eye(3), (n, 3, 3)),
                        np.broadcast_to(precision, (n, 3, 3)), 2.0, rng)
    np.testing.assert_allclose(np.cov(noise, rowvar=False),
                               np.linalg.inv(2.0 * precision), rtol=0.05, atol=2e-3)
