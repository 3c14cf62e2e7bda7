"""The fit-time check of :class:`~alphavb.AlphaGaussianMixture`: Pareto-smoothed importance
sampling of the fitted ``q`` against the mixture's exact alpha-posterior.

The target is the one :mod:`alphavb.exact._mixture` samples by NUTS, the parameters'
posterior with the allocations summed out (Yang, Pati & Bhattacharya 2020, eq. 2.6)::

    p(pi) prod_k p(mu_k, Lambda_k) prod_i [sum_k pi_k N(x_i | mu_k, Lambda_k^{-1})
                                           exp(-r tr(Lambda_k) / 2)]^(alpha w_i)

(``objective="fractional"``: ``sum_k [...]^alpha`` per row), here in the data's own units,
the densities of ``q`` and of the prior taken over the same parameters (the weights, the
means and the precisions: a Wishart matrix, a Gamma per feature or per component), so the
importance weights ``p / q`` need no Jacobian. Draws of ``q`` sit in one labelling of the
components, a copy of the target's mode there: the self-normalised weights measure ``q``
against that copy (Yao, Vehtari, Simpson & Gelman 2018, Sec. 2).

The Dirichlet process's weights are drawn as ``q``'s sticks, whose Beta densities enter the
weights (the likelihood reads ``v_k prod_{j<k} (1 - v_j)``, the reported weights are
renormalised over the ``K`` components, as the exact sampler's). The tied family, whose ``q``
shares one precision factor while the target gives each component its own, has no check.
"""

import time

import numpy as np
from scipy.special import gammaln, logsumexp, multigammaln

from .._approximation import CHECK_LEVEL, importance_check
from .._special import LOG_2PI, log_dirichlet_density, log_dirichlet_draws
from ..base import feature_labels
from ._families import DiagFamily, FixedFamily, FullFamily, SphericalFamily, family_class

# draws of q per check; the entries of a chunk of draws x rows x features at once
CHECK_DRAWS = 1000
CHUNK_ENTRIES = 4_000_000
MIXTURE_CAUSE = ("the usual cause: overlapping components, whose allocations a mean-field "
                 "q(S) q(theta) treats as known, with too narrow intervals")


class _KnownCovarianceDensities:
    """``"fixed"``: ``q(mu_k) = N(means_k, mean_covariances_k)``, ``p(mu_k) = N(m0, I /
    b0)``; the covariance is known (no penalty, no variance checked)."""

    def log_q_and_prior(self, model, draws):
        """``(log q, log p)`` of the components' parameters, summed over components."""
        p = model.means_.shape[1]
        log_q, log_p = np.zeros(len(draws["means"])), np.zeros(len(draws["means"]))
        for k in range(model.n_components):
            log_q += _log_normal(draws["means"][:, k], model.means_[k],
                                 model.mean_covariances_[k])
            log_p += _log_normal(draws["means"][:, k], model.mean_prior_,
                                 np.eye(p) / model.mean_precision_prior_)
        return log_q, log_p

    def log_component(self, diff, precisions, r):
        """``log N(x_i | mu_k, Lambda_k^{-1}) - r tr(Lambda_k) / 2`` of a chunk of draws:
        ``diff`` (draws, n, p), ``precisions`` the draws' (draws, p, p)."""
        chol = np.linalg.cholesky(precisions)
        maha = np.sum(np.einsum("snp,spq->snq", diff, chol) ** 2, axis=-1)
        log_det = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
        return (-0.5 * (diff.shape[-1] * LOG_2PI - log_det + self._penalty(precisions, r)))[
            :, None] - 0.5 * maha

    @staticmethod
    def _penalty(precisions, r):
        return np.zeros(len(precisions))

    @staticmethod
    def variance_columns(covariances, n_components, features):
        """The checked variances (draws, columns) and their names."""
        return np.zeros((len(covariances), 0)), []


