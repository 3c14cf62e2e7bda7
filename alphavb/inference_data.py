"""Posterior draws as an ArviZ ``InferenceData`` (``pip install "alphavb[arviz]"``).

ArviZ summarises and plots posteriors (``az.summary``, ``az.plot_posterior``,
``az.plot_forest``) and compares models (``az.loo``, ``az.waic``). :func:`to_inference_data`
draws from any fitted alphavb estimator's variational posterior ``q`` through its public
``sample_posterior`` and labels every axis; given the data, it adds the pointwise
log-likelihood at each draw (:func:`alphavb.metrics.draws_log_likelihood`), the observed
data and, for regressions and classifiers, a posterior predictive draw per posterior draw.
"""

import numpy as np

from ._validation import Integer, bad_parameter, import_arviz, validate_params
from .base import feature_labels

__all__ = ["draw_dimensions", "to_inference_data"]

NOTE = ("Independent draws from the variational posterior q (alpha-VB); the chains are "
        "independent sets of draws, so R-hat and ESS describe this sampling, not an MCMC run.")


def draw_dimensions(estimator, draws):
    """Dimension names (and coordinates) of each draw's axes after ``(chain, draw)``: the
    model's own where it has them (``_draw_dimensions``: the mixture's components, LDA's
    topics and words), else one axis per feature or per parameter."""
    features = feature_labels(estimator) or None
    if hasattr(estimator, "_draw_dimensions"):
        dims, coords = estimator._draw_dimensions(draws, features)
    else:  # regressions and the black-box models: per-feature or per-parameter vectors
        dims, coords = {}, {"feature": features}
        for name, values in draws.items():
            if values.ndim == 2:
                per_feature = features is not None and values.shape[1] == len(features)
                dims[name] = ["feature"] if per_feature else [f"{name}_parameter"]
    return dims, {key: value for key, value in coords.items() if value is not None}


