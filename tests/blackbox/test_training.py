"""The shared training loop of the black-box estimators (alphavb.blackbox._training), tested
once on small objectives with known answers: the convergence rule, stacking, early stopping,
the warm-up and non-finite steps."""

import autograd.numpy as anp
import numpy as np
import pytest

from alphavb.blackbox._training import (
    Objective,
    Schedule,
    stacked_value_and_grad,
    train,
    warmup_weight,
)


def quadratic_objective(noise_sd=0.0, record_kl_weight=None, warmup_offset=0.0):
    """Per fit, ``E = n_rows * mean_batch (theta - x)^2 + noise``: its minimizer is the mean
    of the fit's data rows; the draws add Monte-Carlo-like noise to the gradient. During a
    warm-up (KL weight below 1) ``warmup_offset`` is subtracted."""

    def draw(rng, n_rows):
        return (noise_sd * rng.standard_normal(2),)

    def values(params, adversary, batch, draws, kl_weight):
        if record_kl_weight is not None:
            record_kl_weight.append(kl_weight)
        theta, rows = params[0], batch[0]                   # (M, 2), (M, B, 2)
        n_batch = rows.shape[1]
        energy = 50.0 * anp.sum(anp.mean((theta[:, None] - rows)**2, axis=1), axis=1) / n_batch \
            + anp.sum(theta * draws[0], axis=1) - warmup_offset * (1.0 - kl_weight)
        return energy[:, None]

    return Objective(draw, stacked_value_and_grad(values))


