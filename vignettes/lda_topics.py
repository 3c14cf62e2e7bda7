"""Vignette: the paper's Table 1, topics of the Associated Press corpus with alpha-VB LDA.

Yang, Pati & Bhattacharya (2020), Section 5: ten topics of the AP corpus (2,246 news
articles; read by ``alphavb.datasets.load_ap`` from the data home, ``ALPHAVB_DATA``) at
alpha = 0.5, 0.8, 0.95, 1, with empirical-Bayes Dirichlet priors. The top five words of each
topic are written as a table per alpha, with each alpha's held-out perplexity (10% of the
documents). Same as ``alphavb reproduce lda``.

Run: python vignettes/lda_topics.py [OUT_DIR]
"""

import sys

from alphavb.reproduce import print_summary, reproduce_lda

if __name__ == "__main__":
    print_summary(reproduce_lda(sys.argv[1] if len(sys.argv) > 1 else "results/lda"))
