"""The covariance families of :class:`~alphavb.AlphaGaussianMixture`: one class per
``covariance_type``, each with the operations the model needs of its components.

The model (priors, updates and objective) is in the docstring of
:mod:`alphavb.mixture._gaussian_mixture`. A family holds the resolved component priors
(``m0``, ``b0``, ``nu0``, ``Psi0``, ``reg_covar`` or the known covariance) and gives

* ``update``: ``q(mu_k, Lambda_k)`` from the tempered statistics (the conjugate updates),
  written into the posterior, and the constant part of ``log rho_ik``;
* ``expected_quadratics``: ``tr(E[Lambda_k] C_k) + N_k (ybar_k - m_k)' E[Lambda_k] (ybar_k - m_k)``;
* ``kl_terms``: the KL of the component factors to their prior, term by term;
* ``log_predictive``: the posterior predictive log density of every row under every component;
* ``sample_posterior`` and ``draw_rows``: draws of the parameters and of new rows;
* ``fitted_attributes``: the fitted attributes under scikit-learn's names and shapes;

and, as class attributes, the layout of the sufficient statistics (``statistics``: the full
scatter or its diagonal, :mod:`~alphavb.mixture._estep`) and what resolving the priors needs
before they exist. The estimator keeps the loop and the public API, the weight prior is in
:mod:`~alphavb.mixture._weights`; :func:`family_class` is the one place that reads
``covariance_type``.
"""

import numpy as np
from scipy.stats import wishart

from .._special import (
    LOG_2PI,
    inv_gamma_expectations,
    kl_gamma,
    kl_gaussian_diag_prior,
    kl_wishart,
    student_t_log_pdf,
    upper_cholesky_of_inverse,
    wishart_expected_log_det,
)
from .._validation import bad_parameter, is_covariance_matrix
from ._estep import DiagonalStatistics, Statistics

# the paper's prior variance of a component mean under a known covariance (mu_k ~ N(m0, 50 I))
PAPER_MEAN_PRIOR_VARIANCE = 50.0


def _mean_noise(covariances, precisions, mean_precision, rng):
    """Draws ``mu - m`` of ``N(0, (beta Lambda_s)^-1)`` (n, p), one per ``Lambda_s``: through
    the Cholesky factor of each ``Sigma_s / beta``, or, where a near-singular ``Sigma`` (a
    fit with about as many rows as variables) leaves the inverse's rounding indefinite,
    through ``beta Lambda_s``'s own factor ``L`` (``L^-T z``; the same normal draws)."""
    from scipy.linalg import solve_triangular

    try:
        factor = np.linalg.cholesky(covariances / mean_precision)
    except np.linalg.LinAlgError:
        z = rng.standard_normal(covariances.shape[:2])
        return np.stack([solve_triangular(chol, draw, lower=True, trans="T") for chol, draw
                         in zip(np.linalg.cholesky(precisions * mean_precision), z,
                                strict=True)])
    return np.einsum("sij,sj->si", factor, rng.standard_normal(covariances.shape[:2]))


class _Family:
    """What every family shares: its priors and the predictive's loop over components."""

    statistics = Statistics  # the layout of the sufficient statistics (full scatter)

    def __init__(self, priors):
        self.priors = priors

    def log_predictive(self, X, post):
        """The posterior predictive log density of every row under every component, (n, K)."""
        n_components = post.means.shape[0]
        log_density = np.empty((X.shape[0], n_components))
        for k in range(n_components):
            log_density[:, k] = self._component_log_predictive(X - post.means[k], post, k)
        return log_density