def fit_data(n_fits, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(loc=rng.normal(0, 3, (n_fits, 1, 2)), size=(n_fits, 50, 2))


def run(data, learning_rates, seeds, tol=1e-4, max_epochs=400, noise_sd=0.5, **kwargs):
    schedule = Schedule(batch_size=10, learning_rate=learning_rates, max_epochs=max_epochs,
                        tol=tol, n_iter_no_change=5, block_steps=20)
    return train(quadratic_objective(noise_sd), [np.zeros((len(seeds), 2))], [data],
                 [np.random.default_rng(seed) for seed in seeds], schedule, **kwargs)


def test_converges_to_the_minimizer_and_stops_before_the_budget():
    data = fit_data(1)
    result = run(data, [0.05], [0])
    assert result.converged[0] and result.n_epochs[0] < 400
    assert result.n_steps[0] == 5 * result.n_epochs[0]  # 50 rows in batches of 10
    np.testing.assert_allclose(result.params[0][0], data[0].mean(axis=0), atol=0.05)
    assert result.history[0].shape == (result.n_epochs[0], 1)
    # a budget too small for the rule: not converged
    short = run(data, [0.05], [0], max_epochs=8)
    assert not short.converged[0] and short.n_epochs[0] == 8


def test_tol_none_trains_the_whole_budget():
    result = run(fit_data(1), [0.05], [0], tol=None, max_epochs=150)
    assert result.n_epochs[0] == 150
    assert result.converged[0]  # the rule, evaluated with tol = 0, is met at the end


def test_stacked_fits_equal_separate_fits():
    """Three fits with their own data, seeds and step sizes, one of which converges long
    before the others: stacked, each ends exactly where it ends alone."""
    data = fit_data(3)
    rates, seeds = [0.2, 0.01, 0.05], [3, 4, 5]
    stacked = run(data, rates, seeds)
    assert len(set(stacked.n_epochs)) > 1  # the fits stopped at different epochs
    for m in range(3):
        alone = run(data[m:m + 1], [rates[m]], [seeds[m]])
        np.testing.assert_array_equal(stacked.params[0][m], alone.params[0][0])
        np.testing.assert_array_equal(stacked.history[m], alone.history[0])
        assert stacked.n_epochs[m] == alone.n_epochs[0]
        assert stacked.n_steps[m] == alone.n_steps[0]
        assert stacked.converged[m] == alone.converged[0]


def test_validation_score_keeps_the_best_block():
    """With a validation score the fit ends with the parameters of its best block, not the
    last: here the score peaks at the first block and then falls."""
    data = fit_data(1)
    scores, snapshots = [], []

    def validation_score(params, adversary):
        snapshots.append(params[0].copy())
        score = -float(np.sum((params[0][0] - data[0].mean(axis=0) - 3.0)**2))
        scores.append(score)
        return np.array([score])

    result = run(data, [0.05], [0], validation_score=validation_score)
    best = int(np.argmax(scores))
    np.testing.assert_array_equal(result.params[0], snapshots[best])
    assert result.best_score[0] == scores[best]
    assert result.converged[0] and len(scores) == best + 1 + 5  # patience of 5 blocks


def test_warmup_weights_reach_the_objective():
    weights = []
    schedule = Schedule(batch_size=50, learning_rate=0.1, max_epochs=6, warmup_epochs=4,
                        tol=None)
    train(quadratic_objective(record_kl_weight=weights), [np.zeros((1, 2))], [fit_data(1)],
          [np.random.default_rng(0)], schedule)
    assert weights == [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    assert [warmup_weight(epoch, 0) for epoch in range(2)] == [1.0, 1.0]


def test_warmup_epochs_do_not_enter_the_convergence_rule():
    """During the warm-up the objective is not the final one (here 1000 lower): its blocks
    must not set the best score, or the fit would stop n_iter_no_change blocks after the
    warm-up wherever it is. It stops at the minimizer instead."""
    objective = quadratic_objective(noise_sd=0.5, warmup_offset=1000.0)
    data = fit_data(1)
    # blocks of 4 epochs: the warm-up's last 2 epochs would fall in the first block
    schedule = Schedule(batch_size=10, learning_rate=0.01, max_epochs=2000, warmup_epochs=22,
                        tol=1e-4, n_iter_no_change=5, block_steps=20)
    result = train(objective, [np.zeros((1, 2))], [data], [np.random.default_rng(0)],
                   schedule)
    assert result.converged[0] and result.n_epochs[0] > 40
    np.testing.assert_allclose(result.params[0][0], data[0].mean(axis=0), atol=0.05)


def test_non_finite_step_is_an_error_naming_the_parameter():
    def draw(rng, n_rows):
        return ()

    def values(params, adversary, batch, draws, kl_weight):
        return anp.log(params[0] - 1.0)[:, :1]  # log of a negative number

    schedule = Schedule(batch_size=5, learning_rate=0.1, max_epochs=2)
    with np.errstate(invalid="ignore"), pytest.raises(FloatingPointError,
                                                      match=r"epoch 1.*lower step_size"):
        train(Objective(draw, stacked_value_and_grad(values)), [np.zeros((1, 1))],
              [np.zeros((1, 5, 1))], [np.random.default_rng(0)], schedule, name="demo",
              learning_rate_name="step_size")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_finite_objective_with_one_non_finite_gradient_entry_is_refused(dtype, bad):
    """One NaN or infinite entry among 1,001 finite gradient entries stops training while
    the objective is finite, in both precisions (the vectorized check of _training)."""
    def draw(rng, n_rows):
        return ()

    def value_and_grad(params, adversary, batch, draws, kl_weight):
        gradient = np.ones_like(params[0])
        gradient[0, 737] = bad
        return np.sum(params[0], axis=1, keepdims=True), [gradient]

    schedule = Schedule(batch_size=5, learning_rate=0.1, max_epochs=2)
    with pytest.raises(FloatingPointError, match=r"epoch 1.*lower step_size"):
        train(Objective(draw, value_and_grad), [np.zeros((1, 1001))], [np.zeros((1, 5, 1))],
              [np.random.default_rng(0)], schedule, name="demo",
              learning_rate_name="step_size", dtype=dtype)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", ["bbalpha", "aadm"])
def test_fit_stacked_equals_each_fit(make):
    """fit_stacked trains fits of other seeds, alphas and data (same shape) together; each
    ends where its own fit ends, and an incompatible estimator is fitted on its own."""
    from sklearn.base import clone

    from alphavb import AADMRegressor, BBAlphaRegressor
    from alphavb.blackbox import fit_stacked

    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((40, 2)), rng.standard_normal(40)) for _ in range(3)]
    if make == "bbalpha":
        models = [BBAlphaRegressor(divergence_order=alpha, hidden_layer_sizes=(5,), n_epochs=30,
                                   learning_rate=0.01, random_state=seed)
                  for alpha, seed in ((0.0, 1), (0.5, 2), (1.0, 3))]
        models.append(BBAlphaRegressor(hidden_layer_sizes=(4,), n_epochs=5, random_state=0))
        attribute = "posterior_mean_"
    else:
        small = {"hidden_layer_sizes": (5,), "generator_hidden": (6,), "noise_dim": 4,
                 "discriminator_hidden": (6,), "n_epochs": 12, "learning_rate": 1e-3}
        models = [AADMRegressor(divergence_order=alpha, random_state=seed, **small)
                  for alpha, seed in ((0.0, 1), (0.5, 2), (1.0, 3))]
        models.append(AADMRegressor(draws_per_row=True, random_state=0,
                                    **{**small, "n_epochs": 2}))
        attribute = "generator_params_"
    data.append(data[0])
    alone = [clone(model).fit(X, y) for model, (X, y) in zip(models, data, strict=True)]
    stacked = fit_stacked([clone(model) for model in models], *zip(*data, strict=True))
    for one, together in zip(alone, stacked, strict=True):
        np.testing.assert_allclose(getattr(together, attribute), getattr(one, attribute),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(together.energy_history_, one.energy_history_, rtol=1e-10)
        assert together.n_iter_ == one.n_iter_ and together.converged_ == one.converged_
        np.testing.assert_allclose(together.predict(data[0][0]), one.predict(data[0][0]),
                                   rtol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fit_stacked_gives_each_fit_bitwise(dtype):
    """With the closed-form steps a fit in a stack (other seeds, alphas, data) ends bitwise
    where it ends alone, in float64 and float32: every array of a step is computed per fit
    in the same order whatever the stack (the autograd step summed broadcast gradients in
    an order that depended on the stack's shape)."""
    from sklearn.base import clone
    from threadpoolctl import threadpool_limits

    from alphavb import AADMRegressor, BBAlphaRegressor
    from alphavb.blackbox import fit_stacked

    rng = np.random.default_rng(1)
    data = [(rng.standard_normal((50, 3)), rng.standard_normal(50)) for _ in range(3)]
    small = {"hidden_layer_sizes": (8,), "generator_hidden": (8, 8), "noise_dim": 6,
             "discriminator_hidden": (8, 8), "n_epochs": 15, "tol": None, "dtype": dtype}
    for models, attribute in (
            ([AADMRegressor(divergence_order=a, random_state=s, **small)
              for a, s in ((0.0, 1), (0.5, 2), (1.0, 3))], "generator_params_"),
            ([BBAlphaRegressor(divergence_order=a, hidden_layer_sizes=(6,), n_epochs=15, tol=None,
                               random_state=s, dtype=dtype)
              for a, s in ((0.0, 1), (0.5, 2), (1.0, 3))], "posterior_mean_")):
        with threadpool_limits(1):
            alone = [clone(model).fit(X, y) for model, (X, y) in zip(models, data, strict=True)]
            stacked = fit_stacked([clone(model) for model in models], *zip(*data, strict=True))
        for one, together in zip(alone, stacked, strict=True):
            np.testing.assert_array_equal(getattr(together, attribute),
                                          getattr(one, attribute))
            np.testing.assert_array_equal(together.energy_history_, one.energy_history_)


def test_training_runs_on_one_blas_thread_whatever_the_caller_set(monkeypatch):
    """The networks' Adam steps are small products: they run on one BLAS thread (so a fit
    does not depend on the caller's thread count), and the caller's setting comes back."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from alphavb import BBAlphaRegressor
    from alphavb.blackbox import _training

    seen = []
    steps = _training.train_steps

    def recording(*args, **kwargs):
        seen.append(max(pool["num_threads"] for pool in threadpool_info()
                        if pool["user_api"] == "blas"))
        return steps(*args, **kwargs)

    monkeypatch.setattr(_training, "train_steps", recording)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    with threadpool_limits(limits=2, user_api="blas"):
        BBAlphaRegressor(hidden_layer_sizes=(5,), n_epochs=2, random_state=0).fit(X, y)
        after = max(pool["num_threads"] for pool in threadpool_info()
                    if pool["user_api"] == "blas")
    assert seen == [1] and after == 2


def test_hostile_round_of_the_networks():
    """What a hostile test of the black-box surface found: a regression target of strings
    was a ufunc TypeError, one whose squares overflow gave -inf predictions and a NaN
    spread, fit_stacked took AlphaLogisticRegression for a network (an AttributeError), a
    diverging AADM blamed only the discriminator's rate, and AlphaGaussianVB's warning sent
    the user to compare_to_exact, which refuses it."""
    import warnings

    import autograd.numpy as anp

    from alphavb.blackbox import (
        AADMRegressor,
        AlphaGaussianVB,
        AlphaLogisticRegression,
        BBAlphaRegressor,
        fit_stacked,
    )

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = X @ [1.0, -1.0, 0.5]
    for model in (BBAlphaRegressor(hidden_layer_sizes=(4,), n_epochs=2, tol=None),
                  AADMRegressor(hidden_layer_sizes=(4,), n_epochs=2, tol=None)):
        with pytest.raises(ValueError, match=r"'y' parameter.*numbers"):
            model.fit(X, np.array(["a", "b"] * 15))
        with pytest.raises(ValueError, match=r"Input y .* squares overflow"):
            model.fit(X, y * 1e200)
    labels = (y > 0).astype(int)
    with pytest.raises(ValueError, match="fit_stacked fits black-box estimators"):
        fit_stacked([AlphaLogisticRegression()], [X], [labels])
    with pytest.raises(FloatingPointError, match="discriminator_learning_rate or learning_rate"):
        AADMRegressor(hidden_layer_sizes=(4,), n_epochs=3, tol=None, learning_rate=1e6,
                      discriminator_learning_rate=1e-8, random_state=0).fit(X, y)

    def log_likelihood(theta, X, y):  # a Poisson log-rate
        return anp.sum(X[None, :] * theta[:, :1] - anp.exp(theta[:, :1]), axis=1)

    counts = rng.poisson(3.0, size=20).astype(float)
    vb = AlphaGaussianVB(log_likelihood, 1, optimizer="adam", max_iter=30, n_mc_samples=20,
                         random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vb.fit(counts)
    texts = [str(w.message) for w in caught if "Approximation" in w.category.__name__]
    assert texts and all("compare_to_exact" not in text and "MCMC" in text for text in texts)
