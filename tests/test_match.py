"""python -m sim.match: duplicate matches of two policies."""

import json
import re

import numpy as np
import pytest

import sim.match
from sim import bridgette
from sim.match import play_match
from sim.policies import parse_policy
from sim.rules import BridgetteRules
from tests.commands import in_process

HEURISTIC, RANDOM = parse_policy("heuristic"), parse_policy("random")


@pytest.mark.parametrize("policy", [HEURISTIC, RANDOM])
def test_a_policy_against_itself_is_an_exact_tie(policy):
    """Same policy, same cards, same policy streams: both plays are one game seen from
    both seats, so every paired difference is zero."""
    result = play_match("bridgette", policy, policy, 300, seed=4)
    assert result["mean_diff_per_deal"] == 0 and result["ci95"] == [0.0, 0.0]
    lo, hi = result["game_ci95"]
    assert lo <= 0 <= hi
    # A wins exactly one of each pair's two plays (or both are drawn): a half every pair.
    assert result["a_game_win_rate"] == 0.5 and result["a_game_win_ci95"] == [0.5, 0.5]
    assert result["points_and_wins_disagree"] is None


def test_duplicate_deals_share_their_cards():
    rules = BridgetteRules()
    first = bridgette.trace_raw(rules, [HEURISTIC, RANDOM], 12, range(5))[1]
    second = bridgette.trace_raw(rules, [RANDOM, HEURISTIC], 12, range(5))[1]
    assert len(first) == len(second) == 30
    for field in ("game", "seq", "dealer", "hands", "stock_len", "stock"):
        assert np.array_equal(first[field], second[field])


A_DOUBLES_LATE = parse_policy("heuristic:double_margin=6", "bridgette")  # the margin before RULES_VERSION 2
B_HEURISTIC = parse_policy("heuristic", "bridgette")  # doubles at a margin of 4


def test_game_win_rate_and_its_interval_from_the_games_totals(monkeypatch):
    """The win rate and its paired interval recounted from both plays' game records:
    Bridgette games go to the higher total (B-15), equal totals count as half; blocks of
    300 games make the match merge blocks, as a long one does."""
    monkeypatch.setattr(sim.match, "BLOCK_GAMES", 300)
    result = play_match("bridgette", A_DOUBLES_LATE, B_HEURISTIC, 1000, seed=4)
    rules = BridgetteRules()
    first = bridgette.run_block(rules, [A_DOUBLES_LATE, B_HEURISTIC], 4, 0, 1000)[1]
    second = bridgette.run_block(rules, [B_HEURISTIC, A_DOUBLES_LATE], 4, 0, 1000)[1]
    a_first = np.sign(first["total0"].astype(np.int64) - first["total1"]) / 2 + 0.5
    a_second = np.sign(second["total1"].astype(np.int64) - second["total0"]) / 2 + 0.5
    pairs = (a_first + a_second) / 2
    half = 1.959963984540054 * pairs.std(ddof=1) / np.sqrt(len(pairs))
    assert result["a_games_won"] == (a_first == 1).sum() + (a_second == 1).sum()
    assert result["drawn_games"] == (a_first == 0.5).sum() + (a_second == 0.5).sum()
    assert result["a_game_win_rate"] == pytest.approx(pairs.mean(), abs=1e-12)
    assert result["a_game_win_ci95"] == pytest.approx([pairs.mean() - half, pairs.mean() + half], abs=1e-12)
    assert 0 < half < 0.05


