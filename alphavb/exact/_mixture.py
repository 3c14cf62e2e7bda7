"""Exact alpha-posterior of :class:`~alphavb.AlphaGaussianMixture`'s model, by NUTS.

The target is the posterior of the parameters with the allocations summed out, the one
alpha-VB approximates (Yang, Pati & Bhattacharya 2020, eq. 2.6 maximised over ``q(S)`` for
fixed parameters gives the marginal likelihood)::

    p(pi) prod_k p(mu_k, Lambda_k) prod_i [sum_k pi_k N(x_i | mu_k, Lambda_k^{-1})
                                           exp(-r tr(Lambda_k) / 2)]^(alpha w_i)

with the estimator's priors (module docstring of :mod:`alphavb.mixture._gaussian_mixture`),
sample weights ``w_i`` and ``reg_covar = r``; for ``objective="fractional"`` the factor of
row ``i`` is ``sum_k [pi_k N(...) ...]^alpha`` instead (eq. 2 maximised over ``q(S)``).
Choices, as the fit makes them:

* ``"dirichlet_process"``: ``pi_k = v_k prod_{j<k} (1 - v_j)`` from ``K`` sticks ``v_k ~
  Beta(1, w0)``, the rows restricted to the first ``K`` components as the fit's ``q(S)`` is
  (so ``sum_k pi_k < 1``); the reported ``weights`` are renormalised over the ``K``, as
  ``weights_`` is;
* ``"tied"``: the ``"full"`` model, ``K`` precision matrices with the Wishart prior: the
  tied fit approximates that model with one shared factor (its module docstring);
* the data-dependent priors ``m0`` and ``Psi0`` are the fit's (``mean_prior_``,
  ``covariance_prior_``).

NUTS runs on the data standardized column by column (:class:`_Units`: the priors mapped to
those units exactly, the draws mapped back), so that data in any units sample alike. The
chains start from draws of the fitted ``q``; each draw's components are then matched to the
fitted components by their standardized means (label switching).
"""

from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from .._special import LOG_2PI
from .._validation import is_dask_collection
from ..base import feature_labels
from ..mixture._families import (
    DiagFamily,
    FixedFamily,
    FullFamily,
    SphericalFamily,
    TiedFamily,
    family_class,
)
from ..mixture._weights import (
    DirichletWeights,
    KnownWeights,
    StickBreakingWeights,
    stick_breaking_weights,
    weight_prior_class,
)
from ._draws import ExactDraws
from ._nuts import (
    check_size,
    match_components,
    not_in_memory,
    numpyro_modules,
    relabel,
    run_nuts,
)


class _KnownWeightSites:
    """Known weights (``fixed_weights``): no sample site; not a compared parameter."""

    is_parameter = False

    @staticmethod
    def log_weights(model):
        """``log pi`` inside the NumPyro model (and the sample site, where ``pi`` has one)."""
        import jax.numpy as jnp

        return jnp.log(jnp.asarray(model.fixed_weights_))

    @staticmethod
    def start(model, draws, chain, rng):
        """The site's start for ``chain`` from a draw of ``q`` (constrained values)."""
        return {}

    @staticmethod
    def weights(model, samples, shape):
        """The draws of ``pi`` (chain, draw, K) from the sites' samples."""
        return np.broadcast_to(model.fixed_weights_, shape).copy()


class _DirichletWeightSites(_KnownWeightSites):
    """``pi ~ Dirichlet(w0 1_K)``: the site ``weights``."""

    is_parameter = True

    @staticmethod
    def log_weights(model):
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        concentration = jnp.full(model.n_components, model.weight_concentration_prior_)
        return jnp.log(numpyro.sample("weights", dist.Dirichlet(concentration)))

    @staticmethod
    def start(model, draws, chain, rng):
        return {"weights": np.clip(draws["weights"][chain], 1e-12, None)}

    @staticmethod
    def weights(model, samples, shape):
        return samples["weights"]


