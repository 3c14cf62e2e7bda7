"""Vignette: which of the AADM authors' design choices make alpha = 1 work on UCI data.

AADM at alpha = 1 with alphavb's defaults, each choice of the authors' code (a row's own
weight draws, point-estimated biases, the prior variance learned from exp(-5), the
discriminator started at N(0, 0.1^2), the noise variance started at 0.1, e^0.01 or 0.01 times
var(y)) switched on alone, and all of them together, beside AADM at alpha = 0.5, AVB and VI
with the same budget: the paper's UCI networks and schedule for 200 epochs on the first 5
standard boston splits. Writes the test log-likelihood and RMSE (mean +- standard error over
the splits, and the worst split) as CSV and Markdown. Same as ``alphavb reproduce
aadm-ablation``; needs the splits in the data home (``ALPHAVB_DATA``).

Run: python vignettes/aadm_ablation.py [OUT_DIR] [--quick] [--epochs N] [--splits N]
     [--datasets boston,yacht] [--jobs N]
"""

import sys

from alphavb.cli import vignette

if __name__ == "__main__":
    sys.exit(vignette("aadm-ablation"))