def test_points_per_deal_and_their_interval_over_game_pairs(monkeypatch):
    """A minus B per paired deal recounted from both plays' deal records (Draw Bridge: the
    two plays of a game last differently, so only the deals both reached pair), with its
    interval over game pairs, the independent units (ratio estimator; it was normal over
    deals, as if one game's deals were independent draws); blocks of 70 games merged."""
    import pandas as pd

    from sim import draw_bridge
    from sim.rules import DrawBridgeRules

    monkeypatch.setattr(sim.match, "BLOCK_GAMES", 70)
    a, b = parse_policy("heuristic:aggression=0.5", "draw-bridge"), parse_policy("heuristic", "draw-bridge")
    result = play_match("draw-bridge", a, b, 200, seed=8)
    rules = DrawBridgeRules()
    first = pd.DataFrame(draw_bridge.run_block(rules, [a, b], 8, 0, 200)[0])
    second = pd.DataFrame(draw_bridge.run_block(rules, [b, a], 8, 0, 200)[0])
    first["x"] = first["score0"].astype(int) - first["score1"].astype(int)
    second["y"] = second["score1"].astype(int) - second["score0"].astype(int)
    paired = first[["game", "deal", "x"]].merge(second[["game", "deal", "y"]], on=["game", "deal"])
    paired["d"] = (paired["x"] + paired["y"]) / 2
    per_game = paired.groupby("game").agg(y=("d", "sum"), n=("d", "size")).reindex(range(200), fill_value=0)
    r = per_game["y"].sum() / per_game["n"].sum()
    g, nbar = len(per_game), per_game["n"].mean()
    half = 1.959963984540054 * (((per_game["y"] - r * per_game["n"]) ** 2).sum() / ((g - 1) * g * nbar**2)) ** 0.5
    assert result["deals"] == len(paired) < len(first)
    assert result["mean_diff_per_deal"] == pytest.approx(r, rel=1e-12)
    assert result["ci95"] == pytest.approx([r - half, r + half], rel=1e-9)


def test_points_and_wins_can_disagree():
    """Doubling at a margin of 4 (the default) loses many games by a little and wins few by a
    lot: A (a margin of 6) gains points per deal yet wins fewer games, both outside their
    intervals."""
    result = play_match("bridgette", A_DOUBLES_LATE, B_HEURISTIC, 1000, seed=11)
    assert result["ci95"][0] > 0 and result["a_game_win_ci95"][1] < 0.5
    assert result["points_and_wins_disagree"] == ("points and wins disagree: "
                                                  "A gains points per deal but wins fewer games than B")
    swapped = play_match("bridgette", B_HEURISTIC, A_DOUBLES_LATE, 1000, seed=11)
    assert swapped["points_and_wins_disagree"] == ("points and wins disagree: "
                                                   "A loses points per deal but wins more games than B")


def test_a_lean_the_intervals_do_not_settle_is_not_called_a_disagreement():
    """Signs apart with an interval holding no difference: the line says the two lean apart
    and which interval holds no difference, not that they disagree (20 games, seed 3: +2.7
    points per deal [-25.2, +30.6], 47.5% [42.6%, 52.4%])."""
    from sim.match import disagreement

    result = play_match("bridgette", A_DOUBLES_LATE, B_HEURISTIC, 20, seed=3)
    lo, hi = result["a_game_win_ci95"]
    assert result["ci95"][0] < 0 < result["ci95"][1] and lo < 0.5 < hi
    assert result["points_and_wins_disagree"] == (
        "points and wins lean apart (A gains points per deal but wins fewer games than B), but both intervals hold "
        "no difference: not a clear disagreement")
    assert disagreement(3.0, [1.0, 5.0], 0.45, [0.40, 0.52]).endswith(
        "but the win rate's interval holds no difference: not a clear disagreement")
    assert disagreement(-3.0, [-7.0, 1.0], 0.55, [0.51, 0.60]).startswith(
        "points and wins lean apart (A loses points per deal but wins more games than B), but the points' interval")
    assert disagreement(3.0, [1.0, 5.0], 0.5, [0.45, 0.55]) is None
    assert disagreement(3.0, None, 0.0, None).endswith("than B), with no interval to settle it")  # one game


def test_pairs_that_all_split_get_an_interval_unless_the_players_played_alike():
    """Every pair split (50%, no spread over pairs): the share of pairs that would not lies
    in Wilson's interval of 0 in 20 ([0, 16.1%], by hand: 1.96^2/(20 + 1.96^2) = 0.1611),
    each moving the rate half a pair, so [41.9%, 58.1%]. Players that played alike (a player
    against itself: every deal's points the same) keep the exact half."""
    from sim.match import _win_interval

    lo, hi = _win_interval([0.5, 0.5], 0.5, 20)
    assert lo == pytest.approx(0.5 - 0.1611 / 2, abs=1e-4) and hi == pytest.approx(0.5 + 0.1611 / 2, abs=1e-4)
    assert _win_interval([0.5, 0.5], 0.5, 20, alike=True) == [0.5, 0.5]
    itself = play_match("bridgette", B_HEURISTIC, B_HEURISTIC, 10, seed=5)
    assert itself["a_game_win_ci95"] == [0.5, 0.5] and itself["ci95"] == [0.0, 0.0]


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_heuristic_beats_random(game):
    result = play_match(game, HEURISTIC, RANDOM, 400, seed=2)
    assert result["ci95"][0] > 0 and result["game_ci95"][0] > 0
    assert result["a_game_win_rate"] > 0.95