class _StickBreakingSites(_KnownWeightSites):
    """The Dirichlet process's ``K`` sticks ``v_k ~ Beta(1, w0)``: the site ``sticks``,
    ``pi_k = v_k prod_{j<k}(1 - v_j)`` (renormalised over the ``K`` in the draws)."""

    is_parameter = True

    @staticmethod
    def log_weights(model):
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_components = model.n_components
        sticks = numpyro.sample("sticks", dist.Beta(
            jnp.ones(n_components), jnp.full(n_components, model.weight_concentration_prior_)))
        rest = jnp.cumsum(jnp.log1p(-sticks))
        return jnp.log(sticks) + jnp.concatenate((jnp.zeros(1), rest[:-1]))

    @staticmethod
    def start(model, draws, chain, rng):
        """A draw of ``q(v)`` itself (``q``'s draws of ``pi`` are renormalised)."""
        return {"sticks": np.clip(rng.beta(*model.weight_concentration_), 1e-12,
                                  1.0 - 1e-12)}

    @staticmethod
    def weights(model, samples, shape):
        return stick_breaking_weights(samples["sticks"])


# the sampler's sites of each weight prior (a table, as SITES below for the covariances)
WEIGHT_SITES = {KnownWeights: _KnownWeightSites(), DirichletWeights: _DirichletWeightSites(),
                StickBreakingWeights: _StickBreakingSites()}


def _weight_sites(estimator):
    """The sampler's sites of ``estimator``'s weight prior (from its parameters, so an
    unfitted estimator has them too)."""
    return WEIGHT_SITES[weight_prior_class(estimator.weight_concentration_prior_type,
                                           estimator.fixed_weights)]


class _Units(NamedTuple):
    """The units NUTS samples in, ``z = (x - centre) / scale``, and the priors there.

    In the data's own units (dollars beside years) the precisions' scales differ by orders of
    magnitude and NUTS's trees reach their 1,023-step limit; an affine change of the data
    maps each conjugate prior to one of the same family: ``m0 -> (m0 - centre) / scale``,
    ``Psi0 -> D^{-1} Psi0 D^{-1}`` (``D = diag(scale)``; ``psi0 / scale^2`` for the Gamma
    families), ``b0`` and ``nu0`` unchanged, ``r tr(Lambda)`` -> ``sum_j (r / scale_j^2)
    (Lambda_z)_jj``, the known covariance ``D^{-1} Sigma D^{-1}``. The likelihood changes by
    the constant Jacobian ``|D|`` only. ``"spherical"`` keeps ``Lambda = lambda I`` with one
    common scale."""

    centre: np.ndarray
    scale: np.ndarray
    mean_prior: np.ndarray
    covariance_prior: object
    reg_covar: np.ndarray
    fixed_covariance: np.ndarray | None


def _units(model, X):
    """:class:`_Units` of the fitted ``model`` on its data ``X``."""
    sites = _sites(model)
    centre = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = sites.common_scale(np.where(scale > 0.0, scale, 1.0))
    covariance_prior, fixed_covariance = sites.priors_in_units(model, scale)
    return _Units(centre, scale, (model.mean_prior_ - centre) / scale, covariance_prior,
                  model.reg_covar / scale**2, fixed_covariance)


