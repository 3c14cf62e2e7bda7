"""Unpenalised covariates ``Z`` beside the selected ``X`` (varbvs's ``Z``).

The model is ``E[y] = X beta + Z gamma (+ intercept)`` with a flat prior on ``gamma``, which
is integrated out exactly. For the Gaussian likelihood with ``Z_c`` the (centred) covariates
and ``P = I - Z_c (Z_c' Z_c)^{-1} Z_c'``::

    ∫ N(y | X beta + Z_c gamma, sigma2 I)^alpha dgamma
        = (2 pi sigma2)^{-alpha n / 2} (2 pi sigma2 / alpha)^{k/2} |Z_c' Z_c|^{-1/2}
          exp(-alpha ||P (y - X beta)||^2 / (2 sigma2)),

so the fit runs on the projected ``P X``, ``P y`` with ``k / 2`` fewer powers of
``1 / sigma2`` and the constant ``(k/2) log(2 pi / alpha) - log|Z_c' Z_c| / 2`` in the
objective; given ``beta`` and ``sigma2``, ``gamma ~ N((Z_c'Z_c)^{-1} Z_c'(y - X beta),
(sigma2 / alpha) (Z_c'Z_c)^{-1})``. The logistic model integrates ``gamma`` out of its
Jaakkola-Jordan bound instead (:mod:`alphavb.linear_model._spike_slab_logistic`).
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy.linalg import solve_triangular
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from .._special import LOG_2PI
from .._validation import bad_parameter


def covariate_names(covariates, n_columns):
    """The names of the covariate columns: a DataFrame's column names, else ``z0, z1, ...``."""
    names = getattr(covariates, "columns", None)
    if names is not None and len(names) == n_columns:
        return [str(name) for name in names]
    return [f"z{k}" for k in range(n_columns)]


def check_covariates(owner, covariates, n_samples, n_fitted=None):
    """``covariates`` as a float array of shape (n_samples, k) (a 1-D array is one column).

    ``n_fitted`` is the number of covariate columns seen by ``fit`` (None when fitting); a
    model fitted with covariates needs them again to predict, and one fitted without refuses
    them.
    """
    if n_fitted is not None and covariates is None:
        if n_fitted:
            raise ValueError(
                f"{owner} was fitted with {n_fitted} covariate column(s): pass them to this "
                "method too (covariates=Z, one row per row of X).")
        return None
    if covariates is None:
        return None
    if n_fitted == 0:
        raise ValueError(f"{owner} was fitted without covariates; call it without "
                         "covariates, or refit with fit(X, y, covariates=Z).")
    Z = np.asarray(covariates) if not hasattr(covariates, "toarray") else covariates
    if getattr(Z, "ndim", 2) == 1:
        Z = Z.reshape(-1, 1)
    Z = check_array(Z, dtype=np.float64, input_name="covariates", ensure_min_features=0)
    if Z.shape[0] != n_samples:
        raise ValueError(
            f"The 'covariates' of {owner} must have one row per row of X ({n_samples}); got "
            f"{Z.shape[0]} rows. Pass Z with shape (n_samples, n_covariates).")
    if n_fitted is not None and Z.shape[1] != n_fitted:
        raise ValueError(
            f"The 'covariates' of {owner} have {Z.shape[1]} column(s), but the model was "
            f"fitted with {n_fitted}. Pass the same covariate columns as in fit.")
    return Z


@dataclass(frozen=True)
class Covariates:
    """The flat-prior covariates of the Gaussian model after centring (``offset`` is their
    column mean, 0 without an intercept): ``basis`` an orthonormal basis of ``Z_c``,
    ``triangle`` ``R`` with ``Z_c = basis R`` (so ``(Z_c'Z_c)^{-1} = R^{-1} R^{-T}``),
    ``log_det`` ``log|Z_c' Z_c|``."""

    offset: np.ndarray
    basis: np.ndarray
    triangle: np.ndarray
    log_det: float

    @property
    def n_columns(self):
        return self.basis.shape[1]

    def project(self, A):
        """``P A``: the part of ``A`` (an (n,) or (n, m) array) orthogonal to ``Z_c``."""
        return A - self.basis @ (self.basis.T @ A)

    def coefficients(self, A):
        """``(Z_c'Z_c)^{-1} Z_c' A``: the least-squares coefficients of ``A`` on ``Z_c``."""
        return solve_triangular(self.triangle, self.basis.T @ A)

    def objective_constant(self, alpha, elt):
        """What integrating ``gamma`` adds to ``alpha`` times the alpha-ELBO besides the
        projection: ``(k/2) (log(2 pi / alpha) - E log(1/sigma2)) - log|Z_c'Z_c| / 2``."""
        k = self.n_columns
        return 0.5 * k * (LOG_2PI - np.log(alpha) - elt) - 0.5 * self.log_det