class _WishartDensities(_KnownCovarianceDensities):
    """``"full"``: ``Lambda_k ~ Wishart(nu, (Psi)^{-1})``, ``mu_k | Lambda_k ~ N(m, (b
    Lambda_k)^{-1})`` (``q``: ``nu_k``, ``Psi = covariances_k nu_k``, ``m_k``, ``b_k``; the
    prior: ``nu0``, ``Psi0``, ``m0``, ``b0``)."""

    def log_q_and_prior(self, model, draws):
        means, precisions = draws["means"], draws["precisions"]
        log_q, log_p = np.zeros(len(means)), np.zeros(len(means))
        p = means.shape[-1]
        for k in range(model.n_components):
            nu = model.degrees_of_freedom_[k]
            log_q += (self._log_precision(precisions[:, k], nu, model.covariances_[k] * nu, p)
                      + self._log_mean(means[:, k], model.means_[k], precisions[:, k],
                                       model.mean_precision_[k]))
            log_p += (self._log_precision(precisions[:, k], model.degrees_of_freedom_prior_,
                                          model.covariance_prior_, p)
                      + self._log_mean(means[:, k], model.mean_prior_, precisions[:, k],
                                       model.mean_precision_prior_))
        return log_q, log_p

    @staticmethod
    def _log_precision(precisions, dof, psi, p):
        """``log Wishart(Lambda | dof, psi^{-1})`` per draw (``p`` features)."""
        return (0.5 * (dof - p - 1.0) * np.linalg.slogdet(precisions)[1]
                - 0.5 * np.einsum("ij,...ji->...", psi, precisions)
                - 0.5 * dof * p * np.log(2.0) + 0.5 * dof * np.linalg.slogdet(psi)[1]
                - multigammaln(0.5 * dof, p))

    @staticmethod
    def _log_mean(means, centre, precisions, b):
        diff = means - centre
        p = means.shape[-1]
        return 0.5 * (p * np.log(b) + np.linalg.slogdet(precisions)[1] - p * LOG_2PI
                      - b * np.einsum("si,sij,sj->s", diff, precisions, diff))

    @staticmethod
    def _penalty(precisions, r):
        return r * np.trace(precisions, axis1=-2, axis2=-1)

    @staticmethod
    def variance_columns(covariances, n_components, features):
        values = np.diagonal(covariances, axis1=-2, axis2=-1).reshape(len(covariances), -1)
        return values, [f"covariances[{k}, {f}, {f}]" for k in range(n_components)
                        for f in features]


class _GammaDensities(_WishartDensities):
    """``"diag"``: ``lambda_kj ~ Gamma(nu / 2, rate psi_j / 2)``, ``mu_kj | lambda_kj ~
    N(m_j, 1 / (b lambda_kj))``."""

    @staticmethod
    def _gamma_dimension(n_features):
        """The Gamma's shape and rate are ``dim nu / 2`` and ``dim psi / 2``."""
        return 1

    def _spread(self, precisions, n_features):
        """The draws' precision per feature, (draws, p)."""
        return precisions

    def _log_precision(self, precisions, dof, psi, p):
        dim = self._gamma_dimension(p)
        shape, rate = 0.5 * dim * dof, 0.5 * dim * psi
        terms = (shape * np.log(rate) - gammaln(shape) + (shape - 1.0) * np.log(precisions)
                 - rate * precisions)
        return terms.reshape(len(precisions), -1).sum(axis=1)

    def _log_mean(self, means, centre, precisions, b):
        spread = self._spread(precisions, means.shape[-1])
        return 0.5 * np.sum(np.log(b * spread) - LOG_2PI - b * spread * (means - centre) ** 2,
                            axis=-1)

    def log_component(self, diff, precisions, r):
        spread = self._spread(precisions, diff.shape[-1])
        maha = np.einsum("snp,sp->sn", diff**2, spread)
        log_det = np.sum(np.log(spread), axis=-1)
        return (-0.5 * (diff.shape[-1] * LOG_2PI - log_det + r * spread.sum(axis=-1)))[
            :, None] - 0.5 * maha

    @staticmethod
    def variance_columns(covariances, n_components, features):
        return covariances.reshape(len(covariances), -1), [
            f"covariances[{k}, {f}]" for k in range(n_components) for f in features]


class _SphericalDensities(_GammaDensities):
    """``"spherical"``: ``lambda_k ~ Gamma(p nu / 2, rate p psi / 2)``, ``mu_k | lambda_k ~
    N(m, I / (b lambda_k))``."""

    @staticmethod
    def _gamma_dimension(n_features):
        return n_features

    def _spread(self, precisions, n_features):
        return precisions[..., None] * np.ones(n_features)

    @staticmethod
    def variance_columns(covariances, n_components, features):
        return covariances, [f"covariances[{k}]" for k in range(n_components)]


# the check's densities of each covariance family (a table, as the exact sampler's SITES);
# the tied family has none (module docstring)
DENSITIES = {FullFamily: _WishartDensities(), DiagFamily: _GammaDensities(),
             SphericalFamily: _SphericalDensities(), FixedFamily: _KnownCovarianceDensities()}


def _densities(model):
    """The check's densities of ``model``'s covariance family, or None."""
    return DENSITIES.get(family_class(model.covariance_type))


def _log_normal(values, centre, covariance):
    """``log N(values | centre, covariance)`` per draw."""
    chol = np.linalg.cholesky(covariance)
    solved = np.linalg.solve(chol, (values - centre).T)
    return (-0.5 * (len(centre) * LOG_2PI + np.sum(solved**2, axis=0))
            - np.sum(np.log(np.diag(chol))))


