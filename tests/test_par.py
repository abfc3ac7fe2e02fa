"""Par (sim/par.py): the value of the auction as a zero-sum game over a double-dummy table.

* hand-checked tables, each with the reasoning that gives its par: one side alone can make
  anything; a doubled sacrifice cheaper than the opponent's game; B-6 jumps and no-trump
  holdings that forbid the unrestricted par; a passed-out deal; Draw Bridge with
  ``scoring.undertricks = "none"`` (failing costs nothing, so only a 7NT can score) and
  the opening-pass rule;
* properties of a minimax value on random tables and hands, under many rule options: the
  value equals a plain minimax over the referees' own auctions (their legal calls and
  scoring, sim/reference/); it lies between the two "unopposed" extremes (each player
  alone bidding while the other only passes); swapping the seats mirrors it; the principal
  auction is legal in the referee and ends in the par contract with the par score.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from kernels.cards import CARD_IDS
from sim.par import Par, par
from sim.reference import bridgette as rb
from sim.reference import draw_bridge as rd
from sim.rules import rules_for

STRAINS = ("C", "D", "H", "S", "NT")
FREE = {"auction": {"min_trump_cards": 0, "nt_needs_all_suits": False, "jump_min_cards": 0}}


def table(seat0, seat1):
    """A table from each declarer's tricks in C, D, H, S, NT."""
    return np.array([seat0, seat1]).T


def ids(spec: str) -> list[int]:
    return [CARD_IDS[c] for c in spec.split()]


# A 4-3-3-3 hand with spades as the three-card suit, its clubs void twin, and the rest.
SEAT0_3SPADES = ids("AS KS QS AH KH QH JH AD KD QD AC KC QC")
SEAT0_NO_CLUBS = ids("AS KS QS JS AH KH QH JH AD KD QD JD TD")


def rest_of(hand: list[int]) -> list[int]:
    return [c for c in range(52) if c not in hand][:13]


# --- Hand-checked tables -------------------------------------------------------------------

def test_only_one_side_can_make_anything():
    # Seat 0 takes 7 tricks in a suit (1x exact: 150 + 250 = 400) and 9 in no-trump
    # (0NT: 3 over, 150 + 350 = 500; 1NT, 2NT: 250; 3NT exact: 750 + 250 = 1000). Seat 1
    # takes 4 anywhere, so over 3NT it would go 6 down at the 4 level (1000, doubled 3000):
    # no sacrifice pays. Any lower opening would be passed out at less, so 3NT at once.
    rules = rules_for("bridgette", FREE)
    p = par(table([7, 7, 7, 7, 9], [4, 4, 4, 4, 4]), None, 0, rules)
    assert p == Par("3NT", 0, 0, 9, (1000, 0), ("3NT", "P"))


def test_made_basis_tricks_changes_the_par_contract():
    # B-11 "tricks": 0NT taking 9 scores 3NT's value (750) plus exactly 3 overtricks
    # (+350) = 1100, above 3NT exact (1000). Seat 1 takes 1 trick anywhere: a sacrifice
    # over 0NT goes 6 down (1000 undoubled, which seat 0 would double to 3000).
    rules = rules_for("bridgette", {**FREE, "scoring": {"made_basis": "tricks"}})
    p = par(table([7, 7, 7, 7, 9], [1, 1, 1, 1, 1]), None, 0, rules)
    assert p == Par("0NT", 0, 0, 9, (1100, 0), ("0NT", "P"))


