"""The exact alpha-posterior beside a variational fit (``pip install "alphavb[exact]"``).

:func:`sample_exact` draws from ``p_alpha(theta | y) ∝ p(theta) p(y | theta)^alpha``, the
target that alpha-VB approximates (Yang, Pati & Bhattacharya 2020, eq. 2.6), for the
estimator's own model, priors and hyper-parameters; :func:`compare_to_exact` puts it beside
the variational ``q`` parameter by parameter. Samplers:

* :class:`~alphavb.AlphaLinearRegression`: the normal-inverse-gamma closed form (conjugate
  prior or known noise; independent draws), Gibbs for the independent prior
  (:mod:`alphavb.exact._linear`);
* :class:`~alphavb.AlphaSpikeSlabRegression`: collapsed Gibbs over the inclusion indicators
  with swap moves, a grid of prior settings sampled with its exact weights
  (:mod:`alphavb.exact._spike_slab`, numba kernel in :mod:`alphavb.exact._kernels`);
* :class:`~alphavb.AlphaLogisticRegression` and :class:`~alphavb.AlphaSpikeSlabClassifier`:
  Polya-Gamma Gibbs, ``PG(alpha, psi)`` for the tempered likelihood, with the same collapsed
  spike-and-slab sweep given the Polya-Gamma weights (:mod:`alphavb.exact._polya_gamma`);
* :class:`~alphavb.AlphaSuSiE` (without a background or the NIG prior): collapsed Gibbs
  over the single effects' positions at the fit's residual and prior variances
  (:mod:`alphavb.exact._susie`, :mod:`alphavb.linear_model._susie_exact`);
* :class:`~alphavb.AlphaGaussianMixture` and :class:`~alphavb.AlphaLDA`: NUTS in NumPyro on
  the parameters with the allocations (the tokens' topics) summed out, components matched to
  the fitted ones (:mod:`alphavb.exact._mixture`, :mod:`alphavb.exact._topics`,
  :mod:`alphavb.exact._nuts`); small problems.

Any other estimator raises a ``ValueError`` that lists those with a sampler.
"""


import numpy as np

from .._approximation import without_checks
from .._parallel import one_blas_thread
from .._validation import Integer, Real, bad_parameter, validate_params
from .._warnings import quietly
from ._draws import MixingWarning

__all__ = ["MixingWarning", "compare_to_exact", "sample_exact", "wasserstein"]

def _sampler(estimator):
    """The sampler of ``estimator``'s model and the fit parameters it reads, as the model
    names them (its ``_exact_sampler``, :class:`alphavb.base.ExactSampler`)."""
    spec = getattr(estimator, "_exact_sampler", None)
    if spec is None:
        raise bad_parameter("sample_exact", "estimator", "an estimator with an exact sampler "
                            f"({', '.join(_sampled_models())})", type(estimator).__name__,
                            fix="No exact sampler of this model is in alphavb.exact yet.")
    return _function(spec, spec.function), spec.fit_params


def _function(spec, name):
    """The function ``name`` of the sampler's module in :mod:`alphavb.exact`."""
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{spec.module}"), name)


def _sampled_models():
    """The public estimators that name an exact sampler, by subpackage (for the error
    message)."""
    from ..base import models_with

    return [model.__name__ for model in sorted(
        models_with("_exact_sampler"), key=lambda model: (model.__module__, model.__name__))]


def _draw(estimator, X, y, fit_params, n_draws, n_chains, n_tune, thin, random_state):
    from sklearn.utils import check_random_state

    from ..base import fitted_model

    estimator = fitted_model(estimator)  # a fitted AlphaSelector: its chosen model
    sampler, accepted = _sampler(estimator)
    unknown = sorted(set(fit_params) - set(accepted))
    if unknown:
        raise bad_parameter("sample_exact", unknown[0], f"one of the fit parameters of "
                            f"{type(estimator).__name__} ({', '.join(accepted)})",
                            fit_params[unknown[0]])
    rng = check_random_state(random_state)
    # the kernels' small products: the draws do not depend on BLAS's threads; a sampler's
    # own reference fit (the mixture's, LDA's) checks nothing: this is the full comparison
    with one_blas_thread(), without_checks():
        exact = sampler(estimator, X, y, n_draws=int(n_draws), n_chains=int(n_chains),
                        n_tune=int(n_tune), thin=int(thin), rng=rng, **fit_params)
    return estimator, exact, rng


