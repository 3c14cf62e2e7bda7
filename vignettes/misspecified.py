"""Vignette: choosing alpha when the model is wrong.

Grünwald & van Ommen's wrong-model regression (p = 50, half the rows an "easy point"): the
excess squared risk at alpha = 1 and at the alpha each AlphaSelector method chooses
(SafeBayes R-log and I-log, calibration, information matching, CV), n = 20 to 400, 50
replications, correct and wrong model; and Wu & Martin's (2023) coverage comparison
(normal, heteroscedastic and t_5 errors, n = 50 and 200, 200 replications). Same as
``alphavb reproduce misspecified``; fits are cached in OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/misspecified.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("misspecified"))