def test_a_doubled_sacrifice_cheaper_than_the_game():
    # Seat 0 makes 4S exactly (10 tricks: 750 + 250 = 1000), nothing else (0 tricks). Seat
    # 1 takes 10 in clubs (4C exact 500, 1C with 3 over 500) and nothing else. Whatever
    # seat 0 bids in spades seat 1 can outbid in clubs, up to 4S; over 4S seat 1's 5C is one
    # down, doubled 200, cheaper than 1000; seat 0 cannot go on (5S one down) and doubles.
    # Seat 1 has no cheaper way out and seat 0 no better contract: par 5C doubled, +200.
    rules = rules_for("bridgette", FREE)
    p = par(table([0, 0, 0, 10, 0], [10, 0, 0, 0, 0]), None, 0, rules)
    assert (p.contract, p.declarer, p.doubled, p.tricks, p.score) == ("5C", 1, 1, 10, (200, 0))
    assert p.auction[-4:] == ("4S", "5C", "X", "P")
    # With clubs one trick shorter the sacrifice would cost 500 (5C doubled 2 down), as
    # much as 1S with 3 overtricks, so seat 0 bids 1S and seat 1 lets it stand (ties go to
    # the pass): the same score, reached without the fight.
    p = par(table([0, 0, 0, 10, 0], [9, 0, 0, 0, 0]), None, 0, rules)
    assert p == Par("1S", 0, 0, 10, (500, 0), ("1S", "P"))


def test_b6_jump_rule_forbids_the_unrestricted_par():
    # Seat 0 (dealer) takes 10 tricks in spades and nothing else; seat 1 takes 3 anywhere
    # (any seat-1 bid costs at least 700). Unrestricted, seat 0 opens 4S: 750 + 250 = 1000.
    # Holding 3 spades, a 4S opening is a jump (B-6: above the lowest level, 1, at which
    # spades outrank no bid) and needs 4 cards: only 1S is allowed, and seat 1 passes it:
    # 10 tricks = 3 overtricks, 150 + 350 = 500.
    t = table([0, 0, 0, 10, 0], [3, 3, 3, 3, 3])
    hands = (SEAT0_3SPADES, rest_of(SEAT0_3SPADES))
    free = par(t, hands, 0, rules_for("bridgette", FREE))
    assert free == Par("4S", 0, 0, 10, (1000, 0), ("4S", "P"))
    restricted = par(t, hands, 0, rules_for("bridgette"))
    assert restricted == Par("1S", 0, 0, 10, (500, 0), ("1S", "P"))
    # A jump needing only 3 cards (auction.jump_min_cards = 3) allows 4S again.
    assert par(t, hands, 0, rules_for("bridgette", {"auction": {"jump_min_cards": 3}})) == free


def test_b6_no_trump_needs_every_suit():
    # Seat 0 takes 9 tricks in no-trump (3NT exact: 1000) and 7 in any suit (1x exact:
    # 400); seat 1, holding all 13 clubs, takes 4 anywhere and may bid only clubs (2C over
    # 1D goes 4 down: 400, which seat 0 would double to 1100). Void in clubs, seat 0 may not
    # bid no-trump (auction.nt_needs_all_suits) nor clubs (fewer than 2 cards): 1D, the
    # lowest of the 400s, is par.
    t = table([7, 7, 7, 7, 9], [4, 4, 4, 4, 4])
    hands = (SEAT0_NO_CLUBS, rest_of(SEAT0_NO_CLUBS))
    assert par(t, hands, 0, rules_for("bridgette")) == Par("1D", 0, 0, 7, (400, 0), ("1D", "P"))
    relaxed = rules_for("bridgette", {"auction": {"nt_needs_all_suits": False}})
    assert par(t, hands, 0, relaxed) == Par("3NT", 0, 0, 9, (1000, 0), ("3NT", "P"))


def test_a_passed_out_deal():
    # Nobody takes 6 tricks anywhere: every contract fails, so each player passes.
    p = par(table([5] * 5, [5] * 5), None, 1, rules_for("bridgette", FREE))
    assert p == Par("pass", None, 0, None, (0, 0), ("P", "P"))
    # With auction.opening_pass = "ends" the dealer's pass alone ends it.
    p = par(table([5] * 5, [5] * 5), None, 1, rules_for("bridgette", {**FREE, "auction": {
        **FREE["auction"], "opening_pass": "ends"}}))
    assert p.auction == ("P",) and p.contract == "pass"


