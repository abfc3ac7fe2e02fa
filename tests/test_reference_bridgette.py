"""Tests of the Bridgette reference referee (sim/reference/bridgette.py) against docs/rules.md.

* every Bridgette golden deal of tests/golden/cases.jsonl replays to its ``expect``;
* the replay format's error conventions (rule id and ``at`` key);
* hand-built positions for B-3 draws, B-6 jumps, C-4 doubling, B-7 opening lead,
  B-8 bar, B-9 Colon leads, B-10 under both ``play.colon_discard`` options;
* random legal play-throughs (invariants, replay round trip);
* the game flow BridgetteGame (B-15, C-5, C-6).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from sim.reference.bridgette import (
    BridgetteDeal,
    BridgetteGame,
    IllegalAction,
    LADDER,
    deck_for,
    replay,
    score_deal,
)
from sim.rules import BridgetteRules
from tests.conftest import GOLDEN

DEFAULT = BridgetteRules()


def rules_of(**sections) -> BridgetteRules:
    """Rules with overrides, e.g. ``rules_of(play={"colon_discard": "when_void"})``."""
    return BridgetteRules.from_dict(sections)


def cards(spec: str) -> list[str]:
    return spec.split()


# ------------------------------------------------------------------------------------------
# Golden deals
# ------------------------------------------------------------------------------------------

def golden_cases() -> list:
    cases = []
    with open(GOLDEN, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            case = json.loads(line)
            if case.get("game") == "bridgette":
                cases.append(pytest.param(case, id=f"line{n}"))
    return cases


GOLDEN_CASES = golden_cases()


def test_golden_file_has_bridgette_cases():
    assert len(GOLDEN_CASES) >= 20


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_golden(case):
    got = replay(copy.deepcopy(case))
    expect = case["expect"]
    assert {k: got.get(k) for k in expect} == expect, (case.get("note"), got)


# ------------------------------------------------------------------------------------------
# Replay error conventions (RULES.md "Replay format")
# ------------------------------------------------------------------------------------------

EXAMPLE = {
    "game": "bridgette", "rules": {}, "dealer": 0,
    "hands": [cards("AS 2S 7H 7S 9D AD 9H 2D AH KS 3C TH 4D"),
              cards("TS JD 3S 5D QD QH 5C 8D 8C QC 5H AC 2H")],
    "stock": cards("9S TD KH KC 9C 7C QS 3D 8H 7D 5S CR 4S 6S 8S 6H CL JC TC JH 3H KD CG "
                   "4H 2C 6D 4C JS 6C"),
    "discards": [cards("2D 2S 3C 4D"), cards("3S 2H")],
    "calls": cards("P 1H X XX 2D P"),
    "play": cards("TD AD AH QH 7H 5H KC QC AS 9S 9D JD 5D 7S 8D 7C QD 9C 8C KH TS KS TH AC "
                  "9H 5C"),
    "expect": {"contract": "2D", "declarer": 0, "doubled": 0, "tricks": [8, 5],
               "score": [500, 0]},
}


def example(**changes) -> dict:
    case = copy.deepcopy(EXAMPLE)
    case.update(changes)
    return case


def error_of(case: dict) -> tuple[str, str]:
    got = replay(case)
    assert "error" in got, got
    assert got.get("message"), got
    return got["error"], got["at"]


def test_example_replays():
    got = replay(example())
    assert {k: got[k] for k in EXAMPLE["expect"]} == EXAMPLE["expect"]


@pytest.mark.parametrize("changes,expected", [
    # B-2: the deal must match the deck.
    ({"hands": [cards("AS 2S 7H 7S 9D AD 9H 2D AH KS 3C TH"),
                cards("TS JD 3S 5D QD QH 5C 8D 8C QC 5H AC 2H")]}, ("B-2", "hands")),
    ({"hands": [cards("AS 2S 7H 7S 9D AD 9H 2D AH KS 3C TH TH"),
                cards("TS JD 3S 5D QD QH 5C 8D 8C QC 5H AC 2H")]}, ("B-2", "hands")),
    ({"hands": [cards("AS 2S 7H 7S 9D AD 9H 2D AH KS 3C TH ZZ"),
                cards("TS JD 3S 5D QD QH 5C 8D 8C QC 5H AC 2H")]}, ("B-2", "hands")),
    ({"stock": EXAMPLE["stock"][:-1]}, ("B-2", "stock")),
    ({"stock": EXAMPLE["stock"][:-1] + ["AS"]}, ("B-2", "stock")),
    ({"stock": EXAMPLE["stock"] + ["JO"]}, ("B-2", "stock")),
    ({"rules": {"deck": {"colons": ["grand"]}}}, ("B-2", "stock")),
    # B-3: the non-dealer's (seat 1) discards are checked first; wrong count or card.
    ({"discards": [cards("2D 2S 3C 4D"), cards("3S")]}, ("B-3", "discards[1]")),
    ({"discards": [cards("2D 2S 3C 4D"), cards("3S 2H 5H")]}, ("B-3", "discards[1]")),
    ({"discards": [cards("2D 2S 3C"), cards("3S 2H")]}, ("B-3", "discards[0]")),
    ({"discards": [cards("2D 2S 3C 4D"), cards("3S 3S")]}, ("B-3", "discards[1]")),
    ({"discards": [cards("2D 2S 3C 5S"), cards("3S 2H")]}, ("B-3", "discards[0]")),
    ({"discards": [cards("2D 2S 3C 4D")]}, ("B-3", "discards[1]")),
    # B-5 / C-4 / B-6 calls.
    ({"calls": cards("P 1N X XX 2D P")}, ("B-5", "calls[1]")),
    ({"calls": cards("P 8H")}, ("B-5", "calls[1]")),
    ({"calls": cards("P 1H X XX 1D P")}, ("C-4", "calls[4]")),      # does not outrank
    ({"calls": cards("P 1H X X")}, ("C-4", "calls[3]")),            # doubler doubles again
    ({"calls": cards("P 1H XX")}, ("C-4", "calls[2]")),             # redouble undoubled bid
    ({"calls": cards("P 1H X XX XX")}, ("C-4", "calls[4]")),
    ({"calls": cards("X")}, ("C-4", "calls[0]")),                  # nothing to double
    ({"calls": cards("P 1H X XX 2D")}, ("C-4", "calls[5]")),        # auction unfinished
    ({"calls": []}, ("C-4", "calls[0]")),
    ({"calls": cards("P 1H X XX 2D P P")}, ("C-4", "calls[6]")),    # after the end
    ({"calls": cards("P 1H X XX 2D P 3D")}, ("C-4", "calls[6]")),
    ({"calls": cards("2C")}, ("B-6", "calls[0]")),                  # a jump with 3 clubs
    ({"calls": cards("P 1H X XX 1C")}, ("C-4", "calls[4]")),
    # seat 0 holds 2 diamonds: with min_trump_cards = 3 it may not bid them (B-6) ...
    ({"rules": {"auction": {"min_trump_cards": 3}}, "calls": cards("P 1NT X XX 2D P")},
     ("B-6", "calls[4]")),
    # ... and a diamond bid that also fails to outrank reports C-4.
    ({"rules": {"auction": {"min_trump_cards": 3}}, "calls": cards("P 1NT X XX 1D P")},
     ("C-4", "calls[4]")),
    # B-7: too few / too many cards, card not in hand.
    ({"play": EXAMPLE["play"][:-1]}, ("B-7", "play[25]")),
    ({"play": []}, ("B-7", "play[0]")),
    ({"play": EXAMPLE["play"] + ["2C"]}, ("B-7", "play[26]")),
    ({"play": ["AS"] + EXAMPLE["play"][1:]}, ("B-7", "play[0]")),   # AS is the declarer's
    # C-3: seat 0 holds diamonds and must follow TD.
    ({"play": ["TD", "AS"] + EXAMPLE["play"][2:]}, ("C-3", "play[1]")),
    # C-4: calls after the auction.
    ({"play": ["P"] + EXAMPLE["play"][1:]}, ("C-4", "play[0]")),
])
def test_replay_errors(changes, expected):
    assert error_of(example(**changes)) == expected


def test_replay_play_after_passed_out():
    case = example(calls=cards("P P"), play=EXAMPLE["play"])
    assert error_of(case) == ("C-4", "play[0]")
    ok = replay(example(calls=cards("P P"), play=[]))
    assert ok == {"contract": "pass", "declarer": None, "doubled": 0, "tricks": [0, 0],
                  "score": [0, 0]}
    ok = replay(example(calls=cards("P"), play=[], rules={"auction": {"opening_pass": "ends"}}))
    assert ok["contract"] == "pass"
    assert error_of(example(calls=cards("P P"), play=[],
                            rules={"auction": {"opening_pass": "ends"}})) == ("C-4", "calls[1]")


def test_replay_missing_optional_keys_mean_empty_steps():
    case = example()
    del case["play"]
    assert error_of(case) == ("B-7", "play[0]")
    case = example()
    del case["discards"]
    assert error_of(case) == ("B-3", "discards[1]")


# ------------------------------------------------------------------------------------------
# Helpers to build positions
# ------------------------------------------------------------------------------------------

def make_deal(hand0, hand1, *, dealer=0, upcard=None, rules=DEFAULT) -> BridgetteDeal:
    """A valid deal where each seat is dealt ``hand0`` / ``hand1`` and, after the B-3
    exchange, discards exactly what it drew (so it holds its dealt hand again)."""
    hands = [list(hand0), list(hand1)]
    rest = [c for c in deck_for(rules) if c not in hands[0] + hands[1]]
    if upcard is None:
        upcard = next(c for c in rest if c[0] in "23456789")
    stock = [upcard] + [c for c in rest if c != upcard]
    deal = BridgetteDeal(rules, dealer, hands, stock)
    while deal.phase == "discard":
        seat = deal.to_move
        extra = [c for c in deal.hands[seat] if c not in hands[seat]]
        deal.apply(extra[0])
    assert deal.phase == "auction" and sorted(deal.hands[0]) == sorted(hand0)
    return deal


def play_position(hand0, hand1, contract, declarer, *, leader=None, rules=DEFAULT) -> BridgetteDeal:
    """White-box: a deal put in the play phase of ``contract`` by ``declarer`` with the given
    (possibly short) hands, ``leader`` to lead (default: the declarer's opponent)."""
    deal = make_deal(H0, H1, rules=rules)
    deal._bid, deal._bidder, deal._doubled = contract, declarer, 0
    deal._calls = [contract, "P"]
    deal._auction_over = True
    deal._phase = "play"
    deal._leader = 1 - declarer if leader is None else leader
    deal._hands = [list(hand0), list(hand1)]
    return deal


def illegal(deal: BridgetteDeal, action: str) -> str:
    with pytest.raises(IllegalAction) as info:
        deal.apply(action)
    assert info.value.message
    return info.value.rule


# Seat 0: 7 spades, 3 hearts, 2 diamonds, 1 club. Seat 1: 5 clubs, 2 hearts, 6 diamonds,
# no spades.
H0 = cards("AS KS QS JS TS 9S 8S AH KH QH AD KD AC")
H1 = cards("KC QC JC TC 9C JH TH QD JD TD 9D 8D 7D")

LEVELS = range(1, 8)


def bids(strain, levels):
    return {f"{level}{strain}" for level in levels}


# ------------------------------------------------------------------------------------------
# B-2 / B-3 / B-4: deal and exchange
# ------------------------------------------------------------------------------------------

def example_deal(rules=DEFAULT, dealer=0, stock=None):
    return BridgetteDeal(rules, dealer, EXAMPLE["hands"], stock or EXAMPLE["stock"])


@pytest.mark.parametrize("upcard_to,nd_idx,d_idx", [
    ("nondealer", [0, 1], [2, 3, 4, 5]),
    ("dealer", [1, 2], [0, 3, 4, 5]),
    ("dead", [1, 2], [3, 4, 5, 6]),
])
def test_b3_draws_by_upcard_to(upcard_to, nd_idx, d_idx):
    stock = EXAMPLE["stock"]                 # up-card 9S: a numeral, the dealer draws 4
    deal = example_deal(rules_of(exchange={"upcard_to": upcard_to}), dealer=0)
    assert deal.upcard == "9S"
    assert deal.drawn[1] == [stock[i] for i in nd_idx]
    assert deal.drawn[0] == [stock[i] for i in d_idx]
    assert len(deal.hands[0]) == 17 and len(deal.hands[1]) == 15
    assert deal.phase == "discard" and deal.to_move == 1     # non-dealer discards first


@pytest.mark.parametrize("upcard,count", [
    ("2C", 4), ("TD", 4), ("CL", 4), ("JH", 8), ("QS", 8), ("KC", 8), ("CR", 8),
    ("AH", 12), ("CG", 12)])
@pytest.mark.parametrize("upcard_to", ["nondealer", "dealer", "dead"])
def test_b3_dealer_draw_by_upcard_class(upcard, count, upcard_to):
    hands = [list(h) for h in EXAMPLE["hands"]]
    stock = list(EXAMPLE["stock"])
    for h in hands:                       # swap the up-card with the top of the stock (9S)
        if upcard in h:
            h[h.index(upcard)] = stock[0]
            stock[0] = upcard
    stock = [upcard] + [c for c in stock if c != upcard]
    rules = rules_of(exchange={"upcard_to": upcard_to})
    deal = BridgetteDeal(rules, 1, hands, stock)
    assert len(deal.drawn[1]) == count    # dealer 1
    assert len(deal.drawn[0]) == 2
    assert (upcard in deal.drawn[1]) == (upcard_to == "dealer")
    assert (upcard in deal.drawn[0]) == (upcard_to == "nondealer")


def test_b3_draw_counts_are_options():
    rules = rules_of(exchange={"nondealer_draw": 3, "dealer_draw_numeral": 5})
    deal = example_deal(rules)
    assert [len(d) for d in deal.drawn] == [5, 3]


def test_b3_discard_phase_order_and_legal_actions():
    deal = example_deal()
    assert deal.to_move == 1 and sorted(deal.legal_actions()) == sorted(deal.hands[1])
    assert illegal(deal, "2D") == "B-3"          # not in seat 1's hand
    deal.apply("3S")
    deal.apply("2H")
    assert deal.to_move == 0 and len(deal.hands[1]) == 13
    for c in cards("2D 2S 3C 4D"):
        deal.apply(c)
    assert deal.phase == "auction" and deal.to_move == 0 and deal.discards[0] == cards("2D 2S 3C 4D")


def test_b4_smaller_deck():
    rules = rules_of(deck={"colons": ["grand"]})
    assert len(deck_for(rules)) == 53
    stock = [c for c in EXAMPLE["stock"] if c not in ("CL", "CR")]
    deal = example_deal(rules, stock=stock)
    assert deal.phase == "discard"
    with pytest.raises(IllegalAction) as info:
        example_deal(rules)                   # the 29-card stock holds CL and CR
    assert info.value.rule == "B-2"


# ------------------------------------------------------------------------------------------
# B-6: holding requirements and jumps
# ------------------------------------------------------------------------------------------

def test_b6_opening_bids_seat0():
    deal = make_deal(H0, H1, dealer=0)
    expected = ({"P", "0NT", "1D", "1H"} | bids("S", LEVELS) | bids("NT", LEVELS))
    assert set(deal.legal_actions()) == expected
    assert illegal(deal, "1C") == "B-6"       # one club
    assert illegal(deal, "2D") == "B-6"       # opening 2D is a jump: 2 diamonds < 4
    assert illegal(deal, "2H") == "B-6"       # 3 hearts < 4
    assert illegal(deal, "1N") == "B-5"
    assert illegal(deal, "8S") == "B-5"
    assert illegal(deal, "0S") == "B-5"
    deal.apply("7S")                          # 7 spades: any jump


def test_b6_opening_bids_seat1_after_pass():
    deal = make_deal(H0, H1, dealer=0)
    deal.apply("P")
    expected = {"P"} | bids("C", LEVELS) | bids("D", LEVELS) | {"1H"}
    assert set(deal.legal_actions()) == expected
    assert illegal(deal, "0NT") == "B-6"      # no spades: B-6 nt_needs_all_suits
    assert illegal(deal, "1S") == "B-6"


def test_b6_jump_measured_within_the_strain():
    deal = make_deal(H0, H1, dealer=0)
    deal.apply("P")
    deal.apply("1D")                          # seat 1
    expected = ({"P", "X", "1H", "2D"} | bids("S", LEVELS) | bids("NT", LEVELS))
    assert set(deal.legal_actions()) == expected
    assert illegal(deal, "2H") == "B-6"       # 1H is the lowest heart bid: 2H jumps
    assert illegal(deal, "3D") == "B-6"       # 2D is the lowest diamond bid: 3D jumps
    assert illegal(deal, "1C") == "C-4"       # fails C-4 (and B-6): C-4
    assert illegal(deal, "2C") == "B-6"       # outranks, but one club
    assert illegal(deal, "0NT") == "C-4"
    assert illegal(deal, "1D") == "C-4"
    assert illegal(deal, "XX") == "C-4"


def test_b6_jump_after_a_bid_in_a_lower_strain():
    deal = make_deal(H0, H1, dealer=0)
    deal.apply("1S")
    deal.apply("2D")                          # seat 1: lowest diamond level over 1S is 2
    legal = set(deal.legal_actions())
    # seat 0: 2H is the lowest heart bid (3 hearts: no jump), 3D the lowest diamond bid.
    assert {"P", "X", "2H", "3D", "2S", "3S", "7S", "2NT", "7NT"} <= legal
    assert "3H" not in legal and "4D" not in legal and "2C" not in legal and "3C" not in legal
    assert illegal(deal, "3H") == "B-6"
    assert illegal(deal, "4D") == "B-6"
    assert illegal(deal, "1NT") == "C-4"


def test_b6_colons_never_count():
    h0 = cards("AH CL CR CG AS KS QS AD KD QD AC KC QC")
    h1 = cards("JS TS 9S 8S JH TH 9H 8H JD TD 9D 8D JC")
    deal = make_deal(h0, h1, dealer=0)
    legal = set(deal.legal_actions())
    assert "1H" not in legal and "1S" in legal and "2S" not in legal and "0NT" in legal
    assert illegal(deal, "1H") == "B-6"
    assert illegal(deal, "2S") == "B-6"       # 3 spades + 3 Colons is not 4


def test_b6_nt_needs_a_card_of_every_suit():
    h0 = cards("CL CR CG AS KS QS AD KD QD AC KC QC JC")   # no hearts; Colons do not help
    h1 = cards("JS TS 9S 8S JH TH 9H 8H JD TD 9D 8D TC")
    deal = make_deal(h0, h1, dealer=0)
    assert not bids("NT", range(0, 8)) & set(deal.legal_actions())
    assert illegal(deal, "0NT") == "B-6"
    rules = rules_of(auction={"nt_needs_all_suits": False})
    deal = make_deal(h0, h1, dealer=0, rules=rules)
    assert bids("NT", range(0, 8)) <= set(deal.legal_actions())


def test_b6_options_min_trump_and_jump_cards():
    rules = rules_of(auction={"min_trump_cards": 1, "jump_min_cards": 3})
    deal = make_deal(H0, H1, dealer=0, rules=rules)
    legal = set(deal.legal_actions())
    assert {"1C", "1D", "1H", "2H", "7H"} <= legal      # 1 club; 3 hearts allow jumps
    assert "2C" not in legal and "2D" not in legal       # jumps need 3


def test_b6_doubles_have_no_holding_requirement():
    deal = make_deal(H0, H1, dealer=0)
    deal.apply("1S")
    assert "X" in deal.legal_actions()        # seat 1 holds no spades
    deal.apply("X")
    deal.apply("XX")
    deal.apply("P")
    assert (deal.contract, deal.declarer, deal.doubled) == ("1S", 0, 2)


# ------------------------------------------------------------------------------------------
# C-4: the auction
# ------------------------------------------------------------------------------------------

def test_c4_double_and_redouble_legality():
    deal = make_deal(H0, H1, dealer=0)
    assert deal.to_move == 0
    assert "X" not in deal.legal_actions() and "XX" not in deal.legal_actions()
    deal.apply("1S")
    legal = set(deal.legal_actions())
    assert deal.to_move == 1 and {"P", "X"} <= legal and "XX" not in legal
    assert {"2C", "3C", "2D", "7D", "2H"} <= legal and "3H" not in legal and "1C" not in legal
    deal.apply("X")
    legal = set(deal.legal_actions())
    assert {"P", "XX", "1NT", "2S"} <= legal and "X" not in legal
    assert illegal(deal, "X") == "C-4"
    deal.apply("XX")
    legal = set(deal.legal_actions())
    assert "P" in legal and "X" not in legal and "XX" not in legal and "2C" in legal
    assert illegal(deal, "X") == "C-4"
    assert illegal(deal, "XX") == "C-4"
    assert deal.doubled == 2
    with pytest.raises(IllegalAction, match="1S is already redoubled"):  # as Draw Bridge's referee says it
        deal.apply("X")


def test_c4_own_bid_cannot_be_doubled_or_redoubled_by_the_doubler():
    deal = make_deal(H0, H1, dealer=0)
    deal.apply("P")
    deal.apply("1D")
    deal.apply("X")                           # seat 0 doubles seat 1's 1D
    assert illegal(deal, "X") == "C-4"        # seat 1 may not double its own bid
    deal.apply("XX")
    assert illegal(deal, "XX") == "C-4"       # seat 0 (the doubler) may not redouble


def test_c4_new_bid_cancels_doubles():
    deal = make_deal(H0, H1, dealer=0)
    for call in ("1S", "X", "XX"):
        deal.apply(call)
    deal.apply("2D")                          # seat 1
    assert deal.doubled == 0
    assert "X" in deal.legal_actions() and "XX" not in deal.legal_actions()
    deal.apply("P")
    assert (deal.contract, deal.declarer, deal.doubled) == ("2D", 1, 0)


@pytest.mark.parametrize("calls,contract,declarer,doubled", [
    ("1S P", "1S", 0, 0),
    ("1S X P", "1S", 0, 1),                   # the bidder passes its doubled bid
    ("1S X XX P", "1S", 0, 2),
    ("P 1D P", "1D", 1, 0),
    ("P 1D 1S P", "1S", 0, 0),                # the opening passer calls again
    ("P 1D X P", "1D", 1, 1),
    ("0NT X P", "0NT", 0, 1),
])
def test_c4_auction_end(calls, contract, declarer, doubled):
    deal = make_deal(H0, H1, dealer=0)
    for call in cards(calls):
        deal.apply(call)
    assert deal.phase == "play"
    assert (deal.contract, deal.declarer, deal.doubled) == (contract, declarer, doubled)
    assert deal.to_move == 1 - declarer       # B-7: the declarer's opponent leads
    assert deal.legal_actions() == deal.hands[1 - declarer]
    assert illegal(deal, "P") == "C-4"
    assert illegal(deal, "XX") == "C-4"


def test_c4_opening_pass_options():
    deal = make_deal(H0, H1, dealer=1)
    deal.apply("P")
    assert deal.phase == "auction" and deal.to_move == 0
    deal.apply("P")
    assert deal.phase == "done" and deal.passed_out and deal.contract is None
    assert deal.outcome() == {"contract": "pass", "declarer": None, "doubled": 0,
                              "tricks": [0, 0], "score": [0, 0]}
    assert illegal(deal, "AS") == "C-4"
    assert illegal(deal, "P") == "C-4"
    deal = make_deal(H0, H1, dealer=1, rules=rules_of(auction={"opening_pass": "ends"}))
    deal.apply("P")
    assert deal.phase == "done" and deal.passed_out
    deal = make_deal(H0, H1, dealer=1, rules=rules_of(auction={"opening_pass": "ends"}))
    deal.apply("1D")
    deal.apply("P")
    assert deal.contract == "1D"


def test_c4_ladder_order():
    assert len(LADDER) == 36 and LADDER[0] == "0NT" and LADDER[-1] == "7NT"
    assert LADDER[1:7] == ("1C", "1D", "1H", "1S", "1NT", "2C")
    deal = make_deal(H0, H1, dealer=1)
    deal.apply("1D")
    deal.apply("1NT")
    # seat 1 (5 clubs, 2 hearts, 6 diamonds): 2C, 2D, 2H lowest; jumps in C and D only.
    assert set(deal.legal_actions()) == ({"P", "X", "2H"} | bids("C", range(2, 8))
                                         | bids("D", range(2, 8)))


# ------------------------------------------------------------------------------------------
# B-7 / C-3: play and trick winners
# ------------------------------------------------------------------------------------------

def winner_of(hand0, hand1, contract, declarer, lead, follow, leader=0):
    deal = play_position(hand0, hand1, contract, declarer, leader=leader)
    deal.apply(lead)
    deal.apply(follow)
    return deal.trick_history[-1][2]


@pytest.mark.parametrize("contract,lead,follow,winner", [
    ("1H", "5S", "KS", 1),                    # higher card of the suit led
    ("1H", "KS", "5S", 0),
    ("1H", "KS", "2H", 1),                    # a trump wins (follower void in spades)
    ("1H", "KS", "AD", 0),                    # an off-suit card loses
    ("1NT", "KS", "2H", 0),                   # no trumps in no-trump
    ("1S", "2S", "3S", 1),
])
def test_c3_trick_winners(contract, lead, follow, winner):
    h0 = [lead, "9C"]
    h1 = [follow, "8C"]
    assert winner_of(h0, h1, contract, 1, lead, follow) == winner


def test_c3_must_follow_suit():
    deal = play_position(cards("5S 9C"), cards("KS 2H AD"), "1H", 1)
    deal.apply("5S")
    assert deal.legal_actions() == ["KS"]
    assert illegal(deal, "2H") == "C-3"
    assert illegal(deal, "AD") == "C-3"
    assert illegal(deal, "QS") == "B-7"       # not in hand


def test_b7_full_deal_first_lead_and_winner_leads():
    deal = make_deal(H0, H1, dealer=0)
    for call in cards("P 1D P"):
        deal.apply(call)
    assert deal.declarer == 1 and deal.to_move == 0
    deal.apply("AS")
    deal.apply("7D")                          # void in spades: trump
    assert deal.trick_history == [(0, ["AS", "7D"], 1)]
    assert deal.to_move == 1 and deal.tricks_won == [0, 1]


# ------------------------------------------------------------------------------------------
# B-8: following with the matching Colon, and the next-lead bar
# ------------------------------------------------------------------------------------------

def test_b8_matching_colon_is_always_playable_and_loses():
    deal = play_position(cards("5S 9S 2H 3D"), cards("CL KS 4H 5D CR"), "1H", 1)
    deal.apply("5S")
    assert sorted(deal.legal_actions()) == ["CL", "KS"]      # suit, or the matching Colon
    assert illegal(deal, "CR") == "C-3"                        # non-matching while holding S
    deal.apply("CL")
    assert deal.trick_history[-1] == (0, ["5S", "CL"], 0)
    assert deal.to_move == 0 and deal.barred_suit == "S"
    assert sorted(deal.legal_actions()) == ["2H", "3D"]
    assert illegal(deal, "9S") == "B-8"


@pytest.mark.parametrize("lead,colon", [("AD", "CG"), ("QD", "CR"), ("JD", "CR"), ("KD", "CR"),
                                        ("TD", "CL"), ("2D", "CL")])
def test_b8_void_follower_matching_colon_still_bars(lead, colon):
    others = [c for c in ("AD", "KD", "QD", "JD", "TD", "2D", "9D") if c != lead][:2]
    deal = play_position([lead] + others + ["2H"], [colon, "5S", "CL" if colon != "CL" else "CR"],
                         "1S", 1)
    deal.apply(lead)
    # void in diamonds: the matching Colon or any suited card, not the other Colon (B-10)
    assert sorted(deal.legal_actions()) == sorted([colon, "5S"])
    deal.apply(colon)
    assert deal.trick_history[-1][2] == 0
    assert deal.barred_suit == "D"
    assert deal.legal_actions() == ["2H"]


def test_b8_void_follower_nonmatching_colon_not_legal_under_last_resort():
    deal = play_position(cards("AD KD 2H"), cards("CG CL 5S"), "1S", 1)
    deal.apply("AD")
    assert sorted(deal.legal_actions()) == ["5S", "CG"]
    assert illegal(deal, "CL") == "B-10"


def test_b8_bar_exception_all_cards_of_the_barred_suit():
    deal = play_position(cards("5S 9S TS"), cards("CL KS 4H"), "1H", 1)
    deal.apply("5S")
    deal.apply("CL")
    assert deal.barred_suit == "S"
    assert sorted(deal.legal_actions()) == ["9S", "TS"]
    deal.apply("9S")


def test_b8_bar_with_a_colon_in_hand_the_colon_must_be_led():
    deal = play_position(cards("5S 9S TS CR"), cards("CL KS 4H 2C"), "1H", 1)
    deal.apply("5S")
    deal.apply("CL")
    assert deal.legal_actions() == ["CR"]     # a held Colon is of no suit (B-8)
    assert illegal(deal, "TS") == "B-8"
    deal.apply("CR")


def test_b8_bar_lasts_one_trick():
    deal = play_position(cards("5S 9S AH TS"), cards("CL KS 4H 2D"), "1C", 1)
    deal.apply("5S")
    deal.apply("CL")
    assert deal.legal_actions() == ["AH"]
    deal.apply("AH")
    deal.apply("4H")
    assert deal.trick_history[-1][2] == 0 and deal.barred_suit is None
    assert sorted(deal.legal_actions()) == ["9S", "TS"]


def test_b8_bar_binds_the_leader_only_on_its_next_lead():
    # The leader of a barred trick wins it; a trick won otherwise imposes nothing.
    deal = play_position(cards("5S 9S"), cards("KS QS"), "1H", 1)
    deal.apply("5S")
    deal.apply("KS")                          # seat 1 wins with a spade: no bar
    assert deal.to_move == 1 and deal.barred_suit is None
    assert sorted(deal.legal_actions()) == ["QS"]


def test_b8_matching_colon_on_a_trump_lead():
    deal = play_position(cards("AH 2H 3C"), cards("CG KH 4C"), "1H", 1)
    deal.apply("AH")
    assert sorted(deal.legal_actions()) == ["CG", "KH"]
    deal.apply("CG")
    assert deal.trick_history[-1][2] == 0 and deal.barred_suit == "H"
    assert deal.legal_actions() == ["3C"]


# ------------------------------------------------------------------------------------------
# B-9: leading a Colon
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("contract,lead,follow,winner", [
    ("1H", "CR", "QD", 1),                    # a card in the Royal Colon's range wins
    ("1H", "CR", "JS", 1),
    ("1H", "CR", "KH", 1),                    # in range and a trump
    ("1H", "CR", "2H", 1),                    # any trump wins
    ("1H", "CR", "AS", 0),                    # neither: the leader wins
    ("1H", "CR", "TD", 0),
    ("1H", "CR", "CL", 0),                    # a Colon on a Colon loses
    ("1H", "CR", "CG", 0),
    ("1NT", "CR", "2H", 0),                   # no trumps in no-trump
    ("1NT", "CR", "KH", 1),
    ("1H", "CG", "AD", 1),
    ("1H", "CG", "KD", 0),
    ("1S", "CL", "2D", 1),
    ("1S", "CL", "TC", 1),
    ("1S", "CL", "JC", 0),
    ("1S", "CL", "AS", 1),                    # trump
])
def test_b9_colon_lead_winner(contract, lead, follow, winner):
    h0 = [lead, "9C"]
    h1 = [follow, "8C", "5H"]
    deal = play_position(h0, h1, contract, 1)
    deal.apply(lead)
    assert sorted(deal.legal_actions()) == sorted(h1)   # B-9: any card may follow
    deal.apply(follow)
    assert deal.trick_history[-1] == (0, [lead, follow], winner)
    assert deal.barred_suit is None


def test_b9_colon_may_be_led_any_time():
    deal = play_position(cards("CL 2S"), cards("3S 4S"), "1H", 1)
    assert sorted(deal.legal_actions()) == ["2S", "CL"]


# ------------------------------------------------------------------------------------------
# B-10: other Colon plays, both options
# ------------------------------------------------------------------------------------------

LAST = rules_of()
WHEN_VOID = rules_of(play={"colon_discard": "when_void"})


@pytest.mark.parametrize("rules,follower,legal,illegal_rules", [
    # void in spades, holding other cards: non-matching CR only with when_void
    (LAST, "CR 2H 3D", ["2H", "3D"], {"CR": "B-10"}),
    (WHEN_VOID, "CR 2H 3D", ["2H", "3D", "CR"], {}),
    # void, holding the matching Colon and a non-matching one
    (LAST, "CR CL 2H", ["CL", "2H"], {"CR": "B-10"}),
    (WHEN_VOID, "CR CL 2H", ["CL", "2H", "CR"], {}),
    (LAST, "CR CL", ["CL"], {"CR": "B-10"}),
    (WHEN_VOID, "CR CL", ["CL", "CR"], {}),
    # only non-matching Colons: legal under both
    (LAST, "CR CG", ["CR", "CG"], {}),
    (WHEN_VOID, "CR CG", ["CR", "CG"], {}),
    # holding the suit led: a non-matching Colon fails C-3 under both
    (LAST, "CR KS 2H", ["KS"], {"CR": "C-3", "2H": "C-3"}),
    (WHEN_VOID, "CR KS 2H", ["KS"], {"CR": "C-3", "2H": "C-3"}),
    (WHEN_VOID, "CR CL KS 2H", ["KS", "CL"], {"CR": "C-3", "2H": "C-3"}),
])
def test_b10_colon_discard(rules, follower, legal, illegal_rules):
    deal = play_position(cards("5S 9S 2C"), cards(follower), "1H", 1, rules=rules)
    deal.apply("5S")
    assert sorted(deal.legal_actions()) == sorted(legal)
    for card, rule in illegal_rules.items():
        assert illegal(deal, card) == rule


@pytest.mark.parametrize("rules,follower", [(LAST, "CR CG"), (WHEN_VOID, "CR 2H 3D")])
def test_b10_nonmatching_colon_loses_without_restriction(rules, follower):
    deal = play_position(cards("5S 9S 2C"), cards(follower), "1H", 1, rules=rules)
    deal.apply("5S")
    deal.apply("CR")
    assert deal.trick_history[-1] == (0, ["5S", "CR"], 0)
    assert deal.barred_suit is None
    assert sorted(deal.legal_actions()) == ["2C", "9S"]


# ------------------------------------------------------------------------------------------
# Random legal play-throughs: invariants and the replay round trip
# ------------------------------------------------------------------------------------------

RANDOM_RULES = [
    {},
    {"exchange": {"upcard_to": "dealer"}, "play": {"colon_discard": "when_void"}},
    {"exchange": {"upcard_to": "dead"}, "deck": {"colons": ["little", "grand"]},
     "auction": {"opening_pass": "ends", "nt_needs_all_suits": False}},
    {"deck": {"colons": []}, "scoring": {"made_basis": "tricks", "multiply_bonuses": False}},
    {"auction": {"min_trump_cards": 0, "jump_min_cards": 0},
     "scoring": {"penalty_last_row": "failed_slam", "exact_bonus": "nt_reduced"}},
]


def random_deal_case(rng: random.Random, overrides: dict) -> tuple[dict, dict]:
    rules = BridgetteRules.from_dict(overrides)
    deck = deck_for(rules)
    rng.shuffle(deck)
    dealer = rng.randrange(2)
    hands = [deck[0:13], deck[13:26]]
    stock = deck[26:]
    deal = BridgetteDeal(rules, dealer, hands, stock)
    assert deal.upcard == stock[0]
    case = {"game": "bridgette", "rules": overrides, "dealer": dealer, "hands": hands,
            "stock": stock, "discards": [[], []], "calls": [], "play": []}
    while deal.phase != "done":
        legal = deal.legal_actions()
        assert legal, deal.phase
        seat = deal.to_move
        if deal.phase == "discard":
            card = rng.choice(legal)
            case["discards"][seat].append(card)
            deal.apply(card)
        elif deal.phase == "auction":
            assert "P" in legal
            call = "P" if rng.random() < 0.35 else rng.choice(legal)
            case["calls"].append(call)
            deal.apply(call)
        else:
            hand = deal.hands[seat]
            assert set(legal) <= set(hand)
            for card in set(hand) - set(legal):
                with pytest.raises(IllegalAction) as info:
                    deal.apply(card)
                assert info.value.rule in ("C-3", "B-8", "B-10")
                assert deal.hands[seat] == hand          # nothing changed
            card = rng.choice(legal)
            case["play"].append(card)
            deal.apply(card)
    return case, deal.outcome()


@pytest.mark.parametrize("overrides", RANDOM_RULES)
def test_random_playthroughs(overrides):
    rng = random.Random(20240611)
    for _ in range(60):
        case, outcome = random_deal_case(rng, overrides)
        if outcome["contract"] == "pass":
            assert outcome == {"contract": "pass", "declarer": None, "doubled": 0,
                               "tricks": [0, 0], "score": [0, 0]}
            assert not case["play"]
        else:
            assert sum(outcome["tricks"]) == 13 and len(case["play"]) == 26
            assert len(set(case["play"])) == 26
            dealt = set(case["hands"][0] + case["hands"][1] + case["stock"])
            assert set(case["play"]) <= dealt
            level, strain = int(outcome["contract"][0]), outcome["contract"][1:]
            d = outcome["declarer"]
            gains = score_deal(BridgetteRules.from_dict(overrides), level, strain,
                               outcome["doubled"], outcome["tricks"][d])
            assert outcome["score"][d] == gains[0] and outcome["score"][1 - d] == gains[1]
        assert replay(case) == outcome


# ------------------------------------------------------------------------------------------
# B-15 / C-5 / C-6: the game
# ------------------------------------------------------------------------------------------

def won(seat: int, points: int) -> dict:
    score = [0, 0]
    score[seat] = points
    return {"contract": "1C", "declarer": seat, "doubled": 0, "tricks": [7, 6],
            "score": score}


PASSED = {"contract": "pass", "declarer": None, "doubled": 0, "tricks": [0, 0], "score": [0, 0]}


def test_game_six_deals_dealer_alternates():
    game = BridgetteGame(DEFAULT, first_dealer=1)
    dealers = []
    for i in range(6):
        assert not game.finished
        dealers.append(game.dealer)
        game.record(won(i % 2, 100 * (i + 1)))
    assert dealers == [1, 0, 1, 0, 1, 0]
    assert game.finished and not game.abandoned
    assert game.totals == [100 + 300 + 500, 200 + 400 + 600]
    assert game.winner == 1 and game.deals_counted == 6 and game.tiebreak_deals == 0
    with pytest.raises(IllegalAction):
        game.record(won(0, 100))


def test_game_tiebreak_then_winner():
    game = BridgetteGame(DEFAULT, first_dealer=0)
    for i in range(6):
        game.record(won(i % 2, 400))
    assert game.totals == [1200, 1200] and not game.finished
    assert game.dealer == 0
    game.record(won(0, 150))
    assert game.finished and game.winner == 0 and game.tiebreak_deals == 1
    assert game.deals_counted == 7


def test_game_still_tied_is_a_draw():
    game = BridgetteGame(DEFAULT, first_dealer=0)
    for i in range(6):
        game.record(won(i % 2, 400))
    game.record(PASSED)                       # next_deal: counts, scores nothing
    assert game.finished and game.winner is None and not game.abandoned
    assert game.tiebreak_deals == 1


def test_game_several_tiebreak_deals():
    rules = rules_of(game={"deals": 2, "max_tiebreak_deals": 3})
    game = BridgetteGame(rules, first_dealer=0)
    game.record(won(0, 250))
    game.record(won(1, 250))
    game.record(PASSED)
    assert not game.finished and game.tiebreak_deals == 1
    game.record(won(1, 500))
    assert game.finished and game.winner == 1 and game.tiebreak_deals == 2
    rules = rules_of(game={"deals": 1, "max_tiebreak_deals": 0})
    game = BridgetteGame(rules, first_dealer=0)
    game.record(PASSED)
    assert game.finished and game.winner is None and game.tiebreak_deals == 0


def test_game_passed_out_next_deal_counts():
    game = BridgetteGame(DEFAULT, first_dealer=0)
    game.record(PASSED)
    assert game.deals_counted == 1 and game.dealer == 1 and game.redeals == 0
    assert game.totals == [0, 0]


def test_game_passed_out_redeal_and_abandon():
    rules = rules_of(auction={"passed_out": "redeal", "max_redeals": 3})
    game = BridgetteGame(rules, first_dealer=1)
    game.record(PASSED)
    assert game.dealer == 1 and game.deals_counted == 0 and game.redeals == 1
    game.record(won(1, 250))
    assert game.dealer == 0 and game.deals_counted == 1
    game.record(PASSED)
    assert game.dealer == 0 and game.redeals == 2 and not game.finished
    game.record(PASSED)                       # the third and last redeal allowed
    assert game.redeals == 3 and not game.finished
    game.record(PASSED)                       # a fourth passed-out deal abandons the game
    assert game.redeals == 3 and game.finished and game.abandoned and game.winner is None
    assert game.totals == [0, 250]
    with pytest.raises(IllegalAction):
        game.record(won(0, 100))


def test_game_redeal_bound_counts_over_the_whole_game():
    rules = rules_of(auction={"passed_out": "redeal", "max_redeals": 2},
                     game={"deals": 3})
    game = BridgetteGame(rules, first_dealer=0)
    game.record(PASSED)
    game.record(won(0, 150))
    game.record(won(1, 150))
    assert not game.abandoned
    game.record(PASSED)
    assert not game.abandoned and game.redeals == 2
    game.record(PASSED)
    assert game.abandoned and game.finished
