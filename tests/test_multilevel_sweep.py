"""Multilevel sweeps (python -m sim.sweep --control): each setting's multilevel estimate on
the same seed, differences from the first setting paired deal by deal through each deal's
influence on both estimates (sim.multilevel.estimate_difference), balance points
bracketed by the multilevel intervals."""

from __future__ import annotations

import json
import math

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


def test_control_needs_deal_runs(tmp_path, capsys):
    """--control with --games: one line, status 2, nothing played."""
    out = tmp_path / "sw"
    assert main(["--vary", "exchange.nondealer_draw=2,8", "--games", "10", "--control", "all=heuristic",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--control plays deal runs" in err[0]
    assert not out.exists()
