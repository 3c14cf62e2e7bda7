"""Gradient-based black-box backend on autograd (Yang, Pati & Bhattacharya 2020,
Cor. 4.3 and D.1; Hernández-Lobato et al. 2016; Rodríguez-Santana & Hernández-Lobato 2022).

Two different alphas live here. In ``BBAlphaRegressor``, ``BBAlphaClassifier`` and
``AADMRegressor`` the **order of the alpha-divergence** minimized, ``alpha >= 0`` in their
papers (``0`` is VB), is the parameter ``divergence_order`` (:mod:`alphavb.divergences`
calls it ``order`` too). In ``AlphaGaussianVB`` and
``AlphaLogisticRegression``, as in every closed-form model of alphavb, ``alpha`` in (0, 1]
is the **likelihood's temperature** (alpha-VB), and ``1`` is VB.

* :func:`~alphavb.blackbox.energies.bbalpha_energy`: the BB-alpha energies (exact,
  reparametrized, and the VB limit) as pure functions of a flat parameter vector;
* :class:`BBAlphaRegressor`, :class:`BBAlphaClassifier`: Bayesian neural networks and
  probit / softmax regression fitted by BB-alpha;
* :class:`AADMRegressor`: Bayesian neural networks with an implicit posterior (a generator
  network), fitted by adversarial alpha-divergence minimization (Rodríguez-Santana &
  Hernández-Lobato 2022);
* :class:`AlphaGaussianVB`, :class:`AlphaLogisticRegression`: Gaussian and
  mixture-of-Gaussians alpha-VB for any autograd-differentiable likelihood;
* :func:`fit_stacked`: several BB-alpha or AADM fits (splits, seeds, alphas) trained as one
  stacked computation, each with the result of its own ``fit``.

All stochastic-gradient fits run through one training loop (:mod:`._training`): mini-batches,
Adam, KL warm-up, a convergence rule with ``ConvergenceWarning``, early stopping.
"""

from ._aadm import AADM_PAPER_SETTINGS, AADMRegressor
from ._bbalpha import BBAlphaClassifier, BBAlphaRegressor
from ._gaussian_vb import AlphaGaussianVB
from ._logistic import AlphaLogisticRegression
from ._training import fit_stacked
from .energies import bbalpha_energy

__all__ = ["AADM_PAPER_SETTINGS", "AADMRegressor", "AlphaGaussianVB", "AlphaLogisticRegression",
           "BBAlphaClassifier", "BBAlphaRegressor", "bbalpha_energy", "fit_stacked"]
