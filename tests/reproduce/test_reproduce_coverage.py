"""``alphavb reproduce coverage --quick``: its files, and what its numbers must show even
with few replications."""

import numpy as np

from alphavb import cli
from alphavb.reproduce.coverage import MODELS
from tests.reproduce.test_reproduce_rates import _rows


def test_quick_coverage_target(tmp_path, capsys):
    assert cli.main(["reproduce", "coverage", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    files = [tmp_path / name for name in ("coverage.png", "coverage.csv",
                                          "coverage_summary.csv", "coverage.md")]
    for path in files:
        assert f"wrote {path}" in out
    from tests.test_cli import png_description

    assert png_description(files[0]) == "quick run: few replications, not the study"
    rows = _rows(files[1])
    n_sets = sum(len(model.sets) for model in MODELS)
    assert len(rows) == n_sets * 2 * 2  # sets x quick n x quick alphas
    value = {(r["model"], r["set"], int(r["n_samples"]), float(r["alpha"])): r for r in rows}
    for row in rows:
        assert 0.0 <= float(row["cover"]) <= 1.0 and float(row["failure_rate"]) == 0.0
        assert int(row["nsim"]) in (10, 30)
    # alpha = 0.5 widens every interval of a regular model by about 1 / sqrt(0.5)
    for key in ("linear", "heteroscedastic", "logistic", "mixture"):
        for (model, label, n, alpha), row in value.items():
            if model == key and alpha == 0.5:
                ratio = float(row["width"]) / float(value[(model, label, n, 1.0)]["width"])
                assert 1.25 < ratio < 1.6, (model, label, n, ratio)
    # the misspecified model's beta_1 has a model SE below its sampling SE (the sandwich
    # factor is 2: relerror about -29% at alpha = 1), its other coefficients do not
    beta_1 = value[("heteroscedastic", "beta_1 (sandwich factor 2)", 400, 1.0)]
    others = value[("heteroscedastic", "beta_2, beta_3 (variance right)", 400, 1.0)]
    assert float(beta_1["relerror"]) + 2 * float(beta_1["relerror_se"]) < 0
    assert float(beta_1["cover"]) < float(others["cover"])
    # a zero coefficient's interval is the atom [0, 0] unless its PIP is large: it covers
    zero = value[("spike_slab", "zero coefficients", 400, 0.5)]
    assert float(zero["cover"]) == 1.0
    summary = _rows(files[2])
    stats = {row["stat"] for row in summary}
    assert {"bias", "empse", "modelse", "relerror", "cover", "relprec", "width"} <= stats
    # relprec is against alpha = 1 (0 for alpha = 1 itself)
    relprec = [float(r["est"]) for r in summary
               if r["stat"] == "relprec" and float(r["alpha"]) == 1.0]
    assert np.allclose(relprec, 0.0)
    assert "| coverage | width | relerror (%) |" in files[3].read_text()
