"""Adam (Kingma & Ba 2015) on one flat parameter vector."""

import numpy as np


class Adam:
    """Adam steps ``x <- x - lr * m_hat / (sqrt(v_hat) + eps)`` on a flat float vector.

    The same update as ``autograd.misc.optimizers.adam``, kept as an object so the training
    loop can stop early, record the energy and resume with ``partial`` epochs.
    """

    def __init__(self, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
        self.learning_rate = learning_rate
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.first = self.second = None
        self.n_steps = 0

    def step(self, x, gradient):
        """Return the updated copy of ``x`` after one step along ``gradient``."""
        if self.first is None:
            self.first = np.zeros_like(x)
            self.second = np.zeros_like(x)
            self._work = np.empty_like(x)
        self.n_steps += 1
        beta1, beta2, work = self.beta1, self.beta2, self._work
        # the moments are updated in place: for the AADM generator (~1e5 entries) the
        # temporaries of the plain expressions cost three times as much
        self.first *= beta1
        self.first += (1 - beta1) * gradient
        np.multiply(gradient, gradient, out=work)
        work *= 1 - beta2
        self.second *= beta2
        self.second += work
        np.divide(self.second, 1 - beta2**self.n_steps, out=work)  # second_hat
        np.sqrt(work, out=work)
        work += self.eps
        np.divide(self.first / (1 - beta1**self.n_steps), work, out=work)  # first_hat / ...
        work *= self.learning_rate
        return x - work