class _KnownCovarianceSites:
    """``"fixed"``: the means are the only sites; ``Sigma`` is known."""

    @staticmethod
    def common_scale(scale):
        return scale

    @staticmethod
    def priors_in_units(model, scale):
        """``(Psi0, Sigma)`` in the sampler's units (``D^{-1} Sigma D^{-1}``)."""
        return None, model.fixed_covariance_ / np.outer(scale, scale)

    @staticmethod
    def n_per_component(n_features):
        return n_features

    def log_density(self, model, units, Z):
        """The component sites and ``log N(z_i | mu_k, Sigma_z)``, (n, K), inside NumPyro:
        ``mu_k ~ N(m0, I / b0)`` in x is sd ``1 / (sqrt(b0) scale)`` in z."""
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_components, n_features = model.means_.shape
        m0, b0 = jnp.asarray(units.mean_prior), model.mean_precision_prior_
        means = numpyro.sample("means", dist.Normal(m0, 1.0 / (np.sqrt(b0) * units.scale))
                               .expand([n_components, n_features]).to_event(2))
        precision_chol = np.linalg.cholesky(np.linalg.inv(units.fixed_covariance))
        diff = Z[:, None, :] - means[None]
        maha = jnp.sum((diff @ precision_chol) ** 2, axis=-1)
        log_det = np.linalg.slogdet(units.fixed_covariance)[1]
        return -0.5 * (n_features * LOG_2PI + log_det + maha)

    @staticmethod
    def start(draws, c, scale):
        """The precision sites' start from draw ``c`` of ``q`` (none here)."""
        return {}

    @staticmethod
    def precisions(model, units, samples, shape):
        """``(precisions, covariances)`` of the draws in the data's units."""
        covariances = np.broadcast_to(model.fixed_covariance_,
                                      shape + model.fixed_covariance_.shape).copy()
        return np.linalg.inv(covariances), covariances

    @staticmethod
    def covariance_rows(k, features, covariances):
        """``(label, values)`` of component ``k``'s compared covariances (none: known)."""
        return []


class _WishartSites(_KnownCovarianceSites):
    """``"full"`` and ``"tied"``: a Wishart precision per component (module docstring)."""

    @staticmethod
    def priors_in_units(model, scale):
        return model.covariance_prior_ / np.outer(scale, scale), None

    @staticmethod
    def n_per_component(n_features):
        return n_features + n_features * (n_features + 1) // 2

    def log_density(self, model, units, Z):
        """``log N(z_i | mu_k, Lambda_k^{-1}) - sum_j r_j (Lambda_k)_jj / 2``, (n, K)."""
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_components, n_features = model.means_.shape
        m0, b0, r = jnp.asarray(units.mean_prior), model.mean_precision_prior_, units.reg_covar
        nu0, psi0 = model.degrees_of_freedom_prior_, units.covariance_prior
        chol = numpyro.sample("precision_cholesky", dist.WishartCholesky(
            nu0, scale_matrix=jnp.asarray(np.linalg.inv(psi0))).expand([n_components]))
        precision = chol @ jnp.swapaxes(chol, -1, -2)
        means = numpyro.sample("means", dist.MultivariateNormal(
            m0, precision_matrix=b0 * precision))
        diff = Z[:, None, :] - means[None]
        maha = jnp.sum(jnp.einsum("nkp,kpq->nkq", diff, chol) ** 2, axis=-1)
        log_det = 2.0 * jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
        penalty = jnp.sum(r * jnp.sum(chol**2, axis=-1), axis=-1)  # sum_j r_j Lambda_jj
        return -0.5 * (n_features * LOG_2PI - log_det + maha + penalty)

    @staticmethod
    def start(draws, c, scale):
        return {"precision_cholesky": np.linalg.cholesky(
            draws["precisions"][c] * np.outer(scale, scale))}

    @staticmethod
    def precisions(model, units, samples, shape):
        chol = samples["precision_cholesky"]
        scale = units.scale
        precisions = chol @ np.swapaxes(chol, -1, -2) / np.outer(scale, scale)
        return precisions, np.linalg.inv(precisions)

    @staticmethod
    def covariance_rows(k, features, covariances):
        return [(f"covariances[{k}, {features[i]}, {features[j]}]", covariances[..., k, i, j])
                for i, j in zip(*np.triu_indices(len(features)), strict=True)]


