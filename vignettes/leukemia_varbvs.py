"""Vignette: varbvs's Leukemia analysis (logistic spike-and-slab), tempered by alpha.

The R package varbvs's vignette fits Bayesian variable selection for logistic regression to
the Leukemia data (72 samples x 3,571 genes) over a grid of prior log-odds from -3.5 to -1
and compares it with glmnet's lasso. This runs the same analysis with
``AlphaSpikeSlabClassifier`` at alpha = 0.5, 0.8 and 1 (1 is varbvs's model), with
scikit-learn's L1-penalised logistic regression path beside it. Same as
``alphavb reproduce leukemia``; needs the data in ``$ALPHAVB_DATA/leukemia/``.

``--quick``: alpha = 0.5 and 1, 6 log-odds, 5 folds.  ``--jobs N``: folds in parallel.

Run: python vignettes/leukemia_varbvs.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("leukemia"))
