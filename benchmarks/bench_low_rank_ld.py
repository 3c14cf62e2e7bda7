"""Summary-statistics fits with the LD of a small panel: the eigendecomposition a background
(``unmappable_effects="inf"``) and the LD mismatch check (``ld_mismatch="eb"``) need, through
the panel LD's pivoted Cholesky factor (:func:`alphavb.linear_model._susie_inf.gram_eigen`)
against the full eigendecomposition it replaced, on one replicate of the susie2 benchmark's
``ld_mismatch`` scenario (a window of 5,000 mouse_hs1940 variants, z-scores of 1,000 mice,
``R`` of 500 others: rank 499), one thread, medians of ``--repeats`` fits, each clearing
the kept decomposition first.

The floor: the factor of rank ``r`` costs about ``p r^2`` FLOPs and its thin SVD about
``4 p r^2 + 22 r^3`` (Golub & Van Loan's R-SVD count), against about ``9 p^3`` for the full
symmetric eigensolver with vectors; both divided by this machine's 1-thread dgemm rate
(``machine_floor.py``), which neither reaches (neither is one large product).

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_low_rank_ld.py [--repeats R]
"""

import argparse
import time
import warnings

import numpy as np
from machine_floor import gemm_rate  # benchmarks/ is the script's folder
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_inf
from alphavb.reproduce import susie2_benchmark
from alphavb.reproduce.susie_calibration import z_scores
from alphavb.simulation._cells import _seeds


def replicate(number=0):
    """The z-scores, the panel's LD, n and the panel's size of one ld_mismatch replicate."""
    seed = _seeds(0, number, {"n_samples": susie2_benchmark.data.N_SAMPLES})[0]
    X, y, _ = susie2_benchmark._simulate(susie2_benchmark.data.N_SAMPLES, seed, "ld_mismatch",
                                         susie2_benchmark.data.WINDOW)
    known = ~np.isnan(y)
    panel = X[~known]
    return z_scores(X[known], y[known]), np.corrcoef(panel, rowvar=False), int(known.sum()), \
        panel.shape[0]


def timed_fit(options, z, R, n, low_rank_share, repeats):
    """Median seconds and the last fit of ``AlphaSuSiE(**options[0]).fit_summary(z, R, n,
    **options[1])`` with ``LOW_RANK_SHARE`` set (0: the full eigendecomposition)."""
    saved = _susie_inf.LOW_RANK_SHARE
    _susie_inf.LOW_RANK_SHARE = low_rank_share
    seconds = []
    try:
        for _ in range(repeats):
            _susie_inf._LAST_DESIGN.clear()
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # mismatch flags and boundary notes
                model = AlphaSuSiE(**options[0]).fit_summary(z, R, n, **options[1])
            seconds.append(time.perf_counter() - started)
    finally:
        _susie_inf.LOW_RANK_SHARE = saved
    return float(np.median(seconds)), model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    z, R, n, panel = replicate()
    p = R.shape[0]
    with threadpool_limits(1):
        rate = gemm_rate((1000, 1000, 1000), np.float64, 3) * 1e9
        rank = len(_susie_inf.design_eigen(R, is_gram=True)[0])
        fits = {"SuSiE-inf": ({"unmappable_effects": "inf"}, {}),
                "SuSiE, eb": ({}, {"ld_mismatch": "eb", "reference_n_samples": panel})}
        print(f"p = {p}, panel of {panel}: rank {rank}; 1-thread dgemm {rate / 1e9:.1f} GFLOP/s")
        print("| fit | full eigh s | pivoted Cholesky s | ratio | max PIP difference |")
        print("|---|---|---|---|---|")
        for name, options in fits.items():
            full, before = timed_fit(options, z, R, n, 0.0, args.repeats)
            fast, after = timed_fit(options, z, R, n, _susie_inf.LOW_RANK_SHARE, args.repeats)
            difference = np.abs(after.inclusion_probabilities_
                                - before.inclusion_probabilities_).max()
            print(f"| {name} | {full:.2f} | {fast:.2f} | {fast / full:.3f} | {difference:.1e} |")
        started = time.perf_counter()
        _susie_inf.gram_eigen(R)
        decomposition = time.perf_counter() - started
        floor = (p * rank**2 + 4 * p * rank**2 + 22 * rank**3) / rate
        print(f"decomposition alone: {decomposition:.2f} s; floor {floor:.2f} s "
              f"({floor / decomposition:.0%} of it reached); full eigh floor "
              f"{9 * p**3 / rate:.1f} s")


if __name__ == "__main__":
    main()
