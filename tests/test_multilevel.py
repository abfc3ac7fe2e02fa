"""Multilevel estimates (sim.multilevel): the estimator against a direct computation, its
intervals' coverage on simulated and on played deals, agreement with a plain run of the
target, the hand features against the kernels' own dealing, and what breaking the pairing
does."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from sim import multilevel as ml
from sim.api import resolve_policies, resolve_rules
from sim.dealing import Dealing, checked_plan
from sim.metrics import METRICS
from sim.store import RunError
from sim.summary import Z95

ROOT = Path(__file__).resolve().parent.parent
STRONG = "heuristic:aggression=1.2"  # the "strong" level of the tests: a variant, cheap


def _levels(rng, m0, m1, rho=0.8, skew=True):
    """A target and a control over nested deals: correlated, skewed like deal scores."""
    c = rng.standard_normal(m1)
    s = rho * c[:m0] + math.sqrt(1 - rho ** 2) * rng.standard_normal(m0)
    if skew:
        c, s = np.exp(c), np.exp(s)
    return ml.LevelData("strong", s, np.ones(m0)), ml.LevelData("cheap", c, np.ones(m1))


def test_the_two_level_estimate_is_the_textbook_regression_estimate():
    """One control, no features: ybar_s(m0) - alpha (ybar_c(m0) - ybar_c(m1)), alpha the
    least-squares slope of the target on the control over the m0 shared deals (numpy's
    polyfit here)."""
    rng = np.random.default_rng(5)
    s, c = _levels(rng, 300, 3000)
    got = ml.nested_estimate(s, [c])
    slope = np.polyfit(c.y[:300], s.y, 1)[0]
    want = s.y.mean() - slope * (c.y[:300].mean() - c.y.mean())
    assert got["value"] == pytest.approx(want, rel=1e-12)
    assert got["steps"][0]["coefficients"] == pytest.approx([slope], rel=1e-9)
    assert got["plain_value"] == pytest.approx(s.y.mean(), rel=1e-12)
    # Known correlation 0.8 of normals (before exp): the variance is far below plain.
    assert got["variance_saved"] > 1.5


def test_known_mean_controls_are_the_classic_control_variate():
    """Features alone: ybar - beta (xbar - mu), beta the slope; a feature of mean mu."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal(500) + 2.0
    y = 3 * x + rng.standard_normal(500)
    got = ml.nested_estimate(ml.LevelData("t", y, np.ones(500)), [],
                             ml.Features(("x",), x[:, None], np.array([2.0])))
    slope = np.polyfit(x, y, 1)[0]
    assert got["value"] == pytest.approx(y.mean() - slope * (x.mean() - 2.0), rel=1e-12)
    # Residual sd 1 over 500 deals, plus the slope's own variance times (xbar - mu)^2.
    assert got["variance"] == pytest.approx(1 / 500, rel=0.25)


def test_intervals_cover_on_simulated_levels():
    """Three levels and features, skewed values, a ratio metric (n 0 or 1): of 300
    replications the 95% interval covers the true value 93% to 97% of the time (the
    binomial sd is 1.3 points)."""
    rng = np.random.default_rng(7)
    covered = 0
    reps = 300
    for _ in range(reps):
        m0, m1, m2 = 120, 600, 3000
        z = rng.standard_normal((m2, 3))
        x = z[:, 2:3]  # a feature of known mean 0
        cheap = np.exp(0.5 * z[:, 0]) + 0.3 * x[:, 0]
        mid = cheap[:m1] + 0.5 * rng.standard_normal(m1)
        strong = mid[:m0] + 0.5 * rng.standard_normal(m0)
        n = (rng.random(m2) < 0.8).astype(float)  # deals where the metric counts
        levels = [ml.LevelData("mid", mid * n[:m1], n[:m1]), ml.LevelData("cheap", cheap * n, n)]
        got = ml.nested_estimate(ml.LevelData("strong", strong * n[:m0], n[:m0]), levels,
                                 ml.Features(("x",), x, np.zeros(1)))
        truth = math.exp(0.125)  # E[exp(0.5 Z)] = e^(1/8); the noise and the feature have mean 0
        covered += got["ci95"][0] <= truth <= got["ci95"][1]
    assert 0.93 * reps <= covered <= 0.97 * reps


def test_allocation_follows_the_rule():
    """Two levels: m1/m0 = sqrt(a1 w0 / (a0 w1)), a0 = 1 - R^2, a1 = R^2 (R^2 adjusted for
    the one coefficient fitted on the pilot's m deals: 1 - (1 - r^2)(m - 1)/(m - 2)), and the
    variance saved at equal time w0 / (sqrt(a0 w0) + sqrt(a1 w1))^2."""
    rng = np.random.default_rng(8)
    s, c = _levels(rng, 2000, 2000, rho=0.9, skew=False)
    s.seconds, c.seconds = 100.0, 1.0
    got = ml.allocation(s, [c])
    r2 = 1 - (1 - np.corrcoef(s.y, c.y)[0, 1] ** 2) * 1999 / 1998
    w0, w1 = 100.0 / 2000, 1.0 / 2000
    best = got["best"]
    assert best["ratios"][1] == pytest.approx(math.sqrt(r2 * w0 / ((1 - r2) * w1)), rel=1e-9)
    assert best["equal_time_saved"] == pytest.approx(w0 / (math.sqrt((1 - r2) * w0) + math.sqrt(r2 * w1)) ** 2,
                                                     rel=1e-9)
    # For a half-width W the sizes give that variance: s0^2 ((1 - R^2)/m0 + R^2/m1).
    sizes = ml.sizes_for(best, got["target_sd"], 0.05)
    var = got["target_sd"] ** 2 * ((1 - r2) / sizes[0] + r2 / sizes[1])
    assert Z95 * math.sqrt(var) == pytest.approx(0.05, rel=0.01)


def test_dealt_orders_are_the_kernels_shuffles():
    """The numpy shuffle of sim.multilevel against kernels.rng's own functions, deal by deal."""
    from kernels.rng import below_nb, game_stream_nb, shuffle_nb

    got = ml.dealt_orders(11, 40, 25)
    for k in range(25):
        state = np.zeros(1, dtype=np.uint64)
        game_stream_nb(11, 40 + k, state)
        below_nb(state, 2)
        order = np.arange(55, dtype=np.int64)
        shuffle_nb(state, order)
        assert got[k].tolist() == order.tolist()


def test_hand_features_match_the_records_and_have_their_means():
    """The up-card of every deal as the records name it; dealer's points minus the
    non-dealer's average 0, the face up-card 13/55 (within 5 sigma over 20,000 deals)."""
    from kernels.cards import card_name
    from sim.bridgette import run_block

    rules = resolve_rules("bridgette")
    plan, _ = checked_plan("bridgette", rules, Dealing("deals"))
    deals, _ = run_block(rules, resolve_policies("bridgette"), 4, 0, 3000, plan=plan)
    order = ml.dealt_orders(4, 0, 3000)
    assert [card_name(int(c)) for c in order[:, 26]] == [card_name(int(c)) for c in deals["upcard"]]
    f = ml.hand_features(rules, 4, 20_000)
    for name, sd in (("hcp", 10.0), ("up_face", math.sqrt(13 / 55 * 42 / 55)), ("grand", 0.7)):
        col = f.x[:, f.names.index(name)]
        assert abs(col.mean() - f.means[f.names.index(name)]) < 5 * sd / math.sqrt(20_000)
        assert abs(col.std() - sd) < 0.5 * sd  # the sd used is of the right size


def _multilevel(seed, m0, m1, hand=True):
    rules = resolve_rules("bridgette")
    return ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), seed, m0,
                             ["all=heuristic"] + (["hand"] if hand else []), [m1])


def test_agrees_with_a_plain_run_of_the_target():
    """The multilevel estimate (600 target deals, 6,000 heuristic deals, hand features) and
    a plain run of the target on 60,000 other deals agree within their 95% interval, and
    pairing earns its keep (variance saved above 1.8x)."""
    got = _multilevel(21, 600, 6000)["metrics"]["dealer_advantage"]
    assert got["variance_saved"] > 1.8
    assert got["warnings"] == []
    plain = ml.LevelPlayer("bridgette", resolve_rules("bridgette"), resolve_policies("bridgette", [f"all={STRONG}"]),
                           22, checked_plan("bridgette", resolve_rules("bridgette"), Dealing("deals"))[0], False,
                           [METRICS["dealer_advantage"]], "plain")
    plain.play_to(60_000)
    d = plain.data()
    var = d.y.var(ddof=1) / d.deals
    assert abs(got["value"] - d.y.mean()) <= Z95 * math.sqrt(got["variance"] + var)


