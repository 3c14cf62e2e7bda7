"""Vignette: the risk rate of low-dimensional Bayesian linear regression (Cor. 4.1).

d = 5 Gaussian features, coefficients of magnitude 0.5 to 2, unit noise;
AlphaLinearRegression (normal x inverse-gamma mean field) at alpha = 0.5, 0.8, 1 and n = 100
to 3,200, 40 replications each. Theory: squared Hellinger risk ~ d log(dn)/n. Writes the
risk against n on log-log axes with the theory's rate and the OLS lines (PNG), the fitted
slopes with 95% confidence intervals (CSV, Markdown) and every fit (CSV). Same as ``alphavb
reproduce regression-rate``; minutes on 2 cores with ``--jobs 2``, seconds with ``--quick``.
Fits are cached in OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/regression_rate.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("regression-rate"))
