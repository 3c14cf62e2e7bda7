"""The cumulative prequential log loss (Grünwald & van Ommen 2017, Sec. 4): every row
predicted from the fit to the rows before it. Exact and cheap for the linear model
(:func:`linear_prequential_losses`); by warm-started refits on a geometric schedule of
prefixes for every other estimator (:func:`refit_prequential_losses`)."""

import itertools

import numpy as np
from scipy.special import digamma
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from .._approximation import without_checks
from .._warnings import quietly
from ._model_kinds import gaussian_row_losses, kind_of


def linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind):
    """Per alpha, the log loss of each row ``i >= min_prefix`` predicted from the
    :class:`~alphavb.AlphaLinearRegression` fit to rows ``0..i-1`` (R-log or I-log).

    Returns an array of shape (len(alphas), n - min_prefix). The eigendecompositions run
    on one BLAS thread: at these sizes (d x d per prefix) threads only add synchronisation
    (measured at n = 100, d = 51 with the other core busy: 1.9 s with OpenBLAS's threads,
    0.05 s with one).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind)


def _linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind):
    from ..base import column_scales
    from ..linear_model._base import auto_noise_prior, response_variance
    from ..linear_model._bayes_linear import resolve_prior_precision
    from ..linear_model._kernels import linear_prefix_fixed_points

    n, d = X.shape
    params = estimator.get_params(deep=False)
    fixed = params["noise_variance"]
    fixed = None if fixed is None else float(fixed)
    precision = resolve_prior_precision("AlphaSelector", params["prior_precision"], d)
    intercept, conjugate = params["fit_intercept"], params["coef_prior"] == "conjugate"
    max_iter, tol = int(params["max_iter"]), 1e-14
    losses = np.empty((len(alphas), n - min_prefix))
    for i in range(min_prefix, n):
        Xp, yp = X[:i], y[:i]
        x_offset = Xp.mean(axis=0) if intercept else np.zeros(d)
        y_offset = yp.mean() if intercept else 0.0
        Xc, yc = Xp - x_offset, yp - y_offset
        # the prefix's fit resolves its own column scales and "auto" noise prior
        scale = column_scales(Xc, params["standardize"], None, x_offset)
        whiten = 1.0 / (np.sqrt(precision) * scale)
        if isinstance(params["noise_prior"], str):  # "auto": InvGamma(a0, a0 Var(y))
            a0, b0 = auto_noise_prior(float(np.var(yp)))
        else:
            a0, b0 = (float(v) for v in params["noise_prior"])
        Xc = Xc * whiten
        eigenvalues, vectors = np.linalg.eigh(Xc.T @ Xc)
        eigenvalues = np.clip(eigenvalues, 0.0, None)
        z, w = vectors.T @ (Xc.T @ yc), vectors.T @ ((X[i] - x_offset) * whiten)
        if conjugate:
            taus, means, variances = _conjugate_prefix_fit(
                alphas, eigenvalues, z, w, yc @ yc, i, a0, b0, fixed)
            shapes = a0 + 0.5 * (alphas * i + d)
        else:
            taus, means, variances = linear_prefix_fixed_points(
                alphas, eigenvalues, z, w, yc @ yc, i, a0, b0, 1.0 / response_variance(yc),
                0.0 if fixed is None else 1.0 / fixed, max_iter, tol)
            shapes = a0 + 0.5 * alphas * i
        elt = np.log(taus) if fixed is not None else digamma(shapes) - np.log(shapes / taus)
        losses[:, i - min_prefix] = gaussian_row_losses(taus, elt, y[i] - y_offset - means,
                                                        variances, kind)
    return losses


def _conjugate_prefix_fit(alphas, eigenvalues, z, w, yy, n_rows, a0, b0, fixed):
    """The fixed point of the CAVI of :class:`~alphavb.AlphaLinearRegression` with
    ``coef_prior="conjugate"`` on one prefix, for every alpha, in closed form (the
    eigenbasis of :func:`~alphavb.linear_model._kernels.linear_prefix_fixed_points`, whitened
    so that ``beta | sigma2 ~ N(0, sigma2 I)``): ``m = alpha z / (alpha lambda + 1)`` does
    not depend on ``tau``, ``V = diag(1 / (tau (alpha lambda + 1)))``, and ``tau = (a0 + d/2
    + alpha n/2) / (b0 + (Q + d / tau) / 2)`` with ``Q = alpha ||y - X m||^2 + ||m||^2``
    solves to ``tau = (a0 + alpha n / 2) / (b0 + Q / 2)``. Returns per alpha ``tau``,
    ``x' m`` and ``x' V x``."""
    ratio = 1.0 / (alphas[:, None] * eigenvalues[None] + 1.0)       # (n_alphas, d)
    m = alphas[:, None] * z[None] * ratio
    residual = np.maximum(yy - 2.0 * m @ z + (m * m) @ eigenvalues, 0.0)
    if fixed is None:
        taus = (a0 + 0.5 * alphas * n_rows) / (b0 + 0.5 * (alphas * residual
                                                             + np.sum(m * m, axis=1)))
    else:
        taus = np.full(len(alphas), 1.0 / fixed)
    return taus, m @ w, (ratio @ (w * w)) / taus


def prefix_schedule(n, min_prefix, growth):
    """Prefix lengths ``min_prefix, ceil(min_prefix growth), ...`` below ``n``: prefix k
    is fitted and scores the rows up to prefix k + 1 (the last one up to ``n``)."""
    lengths = [min_prefix]
    while lengths[-1] < n:
        lengths.append(min(n, max(lengths[-1] + 1, int(np.ceil(lengths[-1] * growth)))))
    return lengths


def refit_prequential_losses(estimator, X, y, alphas, min_prefix, growth, kind,
                             random_state=0, on_fit=None):
    """Per alpha, the losses of rows ``min_prefix..n-1``, each scored by the fit on the
    largest scheduled prefix before it (:func:`prefix_schedule`); an estimator with
    ``warm_start`` starts each prefix's CAVI from the previous prefix's ``q`` and, from the
    second prefix on, also afresh, keeping the larger objective (a spike-and-slab ``q``
    warm-started from a short prefix stayed in the empty model, 8 nats below a fresh fit).
    ``on_fit()`` is called after every fit (a progress bar).

    ``y`` is None for the mixture and LDA (a row is a point or a document). Where the
    R-log loss is a Monte Carlo average over draws of ``q``, every prefix and alpha uses
    the draws of seed ``random_state`` (common random numbers).
    """
    model_kind = kind_of(estimator)
    n = X.shape[0]
    lengths = prefix_schedule(n, min_prefix, growth)
    losses = np.empty((len(alphas), n - min_prefix))
    warm = "warm_start" in estimator.get_params(deep=False)
    on_fit = on_fit or (lambda: None)
    for a, alpha in enumerate(alphas):
        # one model per alpha, each prefix's fit started from the previous prefix's q
        model = clone(estimator).set_params(alpha=alpha)
        for index, (start, stop) in enumerate(itertools.pairwise(lengths)):
            if warm:
                model.set_params(warm_start=index > 0)
            else:
                model = clone(model)
            # a short prefix may leave q(sigma2) without a finite mean (a UserWarning);
            # the row losses use its shape and scale, which are finite; no prefix fit is
            # checked against the exact posterior (the selector's refit is)
            with quietly(ConvergenceWarning, UserWarning), without_checks():
                model.fit(X[:start], None if y is None else y[:start])
                on_fit()
                if warm and index > 0:
                    fresh = clone(model).set_params(warm_start=False)
                    fresh.fit(X[:start], None if y is None else y[:start])
                    on_fit()
                    if fresh.elbo_ > model.elbo_:
                        model = fresh
            losses[a, start - min_prefix:stop - min_prefix] = model_kind.row_losses(
                model, X[start:stop], None if y is None else y[start:stop], kind,
                random_state)
    return losses
