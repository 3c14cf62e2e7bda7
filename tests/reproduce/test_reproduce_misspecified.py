"""``alphavb reproduce misspecified --quick``: its files and what its rows must hold."""

from alphavb import cli
from alphavb.reproduce.misspecified import BAYES, DEFAULT_PRIOR, ERRORS, METHODS, PAPER_PRIOR
from tests.reproduce.test_reproduce_rates import _rows


def test_quick_misspecified_target(tmp_path, capsys):
    assert cli.main(["reproduce", "misspecified", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    names = ("misspecified.png", "misspecified.csv", "misspecified.md", "alpha_coverage.csv",
             "alpha_coverage.md")
    for name in names:
        assert f"wrote {tmp_path / name}" in out
    from tests.test_cli import png_description

    assert png_description(tmp_path / names[0]) == "quick run: few replications, not the study"
    risks = _rows(tmp_path / "misspecified.csv")
    assert len(risks) == 2 * 2 * 2 * (1 + len(METHODS))  # priors x models x quick n x methods
    row = {(r["prior"], r["model"], int(r["n_samples"]), r["method"]): r for r in risks}
    for prior in (PAPER_PRIOR, DEFAULT_PRIOR):
        for model in ("wrong", "correct"):
            for n in (50, 100):
                # information matching needs two rows per parameter (p = 11 here): a failed
                # row at n = 50 would be counted, not dropped
                info = row[(prior, model, n, "information")]
                assert int(info["nsim"]) + int(info["failed"]) == 3
                assert float(row[(prior, model, n, BAYES)]["median_alpha"]) == 1.0
                assert int(row[(prior, model, n, "safebayes")]["nsim"]) == 3
    # on the wrong model under the paper's prior SafeBayes picks alpha < 1 and does not do
    # worse than alpha = 1
    for n in (50, 100):
        safe = row[(PAPER_PRIOR, "wrong", n, "safebayes")]
        bayes = row[(PAPER_PRIOR, "wrong", n, BAYES)]
        assert float(safe["median_alpha"]) < 1
        assert float(safe["risk"]) < float(bayes["risk"])
    coverage = _rows(tmp_path / "alpha_coverage.csv")
    assert len(coverage) == len(ERRORS) * 1 * (1 + len(METHODS))
    assert all(0.0 <= float(r["cover"]) <= 1.0 and int(r["nsim"]) == 3 for r in coverage)
    assert "| coverage | width | median alpha |" in (tmp_path / "alpha_coverage.md").read_text()
