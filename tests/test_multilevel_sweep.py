"""Multilevel sweeps and strata. Sweeps (python -m sim.sweep --control): each setting's
multilevel estimate on the same seed, differences from the first setting paired deal by
deal through each deal's influence on both estimates (sim.multilevel.estimate_difference),
balance points bracketed by the multilevel intervals. Strata (python -m sim.run --stratify
--control): each stratum a multilevel estimate, combined by the stratified ratio
estimator through the same influences (sim.multilevel.stratified_estimate)."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from sim import multilevel as ml
from sim.api import resolve_policies, resolve_rules
from sim.dealing import Dealing
from sim.sweep import main

STRONG = "heuristic:aggression=1.2"  # the "strong" level of the tests: a variant, cheap


def test_a_difference_without_controls_is_the_paired_difference():
    """Plain means of two settings on the same deals: b - a with the textbook paired
    variance var(y_b - y_a) / m, and the unpaired variance the sum of the two."""
    rng = np.random.default_rng(11)
    z = rng.standard_normal(400)
    ya, yb = z + rng.standard_normal(400), 2 * z + 1 + rng.standard_normal(400)
    a, b = (ml.nested_estimate(ml.LevelData(name, y, np.ones(400)), influence=True)
            for name, y in (("a", ya), ("b", yb)))
    got = ml.estimate_difference(a, b)
    assert got["diff"] == pytest.approx(yb.mean() - ya.mean(), rel=1e-12)
    assert got["variance"] == pytest.approx((yb - ya).var(ddof=1) / 400, rel=1e-9)
    assert got["unpaired_variance"] == pytest.approx(ya.var(ddof=1) / 400 + yb.var(ddof=1) / 400, rel=1e-9)


def test_an_estimate_less_itself_is_exactly_zero():
    """One estimate twice (analysis.compare of a folder with itself): the same fitted
    coefficients' errors cancel, so the difference is 0 with an interval of no width; it
    had both coefficient variances, an interval too wide. A control that differs keeps them."""
    rng = np.random.default_rng(13)
    cheap = rng.standard_normal(2000)
    strong = cheap[:200] + 0.3 * rng.standard_normal(200)

    def made(values):
        return ml.nested_estimate(ml.LevelData("strong", strong, np.ones(200)),
                                  [ml.LevelData("cheap", values, np.ones(2000))], influence=True)

    one = made(cheap)
    assert one["coefficient_variance"] > 0
    assert ml.estimate_difference(one, one) | {"unpaired_variance": 0} == {
        "diff": 0.0, "variance": 0.0, "ci95": [0.0, 0.0], "unpaired_variance": 0}
    other = ml.estimate_difference(one, made(cheap + 0.01 * rng.standard_normal(2000)))
    assert other["variance"] > one["coefficient_variance"]


def test_a_difference_of_estimates_that_cannot_be_paired_is_refused():
    """A paired difference needs both estimates' per-deal influences and deals of one seed:
    estimates of other seeds, or one made without its influences, gave a "paired" figure
    (or numpy's own error) before; other dealing conditions on one seed pair."""
    y = np.arange(40, dtype=float) % 7

    def made(values, key=(1, b"plan"), influence=True):
        return ml.nested_estimate(ml.LevelData("strong", values, np.ones(40), deals_key=key), influence=influence)

    a = made(y)
    assert ml.estimate_difference(a, made(y + 1))["diff"] == pytest.approx(1.0)
    assert ml.estimate_difference(a, made(y, key=(1, b"other conditions")))["diff"] == 0  # one seed's shuffles
    for other, words in ((made(y, key=(2, b"plan")), "of other deals"),
                         (made(y, influence=False), "b is made without it"),
                         ([1, 2], "b is list"),
                         ({"influence": [1, 2]}, "b is made without it")):
        with pytest.raises(ml.MultilevelError, match=words):
            ml.estimate_difference(a, other)


def test_differences_cover_on_simulated_settings():
    """Two settings whose levels share each deal's luck, and whose strong levels share
    more of it than the cheap ones see, the cheap levels of unequal sizes (the segments
    differ), skewed values: of 300 replications the paired 95% interval of the difference
    covers the true one 93% to 97% of the time, and pairing saves most of the unpaired
    variance (what the cheap levels leave unexplained is shared)."""
    rng = np.random.default_rng(12)
    covered, saved = 0, []
    reps = 300
    for _ in range(reps):
        m0, ma, mb = 150, 1500, 2400
        luck, quirk = rng.standard_normal(mb), rng.standard_normal(m0)
        levels = []
        for shift, m in ((0.0, ma), (0.3, mb)):
            cheap = np.exp(0.5 * luck[:m]) + shift + 0.4 * rng.standard_normal(m)
            strong = cheap[:m0] + shift + 0.4 * quirk + 0.1 * rng.standard_normal(m0)
            levels.append(ml.nested_estimate(ml.LevelData("strong", strong, np.ones(m0)),
                                             [ml.LevelData("cheap", cheap, np.ones(m))], influence=True))
        got = ml.estimate_difference(*levels)
        covered += got["ci95"][0] <= 0.6 <= got["ci95"][1]  # 0.3 more in both levels
        saved.append(got["unpaired_variance"] / got["variance"])
    assert 0.93 * reps <= covered <= 0.97 * reps
    assert np.median(saved) > 2


def _sweep(out, capsys, *more):
    argv = ["--vary", "exchange.nondealer_draw=2,8", "--deals", "300", "--seed", "31", "--policy", f"all={STRONG}",
            "--control", "all=heuristic", "--control-deals", "3000", "--out", str(out), "--json", "--quiet", *more]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_a_sweep_with_controls(tmp_path, capsys):
    """Each setting is the multilevel estimate a direct run of its rules gives; the
    difference is the estimates' difference; the plain balance point interpolates the
    target's own values; a second sweep resumes from the folders with the same result."""
    got = _sweep(tmp_path / "sw", capsys)
    rules = resolve_rules("bridgette", None, ["exchange.nondealer_draw=8"])
    direct = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 31, 300,
                               ["all=heuristic"], [3000], dealing=Dealing("deals"))["metrics"]["dealer_advantage"]
    first, last = (row["metrics"]["dealer_advantage"] for row in got["settings"])
    assert got["metrics"] == ["dealer_advantage"] and got["controls"] == ["all=heuristic"]
    assert last["value"] == pytest.approx(direct["value"], rel=1e-12)
    assert last["value_ci95"] == pytest.approx(direct["ci95"], rel=1e-12)
    assert last["plain_ci95"] == pytest.approx(direct["plain_ci95"], rel=1e-12)
    assert last["diff"] == pytest.approx(last["value"] - first["value"], rel=1e-12)
    assert last["ci95"][0] < last["diff"] < last["ci95"][1]
    p2, p8 = first["plain_value"], last["plain_value"]
    if p2 * p8 < 0:
        assert got["plain_balance_point"]["dealer_advantage"] == pytest.approx(2 + 6 * p2 / (p2 - p8), rel=1e-9)
    assert math.isfinite(got["balance_point"]["dealer_advantage"])
    again = _sweep(tmp_path / "sw", capsys)
    assert [r["metrics"] for r in again["settings"]] == [r["metrics"] for r in got["settings"]]
    # A setting's multilevel.json holds what a direct run's does, whichever made the folder
    # (before: "fitted", a figure of the influence only the sweep asks for, as well).
    kept = json.loads((tmp_path / "sw" / got["settings"][-1]["run"].split("/")[-1] / "multilevel.json").read_text())
    assert set(kept["metrics"]["dealer_advantage"]) == set(direct)
    # Killed (kill -9) as the last setting began: its folder holds only its lock, or its
    # pilot's sizes. That folder was taken for a stranger's ("holds no sweep"), for good; the
    # sweep plays the setting again, to the same figures.
    last_folder = tmp_path / "sw" / got["settings"][-1]["run"].split("/")[-1]
    for left in ("", "pilot.json"):
        shutil.rmtree(last_folder)
        last_folder.mkdir()
        (last_folder / ".lock").write_text("pid 1 on a machine long gone\n")
        if left:
            (last_folder / left).write_text("{}")
        (tmp_path / "sw" / "sweep.json").unlink()
        resumed = _sweep(tmp_path / "sw", capsys)
        assert [(r["metrics"]["dealer_advantage"]["value"], r["metrics"]["dealer_advantage"]["ci95"])
                for r in resumed["settings"]] == [(r["metrics"]["dealer_advantage"]["value"],
                                                   r["metrics"]["dealer_advantage"]["ci95"]) for r in got["settings"]]


