"""Tests of the plain minimax double-dummy reference (sim/reference/dd.py) against docs/rules.md.

* hand-checked positions: cashing and a ruff (C-3), a finesse where who leads and which card
  is played matter, the Colon rules (B-8 block and bar, B-9 led Colons, B-10 under both
  ``play.colon_discard`` options), Bid Euchre's bowers and joker (E-2, E-10), a lone hand
  with three-card tricks (E-6), the double deck (E-10), mid-trick positions;
* random small endings: the legal cards agree with the referees (sim/reference), the best
  card's value is the position's value, and every card's value is one trick's result (judged
  by the referees' rules) plus the value of the position it leads to (both sides' tricks add
  up to the tricks left).
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from sim.reference import bid_euchre as eu
from sim.reference import bridgette as br
from sim.reference.dd import contract_card_values, contract_tricks, euchre_card_values, euchre_tricks


def h(spec: str) -> list[str]:
    return spec.split()


# ------------------------------------------------------------------------------------------
# Bridgette and Draw Bridge: hand-checked positions
# ------------------------------------------------------------------------------------------

def test_cashing_in_no_trump():
    hands = (h("AS KS QS"), h("2H 3H 4H"))
    # C-3: seat 0's spades are top and seat 1 has none to beat them.
    assert contract_tricks(hands, None, 0) == 3
    # C-3: led hearts cannot be beaten in no-trump by a spade discard.
    assert contract_tricks(hands, None, 1) == 3
    # Seat 0 leading takes everything whatever it leads first.
    assert contract_card_values(hands, None, 0) == {"AS": 3, "KS": 3, "QS": 3}


def test_ruff():
    hands = (h("2S 3D"), h("AD KD"))
    # C-3: seat 0 ruffs the first diamond with the 2S, then loses its 3D.
    assert contract_tricks(hands, "S", 1) == 1
    # In no-trump the 2S is only a discard: seat 1 wins both.
    assert contract_tricks(hands, None, 1) == 2


def test_finesse_position_and_card_order():
    hands = (h("AS QS"), h("KS 2S"))
    # Seat 0 leading must give the KS a trick (1-1); seat 1 leading runs into A-Q (0-2).
    assert contract_tricks(hands, None, 0) == 1
    assert contract_tricks(hands, None, 1) == 0
    # After 2S led, the QS wins and the AS later drops the KS; the AS now lets the KS score.
    assert contract_card_values((h("AS QS"), h("KS")), None, 0, trick=("2S",)) == {"AS": 1, "QS": 2}
    assert contract_tricks((h("AS QS"), h("KS")), None, 0, trick=("2S",)) == 2


def test_draw_bridge_deck_without_colons():
    hands = (h("AH KH 2C"), h("QH JH AC"))
    # D-4 under C-3: seat 0 cashes two hearts, then 2C loses to the AC.
    assert contract_tricks(hands, None, 0) == 2
    # Clubs trumps: seat 1 takes only its AC; its hearts are below seat 0's.
    assert contract_tricks(hands, "C", 1) == 1


def test_b8_block_and_bar_on_the_next_lead():
    # Seat 0 led AS holding KS 2H; seat 1 holds the Grand Colon and two hearts.
    hands = (h("KS 2H"), h("CG 3H 4H"))
    values = contract_card_values(hands, None, 1, trick=("AS",))
    # B-8: CG blocks AS and loses, and seat 0 may not lead KS next: it must lead 2H, seat 1
    # wins it and then its last heart beats the KS discard (2). After 3H or 4H seat 0 cashes
    # KS and seat 1's last card loses to 2H (0).
    assert values == {"CG": 2, "3H": 0, "4H": 0}
    assert contract_tricks(hands, None, 1, trick=("AS",)) == 2


def test_b8_bar_given_at_a_trick_boundary():
    hands = (h("AS 2H"), h("3H 4S"))
    # B-8: barred from spades, seat 0 leads 2H; 3H wins, 4S is led and the AS wins (1).
    assert contract_card_values(hands, None, 0, barred="S") == {"2H": 1}
    assert contract_card_values(hands, None, 0) == {"AS": 1, "2H": 1}


def test_b8_bar_cannot_apply_when_every_card_is_of_that_suit():
    # B-8: seat 0 holds only spades, so the bar does not stop it; both spades are top.
    assert contract_card_values((h("AS KS"), h("2H 3H")), None, 0, barred="S") == {"AS": 2, "KS": 2}


def test_b8_bar_with_a_colon_held_forces_the_colon():
    # B-8: a held Colon is of no suit, so seat 0 must lead the CL; 2H (in its range) wins,
    # and seat 1 cashes a heart against the AS discard (0 for seat 0).
    assert contract_card_values((h("AS CL"), h("2H 3H")), None, 0, barred="S") == {"CL": 0}


def test_b9_led_colon():
    # B-9: KH is in the Royal Colon's range and wins; 2S is not and loses in no-trump.
    assert contract_card_values((h("AD"), h("KH 2S")), None, 1, trick=("CR",)) == {"KH": 2, "2S": 0}
    # B-9: with spades trumps the 2S wins too.
    assert contract_card_values((h("AD"), h("KH 2S")), "S", 1, trick=("CR",)) == {"KH": 2, "2S": 2}
    # B-9: a Colon on a Colon loses, then 2D is led and KH is a losing discard (0); KH wins,
    # but the CL it leads next loses to 2D, in the Little Colon's range (1).
    assert contract_card_values((h("2D"), h("CL KH")), None, 1, trick=("CR",)) == {"CL": 0, "KH": 1}


def test_b9_grand_colon_led_against_an_ace():
    # B-9: the ace is in the Grand Colon's range and takes the trick; the 2C then loses.
    assert contract_tricks((h("CG 2C"), h("AH 3C")), None, 0) == 0
    # B-9: without an ace or a trump seat 1 cannot beat the CG, so it discards the KH and
    # keeps the 3C for the 2C (1). Leading 2C first loses, and then the CG loses to the KH
    # lead as a non-matching Colon (B-10): 0.
    assert contract_tricks((h("CG 2C"), h("KH 3C")), None, 0) == 1


@pytest.mark.parametrize("colon_discard,values", [
    # B-10 last_resort: holding the 2S, seat 1 may not discard the non-matching CR: it ruffs,
    # then leads CR and the 2D (no trump, not in range) loses.
    ("last_resort", {"2S": 2}),
    # B-10 when_void: void in hearts it may also play the CR, which loses; then it ruffs 2D.
    ("when_void", {"CR": 1, "2S": 2}),
])
def test_b10_non_matching_colon(colon_discard, values):
    hands = (h("2D"), h("CR 2S"))
    assert contract_card_values(hands, "S", 1, trick=("5H",), colon_discard=colon_discard) == values


@pytest.mark.parametrize("colon_discard,legal", [
    # B-8: the matching CL is always playable; B-10 last_resort: the CR only when every card
    # held is such a Colon.
    ("last_resort", {"CL"}),
    ("when_void", {"CL", "CR"}),
])
def test_b10_with_the_matching_colon_held(colon_discard, legal):
    hands = (h("2D"), h("CL CR"))
    assert set(contract_card_values(hands, None, 1, trick=("5H",), colon_discard=colon_discard)) == legal


def test_b10_only_non_matching_colons():
    # B-10: every card held is a non-matching Colon, so either may be played; both lose.
    values = contract_card_values((h("2D"), h("CR CG")), None, 1, trick=("5H",))
    assert values == {"CR": 0, "CG": 0}


def test_b8_matching_colon_while_holding_the_suit():
    # AH wins, then the led CL loses to 2H, in its range (B-9): 1. The CL blocks 5H although
    # seat 1 holds hearts (B-8) and loses; seat 0 holds only hearts, so the bar does not stop
    # its 2H, which the AH wins: 1.
    values = contract_card_values((h("2H"), h("CL AH")), None, 1, trick=("5H",))
    assert values == {"CL": 1, "AH": 1}


# ------------------------------------------------------------------------------------------
# Bid Euchre: hand-checked positions
# ------------------------------------------------------------------------------------------

def test_left_bower_follows_as_trump():
    hands = [h("KC"), h("JD AD"), h("9C TC"), h("9S TS")]
    # E-2: with hearts trumps the JD is a heart: seat 1 must follow AH with it, wins (left
    # bower over the ace), and its AD then beats three non-diamonds.
    assert euchre_card_values(hands, "H", 1, trick=((0, "AH"),)) == {"JD": 2}
    # E-2: the JD is not a diamond, so on the AD lead seat 1 may play it or the 9S. The JD
    # trumps, and partner seat 3 wins the 9S lead next: 2. The 9S lets the AD win, and the JD
    # then trumps seat 0's 9C lead: 1.
    hands = [h("9C"), h("JD 9S"), h("TC QC"), h("TS QS")]
    assert euchre_card_values(hands, "H", 1, trick=((0, "AD"),)) == {"JD": 2, "9S": 1}


def test_right_bower_beats_left_bower():
    hands = [h("JD"), h("JH"), h("AH"), h("KH")]
    # E-2: seat 1's right bower beats seat 0's left bower and seat 2's ace.
    assert euchre_tricks(hands, "H", 0) == 0


def test_joker_is_the_highest_trump():
    hands = [h("JS"), h("JO"), h("AS"), h("9S")]
    # E-10: the joker beats the right bower.
    assert euchre_tricks(hands, "S", 0) == 0
    # E-10: the joker is a trump, so it must follow the 9S lead; it wins, and the AH then
    # beats three cards that are neither hearts nor trumps: 2.
    hands = [h("9D"), h("JO AH"), h("TS KD"), h("QS KC")]
    assert euchre_card_values(hands, "S", 1, trick=((0, "9S"),)) == {"JO": 2}


def test_lone_hand_three_card_tricks():
    hands = [h("JH AH"), h("KH 9C"), [], h("QH 9D")]
    # E-6: seat 2 sits out; the right bower draws both trumps and the AH wins the second.
    assert euchre_tricks(hands, "H", 0, out_seat=2) == 2
    # E-6: leading the AH first also draws KH and QH, as seat 0 holds the only higher trump.
    assert euchre_card_values(hands, "H", 0, out_seat=2) == {"JH": 2, "AH": 2}
    # Mid-trick: seat 1 led 9C, seat 3 to play, then seat 0; seat 0's JH trumps (0 for 1 & 3).
    hands = [h("JH AH"), h("KH"), [], h("QH 9D")]
    assert euchre_card_values(hands, "H", 3, trick=((1, "9C"),), out_seat=2) == {"QH": 0, "9D": 0}
    with pytest.raises(ValueError):
        euchre_tricks(hands, "H", 2, trick=((1, "9C"),), out_seat=2)


def test_lone_hand_against_two_defenders():
    hands = [h("AC 9H"), h("KC TH"), [], h("QH 9C")]
    # E-6: seat 0 alone: the AC draws both clubs and 9H loses to TH and QH; or 9H loses first
    # to seat 3's QH, which leads 9C into the AC: 1 either way.
    assert euchre_card_values(hands, "H", 0, out_seat=2) == {"AC": 1, "9H": 1}


def test_double_deck_first_identical_card_wins():
    hands = [h("AS"), h("AS"), h("9S"), h("TS")]
    # E-10: of two identical aces the first played ranks higher: seat 0 wins.
    assert euchre_tricks(hands, "H", 0) == 1
    # The same mid-trick from seat 1's side: its AS cannot beat seat 0's.
    assert euchre_card_values([[], h("AS"), h("9S"), h("TS")], "H", 1, trick=((0, "AS"),)) == {"AS": 0}
    # E-10 with trumps: seat 1's copy of the right bower loses to seat 0's.
    assert euchre_card_values([[], h("JH"), h("9D"), h("9C")], "H", 1, trick=((0, "JH"),)) == {"JH": 0}


def test_double_deck_duplicate_keys_once():
    hands = [h("AS AS"), h("9C TC"), h("9D TD"), h("KC QC")]
    # E-10: both copies are the same move; seat 0 takes both tricks with its aces.
    assert euchre_card_values(hands, "H", 0) == {"AS": 2}


def test_euchre_mid_trick():
    hands = [h("KS 9D"), h("QD"), h("9S AD"), h("TS TD")]
    # Seat 1 led AS with clubs trumps: everyone follows spades and the ace wins; seat 1's QD
    # lead then loses to seat 2's AD: team 0 takes 1.
    assert euchre_card_values(hands, "C", 2, trick=((1, "AS"),)) == {"9S": 1}
    # Seat 2 led the AD: seat 3 must follow with TD and the ace wins; seat 2's 9S lead then
    # loses to seat 1's AS: team 1 takes 1.
    hands = [h("KS 9D"), h("QD AS"), h("9S"), h("TS TD")]
    assert euchre_card_values(hands, "C", 3, trick=((2, "AD"),)) == {"TD": 1}


# ------------------------------------------------------------------------------------------
# Random endings against the referees' rules
# ------------------------------------------------------------------------------------------

def _contract_legal(hands, seat, trick, barred, colon_discard):
    """Seat's legal cards by the Bridgette referee (B-7..B-10)."""
    ref = SimpleNamespace(_hands=[list(x) for x in hands], _trick=list(trick), barred_suit=barred,
                          rules=SimpleNamespace(play=SimpleNamespace(colon_discard=colon_discard)))
    return {c for c in hands[seat] if br.BridgetteDeal._play_problem(ref, seat, c) is None}