class _ConjugateFamily(_Family):
    """Learned precisions under a conjugate prior: ``mu_k | Lambda_k ~ N(m0, (b0
    Lambda_k)^{-1})`` and a Wishart or Gamma ``Lambda_k`` (module docstring of the model)."""

    wishart = False
    default_mean_precision = 1.0
    # what nu0 must exceed (n_features - 1 for a Wishart), said as in the error message
    degrees_of_freedom_bound = "0 for 'diag' and 'spherical'"

    @classmethod
    def degrees_of_freedom_minimum(cls, n_features):
        return n_features - 1 if cls.wishart else 0

    @classmethod
    def resolved_parameters(cls, model, n_features):
        """The component prior's parameters that depend on ``n_features``, checked, by
        attribute name: ``nu0`` (``degrees_of_freedom_prior_``, default ``n_features``)."""
        minimum = cls.degrees_of_freedom_minimum(n_features)
        value = model.degrees_of_freedom_prior
        if value is None:
            return {"degrees_of_freedom_prior_": float(n_features)}
        if value > minimum:
            return {"degrees_of_freedom_prior_": float(value)}
        # scikit-learn's own message (its BayesianGaussianMixture test matches it), not the
        # package's bad_parameter template
        raise ValueError(
            f"{type(model).__name__}: The parameter 'degrees_of_freedom_prior' should be "
            f"greater than {minimum}, but got {value:.3f}. It must exceed "
            f"{cls.degrees_of_freedom_bound}; pass None for n_features.")

    @classmethod
    def resolved_data_priors(cls, model, X, weight, data_mean, total):
        """The component prior's scale ``Psi0`` (``covariance_prior_``): the user's, checked,
        or the default from the rows' weighted sample covariance."""
        owner, n_features = type(model).__name__, X.shape[1]
        if model.covariance_prior is None:
            centred = X - data_mean
            covariance = np.asarray((centred * weight[:, None]).T @ centred) / max(total - 1.0,
                                                                                   1.0)
            # A singular sample covariance (fewer rows than features, a constant or collinear
            # feature) is not a proper prior scale: add a ridge of 1e-6 times each feature's
            # variance, so that it scales with the feature's units (a constant feature: 1e-6
            # times the average variance, or 1 when every feature is constant).
            variances = np.diag(covariance)
            fallback = np.mean(variances) or 1e6
            ridge = 1e-6 * np.where(variances > 0.0, variances, fallback)
            return {"covariance_prior_": cls.default_covariance_prior(covariance, ridge)}
        prior = np.array(model.covariance_prior, dtype=float)
        if not cls.valid_covariance_prior(prior, n_features):
            raise bad_parameter(owner, "covariance_prior",
                                f"{cls.covariance_prior_requirement} with p = {n_features}",
                                model.covariance_prior)
        return {"covariance_prior_": cls.user_covariance_prior(prior)}

    @classmethod
    def default_covariance_prior(cls, covariance, ridge):
        """``Psi0`` from the (weighted) sample covariance, with ``ridge`` (one value per
        feature, ``1e-6`` times its variance) added where that is singular."""
        raise NotImplementedError

    @classmethod
    def valid_covariance_prior(cls, prior, n_features):
        """Whether the user's ``covariance_prior`` (an array) is a proper ``Psi0``."""
        raise NotImplementedError

    @classmethod
    def user_covariance_prior(cls, prior):
        """The valid user ``covariance_prior`` (a float array) as ``covariance_prior_``."""
        return prior

    @staticmethod
    def as_matrices(values, n_features):
        """Per-component (p, p) matrices (..., K, p, p) from precisions or covariances in
        the family's published or drawn shape (tied and fixed plug-ins are one (p, p),
        returned as is to broadcast over the components)."""
        return np.asarray(values, dtype=float)

    def update(self, post, stats, tempered, alpha, log_weights):
        """The conjugate updates of ``q(mu_k, Lambda_k)`` from the statistics and the
        tempered counts ``alpha N_k``, written into ``post``; returns ``log rho``'s constant
        ``c_k`` (with ``E[log pi_k] = log_weights``)."""
        priors = self.priors
        b0, m0 = priors.mean_precision, priors.mean
        n_features = stats.means.shape[1]
        beta = b0 + tempered
        nu = priors.degrees_of_freedom + tempered
        gap = stats.means - m0
        shrink = b0 * tempered / beta
        post.means = (b0 * m0 + tempered[:, None] * stats.means) / beta[:, None]
        # reg_covar: each row's likelihood carries the penalty exp(-reg tr(Lambda_k) / 2), so
        # the scatter gains reg N_k I and log rho_ik the term -reg tr(E[Lambda_k]) / 2
        psi, nu, prec_chol, expected_log_det, penalty = self._precision_update(
            post, stats, alpha, nu, gap, shrink)
        post.mean_precision, post.degrees_of_freedom = beta, nu
        post.psi, post.prec_chol = psi, prec_chol
        return (log_weights + 0.5 * expected_log_det
                - 0.5 * n_features * LOG_2PI - 0.5 * n_features / beta
                - 0.5 * penalty)

    def kl_terms(self, post):
        """``KL(q(Lambda) || p(Lambda))`` summed over the components, then ``E_Lambda
        KL(N(m_k, (b_k Lambda)^-1) || N(m0, (b0 Lambda)^-1))`` summed."""
        b0, m0 = self.priors.mean_precision, self.priors.mean
        n_features = post.means.shape[1]
        beta = post.mean_precision
        gap = post.means - m0
        quad, kl_precision = self._precision_kl(post, gap)
        yield kl_precision
        yield 0.5 * np.sum(n_features * (b0 / beta - 1.0 + np.log(beta / b0)) + b0 * quad)


