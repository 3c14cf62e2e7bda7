"""Vignette: SuSiE 2.0's fine-mapping benchmark on real genotypes, with alpha chosen for the
credible sets.

SuSiE 2.0's simulation scenarios (sparse with K = 1-5, the oligogenic S1 and S2) and our
misspecifications (t3 noise, a polygenic background, LD from other individuals) on windows
of 5,000 variants of the mouse_hs1940 genotypes, 1,000 mice per replicate: SuSiE and
SuSiE-inf at alpha = 1, 0.75, 0.5 and with alpha calibrated for the credible sets; with LD
from other mice also the mismatch variance (``ld_mismatch="eb"``). Coverage, power, size,
purity and PIP calibration of the 95% credible sets, with Monte Carlo errors. Same as
``alphavb reproduce susie2-benchmark``; needs ``$ALPHAVB_DATA/plink/``. Fits are cached in
``OUT_DIR/cache``: an interrupted run resumes.

``--quick``: 300 variants, 300 mice, 2 replicates of three scenarios.

Run: python vignettes/susie2_benchmark.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("susie2-benchmark"))
