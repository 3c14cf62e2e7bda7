"""Vignette: the risk of latent Dirichlet allocation against the document length (Cor. 4.5).

Corpora of 50 documents drawn from LDA (K = 3 topics over 40 words) with mean length n = 25
to 800 (Table 1 on the AP corpus is lda_topics.py); AlphaLDA at alpha = 0.5, 0.8, 1, the
best of 8 starts, 12 replications each. The risk compares each document's word distribution
theta_d' beta with the truth; it falls like K log(n)/n. Writes the risk against n on log-log
axes with the theory's rate and the OLS lines (PNG), the fitted slopes with 95% confidence
intervals (CSV, Markdown) and every fit (CSV). Same as ``alphavb reproduce lda-rate``;
minutes on 2 cores with ``--jobs 2``, seconds with ``--quick``. Fits are cached in
OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/lda_rate.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("lda-rate"))