class FullFamily(_ConjugateFamily):
    """``"full"``: a Normal-Wishart factor per component."""

    wishart = True
    degrees_of_freedom_bound = "n_features - 1 for a Wishart ('full', 'tied')"
    covariance_prior_requirement = "a symmetric positive definite (p, p) array"

    @classmethod
    def default_covariance_prior(cls, covariance, ridge):
        # singular on the features' own scales: the correlation-like C / sqrt(r r') has an
        # eigenvalue within 1e-6 of 0 (r = 1e-6 x the variances)
        root = np.sqrt(ridge / 1e-6)
        if np.linalg.eigvalsh(covariance / np.outer(root, root))[0] <= 1e-6:
            return covariance + np.diag(ridge)
        return covariance

    @classmethod
    def valid_covariance_prior(cls, prior, n_features):
        return is_covariance_matrix(prior, n_features)

    def _tie(self, psi, nu):
        return psi, nu

    @staticmethod
    def _n_factors(n_components):
        return n_components

    @classmethod
    def free_factors(cls, chol, maps):
        """The unconstrained entries of the precisions' lower Cholesky factors ``chol`` (K,
        p, p), log on the diagonal (information matching; ``maps`` of
        ``model_selection._information._lower_triangular``)."""
        rows, cols, _, _, diagonal = maps
        entries = chol[:cls._n_factors(len(chol)), rows, cols]
        on_diagonal = diagonal.astype(bool)
        entries[:, on_diagonal] = np.log(entries[:, on_diagonal])
        return [entries.ravel()]

    @classmethod
    def factors(cls, theta, at, n_components, n_features, maps, fixed_chol):
        """The lower Cholesky factors (r, K, p, p) from the free entries ``theta[:, at:]``
        (the inverse of :meth:`free_factors`, in ``autograd.numpy``)."""
        import autograd.numpy as anp

        rows, _, off, diag, diagonal = maps
        m, count = len(rows), cls._n_factors(n_components)
        entries = anp.reshape(theta[:, at:at + count * m], (theta.shape[0], count, m))
        # exp of the diagonal entries only (the off-diagonal ones are masked to exp(0))
        flat = anp.dot(entries, off.T) + anp.dot(anp.exp(entries * diagonal), diag.T)
        return (anp.reshape(flat, (theta.shape[0], count, n_features, n_features))
                + anp.zeros((1, n_components, 1, 1)))

    def _precision_update(self, post, stats, alpha, nu, gap, shrink):
        priors, n_features = self.priors, gap.shape[1]
        reg = priors.reg_covar
        scatter = stats.scatter + reg * stats.nk[:, None, None] * np.eye(n_features)
        psi = (priors.covariance + alpha * scatter
               + shrink[:, None, None] * gap[:, :, None] * gap[:, None, :])
        psi, nu = self._tie(psi, nu)
        upper, log_det_psi = upper_cholesky_of_inverse(psi)
        prec_chol = np.sqrt(nu)[:, None, None] * upper
        expected_log_det = wishart_expected_log_det(nu, log_det_psi, n_features)
        post.precisions = prec_chol @ np.swapaxes(prec_chol, 1, 2)
        penalty = reg * np.einsum("kii->k", post.precisions)
        return psi, nu, prec_chol, expected_log_det, penalty

    def expected_quadratics(self, post, stats):
        gap = stats.means - post.means
        trace = np.einsum("kij,kji->k", post.precisions, stats.scatter)
        quad = np.einsum("ki,kij,kj->k", gap, post.precisions, gap)
        return trace + stats.nk * quad

    def _precision_kl(self, post, gap):
        # "tied": K equal factors, each against its component's prior (module docstring)
        quad = np.einsum("ki,kij,kj->k", gap, post.precisions, gap)
        kl = np.sum(kl_wishart(post.psi, post.degrees_of_freedom, self.priors.covariance,
                               self.priors.degrees_of_freedom))
        return quad, kl

    def _component_log_predictive(self, diff, post, k):
        """A multivariate Student-t (Bishop eq. 10.81) at the rows' offsets ``diff``."""
        p = diff.shape[1]
        beta, nu = post.mean_precision[k], post.degrees_of_freedom[k]
        inflate = beta / (1.0 + beta)
        dof = nu + 1.0 - p
        upper, log_det_psi = upper_cholesky_of_inverse(post.psi[k])
        maha = dof * inflate * np.sum((diff @ upper) ** 2, axis=1)
        log_det_scale = log_det_psi - p * np.log(dof * inflate)
        return student_t_log_pdf(maha, dof, p, log_det_scale)

    def _component(self, model, k):
        """The fitted Wishart of component ``k``: its degrees of freedom and ``E[Lambda]^-1``."""
        return model.degrees_of_freedom_[k], model.covariances_[k]

    def sample_posterior(self, model, n, rng):
        """Draws ``(means, precisions, covariances)`` of ``q(mu, Lambda)``: ``Lambda_k``
        from its Wishart, then ``mu_k | Lambda_k``."""
        K, p = model.means_.shape
        means = np.empty((n, K, p))
        precisions, covariances = np.empty((n, K, p, p)), np.empty((n, K, p, p))
        for k in range(K):
            dof, covariance = self._component(model, k)
            scale = np.linalg.inv(covariance * dof)
            precisions[:, k] = wishart(df=dof, scale=scale).rvs(
                size=n, random_state=rng).reshape(n, p, p)
            covariances[:, k] = np.linalg.inv(precisions[:, k])
            means[:, k] = model.means_[k] + _mean_noise(covariances[:, k], precisions[:, k],
                                                        model.mean_precision_[k], rng)
        return means, precisions, covariances

    def draw_rows(self, model, rng, k, count):
        """``count`` rows from component ``k`` of the plug-in mixture."""
        return rng.multivariate_normal(model.means_[k], model.covariances_[k], count)

    def fitted_attributes(self, post):
        """The estimator's fitted attributes of ``q(mu, Lambda)``, by name."""
        return {"mean_precision_": post.mean_precision,
                "degrees_of_freedom_": post.degrees_of_freedom,
                "precisions_": post.precisions,
                "covariances_": post.psi / post.degrees_of_freedom[:, None, None],
                "precisions_cholesky_": post.prec_chol}


