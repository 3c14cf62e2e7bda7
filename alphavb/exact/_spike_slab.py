"""Exact alpha-posterior of :class:`~alphavb.AlphaSpikeSlabRegression` by collapsed Gibbs.

The model (Yang, Pati & Bhattacharya 2020, Cor. 4.2) with the likelihood raised to ``alpha``:
``z_j ~ Bernoulli(pi)``, ``beta_j | z_j = 1 ~ N(0, nu sigma2)``, ``sigma2 ~ InvGamma(a0, b0)``
or known, a flat intercept and flat covariates. The slab coefficients, the intercept, the
covariates and (when learned) ``sigma2`` are integrated out in closed form; with the rows
of ``X`` and ``y`` multiplied by ``sqrt(alpha)``, ``A = X_z' X_z + I / nu`` and ``Q = b'
A^{-1} b``, ``b = X_z' y``::

    p(z | y) ∝ p(z) nu^{-|z|/2} |A|^{-1/2} (b0 + (y'y - Q) / 2)^{-(a0 + (alpha n - k) / 2)},

``k`` the number of flat columns (intercept and covariates: each integrated flat parameter
takes ``1/2`` off the shape, the exact count, which the variational fit's ``a0 + alpha n /
2`` does not take for the intercept); with ``sigma2`` known the last factor is ``exp(Q / (2
sigma2))``. ``pi`` with a Beta prior is integrated out too (``p(z) = B(a + |z|, b + d -
|z|) / B(a, b)``), and a grid of prior settings ``h`` is a discrete parameter with its exact
conditional ``p(h | z, y)``, so the draws of ``h`` average the settings with the exact
marginal-likelihood weights. The sampler (kernel
:func:`~alphavb.exact._kernels.collapsed_gibbs`) updates each ``z_j`` from its conditional
and proposes swaps of a variable in the model for one of its ``n_neighbours`` most
correlated variables outside it (single-site updates stick where two columns are strongly
correlated, Carbonetto & Stephens 2012, Sec. 3); each kept draw adds ``sigma2 | z`` and
``beta_z | z, sigma2 ~ N(A^{-1} b, sigma2 A^{-1})`` and the flat parameters given ``beta``.
"""

import numpy as np
from sklearn.base import clone

from .._validation import bad_parameter
from ..linear_model._base import MIN_NOISE_SHAPE
from ..linear_model._inclusion import grid_arrays
from ._draws import ExactDraws

# the largest model (variables in it) the kernel makes room for; a chain that outgrows it
# stops with an error that says so
MAX_MODEL_SIZE = 1000
# columns above which the neighbour search (an O(n d^2) pass) and a sweep get slow
MAX_FEATURES = 20000


def correlated_neighbours(X, n_neighbours, block=512):
    """The ``n_neighbours`` columns of ``X`` most correlated with each column (by |corr|,
    itself left out), an int array of shape (d, n_neighbours); -1 pads when d is small."""
    n_features = X.shape[1]
    width = min(n_neighbours, n_features - 1)
    out = np.full((n_features, max(width, 0)), -1, dtype=np.int64)
    if width <= 0:
        return out
    norms = np.sqrt(np.einsum("ij,ij->j", X, X))
    unit = X / np.where(norms > 0.0, norms, 1.0)
    for start in range(0, n_features, block):
        stop = min(start + block, n_features)
        corr = np.abs(unit[:, start:stop].T @ unit)
        corr[np.arange(stop - start), np.arange(start, stop)] = -1.0
        top = np.argpartition(-corr, width - 1, axis=1)[:, :width]
        order = np.argsort(-np.take_along_axis(corr, top, axis=1), axis=1, kind="stable")
        out[start:stop] = np.take_along_axis(top, order, axis=1)
    return out