@dataclass(frozen=True)
class ProjectedCovariates:
    """Covariates that were projected out of sufficient statistics before the fit saw them
    (:meth:`AlphaSuSiE.fit_sufficient <alphavb.AlphaSuSiE.fit_sufficient>`'s
    ``n_covariates``): what their flat prior still does to the fit, the ``k`` degrees of
    freedom and the objective's constant, as :class:`Covariates`."""

    n_columns: int
    log_det: float

    objective_constant = Covariates.objective_constant


@dataclass(frozen=True)
class CovariateSolve:
    """What a fitted Gaussian model keeps of its covariates (module docstring): their column
    means ``offset`` (0 without an intercept), ``coef_on_x = (Z_c'Z_c)^{-1} Z_c' X`` and
    ``coef_on_y = (Z_c'Z_c)^{-1} Z_c' y`` on the centred rows (so that ``E[gamma | beta] =
    coef_on_y - coef_on_x beta``) and ``inverse_triangle = R^{-1}`` (``(Z_c'Z_c)^{-1} =
    R^{-1} R^{-T}``)."""

    offset: np.ndarray
    coef_on_x: np.ndarray
    coef_on_y: np.ndarray
    inverse_triangle: np.ndarray

    def draw(self, coef, noise_variance, alpha, rng):
        """``gamma | beta, sigma2 ~ N(coef_on_y - coef_on_x beta, (sigma2 / alpha)
        (Z_c'Z_c)^{-1})`` for each draw of ``coef`` (the last axis) and ``noise_variance``."""
        scale = np.sqrt(noise_variance / alpha)[..., None]
        noise = rng.standard_normal((*np.shape(noise_variance), self.offset.shape[0]))
        return self.coef_on_y - coef @ self.coef_on_x.T + scale * noise @ self.inverse_triangle.T


def check_flat_design(owner, design, fit_intercept):
    """The one check of the flat-prior design (the intercept's column, if any, and the
    covariates, centred in the Gaussian model), shared by both spike-and-slab models: fewer
    columns than rows, and full column rank judged on columns scaled to unit norm, so that
    the units of a covariate (x 1e11 or x 1e-11) do not matter."""
    n_rows, n_columns = design.shape
    if n_columns >= n_rows:
        raise ValueError(
            f"{owner} has {n_columns} flat-prior columns (covariates"
            + (" and the intercept" if fit_intercept else "") + f") for {n_rows} rows: their "
            "posterior does not exist with as many columns as rows. Fit more rows or fewer "
            "covariates.")
    norms = np.linalg.norm(design, axis=0)
    constant = norms <= 1e-300
    unit = design / np.where(constant, 1.0, norms)
    diagonal = np.abs(np.diag(np.linalg.qr(unit, mode="r")))
    # the fits factorise the columns' Gram matrix, whose condition number is the square
    # of theirs: a column within 1e-7 (about sqrt of the machine epsilon, 1.5e-8, with a
    # margin) of the others' span leaves it numerically singular (a covariate 1 + 1e-9 z
    # beside the intercept raised scipy's LinAlgError in the fit; one at 6e-8 moved the
    # exact check's PIPs by 0.06 between two LAPACK routines)
    if n_columns and (constant.any() or np.min(diagonal) <= 1e-7):
        raise ValueError(
            f"The 'covariates' of {owner} are collinear"
            + (" (or a column is constant, which the intercept already covers)"
               if fit_intercept else " (or a column is 0)")
            + ". Drop the redundant columns.")


def refuse_separation(owner, design, positive):
    """Refuse flat-prior columns that separate the two classes: if some ``gamma`` puts every
    row on its class's side (``s_i z_i' gamma >= 1``, a linear programme), the likelihood
    grows without bound along ``gamma`` and, under a flat prior, the posterior does not
    exist (the fit would return ever larger coefficients)."""
    from scipy.optimize import linprog

    signs = np.where(positive, 1.0, -1.0)
    n_columns = design.shape[1]
    result = linprog(np.zeros(n_columns), A_ub=-(signs[:, None] * design),
                     b_ub=-np.ones(len(signs)), bounds=[(None, None)] * n_columns,
                     method="highs")
    if result.status == 0:
        raise ValueError(
            f"The 'covariates' of {owner} separate the two classes (a linear combination of "
            "them and the intercept puts every row on its class's side): with their flat "
            "prior the posterior does not exist. Drop the separating covariates, or give "
            "them a prior by passing them in X.")


