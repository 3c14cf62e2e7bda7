"""summarise_study: rsimsum's numbers on a frame both were run on, and every statistic and
MCSE of a small example worked out by hand (Morris, White & Crowther 2019, Table 6)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from alphavb.simulation import summarise_study

REFERENCE = Path(__file__).parent / "data" / "rsimsum_reference.csv"


def _parity_frame():
    import importlib.util

    path = Path(__file__).parents[1] / "benchmarks" / "rsimsum_parity.py"
    spec = importlib.util.spec_from_file_location("rsimsum_parity", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parity_frame(), module.compare


def test_equals_rsimsum_on_the_same_frame():
    # rsimsum 0.13.0's simsum(..., methodvar = "method", ref = "A") per group, with
    # model-based intervals and with ci.limits (benchmarks/rsimsum_parity.py wrote the file)
    frame, compare = _parity_frame()
    reference = pd.read_csv(REFERENCE)
    merged = compare(reference, frame)
    assert len(merged) == len(reference) == 180  # every rsimsum statistic is matched
    np.testing.assert_allclose(merged["est"], merged["est_rsimsum"], rtol=1e-12, atol=1e-14)
    # rsimsum 0.13.0 computes rbias's MCSE as sd(rbias_i) / sqrt(nsim) without na.rm, so it
    # is NA when an estimate is missing (method C); its later versions (and we) drop them
    with_both = merged.dropna(subset=["mcse_rsimsum"])
    np.testing.assert_allclose(with_both["mcse"], with_both["mcse_rsimsum"], rtol=1e-12,
                               atol=1e-14)
    only_ours = merged[merged["mcse_rsimsum"].isna() & merged["mcse"].notna()]
    assert set(zip(only_ours["method"], only_ours["stat"], strict=True)) == {("C", "rbias")}
    for row in only_ours.itertuples():
        part = frame[(frame.method == "C") & (frame.group == row.group)].dropna(subset=["b"])
        relative = (part.b - part.true) / part.true
        assert row.mcse == pytest.approx(relative.std(ddof=1) / np.sqrt(len(part)), rel=1e-12)


def _by_hand_frame():
    # method A: theta 1, 2, 3, 6 (and one failed fit), se 1, 1, 2, 2; method B: 2, 2, 4, 4
    a = pd.DataFrame({"alpha": 1.0, "replication": [0, 1, 2, 3, 4],
                      "estimate": [1.0, 2.0, 3.0, 6.0, np.nan],
                      "se": [1.0, 1.0, 2.0, 2.0, np.nan], "true": 2.0,
                      "status": ["ok"] * 4 + ["error"]})
    b = pd.DataFrame({"alpha": 0.5, "replication": [0, 1, 2, 3],
                      "estimate": [2.0, 2.0, 4.0, 4.0], "se": [1.0, 1.0, 1.0, 1.0],
                      "true": 2.0, "status": "ok"})
    return pd.concat([a, b], ignore_index=True)


def _table(frame, **kwargs):
    table = summarise_study(frame, **kwargs)
    return {(row.alpha, row.stat): (row.est, row.mcse) for row in table.itertuples()}


def test_every_statistic_and_mcse_by_hand():
    c = norm.ppf(0.975)
    t = _table(_by_hand_frame(), ref=1.0)
    expected_a = {
        "nsim": (4, np.nan),
        "thetamean": (3.0, np.nan),
        "thetamedian": (2.5, np.nan),
        "se2mean": (2.5, np.nan),                      # (1 + 1 + 4 + 4) / 4
        "se2median": (2.5, np.nan),
        "bias": (1.0, np.sqrt(14 / 12)),               # sum (theta - 3)^2 = 14, n (n-1) = 12
        "rbias": (0.5, np.sqrt(3.5 / 3) / 2),          # (theta - 2) / 2 = -.5, 0, .5, 2
        "empse": (np.sqrt(14 / 3), np.sqrt(14 / 3) / np.sqrt(6)),
        "mse": (4.5, np.sqrt(177 / 12)),               # (1, 0, 1, 16): sum of (x - 4.5)^2 = 177
        "relprec": (0.0, 0.0),                         # the reference itself
        "modelse": (np.sqrt(2.5), np.sqrt(3 / 40)),    # var(se^2) = 9 / 3 = 3
        "relerror": (100 * (np.sqrt(2.5) / np.sqrt(14 / 3) - 1),
                     100 * np.sqrt(2.5) / np.sqrt(14 / 3) * np.sqrt(3 / (16 * 6.25) + 1 / 6)),
        "cover": (0.75, np.sqrt(0.75 * 0.25 / 4)),     # 6 +- 2c misses 2
        "becover": (0.75, np.sqrt(0.75 * 0.25 / 4)),   # 1 +- c misses 3
        "power": (0.5, np.sqrt(0.25 / 4)),             # |2| >= c and |6| >= 2c
        "width": (3 * c, c * np.sqrt(1 / 3)),          # 2 c se: mean 2c 1.5, sd 2c sqrt(1/3)
        "failure_rate": (0.2, np.sqrt(0.2 * 0.8 / 5)),  # one of five rows failed
    }
    for stat, (est, mcse) in expected_a.items():
        got = t[(1.0, stat)]
        np.testing.assert_allclose(got, (est, mcse), rtol=1e-12, atol=1e-15,
                                   err_msg=stat)
    # B against the reference A: empse_B^2 = 4/3, so relprec = 100 (14/4 - 1) = 250; the
    # deviations (-2, -1, 0, 3) and (-1, -1, 1, 1) correlate at 6 / sqrt(56)
    rho = 6 / np.sqrt(56)
    np.testing.assert_allclose(t[(0.5, "relprec")],
                               (250.0, 200 * 3.5 * np.sqrt((1 - rho**2) / 3)), rtol=1e-12)
    assert t[(0.5, "nsim")][0] == 4 and t[(0.5, "failure_rate")][0] == 0.0
    # without ref, relprec is undefined
    assert np.isnan(_table(_by_hand_frame())[(0.5, "relprec")][0])


def test_the_estimators_own_limits_replace_theta_plus_minus_c_se():
    frame = _by_hand_frame()
    # spike-and-slab-like limits: an interval [0, 0] (the atom) covers a true 0
    frame["lower"] = [0.5, 0.0, 0.0, 3.0, np.nan, 1.0, 1.9, 0.0, 0.0]
    frame["upper"] = [1.5, 2.5, 2.5, 9.0, np.nan, 3.0, 2.1, 0.0, 3.0]
    t = _table(frame, lower="lower", upper="upper")
    assert t[(1.0, "cover")][0] == 0.5       # [0.5, 1.5] and [3, 9] miss 2
    assert t[(1.0, "becover")][0] == 0.25    # thetabar = 3 is inside [3, 9] only
    np.testing.assert_allclose(t[(1.0, "width")], (np.mean([1.0, 2.5, 2.5, 6.0]),
                                                   np.std([1.0, 2.5, 2.5, 6.0], ddof=1) / 2))
    assert t[(0.5, "cover")][0] == 0.75      # [0, 0] misses 2
    zero = pd.DataFrame({"alpha": 1.0, "replication": [0, 1], "estimate": [0.0, 0.1],
                         "se": [0.0, 0.2], "true": 0.0, "lower": [0.0, 0.0],
                         "upper": [0.0, 0.6]})
    t = _table(zero, lower="lower", upper="upper")
    assert t[(1.0, "cover")][0] == 1.0
    assert np.isnan(t[(1.0, "rbias")][0])    # relative bias of a true 0 is undefined


def test_groups_and_columns_of_the_result():
    frame = pd.concat([_by_hand_frame().assign(parameter=name) for name in ("b0", "b1")])
    table = summarise_study(frame, by="parameter")
    assert list(table.columns) == ["parameter", "alpha", "stat", "est", "mcse"]
    assert len(table) == 2 * 2 * 17
    no_truth = summarise_study(frame, true=None, se=None, method=None, by="parameter")
    assert set(no_truth["stat"]) == {"nsim", "thetamean", "thetamedian", "empse", "relprec",
                                     "failure_rate"}
    # a number as the truth is the same as a constant column
    with_number = summarise_study(_by_hand_frame().drop(columns="true"), true=2.0)
    pd.testing.assert_frame_equal(with_number, summarise_study(_by_hand_frame()))


def test_one_replication_gives_nan_mcses_as_rsimsum():
    """collect_study after one shard of three gives groups of one replication: it raised
    ZeroDivisionError. rsimsum returns the estimates and NaN where n - 1 divides."""
    frame = _by_hand_frame().iloc[[0, 5]]  # one row per method
    table = summarise_study(frame, ref=1.0).set_index(["alpha", "stat"])
    one = table.loc[1.0]
    assert one.loc["nsim", "est"] == 1 and one.loc["bias", "est"] == -1.0
    assert one.loc["mse", "est"] == 1.0 and one.loc["cover", "est"] == 1.0
    for stat in ("bias", "empse", "mse", "relerror", "rbias", "modelse", "width"):
        assert np.isnan(one.loc[stat, "mcse"]), stat
    assert np.isnan(one.loc["empse", "est"]) and np.isnan(one.loc["relprec", "est"])


def test_a_missing_method_column_suggests_method_none():
    frame = _by_hand_frame().drop(columns="alpha")
    with pytest.raises(ValueError, match=r"'method'.*Pass method=None"):
        summarise_study(frame)
    assert summarise_study(frame, method=None)["stat"].iloc[0] == "nsim"


def test_crossed_limits_negative_se_and_text_columns_are_refused():
    frame = _by_hand_frame().assign(lo=-1.0, hi=1.0)
    crossed = frame.assign(lo=[-1.0, 2.0, -1, -1, -1, -1, -1, -1, -1])
    with pytest.raises(ValueError, match=r"'lower'.*1 rows have lower > upper"):
        summarise_study(crossed, lower="lo", upper="hi")
    with pytest.raises(ValueError, match=r"'se'.*negative"):
        summarise_study(frame.assign(se=-frame["se"]))
    with pytest.raises(ValueError, match=r"'estimate'.*numeric column"):
        summarise_study(frame.assign(estimate="1.0"))
    # a column label need not be a string
    table = summarise_study(frame.assign(**{"7": 0}).rename(columns={"7": 7}), by=7)
    assert list(table.columns[:2]) == [7, "alpha"]


@pytest.mark.parametrize("kwargs, message", [
    ({"estimate": "theta"}, "'estimate'.*column"),
    ({"method": "method"}, "'method'.*column"),
    ({"lower": "estimate"}, "'upper'.*together"),
    ({"ref": 0.7}, "'ref'.*value of the 'alpha' column"),
    ({"level": 1.0}, "'level'"),
    ({"by": "n"}, "'by'"),
])
def test_bad_summary_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        summarise_study(_by_hand_frame(), **kwargs)


def test_relprec_needs_one_row_per_replication():
    # rows of different parameters: refused before any statistic (not only relprec's)
    frame = pd.concat([_by_hand_frame().assign(parameter=name) for name in ("b0", "b1")])
    with pytest.raises(ValueError, match=r"'by' parameter.*Add 'parameter' to by"):
        summarise_study(frame, ref=1.0)
    # several rows of one estimate per replication are pooled, but relprec pairs by it
    with pytest.raises(ValueError, match=r"several rows per replication.*'parameter'"):
        summarise_study(pd.concat([_by_hand_frame()] * 2), ref=1.0)
    with pytest.raises(ValueError, match="empty"):
        summarise_study(frame.iloc[:0])


def test_a_model_summary_shows_the_digits_of_a_small_coefficient():
    """An estimator's ``summary()`` printed a coefficient of 3e-6 (a variable in small raw
    units) as "0.0000"; below 1e-4 it now shows significant digits, and ordinary values
    keep their four decimals."""
    from alphavb import AlphaLinearRegression

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200) * 1e6, rng.normal(size=200)])
    y = 3.2e-6 * X[:, 0] + 1.5 * X[:, 1] + 0.5 * rng.normal(size=200)
    model = AlphaLinearRegression().fit(X, y)
    frame = model.summary_frame()
    rows = {row[0].strip(): [cell.strip() for cell in row[1:]]
            for row in model.summary().tables[1].data[1:]}
    for cell, value in zip(rows["x0"], frame.loc["x0"], strict=True):
        assert float(cell) == pytest.approx(value, rel=1e-3)  # not 0.0000
        assert cell == f"{value:.4g}"
    assert rows["x1"] == [f"{value:.4f}" for value in frame.loc["x1"]]
    assert f"{frame.loc['x0', 'coef']:.4g}" in model.summary().as_text()
