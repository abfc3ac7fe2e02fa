"""python -m sim.match: duplicate matches of two policies."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim import bridgette
from sim.match import play_match
from sim.policies import parse_policy
from sim.rules import BridgetteRules

ROOT = Path(__file__).resolve().parents[1]
HEURISTIC, RANDOM = parse_policy("heuristic"), parse_policy("random")


@pytest.mark.parametrize("policy", [HEURISTIC, RANDOM])
def test_a_policy_against_itself_is_an_exact_tie(policy):
    """Same policy, same cards, same policy streams: both plays are one game seen from
    both seats, so every paired difference is zero."""
    result = play_match("bridgette", policy, policy, 300, seed=4)
    assert result["mean_diff_per_deal"] == 0 and result["ci95"] == [0.0, 0.0]
    lo, hi = result["game_ci95"]
    assert lo <= 0 <= hi and result["a_game_win_rate"] <= 0.5


def test_duplicate_deals_share_their_cards():
    rules = BridgetteRules()
    first = bridgette.trace_raw(rules, [HEURISTIC, RANDOM], 12, range(5))[1]
    second = bridgette.trace_raw(rules, [RANDOM, HEURISTIC], 12, range(5))[1]
    assert len(first) == len(second) == 30
    for field in ("game", "seq", "dealer", "hands", "stock_len", "stock"):
        assert np.array_equal(first[field], second[field])


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_heuristic_beats_random(game):
    result = play_match(game, HEURISTIC, RANDOM, 400, seed=2)
    assert result["ci95"][0] > 0 and result["game_ci95"][0] > 0
    assert result["a_game_win_rate"] > 0.95


def test_cli_json_and_bad_input():
    run = subprocess.run([sys.executable, "-m", "sim.match", "--a", "heuristic", "--b",
                          "heuristic:aggression=1", "--games", "200", "--json"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert set(result) >= {"games", "deals", "mean_diff_per_deal", "ci95", "a_game_win_rate",
                           "pairing_variance_reduction"}
    assert result["games"] == 200 and len(result["ci95"]) == 2
    bad = subprocess.run([sys.executable, "-m", "sim.match", "--a", "clever", "--b", "random", "--games", "5"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown policy 'clever'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