def gaussian_covariates(owner, Z, fit_intercept, alpha, sqrt_weight=None):
    """Centre ``Z`` (with an intercept) and factor it; refuse collinear columns. With
    ``sqrt_weight`` (the square roots of the rows' weights) the centring is weighted and the
    rows of ``Z_c`` are multiplied by it, as the data's are."""
    weight = None if sqrt_weight is None else sqrt_weight**2
    offset = (np.average(Z, axis=0, weights=weight) if fit_intercept
              else np.zeros(Z.shape[1]))
    Z_c = Z - offset
    ones = np.ones(len(Z))
    if sqrt_weight is not None:
        Z_c, ones = Z_c * sqrt_weight[:, None], sqrt_weight
    check_flat_design(owner, np.column_stack([ones, Z_c]) if fit_intercept else Z_c,
                      fit_intercept)
    basis, triangle = np.linalg.qr(Z_c)
    diagonal = np.abs(np.diag(triangle))
    n_observations = Z.shape[0] if weight is None else float(weight.sum())
    if Z.shape[1] >= alpha * n_observations:
        raise ValueError(
            f"{owner} needs fewer covariate columns ({Z.shape[1]}) than alpha * n_samples "
            f"({alpha * n_observations:g}): integrating them out uses that many of the data's "
            "observations. Fit more rows or fewer covariates.")
    return Covariates(offset, basis, triangle, float(2.0 * np.sum(np.log(diagonal))))


