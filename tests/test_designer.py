"""What a game designer compares and computes: paired and unpaired comparisons of deal runs,
dealer-relative record columns, custom metrics by group, a variant selecting its game,
one deal of a run shown, and intervals from Python."""

import json
import math

import numpy as np
import pytest

from analysis.compare import main as compare_main
from analysis.metrics import compare_runs
from tests.test_metrics import DEALS_A, GAMES_A, Z, fake_run


@pytest.fixture(scope="module")
def colon_runs(tmp_path_factory):
    """Deal runs of seed 3 with the Grand Colon dealt to the dealer (seat 0) or to the
    non-dealer, and one of another seed and size."""
    import sim
    from sim.dealing import parse

    root = tmp_path_factory.mktemp("colon")
    runs = {}
    for name, seat, seed, n in (("dealer", 0, 3, 600), ("nondealer", 1, 3, 600), ("other", 1, 4, 400)):
        dealing = parse("deals", dealer=0, predeal=[f"{seat}=CG"])
        runs[name] = sim.simulate(games=n, seed=seed, dealing=dealing, out=root / name, block_size=250)
    return runs


# --- 1. Paired and unpaired comparisons --------------------------------------------------------

def test_runs_of_other_sizes_compare_unpaired_with_welchs_interval(tmp_path, capsys):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", DEALS_A[:4], GAMES_A[:2], block_size=2, seed=9)
    r = compare_runs(a, b, ["dealer_advantage"])
    assert not r["paired"] and r["sizes"] == [3, 2] and r["seeds"] == [5, 9] and r["games"] is None
    d = r["metrics"]["dealer_advantage"]
    # A: R = 10, Var 26364 (tests/test_metrics). B: games (150, 2), (-500, 2): R = -87.5,
    # residuals y - R n = 325, -325: Var = 211250 / (2^2 * 2 * 1) = 26406.25.
    # B - A = -97.5, Var = 26364 + 26406.25 = 52770.25, against a paired one it could not have.
    assert (d["a"], d["b"], d["diff"], d["paired"], d["variance_reduction"]) == (10, -87.5, -97.5, False, None)
    half = Z * math.sqrt(52770.25)
    assert d["ci95"] == pytest.approx([-97.5 - half, -97.5 + half])
    assert d["b_ci95"] == pytest.approx([-87.5 - Z * math.sqrt(26406.25), -87.5 + Z * math.sqrt(26406.25)])
    assert compare_main([str(a), str(b), "--metrics", "dealer_advantage"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("bridgette: UNPAIRED (different seed (5 and 9)")
    assert "unpaired" in table.splitlines()[-3] and "Welch" in table
    assert compare_main([str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paired"] is False


def test_deal_runs_under_other_conditions_pair_deal_by_deal(colon_runs, capsys):
    a, b = colon_runs["dealer"], colon_runs["nondealer"]
    r = compare_runs(a.path, b.path)
    assert r["paired"] and r["unit"] == "deals" and "conditions" in r["pairing"]
    assert "deals_per_game" not in r["metrics"]
    # Independently: each deal's dealer advantage from the records, differenced deal by deal.
    adv = []
    for run in (a, b):
        d = run.deals(["game", "dealer", "score0", "score1"]).sort_values("game")
        adv.append(np.where(d["dealer"] == 0, d["score0"] - d["score1"], d["score1"] - d["score0"]))
    diff = adv[1] - adv[0]
    m = r["metrics"]["dealer_advantage"]
    assert m["diff"] == pytest.approx(diff.mean())
    half = Z * diff.std(ddof=1) / math.sqrt(len(diff))
    assert m["ci95"] == pytest.approx([diff.mean() - half, diff.mean() + half])
    assert compare_main([str(a.path), str(b.path)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("bridgette: 600 deals, seed 3, paired deal by deal")
    assert "deals per game" not in table and "games" not in table and "dealer's deal win rate (share of deals)" in table


def test_deal_runs_of_another_seed_compare_unpaired(colon_runs):
    a, b = colon_runs["dealer"], colon_runs["other"]
    m = compare_runs(a.path, b.path, ["dealer_advantage"])["metrics"]["dealer_advantage"]
    va, vb = ((x["ci95"][1] - x["value"]) / Z for x in (a.summary["dealer_advantage"], b.summary["dealer_advantage"]))
    half = Z * math.hypot(va, vb)
    assert not m["paired"] and m["ci95"] == pytest.approx([m["diff"] - half, m["diff"] + half])


# --- 2. Dealer-relative record columns ------------------------------------------------------

@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_dealer_columns_agree_with_the_builtin_dealer_advantage(game, tmp_path):
    import sim

    run = sim.simulate(game, games=60, seed=4, out=tmp_path / game, block_size=25)
    d = run.deals()
    # The builtin metric finds the dealer's side from the game's declaration (seat_sides).
    r = compare_runs(run.path, run.path, ["dealer_advantage", "mine = mean(score_dealer - score_nondealer)",
                                          "tricks = mean(tricks_dealer + tricks_nondealer == tricks0 + tricks1)"])
    m = r["metrics"]
    assert m["mine"]["a"] == m["dealer_advantage"]["a"] and m["mine"]["a_ci95"] == m["dealer_advantage"]["a_ci95"]
    assert m["tricks"]["a"] == 1
    assert set(zip(d["score_dealer"], d["score_nondealer"])) - {(0, 0)}  # not all passed out
    if game == "bid-euchre":
        bid = d[d["bid"] != "pass"]
        assert (bid["bidder_is_dealer_team"] == bid["bidder_from_dealer"].isin([0, 2])).all()
        assert d.loc[d["bid"] == "pass", "bidder_is_dealer_team"].isna().all()
    else:
        made = run.summary["made_by_declarer"]
        assert (d["declarer_is_dealer"] == True).sum() == made["dealer"]["n"]  # noqa: E712 (null is neither)
        assert (d["declarer_is_dealer"] == False).sum() == made["non_dealer"]["n"]  # noqa: E712
        rate = compare_runs(run.path, run.path, ["m = mean(made) where declarer_is_dealer"])["metrics"]["m"]["a"]
        assert rate == pytest.approx(made["dealer"]["rate"])
    if game == "draw-bridge":
        assert (d["draw_tricks_dealer"] == np.where(d["dealer"] == 0, d["draw_tricks0"], d["draw_tricks1"])).all()
