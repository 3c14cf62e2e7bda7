"""Vignette: do alpha-SuSiE's credible sets keep their coverage when the model is wrong?

Fine-mapping simulations on the real LD of susieR's N3finemapping genotypes, 1 to 3 causal
variants, the correct model and three misspecifications (LD from other rows, t3 noise, a
polygenic background), at alpha in {0.25, 0.5, 0.75, 1} and at the alpha SafeBayes and
cross-validation select: coverage, power, size and purity of the 95% credible sets and the
calibration of the PIPs, 200 replications per setting with Monte Carlo errors. Same as
``alphavb reproduce susie-calibration``; needs ``$ALPHAVB_DATA/susie/``. Fits are cached in
``OUT_DIR/cache``: an interrupted run resumes.

``--quick``: 200 variants, 10 replications, alpha in {0.5, 1}, SafeBayes only.

Run: python vignettes/susie_calibration.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("susie-calibration"))