def test_breaking_the_pairing_is_refused_or_shows():
    """A control of another seed is refused; a control whose deals are shifted by one (deal
    i of the target against deal i+1 of the control) saves nothing and is flagged, where
    the same control paired saves much."""
    rules = resolve_rules("bridgette")
    plan, _ = checked_plan("bridgette", rules, Dealing("deals"))
    metric = [METRICS["dealer_advantage"]]
    target = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 31, plan, False,
                            metric, "strong")
    cheap = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette"), 31, plan, False, metric, "cheap")
    other = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette"), 32, plan, False, metric, "other seed")
    target.play_to(800)
    cheap.play_to(8001)
    other.play_to(8000)
    with pytest.raises(ml.MultilevelError, match="do not play the same deals"):
        ml.nested_estimate(target.data(), [other.data()])
    c = cheap.data()
    paired = ml.nested_estimate(target.data(), [ml.LevelData("cheap", c.y[:8000], c.n[:8000])])
    shifted = ml.nested_estimate(target.data(), [ml.LevelData("shifted", c.y[1:], c.n[1:])])
    assert paired["variance_saved"] > 1.8 and paired["warnings"] == []
    assert shifted["variance_saved"] < 1.1 and shifted["warnings"]


@pytest.mark.slow
def test_intervals_cover_the_long_run_value_over_40_seeds():
    """40 seeds of the multilevel estimate (300 target deals, 3,000 heuristic deals, hand
    features): at least 36 intervals cover the target's long-run value, here a plain run of
    400,000 deals of another seed (its own standard error about 1.8 points, a fortieth of
    the intervals' half-widths)."""
    rules = resolve_rules("bridgette")
    plan, _ = checked_plan("bridgette", rules, Dealing("deals"))
    plain = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 999, plan, False,
                           [METRICS["dealer_advantage"]], "plain")
    plain.play_to(400_000, chunk=100_000)
    truth = plain.data().y.mean()
    hits = [(lambda e: e["ci95"][0] <= truth <= e["ci95"][1])(_multilevel(seed, 300, 3000)["metrics"]
                                                                  ["dealer_advantage"]) for seed in range(40)]
    assert sum(hits) >= 36


def test_the_command_line_refuses_bad_levels_in_one_line(capsys):
    from sim.run import main

    for args, words in ((["--control", "heuristic"], "SEAT=POLICY"),
                        (["--control", "all=heuristic", "--control-deals", "10", "--control-deals", "20"],
                         "2 counts for 1 played control"),
                        (["--control", "hand", "--control-deals", "100"],  # "1 counts for 0 played controls"
                         "--control-deals sizes the controls that play deals, and 'hand' plays none"),
                        (["--control", "all=nothing"], "nothing"),
                        (["--control", "dd:"], "dd:SEAT=POLICY, par:SEAT=POLICY or hand, got 'dd:'"),
                        (["--control", "0=heuristic;0=random"], "'0=heuristic;0=random' gives seat 0 twice"),
                        (["--control", "0=heuristic;;1=random"], "got '0=heuristic;;1=random'"),
                        (["--control", "all=heuristic;"], "got 'all=heuristic;'"),
                        (["--control", "all=heuristic", "--control", "all=heuristic"],
                         "--control all=heuristic is given twice: give each level once"),
                        (["--control", "auto", "--control", "all=heuristic"], "is given twice (auto holds it)"),
                        (["--control", "hand", "--upcard", "ace"], "unconditioned"),
                        (["--control", "all=heuristic", "--until", "dealer_advantage:5", "--control-deals", "9"],
                         "drop --control-deals"),
                        (["--control", "all=heuristic", "--dd"], "par:SEAT=POLICY"),
                        (["--control", "all=heuristic", "--control-deals", "10"],
                         "--control-deals 10: a control plays at least the target's 50 deals"),
                        (["--game", "bid-euchre", "--control", "par"], "Bridgette and Draw Bridge"),
                        # a deal run's metrics listed without deals_per_game, which it refuses
                        (["--control", "all=heuristic", "--until", "made5:0.1"], "unknown metric 'made5' (metrics: "
                         "dealer_advantage, first_dealer_wins, contract_made, mean_score, or NAME"),
                        (["--until", "mean_score:5"], "with --control, any deal metric")):
        assert main(["--deals", "50", *args, "--out", "/nonexistent/x"]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["--games", "50", "--control", "all=heuristic"], ["--control", "hand"]])
def test_control_with_games_given_or_by_default_asks_for_deals(args, tmp_path):
    """(Before: "deals: 'None' is not a number", naming the API's argument, not the flag.)"""
    from tests.commands import in_process

    result = in_process("sim.run", *args, "--out", tmp_path / "x")
    assert result.returncode == 2
    assert result.stderr == "python -m sim.run: error: --control plays deal runs: give --deals N (see --help)\n"
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("command", ["sim.run", "sim.sweep"])
@pytest.mark.parametrize("flag", [["--records", "none"], ["--records", "games"], ["--block-size", "10"]])
def test_control_refuses_the_flags_it_would_pass_over(command, flag, tmp_path):
    """--control keeps each level's per-deal values in files of its own: another --records
    than deals, and any --block-size, would change nothing, and are refused in one line
    (before: accepted without a word), nothing made. (--records deals, the default, is what
    it keeps: docs/studies.md gives it.)"""
    from tests.commands import in_process

    vary = ["--vary", "exchange.nondealer_draw=2,6"] if command == "sim.sweep" else []
    result = in_process(command, *vary, "--deals", "50", "--control", "all=heuristic", *flag,
                        "--out", tmp_path / "x")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"--control keeps each level's per-deal values in files of its own: drop {flag[0]}" in result.stderr
    assert not (tmp_path / "x").exists()


