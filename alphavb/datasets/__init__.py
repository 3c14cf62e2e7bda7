"""Data generators of the papers' simulations (``make_*``), and loaders of real data sets
read from a data home (``load_*``; :func:`get_data_home`)."""

from .._uci_folders import UCI_FOLDERS
from ._plink import load_mouse_hs1940, read_plink
from ._real import (
    AP_URL,
    UCI_URL,
    YEAR_URL,
    get_data_home,
    load_ap,
    load_leukemia,
    load_n3finemapping,
    load_uci,
)
from ._synthetic import (
    make_bimodal,
    make_gmm,
    make_heteroscedastic,
    make_lda_corpus,
    make_sparse_regression,
    make_wrong_model_regression,
)

__all__ = [
    "AP_URL",
    "UCI_FOLDERS",
    "UCI_URL",
    "YEAR_URL",
    "get_data_home",
    "load_ap",
    "load_leukemia",
    "load_mouse_hs1940",
    "load_n3finemapping",
    "load_uci",
    "make_bimodal",
    "make_gmm",
    "make_heteroscedastic",
    "make_lda_corpus",
    "make_sparse_regression",
    "make_wrong_model_regression",
    "read_plink",
]