def _contract_trick(lead, follow, trump):
    """(follower wins, suit barred at the leader's next lead): B-8, B-9, B-10, C-3."""
    if br.is_colon(lead):
        trumped = trump is not None and br.suit_of(follow) == trump
        return trumped or br.in_colon_range(lead, follow), None
    if br.is_colon(follow):
        return False, (br.suit_of(lead) if follow == br.matching_colon(lead) else None)
    if br.suit_of(follow) == br.suit_of(lead):
        return br.RANK_VALUE[follow[0]] > br.RANK_VALUE[lead[0]], None
    return br.suit_of(follow) == trump, None


def _random_contract(rng, n, colons):
    deck = list(br.SUITED_CARDS) + (list(br.COLONS) if colons else [])
    rng.shuffle(deck)
    hands = (deck[:n], deck[n:2 * n])
    trump = rng.choice([None, "C", "D", "H", "S"])
    return hands, trump


@pytest.mark.parametrize("colon_discard", ["last_resort", "when_void"])
def test_random_contract_endings(colon_discard):
    rng = random.Random(20240611 + len(colon_discard))
    option = {"colon_discard": colon_discard}
    for case in range(1000):
        n = rng.randint(1, 4) if case % 40 else 5
        hands, trump = _random_contract(rng, n, colons=case % 5 != 0)
        leader = rng.randrange(2)
        barred = rng.choice([None, None, "C", "D", "H", "S"])
        values = contract_card_values(hands, trump, leader, barred=barred, **option)
        assert set(values) == _contract_legal(hands, leader, [], barred, colon_discard)
        assert contract_tricks(hands, trump, leader, barred=barred, **option) == max(values.values())
        follower = 1 - leader
        for lead, v in values.items():
            after = [list(hands[0]), list(hands[1])]
            after[leader].remove(lead)
            follows = contract_card_values(after, trump, follower, trick=(lead,), **option)
            assert set(follows) == _contract_legal(after, follower, [lead], None, colon_discard)
            best_reply = contract_tricks(after, trump, follower, trick=(lead,), **option)
            assert best_reply == max(follows.values())
            # Both sides' tricks add up to the n left.
            assert v + best_reply == n
            for follow, fv in follows.items():
                rest = [list(after[0]), list(after[1])]
                rest[follower].remove(follow)
                won, bar = _contract_trick(lead, follow, trump)
                if not rest[0]:
                    later = 0
                elif won:
                    later = contract_tricks(rest, trump, follower, **option)
                else:
                    later = n - 1 - contract_tricks(rest, trump, leader, barred=bar, **option)
                assert fv == int(won) + later


