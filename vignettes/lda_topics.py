"""Vignette: the paper's Table 1, topics of the Associated Press corpus with alpha-VB LDA.

Yang, Pati & Bhattacharya (2020), Section 5: ten topics of the AP corpus (2,246 news
articles; read by ``alphavb.datasets.load_ap`` from the data home, ``ALPHAVB_DATA``) at
alpha = 0.5, 0.8, 0.95, 1, with empirical-Bayes Dirichlet priors. The top five words of each
topic are written as a table per alpha, with each alpha's held-out perplexity (10% of the
documents). Same as ``alphavb reproduce lda``.

``--quick``: alpha = 0.5 and 1, 3 sweeps each.

Run: python vignettes/lda_topics.py [OUT_DIR] [--quick]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("lda"))