class _GammaSites(_WishartSites):
    """``"diag"``: a Gamma precision per component and feature."""

    @classmethod
    def priors_in_units(cls, model, scale):
        return model.covariance_prior_ / cls.gamma_scale(scale), None

    @staticmethod
    def gamma_scale(scale):
        """What the precisions are multiplied by in the sampler's units: ``scale_j^2``."""
        return scale**2

    @staticmethod
    def n_per_component(n_features):
        return 2 * n_features

    def _precision_sites(self, model, units):
        """The precision sites, and each component's precision per feature, (K, p)."""
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_components, n_features = model.means_.shape
        nu0, psi0 = model.degrees_of_freedom_prior_, units.covariance_prior
        precision = numpyro.sample("precisions", dist.Gamma(
            0.5 * nu0, 0.5 * jnp.asarray(psi0)).expand([n_components, n_features]).to_event(2))
        return precision

    def log_density(self, model, units, Z):
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_features = model.means_.shape[1]
        m0, b0, r = jnp.asarray(units.mean_prior), model.mean_precision_prior_, units.reg_covar
        spread = self._precision_sites(model, units)
        means = numpyro.sample("means", dist.Normal(m0, 1.0 / jnp.sqrt(b0 * spread)).to_event(2))
        diff = Z[:, None, :] - means[None]
        return -0.5 * (n_features * LOG_2PI - jnp.sum(jnp.log(spread), axis=-1)
                       + jnp.sum(spread * diff**2, axis=-1) + jnp.sum(r * spread, axis=-1))

    @classmethod
    def start(cls, draws, c, scale):
        return {"precisions": draws["precisions"][c] * cls.gamma_scale(scale)}

    @classmethod
    def precisions(cls, model, units, samples, shape):
        precisions = samples["precisions"] / cls.gamma_scale(units.scale)
        return precisions, 1.0 / precisions

    @staticmethod
    def covariance_rows(k, features, covariances):
        return [(f"covariances[{k}, {feature}]", covariances[..., k, j])
                for j, feature in enumerate(features)]


class _SphericalGammaSites(_GammaSites):
    """``"spherical"``: one Gamma precision per component, ``lambda_k ~ Gamma(p nu0 / 2,
    rate p psi0 / 2)``; the data share one scale (their root mean square sd)."""

    @staticmethod
    def common_scale(scale):
        return np.full_like(scale, np.sqrt(np.mean(scale**2)))

    @staticmethod
    def gamma_scale(scale):
        return scale[0] ** 2

    @staticmethod
    def n_per_component(n_features):
        return n_features + 1

    def _precision_sites(self, model, units):
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist

        n_components, n_features = model.means_.shape
        nu0, psi0 = model.degrees_of_freedom_prior_, units.covariance_prior
        precision = numpyro.sample("precisions", dist.Gamma(
            0.5 * n_features * nu0, 0.5 * n_features * psi0).expand([n_components])
            .to_event(1))
        return precision[:, None] * jnp.ones(n_features)

    @staticmethod
    def covariance_rows(k, features, covariances):
        return [(f"covariances[{k}]", covariances[..., k])]


# the sampler's sites of each covariance family (a table, as mixture._families.FAMILIES)
SITES = {FullFamily: _WishartSites(), TiedFamily: _WishartSites(), DiagFamily: _GammaSites(),
         SphericalFamily: _SphericalGammaSites(), FixedFamily: _KnownCovarianceSites()}


def _sites(model):
    """The sampler's sites of ``model``'s covariance family."""
    return SITES[family_class(model.covariance_type)]


def _mixture_model(model, units):
    """The NumPyro model of the tempered mixture (module docstring) with ``model``'s priors,
    on the data in the sampler's units."""
    import jax.numpy as jnp
    import numpyro
    from jax.scipy.special import logsumexp

    alpha = float(model.alpha)
    fractional = model.objective == "fractional"

    def mixture(Z, weight):
        joint = (_weight_sites(model).log_weights(model)
                 + _sites(model).log_density(model, units, Z))
        per_row = (logsumexp(alpha * joint, axis=1) if fractional
                   else alpha * logsumexp(joint, axis=1))
        numpyro.factor("tempered_likelihood", jnp.sum(weight * per_row))

    return mixture