class TiedFamily(FullFamily):
    """``"tied"``: one Wishart factor shared by every component, the average of the
    components' natural parameters (module docstring of the model)."""

    def _tie(self, psi, nu):
        return (np.broadcast_to(psi.mean(axis=0), psi.shape).copy(),
                np.full(psi.shape[0], nu.mean()))

    @staticmethod
    def _n_factors(n_components):
        return 1  # one shared factor

    def _component(self, model, k):
        # every component's Lambda_k an independent draw of the one fitted Wishart (the
        # factors of the tied family are equal, not the precisions)
        return model.degrees_of_freedom_, model.covariances_

    def draw_rows(self, model, rng, k, count):
        return rng.multivariate_normal(model.means_[k], model.covariances_, count)

    def fitted_attributes(self, post):  # scikit-learn's shapes: one (p, p) matrix
        degrees_of_freedom = float(post.degrees_of_freedom[0])
        return {"mean_precision_": post.mean_precision,
                "degrees_of_freedom_": degrees_of_freedom,
                "covariances_": post.psi[0] / degrees_of_freedom,
                "precisions_": post.precisions[0].copy(),
                "precisions_cholesky_": post.prec_chol[0].copy()}


class _GammaFamily(_ConjugateFamily):
    """Diagonal precisions with Gamma factors (``"diag"``, ``"spherical"``)."""

    statistics = DiagonalStatistics  # only the scatter's diagonal
    covariance_prior_requirement = "a positive array of shape (p,)"
    per_feature = True  # a Gamma factor per feature ("diag") or one per component

    @classmethod
    def default_covariance_prior(cls, covariance, ridge):
        return np.maximum(cls._from_covariance(covariance), cls._from_covariance(np.diag(ridge)))

    @classmethod
    def valid_covariance_prior(cls, prior, n_features):
        return (prior.shape == cls._prior_shape(n_features) and np.all(np.isfinite(prior))
                and np.all(prior > 0))

    def sample_posterior(self, model, n, rng):
        """Draws ``(means, precisions, covariances)``: ``lambda`` from its Gamma, then
        ``mu_k | lambda``."""
        K, p = model.means_.shape
        dim = self._gamma_dimension(p)
        means = np.empty((n, K, p))
        precisions = np.empty((n, K, p) if self.per_feature else (n, K))
        covariances = np.empty(precisions.shape)
        for k in range(K):
            dof, b = model.degrees_of_freedom_[k], model.mean_precision_[k]
            rate = 0.5 * dim * dof * model.covariances_[k]
            precisions[:, k] = rng.gamma(0.5 * dim * dof, 1.0 / rate,
                                         size=precisions[:, k].shape)
            covariances[:, k] = 1.0 / precisions[:, k]
            scale = np.sqrt(covariances[:, k] / b)
            if not self.per_feature:
                scale = scale[:, None]
            means[:, k] = model.means_[k] + scale * rng.standard_normal((n, p))
        return means, precisions, covariances

    def draw_rows(self, model, rng, k, count):
        n_features = model.means_.shape[1]
        scale = np.sqrt(np.broadcast_to(model.covariances_[k], (n_features,)))
        return model.means_[k] + scale * rng.standard_normal((count, n_features))

    def fitted_attributes(self, post):
        return {"mean_precision_": post.mean_precision,
                "degrees_of_freedom_": post.degrees_of_freedom,
                "precisions_": post.precisions,
                "covariances_": 1.0 / post.precisions,
                "precisions_cholesky_": np.sqrt(post.precisions)}