def test_draw_bridge_without_undertricks_only_7nt_can_score():
    # D-6 "none": a failed contract costs nothing, so either player can outbid any
    # contract of the other below 7NT for free, and the dealer can shut the auction with
    # 7NT. Par is therefore 0 unless the dealer makes 7NT (220).
    rules = rules_for("draw-bridge", {"scoring": {"undertricks": "none"}})
    # Seat 0 (dealer) makes 10 tricks in hearts (120 if it stood), not 7NT: passed out.
    assert par(table([4, 4, 10, 10, 7], [9, 9, 3, 3, 6]), None, 0, rules) == Par(
        "pass", None, 0, None, (0, 0), ("P", "P"))
    # The dealer makes 7NT: 40 + 6 x 30 = 220, undoubled (a double would make it 440).
    assert par(table([13] * 5, [0] * 5), None, 0, rules) == Par("7NT", 0, 0, 13, (220, 0), ("7NT", "P"))
    # Only the non-dealer makes 7NT: the dealer pre-empts with its own 7NT, which fails
    # for nothing; a pass or any lower bid would let seat 1 bid 7NT for 220.
    assert par(table([0] * 5, [13] * 5), None, 0, rules) == Par("7NT", 0, 0, 0, (0, 0), ("7NT", "P"))


def test_draw_bridge_opening_pass_rule():
    # D-6 "bridge". Seat 1 (non-dealer) takes 9 tricks in hearts (1H: 3 x 30 = 90), 4
    # elsewhere; seat 0 takes 4 anywhere, so its bids fail by 3 (150 undoubled). Under
    # "continues" the dealer passes and seat 1 bids 1H (2H and 3H score the same 90);
    # under "ends" the dealer's opening pass ends the auction.
    t = table([4, 4, 4, 4, 4], [4, 4, 9, 4, 4])
    bridge = rules_for("draw-bridge", {"scoring": {"undertricks": "bridge"}})
    assert par(t, None, 0, bridge) == Par("1H", 1, 0, 9, (0, 90), ("P", "1H", "P"))
    ends = rules_for("draw-bridge", {"scoring": {"undertricks": "bridge"}, "auction": {"opening_pass": "ends"}})
    assert par(t, None, 0, ends) == Par("pass", None, 0, None, (0, 0), ("P",))


def test_bad_arguments():
    rules = rules_for("bridgette")
    with pytest.raises(ValueError, match="B-6"):
        par(table([7] * 5, [6] * 5), None, 0, rules)
    with pytest.raises(ValueError, match="table"):
        par(np.zeros((4, 2)), None, 0, rules_for("draw-bridge"))
    with pytest.raises(TypeError):
        par(table([7] * 5, [6] * 5), None, 0, rules_for("bid-euchre"))
    # Before: IndexError, OverflowError, numpy's words, or a par for an impossible deal
    # (six-card hands taking 13 tricks gave 7NT; 6.5 tricks were cut to 6; a bid of -1 was 7NT).
    from sim.dd import PositionError
    from sim.par import contract_score

    six = (list(range(6)), list(range(6, 12)))
    for call, error, words in (
            (lambda: par(np.full((5, 2), 13), six, 0, rules), ValueError, "whole tricks 0..6"),
            (lambda: par(np.full((5, 2), 6.5), six, 0, rules), ValueError, "whole tricks"),
            (lambda: par([[1, 2], [3]], None, 0, rules_for("draw-bridge")), ValueError, "5 strains x 2"),
            (lambda: par(np.full((5, 2), 3), ([0],), 0, rules), PositionError, "hands must be 2 lists"),
            (lambda: par(np.full((5, 2), 1), ([99], [1]), 0, rules), PositionError, "from 0 to 54, got 99"),
            (lambda: par(np.full((5, 2), 1), ([0, 2], [1]), 0, rules), PositionError, "unequal numbers"),
            (lambda: par(np.full((5, 2), 3), six, True, rules), ValueError, "the dealer must be"),
            (lambda: contract_score(np.full((5, 2), 3), rules, -1, 0, 0), ValueError, "bid must be"),
            (lambda: contract_score(np.full((5, 2), 3), rules, 3, 2, 0), ValueError, "declarer must be"),
            (lambda: contract_score(np.full((5, 2), 3), rules, 3, 0, 3), ValueError, "doubled")):
        with pytest.raises(error, match=words):
            call()


