"""Vignette: how far alpha-VB is from the exact alpha-posterior it approximates.

At alpha = 0.25, 0.5, 0.8 and 1, the variational fit and the exact sampler of
``alphavb.exact`` (collapsed Gibbs with swap moves; Polya-Gamma Gibbs for the logistic
model) run on the same model, prior and data: the paper's Figure 1 design, susieR's
N3finemapping genotypes (both responses) and varbvs's Leukemia data. Same as
``alphavb reproduce vb-vs-exact``; needs ``$ALPHAVB_DATA/susie/`` and
``$ALPHAVB_DATA/leukemia/``.

``--quick``: alpha = 0.5 and 1, short chains, 200 variables of N3finemapping.

Run: python vignettes/vb_vs_exact.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("vb-vs-exact"))