class DiagFamily(_GammaFamily):
    """``"diag"``: per feature the Normal-Gamma, the one-dimensional Wishart."""

    @staticmethod
    def _from_covariance(covariance):
        return np.diag(covariance).copy()

    @staticmethod
    def _prior_shape(n_features):
        return (n_features,)

    @staticmethod
    def _gamma_dimension(n_features):
        return 1

    @staticmethod
    def as_matrices(values, n_features):
        return np.asarray(values, dtype=float)[..., :, None] * np.eye(n_features)

    @classmethod
    def free_factors(cls, chol, maps):
        return [np.log(np.diagonal(chol, axis1=1, axis2=2)).ravel()]

    @classmethod
    def factors(cls, theta, at, n_components, n_features, maps, fixed_chol):
        import autograd.numpy as anp

        scales = anp.exp(anp.reshape(theta[:, at:at + n_components * n_features],
                                     (theta.shape[0], n_components, n_features)))
        return scales[..., :, None] * np.eye(n_features)

    def _precision_update(self, post, stats, alpha, nu, gap, shrink):
        priors = self.priors
        reg = priors.reg_covar
        scatter = stats.scatter + reg * stats.nk[:, None]
        psi = priors.covariance + alpha * scatter + shrink[:, None] * gap**2
        expected_lambda = nu[:, None] / psi
        expected_log_det = np.sum(_gamma_expected_log(0.5 * nu[:, None], 0.5 * psi), axis=1)
        post.precisions = expected_lambda
        prec_chol = _diagonal_matrices(np.sqrt(expected_lambda))
        penalty = reg * expected_lambda.sum(axis=1)
        return psi, nu, prec_chol, expected_log_det, penalty

    def expected_quadratics(self, post, stats):
        gap = stats.means - post.means
        trace = np.sum(post.precisions * stats.scatter, axis=1)
        quad = np.sum(post.precisions * gap**2, axis=1)
        return trace + stats.nk * quad

    def _precision_kl(self, post, gap):
        priors = self.priors
        quad = np.sum(post.precisions * gap**2, axis=1)
        kl = np.sum(kl_gamma(0.5 * post.degrees_of_freedom[:, None], 0.5 * post.psi,
                             0.5 * priors.degrees_of_freedom, 0.5 * priors.covariance))
        return quad, kl

    def _component_log_predictive(self, diff, post, k):
        """A product of univariate Student-t's."""
        beta, nu = post.mean_precision[k], post.degrees_of_freedom[k]
        precision = beta / (1.0 + beta) * post.precisions[k]
        return np.sum(student_t_log_pdf(precision * diff**2, nu, 1, -np.log(precision)),
                      axis=1)


