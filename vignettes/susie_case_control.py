"""Vignette: fine-mapping binary traits with logistic alpha-SuSiE.

Simulated binary traits on a window of GEMMA's mouse_hs1940 genotypes (a balanced cohort,
a rare trait in a cohort, an ascertained case-control sample): AlphaSuSiEClassifier at
alpha = 1 and 0.5 beside linear AlphaSuSiE on the 0/1 trait, 200 replications each, and
the classifier against its exact alpha-posterior (Polya-Gamma Gibbs) on 20. Same as
``alphavb reproduce susie-case-control``; needs ``$ALPHAVB_DATA/plink/``.

``--quick``: 100 variants, 10 replications, 2 short exact comparisons.

Run: python vignettes/susie_case_control.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("susie-case-control"))