def check_noise_shape(model, shape, prior_shape, n_rows, n_observations, n_flat,
                      n_covariates=0):
    """Refuse data too few to draw the noise variance from its exact posterior.

    Parameters
    ----------
    model : estimator
        The prepared clone (its ``alpha`` and ``fit_intercept``).
    shape : float
        The posterior shape ``a0 + (alpha n - k) / 2``.
    prior_shape : float
        ``a0``, the shape of ``noise_prior``.
    n_rows : int
        The rows of ``X``.
    n_observations : float
        ``n``: the rows, or the total of ``sample_weight``.
    n_flat : int
        ``k``: the flat-prior columns integrated out (intercept, covariates).
    n_covariates : int, default=0
        The covariates among them.

    Raises
    ------
    ValueError
        When ``shape`` is under :data:`MIN_NOISE_SHAPE`, naming ``X``, ``alpha``,
        ``noise_prior`` (the shape that would do) and ``noise_variance``.
    """
    if shape >= MIN_NOISE_SHAPE:
        return
    alpha = float(model.alpha)
    flat = [*(["the intercept"] if model.fit_intercept else []),
            *([f"{n_covariates} covariate{'s' * (n_covariates > 1)}"] if n_covariates
              else [])]
    columns = (f"{n_flat} flat column{'s' * (n_flat != 1)} ({' and '.join(flat)})"
               if n_flat else "no flat column")
    weights = (f" (sample_weight totalling {n_observations:g})"
               if n_observations != n_rows else "")
    needed = np.ceil((prior_shape + MIN_NOISE_SHAPE - shape) * 1000.0) / 1000.0
    observations = alpha * n_observations
    raise ValueError(
        f"sample_exact: X has {n_rows} row{'s' * (n_rows != 1)}{weights}, so at "
        f"alpha={alpha:g} the data weigh as alpha x n_samples = {observations:.3g} "
        f"observation{'s' * (observations != 1.0)}; with {columns} integrated out and "
        f"noise_prior shape a0 = {prior_shape:.3g}, the exact posterior of the noise "
        f"variance, InvGamma(a0 + (alpha n - k) / 2, ...), has shape {shape:.3g}, under the "
        f"{MIN_NOISE_SHAPE} it needs (it does not exist at 0 or below, and its draws overflow "
        "near 0). Give X more rows, a larger alpha, a noise_prior with shape >= "
        f"{needed:g}, or a known noise_variance=.")


def dispersed_start(rng, n_features, n_settings):
    """A chain's first state, dispersed for R-hat: each variable in with probability ``10 /
    d`` (at most 1/2), a setting drawn uniformly."""
    inclusion = (rng.random_sample(n_features)
                 < min(10.0, 0.5 * n_features) / n_features).astype(np.int8)
    return inclusion, np.array([rng.randint(n_settings)], dtype=np.int64)


def outgrown(capacity):
    """The error of a chain that reached ``capacity`` variables (the kernel's -1)."""
    return ValueError(f"sample_exact: a chain reached {capacity} variables in the model, the "
                      "most the sampler makes room for; the posterior is not sparse at this "
                      "prior (lower prior_inclusion).")


def spike_slab_result(model, draws, *, inclusion, setting, log_posterior, rao_blackwell,
                      n_sweeps, pi_prior, n_settings, rng, method, info):
    """The ``ExactDraws`` of a spike-and-slab sampler: ``draws`` (coefficients, indicators,
    flat parameters) with ``pi | z ~ Beta(a + |z|, b + d - |z|)`` when ``pi`` is learned
    and the settings' draws over a grid, the per-draw statistics and the Rao-Blackwellised
    sums divided by their batches' sizes."""
    n_features = inclusion.shape[2]
    size = inclusion.sum(axis=2)
    if pi_prior is not None:
        beta_a, beta_b = pi_prior
        draws["prior_inclusion"] = rng.beta(beta_a + size, beta_b + n_features - size)
    if n_settings > 1:
        draws["setting"] = setting
    n_batches = rao_blackwell.shape[1]
    return ExactDraws(model, draws, method=method,
                      stats={"log_posterior": log_posterior, "model_size": size},
                      rao_blackwell_pip=rao_blackwell
                      / batch_sizes(n_sweeps, n_batches)[:, None],
                      info=info)