# --- Properties on random tables and hands ---------------------------------------------------

BRIDGETTE_OPTIONS = [
    {},
    {"auction": {"opening_pass": "ends"}},
    {"auction": {"jump_min_cards": 6, "min_trump_cards": 3}},
    {"auction": {"nt_needs_all_suits": False, "jump_min_cards": 0}},
    {"scoring": {"made_basis": "tricks", "overtrick_bonus_rule": "atleast3"}},
    {"scoring": {"exact_bonus": "nt_reduced", "multiply_bonuses": False, "penalty_last_row": "failed_slam"}},
]
DRAW_BRIDGE_OPTIONS = [
    {}, {"scoring": {"undertricks": "bridge"}},
    {"scoring": {"undertricks": "bridge"}, "auction": {"opening_pass": "ends"}},
]


def random_table(rng: random.Random) -> np.ndarray:
    """Tricks per strain and declarer, the two declarers' tricks near 13 in all (the side
    on lead may gain one), sometimes lopsided, sometimes level."""
    t = np.zeros((5, 2), dtype=np.int64)
    for s in range(5):
        t0 = rng.choice([rng.randint(0, 13), rng.randint(4, 9)])
        t[s] = (t0, min(13, max(0, 13 - t0 + rng.randint(-1, 1))))
    return t


def bridgette_auction_deal(rng: random.Random, rules):
    """A referee deal at the start of the auction, its hands those dealt: each seat
    discards exactly what it drew."""
    deck = rb.deck_for(rules)
    rng.shuffle(deck)
    dealer = rng.randint(0, 1)
    deal = rb.BridgetteDeal(rules, dealer, [deck[:13], deck[13:26]], deck[26:])
    for seat in (1 - dealer, dealer):
        for card in deal.drawn[seat]:
            deal.apply(card)
    assert deal.phase == "auction"
    return deal


def draw_bridge_auction_deal(rng: random.Random, rules):
    """A referee deal at the start of the auction: the draw phase played with random cards."""
    deck = rd.deck_for(rules)
    rng.shuffle(deck)
    deal = rd.DrawBridgeDeal(rules, rng.randint(0, 1), [deck[:13], deck[13:26]], deck[26:])
    while deal.phase == "draw":
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def referee_score(referee, rules, t, deal) -> tuple[int, int]:
    """The finished auction of a referee deal scored with the table's tricks."""
    if deal.passed_out:
        return (0, 0)
    level, strain = referee.parse_bid(deal.contract)
    gain, loss = referee.score_deal(rules, level, strain, deal.doubled, int(t[STRAINS.index(strain), deal.declarer]))
    return (gain, loss) if deal.declarer == 0 else (loss, gain)


def referee_minimax(referee, rules, t, deal) -> int:
    """Seat 0's score minus seat 1's under minimax, the auction played in the referee
    (its legal calls, its end of the auction), positions keyed by the calls since the last
    bid."""
    memo: dict = {}

    def key(d):
        calls = d.calls
        bids = [i for i, c in enumerate(calls) if c not in ("P", "X", "XX")]
        if not bids:
            return ("no bid", len(calls))
        i = bids[-1]
        return (calls[i], (d.dealer + i) % 2, tuple(calls[i + 1:]))

    def value(d):
        if d.phase != "auction":
            s = referee_score(referee, rules, t, d)
            return s[0] - s[1]
        k = key(d)
        if k not in memo:
            children = []
            for call in d.legal_actions():
                child = copy.deepcopy(d, {id(d.rules): d.rules})
                child.apply(call)
                children.append(value(child))
            memo[k] = max(children) if d.to_move == 0 else min(children)
        return memo[k]

    return value(deal)


def hands_of(deal) -> list[list[int]]:
    return [[CARD_IDS[c] for c in h] for h in deal.hands]