_SAMPLING_PARAMETERS = {"n_draws": [Integer(1, None)], "n_chains": [Integer(1, None)],
                        "n_tune": [Integer(0, None)], "thin": [Integer(1, None)]}


@validate_params(_SAMPLING_PARAMETERS)
def sample_exact(estimator, X, y=None, *, n_draws=2000, n_chains=4, n_tune=1000, thin=1,
                 random_state=None, **fit_params):
    """Draws from the exact alpha-posterior of an estimator's model.

    The target is ``p(theta) p(y | theta)^alpha`` with the estimator's prior, its
    hyper-parameters and its handling of the data (``fit_intercept``, ``standardize``,
    ``sample_weight``, covariates, a grid of prior inclusion settings), whether or not the
    estimator is fitted (it is cloned; a fitted ``AlphaSelector`` gives its chosen model).

    Parameters
    ----------
    estimator : alphavb estimator
        ``AlphaLinearRegression``, ``AlphaSpikeSlabRegression``,
        ``AlphaSpikeSlabClassifier``, ``AlphaLogisticRegression``, ``AlphaGaussianMixture``,
        ``AlphaLDA`` or ``AlphaSuSiE`` (its effects at the fit's variances, which a fit of a
        clone gives).
    X : array-like of shape (n_samples, n_features)
        (LDA: the document-word counts.)
    y : array-like of shape (n_samples,), default=None
        The responses or labels (none for the mixture and LDA).
    n_draws : int, default=2000
        Draws kept per chain.
    n_chains : int, default=4
        Independent chains from dispersed starts (one chain is checked by split R-hat, its
        two halves; only several find a mode that one chain never visits).
    n_tune : int, default=1000
        Sweeps discarded at the start of each Markov chain (unused by the closed forms).
    thin : int, default=1
        Keep every ``thin``-th sweep.
    random_state : int, RandomState or None, default=None
    **fit_params
        What the estimator's ``fit`` takes besides ``X`` and ``y`` (``sample_weight``;
        ``covariates`` for the spike-and-slab models).

    Returns
    -------
    arviz.InferenceData
        ``posterior`` with the variables and dimensions of :func:`alphavb.to_inference_data`
        (``coef``, ``intercept``, ``noise_variance``, ``inclusion``, ...; a mixture's
        ``weights``, ``means``, ``precisions``, ``covariances``; LDA's ``topic_word`` and
        ``doc_topic``), ``sample_stats`` for the Markov chains (``log_posterior``;
        ``model_size`` for spike-and-slab, ``diverging`` and ``n_steps`` for NUTS), and in
        the posterior's attributes the sampler, ``max_rhat`` and ``min_ess_bulk``.

    Warns
    -----
    MixingWarning
        When R-hat exceeds 1.01 or the bulk ESS is under 100 per chain (``100 n_chains`` in
        all) for some parameter (Vehtari et al. 2021), or NUTS made divergent transitions,
        or the diagnostics could not be computed (under 8 draws per chain); the message
        names the parameter (``means[2, 1]``) and the remedy.

    Raises
    ------
    ValueError
        When the noise variance is learned and ``alpha`` times the rows of ``X``, less the
        flat-prior columns (intercept, covariates), leave its exact posterior ``InvGamma(a0
        + (alpha n - k) / 2, ...)`` a shape under 0.05 (one row with an intercept); the
        message gives the ``noise_prior`` shape that would do.
    """
    _, exact, _ = _draw(estimator, X, y, fit_params, n_draws, n_chains, n_tune, thin,
                        random_state)
    exact.warn_if_not_mixed()
    return exact.to_inference_data()


@validate_params({**_SAMPLING_PARAMETERS, "level": [Real(0.0, 1.0, closed="neither")],
                  "n_vb_draws": [Integer(100, None)]})