def _euchre_legal(hands, seat, trick, trump):
    """Seat's legal cards by the Bid Euchre referee (C-3 with E-2 suits)."""
    ref = SimpleNamespace(_hands=[list(x) for x in hands], _trick=list(trick), _trump=trump)
    return {c for c in hands[seat] if eu.BidEuchreDeal._follow_problem(ref, seat, c) is None}


def _next_seat(seat, out_seat):
    seat = (seat + 1) % 4
    return (seat + 1) % 4 if seat == out_seat else seat


def _random_euchre(rng, n):
    double, joker = rng.random() < 0.3, rng.random() < 0.5
    deck = list(eu.SUITED_CARDS) * (2 if double else 1) + (["JO"] if joker else [])
    rng.shuffle(deck)
    out_seat = rng.choice([None, None, 0, 1, 2, 3])
    hands = [[] if s == out_seat else [deck.pop() for _ in range(n)] for s in range(4)]
    return hands, rng.choice("CDHS"), out_seat


@pytest.mark.parametrize("cases,most_tricks", [(1500, 3), (20, 4)])
def test_random_euchre_endings(cases, most_tricks):
    rng = random.Random(97 + most_tricks)
    for _ in range(cases):
        hands, trump, out_seat = _random_euchre(rng, rng.randint(1, most_tricks))
        active = 4 if out_seat is None else 3
        seat = rng.choice([s for s in range(4) if s != out_seat])
        trick = []
        for _ in range(rng.randrange(active)):
            card = rng.choice(sorted(_euchre_legal(hands, seat, trick, trump)))
            hands[seat].remove(card)
            trick.append((seat, card))
            seat = _next_seat(seat, out_seat)
        n = len(hands[seat])
        values = euchre_card_values(hands, trump, seat, tuple(trick), out_seat)
        assert set(values) == _euchre_legal(hands, seat, trick, trump)
        assert euchre_tricks(hands, trump, seat, tuple(trick), out_seat) == max(values.values())
        for card, v in values.items():
            rest = [list(x) for x in hands]
            rest[seat].remove(card)
            played = trick + [(seat, card)]
            if len(played) < active:
                nxt = _next_seat(seat, out_seat)
                later = euchre_tricks(rest, trump, nxt, tuple(played), out_seat)
                # Both teams' tricks add up to the n left.
                assert v == (later if nxt % 2 == seat % 2 else n - later)
            else:
                winner = played[eu.trick_winner_index([c for _, c in played], trump)][0]
                later = euchre_tricks(rest, trump, winner, (), out_seat) if n > 1 else 0
                won = winner % 2 == seat % 2
                assert v == (int(won) + later if won else n - 1 - later)


def test_position_checks():
    with pytest.raises(ValueError):
        contract_tricks((h("AS"), h("2H 3H")), None, 0)
    with pytest.raises(ValueError):
        contract_tricks((h("AS"), h("2H 3H")), None, 1, trick=("KS",), barred="S")
    with pytest.raises(ValueError):
        contract_tricks((h("AS"), h("AS")), None, 0)
    with pytest.raises(ValueError):
        contract_tricks((h("AS"), h("2H")), None, 0, colon_discard="never")
    with pytest.raises(ValueError):
        euchre_tricks([h("AS"), h("9S"), h("TS"), h("KS QS")], "H", 0)
    with pytest.raises(ValueError):
        euchre_tricks([h("AS"), h("AS"), h("AS"), h("KS")], "H", 0)
    with pytest.raises(ValueError):
        euchre_tricks([h("AS"), h("9S"), h("TS"), h("KS")], "H", 0, trick=((1, "QS"),))