def sample_spike_slab(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng,
                      covariates=None, sample_weight=None, n_neighbours=10):
    """Draws of the exact alpha-posterior of an :class:`AlphaSpikeSlabRegression`'s model
    (module docstring); an :class:`~alphavb.exact._draws.ExactDraws`."""
    from ._kernels import collapsed_gibbs

    model = clone(estimator)
    data = model._prepare_fit(X, y, covariates, sample_weight)
    n_features = data.X.shape[1]
    if n_features > MAX_FEATURES:
        raise bad_parameter("sample_exact", "X", f"at most {MAX_FEATURES} candidate variables "
                            "for the spike-and-slab sampler", f"{n_features} columns")
    settings, pi_prior, log_prior = data.grid
    alpha = float(model.alpha)
    root = np.sqrt(alpha)
    design_t = np.ascontiguousarray((root * data.X).T)  # the kernel takes X transposed
    response = root * data.y
    kind, noise, *prior_scale = model._collapsed_noise(data)
    if kind == "integrated":
        n_covariates = data.fitted_attributes["n_covariates_in_"]
        check_noise_shape(model, noise, data.noise_prior[0], data.X.shape[0],
                          data.n_observations, int(model.fit_intercept) + n_covariates,
                          n_covariates)
    mode, prior_scale = (1, prior_scale[0]) if kind == "integrated" else (0, 0.0)
    prior_pi, slabs, beta_a, beta_b = grid_arrays(settings, pi_prior)
    neighbours = correlated_neighbours(data.X, n_neighbours)
    capacity = min(n_features, MAX_MODEL_SIZE)
    n_batches = 20 if n_draws * thin >= 20 else 1
    names = ("inclusion", "setting", "coef", "noise", "log_posterior")
    chains = {name: [] for name in names}
    rao_blackwell = np.zeros((n_chains, n_batches, n_features))
    swaps = np.zeros(n_chains, dtype=np.int64)
    for chain in range(n_chains):
        inclusion, setting = dispersed_start(rng, n_features, len(settings))
        out = {"inclusion": np.zeros((n_draws, n_features), dtype=np.int8),
               "setting": np.zeros(n_draws, dtype=np.int64),
               "coef": np.zeros((n_draws, n_features)), "noise": np.zeros(n_draws),
               "log_posterior": np.zeros(n_draws)}
        accepted = np.zeros(1, dtype=np.int64)
        status = collapsed_gibbs(
            design_t, response, 0, inclusion, setting, slabs, log_prior, prior_pi, beta_a,
            beta_b, mode, float(noise), float(prior_scale), neighbours,
            n_draws * thin, n_tune, thin, int(rng.randint(2**31 - 1)), capacity,
            out["inclusion"], out["setting"], out["coef"], out["noise"],
            out["log_posterior"], rao_blackwell[chain], accepted)
        if status != 0:
            raise outgrown(capacity)
        swaps[chain] = accepted[0]
        for name in names:
            chains[name].append(out[name])
    stacked = {name: np.stack(values) for name, values in chains.items()}
    coef = stacked["coef"] / data.fitted_attributes["column_scale_"]  # the original columns
    noise_draws = stacked["noise"]
    flat = flat_parameters(model, data.centring, coef, noise_draws, rng)
    draws = {"coef": coef, "inclusion": stacked["inclusion"], **flat,
             "noise_variance": noise_draws}
    return spike_slab_result(
        model, draws, inclusion=stacked["inclusion"], setting=stacked["setting"],
        log_posterior=stacked["log_posterior"], rao_blackwell=rao_blackwell,
        n_sweeps=n_draws * thin, pi_prior=pi_prior, n_settings=len(settings), rng=rng,
        method="collapsed Gibbs with swap moves",
        info={"n_tune": n_tune, "thin": thin, "n_neighbours": n_neighbours,
              "swap_acceptances": swaps.tolist()})


def batch_sizes(n_sweeps, n_batches):
    """Sweeps in each batch of the Rao-Blackwellised sums (sweep ``t`` goes to batch ``t
    n_batches // n_sweeps``, as the kernel puts it)."""
    return np.bincount(np.arange(n_sweeps) * n_batches // n_sweeps, minlength=n_batches)


def flat_parameters(model, centring, coef, noise_variance, rng):
    """The flat-prior intercept and covariates given each draw of ``beta`` and ``sigma2``:
    ``gamma ~ N(b_y - B_x beta, (sigma2 / alpha) (Z_c'Z_c)^{-1})``, then the intercept
    ``N(mean(y) - mean(X)' beta - mean(Z)' gamma, sigma2 / (alpha n))`` (the conditionals of
    :meth:`AlphaSpikeSlabRegression.sample_posterior`, which are exact); ``centring`` is the
    :class:`~alphavb.linear_model._base.Centring` of the prepared data."""
    shape = noise_variance.shape
    out = {}
    if model.fit_intercept:
        leverage = centring.intercept_leverage(model.alpha)
        intercept = (centring.intercept(coef)
                     + np.sqrt(noise_variance * leverage) * rng.standard_normal(shape))
    else:
        intercept = np.zeros(shape)
    if centring.covariates is not None:
        gamma = centring.covariates.draw(coef, noise_variance, model.alpha, rng)
        out["covariate_coef"] = gamma
        if model.fit_intercept:
            intercept = intercept - gamma @ centring.covariates.offset
    out["intercept"] = intercept
    return out
