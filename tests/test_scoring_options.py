"""Scoring as data: B-11..B-14, D-5, D-6 and E-7's numbers are rule options.

The defaults give the rule book's scores (worked out by hand from docs/rules.md); a
changed option changes the kernel's score as worked out by hand, and the referee, reading
the same options, agrees with the kernel deal by deal on a small run under it.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels.bridgette import score_deal_nb
from kernels.calls import CALL_IDS
from sim.api import resolve_policies
from sim.games import game_module, kernel_rules
from sim.reference.bid_euchre import score_hand
from sim.reference.bridgette import score_deal as bridgette_referee
from sim.reference.draw_bridge import score_deal as draw_referee
from sim.rules import BidEuchreRules, BridgetteRules, DrawBridgeRules, RulesError, overrides, parse_set, rules_for
from sim.run import list_options
from sim.sweep import main as sweep_main
from tests.commands import in_process
from tests.differential import _check_batch


BRIDGETTE_CHANGED = {"overtrick_bonus": 700, "double_bonus": 100, "double_factor": 3,
                     "major_values": [150, 250, 250, 600, 750, 1500, 2200],
                     "penalty_doubled": [10, 20, 30, 40, 50, 60]}
EUCHRE_CHANGED = {"made_trick_points": 2, "set_bid_points": 3, "defender_trick_points": 0}


def bridgette(rules, contract, doubled, tricks):
    """(declarer's gain, opponent's gain) from the kernel, checked against the referee."""
    kr = kernel_rules(rules)
    kernel = tuple(int(x) for x in score_deal_nb(kr.params[0], kr.tables[0], CALL_IDS[contract], doubled, tricks))
    assert kernel == bridgette_referee(rules, int(contract[0]), contract[1:], doubled, tricks)
    return kernel


def euchre(rules, bid, tricks):
    """(bidding team's points, defenders') from the kernel, checked against the referee."""
    p = kernel_rules(rules).params[0]
    kernel = tuple(int(x) for x in ke.score_hand_nb(p, ke.bid_names(int(p["tricks"])).index(bid), tricks))
    assert kernel == score_hand(rules, bid, tricks)
    return kernel


def test_defaults_score_as_the_rule_book():
    r = BridgetteRules()
    assert bridgette(r, "4S", 0, 10) == (750 + 250, 0)  # B-11 value, B-12 exact
    assert bridgette(r, "4S", 1, 10) == ((750 + 250 + 400) * 2, 0)  # B-13: all doubled
    assert bridgette(r, "1NT", 0, 10) == (250 + 350, 0)  # three overtricks
    assert bridgette(r, "3NT", 1, 7) == (0, 500)  # B-14: doubled, two short
    assert bridgette(r, "6C", 2, 1) == (0, 4000)  # six or more short, redoubled
    d = DrawBridgeRules.from_dict({"scoring": {"undertricks": "bridge"}})
    assert draw_referee(d, 3, "NT", 0, 10) == (40 + 30 * 3, 0)  # D-5
    assert draw_referee(d, 2, "S", 2, 8) == (30 * 2 * 4, 0)
    assert draw_referee(d, 4, "H", 1, 7) == (0, 100 + 200 + 200)  # D-6: doubled, three down
    e = BidEuchreRules()
    assert euchre(e, "4", 5) == (5, 1)  # E-7: made, a point a trick each side
    assert euchre(e, "4", 3) == (-4, 3)  # set
    assert euchre(e, "6M", 6) == (24, 0)


def test_changed_scoring_changes_the_kernel_scores():
    r = BridgetteRules.from_dict({"scoring": BRIDGETTE_CHANGED})
    assert bridgette(r, "4S", 1, 10) == ((600 + 250 + 100) * 3, 0)
    assert bridgette(r, "4D", 0, 10) == (250 + 250, 0)  # minor_values unchanged
    assert bridgette(r, "1NT", 0, 10) == (250 + 700, 0)
    assert bridgette(r, "3NT", 1, 7) == (0, 20)
    assert bridgette(r, "3NT", 0, 7) == (0, 200)
    gain = kernel_rules(r).tables["gain"][0]  # what the heuristics and searches bid by
    assert gain[1, CALL_IDS["4S"], 10] == 2850 and gain[1, CALL_IDS["3NT"], 7] == -20
    d = DrawBridgeRules.from_dict({"scoring": {"undertricks": "bridge", "nt_first_trick": 100,
                                               "redouble_factor": 3, "undertricks_doubled": [150, 250]}})
    made, under = kernel_rules(d).tables["made"][0], kernel_rules(d).tables["undertricks"][0]
    assert made[CALL_IDS["3NT"], 2, 10] == draw_referee(d, 3, "NT", 2, 10)[0] == (100 + 30 * 3) * 3
    assert under[1, 3] == draw_referee(d, 4, "H", 1, 7)[1] == 150 + 250 + 250
    e = BidEuchreRules.from_dict({"scoring": EUCHRE_CHANGED})
    assert euchre(e, "4", 5) == (10, 0)
    assert euchre(e, "4", 3) == (-12, 0)
    assert euchre(e, "6A", 6) == (12, 0)  # ask_all is its own option


@pytest.mark.parametrize("game,changed", [("bridgette", BRIDGETTE_CHANGED), ("bid-euchre", EUCHRE_CHANGED)])
def test_referee_agrees_with_the_kernel_under_changed_scoring(game, changed):
    """Whole traced games replayed by the referee under the changed scoring; their totals
    differ from the defaults' (so the change was played)."""
    options = {"scoring": changed}
    count, deals, problems = _check_batch((game, options, ("heuristic", "random"), 5, 0, 30))
    assert problems == [] and deals >= count == 30
    totals = [game_module(game).run_block(rules_for(game, o), resolve_policies(game), 5, 0, 30)[1]["total0"]
              for o in (options, {})]
    assert not np.array_equal(*totals)