def compare_to_exact(estimator, X, y=None, *, n_draws=2000, n_chains=4, n_tune=1000, thin=1,
                     level=0.95, n_vb_draws=4000, random_state=None, **fit_params):
    """How far the variational posterior is from the exact alpha-posterior, per parameter.

    Fits a clone of ``estimator`` (alpha-VB) and draws from the exact alpha-posterior of
    the same model (:func:`sample_exact`), then compares them parameter by parameter (for
    a mixture and LDA, the fit whose components the draws were matched to).

    Parameters
    ----------
    estimator, X, y, n_draws, n_chains, n_tune, thin, random_state, **fit_params
        As for :func:`sample_exact`.
    level : float in (0, 1), default=0.95
        Mass of the variational equal-tailed credible intervals.
    n_vb_draws : int, default=4000
        Draws from ``q`` for the Wasserstein distance.

    Returns
    -------
    pandas.DataFrame
        One row per parameter (the rows of the estimator's ``summary_frame``: features,
        intercept, covariates, ``sigma2``; a mixture's learned ``weights[k]``, its
        ``means[k, feature]`` and learned ``covariances[k, ...]`` (a full matrix's upper
        triangle); LDA's ``topic_word[k, word]``, its words by ``feature_names_in_``, else
        ``w<v>``), columns ``vb_mean``, ``exact_mean``,
        ``exact_mean_se``, ``vb_sd``, ``exact_sd``, ``exact_sd_se``, ``mean_error`` (``(vb
        - exact) / exact sd``), ``sd_ratio`` (vb / exact), ``vb_pip``, ``exact_pip``,
        ``exact_pip_se`` (spike-and-slab), ``wasserstein`` (the 1-Wasserstein distance
        between the two marginals, from ``n_vb_draws`` draws of ``q`` and the exact draws)
        and its ``wasserstein_se`` (the spread over chains), ``interval_mass`` (the exact
        probability of the variational interval) and ``interval_mass_se``. Its
        ``attrs["summary"]`` is one line: the largest PIP error, the median sd ratio and the
        smallest interval mass (no PIPs: the largest ``|mean_error|`` instead); ``attrs``
        holds those numbers.
    """
    import pandas as pd
    from sklearn.base import clone

    from ._draws import mcse_mean, mcse_sd

    if n_draws * n_chains < 2:
        raise bad_parameter("compare_to_exact", "n_draws", "at least 2 draws in all chains "
                            "together (an exact sd needs two)", n_draws,
                            fix="Draw more: n_draws=2000 is the default.")

    estimator, exact, rng = _draw(estimator, X, y, fit_params, n_draws, n_chains, n_tune,
                                  thin, random_state)
    exact.warn_if_not_mixed()
    with without_checks():  # this function is the full comparison the check points to
        vb = (exact.reference_fit if exact.reference_fit is not None
              else clone(estimator).fit(X, y, **fit_params))
    vb_draws = vb.sample_posterior(n_vb_draws, random_state=rng)
    if hasattr(vb, "summary_frame"):
        frame = vb.summary_frame(level)
        exact_columns, vb_columns = _parameter_columns(exact.draws, vb_draws, frame.index)
    else:
        labels, vb_columns = _draw_rows(vb, vb_draws)
        exact_columns = _draw_rows(vb, exact.draws)[1]
        frame = _summary_from_columns(labels, vb_columns, level)
    exact_values = np.stack(exact_columns, axis=-1)          # (chain, draw, parameter)
    vb_values = np.stack(vb_columns, axis=-1)                # (draw, parameter)
    lower, upper = frame["lower"].to_numpy(), frame["upper"].to_numpy()
    inside = ((exact_values >= lower) & (exact_values <= upper)).astype(float)
    n_chains = exact_values.shape[0]
    per_chain = np.stack([wasserstein(chain, vb_values) for chain in exact_values])
    out = pd.DataFrame({
        "vb_mean": frame["coef"].to_numpy(), "exact_mean": exact_values.mean(axis=(0, 1)),
        "exact_mean_se": mcse_mean(exact_values),
        "vb_sd": frame["sd"].to_numpy(), "exact_sd": exact_values.std(axis=(0, 1)),
        "exact_sd_se": mcse_sd(exact_values),
        "wasserstein": wasserstein(exact_values.reshape(-1, exact_values.shape[2]),
                                   vb_values),
        "wasserstein_se": (per_chain.std(axis=0, ddof=1) / np.sqrt(n_chains) if n_chains > 1
                           else np.full(len(frame), np.nan)),
        "interval_mass": inside.mean(axis=(0, 1)), "interval_mass_se": mcse_mean(inside),
    }, index=frame.index)
    with np.errstate(divide="ignore", invalid="ignore"):
        out.insert(6, "mean_error", (out["vb_mean"] - out["exact_mean"]) / out["exact_sd"])
        out.insert(7, "sd_ratio", out["vb_sd"] / out["exact_sd"])
    if "inclusion" in exact.draws:
        pip, pip_se = exact.inclusion_probabilities()
        n_features = pip.shape[0]
        for column, values in (("vb_pip", vb.inclusion_probabilities_), ("exact_pip", pip),
                               ("exact_pip_se", pip_se)):
            out[column] = np.concatenate([values, np.full(len(out) - n_features, np.nan)])
        largest_pip_error = float(np.max(np.abs(out["vb_pip"] - out["exact_pip"])))
    else:
        largest_pip_error = np.nan
    with quietly(RuntimeWarning):  # an exact sd of 0 (a constant draw) gives NaN here
        median_sd_ratio = float(np.nanmedian(out["sd_ratio"].replace([np.inf], np.nan)))
        largest_mean_error = float(np.nanmax(np.abs(out["mean_error"].replace(
            [np.inf, -np.inf], np.nan))))
    smallest_mass = float(out["interval_mass"].min())
    first = (f"largest PIP error {largest_pip_error:.3f}" if np.isfinite(largest_pip_error)
             else f"largest |mean error| {largest_mean_error:.2f} exact sds")
    out.attrs.update({
        "largest_pip_error": largest_pip_error, "largest_mean_error": largest_mean_error,
        "median_sd_ratio": median_sd_ratio, "smallest_interval_mass": smallest_mass,
        "summary": (f"{type(estimator).__name__} (alpha={float(estimator.alpha):g}) against "
                    f"its exact alpha-posterior ({exact.method}): {first}, median sd ratio "
                    f"{median_sd_ratio:.3f}, smallest exact mass of a {level:.0%} VB interval "
                    f"{smallest_mass:.3f}"),
    })
    return out