class GaussianCovariatesMixin:
    """Covariates for the Gaussian regression estimators (on
    :class:`~alphavb.linear_model._base.AlphaRegressionBase`): take them out of ``X`` and
    ``y`` before the fit, publish ``covariate_coef_`` and the intercept, and predict,
    summarise and draw with them (module docstring: given ``beta`` and ``sigma2``, ``gamma
    ~ N((Z_c'Z_c)^{-1} Z_c'(y - X beta), (sigma2 / alpha) (Z_c'Z_c)^{-1})``)."""

    def _projected_covariates(self, n_covariates, log_det, n_samples):
        """What ``fit_sufficient``'s ``n_covariates`` covariates, projected out of the
        statistics, leave of their flat prior (:class:`ProjectedCovariates`), or None
        without."""
        from ._susie_rss import real_scalar

        owner = type(self).__name__
        if (isinstance(n_covariates, bool) or not isinstance(n_covariates, (int, np.integer))
                or not 0 <= n_covariates < float(self.alpha) * float(n_samples)):
            raise bad_parameter(owner, "n_covariates", "an int from 0 to under alpha * "
                                "n_samples (the covariates projected out of the statistics)",
                                n_covariates)
        value = real_scalar(log_det)
        if value is None or not np.isfinite(value):
            raise bad_parameter(owner, "covariates_log_det", "a finite float (log|Z_c'Z_c|)",
                                log_det)
        return ProjectedCovariates(int(n_covariates), float(log_det)) if n_covariates else None

    def _take_out_covariates(self, rows, covariates):
        """Check ``covariates`` (the rows' ``Z``) and project them out of the centred (and
        weighted) :class:`~alphavb.linear_model._base.TrainingRows` ``rows``: returns the
        projected rows ``P X``, ``P y`` (their centring holding the :class:`CovariateSolve`
        and the columns' names, ``col_sq_norms`` None: the projection changed them) and the
        :class:`Covariates`; ``rows`` and None without covariates."""
        Z = check_covariates(type(self).__name__, covariates, rows.X.shape[0])
        if Z is None or not Z.shape[1]:
            return rows, None
        found = gaussian_covariates(type(self).__name__, Z, self.fit_intercept,
                                    float(self.alpha),
                                    rows.sqrt_weight if rows.weighted else None)
        solve = CovariateSolve(found.offset, found.coefficients(rows.X),
                               found.coefficients(rows.y),
                               solve_triangular(found.triangle, np.eye(Z.shape[1])))
        centring = replace(rows.centring, covariates=solve, covariate_names=tuple(
            covariate_names(covariates, Z.shape[1])))
        return replace(rows, X=found.project(rows.X), y=found.project(rows.y),
                       col_sq_norms=None, centring=centring), found

    def _covariate_attributes(self, coef):
        """``intercept_`` and ``covariate_coef_``: the flat-prior posterior means given
        ``E[beta] = coef`` (``(Z_c'Z_c)^{-1} Z_c'(y - X coef)``, then the intercept from the
        means)."""
        intercept = self._intercept(coef)
        solve = self._centring.covariates
        if solve is None:
            return {"covariate_coef_": np.zeros(0), "intercept_": intercept}
        covariate_coef = solve.coef_on_y - solve.coef_on_x @ coef
        if self.fit_intercept:
            intercept -= float(solve.offset @ covariate_coef)
        return {"covariate_coef_": covariate_coef, "intercept_": intercept}

    def predict(self, X, return_std=False, covariates=None):
        """Posterior-predictive mean (and standard deviation) under ``q``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        return_std : bool, default=False
            Also return the standard deviation of a new response, ``sqrt(Var_q(x' beta +
            z' gamma) + E_q[sigma2])``; over a grid, of the mixture ``sum_h w_h q_h``.
        covariates : array-like of shape (n_samples, n_covariates), default=None
            The covariates ``Z`` of these rows, when the model was fitted with some.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
        y_std : ndarray of shape (n_samples,), only when ``return_std``
        """
        check_is_fitted(self)
        if covariates is None and not self.n_covariates_in_:
            return super().predict(X, return_std=return_std)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = check_covariates(type(self).__name__, covariates, X.shape[0],
                             self.n_covariates_in_)
        solve = self._centring.covariates
        offset, coef_on_x, inverse_triangle = (solve.offset, solve.coef_on_x,
                                               solve.inverse_triangle)
        y_mean = X @ self.coef_ + Z @ self.covariate_coef_ + self.intercept_
        if not return_std:
            return y_mean
        Z_c = Z - offset if self.fit_intercept else Z
        # x' beta + z' gamma(beta) = (x - Bx' z)' beta + const; gamma's own spread beside it
        rows = (X - self._centring.X_offset) - Z_c @ coef_on_x
        leverage = np.sum((Z_c @ inverse_triangle) ** 2, axis=1)
        variance = (self._coef_variance_along(rows) + self.noise_variance_
                    * (1.0 + leverage / self.alpha + self._intercept_leverage()))
        return y_mean, np.sqrt(variance)

    def _flat_parameter_moments(self):
        """With covariates: ``gamma = b_y - B_x beta + N(0, sigma2 (Z_c'Z_c)^{-1} / alpha)``
        and the intercept ``mean(y) - mean(X)' beta - mean(Z)' gamma + e`` (module
        _covariates), so ``Var(gamma_k) = Var(B_xk' beta) + E[sigma2] [(Z_c'Z_c)^{-1}]_kk /
        alpha`` and ``Var(intercept) = Var(c' beta) + E[sigma2] (mean(Z)' (Z_c'Z_c)^{-1}
        mean(Z) / alpha + 1 / (alpha n))``, ``c = mean(X) - B_x' mean(Z)``."""
        if not self.n_covariates_in_:
            return super()._flat_parameter_moments()
        solve = self._centring.covariates
        offset, coef_on_x, inverse_triangle = (solve.offset, solve.coef_on_x,
                                               solve.inverse_triangle)
        noise = self.noise_variance_ / self.alpha
        names, means = list(self._centring.covariate_names), list(self.covariate_coef_)
        variances = list(self._coef_variance_along(coef_on_x)
                         + noise * np.sum(inverse_triangle ** 2, axis=1))
        if self.fit_intercept:
            along = (self._centring.X_offset - offset @ coef_on_x)[None, :]
            variances.insert(0, float(self._coef_variance_along(along)[0]
                                      + noise * np.sum((offset @ inverse_triangle) ** 2)
                                      + self.noise_variance_ * self._intercept_leverage()))
            names.insert(0, "intercept")
            means.insert(0, self.intercept_)
        return names, np.array(means), np.sqrt(variances)

    def score(self, X, y, sample_weight=None, covariates=None):
        """R^2 of :meth:`predict` on ``X`` (and ``covariates``) against ``y``."""
        from sklearn.metrics import r2_score

        return r2_score(y, self.predict(X, covariates=covariates), sample_weight=sample_weight)

    def _draw_covariates(self, draws, rng):
        """Add ``"covariate_coef"``, ``gamma | beta, sigma2`` (module docstring), to the
        draws, and take ``mean(Z)' gamma`` off their intercepts."""
        if not self.n_covariates_in_:
            return draws
        solve = self._centring.covariates
        gamma = solve.draw(draws["coef"], draws["noise_variance"], self.alpha, rng)
        draws["covariate_coef"] = gamma
        if self.fit_intercept:
            draws["intercept"] = draws["intercept"] - gamma @ solve.offset
        return draws