def test_too_few_deals_are_refused_before_anything_is_kept_and_a_small_pilot_plays(tmp_path, capsys):
    """A target of 1 or 2 deals (no variance to measure) is refused in one line before any
    level is played, in a plain and a stratified run, and leaves no folder behind (before:
    NaN's ValueError or numpy's warnings, and level files a rerun could never finish). A
    pilot with fewer deals than the hand features' columns plays (before: an IndexError,
    every hierarchy's R^2 read as 1 from an exact fit)."""
    from sim.multilevel.allocation import _r2
    from sim.run import main

    base = ["--policy", "all=random", "--threads", "1", "--quiet"]
    for n, args, words in (("1", ["--control", "all=heuristic", "--until", "dealer_advantage:1"],
                            "--control: the target needs at least 3 deals, got --deals 1"),
                           ("2", ["--control", "all=heuristic"], "--control: the target needs at least 3 deals, got --deals 2"),
                           ("6", ["--stratify", "upcard_class", "--control", "all=heuristic"],
                            "--control: each stratum's target needs at least 3 deals; --deals 6 cannot give them to "
                            "3 strata"),
                           ("12", ["--stratify", "upcard_class", "--control", "all=heuristic"],
                            "--control: each stratum's target needs at least 3 deals; ace gets 2 of --deals 12"),
                           # before: the strata before the largest played, then this refusal
                           ("600", ["--stratify", "upcard_class", "--allocation", "ace=0.9,face=0.05,numeral=0.05",
                                    "--control", "all=heuristic", "--control-deals", "300"],
                            "--control-deals 300: a control plays at least its stratum's target deals, and ace gets "
                            "540")):
        out = tmp_path / f"few{n}"
        assert main(["--deals", n, *args, *base, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines() == [f"python -m sim.run: error: {words}"] and not out.exists()
    for n, args in (("5", ["--control", "hand", "--until", "dealer_advantage:1"]),
                    ("8", ["--control", "all=heuristic", "--control", "hand"])):
        assert main(["--deals", n, *args, *base, "--out", str(tmp_path / f"pilot{n}")]) == 0
        assert capsys.readouterr().err == ""
    rng = np.random.default_rng(1)
    u0 = rng.normal(size=5)
    assert _r2(u0, list(rng.normal(size=(4, 5)))) == 0.0  # 4 columns fit 5 values exactly: nothing learnt
    assert 0.0 < _r2(u0 + np.arange(5.0), [np.arange(5.0)]) <= 1.0

def test_a_control_that_never_varies_is_left_out_and_a_rate_stays_within_0_and_1(tmp_path, capsys):
    """random seats' made contracts, read as a control of the heuristic's share of contracts
    made, hardly vary over the 20 shared deals: their rounding noise was fitted with a
    coefficient of -3.6, the share read 56.06% [-158775063882585312%, ...] against the
    plain 65.00%. Now the flat column is left out, the estimate is the plain one, every
    interval of the rate lies within [0, 1], and the report shows the run's warning."""
    from analysis.report import main as report_main
    from sim.run import main

    out = tmp_path / "ml"
    assert main(["--deals", "20", "--control", "all=random", "--control-deals", "40", "--quiet", "--out", str(out),
                 "--metrics", "dealer_advantage,w = mean(made)"]) == 0
    w = json.loads((out / "multilevel.json").read_text())["metrics"]["w"]
    assert w["value"] == pytest.approx(w["plain_value"]) and w["ci95"] == pytest.approx(w["plain_ci95"])
    assert 0 <= w["ci95"][0] <= w["value"] <= w["ci95"][1] <= 1 and w["within"] == [0.0, 1.0]
    assert report_main([str(out), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.html").read_text()
    assert page.count('<span class="warn">warning</span> (') == len(w["warnings"]) + len(
        json.loads((out / "multilevel.json").read_text())["metrics"]["dealer_advantage"]["warnings"]) > 0

def test_levels_and_features_that_are_no_numbers_are_named():
    """The estimator's own inputs: a NaN reached LAPACK (a LinAlgError and its line on
    stderr), a negative or zero time a ZeroDivisionError, text or a wrong shape numpy's
    words, a control given as text an AttributeError. Each is a MultilevelError naming it."""
    y, n = np.arange(100.0) % 7, np.ones(100)
    target, control = ml.LevelData("t", y[:50], n[:50], seconds=1.0), ml.LevelData("c", y, n, seconds=0.1)
    for make, words in ((lambda: ml.LevelData("c", np.r_[np.nan, y[1:]], n), "y holds a value that is no finite"),
                        (lambda: ml.LevelData("c", y, n, seconds=-1.0), "seconds must be a number of 0 or more"),
                        (lambda: ml.LevelData("c", y, n, extra=np.ones(7)), "extra must hold a row of values per"),
                        (lambda: ml.LevelData("c", "abc", n), "y must be numbers"),
                        (lambda: ml.LevelData("c", y + 1j, n), "y must be numbers"),
                        (lambda: ml.LevelData(None, y, n), "a level's name is text"),
                        (lambda: ml.Features(("a",), np.ones(300), np.ones(1)), "a column per name"),
                        (lambda: ml.Features(("a",), np.ones((300, 1)), [np.inf]), "no finite number"),
                        (lambda: ml.nested_estimate(target, "abc"), "a list of control LevelData"),
                        (lambda: ml.nested_estimate(target, [control], "hand"), "features must be Features"),
                        (lambda: ml.allocation("t"), "allocation takes a target LevelData"),
                        (lambda: ml.allocation(target, [ml.LevelData("c", y, n, seconds=0.0)]), "above 0")):
        with pytest.raises(ml.MultilevelError, match=words):
            make()
    # Controls as a generator, read once: they were checked, then found used up (a plain mean).
    assert ml.nested_estimate(target, (c for c in [control]))["estimator"] == \
        ml.nested_estimate(target, [control])["estimator"] != "plain mean"
    assert ml.allocation(target, (c for c in [control]))["best"] == ml.allocation(target, [control])["best"]


def test_a_rate_at_its_bound_on_every_target_deal_gets_wilsons_interval():
    """No failure among 50 target deals (a control that varies beside them): the interval
    was [0, 0], a certainty so few deals cannot give. It is Wilson's now, as a plain run's
    rate: by hand, 0 to z^2 / (n + z^2) for no success in n, 1 - that to 1 for all."""
    from sim.ratio import SHARE

    control = ml.LevelData("cheap", np.r_[np.zeros(50), np.ones(50)], np.ones(100))
    for y, ci in ((np.zeros(50), [0.0, Z95**2 / (50 + Z95**2)]), (np.ones(50), [50 / (50 + Z95**2), 1.0])):
        e = ml.nested_estimate(ml.LevelData("strong", y, np.ones(50)), [control], within=SHARE)
        assert e["variance"] == 0 and e["ci95"] == pytest.approx(ci, abs=1e-15) and e["plain_ci95"] == e["ci95"]
    spread = ml.nested_estimate(ml.LevelData("strong", np.r_[np.zeros(49), 1.0], np.ones(50)), within=SHARE)
    # A spread of its own: the textbook interval, cut at 0 (the variance 0.98 / 49 / 50 = 0.02^2).
    assert spread["ci95"] == pytest.approx([0.0, 0.02 + Z95 * 0.02])


def test_a_damaged_level_file_is_one_line_to_the_run_and_to_compare(tmp_path, capsys):
    """A level's .npz cut short or emptied, or a multilevel.json that is not an object of
    this release, is named in one line (exit 2) by the rerun and by analysis.compare; the
    rerun writes nothing over it."""
    from analysis.compare import main as compare_main
    from sim.run import main

    args = ["--deals", "200", "--control", "all=random", "--control-deals", "2000", "--quiet"]
    whole = tmp_path / "whole"
    assert main([*args, "--out", str(whole)]) == 0
    for name, damage in (("target.npz", b"PK"), ("control-1.npz", b""), ("multilevel.json", b"[]")):
        copy = tmp_path / name
        shutil.copytree(whole, copy)
        (copy / name).write_bytes(damage)
        if name != "multilevel.json":  # the rerun writes that one again from the levels
            assert main([*args, "--out", str(copy)]) == 2 and (copy / name).read_bytes() == damage
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"cannot read {copy / name}" in err
        assert compare_main([str(whole), str(copy)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"cannot read {copy / name}" in err


def _rewritten(path, name, value, seal=True):
    """The level file ``path`` with its array ``name`` replaced by ``value(arrays)`` (None:
    removed), every other array kept; ``seal``: its checksum made again to match, so that
    the checks of each array are reached (as for an older release's file, unsealed)."""
    from sim.multilevel.levels import CHECKSUM_ARRAY, level_checksum

    with np.load(path) as held:
        arrays = {k: held[k] for k in held.files}
    replaced = value(arrays)
    if replaced is None:
        del arrays[name]
    else:
        arrays[name] = replaced
    if seal:
        arrays[CHECKSUM_ARRAY] = np.array(level_checksum(arrays))
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


LEVEL_DAMAGE = [  # (file, array, new value, what the line says); each sealed again but the first three
    ("target.npz", "y0", lambda a: a["y0"] + 1000.0, "it is damaged (its checksum does not match its content)"),
    ("control-1.npz", "y0", lambda a: np.where(np.arange(len(a["y0"])) == 3, a["y0"] + 7, a["y0"]), "damaged"),
    # a checksum taken away (with the values edited): before, read as an older release's file
    ("target.npz", "checksum", lambda a: a.update(y0=a["y0"] + 1000.0), "damaged or edited (its checksum"),
    ("target.npz", "y0", lambda a: np.full(len(a["y0"]), np.nan), "y0 holds a value that is not a finite number"),
    ("control-1.npz", "n0", lambda a: np.full(len(a["n0"]), np.inf), "n0 holds a value that is not a finite number"),
    ("target.npz", "n0", lambda a: -a["n0"], "a count is negative"),
    ("target.npz", "y0", lambda a: np.array(["a"] * len(a["y0"])), "y0 is not a list of numbers"),
    ("target.npz", "seconds", lambda a: np.full(3, np.nan), "seconds holds a value that is not a finite number"),
    ("target.npz", "seconds", lambda a: np.array([1e308, 20.0, 1.0]), "its seconds are not a level's times"),
    ("control-1.npz", "choices", lambda a: a["choices"][:, 0], "choices is not a table of numbers"),
    ("control-1.npz", "choices", lambda a: a["choices"][:, :3], "its choices are not a row of 14 per deal"),
    ("control-1.npz", "choices", lambda a: None, "it holds no choices"),
    ("target.npz", "use_choices", lambda a: np.array([1, 2]), "use_choices is not true or false"),
    ("target.npz", "n0", lambda a: np.where(np.arange(len(a["n0"])) == 3, 0.5, a["n0"]), "a count is not a whole"),
    ("control-1.npz", "zzz", lambda a: np.zeros(3), "it holds zzz, which no level writes"),
]


@pytest.mark.parametrize("name, array, value, words", LEVEL_DAMAGE, ids=[f"{f}-{a}-{i}" for i, (f, a, _, _) in
                                                                          enumerate(LEVEL_DAMAGE)])
def test_a_level_file_holding_what_no_run_wrote_is_named_never_estimated(tmp_path, capsys, name, array, value, words):
    """A level file whose arrays are readable but not a level's (NaN or infinite values,
    negative or fractional counts, text, times no run took, choices of another shape or
    none, an array no level writes) or whose values were edited (its checksum no longer
    matches: before, the rerun estimated from them and sealed the changed answer over the
    good multilevel.json) is named in one line (exit 2) by the rerun, which writes nothing,
    and by analysis.compare: an estimate is never made from it (before, NaN gave a result of
    NaN with exit 0, written over the good multilevel.json, and other damage a traceback or
    a changed answer)."""
    from analysis.compare import main as compare_main
    from sim.run import main

    args = ["--deals", "100", "--seed", "74", "--control", "all=heuristic", "--control-deals", "300", "--quiet"]
    whole, copy = tmp_path / "whole", tmp_path / "copy"
    assert main([*args, "--out", str(whole)]) == 0
    shutil.copytree(whole, copy)
    _rewritten(copy / name, array, value, seal="damaged" not in words)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    capsys.readouterr()
    assert main([*args, "--out", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot read {copy / name}" in err and words in err
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before
    assert compare_main([str(whole), str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot read {copy / name}" in err and words in err


def test_compare_names_a_level_of_another_run_and_an_edited_multilevel_json(tmp_path, capsys):
    """analysis.compare reads every level's key, not the target's alone: a control copied in
    from a run of another seed is named (before, it was estimated from: another answer, exit
    0). A multilevel.json edited into what no run writes is one line, not a traceback."""
    import json

    from analysis.compare import main as compare_main
    from sim.run import main

    args = ["--deals", "100", "--control", "all=heuristic", "--control-deals", "300", "--quiet"]
    for seed in (74, 75):
        assert main([*args, "--seed", str(seed), "--out", str(tmp_path / str(seed))]) == 0
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "74", copy)
    shutil.copy(tmp_path / "75" / "control-1.npz", copy / "control-1.npz")
    capsys.readouterr()
    assert compare_main([str(tmp_path / "74"), str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot read {copy / 'control-1.npz'}: a level of another run than " \
                                    "target.npz (they differ in: seed)" in err
    # The target copied in instead is the file named (before: the control, as differing from it).
    shutil.copy(tmp_path / "74" / "control-1.npz", copy / "control-1.npz")
    shutil.copy(tmp_path / "75" / "target.npz", copy / "target.npz")
    assert compare_main([str(tmp_path / "74"), str(copy)]) == 2
    assert f"cannot read {copy / 'target.npz'}: a level of another run" in capsys.readouterr().err
    kept = json.loads((tmp_path / "74" / "multilevel.json").read_text())
    for edit in ({"sizes": {}}, {"metrics": [1]}, {"metrics": {"dealer_advantage": "x"}}, {"policies": 5},
                 {"dealing": {"unit": "deals"}}, {"sizes": {k: True for k in kept["sizes"]}},
                 {"sizes": {k: 10**9 for k in kept["sizes"]}}):
        shutil.copytree(tmp_path / "74", copy, dirs_exist_ok=True)
        (copy / "multilevel.json").write_text(json.dumps({**kept, **edit}))
        assert compare_main([str(tmp_path / "74"), str(copy)]) == 2, edit
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot read" in err and "Traceback" not in err, edit


def test_a_folder_of_another_control_list_is_refused_and_left_as_it_was(tmp_path, capsys):
    """A multilevel folder kept by another --control list is another run's: played into
    with other controls (its level dropped for the hand features, another added), or holding a
    level file no control of the command plays, it is refused in one line and nothing in it
    changes (before: exit 0, multilevel.json replaced, the old level file left unused)."""
    from sim.run import main

    args = ["--deals", "100", "--seed", "74", "--quiet"]
    out = tmp_path / "ml"
    assert main([*args, "--control", "all=heuristic", "--control-deals", "300", "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    for other in (["--control", "hand"], ["--control", "all=heuristic", "--control", "all=random",
                                          "--control-deals", "300", "--control-deals", "300"]):
        assert main([*args, *other, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "another --control list" in err, err
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    stray = tmp_path / "stray"
    shutil.copytree(out, stray)
    shutil.copy(out / "control-1.npz", stray / "control-2.npz")
    assert main([*args, "--control", "all=heuristic", "--control-deals", "300", "--out", str(stray)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds control-2.npz, a level this command does not play" in err, err
    assert main([*args, "--control", "all=heuristic", "--control-deals", "300", "--out", str(out)]) == 0  # its own
    # The same level written seat by seat is the same list, and the same level twice is refused.
    assert main([*args, "--control", "0=heuristic;1=heuristic", "--control-deals", "300", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main([*args, "--control", "all=heuristic", "--control", "0=heuristic;1=heuristic", "--out", str(out)]) == 2
    assert "--control 0=heuristic;1=heuristic is given twice: give each level once" in capsys.readouterr().err


def test_a_file_beside_the_levels_is_named_and_a_dead_writers_temporary_swept(tmp_path, capsys):
    """A file someone put in a multilevel folder is named in one line (before: 'holds no
    multilevel run'), and nothing is changed; the temporary a writer killed mid-save left is
    removed by the rerun (before, it stayed for good)."""
    from sim.run import main
    from sim.store import temporary

    args = ["--deals", "100", "--seed", "74", "--control", "all=heuristic", "--control-deals", "300", "--quiet"]
    out = tmp_path / "ml"
    assert main([*args, "--out", str(out)]) == 0
    (out / "notes.txt").write_text("mine")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds files this command did not write beside its own (notes.txt)" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    (out / "notes.txt").unlink()
    dead = temporary(out / "target.npz")
    dead = dead.with_name(dead.name.replace(f"-{os.getpid()}-", "-999999999-"))  # a writer that is gone
    dead.write_bytes(b"half a level")
    assert main([*args, "--out", str(out)]) == 0
    assert not dead.exists()


def test_the_python_api_names_arguments_of_the_wrong_kind(tmp_path):
    """sim.estimate and sim.simulate check what they are given as the command line does, each
    fault naming its argument: an empty folder or game name, a NUL in a path, option tables
    not named by strings, metrics and until that are not texts; read_folder, compare_folders
    and sim.dealing.parse the same (before: a bare TypeError, ValueError or
    ZeroDivisionError from deep inside, or an empty game name playing the default game)."""
    import sim
    from sim.dealing import DealingError, parse
    from sim.games import GameError

    base = dict(deals=20, policies={"all": STRONG}, control="all=heuristic", control_deals=100)
    for kwargs, error, words in (
            (dict(out=""), RunError, "out: an empty path names no folder"),
            (dict(out=str(tmp_path / "a\0b")), RunError, "holds a NUL character"),
            (dict(game=""), GameError, "unknown game ''"),
            (dict(rules={5: {}}), TypeError, "rules must name its option tables by strings, got 5"),
            (dict(metrics=5), TypeError, "metrics must be a metric string"),
            (dict(metrics=[None]), TypeError, "metrics must be a metric string"),
            (dict(until=("dealer_advantage", 0)), TypeError, 'until must be "METRIC:W"')):
        with pytest.raises(error, match=re.escape(words)):
            sim.estimate(**{**base, **kwargs})
    for kwargs, error, words in ((dict(out=str(tmp_path / "a\0b")), RunError, "holds a NUL character"),
                                 (dict(game=""), GameError, "unknown game ''"),
                                 (dict(rules={5: {}}), TypeError, "option tables by strings")):
        with pytest.raises(error, match=re.escape(words)):
            sim.simulate(games=10, **kwargs)
    assert not list(tmp_path.iterdir())
    with pytest.raises(ml.MultilevelError, match="a multilevel folder is a path, not int 5"):
        ml.read_folder(5)
    with pytest.raises(ml.MultilevelError, match="names: a metric's name or a list of them"):
        ml.compare_folders(tmp_path, tmp_path, names=5)
    for kwargs in (dict(predeal=5), dict(require=5), dict(upcard=5)):
        with pytest.raises(DealingError, match="takes a text or a list of texts"):
            parse("deals", **kwargs)
    assert parse("deals", predeal="0=CG").predeal == {0: ("CG",)}  # one text, not its letters
    # A metric --until names is whole as --metrics' are (its 'by' was dropped in silence);
    # deals_per_game is 1 on every deal (an estimate of 1 [1, 1] was given).
    for kwargs, words in ((dict(until="x = mean(made) by level:0.1", control_deals=None), "drop 'by COLUMN'"),
                          (dict(metrics=["deals_per_game"]), "deals_per_game is 1 in a run of single deals")):
        with pytest.raises(ValueError, match=re.escape(words)):
            sim.estimate(**{**base, **kwargs})
    # A run folder or a name the system cannot look at is no multilevel folder (OSError before).
    played = sim.simulate(games=5, dealing=parse("deals"), out=tmp_path / "plain")
    for path in (played.path, "a" * 5000):
        with pytest.raises(ml.MultilevelError, match="holds no multilevel folder"):
            ml.read_folder(path)
    with pytest.raises(ml.MultilevelError, match="was played without --dd"):  # pyarrow's words before
        ml.level_from_run(played.path, dd=True)
    with pytest.raises(TypeError, match="dd must be True or False"):
        ml.level_from_run(played.path, dd="yes")


def test_an_until_no_run_can_be_sized_for_is_one_line(capsys):
    """Half-widths so wide or so narrow that the deals they ask for are no number (overflow,
    division by zero) are refused before anything is played, with --control as without."""
    from sim.run import main

    for width in ("1e308", "1e-300"):
        for control in ([], ["--control", "all=heuristic"]):
            with pytest.raises(SystemExit) as stop:
                main(["--deals", "20", *control, "--until", f"dealer_advantage:{width}", "--out", "/nonexistent/x"])
            err = capsys.readouterr().err
            assert stop.value.code == 2 and err.count("\n") == 1
            assert f"the half-width must lie from 1e-09 to 1e+12, got '{width}'" in err


def test_a_double_dummy_level_scores_the_contract_on_its_double_dummy_tricks(tmp_path):
    """The same deals two ways: the kernels' rows rescored (dd_scored) and the records of
    a --dd run (level_from_run), deal by deal; and each played contract's declarer scores
    what the referee's score_deal gives for the double-dummy tricks. A par level's dealer's
    advantage is the dealer's par score minus the other's in the --dd run's records."""
    from sim.api import simulate
    from sim.contract import STRAIN_NAMES
    from sim.reference.bridgette import score_deal

    rules = resolve_rules("bridgette")
    run = simulate("bridgette", 40, seed=6, out=tmp_path / "dd", dd=True, dealing=Dealing("deals"))
    level = ml.level_from_run(run.path, dd=True)
    plan, _ = checked_plan("bridgette", rules, Dealing("deals"))
    player = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette"), 6, plan, True,
                            [METRICS["dealer_advantage"]], "dd")
    player.play_to(40)
    assert player.data().y.tolist() == level.y.tolist()
    deals = run.deals()
    checked = 0
    for i, row in deals.iterrows():
        if row["level"] < 0:
            continue
        gain, loss = score_deal(rules, int(row["level"]), str(row["strain"]), int(row["doubled"]),
                                int(row["dd_tricks"]))
        d = int(row["declarer"])
        advantage = (gain - loss) if d == row["dealer"] else (loss - gain)
        assert level.y[i] == advantage
        checked += 1
    assert checked > 20
    assert STRAIN_NAMES[-1] == "NT"
    par = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette"), 6, plan, "par",
                         [METRICS["dealer_advantage"]], "par")
    par.play_to(40)
    dealer_par = np.where(deals["dealer"] == 0, 1, -1) * (deals["par_score0"] - deals["par_score1"])
    assert par.data().y.tolist() == dealer_par.tolist()
    assert par.key() != player.key()


def test_until_plays_the_levels_until_the_half_width_is_met():
    """--until dealer_advantage:W: the levels are sized from a pilot and grown until the
    95% half-width is at most W, well before the cap."""
    rules = resolve_rules("bridgette")
    got = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 41, 50_000,
                            ["all=heuristic"], until="dealer_advantage:100")
    e = got["metrics"]["dealer_advantage"]
    assert got["reached"] and e["half_width"] <= 100
    assert e["levels"][0]["deals"] < 50_000


def test_a_dear_target_is_played_on_in_the_pilot_for_a_second_at_most(monkeypatch):
    """A target of milliseconds a deal (its time per deal set so here) plays on in the pilot
    for about a second, not to its cap: --until then sizes it (before: the pilot played it
    on to 20,200 deals or the cap, and every such run used them all, whatever the width)."""
    from sim.multilevel import levels

    per_deal = levels.LevelPlayer.per_deal
    monkeypatch.setattr(levels.LevelPlayer, "per_deal",
                        lambda self: 5e-3 if "aggression" in self.name else per_deal(self))
    got = ml.run_multilevel("bridgette", resolve_rules("bridgette"),
                            resolve_policies("bridgette", [f"all={STRONG}"]), 41, 50_000, ["all=heuristic"],
                            until="dealer_advantage:100")
    assert got["reached"] and got["metrics"]["dealer_advantage"]["half_width"] <= 100
    assert got["sizes"][f"0={STRONG},1={STRONG}"] < 5_000, got["sizes"]


def test_an_until_the_cap_cannot_meet_sizes_the_controls_to_the_capped_target():
    """A half-width far below what --deals can give: the target stops at its cap and each
    control gets its allocation's share of that cap, not its share of the deals the width
    would need (before: 10^28 heuristic deals, a run that filled the disk). A width the cap
    can give is sized by sizes_for as before."""
    from sim.multilevel.play import wanted_sizes

    best = {"ratios": [1.0, 120.0], "seconds_per_deal": [0.01, 1e-5], "seconds_per_unit_variance": 0.02}
    assert wanted_sizes(best, 1, 300) == [300, 36_000]
    assert wanted_sizes(best, 1, 300, until=(1200.0, 1e-6)) == [300, 36_000]
    wide = ml.sizes_for(best, 1200.0, 200.0)
    assert wide[0] <= 300 and wanted_sizes(best, 1, 300, until=(1200.0, 200.0)) == wide
    assert ml.sizes_for(best, 1200.0, 1e-6)[1] > 10**12  # what the width alone would ask
    rules = resolve_rules("bridgette")  # and a whole run with such a width ends, at its cap
    got = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 41, 300,
                            ["all=heuristic"], until="dealer_advantage:1e-6")
    assert got["sizes"][f"0={STRONG},1={STRONG}"] == 300 and not got["reached"]
    assert max(got["sizes"].values()) <= 50_000, got["sizes"]


def test_until_stops_on_a_custom_metric_named_in_metrics(tmp_path, capsys):
    """sim.run --control --until NAME:W, NAME a custom metric of --metrics: the levels grow
    until that metric's half-width is at most W, short of the --deals cap, and it is the
    metric the folder's multilevel.json says was reached. Its plain value over the target's
    deals is the mean counted from the records of a plain deal run of the same deals."""
    import json

    from sim.api import simulate
    from sim.run import main

    out = tmp_path / "ml"
    assert main(["--deals", "200000", "--seed", "52", "--policy", f"all={STRONG}", "--control", "all=heuristic",
                 "--metrics", "made4 = mean(made) where level == 4", "--until", "made4:0.03", "--out", str(out),
                 "--quiet"]) == 0
    kept = json.loads((out / "multilevel.json").read_text())
    e = kept["metrics"]["made4"]
    assert kept["until"] == ["made4", 0.03] and kept["reached"]
    assert e["half_width"] <= 0.03
    deals = e["levels"][0]["deals"]
    assert 200 <= deals < 200_000
    run = simulate("bridgette", deals, seed=52, policies={"all": STRONG}, out=tmp_path / "plain",
                   dealing=Dealing("deals"))
    four = run.deals().query("level == 4")
    assert e["plain_value"] == pytest.approx(four["made"].mean(), abs=1e-12)


def test_ratio_and_custom_metrics_are_estimated_too(tmp_path):
    """A rate over contracts (n the contracts played) and a custom metric: the plain value
    over the target's deals is the plain run's summary rate (sim.run's own aggregates), and
    the multilevel interval holds it within a plain interval's reach."""
    from sim.api import simulate

    rules = resolve_rules("bridgette")
    got = ml.run_multilevel("bridgette", rules, resolve_policies("bridgette", [f"all={STRONG}"]), 51, 500,
                            ["all=heuristic"], [5000], metrics=["contract_made", "made4 = mean(made) where level == 4"])
    run = simulate("bridgette", 500, seed=51, policies={"all": STRONG}, out=tmp_path / "plain",
                   dealing=Dealing("deals"))
    rate = run.summary["contracts_made"]["rate"]
    made = got["metrics"]["contract_made"]
    assert made["plain_value"] == pytest.approx(rate, abs=1e-12)
    assert abs(made["value"] - rate) < 2 * (made["plain_ci95"][1] - made["plain_ci95"][0])
    deals = run.deals(["level", "made"])
    four = deals[deals["level"] == 4]
    assert got["metrics"]["made4"]["plain_value"] == pytest.approx(four["made"].mean(), abs=1e-12)


def test_levels_do_not_depend_on_chunks_or_threads():
    """A level's per-deal values and choices are the same played in chunks of 70 on one
    thread as in one chunk on every thread: deal i is a pure function of (seed, i)."""
    import numba

    rules = resolve_rules("bridgette")
    plan, _ = checked_plan("bridgette", rules, Dealing("deals"))

    def played(chunk, threads):
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            p = ml.LevelPlayer("bridgette", rules, resolve_policies("bridgette"), 61, plan, False,
                               [METRICS["dealer_advantage"]], "h")
            p.play_to(700, chunk=chunk)
            return p.data()
        finally:
            numba.set_num_threads(before)

    a, b = played(70, 1), played(700, numba.config.NUMBA_NUM_THREADS)
    assert a.y.tolist() == b.y.tolist() and a.extra.tolist() == b.extra.tolist()


def test_a_run_resumes_and_grows_from_its_folder(tmp_path):
    """The levels' deals kept in --out after each chunk: the same command with more deals
    takes them up and plays on, and ends with what a fresh run of that size gives."""
    rules = resolve_rules("bridgette")
    policies = resolve_policies("bridgette", [f"all={STRONG}"])
    ml.run_multilevel("bridgette", rules, policies, 71, 300, ["all=heuristic"], [3000], out=tmp_path / "grown")
    said = []
    grown = ml.run_multilevel("bridgette", rules, policies, 71, 600, ["all=heuristic"], [6000],
                              out=tmp_path / "grown", notify=said.append)
    fresh = ml.run_multilevel("bridgette", rules, policies, 71, 600, ["all=heuristic"], [6000], out=tmp_path / "fresh")
    assert any("resuming from 3,000 deals" in line for line in said)
    a, b = grown["metrics"]["dealer_advantage"], fresh["metrics"]["dealer_advantage"]
    assert a["value"] == b["value"] and a["ci95"] == b["ci95"]
    assert sorted(p.name for p in (tmp_path / "grown").iterdir()) == ["control-1.npz", "multilevel.json",
                                                                      "target.npz"]


def test_a_finished_estimate_with_a_custom_metric_runs_again(tmp_path):
    """The same command again over a finished folder, every level whole and nothing left
    to play: a custom metric was bound to the level's columns only by a chunk played, so
    the second run ended in an AttributeError (and a run stopped after its levels could
    never be finished). It gives the first run's figures."""
    rules = resolve_rules("bridgette")
    policies = resolve_policies("bridgette", [f"all={STRONG}"])
    metrics = ["m4 = mean(made) where level == 4"]
    first, again = (ml.run_multilevel("bridgette", rules, policies, 72, 300, ["all=heuristic"], [1200],
                                      metrics=metrics, out=tmp_path / "ml")["metrics"]["m4"] for _ in range(2))
    assert first["value"] == again["value"] and first["ci95"] == again["ci95"] and 0 < first["value"] < 1


def test_a_level_file_that_is_no_file_is_named_not_read(tmp_path, capsys):
    """A named pipe in a level file's place: the rerun, the report and the comparison read
    it for good (each hung); a link to /dev/zero and a single array (.npy) got numpy's words
    of pickles, a file cut short zipfile's. Each is named in one line, and nothing is
    changed."""
    import os

    from analysis.compare import main as compare_main
    from sim.run import main
    from tests.commands import as_process

    args = ["--deals", "30", "--seed", "74", "--policy", f"all={STRONG}", "--control", "all=heuristic",
            "--control-deals", "60", "--quiet"]
    good, out = tmp_path / "good", tmp_path / "ml"
    for folder in (good, out):
        assert main([*args, "--out", str(folder)]) == 0
    level = out / "control-1.npz"
    level.unlink()
    os.mkfifo(level)
    for module, argv in (("sim.run", [*args, "--out", out]), ("analysis.compare", [out, good])):
        result = as_process(module, *argv, timeout=60)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"cannot read {level}" in result.stderr and "it is not a file (a pipe" in result.stderr
    level.unlink()
    np.save(tmp_path / "one.npy", np.arange(3))
    (tmp_path / "one.npy").rename(level)
    whole = f"cannot read {level}: it is no whole level file (an archive of arrays): cut short, altered or another " \
            f"file"
    assert compare_main([str(out), str(good)]) == 2
    assert capsys.readouterr().err.endswith(f"{whole}\n")
    level.write_bytes((good / "control-1.npz").read_bytes()[:100])  # cut short: zipfile's words before
    assert compare_main([str(out), str(good)]) == 2
    assert capsys.readouterr().err.endswith(f"{whole}\n")


def test_a_folder_played_by_other_kernels_is_refused_and_kept(tmp_path, monkeypatch, capsys):
    """A level's deals are a function of the kernels too: a folder resumed or grown after a
    kernel edit played on and mixed the two kernels' deals, where a run folder names the
    kernels that differ. Now it is refused in one line and every file stays as it was."""
    import kernels
    from sim.run import main

    out = tmp_path / "ml"
    args = ["--deals", "300", "--seed", "74", "--policy", f"all={STRONG}", "--control", "all=heuristic",
            "--out", str(out), "--quiet"]
    assert main([*args, "--control-deals", "600"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    monkeypatch.setattr(kernels, "SOURCE_DIGEST", "0" * 16)
    assert main([*args, "--control-deals", "1200"]) == 2
    err = capsys.readouterr().err
    assert "holds deals played by other kernels than this release's (differs in: kernels)" in err, err
    assert len(err.strip().splitlines()) == 1 and {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_auto_is_the_hierarchy_measured_best_for_each_game():
    """--control auto: the heuristic's contracts valued double dummy, then the heuristic, in
    the contract games (docs/multilevel.md: the most variance saved per second on five
    seeds); the heuristic alone in Bid Euchre, which has no double-dummy level. The levels
    played are those, in that order."""
    assert ml.default_levels("bridgette") == ml.default_levels("draw-bridge") == ["dd:all=heuristic", "all=heuristic"]
    assert ml.default_levels("bid-euchre") == ["all=heuristic"]
    for game, controls in (("bridgette", ["dd:all=heuristic", "all=heuristic"]), ("bid-euchre", ["all=heuristic"])):
        got = ml.run_multilevel(game, resolve_rules(game), resolve_policies(game, [f"all={STRONG}"]), 73, 300,
                                ["auto"], [600] * len(controls))
        assert got["controls"] == controls
        assert list(got["sizes"])[1:] == controls and list(got["sizes"].values())[1:] == [600] * len(controls)


def test_a_folder_of_another_run_is_refused_and_kept(tmp_path, capsys):
    """sim.run --control into a folder whose levels are another run's (another target, a
    control that is not the level in its place, a level file that cannot be read) ends in
    one line and exit status 2 before anything is played, and every file stays as it was."""
    from sim.run import main

    out = tmp_path / "ml"
    first = ["--deals", "300", "--seed", "72", "--control", "all=heuristic", "--control-deals", "600", "--out", str(out),
             "--quiet"]
    assert main(["--policy", f"all={STRONG}", *first]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    for args, words in ((["--policy", "all=heuristic:aggression=0.9", *first], "target.npz holds the deals of "
                                                                                "another level"),
                        (["--policy", f"all={STRONG}", *first[:5], "all=random", *first[6:]], "differs in: policies")):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    (out / "control-1.npz").write_bytes(b"not a level")
    assert main(["--policy", f"all={STRONG}", *first]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "remove it" in err and len(err.strip().splitlines()) == 1
    assert (out / "control-1.npz").read_bytes() == b"not a level"


def test_a_custom_metric_written_otherwise_is_named_with_the_folders_text(tmp_path, capsys):
    """A rerun whose custom metric says the same as the folder's in other words (spaces)
    is told the folder's text to give (before: "another level ... differs in: metrics",
    as for another metric, which a condition of level >= 1 still is)."""
    from sim.run import main

    out = tmp_path / "ml"
    first = ["--deals", "100", "--seed", "72", "--policy", "all=heuristic", "--control", "all=random",
             "--control-deals", "300", "--out", str(out), "--quiet", "--metrics"]
    assert main([*first, "made = mean(made) where level >= 0"]) == 0
    capsys.readouterr()
    assert main([*first, "made = mean( made ) where level>=0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "played with the metric made = mean(made) where level >= 0, the same metric " \
                                    "written otherwise: give --metrics as the folder has it" in err
    assert main([*first, "made = mean(made) where level >= 1"]) == 2
    assert "another level than 0=heuristic,1=heuristic (differs in: metrics)" in capsys.readouterr().err
    assert main([*first, "made = mean(made) where level >= 0"]) == 0


def test_the_python_api_names_its_arguments_where_the_command_names_flags(tmp_path):
    """The checks the command and the Python API share speak of flags; from sim.estimate,
    sim.simulate and sim.sweep.sweep they name the arguments instead ("control_deals",
    not "--control-deals"), and a flag that is no argument of the function stays written
    as a flag. Nothing is played or kept."""
    import sim
    from sim.sweep import sweep

    base = dict(deals=20, policies={"all": STRONG}, control="all=heuristic", out=tmp_path / "e")
    for kwargs, words in ((dict(control_deals=10), "control_deals 10: a control plays at least the target's 20"),
                          (dict(control=["all=heuristic", "all=heuristic"], control_deals=None),
                           "control all=heuristic is given twice"),
                          (dict(control_deals=100, until="dealer_advantage:5"), "until sizes the levels from a "
                                                                               "pilot: drop control_deals")):
        with pytest.raises(ml.MultilevelError) as caught:
            sim.estimate(**{**base, **kwargs})
        assert str(caught.value).startswith(words) and "--" not in str(caught.value)
    with pytest.raises(RunError, match=r"^until: unknown metric 'x' \(.*with --control, any deal metric"):
        sim.simulate(games=10, until="x:5", out=tmp_path / "s")
    # A path or a value of the user's that holds "--" is quoted as given, and an error of two
    # arguments (a damaged file) is raised as it is, its traceback kept.
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path}/--rules.toml: No such file")):
        sim.simulate(games=10, rules=str(tmp_path / "--rules.toml"), out=tmp_path / "s")
    with pytest.raises(ValueError, match="seat '--out' does not exist"):
        sim.simulate(games=10, policies=["--out=random"], out=tmp_path / "s")
    damaged = tmp_path / "--games" / "run"
    sim.simulate(games=20, block_size=10, out=damaged)
    (damaged / "manifest.json").write_bytes((damaged / "manifest.json").read_bytes()[:-5])
    with pytest.raises(RunError, match=re.escape(f"{damaged / 'manifest.json'} is unreadable")):
        sim.simulate(games=20, block_size=10, out=damaged)
    shutil.rmtree(tmp_path / "--games")
    words = 'controls plays deal runs: give dealing=sim.dealing.parse("deals")'
    with pytest.raises(ValueError, match=re.escape(words)):
        sweep("bridgette", [("exchange.nondealer_draw", [("4", 4), ("5", 5)])], games=10, controls=["all=heuristic"],
              out=tmp_path / "w")
    assert not list(tmp_path.iterdir())


def test_the_python_api_estimates_as_the_command_does(tmp_path, capsys):
    """sim.estimate with the command's arguments gives the figures sim.run --control keeps in
    its folder; its arguments are checked as sim.simulate checks them."""
    import json

    import sim
    from sim.run import main

    args = ["--deals", "300", "--seed", "72", "--policy", f"all={STRONG}", "--control", "all=heuristic",
            "--control-deals", "1200", "--metrics", "dealer_advantage,contract_made", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "cli")]) == 0
    kept = json.loads((tmp_path / "cli" / "multilevel.json").read_text())["metrics"]
    got = sim.estimate(deals=300, seed=72, policies={"all": STRONG}, control="all=heuristic", control_deals=1200,
                       metrics="dealer_advantage,contract_made")["metrics"]
    for name in ("dealer_advantage", "contract_made"):
        assert got[name]["value"] == pytest.approx(kept[name]["value"], rel=1e-12)
        assert got[name]["ci95"] == pytest.approx(kept[name]["ci95"], rel=1e-12)
    with pytest.raises(TypeError, match="control must be a level string"):
        sim.estimate(deals=10, control=3)
    with pytest.raises(ValueError, match="deals"):
        sim.estimate(deals=1.5)


def test_the_report_shows_the_hand_features_step(tmp_path):
    """The hand features' step takes its means from the deck, not from deals: the report
    says so (before: a TypeError formatting the missing count)."""
    import csv

    from analysis.report import main as report_main
    from sim.run import main

    assert main(["--deals", "1000", "--seed", "5", "--policy", "all=heuristic:aggression=0.5", "--control",
                 "all=random", "--control", "hand", "--control-deals", "5000", "--metrics", "dealer_advantage",
                 "--quiet", "--out", str(tmp_path / "ml")]) == 0
    assert report_main([str(tmp_path / "ml")]) == 0
    with open(tmp_path / "ml-report" / "steps.csv") as fh:
        assert any(r["deals"].endswith(", the deck's means") for r in csv.DictReader(fh))


def test_a_multilevel_folder_has_its_report_beside_it(tmp_path):
    """analysis.report of a multilevel folder: each metric's multilevel and plain estimates,
    variance saved and plain deals, as multilevel.json holds them, and the levels; written
    beside the folder (a report inside would stop the run from resuming), which the same
    command then resumes."""
    import csv
    import json

    from analysis.report import main as report_main
    from sim.run import main

    args = ["--deals", "100", "--seed", "74", "--policy", f"all={STRONG}", "--control", "all=heuristic",
            "--control-deals", "300", "--metrics", "dealer_advantage,contract_made", "--quiet", "--out",
            str(tmp_path / "ml")]
    assert main(args) == 0
    assert report_main([str(tmp_path / "ml")]) == 0
    out = tmp_path / "ml-report"
    kept = json.loads((tmp_path / "ml" / "multilevel.json").read_text())["metrics"]
    with open(out / "estimates.csv") as fh:
        rows = {r["metric"]: r for r in csv.DictReader(fh)}
    assert set(rows) == {"dealer_advantage", "contract_made"}
    for name, row in rows.items():
        for field in ("value", "plain_value", "variance_saved", "plain_deals"):
            assert float(row[field]) == pytest.approx(kept[name][field], rel=1e-12)
        assert [float(row["lo95"]), float(row["hi95"])] == pytest.approx(kept[name]["ci95"], rel=1e-12)
    with open(out / "levels.csv") as fh:
        assert [(r["level"], r["deals"]) for r in csv.DictReader(fh)] == [("0=" + STRONG + ",1=" + STRONG, "100"),
                                                                        ("all=heuristic", "300")]
    page = (out / "index.html").read_text()
    assert "multilevel over all=heuristic" in page and "stands for" in page
    assert sorted(p.name for p in (tmp_path / "ml").iterdir()) == ["control-1.npz", "multilevel.json", "target.npz"]
    assert main(args) == 0


def test_a_finished_folder_run_again_keeps_its_pilots_sizes(tmp_path, monkeypatch):
    """The same command on a finished multilevel folder plays no new pilot: the sizes its
    first pilot chose (which rest on that pilot's timings) stay, and so does the estimate
    (before: a new pilot sized the levels again, and the estimate moved). A larger --deals
    is a new size, for which a pilot plays."""
    import json

    import sim.multilevel.play as play

    rules = resolve_rules("bridgette")
    policies = resolve_policies("bridgette", [f"all={STRONG}"])
    out = tmp_path / "ml"
    first = ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=out)
    kept = json.loads((out / "multilevel.json").read_text())

    def no_pilot(*args, **kwargs):
        raise AssertionError("a pilot played again")

    monkeypatch.setattr(play, "allocation", no_pilot)
    written = (out / "multilevel.json").read_bytes()
    again = ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=out)
    assert again["sizes"] == first["sizes"] == kept["sizes"]
    # Nothing played: the finished file stays byte for byte, the first run's wall time with it
    # (before: rewritten with the rerun's time).
    assert (out / "multilevel.json").read_bytes() == written and again["wall_seconds"] == kept["wall_seconds"]
    assert again["metrics"]["dealer_advantage"]["value"] == first["metrics"]["dealer_advantage"]["value"]
    with pytest.raises(AssertionError, match="a pilot played again"):
        ml.run_multilevel("bridgette", rules, policies, 43, 300, ["all=heuristic"], out=out)
    with pytest.raises(AssertionError, match="a pilot played again"):  # another --until is another command
        ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=out,
                          until="dealer_advantage:300")
    # Interrupted after its pilot, before its estimate: the rerun resumes with the sizes that
    # pilot chose (kept in pilot.json until multilevel.json holds them), and plays no new one.
    monkeypatch.undo()
    broken = tmp_path / "broken"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(play, "_estimates", interrupted)
        with pytest.raises(KeyboardInterrupt):
            ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=broken)
    chosen = json.loads((broken / "pilot.json").read_text())["sizes"]
    monkeypatch.setattr(play, "allocation", no_pilot)
    resumed = ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=broken)
    assert resumed["sizes"] == chosen
    assert sorted(p.name for p in broken.iterdir()) == ["control-1.npz", "multilevel.json", "target.npz"]
    fixed = tmp_path / "fixed"  # sizes --control-deals chose are no pilot's: a command without it pilots
    ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], control_deals=[300], out=fixed)
    with pytest.raises(AssertionError, match="a pilot played again"):
        ml.run_multilevel("bridgette", rules, policies, 43, 200, ["all=heuristic"], out=fixed)


def test_a_multilevel_json_its_levels_do_not_give_is_refused(tmp_path, capsys):
    """Another condition's multilevel.json put in a finished folder: its rerun wrote over
    it, and analysis.compare and the report took its conditions for the levels' (the
    numbers the levels', the words the file's); a file put beside the levels, or a level
    file no control plays, was read past. Each is named now, every file left as it was."""
    from sim.multilevel import read_folder

    rules = resolve_rules("bridgette")
    policies = resolve_policies("bridgette", [f"all={STRONG}"])
    folders = {}
    for seat in (0, 1):
        folders[seat] = tmp_path / f"p{seat}"
        ml.run_multilevel("bridgette", rules, policies, 5, 200, ["all=heuristic"], control_deals=[400],
                          out=folders[seat], dealing=Dealing("deals", "0", (), {seat: ("CL",)}, {}))
    mixed = tmp_path / "mixed"
    shutil.copytree(folders[0], mixed)
    shutil.copy(folders[1] / "multilevel.json", mixed / "multilevel.json")
    foreign = (mixed / "multilevel.json").read_bytes()
    with pytest.raises(ml.MultilevelError, match="it names other dealing conditions than its levels were dealt"):
        read_folder(mixed)
    with pytest.raises(ml.MultilevelError, match="holds the multilevel.json of another run"):
        ml.run_multilevel("bridgette", rules, policies, 5, 200, ["all=heuristic"], control_deals=[400], out=mixed,
                          dealing=Dealing("deals", "0", (), {0: ("CL",)}, {}))
    assert (mixed / "multilevel.json").read_bytes() == foreign
    # Asked for more deals, the rerun would have played them and written over it: refused first,
    # in one line (before: after the lines that said it resumed the levels).
    from sim.run import main

    assert main(["--deals", "300", "--seed", "5", "--dealer", "0", "--predeal", "0=CL", "--policy", f"all={STRONG}",
                 "--control", "all=heuristic", "--control-deals", "600", "--threads", "1", "--out", str(mixed)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds the multilevel.json of another run" in err, err
    assert (mixed / "multilevel.json").read_bytes() == foreign
    seeded = tmp_path / "seeded"  # another seed's multilevel.json, of the same conditions: its words said seed 6
    ml.run_multilevel("bridgette", rules, policies, 6, 200, ["all=heuristic"], control_deals=[400], out=seeded,
                      dealing=Dealing("deals", "0", (), {0: ("CL",)}, {}))
    shutil.copy(seeded / "multilevel.json", tmp_path / "six.json")
    shutil.rmtree(seeded)
    shutil.copytree(folders[0], seeded)
    shutil.copy(tmp_path / "six.json", seeded / "multilevel.json")
    with pytest.raises(ml.MultilevelError, match="it names another game or seed than its levels were played with"):
        read_folder(seeded)
    for stray in ("notes.txt", "control-2.npz"):
        beside = tmp_path / stray
        shutil.copytree(folders[0], beside)
        shutil.copy(folders[0] / "control-1.npz", beside / stray)
        with pytest.raises(ml.MultilevelError, match=f"holds files its run did not write beside its levels "
                                                      f"\\({re.escape(stray)}\\): move them away"):
            read_folder(beside)
    assert read_folder(folders[0])["dealing"]["predeal"] == {"0": ["CL"]}
    # The same folder asked for fewer control deals plays nothing and writes that estimate anew.
    fewer = ml.run_multilevel("bridgette", rules, policies, 5, 200, ["all=heuristic"], control_deals=[300],
                              out=folders[0], dealing=Dealing("deals", "0", (), {0: ("CL",)}, {}))
    assert list(fewer["sizes"].values()) == [200, 300] == list(read_folder(folders[0])["sizes"].values())


def test_the_estimate_names_the_regressors_it_fits():
    """With too few target deals for every column (choices among them), the estimate fits the
    levels' metrics, with the features where there are some: 'regressors' says which ('metrics
    and features' with no features at all before)."""
    rng = np.random.default_rng(3)
    y, n = rng.normal(size=4000), np.ones(4000)
    choices = rng.normal(size=(4000, 14))
    target = ml.LevelData("t", y[:300], n[:300])
    control = ml.LevelData("c", y + rng.normal(size=4000), n, extra=choices)
    assert ml.nested_estimate(target, [control])["regressors"] == "metrics"
    features = ml.Features(("f",), rng.normal(size=(4000, 1)), np.zeros(1))
    assert ml.nested_estimate(target, [control], features)["regressors"] == "metrics and features"
    assert ml.nested_estimate(ml.LevelData("t", y[:2000], n[:2000]), [control])["regressors"] == "all"


def test_a_target_that_never_varies_is_named_as_such_not_as_a_stranger_to_its_control():
    """Every target deal scored alike: the warning says so (before: that the control hardly
    correlates with it and asked whether its deals were the target's)."""
    rng = np.random.default_rng(4)
    control = ml.LevelData("c", rng.normal(size=3000), np.ones(3000))
    got = ml.nested_estimate(ml.LevelData("t", np.zeros(400), np.ones(400)), [control])
    assert got["warnings"] == ["the target's values are the same on all its 400 deals: no control can narrow an "
                               "interval of no width"]


def test_a_metric_with_no_value_is_named(tmp_path):
    """A custom metric no deal gives a value to (its divisor sums to 0) is named beside the
    others asked for (before: "the metric has no value", not saying which)."""
    from tests.commands import in_process

    result = in_process("sim.run", "--deals", "60", "--seed", "3", "--control", "all=heuristic", "--control-deals",
                        "2000", "--metrics", "dealer_advantage, x = mean(made) where level == 99", "--quiet", "--out",
                        tmp_path / "x")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "error: metric 'x': level " in result.stderr and "has no value over its first" in result.stderr