class SphericalFamily(_GammaFamily):
    """``"spherical"``: ``Lambda_k = lambda_k I`` with ``lambda_k ~ Gamma(p nu0/2, rate=p
    psi0/2)``."""

    covariance_prior_requirement = "a positive float"
    per_feature = False

    @classmethod
    def user_covariance_prior(cls, prior):
        return float(prior)

    @staticmethod
    def _from_covariance(covariance):
        return float(np.mean(np.diag(covariance)))

    @staticmethod
    def _prior_shape(n_features):
        return ()

    @staticmethod
    def _gamma_dimension(n_features):
        return n_features

    @staticmethod
    def as_matrices(values, n_features):
        return np.asarray(values, dtype=float)[..., None, None] * np.eye(n_features)

    @classmethod
    def free_factors(cls, chol, maps):
        return [np.log(chol[:, 0, 0])]

    @classmethod
    def factors(cls, theta, at, n_components, n_features, maps, fixed_chol):
        import autograd.numpy as anp

        return anp.exp(theta[:, at:at + n_components])[..., None, None] * np.eye(n_features)

    def _precision_update(self, post, stats, alpha, nu, gap, shrink):
        priors, n_features = self.priors, gap.shape[1]
        reg = priors.reg_covar
        scatter = stats.scatter.sum(axis=1) + reg * n_features * stats.nk
        psi = priors.covariance + (alpha * scatter
                                   + shrink * np.sum(gap**2, axis=1)) / n_features
        expected_lambda = nu / psi
        expected_log_det = n_features * _gamma_expected_log(0.5 * n_features * nu,
                                                            0.5 * n_features * psi)
        post.precisions = expected_lambda
        prec_chol = _diagonal_matrices(
            np.repeat(np.sqrt(expected_lambda)[:, None], n_features, axis=1))
        penalty = reg * n_features * expected_lambda
        return psi, nu, prec_chol, expected_log_det, penalty

    def expected_quadratics(self, post, stats):
        gap = stats.means - post.means
        trace = post.precisions * stats.scatter.sum(axis=1)
        quad = post.precisions * np.sum(gap**2, axis=1)
        return trace + stats.nk * quad

    def _precision_kl(self, post, gap):
        priors, n_features = self.priors, gap.shape[1]
        quad = post.precisions * np.sum(gap**2, axis=1)
        kl = np.sum(kl_gamma(0.5 * n_features * post.degrees_of_freedom,
                             0.5 * n_features * post.psi,
                             0.5 * n_features * priors.degrees_of_freedom,
                             0.5 * n_features * priors.covariance))
        return quad, kl

    def _component_log_predictive(self, diff, post, k):
        """A multivariate Student-t with ``p nu_k`` degrees of freedom."""
        p = diff.shape[1]
        beta, nu = post.mean_precision[k], post.degrees_of_freedom[k]
        precision = beta / (1.0 + beta) * post.precisions[k]
        maha = precision * np.sum(diff**2, axis=1)
        return student_t_log_pdf(maha, p * nu, p, -p * np.log(precision))