def wasserstein(a, b):
    """The 1-Wasserstein distance between the empirical distributions of each column of
    ``a`` and ``b`` (draws along axis 0): the mean absolute difference of their quantile
    functions at the midpoints of ``m = max(len(a), len(b))`` equal steps (exact when both
    sizes divide ``m``)."""
    m = max(len(a), len(b))
    levels = (np.arange(m) + 0.5) / m

    def quantiles(x):  # the inverted-cdf quantiles, from one sort of each column
        index = np.clip(np.ceil(levels * len(x)).astype(int) - 1, 0, len(x) - 1)
        return np.sort(x, axis=0)[index]

    return np.mean(np.abs(quantiles(a) - quantiles(b)), axis=0)


def _draw_rows(vb, draws):
    """Row labels and the (..., row) columns of the compared parameters of a model without
    ``summary_frame``, from draws with any leading axes (q's (draw,), the exact (chain,
    draw)): the model's own (``ExactSampler.rows``: a mixture's weights, means and
    covariances, LDA's topics), else its coefficients and intercept (a logistic model)."""
    from ..base import feature_labels

    if vb._exact_sampler.rows is not None:
        return _function(vb._exact_sampler, vb._exact_sampler.rows)(vb, draws)
    coef = np.asarray(draws["coef"])
    labels, columns = feature_labels(vb), list(np.moveaxis(coef, -1, 0))
    if getattr(vb, "fit_intercept", False):
        labels = [*labels, "intercept"]
        columns.append(np.asarray(draws["intercept"]))
    return labels, columns


def _summary_from_columns(labels, columns, level):
    """``summary_frame``'s columns (``coef``, ``sd``, ``lower``, ``upper``) from flat
    draws of ``q``, one per row label."""
    import pandas as pd

    values = np.stack(columns, axis=-1)
    tail = 0.5 - 0.5 * level
    return pd.DataFrame({"coef": values.mean(axis=0), "sd": values.std(axis=0),
                         "lower": np.quantile(values, tail, axis=0),
                         "upper": np.quantile(values, 1.0 - tail, axis=0)}, index=labels)


def _parameter_columns(exact_draws, vb_draws, index):
    """The (chain, draw) arrays of the exact draws and the flat arrays of q's draws, in the
    order of the rows of ``summary_frame`` (``index``): features, intercept (with one),
    covariates, ``sigma2`` (when learned)."""
    exact = list(np.moveaxis(exact_draws["coef"], 2, 0))
    vb = list(np.asarray(vb_draws["coef"]).T)
    if "intercept" in index:
        exact.append(exact_draws["intercept"])
        vb.append(np.asarray(vb_draws["intercept"]))
    if "covariate_coef" in exact_draws:
        exact.extend(np.moveaxis(exact_draws["covariate_coef"], 2, 0))
        vb.extend(np.asarray(vb_draws["covariate_coef"]).T)
    if "sigma2" in index:
        exact.append(exact_draws["noise_variance"])
        vb.append(np.asarray(vb_draws["noise_variance"]))
    return exact, vb