def _starts(model, units, n_chains, rng):
    """One draw of the fitted ``q`` per chain, as the NumPyro sites' (constrained) values in
    the sampler's units (``Lambda_z = D Lambda D``)."""
    draws = model.sample_posterior(n_chains, random_state=rng)
    sites, weight_sites = _sites(model), _weight_sites(model)
    scale = units.scale
    starts = [{"means": (draws["means"][c] - units.centre) / scale} for c in range(n_chains)]
    for c, start in enumerate(starts):
        start.update(weight_sites.start(model, draws, c, rng))
        start.update(sites.start(draws, c, scale))
    return starts


def _n_parameters(estimator, n_features):
    """The free parameters of the mixture on ``n_features`` features."""
    per_component = _sites(estimator).n_per_component(n_features)
    n_weights = estimator.n_components if _weight_sites(estimator).is_parameter else 0
    return estimator.n_components * per_component + n_weights


def _parameters(model, units, samples):
    """The draws under ``sample_posterior``'s names and shapes, (chain, draw, ...), back in
    the data's units."""
    scale = units.scale
    means = units.centre + scale * samples["means"]
    shape = means.shape[:3]
    weights = _weight_sites(model).weights(model, samples, shape)
    precisions, covariances = _sites(model).precisions(model, units, samples, shape)
    return {"weights": weights, "means": means, "precisions": precisions,
            "covariances": covariances}


def sample_mixture(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng,
                   sample_weight=None):
    """NUTS draws of the mixture's exact alpha-posterior (module docstring); an
    ``ExactDraws`` whose ``reference_fit`` is the fit its components were matched to."""
    numpyro_modules()
    if is_dask_collection(X):
        raise not_in_memory("an in-memory array for the mixture's exact sampler", X)
    check_size("mixture", _n_parameters(estimator, np.shape(X)[1] if np.ndim(X) == 2 else 0),
               "Use fewer components or features.")
    model = clone(estimator).fit(X, sample_weight=sample_weight)
    data = model._validate_input(X, sample_weight, reset=False)
    units = _units(model, data.X)
    samples, stats = run_nuts(_mixture_model(model, units),
                              _starts(model, units, n_chains, rng), n_draws=n_draws,
                              n_tune=n_tune, thin=thin, rng=rng,
                              Z=(data.X - units.centre) / units.scale, weight=data.weight)
    order = match_components(samples["means"], (model.means_ - units.centre) / units.scale)
    draws = _parameters(model, units, samples)
    draws = {name: relabel(values, order) for name, values in draws.items()}
    return ExactDraws(
        model, draws, method="NUTS (NumPyro), allocations summed out, components matched "
        "to the fit", stats=stats, reference_fit=model,
        info={"n_tune": n_tune, "thin": thin,
              "n_relabelled": int(np.sum(np.any(order != np.arange(order.shape[-1]),
                                                axis=-1)))})


def mixture_rows(model, draws):
    """Row labels and flat (..., row) values of the mixture's compared parameters: the
    learned weights, the means and the learned covariances (a full matrix's upper
    triangle)."""
    features = feature_labels(model)
    labels, columns = [], []
    if _weight_sites(model).is_parameter and model.n_components > 1:  # else not one
        for k in range(model.n_components):
            labels.append(f"weights[{k}]")
            columns.append(draws["weights"][..., k])
    for k in range(model.n_components):
        for j, feature in enumerate(features):
            labels.append(f"means[{k}, {feature}]")
            columns.append(draws["means"][..., k, j])
    covariances = np.asarray(draws["covariances"])
    for k in range(model.n_components):
        for label, values in _sites(model).covariance_rows(k, features, covariances):
            labels.append(label)
            columns.append(values)
    return labels, columns