@validate_params({"n_draws": [Integer(1, None)], "n_chains": [Integer(1, None)]})
def to_inference_data(estimator, n_draws=1000, *, n_chains=4, X=None, y=None, covariates=None,
                      random_state=None, coords=None, dims=None):
    """Draws from a fitted estimator's ``q`` as an ``arviz.InferenceData``.

    Parameters
    ----------
    estimator : fitted alphavb estimator
        Anything with ``sample_posterior(n_samples, random_state)``.
    n_draws : int, default=1000
        Draws per chain.
    n_chains : int, default=4
        Independent sets of draws (ArviZ's ``chain`` dimension; several, so that ArviZ's
        R-hat and ESS, which need more than one chain, are defined: about 1 and the number
        of draws, as independent draws give).
    X : array-like of shape (n_samples, n_features), default=None
        Data (usually the training data) for the ``log_likelihood``, ``observed_data`` and
        ``posterior_predictive`` groups; regressions, binary classifiers with coefficients
        (including a linear BB-alpha model) and Gaussian mixtures (``X`` only, no
        posterior predictive).
    y : array-like of shape (n_samples,), default=None
        The responses or labels of the rows of ``X`` (classifiers: stored as the 0/1
        indicator of ``classes_[1]``).
    covariates : array-like of shape (n_samples, n_covariates), default=None
        The rows' covariates, for a model fitted with ``covariates=``.
    random_state : int, RandomState or None, default=None
    coords, dims : dict, default=None
        Added to (and overriding) the default labels: ``feature`` (``feature_names_in_`` or
        ``x0, x1, ...``), ``component`` and ``feature_bis`` for mixtures, ``topic`` and
        ``word`` for LDA (pass ``coords={"word": vocabulary}``), ``<name>_parameter`` for a
        network's or a generic model's parameter vector.

    Returns
    -------
    arviz.InferenceData
        A ``posterior`` group with one variable per key of ``sample_posterior`` (booleans,
        such as the spike-and-slab ``inclusion``, as 0/1), and the estimator's class and
        ``alpha`` (the networks': ``divergence_order``) in its attributes; with ``X``,
        ``log_likelihood`` (variable ``y``, or ``x`` for a mixture, dimension
        ``observation``), ``observed_data`` and ``posterior_predictive``.

    ``log_likelihood`` holds the untempered ``log p(y_i | theta_s)``, so ``az.loo`` and
    ``az.waic`` treat the draws as those of the posterior with the full likelihood; for
    ``alpha < 1`` that is not the alpha-posterior's leave-one-out (its importance weights
    would be ``p(y_i | theta)^(-alpha)``), and large Pareto k values say so (k > 1 for a
    linear model at alpha = 0.5 and n = 80, 0.6 at alpha = 1). To compare alphas, score
    held-out rows with :mod:`alphavb.metrics`.

    ArviZ's R-hat is undefined for a variable that is constant over all draws (a
    spike-and-slab ``inclusion`` indicator with PIP 1, the coefficient of a variable that no
    draw includes): ``az.summary`` reports NaN for it with a RuntimeWarning; select the
    others with ``var_names`` (e.g. ``["~inclusion"]``).

    Examples
    --------
    ``az.summary(to_inference_data(model), var_names=["coef"])``;
    ``az.loo(to_inference_data(model, X=X, y=y))``: PSIS-LOO with the draws of ``q`` (its
    Pareto k says how well ``q`` stands in for each leave-one-out posterior).
    """
    az = import_arviz('to_inference_data needs ArviZ: pip install "alphavb[arviz]"')
    from .base import fitted_model

    estimator = fitted_model(estimator)  # a fitted AlphaSelector: its best estimator
    if not callable(getattr(estimator, "sample_posterior", None)):
        raise bad_parameter("to_inference_data", "estimator", "a fitted alphavb estimator "
                            "(one with sample_posterior)", type(estimator).__name__,
                            fix="Its draws come from the variational posterior q, which only "
                                "alphavb's estimators have.")
    from sklearn.utils import check_random_state

    n_draws, n_chains = int(n_draws), int(n_chains)
    # one stream: the predictive draws continue it, independent of the posterior's
    rng = check_random_state(random_state)
    draws = estimator.sample_posterior(n_chains * n_draws, random_state=rng)
    posterior = {}
    for name, values in draws.items():
        values = np.asarray(values)
        if values.dtype == bool:
            values = values.astype(np.int8)
        posterior[name] = values.reshape(n_chains, n_draws, *values.shape[1:])
    default_dims, default_coords = draw_dimensions(estimator, draws)
    groups = {} if X is None else _data_groups(estimator, draws, X, y, covariates, n_chains,
                                               n_draws, rng)
    data = az.from_dict(posterior=posterior, **groups,
                        dims={**default_dims, **(dims or {}),
                              **{name: ["observation"] for name in ("y", "x")}},
                        coords={**default_coords, **(coords or {})})
    if hasattr(estimator, "divergence_order"):  # BB-alpha, AADM: the divergence's order
        tempering = {"divergence_order": float(estimator.divergence_order)}
    else:  # the alpha-VB models: the likelihood's temperature
        tempering = {"alpha": float(getattr(estimator, "alpha", np.nan))}
    data.posterior.attrs.update({"estimator": type(estimator).__name__, **tempering,
                                 "note": NOTE})
    return data


def _data_groups(estimator, draws, X, y, covariates, n_chains, n_draws, rng):
    """``log_likelihood``, ``observed_data`` and ``posterior_predictive`` at the draws
    (the predictive's noise from ``rng``, a RandomState)."""
    from .metrics import draws_log_likelihood, draws_predictive

    def by_chain(values):
        return values.reshape(n_chains, n_draws, *values.shape[1:])

    if estimator.__sklearn_tags__().estimator_type == "density_estimator":  # of X (mixture)
        return {"log_likelihood": {"x": by_chain(draws_log_likelihood(estimator, draws, X))}}
    log_likelihood = by_chain(draws_log_likelihood(estimator, draws, X, y, covariates))
    predictive = by_chain(draws_predictive(estimator, draws, X, covariates, rng))
    classes = getattr(estimator, "classes_", None)
    observed = (np.asarray(y, dtype=float) if classes is None
                else (np.asarray(y) == classes[1]).astype(np.int8))
    return {"log_likelihood": {"y": log_likelihood}, "observed_data": {"y": observed},
            "posterior_predictive": {"y": predictive}}
