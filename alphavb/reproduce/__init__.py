"""The papers' worked examples, run by ``alphavb reproduce TARGET`` (and the scripts in
``vignettes/``).

One module per paper, one place for outputs, one registry:

* :mod:`~alphavb.reproduce.alpha_vb`: Yang, Pati & Bhattacharya (2020), Figure 1 (``hdr``),
  Figure 2 (``gmm``), Table 1 (``lda``);
* :mod:`~alphavb.reproduce.rates`: their risk rates (Cor. 4.1-4.5, D.1) as simulation studies
  (``*-rate``);
* :mod:`~alphavb.reproduce.coverage`: the frequentist coverage of alpha-VB's credible
  intervals, a simulation study with Monte Carlo errors (``coverage``);
* :mod:`~alphavb.reproduce.misspecified`: choosing alpha (SafeBayes, calibration,
  information matching, CV) on Grünwald & van Ommen's wrong-model regression and Wu &
  Martin's coverage comparison (``misspecified``);
* :mod:`~alphavb.reproduce.bbalpha`: Hernández-Lobato et al. (2016), BNNs on UCI
  (``bbalpha-uci``), classification (``bbalpha-classification``), Figure 2
  (``bbalpha-modes``);
* :mod:`~alphavb.reproduce.varbvs`: varbvs's Leukemia vignette at several alpha
  (``leukemia``);
* :mod:`~alphavb.reproduce.aadm`: Rodríguez-Santana & Hernández-Lobato (2022), the toy
  problems, the UCI comparison and an ablation (``aadm-*``);
* ``_output`` writes figures and tables, ``_uci`` fits the UCI benchmarks; fitted rows are
  kept in the :mod:`alphavb.cache` result cache under ``OUT_DIR/fits`` (``OUT_DIR/cache``
  for the rate studies), so a re-run reuses them.

:data:`TARGETS` maps each target name to its function and :data:`TARGET_HELP` to a line of
help; the command line reads both.
"""

from .aadm import reproduce_aadm_ablation, reproduce_aadm_toy, reproduce_aadm_uci
from .alpha_vb import reproduce_gmm, reproduce_hdr, reproduce_lda
from .bbalpha import (
    reproduce_bbalpha_classification,
    reproduce_bbalpha_modes,
    reproduce_bbalpha_uci,
)
from .coverage import reproduce_coverage
from .misspecified import reproduce_misspecified
from .rates import RATE_STUDIES, RATE_TARGETS, reproduce_rate
from .varbvs import reproduce_leukemia

TARGETS = {"hdr": reproduce_hdr, "gmm": reproduce_gmm, "lda": reproduce_lda,
           "bbalpha-uci": reproduce_bbalpha_uci,
           "bbalpha-classification": reproduce_bbalpha_classification,
           "bbalpha-modes": reproduce_bbalpha_modes, "leukemia": reproduce_leukemia,
           "aadm-toy": reproduce_aadm_toy,
           "aadm-uci": reproduce_aadm_uci, "aadm-ablation": reproduce_aadm_ablation,
           **RATE_TARGETS, "coverage": reproduce_coverage,
           "misspecified": reproduce_misspecified}

TARGET_HELP = {
    "hdr": "sparse regression, the paper's Figure 1",
    "gmm": "Gaussian mixture, the paper's Figure 2",
    "lda": "AP topics, the paper's Table 1 (needs the AP corpus)",
    "bbalpha-uci": "BB-alpha BNNs on the UCI benchmarks (needs the UCI splits)",
    "bbalpha-classification": "BB-alpha probit regression and classifier BNNs at alpha 0, "
                              "0.5, 1 (breast cancer, digits)",
    "bbalpha-modes": "BB-alpha's Figure 2: alpha-divergence minimisers of a factorized "
                     "Gaussian",
    "leukemia": "varbvs's Leukemia vignette: logistic spike-and-slab at alpha 0.5, 0.8, 1 "
                "and the lasso path (needs the Leukemia data)",
    "aadm-toy": "AADM's Figure 2 and Table 1",
    "aadm-uci": "AADM, AVB and VI on the UCI benchmarks (needs the UCI splits)",
    "aadm-ablation": "which of the AADM authors' design choices make alpha = 1 work (UCI)",
    "regression-rate": "risk rate of Bayesian linear regression (Cor. 4.1)",
    "spike-slab-rate": "risk rate of spike-and-slab regression (Cor. 4.2)",
    "gmm-rate": "risk rate of the Gaussian mixture (Cor. 4.4)",
    "lda-rate": "risk rate of LDA in the document length (Cor. 4.5)",
    "logistic-rate": "risk rate of Gaussian and mixture alpha-VB for logistic regression "
                     "(Cor. 4.3, D.1)",
    "coverage": "frequentist coverage, width and relerror of 95% credible intervals against n "
                "(linear, misspecified linear, spike-and-slab, logistic, mixture means)",
    "misspecified": "choosing alpha: Grunwald & van Ommen's wrong-model regression (risk and "
                    "selected alpha against n) and Wu & Martin's coverage comparison",
}

__all__ = [
    "RATE_STUDIES",
    "TARGETS",
    "TARGET_HELP",
    "reproduce_aadm_ablation",
    "reproduce_aadm_toy",
    "reproduce_aadm_uci",
    "reproduce_bbalpha_classification",
    "reproduce_bbalpha_modes",
    "reproduce_bbalpha_uci",
    "reproduce_coverage",
    "reproduce_gmm",
    "reproduce_hdr",
    "reproduce_lda",
    "reproduce_leukemia",
    "reproduce_misspecified",
    "reproduce_rate",
]