def test_cli_json_text_and_bad_input():
    args = ["--a", "heuristic:double_margin=6", "--b", "heuristic", "--games", "1000", "--seed", "11"]
    run = in_process("sim.match", *args, "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert set(result) >= {"games", "deals", "mean_diff_per_deal", "ci95", "a_game_win_rate", "a_game_win_ci95",
                           "points_and_wins_disagree", "pairing_variance_reduction"}
    assert result["games"] == 1000 and len(result["ci95"]) == 2
    assert result == json.loads(json.dumps(play_match("bridgette", A_DOUBLES_LATE, B_HEURISTIC, 1000, seed=11)))
    text = in_process("sim.match", *args)
    assert text.returncode == 0, text.stderr
    lo, hi = result["a_game_win_ci95"]
    assert (f"A's game win rate: {100 * result['a_game_win_rate']:.1f}%  95% CI [{100 * lo:.1f}%, {100 * hi:.1f}%]"
            in text.stdout)
    assert "  points and wins disagree: A gains points per deal but wins fewer games than B\n" in text.stdout
    bad = in_process("sim.match", "--a", "clever", "--b", "random", "--games", "5")
    assert bad.returncode == 2 and "unknown policy 'clever'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_a_match_says_the_rules_it_was_played_under():
    """(Before: neither the text nor the JSON named a variant or a --set, so two matches of
    other rules read alike.)"""
    args = ["--game", "bid-euchre", "--rules", "bid-euchre-joker", "--set", "game.target=20", "--a", "heuristic",
            "--b", "random", "--games", "4"]
    text, as_json = in_process("sim.match", *args), in_process("sim.match", *args, "--json")
    assert text.returncode == as_json.returncode == 0
    assert text.stdout.splitlines()[1] == "  rules: game.target=20, variant.joker=true"
    assert json.loads(as_json.stdout)["rules"] == {"variant": {"joker": True}, "game": {"target": 20}}
    plain = in_process("sim.match", "--a", "heuristic", "--b", "random", "--games", "2")
    assert plain.stdout.splitlines()[1] == "  rules: RULES.md defaults"


def test_a_parameter_bridgette_does_not_read_is_refused():
    """draw_fight is read only by Draw Bridge's decisions: one line, status 2, nothing played."""
    bad = in_process("sim.match", "--game", "bridgette", "--a", "heuristic:draw_fight=11", "--b", "heuristic",
                     "--games", "5")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "has no parameter 'draw_fight' in bridgette: only draw-bridge decisions read it" in bad.stderr


def test_one_game_has_means_but_no_intervals():
    """One pair gives no spread, per deal as per game (its deals are one observation): the
    report says so instead of failing."""
    run = in_process("sim.match", "--a", "heuristic", "--b", "random", "--games", "1")
    assert run.returncode == 0, run.stderr
    assert "A minus B per game: " in run.stdout and run.stdout.count("(no interval from one pair)") == 4
    assert run.stdout.splitlines()[-1] == "  pairing against unpaired play: no figure (no interval from one pair)"
    result = play_match("bridgette", HEURISTIC, RANDOM, 1, seed=1)
    assert result["ci95"] is None and result["game_ci95"] is None and result["a_game_win_ci95"] is None
    assert result["mean_diff_per_game"] is not None and result["a_game_win_rate"] == 1.0


