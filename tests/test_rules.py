"""Rule options: every RULES.md name exists, validation, and the kernel tables."""

import re
from pathlib import Path

import numpy as np
import pytest

from kernels import bridgette as kb
from kernels.calls import CALL_IDS
from sim.rules import (
    BidEuchreRules, BridgetteRules, DrawBridgeRules, RulesError, load_rules_file, option_table, rules_for,
)

RULES_MD = Path(__file__).resolve().parents[2] / "shared" / "RULES.md"


def option_names(start: str, end: str | None):
    """Every dotted option name in a span of RULES.md's sections."""
    text = RULES_MD.read_text(encoding="utf-8")
    section = text[text.index(start):text.index(end) if end else None]
    return set(re.findall(r"`([a-z_]+\.[a-z_]+)`", section))


AUCTION_C4_C5 = {"auction.opening_pass", "auction.passed_out", "auction.max_redeals"}


@pytest.mark.parametrize("rules_class,names", [
    (BridgetteRules, lambda: option_names("## C. Common", "## D. Draw Bridge")),
    (DrawBridgeRules, lambda: option_names("## D. Draw Bridge", "## E. Bid Euchre") | AUCTION_C4_C5),
    (BidEuchreRules, lambda: option_names("## E. Bid Euchre", "## Decisions beyond")),
])
def test_every_rules_md_option_exists_under_its_name(rules_class, names):
    expected = names()
    assert len(expected) >= 9
    assert expected == {row["option"] for row in option_table(rules_class)}


def test_defaults_match_rules_md():
    r = BridgetteRules()
    assert (r.exchange.nondealer_draw, r.exchange.dealer_draw_numeral, r.exchange.dealer_draw_face,
            r.exchange.dealer_draw_ace, r.exchange.upcard_to) == (2, 4, 8, 12, "nondealer")
    assert r.deck.colons == ("little", "royal", "grand")
    assert (r.auction.opening_pass, r.auction.passed_out, r.auction.max_redeals) == ("continues", "next_deal", 100)
    assert (r.auction.min_trump_cards, r.auction.nt_needs_all_suits, r.auction.jump_min_cards) == (2, True, 4)
    assert r.play.colon_discard == "last_resort"
    assert (r.scoring.made_basis, r.scoring.exact_bonus, r.scoring.overtrick_bonus_rule,
            r.scoring.multiply_bonuses, r.scoring.penalty_last_row) == (
        "contract", "ladder", "exactly3", True, "six_or_more_short")
    assert (r.game.deals, r.game.max_tiebreak_deals) == (6, 1)


@pytest.mark.parametrize("tables,message", [
    ({"exchange": {"upcard": "dealer"}}, "unknown option 'exchange.upcard'"),
    ({"draw": {"must_follow": True}}, "unknown rule table 'draw'"),
    ({"exchange": {"upcard_to": "north"}}, "must be one of"),
    ({"exchange": {"dealer_draw_ace": "12"}}, "must be an integer"),
    ({"exchange": {"dealer_draw_ace": True}}, "must be an integer"),
    ({"auction": {"nt_needs_all_suits": 1}}, "must be true or false"),
    ({"deck": {"colons": ["grand", "grand"]}}, "lists a value twice"),
    ({"deck": {"colons": ["joker"]}}, "must be a list drawn from"),
    ({"game": {"deals": 0}}, "at least 1"),
    ({"exchange": {"dealer_draw_ace": 28}}, "the stock holds only 29"),
    ({"deck": {"colons": []}, "exchange": {"dealer_draw_ace": 25}}, "the stock holds only 26"),
    ({"exchange": {"nondealer_draw": 0}}, "nondealer_draw >= 1"),
    ({"exchange": "dead"}, "must be a table"),
])
def test_bad_options_are_refused_with_a_clear_message(tables, message):
    with pytest.raises(RulesError, match=message):
        BridgetteRules.from_dict(tables)


def test_unknown_game_and_rules_file(tmp_path):
    with pytest.raises(RulesError, match="unknown game 'hearts'"):
        rules_for("hearts")
    good = tmp_path / "v.toml"
    good.write_text('[exchange]\nupcard_to = "dead"\n[deck]\ncolons = ["royal", "little"]\n')
    rules = load_rules_file("bridgette", good)
    assert rules.exchange.upcard_to == "dead" and rules.deck.colons == ("little", "royal")
    bad = tmp_path / "bad.toml"
    bad.write_text("[exchange\n")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules_file("bridgette", bad)


def test_kernel_arrays_follow_the_options():
    params, deck, value, exact, penalty = BridgetteRules.from_dict(
        {"deck": {"colons": ["grand"]}, "exchange": {"upcard_to": "dead"},
         "scoring": {"exact_bonus": "nt_reduced", "penalty_last_row": "failed_slam"}}).to_kernel()
    assert list(deck) == list(range(52)) + [54]
    assert params[kb.P_UPCARD_TO] == kb.UPCARD_DEAD
    assert exact[CALL_IDS["3NT"]] == 100 and exact[CALL_IDS["3S"]] == 250 and exact[CALL_IDS["7C"]] == 0
    assert value[CALL_IDS["4D"]] == 250 and value[CALL_IDS["4H"]] == 750 and value[CALL_IDS["7NT"]] == 2500
    # B-14 failed_slam: a 6-level contract one short scores the last row; 3C six short the 5 row.
    assert penalty[6, 0, 1] == 1000 and penalty[3, 1, 6] == 2000 and penalty[3, 2, 9] == 2700


def test_to_dict_round_trips():
    rules = BridgetteRules.from_dict({"scoring": {"multiply_bonuses": False}, "deck": {"colons": ["little"]}})
    assert BridgetteRules.from_dict(rules.to_dict()) == rules
    assert np.array_equal(rules.to_kernel()[0], BridgetteRules.from_dict(rules.to_dict()).to_kernel()[0])
