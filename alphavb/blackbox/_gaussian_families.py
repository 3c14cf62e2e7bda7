"""The Gaussian families of :class:`~alphavb.blackbox.AlphaGaussianVB`'s ``q``, one class
per covariance family (``family="full"``: ``N(m, L L')`` with ``L`` lower-triangular;
``"diag"``: ``N(m, diag(s^2))``), each a mixture of ``J`` components (Yang, Pati &
Bhattacharya 2020, Cor. 4.3 and D.1) on one flat vector of free parameters that the
optimizer moves: the means, the scales (log-diagonal) and the weights' logits. The
estimator chooses the class once, by ``family``, and asks it for what depends on the
family (the factors, draws, covariances and log-determinants)."""

import autograd.numpy as anp
import numpy as np
from autograd.scipy.special import logsumexp


class _GaussianFamily:
    """The flat parametrization ``[means (J P), scales (J S), weight logits (J - 1)]`` of a
    mixture of ``J`` Gaussians in ``P`` parameters; a subclass is one covariance family
    (:data:`FAMILIES`), with its ``S`` scales per component and their factors."""

    def __init__(self, n_params, n_components):
        self.n_params, self.n_components = n_params, n_components
        self.n_scale = self.scales_per_component(n_params)
        self.size = n_components * (n_params + self.n_scale) + n_components - 1

    def pack(self, means, factors, log_weights):
        """Flat vector from means (J, P), the family's factors (as :meth:`unpack` gives
        them) and log weights (J,)."""
        logits = log_weights[1:] - log_weights[0]
        return np.concatenate([means.ravel(), self.scales(factors).ravel(), logits])

    def unpack(self, flat):
        """``(means (J, P), factors (the family's), log_weights (J,))``."""
        J, P = self.n_components, self.n_params
        means = anp.reshape(flat[:J * P], (J, P))
        raw = anp.reshape(flat[J * P:J * (P + self.n_scale)], (J, self.n_scale))
        logits = anp.concatenate([anp.zeros(1), flat[J * (P + self.n_scale):]])
        return means, self.factors(raw), logits - logsumexp(logits)

    def natural_units(self, flat):
        """Per entry of ``flat``, the scale that makes a gradient dimensionless (nats per
        posterior standard deviation): ``sd_i`` for a mean (and, full, for an entry of row
        ``i`` of the factor ``L``), 1 for a log scale and a weight logit."""
        _, factors, _ = self.unpack(flat)
        sds = np.sqrt(np.diagonal(np.asarray(self.covariances(factors)), axis1=1, axis2=2))
        return np.concatenate([sds.ravel(), self.scale_units(sds).ravel(),
                               np.ones(self.n_components - 1)])


class _FullGaussian(_GaussianFamily):
    """``N(m_j, L_j L_j')``: the factors are lower-triangular ``L_j`` (J, P, P), their
    entries row by row, the diagonal on the log scale."""

    def __init__(self, n_params, n_components):
        super().__init__(n_params, n_components)
        self._rows, self._cols = np.tril_indices(n_params)
        self._diagonal = self._rows == self._cols
        # scatter matrix: the lower-triangular entries (row-major) into a flat P x P matrix
        self._scatter = np.zeros((self.n_scale, n_params * n_params))
        self._scatter[np.arange(self.n_scale), self._rows * n_params + self._cols] = 1.0

    @staticmethod
    def scales_per_component(n_params):
        return n_params * (n_params + 1) // 2

    def start_factors(self, sds):
        return np.diag(sds)[None]

    def scales(self, factors):
        scales = factors[:, self._rows, self._cols].copy()
        scales[:, self._diagonal] = np.log(scales[:, self._diagonal])
        return scales

    def factors(self, raw):
        entries = anp.where(self._diagonal, anp.exp(raw), raw)
        return anp.reshape(anp.dot(entries, self._scatter),
                           (self.n_components, self.n_params, self.n_params))

    def scale_units(self, sds):
        return np.where(self._diagonal, 1.0, sds[:, self._rows])

    def draws(self, means, factors, eps):
        """``theta_{j s} = m_j + L_j eps_{j s}``: shape (J, S, P)."""
        return means[:, None, :] + anp.matmul(eps, anp.swapaxes(factors, 1, 2))

    def covariances(self, factors):
        return anp.matmul(factors, anp.swapaxes(factors, 1, 2))

    def log_dets(self, factors):
        """``log det Sigma_j`` for each component."""
        return 2.0 * anp.sum(anp.log(anp.diagonal(factors, axis1=-1, axis2=-2)), axis=1)


class _DiagGaussian(_GaussianFamily):
    """``N(m_j, diag(s_j^2))``: the factors are the sds ``s_j`` (J, P), on the log scale."""

    @staticmethod
    def scales_per_component(n_params):
        return n_params

    def start_factors(self, sds):
        return sds[None]

    def scales(self, factors):
        return np.log(factors)

    def factors(self, raw):
        return anp.exp(raw)

    def scale_units(self, sds):
        return np.ones_like(sds)

    def draws(self, means, factors, eps):
        """``theta_{j s} = m_j + s_j * eps_{j s}``: shape (J, S, P)."""
        return means[:, None, :] + factors[:, None, :] * eps

    def covariances(self, factors):
        return anp.einsum("jp,pq->jpq", factors**2, anp.eye(self.n_params))

    def log_dets(self, factors):
        """``log det Sigma_j`` for each component."""
        return 2.0 * anp.sum(anp.log(factors), axis=1)


# q's covariance families, by the estimator's ``family``
FAMILIES = {"full": _FullGaussian, "diag": _DiagGaussian}
