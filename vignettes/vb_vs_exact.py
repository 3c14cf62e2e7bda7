"""Vignette: how far alpha-VB is from the exact alpha-posterior it approximates.

At alpha = 0.25, 0.5, 0.8 and 1, the variational fit and the exact sampler of
``alphavb.exact`` (collapsed Gibbs with swap moves; Polya-Gamma Gibbs for the logistic
model; NUTS for the mixture and LDA) run on the same model, prior and data: the paper's
Figure 1 design, susieR's N3finemapping genotypes (both responses), varbvs's Leukemia data,
the paper's Figure 2 mixture and LDA on the first 5 AP documents. Same as
``alphavb reproduce vb-vs-exact``; needs ``$ALPHAVB_DATA/susie/``,
``$ALPHAVB_DATA/leukemia/`` and the AP corpus.

``--quick``: alpha = 0.5 and 1, short chains, 200 variables of N3finemapping, LDA on 2
documents.

Run: python vignettes/vb_vs_exact.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("vb-vs-exact"))
