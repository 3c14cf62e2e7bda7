"""Vignette: the frequentist coverage of alpha-VB's 95% credible intervals.

Linear regression (correct model, and noise growing with the first covariate),
spike-and-slab regression (non-zero and zero coefficients), logistic regression with a
Gaussian q and the Gaussian mixture's means, at alpha = 0.5, 0.8, 1 over five sample sizes,
1,000 replications per point (500 for the logistic and mixture models). Writes coverage,
mean width and relerror (model SE against empirical SE) with Monte Carlo error bars (PNG),
the pooled numbers (CSV), every rsimsum statistic per parameter (CSV) and the table at the
largest n (Markdown). Same as ``alphavb reproduce coverage``; about 15 minutes on 2 cores
with ``--jobs 2``, seconds with ``--quick``. Fits are cached in OUT_DIR/cache, so a re-run
resumes.

Run: python vignettes/coverage.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("coverage"))
