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
* :mod:`~alphavb.reproduce.vb_vs_exact`: alpha-VB against the exact alpha-posterior of
  :mod:`alphavb.exact` (``vb-vs-exact``);
* :mod:`~alphavb.reproduce.susie_calibration`: alpha-SuSiE's credible sets under
  misspecification on real LD (``susie-calibration``);
* :mod:`~alphavb.reproduce.susie2_benchmark`: SuSiE 2.0's fine-mapping benchmark on mouse
  genotypes, with alpha calibrated for the credible sets (``susie2-benchmark``);
* :mod:`~alphavb.reproduce.susie_case_control`: logistic alpha-SuSiE on binary traits
  beside linear SuSiE and the exact alpha-posterior (``susie-case-control``);
* :mod:`~alphavb.reproduce.aadm`: Rodríguez-Santana & Hernández-Lobato (2022), the toy
  problems, the UCI comparison and an ablation (``aadm-*``);
* ``_output`` writes figures and tables, ``_uci`` fits the UCI benchmarks; fitted rows are
  kept in the :mod:`alphavb.cache` result cache under ``OUT_DIR/fits`` (``OUT_DIR/cache``
  for the rate studies), so a re-run reuses them.

:data:`TARGETS` maps each target name to its function and :data:`TARGET_HELP` to a line of
help; the command line reads both.
"""

from collections.abc import MutableMapping
from importlib import import_module

# target name -> (module, function); the five rate targets are entries of rates.RATE_TARGETS
_TARGET_SOURCES = {
    "hdr": ("alpha_vb", "reproduce_hdr"), "gmm": ("alpha_vb", "reproduce_gmm"),
    "lda": ("alpha_vb", "reproduce_lda"),
    "bbalpha-uci": ("bbalpha", "reproduce_bbalpha_uci"),
    "bbalpha-classification": ("bbalpha", "reproduce_bbalpha_classification"),
    "bbalpha-modes": ("bbalpha", "reproduce_bbalpha_modes"),
    "leukemia": ("varbvs", "reproduce_leukemia"),
    "aadm-toy": ("aadm", "reproduce_aadm_toy"), "aadm-uci": ("aadm", "reproduce_aadm_uci"),
    "aadm-ablation": ("aadm", "reproduce_aadm_ablation"),
    **{name: ("rates", None) for name in ("regression-rate", "spike-slab-rate", "gmm-rate",
                                          "lda-rate", "logistic-rate")},
    "coverage": ("coverage", "reproduce_coverage"),
    "misspecified": ("misspecified", "reproduce_misspecified"),
    "vb-vs-exact": ("vb_vs_exact", "reproduce_vb_vs_exact"),
    "susie-calibration": ("susie_calibration", "reproduce_susie_calibration"),
    "susie2-benchmark": ("susie2_benchmark", "reproduce_susie2_benchmark"),
    "susie-case-control": ("susie_case_control", "reproduce_susie_case_control"),
}
# the targets whose function takes n_jobs (for the command line's help, which must not
# import them; tests/test_cli.py checks it against their signatures)
PARALLEL_TARGETS = ("bbalpha-uci", "bbalpha-classification", "leukemia", "aadm-toy",
                    "aadm-uci", "aadm-ablation", "regression-rate", "spike-slab-rate",
                    "gmm-rate", "lda-rate", "logistic-rate", "coverage", "misspecified",
                    "susie-calibration", "susie2-benchmark", "susie-case-control")


def _load_target(name):
    module, function = _TARGET_SOURCES[name]
    module = import_module(f".{module}", __name__)
    return module.RATE_TARGETS[name] if function is None else getattr(module, function)


class _Targets(MutableMapping):
    """Target name -> function, each target's module imported when it is first looked up
    (so ``alphavb --help`` imports none of them)."""

    def __init__(self, names):
        self._loaded, self._names = {}, list(names)

    def __getitem__(self, name):
        if name not in self._loaded:
            if name not in self._names:
                raise KeyError(name)
            self._loaded[name] = _load_target(name)
        return self._loaded[name]

    def __setitem__(self, name, function):
        if name not in self._names:
            self._names.append(name)
        self._loaded[name] = function

    def __delitem__(self, name):
        self._names.remove(name)
        self._loaded.pop(name, None)

    def __iter__(self):
        return iter(list(self._names))

    def __len__(self):
        return len(self._names)


TARGETS = _Targets(_TARGET_SOURCES)

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
    "vb-vs-exact": "alpha-VB against the exact alpha-posterior at alpha 0.25-1: Figure 1 "
                   "design, N3finemapping, Leukemia (needs the susie and Leukemia data)",
    "susie-calibration": "alpha-SuSiE's credible-set coverage, power and PIP calibration on "
                         "N3finemapping's LD, correct and misspecified (needs the susie "
                         "data)",
    "susie2-benchmark": "SuSiE 2.0's fine-mapping benchmark (sparse, S1, S2, t3, polygenic, "
                        "LD from other mice) on mouse genotypes: SuSiE and SuSiE-inf at "
                        "fixed alphas and with alpha calibrated for the credible sets "
                        "(needs the plink data)",
    "susie-case-control": "logistic alpha-SuSiE on binary traits (cohort, rare, "
                          "case-control) on mouse genotypes beside linear SuSiE on the 0/1 "
                          "trait and the exact alpha-posterior (needs the plink data)",
}

# the target functions by name, and RATE_STUDIES, on first use
_FUNCTIONS = {function: module for module, function in _TARGET_SOURCES.values() if function}
_FUNCTIONS.update({"RATE_STUDIES": "rates", "reproduce_rate": "rates"})


def __getattr__(name):
    if name in _FUNCTIONS:
        return getattr(import_module(f".{_FUNCTIONS[name]}", __name__), name)
    raise AttributeError(f"module 'alphavb.reproduce' has no attribute {name!r}")


__all__ = [
    "PARALLEL_TARGETS",
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
    "reproduce_susie_calibration",
    "reproduce_susie_case_control",
    "reproduce_vb_vs_exact",
]