@pytest.mark.parametrize("tables,message", [
    ({"scoring": {"nt_values": [150, 250]}}, "option 'scoring.nt_values' must list 8 integers, got 2"),
    ({"scoring": {"penalty_doubled": [200, 500, 800, 1100, 2000, -1]}},
     "option 'scoring.penalty_doubled' must have entries from 0 to 10,000; entry 6 is -1"),
    ({"scoring": {"exact_values": "250"}}, "option 'scoring.exact_values' must be a list of 8 integers"),
    ({"scoring": {"overtrick_bonus": 10_001}}, "option 'scoring.overtrick_bonus' must be at most 10,000"),
    ({"scoring": {"redouble_factor": 0}}, "option 'scoring.redouble_factor' must be at least 1"),
])
def test_bad_scoring_values_are_refused(tables, message):
    with pytest.raises(RulesError, match=message):
        BridgetteRules.from_dict(tables)
    with pytest.raises(RulesError, match="'scoring.undertricks_doubled' must list 1 to 13 integers, got 14"):
        DrawBridgeRules.from_dict({"scoring": {"undertricks_doubled": [100] * 14}})


def test_bad_scoring_value_on_the_command_line_is_one_line():
    result = in_process("sim.run", "--game", "bridgette", "--games", "1", "--set", "scoring.nt_values=bad")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == ["python -m sim.run: error: option 'scoring.nt_values' must be "
                                                  "a list of 8 integers from 0 to 10,000, got 'bad'"], result.stderr


def test_list_options_shows_the_scoring_options():
    lines = {line.split()[0]: line for line in list_options("bridgette").splitlines()[1:]}
    assert "default [100,200,300,400,700,1000]" in lines["scoring.penalty_undoubled"]
    assert "(6 of 0 to 10,000)" in lines["scoring.penalty_undoubled"]
    assert "default 350" in lines["scoring.overtrick_bonus"]
    assert "(1 to 13 of 0 to 10,000)" in list_options("draw-bridge")
    assert "scoring.set_bid_points" in list_options("bid-euchre")


def test_list_options_round_trip_through_set_and_overrides():
    rules = BridgetteRules.from_dict(parse_set(["scoring.penalty_doubled=[1,2,3,4,5,6]", "scoring.double_bonus=0"]))
    assert rules.scoring.penalty_doubled == (1, 2, 3, 4, 5, 6)
    assert overrides(rules) == {"scoring": {"penalty_doubled": [1, 2, 3, 4, 5, 6], "double_bonus": 0}}
    assert BridgetteRules.from_dict(overrides(rules)) == rules


def test_a_sweep_over_scoring_options(tmp_path):
    """A scalar and a list swept, each setting's run folder holding its rules."""
    out = tmp_path / "sweep"
    assert sweep_main(["--game", "bridgette", "--vary", "scoring.overtrick_bonus=0,700",
                 "--vary", "scoring.penalty_doubled=[200,500,800,1100,2000,3000],[0,0,0,0,0,0]",
                 "--games", "4", "--out", str(out), "--quiet", "--metrics", "mean_score"]) == 0
    last = json.loads((out / "sweep.json").read_text())["settings"][-1]
    assert last["values"] == {"scoring.overtrick_bonus": 700, "scoring.penalty_doubled": [0] * 6}
    manifest = json.loads((Path(last["run"]) / "manifest.json").read_text())
    assert manifest["config"]["rules"]["scoring"]["penalty_doubled"] == [0] * 6
