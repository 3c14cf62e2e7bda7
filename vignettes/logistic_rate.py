"""Vignette: Gaussian and mixture-of-Gaussians alpha-VB for logistic regression (Cor. 4.3, D.1).

d = 3 Gaussian features plus an intercept; AlphaLogisticRegression with a full-covariance
Gaussian q and with a 2-component mixture q, at alpha = 0.5, 0.8, 1 and n = 100 to 3,200, 10
replications each. Theory: risk ~ d log(dn)/n for both families. Writes the risk against n
on log-log axes with the theory's rate and the OLS lines (PNG), the fitted slopes with 95%
confidence intervals (CSV, Markdown) and every fit (CSV). Same as ``alphavb reproduce
logistic-rate``; minutes on 2 cores with ``--jobs 2``, seconds with ``--quick``. Fits are
cached in OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/logistic_rate.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("logistic-rate"))
