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
        self.n_steps += 1
        self.first = self.beta1 * self.first + (1 - self.beta1) * gradient
        self.second = self.beta2 * self.second + (1 - self.beta2) * gradient**2
        first_hat = self.first / (1 - self.beta1**self.n_steps)
        second_hat = self.second / (1 - self.beta2**self.n_steps)
        return x - self.learning_rate * first_hat / (np.sqrt(second_hat) + self.eps)
