"""Vignette: the risk rate of spike-and-slab regression (Cor. 4.2).

The paper's Figure 1 design with d = 200 (the first 4 coefficients non-zero, 1.5 to 3, unit
noise; Figure 1 itself is hdr_spike_slab.py); AlphaSpikeSlabRegression at alpha = 0.5, 0.8,
1 and n = 100 to 1,600, 30 replications each. Theory: risk ~ s log(dn)/n. Writes the risk
against n on log-log axes with the theory's rate and the OLS lines (PNG), the fitted slopes
with 95% confidence intervals (CSV, Markdown) and every fit (CSV). Same as ``alphavb
reproduce spike-slab-rate``; minutes on 2 cores with ``--jobs 2``, seconds with ``--quick``.
Fits are cached in OUT_DIR/cache, so a re-run resumes.

Run: python vignettes/spike_slab_rate.py [OUT_DIR] [--quick] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("spike-slab-rate"))
