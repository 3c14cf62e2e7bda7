"""Vignette: the paper's Figure 2, a bivariate Gaussian mixture fitted by alpha-VB.

Yang, Pati & Bhattacharya (2020), Section 5: n = 1000 points from three unit-covariance
components with weights 1/3, means drawn from N(0, c^2 I) (c = 5 here; see
``alphavb.datasets.make_gmm``). The paper's model has known weights and covariance, and a
N(0, 50 I) prior on each mean. The predictive densities at alpha = 0.1, 0.5, 0.95, 1 all
recover the three components; smaller alpha widens q(mu_k) (sd about 1/sqrt(alpha n_k)).
Beside the paper's model: a Dirichlet-process mixture with K = 10 (how many components
each alpha keeps) and a K = 3 tied-covariance mixture, weights and covariances unknown.
Same as ``alphavb reproduce gmm``.

``--quick``: alpha = 0.5 and 1 only.

Run: python vignettes/gmm_density.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("gmm"))