class FixedFamily(_Family):
    """``"fixed"``: the known covariance ``Sigma`` and ``mu_k ~ N(m0, I / b0)``."""

    default_mean_precision = 1.0 / PAPER_MEAN_PRIOR_VARIANCE

    @classmethod
    def resolved_parameters(cls, model, n_features):
        """The known covariance (``fixed_covariance_``; default the identity), checked."""
        if model.fixed_covariance is None:
            covariance = np.eye(n_features)
        else:
            covariance = np.array(model.fixed_covariance, dtype=float)
        if not is_covariance_matrix(covariance, n_features):
            raise bad_parameter(
                type(model).__name__, "fixed_covariance",
                f"a symmetric positive definite ({n_features}, {n_features}) array",
                model.fixed_covariance, "Pass None for the identity.")
        return {"fixed_covariance_": covariance}

    @classmethod
    def resolved_data_priors(cls, model, X, weight, data_mean, total):
        return {}  # the known covariance has no prior

    def update(self, post, stats, tempered, alpha, log_weights):
        """``V_k = (b0 I + alpha N_k Sigma^{-1})^{-1}``, ``m_k = V_k (b0 m0 + alpha N_k
        Sigma^{-1} ybar_k)`` into ``post``; returns ``log rho``'s constant."""
        b0, m0 = self.priors.mean_precision, self.priors.mean
        covariance = self.priors.fixed_covariance
        n_components, n_features = stats.means.shape
        precision = np.linalg.inv(covariance)
        upper, log_det_cov = upper_cholesky_of_inverse(covariance)
        mean_cov = np.linalg.inv(b0 * np.eye(n_features) + tempered[:, None, None] * precision)
        rhs = b0 * m0 + tempered[:, None] * (stats.means @ precision)
        post.means = np.einsum("kij,kj->ki", mean_cov, rhs)
        post.mean_covariances = mean_cov
        post.precisions = np.broadcast_to(precision, (n_components, *precision.shape))
        post.prec_chol = np.ascontiguousarray(
            np.broadcast_to(upper, (n_components, *upper.shape)))
        return (log_weights - 0.5 * n_features * LOG_2PI - 0.5 * log_det_cov
                - 0.5 * np.einsum("ij,kji->k", precision, mean_cov))

    expected_quadratics = FullFamily.expected_quadratics
    as_matrices = staticmethod(_ConjugateFamily.as_matrices)

    @classmethod
    def free_factors(cls, chol, maps):
        return []  # the known covariance has no free parameter

    @classmethod
    def factors(cls, theta, at, n_components, n_features, maps, fixed_chol):
        import autograd.numpy as anp

        return fixed_chol[None] + anp.zeros((theta.shape[0], 1, 1, 1))

    def kl_terms(self, post):
        """``KL(N(m_k, V_k) || N(m0, I / b0))``, one term per component."""
        b0, m0 = self.priors.mean_precision, self.priors.mean
        n_components, n_features = post.means.shape
        for k in range(n_components):
            cov = post.mean_covariances[k]
            yield kl_gaussian_diag_prior(post.means[k] - m0, np.diag(cov),
                                         np.linalg.slogdet(cov)[1], np.full(n_features, b0))

    def _component_log_predictive(self, diff, post, k):
        """``N(m_k, Sigma + V_k)``."""
        cov = self.priors.fixed_covariance + post.mean_covariances[k]
        upper, log_det = upper_cholesky_of_inverse(cov)
        maha = np.sum((diff @ upper) ** 2, axis=1)
        return -0.5 * (diff.shape[1] * LOG_2PI + log_det + maha)

    def sample_posterior(self, model, n, rng):
        """``mu_k ~ N(means_k, mean_covariances_k)``; the covariance is the known one."""
        K, p = model.means_.shape
        chol = np.linalg.cholesky(model.mean_covariances_)               # (K, p, p)
        means = model.means_ + np.einsum("kij,skj->ski", chol, rng.standard_normal((n, K, p)))
        covariances = np.broadcast_to(model.covariances_, (n, K, p, p)).copy()
        precisions = np.broadcast_to(model.precisions_, (n, K, p, p)).copy()
        return means, precisions, covariances

    def draw_rows(self, model, rng, k, count):
        return rng.multivariate_normal(model.means_[k], model.covariances_, count)

    def fitted_attributes(self, post):
        return {"mean_covariances_": post.mean_covariances,
                "covariances_": self.priors.fixed_covariance,
                "precisions_": post.precisions[0].copy(),
                "precisions_cholesky_": post.prec_chol[0].copy()}


FAMILIES = {"full": FullFamily, "tied": TiedFamily, "diag": DiagFamily,
            "spherical": SphericalFamily, "fixed": FixedFamily}


def family_class(covariance_type):
    """The family of ``covariance_type`` (the one place that reads it)."""
    return FAMILIES[covariance_type]


def family_of(model):
    """The family class of a fitted :class:`~alphavb.AlphaGaussianMixture`: the one its fit
    used (``covariance_type`` may have been set to another since), else the one
    ``covariance_type`` names."""
    fitted = getattr(model, "_covariance_family", None)
    return type(fitted) if fitted is not None else family_class(model.covariance_type)


def _gamma_expected_log(shape, rate):
    """``E[log lambda]`` for ``lambda ~ Gamma(shape, rate)``, i.e. ``1/lambda ~ InvGamma``."""
    return inv_gamma_expectations(shape, rate)[1]


def _diagonal_matrices(diagonals):
    """(K, p) diagonals -> (K, p, p) diagonal matrices."""
    n_components, n_features = diagonals.shape
    matrices = np.zeros((n_components, n_features, n_features))
    index = np.arange(n_features)
    matrices[:, index, index] = diagonals
    return matrices
