"""The exact alpha-posterior of an :class:`~alphavb.AlphaSuSiE` model's effects, at the
fit's residual variance and prior variances: the collapsed Gibbs sampler of
:mod:`alphavb.linear_model._susie_exact` (the target and its algebra are there), with
coefficient draws from each sweep's conditional normal and the flat-prior intercept and
covariates given them."""

import numpy as np
from sklearn.base import clone

from .._approximation import without_checks
from .._validation import bad_parameter
from ._draws import ExactDraws
from ._spike_slab import flat_parameters


def sample_susie(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng, covariates=None,
                 sample_weight=None):
    """Draws of the exact alpha-posterior of an :class:`AlphaSuSiE`'s effects (module
    docstring); an :class:`~alphavb.exact._draws.ExactDraws` whose ``reference_fit`` is the
    fit whose variances the target holds."""
    from ..linear_model._susie_exact import capture_targets, run_chains, starting_positions

    model = clone(estimator)
    with without_checks(), capture_targets() as found:
        model.fit(X, y, covariates=covariates, sample_weight=sample_weight)
    if found[-1] is None:
        raise bad_parameter("sample_exact", "estimator", "an AlphaSuSiE without "
                            "unmappable_effects or residual_variance_method='nig'",
                            type(estimator).__name__, fix="The exact sampler holds the "
                            "fit's residual variance fixed and has no background; fit the "
                            "plain model for it.")
    target, probabilities, null_probabilities = found[-1]
    p = target.n_features
    if len(target.variances):
        starts = starting_positions(probabilities, null_probabilities, n_chains, rng)
        try:
            chains = run_chains(target, starts, n_draws * thin, n_tune, rng, draw_coef=True)
        except FloatingPointError as error:
            raise ValueError(f"sample_exact: {error}; drop the duplicate columns or bound "
                             "the residual variance away from 0 "
                             "(residual_variance_bounds).") from None
        positions = chains.positions[:, ::thin]
        coef = chains.coef[:, ::thin] / model.column_scale_
        log_posterior = chains.log_posterior[:, ::thin]
        rao_blackwell = chains.inclusion_probabilities[:, None, :]
    else:  # no effect kept: every coefficient is 0
        positions = np.zeros((n_chains, n_draws, 0), dtype=np.int64)
        coef = np.zeros((n_chains, n_draws, p))
        log_posterior = np.zeros((n_chains, n_draws))
        rao_blackwell = np.zeros((n_chains, 1, p))
    inclusion = np.zeros(coef.shape, dtype=np.int8)
    chain_index, draw_index = np.indices(positions.shape[:2])
    for effect in range(positions.shape[2]):
        held = positions[:, :, effect] < p
        inclusion[chain_index[held], draw_index[held], positions[:, :, effect][held]] = 1
    noise = np.full(coef.shape[:2], float(model.noise_variance_))
    draws = {"coef": coef, "inclusion": inclusion,
             **flat_parameters(model, model._centring, coef, noise, rng),
             "noise_variance": noise}
    return ExactDraws(model, draws, method="collapsed Gibbs over the single effects",
                      stats={"log_posterior": log_posterior,
                             "model_size": inclusion.sum(axis=2)},
                      rao_blackwell_pip=rao_blackwell,
                      info={"n_tune": n_tune, "thin": thin}, reference_fit=model)