def test_control_needs_deal_runs(tmp_path, capsys):
    """--control with --games: one line, status 2, nothing played."""
    out = tmp_path / "sw"
    assert main(["--vary", "exchange.nondealer_draw=2,8", "--games", "10", "--control", "all=heuristic",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--control plays deal runs" in err[0]
    assert not out.exists()


def test_until_grows_each_setting_to_the_half_width(tmp_path, capsys):
    """sim.sweep --control --until METRIC:W: every setting's levels grow until that
    metric's 95% half-width is at most W, short of the --deals cap; the sweep's table
    says so, and each setting's folder is the multilevel run sim.run --until makes of
    its rules."""
    out = tmp_path / "sw"
    args = ["--vary", "exchange.nondealer_draw=2,8", "--deals", "200000", "--seed", "33", "--policy",
            f"all={STRONG}", "--control", "all=heuristic", "--until", "dealer_advantage:30", "--out", str(out),
            "--quiet"]
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "until dealer_advantage:30: reached in every setting" in said
    rules = resolve_rules("bridgette", None, ["exchange.nondealer_draw=8"])
    direct = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 33, 200_000,
                               ["all=heuristic"], until="dealer_advantage:30")
    for folder in sorted(out.glob("0*")):
        kept = json.loads((folder / "multilevel.json").read_text())
        e = kept["metrics"]["dealer_advantage"]
        assert kept["reached"] and e["half_width"] <= 30 and e["levels"][0]["deals"] < 200_000
    assert e["value"] == pytest.approx(direct["metrics"]["dealer_advantage"]["value"], rel=1e-12)


def test_until_needs_controls_and_a_failed_sweep_leaves_no_folder(tmp_path, capsys):
    """--until without --control, and a control the game cannot have: one line, status 2,
    and no folder where there was none (the sweep had claimed it before the levels were
    checked)."""
    for args, words in ((["--games", "10", "--until", "dealer_advantage:5"], "--until needs --control"),
                        (["--game", "bid-euchre", "--vary", "auction.stick_the_dealer=true,false", "--deals", "50",
                          "--control", "hand"], "the hand features are Bridgette's")):
        out = tmp_path / "sw"
        vary = [] if "--vary" in args else ["--vary", "exchange.nondealer_draw=2,8"]
        assert main([*vary, *args, "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0]
        assert not out.exists()


def _estimates(rng, sizes, rate=False):
    """Per-stratum plain and multilevel estimates (with influence) on simulated deals, whole
    numbers as deal scores are (sim.ratio's sums are exact integers)."""
    out = []
    for h, (m0, m1) in enumerate(sizes):
        c = np.round(10 * rng.standard_normal(m1) + 10 * h)
        y = np.round(c[:m0] + 5 * rng.standard_normal(m0))
        n = (rng.random(m1) < 0.7).astype(float) if rate else np.ones(m1)
        target = ml.LevelData("t", y * n[:m0], n[:m0])
        out.append((ml.nested_estimate(target, influence=True),
                    ml.nested_estimate(target, [ml.LevelData("c", c * n, n)], influence=True)))
    return out


def test_stratified_without_controls_is_the_stratified_ratio_estimator():
    """Plain strata of a rate (a divisor 0 or 1 per deal): the same value and variance as
    sim.strata's stratified estimator from the strata's sums."""
    from sim import strata
    from sim.ratio import ratio_sums

    weights = [0.5, 0.3, 0.2]
    plain = [p for p, _ in _estimates(np.random.default_rng(13), [(300, 300), (200, 200), (100, 100)], rate=True)]
    got = ml.stratified_estimate(weights, plain)
    want = strata.stratified_estimate(weights, [ratio_sums(e["target_y"], e["target_n"]) for e in plain])
    assert got["value"] == pytest.approx(want["value"], rel=1e-12)
    assert got["variance"] == pytest.approx(want["variance"], rel=1e-9)


def test_stratified_multilevel_of_a_per_deal_metric_is_the_weighted_sum():
    """One value per deal: sum_h w_h R_h, its variance sum_h w_h^2 Var(R_h)."""
    weights = [0.6, 0.4]
    multi = [m for _, m in _estimates(np.random.default_rng(14), [(200, 2000), (100, 1500)])]
    got = ml.stratified_estimate(weights, multi)
    assert got["value"] == pytest.approx(sum(w * e["value"] for w, e in zip(weights, multi)), rel=1e-12)
    assert got["variance"] == pytest.approx(sum(w * w * e["variance"] for w, e in zip(weights, multi)), rel=1e-9)


def test_a_stratified_run_with_controls(tmp_path, capsys):
    """sim.run --stratify with --control: each stratum is what a direct multilevel run of
    its seed and conditions gives, and the overall value their weighted sum (37/55, 13/55
    and 5/55 for the up-card classes)."""
    from sim import strata
    from sim.run import main as run_main

    out = tmp_path / "st"
    assert run_main(["--deals", "600", "--stratify", "upcard_class", "--policy", f"all={STRONG}", "--control",
                     "all=heuristic", "--control-deals", "3000", "--seed", "33", "--out", str(out), "--quiet"]) == 0
    got = json.loads((out / "strata.json").read_text())["metrics"]["dealer_advantage"]
    rules = resolve_rules("bridgette")
    ace = strata.strata_of("bridgette", rules, "upcard_class")[2]
    assert ace.name == "ace"
    deals = json.loads((out / "strata.json").read_text())["strata"][2]["deals"]
    direct = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]),
                               strata.stratum_seed(33, 2), deals, ["all=heuristic"], [3000],
                               dealing=ace.dealing)["metrics"]["dealer_advantage"]
    assert got["by_stratum"][2]["value"] == pytest.approx(direct["value"], rel=1e-12)
    assert got["by_stratum"][2]["ci95"] == pytest.approx(direct["ci95"], rel=1e-12)
    want = sum(w * s["value"] for w, s in zip((37 / 55, 13 / 55, 5 / 55), got["by_stratum"]))
    assert got["overall"]["value"] == pytest.approx(want, rel=1e-12)
    assert got["overall"]["target_alone_saved"] > 1


@pytest.mark.parametrize("flags, words", [
    (["--control-deals", "10"], "--control-deals 10: a control plays at least the target's 60 deals"),
    (["--control-deals", "1000", "--until", "dealer_advantage:5"], "--until sizes the levels from a pilot"),
])
def test_control_deals_a_setting_would_refuse_are_refused_before_any_plays(tmp_path, capsys, flags, words):
    """(Before: the first setting's progress line, naming a folder never made, came first.)"""
    out = tmp_path / "sw"
    assert main(["--vary", "exchange.nondealer_draw=2,4", "--deals", "60", "--control", "all=heuristic", *flags,
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and not out.exists()
