"""A Gaussian mixture's density at given parameters, written once for the model-selection
criteria that need it at draws of ``q``, at plug-in estimates and under autograd."""


def mixture_log_density(X, log_weights, means, precision_chol):
    """``log sum_k pi_k N(x | mu_k, (L_k L_k')^{-1})`` of each row of ``X`` (n, p), with
    ``log_weights`` (..., r, K), ``means`` (..., r, K, p) and the lower Cholesky factors
    ``L_k`` of the precisions (..., r, K, p, p), ``r`` 1 (one parameter for every row) or n
    (one per row); leading axes (draws of ``q``) broadcast, giving (..., n). Written in
    ``autograd.numpy`` so information matching can differentiate it."""
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    from .._special import LOG_2PI

    diff = X[:, None, :] - means                                          # (n, K, p)
    whitened = anp.sum(diff[..., :, None] * precision_chol, axis=-2)      # L_k' (x - mu_k)
    log_det = anp.sum(anp.log(anp.diagonal(precision_chol, axis1=-1, axis2=-2)), axis=-1)
    log_components = (log_weights + log_det - 0.5 * anp.sum(whitened**2, axis=-1)
                      - 0.5 * X.shape[1] * LOG_2PI)
    return logsumexp(log_components, axis=-1)


def draws_log_density(model, X, weights, means, precisions):
    """:func:`mixture_log_density` of a fitted mixture ``model``'s family at parameters with
    a leading axis ``r`` (draws or plug-ins): ``weights`` (..., r, K), ``means`` (..., r, K,
    p) and ``precisions`` in the family's layout; a weight of 0 is an empty term."""
    import numpy as np

    from ._families import family_of

    p = X.shape[1]
    chol = np.linalg.cholesky(family_of(model).as_matrices(precisions, p))
    chol = np.broadcast_to(chol, (*means.shape[:-1], p, p))
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    return mixture_log_density(X, log_weights, means, chol)