def test_paired_deals_from_one_game_pair_give_no_interval():
    """Six game pairs of which only one has paired deals (the others passed out, at a redeal
    limit of 0): the per-deal figure rests on one pair, so it has no interval (before: a
    zero-width interval, [-150.00, -150.00])."""
    from sim.api import resolve_policies, resolve_rules

    rules = resolve_rules("bridgette", None, ["auction.passed_out=redeal", "auction.max_redeals=0"])
    a, b = (resolve_policies("bridgette", {"all": p})[0] for p in ("heuristic:aggression=-100",
                                                                   "heuristic:aggression=-3"))
    result = play_match("bridgette", a, b, 6, seed=2, rules=rules)
    assert result["deals"] == 1 and result["mean_diff_per_deal"] == -150.0 and result["ci95"] is None
    assert result["game_ci95"] is not None  # six game pairs: the per-game figure has its spread


def test_a_match_where_no_deal_counts_is_one_line_not_a_finding():
    """One deal a game, no tie-break, and a pass that ends the auction (C-4) redealt up to a
    limit of 0 (C-5): with random seats, seed 27, both games end with nothing scored. Before:
    a TypeError in the text, and "deals": 0 with a 50% win rate in --json."""
    rules = ["--set", "game.deals=1", "--set", "game.max_tiebreak_deals=0", "--set", "auction.opening_pass=ends",
             "--set", "auction.passed_out=redeal", "--set", "auction.max_redeals=0"]
    for extra in ([], ["--json"]):
        run = in_process("sim.match", "--a", "random", "--b", "random", "--games", "1", "--seed", "27", *rules, *extra)
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr == ("python -m sim.match: error: no deal counted in any of the 2 games played: each ended "
                              "with its deals passed out, at the redeal limit (C-5); nothing to compare under these "
                              "rules\n")


def test_a_win_rate_every_pair_shares_gets_the_wilson_interval_not_one_of_no_width():
    """Five pairs all won: the pairs' normal interval has no width ([100%, 100%]), which no
    five games can show; the Wilson interval of 5 in 5 stands in ([56.6%, 100%], by hand:
    centre (1 + 1.96^2/10) / (1 + 1.96^2/5) = 0.7830, half-width 0.2170). A rate that varies
    keeps its normal interval, cut to [0, 1]."""
    from sim.match import _win_interval

    lo, hi = _win_interval([1.0, 1.0], 1.0, 5)
    assert abs(lo - 0.5655) < 1e-4 and hi == 1.0
    assert _win_interval([0.0, 0.0], 0.0, 5) == [0.0, pytest.approx(0.4345, abs=1e-4)]
    assert _win_interval([0.45, 1.07], 0.76, 5) == [0.45, 1.0]
    assert _win_interval(None, 1.0, 1) is None


@pytest.mark.parametrize("kwargs, error, words", [
    ({"a": "heuristic"}, "PolicyError", "a must be a policy of bridgette"),
    ({"b": parse_policy("heuristic", "bid-euchre")}, "PolicyError", "b must be a policy of bridgette"),
    ({"seed": -1}, "RunError", "seed: the seed must be in 0 .. 2**64-1"),
    ({"seed": 1.5}, "RunError", "seed: '1.5' is not an integer seed"),
    ({"games": 0}, "RunError", "games: '0' is not a whole number of at least 1"),
    ({"games": True}, "RunError", "games: 'True' is not a number"),  # as sim.simulate says it
    ({"rules": {"exchange": {}}}, "RulesError", "rules must be bridgette's rules"),
    ({"threads": 0}, "RunError", "threads: '0' is not a whole number"),  # ignored without a cluster before
    ({"threads": 10**6}, "RunError", "threads=1000000 exceeds the"),
])
def test_play_match_checks_its_arguments_as_simulate_does(kwargs, error, words):
    """A policy given as text or parsed for another game, a seed or count out of range, and
    rules that are not the game's were an AttributeError, an OverflowError or a message about
    passed-out deals; each is one line naming the argument. numpy counts play as ints, so the
    result stays JSON-ready."""
    args = {"game": "bridgette", "a": HEURISTIC, "b": RANDOM, "games": 5, "seed": 1, **kwargs}
    with pytest.raises(ValueError, match=re.escape(words)) as caught:
        play_match(**args)
    assert type(caught.value).__name__ == error
    result = play_match("bridgette", HEURISTIC, RANDOM, np.int64(5), np.int64(1))
    assert json.loads(json.dumps(result))["games"] == 5