def check_principal_auction(referee, rules, t, deal, p: Par):
    """The principal auction is legal in the referee, ends there, and gives par's result."""
    d = copy.deepcopy(deal, {id(deal.rules): deal.rules})
    for call in p.auction:
        assert d.phase == "auction"
        d.apply(call)
    assert d.phase != "auction"
    if p.contract == "pass":
        assert d.passed_out and p.score == (0, 0)
    else:
        assert (d.contract, d.declarer, d.doubled) == (p.contract, p.declarer, p.doubled)
        assert p.tricks == t[STRAINS.index(rb.parse_bid(p.contract)[1]), p.declarer]
    assert referee_score(referee, rules, t, d) == p.score
    assert min(p.score) == 0  # only one player scores on a deal (B-11..B-14, D-5/D-6)


@pytest.mark.parametrize("game, options", [("bridgette", o) for o in BRIDGETTE_OPTIONS[:4]]
                         + [("draw-bridge", o) for o in DRAW_BRIDGE_OPTIONS])
def test_par_equals_a_plain_minimax_over_the_referees_auction(game, options):
    rng = random.Random(f"{game}{options}")
    rules = rules_for(game, options)
    referee, new_deal = (rb, bridgette_auction_deal) if game == "bridgette" else (rd, draw_bridge_auction_deal)
    for _ in range(2):
        deal = new_deal(rng, rules)
        t = random_table(rng)
        p = par(t, hands_of(deal), deal.dealer, rules)
        assert p.value == referee_minimax(referee, rules, t, deal)
        check_principal_auction(referee, rules, t, deal, p)


def unopposed(referee, rules, t, deal, seat: int) -> int:
    """``seat``'s score minus the other's when the other only ever passes: ``seat`` bids
    once (an opening bid, no bid before it) or passes; 0 if it never gets to call."""
    d = copy.deepcopy(deal, {id(deal.rules): deal.rules})
    if d.to_move != seat:
        d.apply("P")
        if d.phase != "auction":
            return 0  # auction.opening_pass = "ends"
    best = 0
    for call in d.legal_actions():
        if call in ("P", "X", "XX"):
            continue
        child = copy.deepcopy(d, {id(d.rules): d.rules})
        child.apply(call)
        child.apply("P")
        s = referee_score(referee, rules, t, child)
        best = max(best, s[seat] - s[1 - seat])
    return best


@pytest.mark.parametrize("game, options", [("bridgette", o) for o in BRIDGETTE_OPTIONS]
                         + [("draw-bridge", o) for o in DRAW_BRIDGE_OPTIONS])
def test_minimax_properties_on_random_deals(game, options):
    """Restricting one player to passing can only help the other, so par lies between the
    two unopposed results; swapping the seats mirrors par; the principal line is legal."""
    rng = random.Random(f"properties {game}{options}")
    rules = rules_for(game, options)
    referee, new_deal = (rb, bridgette_auction_deal) if game == "bridgette" else (rd, draw_bridge_auction_deal)
    for _ in range(25):
        deal = new_deal(rng, rules)
        t = random_table(rng)
        hands = hands_of(deal)
        p = par(t, hands, deal.dealer, rules)
        assert -unopposed(referee, rules, t, deal, 1) <= p.value <= unopposed(referee, rules, t, deal, 0)
        check_principal_auction(referee, rules, t, deal, p)
        mirrored = par(t[:, ::-1], hands[::-1], 1 - deal.dealer, rules)
        assert mirrored.auction == p.auction and mirrored.contract == p.contract
        assert mirrored.score == p.score[::-1] and mirrored.doubled == p.doubled
        assert mirrored.declarer == (None if p.declarer is None else 1 - p.declarer)
        if game == "draw-bridge" and rules.scoring.undertricks == "none":
            # As test_draw_bridge_without_undertricks_only_7nt_can_score argues.
            dealer_makes_7nt = t[4, deal.dealer] == 13
            assert p.value == (220 if dealer_makes_7nt else 0) * (1 if deal.dealer == 0 else -1)
