"""Vignette: the risk rate of the Gaussian mixture (Cor. 4.4).

The paper's Figure 2 model (K = 3 bivariate components, equal known weights, identity
covariances, means N(0, 50 I) a priori; Figure 2 itself is gmm_density.py);
AlphaGaussianMixture at alpha = 0.5, 0.8, 1 and n = 100 to 3,200, 30 replications each. The
risk compares mixture densities (Monte Carlo). Theory: risk ~ d K log(dn)/n. Writes the risk
against n on log-log axes with the theory's rate and the OLS lines (PNG), the fitted slopes
with 95% confidence intervals (CSV, Markdown) and every fit (CSV). Same as ``alphavb
reproduce gmm-rate``; minutes on 2 cores with ``--jobs 2``, seconds with ``--quick``. Fits
are cached in OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/gmm_rate.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("gmm-rate"))
