"""Tests of the Draw Bridge reference referee (sim/reference/draw_bridge.py) against docs/rules.md.

* every Draw Bridge golden deal of tests/golden/cases.jsonl replays to its ``expect``;
* D-1 deal validation, D-2 draw phase (leader, winners under both ``draw.trick_winner``
  options, ties, ``draw.must_follow``, winner-then-loser draws, ``show_stock_top``);
* C-4 / D-3 auction, D-4 / C-3 contract play;
* a hand-computed D-5 / D-6 score table;
* the replay format's error conventions (rule id and ``at`` key) for every rule id;
* random legal play-throughs (invariants, replay round trip);
* the game flow DrawBridgeGame (D-7, C-5, C-6).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from sim.reference.draw_bridge import (
    DECK,
    LADDER,
    DrawBridgeDeal,
    DrawBridgeGame,
    IllegalAction,
    replay,
    score_deal,
)
from sim.rules import DrawBridgeRules, RulesError
from tests.conftest import GOLDEN

DEFAULT = DrawBridgeRules()


def rules_of(**sections) -> DrawBridgeRules:
    """Rules with overrides, e.g. ``rules_of(draw={"must_follow": True})``."""
    return DrawBridgeRules.from_dict(sections)


def cards(spec: str) -> list[str]:
    return spec.split()


def suit(c: str) -> str:
    return c[1]


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
            if case.get("game") == "draw-bridge":
                cases.append(pytest.param(case, id=f"line{n}"))
    return cases


GOLDEN_CASES = golden_cases()


def test_golden_file_has_draw_bridge_cases():
    assert len(GOLDEN_CASES) >= 10


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_golden(case):
    got = replay(copy.deepcopy(case))
    expect = case["expect"]
    assert {k: got.get(k) for k in expect} == expect, (case.get("note"), got)


# ------------------------------------------------------------------------------------------
# Helpers to build positions
# ------------------------------------------------------------------------------------------

def make_deal(hand0, hand1, stock=None, *, dealer=0, rules=DEFAULT) -> DrawBridgeDeal:
    """A deal with the given hands; the stock is ``stock`` (top first) followed by the other
    cards in deck order."""
    hands = [list(hand0), list(hand1)]
    top = list(stock or [])
    rest = [c for c in DECK if c not in hands[0] + hands[1] + top]
    return DrawBridgeDeal(rules, dealer, hands, top + rest)


def finish_draw_phase(deal: DrawBridgeDeal) -> None:
    """Play the draw phase with the first legal card each time."""
    while deal.phase == "draw":
        deal.apply(deal.legal_actions()[0])


def deal_in_auction(*, dealer=0, rules=DEFAULT, seed=1) -> DrawBridgeDeal:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    deal = DrawBridgeDeal(rules, dealer, [deck[:13], deck[13:26]], deck[26:])
    finish_draw_phase(deal)
    assert deal.phase == "auction"
    return deal


# Two hands for hand-built draw-phase positions: seat 0 all clubs, seat 1 all diamonds;
# the stock is the hearts (2H first) then the spades.
CLUBS = [r + "C" for r in "23456789TJQKA"]
DIAMONDS = [r + "D" for r in "23456789TJQKA"]
HEARTS = [r + "H" for r in "23456789TJQKA"]
SPADES = [r + "S" for r in "23456789TJQKA"]


# ------------------------------------------------------------------------------------------
# D-1: deck and deal
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hands,stock,at", [
    ([CLUBS[:-1], DIAMONDS], HEARTS + SPADES + ["AC"], "hands"),          # 12 cards
    ([CLUBS, DIAMONDS[:-1] + ["AC"]], HEARTS + SPADES + ["AD"], "hands"),  # dealt twice
    ([CLUBS[:-1] + ["JO"], DIAMONDS], HEARTS + SPADES, "hands"),          # not a card
    ([CLUBS, DIAMONDS, HEARTS], SPADES, "hands"),                          # three hands
    ([CLUBS, DIAMONDS], HEARTS + SPADES[:-1], "stock"),                    # 25 cards
    ([CLUBS, DIAMONDS], HEARTS + SPADES[:-1] + ["AC"], "stock"),           # AC twice
    ([CLUBS, DIAMONDS], HEARTS + SPADES + ["JO"], "stock"),                # 27, JO
    ([CLUBS, DIAMONDS], HEARTS + SPADES + ["2H"], "stock"),                # 2H twice
])
def test_d1_deal_must_match_the_deck(hands, stock, at):
    with pytest.raises(IllegalAction) as exc:
        DrawBridgeDeal(DEFAULT, 0, hands, stock)
    assert exc.value.rule == "D-1" and exc.value.at == at and exc.value.message


def test_d1_a_valid_deal_in_any_order_starts_the_draw_phase():
    deal = DrawBridgeDeal(DEFAULT, 1, [CLUBS, DIAMONDS], SPADES[::-1] + HEARTS)
    assert deal.phase == "draw"
    assert deal.stock_top == "AS"
    assert deal.hands == [CLUBS, DIAMONDS]


# ------------------------------------------------------------------------------------------
# D-2: the draw phase
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer,leader", [(0, 1), (1, 0)])
def test_d2_nondealer_leads_the_first_trick(dealer, leader):
    deal = make_deal(CLUBS, DIAMONDS, dealer=dealer)
    assert deal.phase == "draw" and deal.to_move == leader


@pytest.mark.parametrize("mode,lead,follow,winner", [
    # highest_rank: the higher rank wins whatever the suit; equal ranks: the leader.
    ("highest_rank", "5C", "9H", "follower"),
    ("highest_rank", "9H", "5C", "leader"),
    ("highest_rank", "KS", "AD", "follower"),
    ("highest_rank", "AS", "2S", "leader"),
    ("highest_rank", "2S", "3S", "follower"),
    ("highest_rank", "KS", "KH", "leader"),     # tie -> leader
    ("highest_rank", "2C", "2D", "leader"),     # tie -> leader
    ("highest_rank", "AH", "AC", "leader"),     # tie -> leader
    # led_suit: the highest card of the suit led; another suit never wins.
    ("led_suit", "5C", "9C", "follower"),
    ("led_suit", "9C", "5C", "leader"),
    ("led_suit", "5C", "9H", "leader"),
    ("led_suit", "2C", "AD", "leader"),
    ("led_suit", "KS", "AS", "follower"),
    ("led_suit", "KS", "KH", "leader"),
])
@pytest.mark.parametrize("leader", [0, 1])
def test_d2_trick_winner_rule(mode, lead, follow, winner, leader):
    deal = make_deal(CLUBS, DIAMONDS, rules=rules_of(draw={"trick_winner": mode}))
    expected = leader if winner == "leader" else 1 - leader
    assert deal.draw_trick_winner(leader, lead, follow) == expected


@pytest.mark.parametrize("mode,follow_card,winner", [
    ("highest_rank", "AC", 0),     # dealer 0's AC beats the led 2D
    ("led_suit", "AC", 1),         # off-suit never wins: the leader (seat 1) keeps it
])
def test_d2_winner_in_play_then_winner_draws_first_and_leads(mode, follow_card, winner):
    deal = make_deal(CLUBS, DIAMONDS, HEARTS + SPADES, dealer=0,
                     rules=rules_of(draw={"trick_winner": mode}))
    assert deal.to_move == 1
    deal.apply("2D")
    assert deal.to_move == 0
    deal.apply(follow_card)
    loser = 1 - winner
    # D-2: the winner draws the top card (2H), then the loser the next (3H).
    assert deal.draw_history == [(1, ["2D", follow_card], winner, "2H", "3H")]
    assert "2H" in deal.hands[winner] and "3H" in deal.hands[loser]
    assert all(len(h) == 13 for h in deal.hands)
    assert deal.stock_top == "4H"
    assert deal.draw_tricks_won == [1 - winner, winner]
    assert deal.to_move == winner                          # the winner leads
    assert deal.trick_history == []                        # draw tricks are not contract tricks


def test_d2_draws_follow_stock_order_through_all_13_tricks():
    stock = HEARTS + SPADES
    deal = make_deal(CLUBS, DIAMONDS, stock, dealer=1)
    finish_draw_phase(deal)
    hist = deal.draw_history
    assert len(hist) == 13
    for k, (_, _, winner, w_card, l_card) in enumerate(hist):
        assert (w_card, l_card) == (stock[2 * k], stock[2 * k + 1])
    assert deal.phase == "auction" and deal.stock == [] and deal.stock_top is None
    assert all(len(h) == 13 for h in deal.hands)
    assert sum(deal.draw_tricks_won) == 13
    # Leader of trick k+1 is the winner of trick k.
    for prev, nxt in zip(hist, hist[1:]):
        assert nxt[0] == prev[2]


def test_d2_following_optional_by_default():
    # Seat 1 leads a diamond; seat 0 holds a diamond but may play anything.
    hand0 = CLUBS[:-1] + ["AD"]
    hand1 = DIAMONDS[:-1] + ["AC"]
    deal = make_deal(hand0, hand1, dealer=0)
    deal.apply("2D")
    assert sorted(deal.legal_actions()) == sorted(hand0)
    deal.apply("2C")                                       # off-suit while holding AD: fine


def test_d2_must_follow():
    rules = rules_of(draw={"must_follow": True})
    hand0 = CLUBS[:-1] + ["AD"]
    hand1 = DIAMONDS[:-1] + ["AC"]
    deal = make_deal(hand0, hand1, dealer=0, rules=rules)
    # The leader may lead anything.
    assert sorted(deal.legal_actions()) == sorted(hand1)
    deal.apply("2D")
    assert deal.legal_actions() == ["AD"]
    with pytest.raises(IllegalAction) as exc:
        deal.apply("2C")
    assert exc.value.rule == "D-2"
    assert deal.current_trick == ["2D"] and "2C" in deal.hands[0]   # nothing changed
    deal.apply("AD")


def test_d2_must_follow_void_may_play_anything():
    rules = rules_of(draw={"must_follow": True})
    deal = make_deal(CLUBS, DIAMONDS, dealer=0, rules=rules)
    deal.apply("5D")
    assert sorted(deal.legal_actions()) == sorted(CLUBS)
    deal.apply("3C")


def test_d2_card_not_in_hand_or_a_call():
    deal = make_deal(CLUBS, DIAMONDS, dealer=0)
    for bad in ("2C", "2H", "P", "1NT", "ZZ"):
        with pytest.raises(IllegalAction) as exc:
            deal.apply(bad)                                 # seat 1 holds only diamonds
        assert exc.value.rule == "D-2"


def test_d2_no_trumps_in_the_draw_phase_whatever_the_contract():
    # The draw-phase winner depends only on the two cards and draw.trick_winner.
    deal = make_deal(CLUBS, DIAMONDS, dealer=0)
    assert deal.trump is None
    assert deal.draw_trick_winner(1, "2D", "3C") == 0


@pytest.mark.parametrize("show", [False, True])
def test_d2_show_stock_top_is_information_only(show):
    rules = rules_of(draw={"show_stock_top": show})
    deal = make_deal(CLUBS, DIAMONDS, HEARTS + SPADES, dealer=0, rules=rules)
    assert deal.stock_top == "2H"
    assert deal.visible_stock_top == ("2H" if show else None)
    deal.apply("2D")
    deal.apply("3C")
    assert deal.visible_stock_top == ("4H" if show else None)
    assert sorted(deal.legal_actions()) == sorted(deal.hands[deal.to_move])
    finish_draw_phase(deal)
    assert deal.visible_stock_top is None


# ------------------------------------------------------------------------------------------
# C-4 / D-3: the auction
# ------------------------------------------------------------------------------------------

def test_d3_ladder():
    assert len(LADDER) == 35
    assert LADDER[0] == "1C" and LADDER[4] == "1NT" and LADDER[-1] == "7NT"
    assert "0NT" not in LADDER
    assert LADDER.index("1S") < LADDER.index("1NT") < LADDER.index("2C")


@pytest.mark.parametrize("dealer", [0, 1])
def test_c4_dealer_calls_first_and_opening_legal_calls(dealer):
    deal = deal_in_auction(dealer=dealer)
    assert deal.to_move == dealer
    assert deal.legal_actions() == list(LADDER) + ["P"]      # no X / XX without a bid


def test_c4_double_and_redouble_legality():
    deal = deal_in_auction(dealer=0)
    deal.apply("1H")
    legal = deal.legal_actions()
    assert legal == list(LADDER[3:]) + ["P", "X"]             # 1S .. 7NT, P, X
    deal.apply("X")
    assert deal.legal_actions() == list(LADDER[3:]) + ["P", "XX"]
    deal.apply("XX")
    assert deal.legal_actions() == list(LADDER[3:]) + ["P"]
    assert deal.doubled == 2


@pytest.mark.parametrize("calls,bad,rule", [
    (["1H"], "1H", "C-4"),          # does not outrank
    (["1H"], "1D", "C-4"),
    (["2C"], "1NT", "C-4"),
    ([], "X", "C-4"),               # nothing to double
    ([], "XX", "C-4"),
    (["1H"], "XX", "C-4"),          # not doubled
    (["1H", "X", "XX"], "X", "C-4"),   # already redoubled
    (["1H", "X", "XX"], "XX", "C-4"),  # the doubler may not redouble
    ([], "0NT", "D-3"),             # not on the Draw Bridge ladder
    ([], "8C", "D-3"),
    ([], "1N", "D-3"),
    ([], "AS", "D-3"),
])
def test_c4_illegal_calls(calls, bad, rule):
    deal = deal_in_auction(dealer=0)
    for c in calls:
        deal.apply(c)
    with pytest.raises(IllegalAction) as exc:
        deal.apply(bad)
    assert exc.value.rule == rule
    assert deal.calls == calls                                 # nothing changed


@pytest.mark.parametrize("rules,calls,contract,declarer,doubled", [
    (DEFAULT, ["1H", "P"], "1H", 0, 0),
    (DEFAULT, ["P", "1H", "P"], "1H", 1, 0),
    (DEFAULT, ["1H", "X", "P"], "1H", 0, 1),               # bidder declares after a double
    (DEFAULT, ["1H", "X", "XX", "P"], "1H", 0, 2),
    (DEFAULT, ["1H", "X", "2C", "P"], "2C", 0, 0),         # a new bid cancels the double
    (DEFAULT, ["1H", "X", "XX", "2H", "P"], "2H", 1, 0),   # ... and the redouble
    (DEFAULT, ["P", "1C", "1D", "P"], "1D", 0, 0),         # the opening passer calls again
    (DEFAULT, ["P", "P"], None, None, 0),
    (rules_of(auction={"opening_pass": "ends"}), ["P"], None, None, 0),
    (rules_of(auction={"opening_pass": "ends"}), ["1NT", "2NT", "X", "P"], "2NT", 1, 1),
])
def test_c4_auction_end(rules, calls, contract, declarer, doubled):
    deal = deal_in_auction(dealer=0, rules=rules)
    for c in calls:
        assert deal.phase == "auction"
        deal.apply(c)
    assert deal.contract == contract and deal.declarer == declarer and deal.doubled == doubled
    if contract is None:
        assert deal.phase == "done" and deal.passed_out
        assert deal.outcome() == {"contract": "pass", "declarer": None, "doubled": 0,
                                  "tricks": [0, 0], "score": [0, 0]}
        for action in ("P", "1C", "2C", deal.hands[0][0]):
            with pytest.raises(IllegalAction) as exc:
                deal.apply(action)
            assert exc.value.rule == "C-4"
    else:
        assert deal.phase == "play"
        assert deal.to_move == 1 - declarer                   # D-4: the opponent leads
        with pytest.raises(IllegalAction) as exc:
            deal.apply("P")
        assert exc.value.rule == "C-4"


def test_c4_opening_pass_continues_with_dealer_1():
    deal = deal_in_auction(dealer=1)
    deal.apply("P")
    assert deal.phase == "auction" and deal.to_move == 0
    deal.apply("P")
    assert deal.passed_out


# ------------------------------------------------------------------------------------------
# D-4 / C-3: the contract play
# ------------------------------------------------------------------------------------------

def deal_in_play(calls, *, dealer=0, seed=1) -> DrawBridgeDeal:
    deal = deal_in_auction(dealer=dealer, seed=seed)
    for c in calls:
        deal.apply(c)
    assert deal.phase == "play"
    return deal


@pytest.mark.parametrize("contract,lead,follow,winner", [
    ("1H", "5S", "2H", "follower"),     # a trump wins
    ("1H", "5S", "AD", "leader"),       # off-suit discard loses
    ("1H", "5S", "9S", "follower"),     # higher card of the suit led
    ("1H", "9S", "5S", "leader"),
    ("1H", "KH", "AH", "follower"),
    ("1H", "AH", "2S", "leader"),
    ("1NT", "5S", "2H", "leader"),      # no trumps in no-trump
    ("1NT", "5S", "AS", "follower"),
    ("1C", "AD", "2C", "follower"),
])
def test_c3_contract_trick_winner(contract, lead, follow, winner):
    deal = deal_in_play([contract, "P"])
    for leader in (0, 1):
        expected = leader if winner == "leader" else 1 - leader
        assert deal.contract_trick_winner(leader, lead, follow) == expected


def test_c3_must_follow_in_the_contract_play_and_d4_not_in_hand():
    for seed in range(1, 50):
        deal = deal_in_play(["1NT", "P"], seed=seed)
        leader = deal.to_move
        follower = 1 - leader
        lead = deal.legal_actions()[0]
        follower_hand = deal.hands[follower]
        with pytest.raises(IllegalAction) as exc:
            deal.apply(deal.hands[follower][0])               # a card of the follower's
        assert exc.value.rule == "D-4"
        deal.apply(lead)
        same = [c for c in follower_hand if suit(c) == suit(lead)]
        other = [c for c in follower_hand if suit(c) != suit(lead)]
        if same and other:
            assert sorted(deal.legal_actions()) == sorted(same)
            with pytest.raises(IllegalAction) as exc:
                deal.apply(other[0])
            assert exc.value.rule == "C-3"
            return
    pytest.fail("no seed gave a position to test")


def test_d4_full_contract_play_and_done():
    deal = deal_in_play(["2S", "P"], dealer=1)
    assert deal.declarer == 1 and deal.to_move == 0
    while deal.phase == "play":
        deal.apply(deal.legal_actions()[0])
    assert deal.phase == "done" and sum(deal.tricks_won) == 13
    hist = deal.trick_history
    assert len(hist) == 13 and hist[0][0] == 0
    for prev, nxt in zip(hist, hist[1:]):
        assert nxt[0] == prev[2]
    with pytest.raises(IllegalAction) as exc:
        deal.apply("2C")
    assert exc.value.rule == "D-4"
    with pytest.raises(IllegalAction) as exc:
        deal.apply("P")
    assert exc.value.rule == "C-4"
    out = deal.outcome()
    assert out["tricks"] == deal.tricks_won
    assert tuple(out["score"][::-1]) == score_deal(DEFAULT, 2, "S", 0, deal.tricks_won[1])


# ------------------------------------------------------------------------------------------
# D-5 / D-6: a score table computed by hand from RULES.md
# ------------------------------------------------------------------------------------------

BRIDGE = rules_of(scoring={"undertricks": "bridge"})


@pytest.mark.parametrize("level,strain,doubled,tricks,expected", [
    # D-5 made: every trick over six, 20 in C/D, 30 in H/S, NT 40 + 30 each further.
    (1, "C", 0, 7, 20),
    (1, "C", 0, 13, 140),            # 7 * 20
    (2, "D", 0, 8, 40),
    (5, "D", 0, 11, 100),
    (5, "C", 0, 12, 120),            # one overtrick: 6 * 20
    (1, "H", 0, 7, 30),
    (1, "H", 0, 10, 120),            # 4 * 30 (golden line 1)
    (4, "S", 0, 10, 120),
    (4, "S", 0, 11, 150),            # 5 * 30
    (7, "S", 0, 13, 210),
    (1, "NT", 0, 7, 40),
    (1, "NT", 0, 8, 70),             # 40 + 30
    (3, "NT", 0, 9, 100),            # 40 + 30 + 30
    (3, "NT", 0, 10, 130),
    (7, "NT", 0, 13, 220),           # 40 + 6 * 30
    # doubled x2, redoubled x4
    (1, "NT", 1, 7, 80),
    (3, "NT", 1, 9, 200),            # (40 + 30 + 30) * 2
    (4, "S", 1, 10, 240),
    (4, "S", 2, 10, 480),
    (3, "H", 2, 11, 600),            # 5 * 30 * 4 (golden)
    (1, "C", 2, 7, 80),
    (7, "NT", 2, 13, 880),
    (2, "D", 1, 13, 280),            # 7 * 20 * 2
])
@pytest.mark.parametrize("rules", [DEFAULT, BRIDGE], ids=["none", "bridge"])
def test_d5_made(rules, level, strain, doubled, tricks, expected):
    assert score_deal(rules, level, strain, doubled, tricks) == (expected, 0)


@pytest.mark.parametrize("level,strain,doubled,tricks", [
    (4, "S", 0, 9), (7, "NT", 2, 0), (1, "C", 1, 6), (3, "NT", 0, 8), (6, "S", 1, 10),
])
def test_d6_failed_none_nobody_scores(level, strain, doubled, tricks):
    assert score_deal(DEFAULT, level, strain, doubled, tricks) == (0, 0)


@pytest.mark.parametrize("level,strain,doubled,tricks,expected", [
    # undoubled: 50 each
    (4, "S", 0, 9, 50),
    (1, "S", 0, 6, 50),
    (4, "S", 0, 6, 200),
    (7, "NT", 0, 0, 650),            # 13 * 50
    # doubled: 100, 200, 200, 300, 300, ...
    (4, "H", 1, 9, 100),
    (4, "H", 1, 8, 300),             # 100 + 200
    (6, "S", 1, 10, 300),            # golden line 7
    (4, "H", 1, 7, 500),             # 100 + 200 + 200
    (4, "H", 1, 6, 800),             # 100 + 200 + 200 + 300
    (4, "H", 1, 5, 1100),
    (7, "NT", 1, 0, 3500),           # 500 + 10 * 300
    # redoubled: twice the doubled values
    (4, "H", 2, 9, 200),
    (4, "H", 2, 8, 600),
    (4, "H", 2, 7, 1000),
    (4, "H", 2, 6, 1600),
    (5, "D", 2, 0, 5800),            # down 11: 2 * (500 + 8 * 300) (golden line 8)
    (7, "NT", 2, 0, 7000),
])
def test_d6_failed_bridge_undertricks(level, strain, doubled, tricks, expected):
    assert score_deal(BRIDGE, level, strain, doubled, tricks) == (0, expected)


@pytest.mark.parametrize("args", [
    (0, "NT", 0, 7), (8, "C", 0, 13), (1, "N", 0, 7), (1, "C", 3, 7), (1, "C", 0, 14),
    (1, "C", 0, -1),
])
def test_score_deal_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        score_deal(DEFAULT, *args)


# ------------------------------------------------------------------------------------------
# Replay error conventions (RULES.md "Replay format")
# ------------------------------------------------------------------------------------------

def golden_line(n: int) -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8").splitlines()[n - 1])


def first_draw_bridge_case(rules: dict) -> dict:
    for p in GOLDEN_CASES:
        case = p.values[0]
        if case["rules"] == rules and case["expect"]["contract"] != "pass":
            return copy.deepcopy(case)
    raise LookupError(rules)


# A default-rules golden deal: dealer 1, calls P 1C X 1H P (1H by seat 0), 52 cards.
BASE = first_draw_bridge_case({})


def example(**changes) -> dict:
    case = copy.deepcopy(BASE)
    case.update(changes)
    return case


def error_of(case: dict) -> tuple[str, str]:
    got = replay(case)
    assert "error" in got, got
    assert got.get("message"), got
    return got["error"], got["at"]


def test_base_case_is_what_the_error_tests_assume():
    assert BASE["dealer"] == 1 and BASE["calls"] == cards("P 1C X 1H P")
    assert len(BASE["play"]) == 52
    assert BASE["play"][:4] == cards("KC 2C 4H 3C")
    assert {"TH", "9H"} <= set(BASE["hands"][1])        # seat 1 holds hearts at trick 2
    got = replay(example())
    assert {k: got[k] for k in BASE["expect"]} == BASE["expect"]


def c3_violation(case: dict) -> tuple[int, str]:
    """(index into play, card) of a contract-play card that fails to follow suit (C-3)."""
    deal = DrawBridgeDeal(DrawBridgeRules.from_dict(case["rules"]), case["dealer"],
                          case["hands"], case["stock"])
    for card in case["play"][:26]:
        deal.apply(card)
    for call in case["calls"]:
        deal.apply(call)
    for i in range(26, len(case["play"])):
        if deal.current_trick:
            led = deal.current_trick[0]
            hand = deal.hands[deal.to_move]
            other = [c for c in hand if suit(c) != suit(led)]
            if any(suit(c) == suit(led) for c in hand) and other:
                return i, other[0]
        deal.apply(case["play"][i])
    raise LookupError("no C-3 position")


def test_replay_c3_failing_to_follow():
    i, card = c3_violation(BASE)
    play = list(BASE["play"])
    play[i] = card
    assert error_of(example(play=play)) == ("C-3", f"play[{i}]")


def seat_holding_at_contract_start(case: dict) -> tuple[int, list[str]]:
    """(seat to lead the contract play, the other seat's hand) after the auction."""
    deal = DrawBridgeDeal(DEFAULT, case["dealer"], case["hands"], case["stock"])
    for card in case["play"][:26]:
        deal.apply(card)
    for call in case["calls"]:
        deal.apply(call)
    return deal.to_move, deal.hands[1 - deal.to_move]


def test_replay_d4_card_not_in_hand():
    leader, other_hand = seat_holding_at_contract_start(BASE)
    play = list(BASE["play"])
    play[26] = other_hand[0]                        # the non-leader's card, led by the leader
    assert error_of(example(play=play)) == ("D-4", "play[26]")
    play[26] = BASE["play"][0]                      # a card already played in the draw phase
    assert error_of(example(play=play)) == ("D-4", "play[26]")


@pytest.mark.parametrize("changes,expected", [
    # D-1: the deal must match the deck.
    ({"hands": [BASE["hands"][0][:-1], BASE["hands"][1]]}, ("D-1", "hands")),
    ({"hands": [BASE["hands"][0][:-1] + [BASE["hands"][1][0]], BASE["hands"][1]]}, ("D-1", "hands")),
    ({"hands": [BASE["hands"][0][:-1] + ["1S"], BASE["hands"][1]]}, ("D-1", "hands")),
    ({"stock": BASE["stock"][:-1]}, ("D-1", "stock")),
    ({"stock": BASE["stock"][:-1] + [BASE["hands"][0][0]]}, ("D-1", "stock")),
    ({"stock": BASE["stock"] + ["JO"]}, ("D-1", "stock")),
    # D-2: a draw-phase card not in hand, a call in the draw phase, too few cards.
    ({"play": ["KD"] + BASE["play"][1:]}, ("D-2", "play[0]")),     # KD is seat 1's
    ({"play": ["P"] + BASE["play"][1:]}, ("D-2", "play[0]")),
    ({"play": BASE["play"][:1] + ["KC"] + BASE["play"][2:]}, ("D-2", "play[1]")),
    ({"play": BASE["play"][:25]}, ("D-2", "play[25]")),
    ({"play": BASE["play"][:3]}, ("D-2", "play[3]")),
    ({"play": []}, ("D-2", "play[0]")),
    # D-2 must_follow: seat 1 holds hearts and discards 3C on the led 4H.
    ({"rules": {"draw": {"must_follow": True}}}, ("D-2", "play[3]")),
    # D-3: calls not on the ladder.
    ({"calls": cards("0NT P")}, ("D-3", "calls[0]")),
    ({"calls": cards("P 8C")}, ("D-3", "calls[1]")),
    ({"calls": cards("P 1N P")}, ("D-3", "calls[1]")),
    ({"calls": cards("P 1C X AS P")}, ("D-3", "calls[3]")),
    # C-4: not outranking, improper doubles / redoubles, unfinished, after the end.
    ({"calls": cards("P 1C X 1C P")}, ("C-4", "calls[3]")),
    ({"calls": cards("P 1H X 1D P")}, ("C-4", "calls[3]")),
    ({"calls": cards("X")}, ("C-4", "calls[0]")),
    ({"calls": cards("P XX")}, ("C-4", "calls[1]")),
    ({"calls": cards("P 1C XX")}, ("C-4", "calls[2]")),
    ({"calls": cards("P 1C X X")}, ("C-4", "calls[3]")),
    ({"calls": cards("P 1C X XX X")}, ("C-4", "calls[4]")),
    ({"calls": cards("P 1C X XX XX")}, ("C-4", "calls[4]")),
    ({"calls": cards("P 1C X 1H")}, ("C-4", "calls[4]")),        # auction unfinished
    ({"calls": cards("P")}, ("C-4", "calls[1]")),
    ({"calls": []}, ("C-4", "calls[0]")),
    ({"calls": cards("P 1C X 1H P P")}, ("C-4", "calls[5]")),    # after the end
    ({"calls": cards("P 1C X 1H P 2H")}, ("C-4", "calls[5]")),
    ({"calls": cards("P P P")}, ("C-4", "calls[2]")),
    ({"calls": cards("P P")}, ("C-4", "play[26]")),              # play after passed out
    ({"rules": {"auction": {"opening_pass": "ends"}}}, ("C-4", "calls[1]")),
    # C-4: a call during the contract play (a call that is not also a card).
    ({"play": BASE["play"][:26] + ["P"] + BASE["play"][27:]}, ("C-4", "play[26]")),
    ({"play": BASE["play"][:26] + ["1NT"] + BASE["play"][27:]}, ("C-4", "play[26]")),
    # D-4: too few / too many contract cards.
    ({"play": BASE["play"][:51]}, ("D-4", "play[51]")),
    ({"play": BASE["play"][:26]}, ("D-4", "play[26]")),
    ({"play": BASE["play"][:30]}, ("D-4", "play[30]")),
    ({"play": BASE["play"] + ["2C"]}, ("D-4", "play[52]")),
    ({"play": BASE["play"] + ["P"]}, ("D-4", "play[52]")),
])
def test_replay_errors(changes, expected):
    assert error_of(example(**changes)) == expected


def test_replay_passed_out_deal():
    ok = replay(example(calls=cards("P P"), play=BASE["play"][:26]))
    assert ok == {"contract": "pass", "declarer": None, "doubled": 0, "tricks": [0, 0],
                  "score": [0, 0]}
    ok = replay(example(calls=cards("P"), play=BASE["play"][:26],
                        rules={"auction": {"opening_pass": "ends"}}))
    assert ok["contract"] == "pass"
    assert error_of(example(calls=cards("P P"), play=BASE["play"][:27])) == ("C-4", "play[26]")


def test_replay_missing_optional_keys_mean_empty_steps():
    case = example()
    del case["play"]
    assert error_of(case) == ("D-2", "play[0]")
    case = example()
    del case["calls"]
    assert error_of(case) == ("C-4", "calls[0]")


def test_replay_time_order_draw_phase_before_calls():
    # Both a bad draw card and a bad call: the draw-phase card comes first in time.
    case = example(calls=cards("0NT"), play=["KD"] + BASE["play"][1:])
    assert error_of(case) == ("D-2", "play[0]")
    # Too few draw cards is reported before the (bad) calls.
    assert error_of(example(calls=cards("0NT"), play=BASE["play"][:10])) == ("D-2", "play[10]")
    # A bad call is reported before a bad contract card.
    assert error_of(example(calls=cards("P 0NT"), play=BASE["play"][:26] + ["ZZ"])) == \
        ("D-3", "calls[1]")


def test_replay_rejects_other_games_and_bad_rules():
    with pytest.raises(ValueError):
        replay(example(game="bridgette"))
    with pytest.raises(RulesError):
        replay(example(rules={"draw": {"trick_winner": "lowest"}}))
    with pytest.raises(RulesError):
        replay(example(rules={"exchange": {"nondealer_draw": 2}}))


# ------------------------------------------------------------------------------------------
# Random legal play-throughs
# ------------------------------------------------------------------------------------------

RANDOM_RULES = [
    DEFAULT,
    rules_of(draw={"trick_winner": "led_suit", "must_follow": True}),
    rules_of(draw={"must_follow": True, "show_stock_top": True},
             scoring={"undertricks": "bridge"}),
    rules_of(auction={"opening_pass": "ends"}, draw={"trick_winner": "led_suit"}),
]


def accounted(deal: DrawBridgeDeal) -> list[str]:
    """Every card the deal knows of: hands, stock, played tricks, the trick in progress."""
    out = [c for h in deal.hands for c in h] + deal.stock + deal.current_trick
    out += [c for _, cs, *_ in deal.draw_history for c in cs]
    out += [c for _, cs, _ in deal.trick_history for c in cs]
    return out


def check_illegal_cards_rejected(deal: DrawBridgeDeal) -> None:
    """Every card in the mover's hand that is not in legal_actions() is refused, without
    changing the deal."""
    seat = deal.to_move
    legal = set(deal.legal_actions())
    for card in deal.hands[seat]:
        if card not in legal:
            before = (deal.hands, deal.current_trick)
            with pytest.raises(IllegalAction) as exc:
                deal.apply(card)
            assert exc.value.rule == ("D-2" if deal.phase == "draw" else "C-3")
            assert (deal.hands, deal.current_trick) == before


@pytest.mark.parametrize("seed", range(200))
def test_random_playthroughs(seed):
    rng = random.Random(seed)
    rules = RANDOM_RULES[seed % len(RANDOM_RULES)]
    deck = list(DECK)
    rng.shuffle(deck)
    dealer = rng.randrange(2)
    hands, stock = [deck[:13], deck[13:26]], deck[26:]
    deal = DrawBridgeDeal(rules, dealer, hands, stock)
    play: list[str] = []
    calls: list[str] = []
    while deal.phase != "done":
        assert sorted(accounted(deal)) == sorted(DECK)
        legal = deal.legal_actions()
        assert legal, deal.phase
        if deal.phase in ("draw", "play"):
            assert all(c in deal.hands[deal.to_move] for c in legal)
            check_illegal_cards_rejected(deal)
        if deal.phase == "auction":
            assert all(len(h) == 13 for h in deal.hands)
            assert deal.stock == [] and sum(deal.draw_tricks_won) == 13
        action = rng.choice(legal)
        (calls if deal.phase == "auction" else play).append(action)
        deal.apply(action)
    out = deal.outcome()
    assert len(deal.draw_history) == 13
    # D-2: the drawn cards are the stock in order, winner first.
    drawn = [c for *_, w, l in deal.draw_history for c in (w, l)]
    assert drawn == stock
    if deal.passed_out:
        assert out == {"contract": "pass", "declarer": None, "doubled": 0, "tricks": [0, 0],
                       "score": [0, 0]}
        assert len(play) == 26
    else:
        assert sum(out["tricks"]) == 13 and len(play) == 52
        assert all(h == [] for h in deal.hands)
        level, strain = int(out["contract"][0]), out["contract"][1:]
        d = out["declarer"]
        gain = score_deal(rules, level, strain, out["doubled"], out["tricks"][d])
        assert (out["score"][d], out["score"][1 - d]) == gain
        assert min(out["score"]) == 0
    assert sorted(accounted(deal)) == sorted(DECK)
    case = {"game": "draw-bridge", "rules": rules.to_dict(), "dealer": dealer,
            "hands": hands, "stock": stock, "calls": calls, "play": play}
    assert replay(case) == out


# ------------------------------------------------------------------------------------------
# The game: D-7, C-5, C-6
# ------------------------------------------------------------------------------------------

def made(seat: int, points: int) -> dict:
    score = [0, 0]
    score[seat] = points
    return {"contract": "1S", "declarer": seat, "doubled": 0, "tricks": [7, 6],
            "score": score}


PASSED = {"contract": "pass", "declarer": None, "doubled": 0, "tricks": [0, 0], "score": [0, 0]}


def test_game_target_reached_and_dealer_alternates():
    game = DrawBridgeGame(DEFAULT, 1)
    assert game.dealer == 1 and not game.finished
    game.record(made(0, 60))
    assert game.dealer == 0 and game.totals == [60, 0] and game.winner is None
    game.record(made(1, 90))
    assert game.dealer == 1 and game.totals == [60, 90] and not game.finished
    game.record(made(0, 40))                      # exactly the target
    assert game.finished and not game.abandoned and game.winner == 0
    assert game.totals == [100, 90] and game.deals_counted == 3
    with pytest.raises(IllegalAction):
        game.record(made(1, 30))


def test_game_target_option_and_opponent_scores():
    game = DrawBridgeGame(rules_of(game={"target": 500}), 0)
    game.record({"contract": "5D", "declarer": 0, "doubled": 2, "tricks": [0, 13],
                 "score": [0, 5800]})          # D-6 bridge undertricks reach the target
    assert game.finished and game.winner == 1


def test_game_max_deals_abandon():
    game = DrawBridgeGame(rules_of(game={"max_deals": 3}), 0)
    game.record(made(0, 20))
    game.record(PASSED)                           # next_deal: counts, scores nothing
    assert game.deals_counted == 2 and game.dealer == 0 and not game.finished
    game.record(made(1, 30))
    assert game.finished and game.abandoned and game.winner is None
    assert game.deals_counted == 3 and game.totals == [20, 30]


def test_game_winner_on_the_last_allowed_deal_is_not_abandoned():
    game = DrawBridgeGame(rules_of(game={"max_deals": 2}), 0)
    game.record(made(0, 50))
    game.record(made(0, 50))
    assert game.finished and not game.abandoned and game.winner == 0


def test_game_passed_out_next_deal_counts_and_deal_passes():
    game = DrawBridgeGame(DEFAULT, 0)
    game.record(PASSED)
    assert game.deals_counted == 1 and game.dealer == 1 and game.redeals == 0
    assert game.totals == [0, 0] and not game.finished


def test_game_passed_out_redeal_and_abandon():
    game = DrawBridgeGame(rules_of(auction={"passed_out": "redeal", "max_redeals": 2}), 0)
    game.record(PASSED)
    assert game.dealer == 0 and game.deals_counted == 0 and game.redeals == 1
    game.record(made(0, 20))
    assert game.dealer == 1 and game.deals_counted == 1
    game.record(PASSED)
    assert game.dealer == 1 and game.redeals == 2 and not game.finished
    game.record(PASSED)                           # a third pass-out after 2 redeals
    assert game.finished and game.abandoned and game.winner is None
    assert game.redeals == 2 and game.deals_counted == 1


def test_game_zero_redeals_abandons_at_once():
    game = DrawBridgeGame(rules_of(auction={"passed_out": "redeal", "max_redeals": 0}), 1)
    game.record(PASSED)
    assert game.finished and game.abandoned and game.redeals == 0


def test_game_redeals_do_not_count_towards_max_deals():
    game = DrawBridgeGame(rules_of(auction={"passed_out": "redeal"}, game={"max_deals": 2}), 0)
    for _ in range(5):
        game.record(PASSED)
    assert not game.finished and game.redeals == 5 and game.deals_counted == 0
    game.record(made(0, 10))
    game.record(made(1, 10))
    assert game.finished and game.abandoned


def test_game_with_real_deals():
    rng = random.Random(7)
    game = DrawBridgeGame(rules_of(game={"target": 150}), 0)
    while not game.finished:
        deck = list(DECK)
        rng.shuffle(deck)
        deal = DrawBridgeDeal(game.rules, game.dealer, [deck[:13], deck[13:26]], deck[26:])
        while deal.phase != "done":
            deal.apply(rng.choice(deal.legal_actions()))
        game.record(deal.outcome())
    assert game.abandoned or game.totals[game.winner] >= 150