def _weight_draws(model, n_draws, rng):
    """Draws of ``q(pi)``: the weights as reported (the Dirichlet process's renormalised over
    the ``K`` components), ``log pi`` as the likelihood reads it (the sticks' own ``v_k
    prod_{j<k} (1 - v_j)``, as the exact sampler's), and ``log q`` and ``log p`` of the
    weights' parameters (the sticks for the Dirichlet process), per draw."""
    K = model.n_components
    zeros = np.zeros(n_draws)
    if model.fixed_weights is not None:
        weights = np.broadcast_to(model.weights_, (n_draws, K)).copy()
        return weights, np.log(weights), zeros, zeros  # (fixed weights are positive)
    if model.weight_concentration_prior_type == "dirichlet_distribution":
        log_pi = log_dirichlet_draws(model.weight_concentration_, n_draws, rng)
        prior = np.full(K, model.weight_concentration_prior_)
        return (np.exp(log_pi), log_pi, log_dirichlet_density(log_pi, model.weight_concentration_),
                log_dirichlet_density(log_pi, prior))
    a, b = model.weight_concentration_
    sticks = np.clip(rng.beta(a, b, size=(n_draws, K)), 1e-300, 1.0 - 1e-16)
    rest = np.cumsum(np.log1p(-sticks), axis=1)
    log_pi = np.log(sticks) + np.concatenate([np.zeros((n_draws, 1)), rest[:, :-1]], axis=1)

    def log_beta(shape_a, shape_b):
        return np.sum((shape_a - 1.0) * np.log(sticks) + (shape_b - 1.0) * np.log1p(-sticks)
                      + gammaln(shape_a + shape_b) - gammaln(shape_a) - gammaln(shape_b),
                      axis=1)

    weights = np.exp(log_pi - logsumexp(log_pi, axis=1, keepdims=True))
    return (weights, log_pi, log_beta(a, b),
            log_beta(np.ones(K), np.full(K, model.weight_concentration_prior_)))


def _log_likelihood(model, densities, draws, log_weights, X, weight):
    """The tempered log likelihood of each draw (module docstring), in chunks of draws."""
    means, precisions = draws["means"], draws["precisions"]
    n_draws, K, _ = means.shape
    r, alpha = float(model.reg_covar), float(model.alpha)
    out = np.zeros(n_draws)
    chunk = max(1, int(CHUNK_ENTRIES // max(X.size, 1)))
    for start in range(0, n_draws, chunk):
        at = slice(start, start + chunk)
        joint = np.empty((len(out[at]), X.shape[0], K))
        for k in range(K):
            diff = X[None, :, :] - means[at, k][:, None, :]          # (chunk, n, p)
            joint[:, :, k] = log_weights[at, k, None] + densities.log_component(
                diff, precisions[at, k], r)
        per_row = (logsumexp(alpha * joint, axis=2) if model.objective == "fractional"
                   else alpha * logsumexp(joint, axis=2))
        out[at] = per_row @ weight
    return out


def _flat(model, densities, draws):
    """The checked parameters per draw (draws, parameters) and their names: the learned
    weights, the means, the variances."""
    K = model.n_components
    features = feature_labels(model)
    columns, names = [], []
    if model.fixed_weights is None and K > 1:
        columns.append(draws["weights"])
        names += [f"weights[{k}]" for k in range(K)]
    columns.append(draws["means"].reshape(len(draws["means"]), -1))
    names += [f"means[{k}, {feature}]" for k in range(K) for feature in features]
    variances, variance_names = densities.variance_columns(draws["covariances"], K, features)
    return np.column_stack([*columns, variances]), names + variance_names


def check_cost_share(model):
    """The check's predicted work over the fit's: it evaluates the likelihood at
    ``CHECK_DRAWS`` draws where the fit passed over the rows once per sweep of each of its
    ``n_init`` starts."""
    return CHECK_DRAWS / max(int(model.n_init) * int(model.n_iter_), 1)


def has_check(model):
    """Whether the fitted ``model``'s setting has the check (module docstring)."""
    return _densities(model) is not None


def importance_draws(model, X, weight, rng):
    """``CHECK_DRAWS`` draws of ``q``: the checked parameters (draws, parameters), their
    names and the log importance weights ``log p - log q`` (up to a constant)."""
    densities = _densities(model)
    draws = model.sample_posterior(CHECK_DRAWS, random_state=rng)
    draws["weights"], log_pi, log_q, log_p = _weight_draws(model, CHECK_DRAWS, rng)
    component_q, component_p = densities.log_q_and_prior(model, draws)
    with np.errstate(invalid="ignore"):  # -inf - -inf: a draw outside both supports
        log_weights = (log_p + component_p - log_q - component_q
                       + _log_likelihood(model, densities, draws, log_pi, X, weight))
    values, names = _flat(model, densities, draws)
    return values, names, log_weights


def mixture_check(model, X, weight, rng):
    """The :class:`~alphavb._approximation.ApproximationCheck` of a fitted mixture on the
    rows ``X`` it was fitted to (``weight`` their sample weights), or None where the setting
    has no check: :func:`importance_draws` weighted by ``p / q``, the mass of each checked
    parameter's equal-tailed 95% interval of ``q`` and the PSIS k-hat."""
    if not has_check(model) or not isinstance(X, np.ndarray):  # (dask blocks: no check)
        return None
    started = time.perf_counter()
    values, names, log_weights = importance_draws(model, X, weight, rng)
    tail = 0.5 - 0.5 * CHECK_LEVEL
    lower, upper = np.quantile(values, [tail, 1.0 - tail], axis=0)
    return importance_check(values, log_weights, lower, upper, names, started, MIXTURE_CAUSE,
                            call="compare_to_exact(model, X)")
