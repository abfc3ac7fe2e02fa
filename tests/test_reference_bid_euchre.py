"""Tests of the Bid Euchre reference referee (sim/reference/bid_euchre.py) against docs/rules.md.

* every Bid Euchre golden deal of tests/golden/cases.jsonl replays to its ``expect``;
* the replay format's error conventions (rule id and ``at`` key);
* hand-built positions: E-2 bowers, following with the left bower, 3-card tricks with a
  partner sitting out (E-4/E-5/E-6), the E-4 exchange, E-3 stick the dealer, E-10 joker,
  double deck and ace-no-face, an E-7 score table, E-8 reneges;
* random legal play-throughs for every variant combination (invariants, replay round trip);
* the game flow BidEuchreGame (E-9, C-6).
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter

import pytest

from sim.reference.bid_euchre import (
    BidEuchreDeal,
    BidEuchreGame,
    IllegalAction,
    bid_ladder,
    card_strength,
    deck_for,
    is_trump,
    replay,
    score_hand,
    suit_of,
    trick_winner_index,
    trump_value,
)
from sim.rules import BidEuchreRules
from tests.conftest import GOLDEN

DEFAULT = BidEuchreRules()


def rules_of(**sections) -> BidEuchreRules:
    """Rules with overrides, e.g. ``rules_of(variant={"joker": True})``."""
    return BidEuchreRules.from_dict(sections)


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
            if case.get("game") == "bid-euchre":
                cases.append(pytest.param(case, id=f"line{n}"))
    return cases


GOLDEN_CASES = golden_cases()


def test_golden_file_has_bid_euchre_cases():
    assert len(GOLDEN_CASES) >= 10


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_golden(case):
    got = replay(copy.deepcopy(case))
    assert "error" not in got, (case.get("note"), got)
    assert got == case["expect"], (case.get("note"), got)


# ------------------------------------------------------------------------------------------
# Helpers to build positions
# ------------------------------------------------------------------------------------------

def full_hands(spec: dict[int, str], *, dealer: int = 3, rules=DEFAULT) -> list[list[str]]:
    """Hands with seat s dealt ``spec[s]``; the other seats get the rest of the deck, in
    deck order (the dealer one card more with the joker)."""
    rest = Counter(deck_for(rules))
    hands: list[list[str] | None] = [None] * 4
    for seat, text in spec.items():
        hands[seat] = cards(text)
        rest.subtract(hands[seat])
        assert all(v >= 0 for v in rest.values()), spec
    pool = list(rest.elements())
    n = 12 if rules.variant.double_deck else 6
    for seat in range(4):
        if hands[seat] is None:
            size = n + (1 if rules.variant.joker and seat == dealer else 0)
            hands[seat], pool = pool[:size], pool[size:]
    assert not pool
    return hands


def make_deal(spec: dict[int, str], *, dealer: int = 3, rules=DEFAULT, discard: str | None = None,
              calls=("3", "P", "P", "P"), trump: str | None = "H", exchange=(),
              allow_renege: bool = False) -> BidEuchreDeal:
    """A deal advanced through the discard, the calls (from the dealer's left), trump and
    the exchange actions given."""
    deal = BidEuchreDeal(rules, dealer, full_hands(spec, dealer=dealer, rules=rules),
                         allow_renege=allow_renege)
    if discard is not None:
        deal.apply(discard)
    for call in calls:
        deal.apply(call)
    if trump is not None:
        deal.apply(trump)
    for card in exchange:
        deal.apply(card)
    return deal


def rule_of(deal: BidEuchreDeal, action: str) -> str:
    with pytest.raises(IllegalAction) as info:
        deal.apply(action)
    assert info.value.message
    return info.value.rule


# ------------------------------------------------------------------------------------------
# E-2: ranks and the bowers
# ------------------------------------------------------------------------------------------

def test_left_bower_belongs_to_trump_suit():
    # E-2: hearts/diamonds are red, spades/clubs black.
    assert suit_of("JD", "H") == "H" and suit_of("JH", "D") == "D"
    assert suit_of("JC", "S") == "S" and suit_of("JS", "C") == "C"
    assert suit_of("JD", "S") == "D" and suit_of("JD", "C") == "D"   # not a bower: own suit
    assert suit_of("JH", "H") == "H"
    assert is_trump("JD", "H") and not is_trump("JD", "S")
    assert not is_trump("AD", "H")
    # E-10: the joker belongs to whatever suit is trumps.
    for t in "CDHS":
        assert suit_of("JO", t) == t and is_trump("JO", t)


def test_trump_order():
    # E-2 / E-10: joker, right bower, left bower, A, K, Q, 10, 9.
    order = cards("JO JH JD AH KH QH TH 9H")
    values = [trump_value(c, "H") for c in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    order = cards("JO JC JS AC KC QC TC 9C")
    values = [trump_value(c, "C") for c in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    with pytest.raises(ValueError):
        trump_value("JS", "H")


def test_plain_suit_order_and_trick_winners():
    # E-2 other suits: A K Q J 10 9 (the jack sits between Q and 10).
    assert trick_winner_index(cards("JS QS TS 9S"), "H") == 1
    assert trick_winner_index(cards("9S TS JS AS"), "H") == 3
    assert trick_winner_index(cards("JS TS 9S"), "H") == 0
    # Off-suit cards never win; the lowest trump beats the suit led.
    assert trick_winner_index(cards("9S AD AC KS"), "H") == 3
    assert trick_winner_index(cards("AS 9H AD KS"), "H") == 1
    # The left bower is a trump: it beats the ace of trumps, loses to the right bower.
    assert trick_winner_index(cards("AH JD KH"), "H") == 1
    assert trick_winner_index(cards("JD JH AH"), "H") == 1
    # The left bower led: trumps are led; a diamond does not follow.
    assert trick_winner_index(cards("JD AD 9H"), "H") == 0
    assert trick_winner_index(cards("JD AD JH"), "H") == 2
    assert trick_winner_index(cards("JD AD KD"), "H") == 0
    # A jack of the other colour is an ordinary card of its suit.
    assert trick_winner_index(cards("JS QS"), "H") == 1
    assert trick_winner_index(cards("JS QS"), "C") == 0     # with clubs trump JS is the left bower
    # E-10 joker above the right bower.
    assert trick_winner_index(cards("JH JO AH"), "H") == 1
    assert trick_winner_index(cards("AS JO"), "D") == 1
    assert card_strength("JO", "S", "H") > card_strength("JS", "S", "H") > card_strength("JC", "S", "H")


# ------------------------------------------------------------------------------------------
# C-3 / E-6: following with the left bower
# ------------------------------------------------------------------------------------------

def test_left_bower_does_not_follow_its_printed_suit():
    # Dealer 3: seat 0 bids 3 and names hearts; seat 0 leads.
    deal = make_deal({0: "AD KS QS 9C TC AC", 1: "JD 9S TS JS 9H KC"})
    assert deal.phase == "play" and deal.to_move == 0 and deal.bidder == 0
    deal.apply("AD")
    # Seat 1 holds no diamond (JD is a heart now): any card may be played.
    assert sorted(deal.legal_actions()) == sorted(cards("JD 9S TS JS 9H KC"))
    deal.apply("JD")                                     # trumps the diamond ace
    deal.apply(deal.legal_actions()[0])
    deal.apply(deal.legal_actions()[0])
    assert deal.trick_history[0][2] == 1


def test_left_bower_must_follow_a_trump_lead():
    deal = make_deal({0: "AH KS QS 9C TC AC", 1: "JD 9D TS JS QD KC"})
    deal.apply("AH")
    assert deal.legal_actions() == ["JD"]                # the only "heart" of seat 1
    assert rule_of(deal, "9D") == "E-6"
    deal.apply("JD")


def test_left_bower_cannot_be_played_on_its_printed_suit_while_holding_it():
    deal = make_deal({0: "AD KS QS 9C TC AC", 1: "JD 9D TS JS QH KC"})
    deal.apply("AD")
    assert deal.legal_actions() == ["9D"]
    assert rule_of(deal, "JD") == "E-6"
    assert rule_of(deal, "AH") == "E-6"                  # not in hand
    assert deal.current_trick == [(0, "AD")]             # nothing changed


# ------------------------------------------------------------------------------------------
# E-4 / E-5 / E-6: sitting out, 3-card tricks
# ------------------------------------------------------------------------------------------

def test_moon_bid_partner_sits_out_three_card_tricks():
    # Dealer 3, seat 0 shoots the moon in spades; seat 2 sits out, no exchange (E-5).
    deal = make_deal({0: "JS JC AS KS QS AH"}, calls=("6M", "P", "P", "P"), trump="S")
    assert deal.phase == "play" and deal.sitting_out == 2 and deal.exchange == []
    seat2_hand = deal.hands[2]
    order = []
    while deal.phase == "play":
        order.append(deal.to_move)
        deal.apply(deal.legal_actions()[0])
    assert 2 not in order
    assert len(deal.play_sequence) == 18
    assert all(len(t[1]) == 3 for t in deal.trick_history)
    assert deal.hands[2] == seat2_hand                   # E-6: plays no cards
    assert sum(deal.tricks_won) == 6
    out = deal.outcome()
    assert out["tricks"] == [6, 0] and out["score"] == [24, 0]


def test_play_order_skips_sitting_out_seat():
    # Dealer 0: seat 1 bids 6M, seat 3 sits out; seat 1 leads, then 2, then 0.
    deal = make_deal({1: "JH JD AH KH QH TH"}, dealer=0, calls=("6M", "P", "P", "P"), trump="H")
    assert deal.sitting_out == 3 and deal.to_move == 1
    deal.apply("JH")
    assert deal.to_move == 2
    deal.apply(deal.legal_actions()[0])
    assert deal.to_move == 0
    deal.apply(deal.legal_actions()[0])
    assert deal.trick_history[0][0] == 1 and deal.trick_history[0][2] == 1
    assert deal.to_move == 1 and deal.tricks_won == [0, 1]


# ------------------------------------------------------------------------------------------
# E-4: the exchange
# ------------------------------------------------------------------------------------------

def test_exchange_partner_returns_highest_trump_automatically():
    # Dealer 3, seat 0 bids 6A in hearts; partner (seat 2) holds AH, JD (left bower) and 9H.
    deal = make_deal({0: "JH KH QH TH AS 9C", 2: "AH JD 9H 9S TS KC"},
                     calls=("6A", "P", "P", "P"), trump="H")
    assert deal.phase == "exchange" and deal.to_move == 0
    assert deal.forced_returns == ["JD"]                 # the left bower outranks the ace
    assert sorted(deal.legal_actions()) == sorted(cards("JH KH QH TH AS 9C"))
    deal.apply("9C")
    # No choice left to the partner: the exchange completes at once.
    assert deal.phase == "play" and deal.sitting_out == 2 and deal.to_move == 0
    assert sorted(deal.hands[0]) == sorted(cards("JH KH QH TH AS JD"))
    assert sorted(deal.hands[2]) == sorted(cards("AH 9H 9S TS KC 9C"))
    assert deal.exchange == [["9C"], ["JD"]]


def test_exchange_partner_without_trumps_chooses():
    deal = make_deal({0: "JH KH QH TH AS 9C", 2: "AD 9S TS KC QC 9D"},
                     calls=("6A", "P", "P", "P"), trump="H")
    assert deal.forced_returns == []
    assert rule_of(deal, "AD") == "E-4"                  # not the bidder's card
    deal.apply("TH")                                     # the bidder may give a trump
    assert deal.phase == "exchange" and deal.to_move == 2
    # Simultaneous: partner chooses from the hand it held before (not the TH received).
    assert sorted(deal.legal_actions()) == sorted(cards("AD 9S TS KC QC 9D"))
    assert rule_of(deal, "TH") == "E-4"
    deal.apply("AD")
    assert deal.phase == "play"
    assert sorted(deal.hands[0]) == sorted(cards("JH KH QH AS 9C AD"))
    assert sorted(deal.hands[2]) == sorted(cards("9S TS KC QC 9D TH"))
    assert deal.exchange == [["TH"], ["AD"]]


def test_exchange_ask_cards_two_one_trump_forced_one_chosen():
    rules = rules_of(auction={"ask_cards": 2})
    # Dealer 1: seat 2 bids 6A, seat 0 (partner) holds one trump only (KS) besides non-trumps.
    deal = make_deal({2: "JS JC AS QS TS 9H", 0: "KS AH 9D TD QC AC"}, dealer=1, rules=rules,
                     calls=("6A", "P", "P", "P"), trump="S")
    assert deal.bidder == 2 and deal.to_move == 2
    assert deal.forced_returns == ["KS"]
    deal.apply("9H")
    assert deal.phase == "exchange" and deal.to_move == 2
    deal.apply("AS")                                     # gives the ace of trumps
    assert deal.to_move == 0
    assert sorted(deal.legal_actions()) == sorted(cards("AH 9D TD QC AC"))
    assert rule_of(deal, "KS") == "E-4"                  # already returned (forced)
    assert rule_of(deal, "AS") == "E-4"                  # received, not returnable
    deal.apply("AC")
    assert deal.phase == "play" and deal.sitting_out == 0 and deal.to_move == 2
    assert deal.exchange == [["9H", "AS"], ["KS", "AC"]]
    assert sorted(deal.hands[2]) == sorted(cards("JS JC QS TS KS AC"))
    assert sorted(deal.hands[0]) == sorted(cards("AH 9D TD QC 9H AS"))


def test_exchange_ask_cards_two_partner_with_many_trumps():
    rules = rules_of(auction={"ask_cards": 2})
    deal = make_deal({0: "JS AS KS QS 9H TH", 2: "TS 9S JC AC KC 9D"},
                     rules=rules, calls=("6A", "P", "P", "P"), trump="S")
    # Partner's trumps: JC (left bower), TS, 9S: the two highest are forced.
    assert deal.forced_returns == ["JC", "TS"]
    deal.apply("9H")
    deal.apply("TH")
    assert deal.phase == "play"
    assert deal.exchange == [["9H", "TH"], ["JC", "TS"]]


def test_replay_exchange_errors():
    base = {"game": "bid-euchre", "rules": {}, "dealer": 3,
            "hands": full_hands({0: "JH KH QH TH AS 9C", 2: "AH JD 9H 9S TS KC"}),
            "calls": cards("6A P P P"), "trump": "H", "trump_exchange": [["9C"], ["JD"]]}
    ok = replay(dict(base, play=[]))
    assert ok["error"] == "E-6" and ok["at"] == "play[0]"        # the exchange itself is fine
    for bad in ([["9C"], ["AH"]],            # not the highest trump
                [["9C"], ["9C"]],            # returns the card received
                [["AD"], ["JD"]],            # bidder gives a card it does not hold
                [["9C", "AS"], ["JD"]],      # too many given
                [["9C"], []],                # too few returned
                [["9C"]],                    # malformed
                []):                         # missing: 6A needs the exchange
        got = replay(dict(base, trump_exchange=bad, play=[]))
        assert (got["error"], got["at"]) == ("E-4", "trump_exchange"), (bad, got)
    # An exchange after any other bid: E-4 gives one to the ask bid alone, and E-5 plays the
    # moon bid without one.
    got = replay(dict(base, calls=cards("5 P P P"), play=[]))
    assert (got["error"], got["at"]) == ("E-4", "trump_exchange")
    got = replay(dict(base, calls=cards("6M P P P"), play=[]))
    assert (got["error"], got["at"]) == ("E-5", "trump_exchange")


# ------------------------------------------------------------------------------------------
# E-3: the auction and stick the dealer
# ------------------------------------------------------------------------------------------

def test_auction_order_ladder_and_overbids():
    deal = BidEuchreDeal(DEFAULT, 1, full_hands({}, dealer=1))
    assert deal.phase == "auction" and deal.to_move == 2       # left of the dealer
    assert deal.legal_actions() == cards("3 4 5 6A 6M P")
    deal.apply("4")
    assert deal.to_move == 3
    assert deal.legal_actions() == cards("5 6A 6M P")
    assert rule_of(deal, "4") == "E-3"                          # not higher
    assert rule_of(deal, "6") == "E-3"                          # not on the ladder
    assert rule_of(deal, "2") == "E-3"
    deal.apply("P")
    deal.apply("6A")                                            # partner overbids partner
    assert deal.legal_actions() == ["6M", "P"]
    deal.apply("P")                                             # the dealer, last
    assert deal.phase == "trump" and deal.bidder == 0 and deal.bid == "6A" and deal.to_move == 0
    assert deal.legal_actions() == list("CDHS")
    assert rule_of(deal, "NT") == "E-3"


def test_all_pass_void_deal():
    deal = BidEuchreDeal(DEFAULT, 0, full_hands({}, dealer=0))
    for _ in range(4):
        deal.apply("P")
    assert deal.phase == "done" and deal.void and deal.void_reason == "all_pass"
    assert deal.outcome() == {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0],
                              "score": [0, 0], "reneges": []}
    assert deal.legal_actions() == [] and deal.to_move is None
    assert rule_of(deal, "H") == "E-3"


def test_stick_the_dealer():
    rules = rules_of(auction={"stick_the_dealer": True})
    deal = BidEuchreDeal(rules, 2, full_hands({}, dealer=2, rules=rules))
    for _ in range(3):
        assert "P" in deal.legal_actions()
        deal.apply("P")
    assert deal.to_move == 2
    assert "P" not in deal.legal_actions() and deal.legal_actions() == cards("3 4 5 6A 6M")
    assert rule_of(deal, "P") == "E-3"
    deal.apply("3")
    assert deal.phase == "trump" and deal.bidder == 2
    # The dealer may pass when somebody bid.
    deal = BidEuchreDeal(rules, 2, full_hands({}, dealer=2, rules=rules))
    for call in cards("P 3 P"):
        deal.apply(call)
    assert "P" in deal.legal_actions()
    deal.apply("P")
    assert deal.bidder == 0
    # Replay: the stuck dealer passing is E-3 at its call.
    case = {"game": "bid-euchre", "rules": {"auction": {"stick_the_dealer": True}}, "dealer": 2,
            "hands": full_hands({}, dealer=2), "calls": cards("P P P P")}
    got = replay(case)
    assert (got["error"], got["at"]) == ("E-3", "calls[3]")


# ------------------------------------------------------------------------------------------
# E-10: the joker
# ------------------------------------------------------------------------------------------

JOKER = rules_of(variant={"joker": True})


def test_joker_discard_then_auction():
    hands = full_hands({3: "JO AH KH QH TH 9H 9S"}, dealer=3, rules=JOKER)
    deal = BidEuchreDeal(JOKER, 3, hands)
    assert deal.phase == "discard" and deal.to_move == 3 and len(deal.hands[3]) == 7
    assert rule_of(deal, "AS") == "E-10"                         # not in the dealer's hand
    assert sorted(deal.legal_actions()) == sorted(cards("JO AH KH QH TH 9H 9S"))
    deal.apply("9S")
    assert deal.phase == "auction" and deal.to_move == 0 and len(deal.hands[3]) == 6
    assert deal.discards == [[], [], [], ["9S"]]


def test_joker_is_the_top_trump_and_leads_trumps():
    hands_spec = {0: "JO AS KS QS 9C TC", 1: "JH JD 9D AC KC QC"}
    deal = make_deal(hands_spec, rules=JOKER, discard=None, calls=(), trump=None)
    # Dealer 3 discards one of its 7 cards, then seat 0 bids 3, hearts.
    deal.apply(deal.legal_actions()[0])
    for call in cards("3 P P P"):
        deal.apply(call)
    deal.apply("H")
    deal.apply("JO")
    # The joker leads trumps: seat 1 must follow with its hearts (right and left bower).
    assert sorted(deal.legal_actions()) == ["JD", "JH"]
    deal.apply("JH")
    deal.apply(deal.legal_actions()[0])
    deal.apply(deal.legal_actions()[0])
    assert deal.trick_history[0][2] == 0                         # the joker beats the right bower


def test_joker_replay_errors():
    case = next(p.values[0] for p in GOLDEN_CASES if p.values[0]["rules"].get("variant", {}).get("joker"))
    got = replay(dict(case, discards=[[], [], [], []]))
    assert (got["error"], got["at"]) == ("E-10", "discards[3]")
    got = replay(dict(case, discards=[[], [], [], ["AS"]]))
    assert (got["error"], got["at"]) == ("E-10", "discards[3]")
    got = replay(dict(case, discards=[[], [], [], ["AD", "KD"]]))
    assert (got["error"], got["at"]) == ("E-10", "discards[3]")
    got = replay(dict(case, discards=[["QH"], [], [], ["AD"]]))
    assert (got["error"], got["at"]) == ("E-10", "discards[0]")
    no_disc = dict(case)
    del no_disc["discards"]
    got = replay(no_disc)
    assert (got["error"], got["at"]) == ("E-10", "discards[3]")
    # Without the joker variant there is no discard.
    plain = next(p.values[0] for p in GOLDEN_CASES if p.values[0]["rules"] == {})
    got = replay(dict(plain, discards=[[plain["hands"][0][0]], [], [], []]))
    assert (got["error"], got["at"]) == ("E-10", "discards[0]")
    # The joker deal without the joker variant does not match the deck.
    got = replay(dict(case, rules={}))
    assert (got["error"], got["at"]) == ("E-1", "hands")


# ------------------------------------------------------------------------------------------
# E-10: double deck
# ------------------------------------------------------------------------------------------

DOUBLE = rules_of(variant={"double_deck": True})


def test_double_deck_ladder_and_deck():
    assert bid_ladder(DOUBLE) == tuple(cards("3 4 5 6 7 8 9 10 11 12A 12M"))
    assert bid_ladder(DEFAULT) == tuple(cards("3 4 5 6A 6M"))
    assert len(deck_for(DOUBLE)) == 48 and Counter(deck_for(DOUBLE))["AS"] == 2
    assert len(deck_for(rules_of(variant={"double_deck": True, "joker": True}))) == 49
    assert DOUBLE.auction.ask_cards == 2
    deal = BidEuchreDeal(DOUBLE, 0, full_hands({}, dealer=0, rules=DOUBLE))
    deal.apply("11")
    assert deal.legal_actions() == cards("12A 12M P")
    assert rule_of(deal, "6A") == "E-3"
    assert rule_of(deal, "10") == "E-3"
    deal.apply("12A")
    deal.apply("P")
    deal.apply("P")
    deal.apply("S")
    assert deal.phase == "exchange"


def test_double_deck_identical_cards_first_played_wins():
    assert trick_winner_index(cards("AS KS AS 9S"), "H") == 0
    assert trick_winner_index(cards("KS AS AS 9S"), "H") == 1
    assert trick_winner_index(cards("9S JH JH"), "H") == 1
    assert trick_winner_index(cards("9S JD JD JH"), "H") == 3
    # In a double-deck deal: seat 0 leads AS, seat 2 plays the other AS.
    deal = make_deal({0: "AS 9C 9C TC TC QC QC KC KC AC AC JC",
                      1: "9S 9S TS TS QS QS KS KS 9D 9D TD TD",
                      2: "AS JS JS QD QD KD KD AD AD JD JD TH"}, rules=DOUBLE)
    deal.apply("AS")
    deal.apply("9S")
    deal.apply("AS")
    deal.apply(deal.legal_actions()[0])
    assert deal.trick_history[0][1][2] == (2, "AS")
    assert deal.trick_history[0][2] == 0


def test_double_deck_deal_validation():
    hands = full_hands({}, dealer=0, rules=DOUBLE)
    BidEuchreDeal(DOUBLE, 0, hands)
    bad = copy.deepcopy(hands)
    third = next(c for c in hands[1] if c not in hands[0])
    bad[0][0] = third                   # a third copy of a card
    with pytest.raises(IllegalAction) as info:
        BidEuchreDeal(DOUBLE, 0, bad)
    assert info.value.rule == "E-1" and info.value.at == "hands"
    with pytest.raises(IllegalAction) as info:
        BidEuchreDeal(DOUBLE, 0, [h[:6] for h in hands])
    assert info.value.rule == "E-1"


# ------------------------------------------------------------------------------------------
# E-10: ace-no-face
# ------------------------------------------------------------------------------------------

ANF = rules_of(variant={"ace_no_face": True})


def test_ace_no_face_voids_at_once():
    hands = full_hands({0: "AS TS 9S AC TC 9C", 1: "KS QS JS KC QC JC"}, rules=ANF)
    deal = BidEuchreDeal(ANF, 3, hands)
    assert deal.phase == "done" and deal.void and deal.void_reason == "ace_no_face"
    assert deal.ace_no_face_seats == [0]
    assert deal.outcome() == {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0],
                              "score": [0, 0], "reneges": []}
    assert rule_of(deal, "3") == "E-10"
    assert rule_of(deal, "P") == "E-10"
    # The option off: the same deal is played.
    assert BidEuchreDeal(DEFAULT, 3, hands).phase == "auction"
    # No ace, no face: not void.
    hands = full_hands({0: "TS 9S TC 9C TD 9D"}, rules=ANF)
    assert not BidEuchreDeal(ANF, 3, hands).void


def test_ace_no_face_judged_as_dealt_and_joker_is_no_face():
    rules = rules_of(variant={"ace_no_face": True, "joker": True})
    # The dealer's 7 cards hold a king: not void, though it could discard the king.
    hands = full_hands({3: "AS TS 9S AC TC 9C KD", 0: "KS QS JS KC QC JC"}, rules=rules)
    deal = BidEuchreDeal(rules, 3, hands)
    assert deal.phase == "discard"
    # An ace and the joker, no J/Q/K: void (the joker is not a face card).
    hands = full_hands({3: "AS TS 9S AC TC 9C JO", 0: "KS QS JS KC QC JC"}, rules=rules)
    deal = BidEuchreDeal(rules, 3, hands)
    assert deal.void and deal.ace_no_face_seats == [3]
    # Any item after the void is E-10 in a replay.
    case = {"game": "bid-euchre", "rules": {"variant": {"ace_no_face": True, "joker": True}},
            "dealer": 3, "hands": hands}
    assert replay(case)["bid"] == "pass"
    for key, value, at in (("discards", [[], [], [], ["9C"]], "discards[3]"),
                           ("calls", ["P"], "calls[0]"),
                           ("trump", "H", "trump"),
                           ("trump_exchange", [["AS"], ["KS"]], "trump_exchange"),
                           ("play", ["AS"], "play[0]")):
        got = replay(dict(case, **{key: value}))
        assert (got["error"], got["at"]) == ("E-10", at), key


# ------------------------------------------------------------------------------------------
# E-7: scoring
# ------------------------------------------------------------------------------------------

SCORE_TABLE = [
    # (rules, bid, bidding team's tricks) -> (bidding team, defenders)
    (DEFAULT, "3", 3, (3, 3)),
    (DEFAULT, "3", 6, (6, 0)),
    (DEFAULT, "3", 2, (-3, 4)),
    (DEFAULT, "3", 0, (-3, 6)),
    (DEFAULT, "4", 4, (4, 2)),
    (DEFAULT, "4", 5, (5, 1)),
    (DEFAULT, "4", 3, (-4, 3)),
    (DEFAULT, "5", 5, (5, 1)),
    (DEFAULT, "5", 6, (6, 0)),
    (DEFAULT, "5", 4, (-5, 2)),
    (DEFAULT, "6A", 6, (12, 0)),
    (DEFAULT, "6A", 5, (-6, 1)),
    (DEFAULT, "6A", 0, (-6, 6)),
    (DEFAULT, "6M", 6, (24, 0)),
    (DEFAULT, "6M", 5, (-6, 1)),
    (DOUBLE, "3", 3, (3, 9)),
    (DOUBLE, "6", 5, (-6, 7)),
    (DOUBLE, "7", 9, (9, 3)),
    (DOUBLE, "11", 12, (12, 0)),
    (DOUBLE, "11", 10, (-11, 2)),
    (DOUBLE, "12A", 12, (24, 0)),
    (DOUBLE, "12A", 11, (-12, 1)),
    (DOUBLE, "12M", 12, (48, 0)),
    (DOUBLE, "12M", 7, (-12, 5)),
    (rules_of(scoring={"ask_all": 10, "moon_all": 20}), "6A", 6, (10, 0)),
    (rules_of(scoring={"ask_all": 10, "moon_all": 20}), "6M", 6, (20, 0)),
]


@pytest.mark.parametrize("rules,bid,tricks,expected", SCORE_TABLE)
def test_score_table(rules, bid, tricks, expected):
    assert score_hand(rules, bid, tricks) == expected


def test_score_hand_rejects_bad_input():
    with pytest.raises(ValueError):
        score_hand(DEFAULT, "6", 6)
    with pytest.raises(ValueError):
        score_hand(DEFAULT, "3", 7)
    with pytest.raises(ValueError):
        score_hand(DOUBLE, "6A", 6)


# ------------------------------------------------------------------------------------------
# E-8: reneges
# ------------------------------------------------------------------------------------------

def renege_case() -> dict:
    return next(copy.deepcopy(p.values[0]) for p in GOLDEN_CASES if p.values[0]["expect"]["reneges"])


def test_renege_raises_without_allow_renege():
    deal = make_deal({0: "AD KS QS 9C TC AC", 1: "JD 9D TS JS QH KC"})
    deal.apply("AD")
    assert rule_of(deal, "KC") == "E-6"
    assert deal.reneges == []


def test_renege_recorded_and_penalised():
    deal = make_deal({0: "AD KS QS 9C TC AC", 1: "JD 9D TS JS QH KC"}, allow_renege=True)
    deal.apply("AD")
    deal.apply("JD")                 # a renege: seat 1 holds 9D
    assert deal.reneges == [{"at": None, "seat": 1, "card": "JD"}]
    assert deal.current_trick == [(0, "AD"), (1, "JD")]
    assert rule_of(deal, "ZZ") == "E-6"                   # not in hand is still an error
    while deal.phase == "play":
        deal.apply(deal.legal_actions()[0])
    out = deal.outcome()
    bidding, defending = score_hand(DEFAULT, "3", out["tricks"][0])
    assert out["score"] == [bidding, defending - 2]
    assert out["reneges"] == [{"at": None, "seat": 1, "card": "JD"}]


def test_replay_renege_golden_and_penalty_option():
    case = renege_case()
    got = replay(case)
    assert got["reneges"] == [{"at": "play[5]", "seat": 1, "card": "9H"}]
    assert got["score"] == [5, -1]
    case["rules"] = {"scoring": {"renege_penalty": 5}}
    assert replay(case)["score"] == [5, -4]
    case["rules"] = {"scoring": {"renege_penalty": 0}}
    assert replay(case)["score"] == [5, 1]


def test_replay_several_reneges_both_teams():
    # Dealer 3, seat 0 bids 3 in hearts and leads AD; seat 1 (holds 9D) plays KC; seat 2
    # (holds TD) plays 9S; seat 3 follows with QD.
    hands = [cards("AD KS QS 9C TC AC"), cards("JD 9D TS JS QH KC"),
             cards("TD 9S AS 9H TH KH"), cards("QD KD AH JH JC QC")]
    deal = BidEuchreDeal(DEFAULT, 3, hands, allow_renege=True)
    for a in cards("3 P P P H AD KC 9S QD"):
        deal.apply(a)
    assert [r["seat"] for r in deal.reneges] == [1, 2]
    while deal.phase == "play":
        deal.apply(deal.legal_actions()[0])
    case = {"game": "bid-euchre", "rules": {}, "dealer": 3, "hands": hands,
            "calls": cards("3 P P P"), "trump": "H", "play": deal.play_sequence}
    got = replay(case)
    assert got["reneges"] == [{"at": "play[1]", "seat": 1, "card": "KC"},
                              {"at": "play[2]", "seat": 2, "card": "9S"}]
    team0, team1 = score_hand(DEFAULT, "3", got["tricks"][0])
    assert got["score"] == [team0 - 2, team1 - 2]


# ------------------------------------------------------------------------------------------
# Replay error conventions
# ------------------------------------------------------------------------------------------

def plain_case() -> dict:
    return next(copy.deepcopy(p.values[0]) for p in GOLDEN_CASES
                if p.values[0]["rules"] == {} and not p.values[0]["expect"]["reneges"])


def error_of(case: dict) -> tuple[str, str]:
    got = replay(case)
    assert "error" in got and got.get("message"), got
    return got["error"], got["at"]


def test_replay_errors():
    base = plain_case()      # dealer 3, calls 3 P P P by seat 0, hearts
    hands, play = base["hands"], base["play"]
    assert error_of(dict(base, hands=hands[:3])) == ("E-1", "hands")
    assert error_of(dict(base, hands=[hands[0][:5]] + hands[1:])) == ("E-1", "hands")
    assert error_of(dict(base, hands=[["AS"] + hands[0][1:]] + hands[1:])) == ("E-1", "hands")
    assert error_of(dict(base, hands=[["ZZ"] + hands[0][1:]] + hands[1:])) == ("E-1", "hands")
    assert error_of(dict(base, dealer=4)) == ("E-1", "dealer")
    assert error_of(dict(base, stock=["AS"])) == ("E-1", "stock")
    assert error_of(dict(base, calls=cards("3 2 P P"))) == ("E-3", "calls[1]")
    assert error_of(dict(base, calls=cards("3 3 P P"))) == ("E-3", "calls[1]")
    assert error_of(dict(base, calls=cards("6M 6A P P"))) == ("E-3", "calls[1]")
    assert error_of(dict(base, calls=cards("3 P P"))) == ("E-3", "calls[3]")
    assert error_of(dict(base, calls=cards("3 P P P P"))) == ("E-3", "calls[4]")
    assert error_of(dict(base, calls=[])) == ("E-3", "calls[0]")
    assert error_of(dict(base, trump="NT")) == ("E-3", "trump")
    no_trump = dict(base)
    del no_trump["trump"]
    assert error_of(no_trump) == ("E-3", "trump")
    assert error_of(dict(base, play=play[:-1])) == ("E-6", "play[23]")
    assert error_of(dict(base, play=[])) == ("E-6", "play[0]")
    assert error_of(dict(base, play=play + ["AS"])) == ("E-6", "play[24]")
    assert error_of(dict(base, play=[play[1]] + play[1:])) == ("E-6", "play[0]")
    # All four passed: anything after the void is E-3.
    void = dict(base, calls=cards("P P P P"))
    assert error_of(void) == ("E-3", "trump")
    del void["trump"]
    assert error_of(void) == ("E-3", "play[0]")
    assert replay(dict(void, play=[], trump_exchange=[]))["bid"] == "pass"


# ------------------------------------------------------------------------------------------
# Random legal play-throughs: invariants and the replay round trip
# ------------------------------------------------------------------------------------------

# Every combination of the three E-10 variants, each with and without E-3 stick the dealer.
VARIANT_COMBOS = [
    {"variant": {"joker": j, "double_deck": d, "ace_no_face": a}, "auction": {"stick_the_dealer": s}}
    for j, d, a, s in itertools.product((False, True), repeat=4)
]


def random_deal_case(rng: random.Random, overrides: dict, renege_rate: float = 0.0):
    """Play one random deal over ``legal_actions`` (with ``renege_rate``, sometimes a card
    that breaks the follow rule); return the replay case, the outcome (with ``at`` filled)
    and the finished deal."""
    rules = BidEuchreRules.from_dict(overrides)
    deck = deck_for(rules)
    rng.shuffle(deck)
    dealer = rng.randrange(4)
    # E-1: one at a time from the dealer's left; with the joker the dealer gets the last card.
    hands: list[list[str]] = [[], [], [], []]
    for i, card in enumerate(deck):
        seat = (dealer + 1 + i) % 4 if i < 4 * (len(deck) // 4) else dealer
        hands[seat].append(card)
    deal = BidEuchreDeal(rules, dealer, copy.deepcopy(hands), allow_renege=renege_rate > 0)
    case = {"game": "bid-euchre", "rules": overrides, "dealer": dealer, "hands": hands,
            "discards": [[], [], [], []], "calls": [], "play": []}
    reneges = []
    while deal.phase != "done":
        legal = deal.legal_actions()
        assert legal, deal.phase
        seat = deal.to_move
        phase = deal.phase
        if phase == "auction":
            action = "P" if "P" in legal and rng.random() < 0.6 else rng.choice(legal)
        elif phase == "play":
            hand = deal.hands[seat]
            assert set(legal) <= set(hand)
            illegal = sorted(set(hand) - set(legal))
            if illegal and rng.random() < renege_rate:
                action = rng.choice(illegal)
                reneges.append({"at": f"play[{len(deal.play_sequence)}]", "seat": seat, "card": action})
            else:
                if not deal.allow_renege:
                    for card in illegal:
                        assert rule_of(deal, card) == "E-6"
                action = rng.choice(legal)
        else:
            action = rng.choice(legal)
        deal.apply(action)
        if phase == "discard":
            case["discards"][seat].append(action)
        elif phase == "auction":
            case["calls"].append(action)
        elif phase == "trump":
            case["trump"] = action
        elif phase == "play":
            case["play"].append(action)
    case["trump_exchange"] = deal.exchange
    outcome = deal.outcome()
    assert [r["card"] for r in outcome["reneges"]] == [r["card"] for r in reneges]
    outcome["reneges"] = reneges
    return case, outcome, deal


def check_invariants(rules, case, outcome, deal):
    n_tricks = 12 if rules.variant.double_deck else 6
    dealt = Counter(c for h in case["hands"] for c in h)
    assert dealt == Counter(deck_for(rules))
    now = Counter(c for h in deal.hands for c in h)
    discarded = Counter(c for d in deal.discards for c in d)
    played = Counter(deal.play_sequence)
    assert now + discarded + played == dealt                      # cards conserved
    if outcome["bid"] == "pass":
        assert deal.void
        assert outcome == {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0],
                           "score": [0, 0], "reneges": []}
        assert not case["play"]
        if rules.variant.ace_no_face and deal.void_reason == "ace_no_face":
            assert not case["calls"] and not any(case["discards"])
        else:
            assert case["calls"] == ["P"] * 4 and not rules.auction.stick_the_dealer
        return
    assert sum(outcome["tricks"]) == n_tricks
    assert len(deal.trick_history) == n_tricks
    out = deal.sitting_out
    width = 4 if out is None else 3
    assert all(len(cards_) == width for _, cards_, _ in deal.trick_history)
    assert len(case["play"]) == width * n_tricks
    assert outcome["bidder"] == deal.bidder and outcome["trump"] in "CDHS"
    # The first trick is led by the bidder; every trick by the last winner.
    assert deal.trick_history[0][0] == deal.bidder
    for (_, _, w), (lead, _, _) in zip(deal.trick_history, deal.trick_history[1:]):
        assert lead == w
    for lead, cards_, winner in deal.trick_history:
        assert winner in [s for s, _ in cards_] and cards_[0][0] == lead
        assert out not in [s for s, _ in cards_]
    if out is not None:
        assert out == (deal.bidder + 2) % 4
        assert len(deal.hands[out]) == n_tricks
        assert all(len(deal.hands[s]) == 0 for s in range(4) if s != out)
    else:
        assert all(len(h) == 0 for h in deal.hands)
    if outcome["bid"].endswith("A"):
        given, returned = case["trump_exchange"]
        assert len(given) == len(returned) == rules.auction.ask_cards
    else:
        assert case["trump_exchange"] == []
    team = deal.bidder % 2
    bidding, defending = score_hand(rules, outcome["bid"], outcome["tricks"][team])
    expected = [0, 0]
    expected[team], expected[1 - team] = bidding, defending
    for r in outcome["reneges"]:
        expected[r["seat"] % 2] -= rules.scoring.renege_penalty
    assert outcome["score"] == expected


@pytest.mark.parametrize("overrides", VARIANT_COMBOS,
                         ids=[json.dumps(o, separators=(",", ":")) for o in VARIANT_COMBOS])
def test_random_playthroughs(overrides):
    rng = random.Random(20240611)
    rules = BidEuchreRules.from_dict(overrides)
    kinds = Counter()
    for _ in range(200):
        case, outcome, deal = random_deal_case(rng, overrides)
        check_invariants(rules, case, outcome, deal)
        assert replay(copy.deepcopy(case)) == outcome
        kinds[outcome["bid"]] += 1
    assert kinds["pass"] < 200 and len(kinds) > 3


@pytest.mark.parametrize("overrides", [VARIANT_COMBOS[0], VARIANT_COMBOS[-1]],
                         ids=["plain", "all-variants"])
def test_random_playthroughs_with_reneges(overrides):
    rng = random.Random(7)
    rules = BidEuchreRules.from_dict(overrides)
    total = 0
    for _ in range(150):
        case, outcome, deal = random_deal_case(rng, overrides, renege_rate=0.3)
        check_invariants(rules, case, outcome, deal)
        assert replay(copy.deepcopy(case)) == outcome
        total += len(outcome["reneges"])
    assert total > 20


# ------------------------------------------------------------------------------------------
# E-9 / C-6: the game
# ------------------------------------------------------------------------------------------

def hand(score0: int, score1: int) -> dict:
    return {"bid": "3", "bidder": 0, "trump": "H", "tricks": [3, 3], "score": [score0, score1],
            "reneges": []}


VOID = {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0], "score": [0, 0], "reneges": []}


def test_game_first_to_target_wins_and_dealer_moves_left():
    game = BidEuchreGame(DEFAULT, 2)
    assert game.dealer == 2 and not game.finished and game.winner is None
    game.record(hand(12, 0))
    assert game.dealer == 3 and game.totals == [12, 0]
    game.record(VOID)                                      # a void hand passes the deal too
    assert game.dealer == 0 and game.hands_played == 2
    game.record(hand(-6, 6))
    game.record(hand(24, 0))
    assert game.totals == [30, 6] and not game.finished
    game.record(hand(2, 4))
    assert game.totals == [32, 10] and game.finished and game.winner == 0
    assert not game.abandoned and game.hands_played == 5 and game.dealer == 3
    with pytest.raises(IllegalAction) as info:
        game.record(hand(1, 1))
    assert info.value.rule == "E-9"


def test_game_both_reach_target_higher_total_wins():
    game = BidEuchreGame(DEFAULT, 0)
    game.record(hand(30, 28))
    game.record(hand(3, 6))
    assert game.totals == [33, 34] and game.finished and game.winner == 1


def test_game_both_reach_target_equal_totals_play_on():
    game = BidEuchreGame(DEFAULT, 0)
    game.record(hand(30, 29))
    game.record(hand(3, 4))
    assert game.totals == [33, 33] and not game.finished and game.winner is None
    game.record(VOID)
    assert not game.finished                               # still equal
    game.record(hand(-5, 1))                               # team 0 set, falls below the target
    assert game.totals == [28, 34] and game.finished and game.winner == 1


def test_game_max_hands_abandons_and_void_hands_count():
    rules = rules_of(game={"max_hands": 3})
    game = BidEuchreGame(rules, 1)
    game.record(hand(3, 3))
    game.record(VOID)
    assert not game.finished
    game.record(VOID)
    assert game.finished and game.abandoned and game.winner is None and game.hands_played == 3
    assert game.dealer == 0
    # A win on the last allowed hand is a win, not an abandonment.
    game = BidEuchreGame(rules_of(game={"max_hands": 2, "target": 10}), 0)
    game.record(hand(4, 4))
    game.record(hand(6, 5))
    assert game.finished and not game.abandoned and game.winner == 0


def test_game_with_replayed_golden_deals():
    game = BidEuchreGame(rules_of(game={"target": 20}), 0)
    for p in GOLDEN_CASES:
        if game.finished:
            break
        game.record(replay(copy.deepcopy(p.values[0])))
    assert game.finished and game.winner in (0, 1)
