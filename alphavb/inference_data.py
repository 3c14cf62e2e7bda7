"""Posterior draws as an ArviZ ``InferenceData`` (``pip install "alphavb[arviz]"``).

ArviZ summarises and plots posteriors (``az.summary``, ``az.plot_posterior``,
``az.plot_forest``). :func:`to_inference_data` draws from any fitted alphavb estimator's
variational posterior ``q`` through its public ``sample_posterior`` and labels every axis.
"""

import numpy as np

from ._validation import Integer, validate_params

NOTE = ("Independent draws from the variational posterior q (alpha-VB); the chains are "
        "independent sets of draws, so R-hat and ESS describe this sampling, not an MCMC run.")


def _dimensions(estimator, draws):
    """Dimension names (and coordinates) of each draw's axes after ``(chain, draw)``."""
    from .mixture import AlphaGaussianMixture
    from .topics import AlphaLDA

    names = getattr(estimator, "feature_names_in_", None)
    n_features = getattr(estimator, "n_features_in_", None)
    features = ([str(name) for name in names] if names is not None
                else [f"x{j}" for j in range(n_features)] if n_features else None)
    if isinstance(estimator, AlphaGaussianMixture):
        axes = ["component", "feature", "feature_bis"]
        dims = {name: axes[:values.ndim - 1] for name, values in draws.items()}
        coords = {"component": np.arange(estimator.n_components),
                  "feature": features, "feature_bis": features}
    elif isinstance(estimator, AlphaLDA):
        dims = {"topic_word": ["topic", "word"]}
        coords = {"topic": np.arange(estimator.n_components),
                  "word": [f"w{v}" for v in range(estimator.n_features_in_)]}
    else:  # regressions and the black-box models: per-feature or per-parameter vectors
        dims, coords = {}, {"feature": features}
        for name, values in draws.items():
            if values.ndim == 2:
                per_feature = features is not None and values.shape[1] == len(features)
                dims[name] = ["feature"] if per_feature else [f"{name}_parameter"]
    return dims, {key: value for key, value in coords.items() if value is not None}


@validate_params({"n_draws": [Integer(1, None)], "n_chains": [Integer(1, None)]})
def to_inference_data(estimator, n_draws=1000, *, n_chains=1, random_state=None, coords=None,
                      dims=None):
    """Draws from a fitted estimator's ``q`` as an ``arviz.InferenceData``.

    Parameters
    ----------
    estimator : fitted alphavb estimator
        Anything with ``sample_posterior(n_samples, random_state)``.
    n_draws : int, default=1000
        Draws per chain.
    n_chains : int, default=1
        Independent sets of draws (ArviZ's ``chain`` dimension).
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
        ``alpha`` in its attributes.

    Examples
    --------
    ``az.summary(to_inference_data(model), var_names=["coef"])``;
    ``az.plot_posterior(to_inference_data(model), var_names=["noise_variance"])``.
    """
    try:
        import arviz as az
    except ImportError as error:
        raise ImportError('to_inference_data needs ArviZ: pip install "alphavb[arviz]"') \
            from error
    n_draws, n_chains = int(n_draws), int(n_chains)
    draws = estimator.sample_posterior(n_chains * n_draws, random_state=random_state)
    posterior = {}
    for name, values in draws.items():
        values = np.asarray(values)
        if values.dtype == bool:
            values = values.astype(np.int8)
        posterior[name] = values.reshape(n_chains, n_draws, *values.shape[1:])
    default_dims, default_coords = _dimensions(estimator, draws)
    data = az.from_dict(posterior=posterior, dims={**default_dims, **(dims or {})},
                        coords={**default_coords, **(coords or {})})
    data.posterior.attrs.update({"estimator": type(estimator).__name__,
                                 "alpha": float(getattr(estimator, "alpha", np.nan)),
                                 "note": NOTE})
    return data
