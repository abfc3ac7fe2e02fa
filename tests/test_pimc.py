"""The pimc seat (kernels.pimc): uniform consistent worlds, what play shows, the double-dummy
card when the seat's knowledge fixes the hands, the best average otherwise, reproducible
runs, and its parameter. Information hygiene is in test_information.py."""

from __future__ import annotations

import itertools
import math

import numba
import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels import pimc
from kernels.cards import mask_to_cards
from kernels.dd import (
    contract_dd_card_nb, contract_rules_nb, euchre_card_values_nb, euchre_dd_card_nb, euchre_follow_nb, euchre_load_nb,
    new_context, renew_nb,
)
from kernels import policies as kp
from kernels.calls import BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, N_BIDS, legal_calls_nb
from kernels.contract import KIND_CALL, KIND_PLAY
from kernels.step import TRACE_WIDTH, seats_for
from kernels.tricks import euchre_beats_nb, euchre_follow_legal_nb, follow_legal_nb, lead_legal_nb, trick_nb
from sim.api import resolve_rules
from sim.dd import Solver, contract_table
from sim.games import game_info, game_module, kernel_rules
from sim.policies import PolicyError, kernel_policies, parse_policy
from sim.rules import BidEuchreRules, BridgetteRules, DrawBridgeRules
from tests.commands import in_process
from tests.records import assert_same_on_threads_and_blocks
from tests.seats import fresh_seats
from tests.test_policies import no_odds

ALL = np.uint64(2**64 - 1)
GAIN = kernel_rules(BridgetteRules()).tables[0]["gain"]  # the deal scores a search seat's model reads (pimc reads none)


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def _seats(players, worlds, keep=0):
    """A seats record of pimc seats (worlds per card; ``keep``: keeping the worlds of their
    last card), knowing nothing yet."""
    return fresh_seats(parse_policy(f"pimc:worlds={worlds},keep={keep}"), players)


# --- Uniform worlds -------------------------------------------------------------------------

def _consistent(cards, counts, allowed):
    """Every placement of ``cards`` in the holders that fits their counts and allowed sets."""
    out = []
    for place in itertools.product(range(len(counts)), repeat=len(cards)):
        if all(place.count(h) == counts[h] for h in range(len(counts))) and \
                all(allowed[h] >> c & 1 for c, h in zip(cards, place)):
            out.append(place)
    return out


def _chance(ways, stride, cards, counts, allowed, place):
    """The chance sample_world_nb gives ``place``: the product of its per-card choices."""
    state, p = int(stride[-1]) - 1, 1.0
    for i, (c, h) in enumerate(zip(cards, place)):
        p *= ways[i + 1, state - stride[h]] / ways[i, state]
        state -= int(stride[h])
    return p


CASES = [  # (cards, holder counts, cards each holder may take)
    ((0, 1, 2, 3, 4, 5, 6), (3, 2, 2), (0b0011111, 0b1111111, 0b1111110)),
    ((0, 1, 2, 3, 4, 5), (2, 2, 1, 1), (0b111100, 0b001111, 0b111111, 0b110011)),
    ((3, 9, 17, 40, 52), (2, 3), (0b11111, 0b11111)),
    ((0, 1, 2, 3, 4, 5, 6, 7), (4, 1, 3), (0b00001111, 0b11111111, 0b11110000)),
]


@pytest.mark.parametrize("cards, counts, allowed", CASES)
def test_every_consistent_world_has_the_same_chance(cards, counts, allowed):
    """Exact enumeration: the table counts the consistent placements, and the sampler's
    chance of each (the product of its per-card probabilities) is 1 / that count."""
    allowed_cards = np.array([_mask(c for i, c in enumerate(cards) if a >> i & 1) for a in allowed], dtype=np.uint64)
    ways, stride = pimc.world_table_nb(np.array(cards, dtype=np.int64), np.array(counts, dtype=np.int64),
                                       allowed_cards)
    places = _consistent(cards, counts, [int(a) for a in allowed_cards])
    assert ways[0, stride[-1] - 1] == len(places) > 1
    chances = [_chance(ways, stride, cards, counts, allowed_cards, p) for p in places]
    assert max(abs(c * len(places) - 1) for c in chances) < 1e-12


def test_sampled_worlds_pass_a_chi_square_test():
    """20,000 worlds of CASES[0] (105 consistent placements): Pearson's chi-square against
    the uniform law, through the Wilson-Hilferty normal approximation (|z| < 4)."""
    cards, counts, allowed = CASES[0]
    allowed_cards = np.array([_mask(c for i, c in enumerate(cards) if a >> i & 1) for a in allowed], dtype=np.uint64)
    cards_a, counts_a = np.array(cards, dtype=np.int64), np.array(counts, dtype=np.int64)
    ways, stride = pimc.world_table_nb(cards_a, counts_a, allowed_cards)
    places = {p: 0 for p in _consistent(cards, counts, [int(a) for a in allowed_cards])}
    rng = np.array([2024], dtype=np.uint64)
    out = np.zeros(len(counts), dtype=np.uint64)
    n = 20_000
    for _ in range(n):
        pimc.sample_world_nb(ways, stride, cards_a, counts_a, allowed_cards, rng, out)
        place = tuple(next(h for h in range(len(counts)) if int(out[h]) >> c & 1) for c in cards)
        places[place] += 1  # a KeyError would be an inconsistent world
    k = len(places)
    expected = n / k
    chi2 = sum((o - expected) ** 2 / expected for o in places.values())
    df = k - 1
    z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    assert abs(z) < 4, (chi2, df, z)


def test_constraints_that_admit_no_world_are_dropped():
    """A seat that saw a false void (a replayed renege) still gets worlds: the counts alone."""
    counts = np.array([2, 2], dtype=np.int64)
    _, ways, stride, used, n = pimc.deal_table_nb(np.uint64(0b1111), counts, np.array([0b1, 0b1], dtype=np.uint64))
    assert n == 6 and list(used) == [0b1111, 0b1111]


# --- Kept worlds ------------------------------------------------------------------------------

def _kept(seats, seat):
    """The worlds ``seat`` kept at its last card: (opponent's hand, the rest) each."""
    return [tuple(int(x) for x in w[:2]) for w in seats["kept"][0, seat, :int(seats["kept_n"][0, seat])]]


def test_a_keeping_seat_solves_its_last_cards_consistent_worlds_then_fresh_ones():
    """Seat 0 (four cards, the opponent four, three unseen cards out of play) chooses a
    card, the opponent answers, and seat 0 chooses again: its second card's worlds are its
    first card's worlds whose opponent held the cards played since and still fits every
    void shown (in their order, less those cards), then the worlds a seat keeping nothing
    draws from the same stream; and it plays the card best on average over them (the
    Python solver)."""
    rng = np.random.default_rng(5)
    solver = Solver()
    ctx = new_context()
    n, survived, fresh = 6, 0, 0
    for _ in range(60):
        deck = [int(c) for c in rng.permutation(52)]
        mine, theirs, out = _mask(deck[:4]), _mask(deck[4:8]), _mask(deck[8:11])
        trump = int(rng.integers(-1, 4))
        seats = _seats(2, n, keep=1)
        hands = np.array([mine, theirs], dtype=np.uint64)
        unseen = theirs | out
        legal = np.uint64(lead_legal_nb(hands[0], -1))
        first = pimc.pimc_contract_card_nb(ctx[0], seats[0], 0, hands, legal, -1, -1, trump, False, np.uint64(unseen),
                                           GAIN)
        before = _kept(seats, 0)
        if not before:
            continue  # one run of equal cards: nothing to choose, nothing sampled
        assert len(before) == n and all(bin(o).count("1") == 4 and o | r == unseen for o, r in before)
        answer = int(rng.choice(mask_to_cards(follow_legal_nb(hands[1], first, False))))
        pimc.observe_contract_card_nb(seats[0], 1, answer, first, -1, False)
        hands[0] &= ~np.uint64(1 << first)
        hands[1] &= ~np.uint64(1 << answer)
        played, lead = _mask([answer]), -1
        leader_wins, barred = trick_nb(first, answer, trump)
        if leader_wins:
            legal = lead_legal_nb(hands[0], barred)
        else:  # the opponent leads to the second trick
            lead, barred = int(rng.choice(mask_to_cards(hands[1]))), -1
            pimc.observe_contract_card_nb(seats[0], 1, lead, -1, -1, False)
            hands[1] &= ~np.uint64(1 << lead)
            played |= 1 << lead
            legal = follow_legal_nb(hands[0], lead, False)
        unseen &= ~played
        may = int(seats["may_hold"][0, 0, 1])
        expect = [(o & unseen, r) for o, r in before if o & played == played and o & unseen & ~may == 0]
        redrawn = seats.copy()
        redrawn["kept_n"] = 0
        args = (hands, np.uint64(legal), lead, barred, trump, False, np.uint64(unseen), GAIN)
        pimc.pimc_contract_card_nb(ctx[0], redrawn[0], 0, *args)
        second = pimc.pimc_contract_card_nb(ctx[0], seats[0], 0, *args)
        if int(seats["kept_unseen"][0, 0]) != unseen:
            continue  # nothing to choose at the second card
        after = _kept(seats, 0)
        assert after == expect + _kept(redrawn, 0)[:n - len(expect)]
        survived += len(expect)
        fresh += n - len(expect)
        means = dict.fromkeys(mask_to_cards(legal), 0)
        for other, _ in after:
            hands_w = [mask_to_cards(hands[0]), mask_to_cards(np.uint64(other))]
            for c, v in solver.contract_card_values(hands_w, trump, 0, lead, barred).items():
                means[c] += v
        assert means[second] == max(means.values())
    assert survived >= 30 and fresh >= 30


def test_kept_worlds_are_uniform_among_the_deals_consistent_now():
    """One world drawn uniformly for three opponent's cards among six unseen; the opponent
    then plays card 0 and shows a void in cards 4-5: the kept worlds (those whose opponent
    held card 0 and neither 4 nor 5) come out uniform among the three deals consistent now,
    over 6,000 draws (chi-square, 2 degrees of freedom, at the 0.999 level: 13.8)."""
    seats = _seats(2, 1, keep=1)
    cards = np.arange(6, dtype=np.int64)
    counts, allowed = np.array([3, 3], dtype=np.int64), np.array([0b111111, 0b111111], dtype=np.uint64)
    _, ways, stride, _, _ = pimc.deal_table_nb(np.uint64(0b111111), counts, allowed)
    now_counts, now_allowed = np.array([2, 3], dtype=np.int64), np.array([0b001110, 0b111110], dtype=np.uint64)
    rng = np.array([7], dtype=np.uint64)
    world, holders, seen = np.empty(2, dtype=np.uint64), np.empty((1, 2), dtype=np.uint64), {}
    for _ in range(6000):
        pimc.sample_world_nb(ways, stride, cards, counts, allowed, rng, world)
        pimc.keep_worlds_nb(seats[0], 0, np.uint64(0b111111), counts, allowed, world[None, :])
        if pimc.kept_worlds_nb(seats[0], 0, np.uint64(0b111110), now_counts, now_allowed, holders):
            key = int(holders[0, 0])
            seen[key] = seen.get(key, 0) + 1
    assert sorted(seen) == [0b0110, 0b1010, 0b1100]
    total = sum(seen.values())
    assert 750 < total < 1050  # 3 of the 20 deals: 900 expected
    chi2 = sum((k - total / 3) ** 2 / (total / 3) for k in seen.values())
    assert chi2 < 13.8


@pytest.mark.parametrize("change", ["stock", "widened", "new holder", "new card"])
def test_no_world_is_kept_where_the_seat_learned_more_than_the_cards_played(change):
    """Worlds stay only where the opponent's count fell by the cards it played and nothing
    else changed or widened: else none is kept, though each world may fit on its own."""
    seats = _seats(2, 1, keep=1)
    counts, allowed = np.array([2, 2], dtype=np.int64), np.array([0b0111, 0b1111], dtype=np.uint64)
    pimc.keep_worlds_nb(seats[0], 0, np.uint64(0b1111), counts, allowed,
                        np.array([[0b0011, 0b1100]], dtype=np.uint64))
    unseen, now_counts, now_allowed = np.uint64(0b1110), np.array([1, 2], dtype=np.int64), allowed & np.uint64(0b1110)
    holders = np.empty((1, 3), dtype=np.uint64)
    assert pimc.kept_worlds_nb(seats[0], 0, unseen, now_counts, now_allowed, holders[:, :2]) == 1
    assert list(holders[0, :2]) == [0b0010, 0b1100]
    if change == "stock":
        unseen, now_counts, now_allowed = np.uint64(0b0110), np.array([1, 1], dtype=np.int64), allowed & np.uint64(6)
    elif change == "widened":
        now_allowed = np.array([0b1110, 0b1110], dtype=np.uint64)
    elif change == "new holder":
        now_counts, now_allowed = np.array([1, 1, 1], dtype=np.int64), np.array([0b110, 0b1110, 0b1110], np.uint64)
    else:
        unseen = np.uint64(0b11110)
    got = pimc.kept_worlds_nb(seats[0], 0, unseen, now_counts, now_allowed, holders[:, :now_counts.shape[0]])
    assert got == 0


@pytest.mark.slow  # compiles kernels of their own: make test-all, for make test's 10 minutes
def test_keeping_worlds_changes_bridgette_play():
    """``keep`` (Bridgette's default) is in force: the same games with ``keep=0`` play out
    otherwise."""
    rules = BridgetteRules()
    records = []
    for spec in ("pimc:worlds=8", "pimc:worlds=8,keep=0"):
        seats = [parse_policy(spec, "bridgette"), parse_policy("heuristic", "bridgette")]
        records.append(game_module("bridgette").run_block(rules, seats, 3, 0, 4)[0])
    assert len(records[0]) != len(records[1]) or not np.array_equal(records[0], records[1])


# --- What play shows -------------------------------------------------------------------------

def _contract_plays(rows):
    """(seat, card, lead, barred) of each contract card of a traced deal, in order."""
    plays = [(s, a) for k, s, a, _ in rows if k == 2]
    out, lead, barred = [], -1, -1
    for seat, card in plays:
        out.append((seat, card, lead, barred))
        if lead < 0:
            lead = card
        else:
            _, barred = trick_nb(lead, card, -1)  # the bar does not depend on trump
            lead = -1
    return out


@pytest.mark.parametrize("colon_discard", ["last_resort", "when_void"])
def test_what_bridgette_play_shows_is_true(colon_discard):
    """Along heuristic deals, every seat's may_hold row of a player holds every card that
    player still has (the cards it plays from then on): no void, B-10 last resort or B-8
    bar is read into play that is not so; and some are read."""
    from sim import bridgette

    rules = BridgetteRules.from_dict({"play": {"colon_discard": colon_discard}})
    _, headers, outcomes, trace = bridgette.trace_raw(rules, [parse_policy("heuristic")] * 2, 3, range(60))
    shown = 0
    for head, row in zip(headers, outcomes):
        if row["contract"] < 0:
            continue
        plays = _contract_plays(trace[head["actions_start"]:head["actions_end"]])
        seats = _seats(2, 1)
        for i, (seat, card, lead, barred) in enumerate(plays):
            left = _mask(c for s, c, _, _ in plays[i:] if s == seat)
            assert all(left & ~int(seats["may_hold"][0, s, seat]) == 0 for s in range(2))
            pimc.observe_contract_card_nb(seats[0], seat, card, lead, barred, colon_discard == "when_void")
        shown += int((seats["may_hold"][0, 0, :2] != ALL).sum())
    assert shown > 50


@pytest.mark.slow  # compiles kernels of their own: make test-all, for make test's 10 minutes
def test_what_euchre_play_and_the_ask_exchange_show_is_true():
    """Bid Euchre: every void read from play is true (E-2 suits: bowers with trump), and the
    asking bidder's row for its partner holds the partner's cards but those it was given."""
    rules = BidEuchreRules.from_dict({"variant": {"joker": True}})
    kr = kernel_rules(rules)
    info = game_info("bid-euchre")
    _, headers, _, _ = game_module("bid-euchre").trace_raw(rules, [parse_policy("heuristic")] * 4, 3, range(40))
    asks = shown = 0
    for head in headers:
        ids, prm = kernel_policies([parse_policy("heuristic")] * info.seats)
        seats = seats_for(ids, prm)
        hands = head["hands"].copy()
        trace = np.zeros((256, TRACE_WIDTH), dtype=np.int64)
        row = np.zeros(1, dtype=ke.DEAL_DTYPE)
        ke.play_deal_nb(kr, int(head["dealer"]), hands, None, seats[0],
                        trace, row[0], new_context(), np.zeros(0, dtype=ke.DD_DTYPE))
        if row["bid"][0] < 0:
            continue
        trump, bidder = int(row["trump"][0]), int(row["bidder"][0])
        rows = trace[:seats["tcur"][0]]
        plays = [(int(s), int(a)) for k, s, a, _ in rows if k == ke.KIND_PLAY]
        if row["bid"][0] == kr.params[0]["tricks"] - 3:  # an ask: the partner's cards stay in hands
            partner = (bidder + 2) % 4
            given = int(seats["aside"][0, bidder]) & int(hands[partner])
            assert int(hands[partner]) & ~given & ~int(seats["may_hold"][0, bidder, partner]) == 0
            asks += 1
        check = seats_for(ids, prm)
        check["may_hold"] = ALL
        lead = -1
        n_active = 4 if row["bid"][0] < kr.params[0]["tricks"] - 3 else 3
        for i, (seat, card) in enumerate(plays):
            lead = -1 if i % n_active == 0 else lead
            left = _mask(c for s, c in plays[i:] if s == seat)
            assert all(left & ~int(check["may_hold"][0, s, seat]) == 0 for s in range(4))
            pimc.observe_euchre_card_nb(check[0], seat, card, lead, trump)
            lead = card if i % n_active == 0 else lead
        shown += int((check["may_hold"][0, 0, :4] != ALL).sum())
    assert asks >= 1 and shown > 20


# --- The double-dummy card when the hands are known ---------------------------------------------

@pytest.mark.parametrize("seat", [0, 1])
def test_draw_bridge_pimc_plays_as_dd(seat):
    """D-2: after the draw phase the stock is gone, so the unseen cards are the opponent's
    hand: a pimc seat (many worlds, the heuristic's calls) plays every card as the dd seat,
    deal for deal."""
    game = "draw-bridge"
    rules = resolve_rules(game, None)
    heuristic = parse_policy("heuristic", game)
    runs = []
    for spec in ("pimc:worlds=64,bid_worlds=0", "dd"):
        seats = [heuristic, heuristic]
        seats[seat] = parse_policy(spec, game)
        runs.append(game_module(game).run_block(rules, seats, 8, 0, 12))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def _random_contract_position(rng):
    """Two hands of k cards from the 55-card deck, the seat to move, a trump, the card led to
    it (or none, with a suit barred by B-8) and the Colon reading."""
    k = int(rng.integers(1, 8))
    deck = rng.permutation(55)
    hands = np.array([_mask(deck[:k]), _mask(deck[k:2 * k])], dtype=np.uint64)
    seat = int(rng.integers(2))
    trump = int(rng.integers(-1, 4))
    when_void = bool(rng.integers(2))
    lead, barred = -1, -1
    if rng.integers(2):
        leader = 1 - seat
        lead = int(rng.choice(mask_to_cards(hands[leader])))
        hands[leader] &= ~np.uint64(1 << lead)
        legal = follow_legal_nb(hands[seat], lead, when_void)
    else:
        barred = int(rng.integers(-1, 4))
        legal = lead_legal_nb(hands[seat], barred)
    return hands, seat, trump, when_void, lead, barred, legal


def test_bridgette_pimc_plays_as_dd_when_the_unseen_cards_are_the_other_hand():
    """Positions where everything the seat has not seen is the opponent's hand: the pimc
    card (64 worlds) is the dd card, Colons, bars and both B-10 readings included."""
    rng = np.random.default_rng(5)
    seats = _seats(2, 64)
    ctx, ref = new_context(), new_context()
    for _ in range(300):
        hands, seat, trump, when_void, lead, barred, legal = _random_contract_position(rng)
        got = pimc.pimc_contract_card_nb(ctx[0], seats[0], seat, hands, np.uint64(legal), lead, barred, trump,
                                         when_void, hands[1 - seat], GAIN)
        want = contract_dd_card_nb(ref[0], hands.copy(), seat, lead, barred, trump, when_void)
        assert got == want


def _random_euchre_position(rng, joker):
    """A Bid Euchre hand played at random to some point: (hands, trump, out seat, the trick
    so far as leader, cards in it, lead, best, best seat, every card played, the seat to
    play, the joker dealer's discard or -1)."""
    deck = rng.permutation(25 if joker else 24)
    deck = np.where(deck == 24, ke.JOKER, deck)
    hands = np.array([_mask(deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
    discard = int(deck[24]) if joker else -1
    trump = int(rng.integers(4))
    bidder = int(rng.integers(4))
    out_seat = (bidder + 2) % 4 if rng.integers(2) else -1
    n_active = 3 if out_seat >= 0 else 4
    leader, seat, in_trick, lead, best, best_seat, played = bidder, bidder, 0, -1, -1, -1, 0
    for _ in range(int(rng.integers(0, 6 * n_active - 1))):
        legal = euchre_follow_legal_nb(hands[seat], lead, trump)
        card = int(rng.choice(mask_to_cards(legal)))
        hands[seat] &= ~np.uint64(1 << card)
        played |= 1 << card
        if in_trick == 0:
            lead, best, best_seat = card, card, seat
        elif euchre_beats_nb(card, best, trump):
            best, best_seat = card, seat
        in_trick += 1
        seat = (seat + 1) % 4
        if seat == out_seat:
            seat = (seat + 1) % 4
        if in_trick == n_active:
            leader = seat = best_seat
            in_trick, lead, best, best_seat = 0, -1, -1, -1
    return hands, trump, out_seat, leader, in_trick, lead, best, best_seat, np.uint64(played), seat, discard


@pytest.mark.parametrize("joker", [False, True])
def test_euchre_pimc_plays_as_dd_when_its_knowledge_fixes_the_hands(joker):
    """Positions where the seat's may_hold rows pin every other hand (and the joker discard
    is the one card left): the pimc card (64 worlds) is the dd card, lone hands included."""
    rng = np.random.default_rng(6)
    ctx, ref = new_context(), new_context()
    for _ in range(300):
        hands, trump, out_seat, leader, in_trick, lead, best, best_seat, played, seat, discard = \
            _random_euchre_position(rng, joker)
        seats = _seats(4, 64)
        for t in range(4):
            if t != seat:
                seats["may_hold"][0, seat, t] = hands[t]
        if joker:
            dealer = (seat + 1 + int(rng.integers(3))) % 4  # a dealer other than the seat
            seats["facts"][0, pimc.FACT_JOKER_DEALER] = dealer + 1
        legal = euchre_follow_legal_nb(hands[seat], lead, trump)
        # double_deck and joker as int64, the rules record's type: the calls then find the kernels a run compiled
        got = pimc.pimc_euchre_card_nb(ctx[0], seats[0], seat, hands, np.uint64(legal), trump, out_seat, 0, int(joker),
                                       leader, in_trick, lead, best, best_seat, played)
        want = euchre_dd_card_nb(ref[0], hands.copy(), seat, trump, out_seat, 0, int(joker), leader, in_trick, lead,
                                 best, best_seat)
        assert got == want


# --- The best average when they are not --------------------------------------------------------

def test_pimc_plays_the_best_card_on_average_over_the_consistent_worlds():
    """Three cards each and two unseen cards in the stock: ten consistent worlds. Where one
    card's average double-dummy value over all ten (the Python solver) beats every other by
    a quarter trick, pimc with 2,000 worlds plays it."""
    rng = np.random.default_rng(7)
    solver = Solver()
    ctx = new_context()
    decided = 0
    for _ in range(400):
        deck = rng.permutation(52)
        mine, theirs, stock = deck[:3], deck[3:6], deck[6:8]
        seat, trump = int(rng.integers(2)), int(rng.integers(-1, 4))
        unseen = [int(c) for c in (*theirs, *stock)]
        legal = lead_legal_nb(np.uint64(_mask(mine)), -1)
        means = {int(c): 0.0 for c in mine}
        worlds = list(itertools.combinations(unseen, 3))
        for other in worlds:
            hands = [list(mine), list(other)] if seat == 0 else [list(other), list(mine)]
            for c, v in solver.contract_card_values(hands, trump, seat).items():
                means[c] += v / len(worlds)
        ranked = sorted(means.values(), reverse=True)
        if ranked[0] - ranked[1] < 0.25:
            continue
        seats = _seats(2, 2000)
        hands = np.zeros(2, dtype=np.uint64)
        hands[seat], hands[1 - seat] = _mask(mine), _mask(theirs)
        got = pimc.pimc_contract_card_nb(ctx[0], seats[0], seat, hands, np.uint64(legal), -1, -1, trump, False,
                                         np.uint64(_mask(unseen)), GAIN)
        assert means[got] == ranked[0]
        decided += 1
    assert decided >= 20


def _check_card_sums(sums, exact, order):
    """The sums ``card_sums_nb`` gave against the exact ones (by a search per card and
    world), the cards in ``order`` (the order in which the lowest of equals is taken): the
    card chosen by the exact sums has its exact sum, the highest; every other sum is an
    upper bound, below the highest for the cards before the chosen one. Returns (cards
    only bounded, cards tied with the chosen one, cards after it whose bound ties it)."""
    best = max(exact[c] for c in order)
    chosen = next(i for i, c in enumerate(order) if exact[c] == best)
    assert sums[order[chosen]] == best
    bounded = tied = bound_tied = 0
    for i, c in enumerate(order):
        assert exact[c] <= sums[c] <= best
        if i < chosen:
            assert sums[c] < best
        bounded += sums[c] > exact[c]
        tied += i != chosen and exact[c] == best
        bound_tied += sums[c] == best > exact[c]
    return bounded, tied, bound_tied


def test_card_sums_are_exact_where_the_choice_needs_them_in_the_bridge_games():
    """Two-hand positions (leading or following, 3-6 cards each, any strain) over 2-6
    worlds of the other hand: against each card's exact value in each world (the Python
    solver), ``card_sums_nb`` makes the chosen card's sum exact and bounds the others (those
    before it strictly below it), so the choice is the exact average's; some cards after
    it keep a bound that ties it (they need no search: the lowest of equals is chosen)."""
    rng = np.random.default_rng(12)
    solver, ctx = Solver(), new_context()
    dd = ctx[0]
    bounded = tied = bound_tied = 0
    for _ in range(200):
        k = int(rng.integers(3, 7))
        deck = rng.permutation(52)
        mine, rest = deck[:k], deck[k + 1:]
        seat, trump = int(rng.integers(2)), int(rng.integers(-1, 4))
        lead = int(deck[k]) if rng.integers(2) else -1
        legal = lead_legal_nb(np.uint64(_mask(mine)), -1) if lead < 0 else \
            follow_legal_nb(np.uint64(_mask(mine)), lead, False)
        n_worlds = int(rng.integers(2, 7))
        held = np.zeros((n_worlds, 4), dtype=np.uint64)
        exact = dict.fromkeys(mask_to_cards(legal), 0)
        for w in range(n_worlds):
            other = rng.choice(rest, k - (lead >= 0), replace=False)
            hands = [list(mine), list(other)] if seat == 0 else [list(other), list(mine)]
            held[w, seat], held[w, 1 - seat] = _mask(mine), _mask(other)
            for c, v in solver.contract_card_values(hands, trump, seat, lead).items():
                exact[c] += v
        dd.trump, dd.when_void = trump, 0
        renew_nb(dd, contract_rules_nb(trump, 0))
        sums = np.zeros(64, dtype=np.int64)
        pimc.card_sums_nb(dd, False, seat, np.array([lead]), legal, held, sums)
        b, t, bt = _check_card_sums(sums, exact, sorted(exact))
        bounded, tied, bound_tied = bounded + b, tied + t, bound_tied + bt
    assert bounded >= 100 and tied >= 20 and bound_tied >= 5


@pytest.mark.parametrize("joker", [False, True])
def test_card_sums_are_exact_where_the_choice_needs_them_in_bid_euchre(joker):
    """Bid Euchre positions played at random (lone hands, tricks in progress) over 2-6
    worlds that deal the other active seats' cards anew: the same as in the bridge games,
    against the kernels' exact value of each card in each world."""
    rng = np.random.default_rng(13)
    ctx, ref = new_context(), new_context()
    dd = ctx[0]
    bounded = tied = bound_tied = 0
    for _ in range(200):
        hands, trump, out_seat, leader, in_trick, lead, best, best_seat, played, seat, _ = \
            _random_euchre_position(rng, joker)
        others = [t for t in range(4) if t not in (seat, out_seat)]
        pool = np.array([c for t in others for c in mask_to_cards(hands[t])])
        legal = mask_to_cards(euchre_follow_legal_nb(hands[seat], lead, trump))
        if len(legal) < 2:
            continue
        n_worlds = int(rng.integers(2, 7))
        held = np.zeros((n_worlds, 4), dtype=np.uint64)
        exact = dict.fromkeys(legal, 0)
        values = np.empty(64, dtype=np.int64)
        for w in range(n_worlds):
            world = hands.copy()
            dealt = rng.permutation(pool)
            for t in others:
                n = len(mask_to_cards(hands[t]))
                world[t], dealt = np.uint64(_mask(dealt[:n])), dealt[n:]
            euchre_card_values_nb(ref, world, seat, trump, out_seat, False, joker, leader, in_trick, lead, best,
                                  best_seat, values)
            for c in legal:
                exact[c] += values[c]
            to_layout = euchre_load_nb(dd, world, trump, out_seat, False, joker)
            held[w] = dd.hands
        moves = euchre_follow_nb(held[0, seat], to_layout[lead] if lead >= 0 else -1, dd.segs, dd.seg_of)
        sums = np.zeros(64, dtype=np.int64)
        pos = np.array([leader, in_trick, to_layout[lead] if lead >= 0 else -1,
                        to_layout[best] if best >= 0 else -1, best_seat])
        pimc.card_sums_nb(dd, True, seat, pos, moves, held, sums)
        b, t, bt = _check_card_sums({c: sums[to_layout[c]] for c in legal}, exact,
                                    sorted(legal, key=lambda c: to_layout[c]))
        bounded, tied, bound_tied = bounded + b, tied + t, bound_tied + bt
    assert bounded >= 50 and tied >= 20 and bound_tied >= 5


# --- Calls ---------------------------------------------------------------------------------------

def _expected_call(table_of, gain, seat, legal, cur_bid, bidder, doubled):
    """kernels.pimc's call rule restated: the legal call whose contract after the call and
    the opponent's best answer (a double to a bid, a redouble to a double) has the best mean
    score for ``seat`` over the worlds' tables (``table_of``: [strain, declarer] arrays);
    ties to the pass, the double, then the lowest bid."""
    def value(bid, declarer, dbl):
        sign = 1 if declarer == seat else -1
        return np.mean([sign * gain[dbl, bid, t[BID_STRAIN[bid], declarer]] for t in table_of])

    options = [(CALL_PASS, value(cur_bid, bidder, doubled) if cur_bid >= 0 else 0.0)]
    if legal >> CALL_DOUBLE & 1:
        options.append((CALL_DOUBLE, min(value(cur_bid, bidder, 1), value(cur_bid, bidder, 2))))
    if legal >> CALL_REDOUBLE & 1:
        options.append((CALL_REDOUBLE, value(cur_bid, seat, 2)))
    options += [(b, min(value(b, seat, 0), value(b, seat, 1))) for b in range(N_BIDS) if legal >> b & 1]
    best = max(v for _, v in options)
    return next(c for c, v in options if np.isclose(v, best, rtol=0, atol=1e-9))


def _auction_states(dealer, calls):
    """(caller, cur_bid, bidder, doubled) before each call of a C-4 auction."""
    cur_bid, bidder, doubled = -1, -1, 0
    for i, call in enumerate(calls):
        yield (dealer + i) % 2, cur_bid, bidder, doubled
        if call == CALL_DOUBLE:
            doubled = 1
        elif call == CALL_REDOUBLE:
            doubled = 2
        elif call != CALL_PASS:
            cur_bid, bidder, doubled = call, (dealer + i) % 2, 0


@pytest.mark.parametrize("seat", [0, 1])
def test_draw_bridge_pimc_calls_are_best_by_the_exact_table(seat):
    """D-2 shows a pimc seat the whole deal before the auction, so its one world is the
    deal: every call it makes is the best call by the deal's table (sim.dd, from the hands
    its contract play shows) and the D-5/D-6 scores, as restated here."""
    from sim import draw_bridge

    rules = DrawBridgeRules()
    kr = kernel_rules(rules)
    seats = [parse_policy("heuristic", "draw-bridge")] * 2
    seats[seat] = parse_policy("pimc:worlds=1,bid_worlds=1", "draw-bridge")
    _, headers, outcomes, trace = draw_bridge.trace_raw(rules, seats, 3, range(3))
    solver, checked = Solver(), 0
    for head, row in zip(headers, outcomes):
        rows = trace[head["actions_start"]:head["actions_end"]]
        plays = [(int(s), int(a)) for k, s, a, _ in rows if k == KIND_PLAY][26:]  # the contract play
        if row["contract"] < 0 or len(plays) != 26:
            continue
        hands = np.array([_mask([a for s, a in plays if s == t]) for t in (0, 1)], dtype=np.uint64)
        table = contract_table(solver, [mask_to_cards(h) for h in hands])
        calls = [int(a) for k, _, a, _ in rows if k == KIND_CALL]
        for (caller, cur_bid, bidder, doubled), call in zip(_auction_states(int(head["dealer"]), calls), calls):
            if caller != seat:
                continue
            legal = int(legal_calls_nb(hands[seat], seat, cur_bid, bidder, doubled, 1, 0, False, 0))
            assert call == _expected_call([table], kr.tables[0]["gain"], seat, legal, cur_bid, bidder, doubled)
            checked += 1
    assert checked >= 100


@pytest.mark.parametrize("bid_worlds", [6, 1])
def test_bridgette_pimc_calls_average_the_worlds_the_opponents_calls_allow(bid_worlds):
    """After the opponent's opening call, the worlds a Bridgette pimc seat bids from hold
    the cards it has not seen, 13 to the opponent, who as the heuristic would have made
    that call (a single world too); its call is the best by those worlds' tables (sim.dd)."""
    kr = kernel_rules(BridgetteRules())
    p = kr.params[0]
    b6 = (0, int(p.min_trump_cards), bool(p.nt_needs_all_suits), int(p.jump_min_cards))  # B-5, B-6
    prm = parse_policy(f"pimc:bid_worlds={bid_worlds}", "bridgette").row()
    gain = kr.tables[0]["gain"]
    rng = np.random.default_rng(8)
    solver, agree, total = Solver(), 0, 0
    for _ in range(12):
        deck = rng.permutation(52)
        hands = np.array([_mask(deck[:13]), _mask(deck[13:26])], dtype=np.uint64)
        seat = int(rng.integers(2))
        opp = 1 - seat  # the dealer, who calls first
        legal = legal_calls_nb(hands[opp], opp, -1, -1, 0, *b6)
        first = int(kp.heuristic_call_nb(prm.heuristic, opp, hands[opp], legal, -1, -1, 0, ~hands[opp], gain,
                                         no_odds()))
        calls = np.array([first], dtype=np.int64)
        cur_bid, bidder = (-1, -1) if first == CALL_PASS else (first, opp)
        unseen = ~hands[seat] & np.uint64(2**52 - 1)
        seats = seats_for(np.array([kp.POLICY_PIMC] * 2), np.stack([prm, prm]))
        seats["may_hold"] = ALL
        seats["rng"] = 1234
        worlds, whole = pimc.sample_bidding_worlds_nb(seats.copy()[0], seat, hands, unseen, calls, 1, opp, *b6, gain,
                                                       prm.pimc.bid_worlds, pimc.BID_TRIES)
        assert len(worlds) == bid_worlds and not whole
        tables = []
        for w in worlds:
            assert w & ~unseen == 0 and bin(int(w)).count("1") == 13
            agree += kp.calls_chance_nb(prm.heuristic, False, w, opp, calls, 1, opp, *b6, gain, no_odds(),
                                         np.zeros((2, 5, kp.ODDS_WIDTH))) == 1.0
            total += 1
            both = np.zeros(2, dtype=np.uint64)
            both[seat], both[opp] = hands[seat], w
            tables.append(contract_table(solver, [mask_to_cards(h) for h in both]))
        legal = legal_calls_nb(hands[seat], seat, cur_bid, bidder, 0, *b6)
        got = pimc.pimc_call_nb(new_context()[0], seats[0], seat, hands, np.uint64(legal), cur_bid, bidder, 0, unseen,
                                gain, False, calls, 1, opp, *b6)
        assert got == _expected_call(tables, gain, seat, int(legal), cur_bid, bidder, 0)
    assert agree == total


# The single deck's rule arguments as the deal kernel passes them (tricks, ask_cards,
# double_deck, joker, stick_the_dealer): with the kernel's argument types the tests reuse its
# compiled searches.
SINGLE_DECK = tuple(np.int64(kernel_rules(BidEuchreRules()).params[0][k])
                    for k in ("tricks", "ask_cards", "double_deck", "joker", "stick_the_dealer"))

# Bid Euchre's calls, restated from docs/rules.md for the single deck.
EUCHRE_PASS = 15
ASK, MOON = 3, 4  # the 6A and 6M bid ids


def _euchre_legal_bids(high, turn, stick_the_dealer=False):
    """E-3: every bid above ``high`` (ids 0-4: 3, 4, 5, 6A, 6M), and the pass unless the
    dealer is stuck."""
    legal = sum(1 << b for b in range(high + 1, 5))
    if not (turn == 3 and high < 0 and stick_the_dealer):
        legal |= 1 << EUCHRE_PASS
    return legal


def _euchre_gain(bid, tricks):
    """E-7: the bidding team's points minus the defenders' when it takes ``tricks``."""
    need = 3 + bid if bid < ASK else 6
    points = -need if tricks < need else {ASK: 12, MOON: 24}.get(bid, tricks)
    return points - (6 - tricks)


def _euchre_auction(prm, hands, dealer, calls):
    """The calls from the dealer's left: ``calls[turn]``, or where it is None the call of a
    heuristic with ``prm`` holding its hand of ``hands``; and the high bid and bidder after
    them."""
    made, high, bidder = [], -1, -1
    for turn, call in enumerate(calls):
        caller = (dealer + 1 + turn) % 4
        legal = np.uint64(_euchre_legal_bids(high, turn))
        mine = int(kp.heuristic_euchre_bid_nb(prm.heuristic, np.uint64(hands[caller]), legal, high, bidder, caller,
                                              6, 1))
        made.append(mine if call is None else call)
        if made[-1] != EUCHRE_PASS:
            high, bidder = made[-1], caller
    return made, high, bidder


def _euchre_bid_tricks(solver, prm, world, bidder, trump, bid):
    """E-4..E-6: the bidding team's double-dummy tricks, the bidder leading; 6A after the
    one-card exchange as the heuristics make it (partner's highest trump back, if any)."""
    hands = [int(h) for h in world]
    partner = (bidder + 2) % 4
    if bid == ASK:
        give = int(kp.heuristic_euchre_give_nb(prm.heuristic, np.uint64(hands[bidder]), trump))
        back = int(ke.highest_trumps_nb(np.uint64(hands[partner]), trump, 1))
        if not back:
            back = 1 << int(kp.heuristic_euchre_return_nb(prm.heuristic, np.uint64(hands[partner]), trump))
        hands[bidder] = hands[bidder] & ~(1 << give) | back
    return solver.euchre_tricks([mask_to_cards(np.uint64(h)) for h in hands], trump, bidder,
                                out_seat=partner if bid >= ASK else -1)


def _euchre_worlds(prm, seat, hands, dealer, calls, n, stream):
    """The worlds a pimc seat with ``bid_worlds=n`` samples after ``calls``, checked: its own
    hand as it is, six of the other cards to each other seat, every one agreeing with the
    others' calls (at most ``n``: fewer when 50 draws per world find too few that do)."""
    seats = seats_for(np.array([kp.POLICY_PIMC] * 4), np.stack([prm] * 4))
    seats["may_hold"] = ALL
    seats["rng"] = stream
    seats["calls"][0, :len(calls)] = calls
    worlds = pimc.sample_euchre_calling_worlds_nb(seats.copy()[0], seat, hands, len(calls), dealer,
                                                  SINGLE_DECK[0], *SINGLE_DECK[2:])
    assert worlds.shape[0] <= n and worlds.shape[1] == 4
    for w in worlds:
        assert w[seat] == hands[seat] and _mask(range(24)) == int(np.bitwise_or.reduce(w))
        assert all(bin(int(h)).count("1") == 6 for h in w)
    agree = [_euchre_auction(prm, w, dealer, [None if (dealer + 1 + t) % 4 != seat else c
                                              for t, c in enumerate(calls)])[0] == list(calls) for w in worlds]
    assert all(agree)  # no world the calls do not explain
    return seats, worlds, sum(agree)


def test_bid_euchre_bid_gain_is_e7():
    kr = kernel_rules(BidEuchreRules())
    gain = ke.bid_gain_nb(kr.params[0])
    assert gain.tolist() == [[_euchre_gain(b, x) for x in range(7)] for b in range(5)]


def test_bid_euchre_pimc_bids_are_best_by_the_worlds_the_calls_before_allow():
    """A Bid Euchre pimc seat with ``bid_worlds=5`` samples worlds in which the earlier
    callers, as heuristics, made their calls, and makes the call best by them: a bid is its
    expected E-7 score played by this seat in the suit best on average; a pass, the high
    bid played by its bidder in the suit the heuristic names from the bidder's hand (no
    bid: 0); ties to the pass, then the lowest bid. Solved here with sim.dd."""
    prm = parse_policy("pimc:bid_worlds=5", "bid-euchre").row()
    gain = np.array([[_euchre_gain(b, x) for x in range(7)] for b in range(5)], dtype=np.float64)
    rng = np.random.default_rng(5)
    solver, kinds, agree = Solver(), set(), 0
    for k in range(16):
        deck = rng.permutation(24)
        hands = np.array([_mask(deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
        dealer, turn = int(rng.integers(4)), int(rng.integers(4))
        seat = (dealer + 1 + turn) % 4
        calls, high, bidder = _euchre_auction(prm, hands, dealer, [None] * turn)
        seats, worlds, agreeing = _euchre_worlds(prm, seat, hands, dealer, calls, 5, 40 + k)
        agree += agreeing
        legal = _euchre_legal_bids(high, turn)
        options = {}
        if legal >> EUCHRE_PASS & 1:
            options[EUCHRE_PASS] = 0
            if high >= 0:
                trumps = [int(kp.heuristic_euchre_trump_nb(prm.heuristic, w[bidder], 1)) for w in worlds]
                total = sum(_euchre_gain(high, _euchre_bid_tricks(solver, prm, w, bidder, t, high))
                            for w, t in zip(worlds, trumps))
                options[EUCHRE_PASS] = total if bidder % 2 == seat % 2 else -total
        for bid in (b for b in range(5) if legal >> b & 1):
            options[bid] = max(sum(_euchre_gain(bid, _euchre_bid_tricks(solver, prm, w, seat, t, bid)) for w in worlds)
                               for t in range(4))
        expected = max(options, key=lambda c: (options[c], c == EUCHRE_PASS, -c))
        got = pimc.pimc_euchre_bid_nb(new_context()[0], seats[0], seat, hands, np.uint64(legal), high, bidder, turn,
                                      dealer, gain, *SINGLE_DECK)
        assert got == expected, (k, options)
        kinds.add("pass" if got == EUCHRE_PASS else "bid")
    assert kinds == {"pass", "bid"}
    assert agree >= 75  # worlds taken, of 80 wanted, every one agreeing with the calls


def test_bid_euchre_pimc_trump_is_best_by_the_worlds_of_the_whole_auction():
    """The trump a pimc bidder with ``bid_worlds`` names: the suit whose contract scores best
    on average over worlds consistent with all four calls, the lowest of equals."""
    prm = parse_policy("pimc:bid_worlds=4", "bid-euchre").row()
    gain = np.array([[_euchre_gain(b, x) for x in range(7)] for b in range(5)], dtype=np.float64)
    rng = np.random.default_rng(6)
    solver, checked = Solver(), 0
    while checked < 8:
        deck = rng.permutation(24)
        hands = np.array([_mask(deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
        dealer = int(rng.integers(4))
        calls, high, bidder = _euchre_auction(prm, hands, dealer, [None] * 4)
        if high < 0:
            continue
        seats, worlds, _ = _euchre_worlds(prm, bidder, hands, dealer, calls, 4, 60 + checked)
        totals = [sum(_euchre_gain(high, _euchre_bid_tricks(solver, prm, w, bidder, t, high)) for w in worlds)
                  for t in range(4)]
        got = pimc.pimc_euchre_trump_nb(new_context()[0], seats[0], bidder, hands, np.int8(high), dealer, gain,
                                        *SINGLE_DECK)
        assert got == totals.index(max(totals))
        checked += 1


def test_bid_euchre_sampled_calls_change_the_auctions():
    """``bid_worlds`` > 0 in Bid Euchre: the pimc seat's calls and trumps are its own, not the
    heuristic's, on some of the same cards (with 0 they are the heuristic's)."""
    from sim import bid_euchre

    rules = BidEuchreRules()
    auctions = []
    for spec in ("pimc:worlds=1,bid_worlds=8", "pimc:worlds=1", "heuristic"):
        seats = [parse_policy(spec, "bid-euchre")] + [parse_policy("heuristic", "bid-euchre")] * 3
        _, headers, _, trace = bid_euchre.trace_raw(rules, seats, 4, range(2))
        auctions.append({(int(h["game"]), int(h["dealer"]), h["hands"].tobytes()):
                         [tuple(r) for r in trace[h["actions_start"]:h["actions_end"]]
                          if r[0] in (ke.KIND_CALL, ke.KIND_TRUMP)] for h in headers})
    sampled, plain, heuristic = auctions
    same = plain.keys() & heuristic.keys()
    assert len(same) >= 5 and all(plain[k] == heuristic[k] for k in same)
    same = sampled.keys() & heuristic.keys()
    assert len(same) >= 5 and sum(sampled[k] != heuristic[k] for k in same) >= 2

# --- Reproducible runs ---------------------------------------------------------------------------

@pytest.mark.parametrize("game, games, last", [("bridgette", 6, "pimc:worlds=2"), ("draw-bridge", 6, "pimc:worlds=2"),
                                               ("bid-euchre", 4, "pimc:worlds=2"),
                                               ("bid-euchre", 3, "pimc:worlds=2,bid_worlds=3")])
def test_pimc_runs_are_the_same_for_any_threads_and_blocks(game, games, last):
    """Worlds come from the game's policy stream: 1 or 2 threads, one block or two, the same
    records."""
    info = game_info(game)
    rules = resolve_rules(game, None)
    seats = [parse_policy("pimc:worlds=4", game)] + [parse_policy("heuristic", game)] * (info.seats - 2) + \
        [parse_policy(last, game)]
    assert_same_on_threads_and_blocks(game_module(game).run_block, rules, seats, 21, games, [0, 2])


@pytest.mark.parametrize("game", ["bridgette", "bid-euchre"])
def test_games_sharing_a_threads_search_context_play_as_with_one_each(game, monkeypatch):
    """A thread's games share its search context and table (kernels.engine.game_context_nb):
    the records equal those of games played one per block, each with a fresh context, and
    those of a run given contexts for one thread on two (the second thread's games copy the
    spare)."""
    info = game_info(game)
    rules = resolve_rules(game, None)
    seats = [parse_policy("pimc:worlds=4", game)] + [parse_policy("heuristic", game)] * (info.seats - 2) + \
        [parse_policy("dd", game)]
    play = game_module(game).run_block
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        shared = play(rules, seats, 8, 0, 4)
        alone = [play(rules, seats, 8, g, 1) for g in range(4)]
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
        copied = play(rules, seats, 8, 0, 4)
    finally:
        monkeypatch.undo()
        numba.set_num_threads(before)
    for k in range(2):
        assert np.array_equal(shared[k], np.concatenate([a[k] for a in alone]))
        assert np.array_equal(shared[k], copied[k])


# --- The parameter ---------------------------------------------------------------------------

def test_worlds_and_bid_worlds_are_parameters_of_every_game():
    from sim.policies import parameters

    for game in ("bridgette", "draw-bridge", "bid-euchre"):
        own = ["worlds", "bid_worlds"] + (["keep"] if game == "bridgette" else [])
        names = [p for p, _, _ in parameters("pimc", game)]
        assert names == [p for p, _, _ in parameters("heuristic", game)] + own
        assert parse_policy("pimc", game).row().pimc.worlds == 16
        assert str(parse_policy("pimc:worlds=16", game)) == "pimc"
        assert str(parse_policy("pimc:worlds=8,aggression=0", game)) == "pimc:aggression=0,worlds=8"
    assert parse_policy("pimc", "bridgette").row().pimc.bid_worlds == 0
    assert str(parse_policy("pimc:bid_worlds=0", "draw-bridge")) == "pimc"
    assert str(parse_policy("pimc:bid_worlds=8", "draw-bridge")) == "pimc:bid_worlds=8"
    assert parse_policy("pimc:bid_worlds=4", "bid-euchre").row().pimc.bid_worlds == 4


def test_keep_is_bridgettes_and_on_by_default():
    """Only Bridgette's card play samples worlds that a later card can keep (Draw Bridge's
    unseen cards are the other hand; Bid Euchre draws afresh)."""
    assert parse_policy("pimc", "bridgette").row().pimc.keep == 1
    assert str(parse_policy("pimc:keep=0", "bridgette")) == "pimc:keep=0"
    for game in ("draw-bridge", "bid-euchre"):
        assert parse_policy("pimc", game).row().pimc.keep == 0
        with pytest.raises(PolicyError) as err:
            parse_policy("pimc:keep=1", game)
        assert "\n" not in str(err.value) and "keep" in str(err.value)
    for value, words in (("2", "keep must be 0 or 1"), ("0.5", "keep must be 0 or 1"), ("-1", "keep must be 0 or 1"),
                         ("nan", "keep must be a finite number")):
        with pytest.raises(PolicyError) as err:
            parse_policy(f"pimc:keep={value}", "bridgette")
        assert "\n" not in str(err.value) and words in str(err.value)


@pytest.mark.parametrize("value", ["-1", "2.5", "1e9", "nan"])
def test_bad_bid_worlds_are_refused_in_one_line(value):
    with pytest.raises(PolicyError) as err:
        parse_policy(f"pimc:bid_worlds={value}", "bridgette")
    assert "\n" not in str(err.value) and "bid_worlds" in str(err.value)


def test_bid_worlds_0_calls_as_the_heuristic():
    """``bid_worlds=0`` (the default): the pimc seat's calls are the heuristic's: every
    deal both games reach with the same cards has the same auction as with a heuristic in
    its seat."""
    from sim import bridgette

    rules = BridgetteRules()
    auctions = []
    for spec in ("pimc:worlds=1", "heuristic"):
        _, headers, _, trace = bridgette.trace_raw(rules, [parse_policy(spec, "bridgette"), parse_policy("heuristic")],
                                                   4, range(3))
        auctions.append({(int(h["game"]), h["hands"].tobytes(), h["stock"].tobytes()):
                         [tuple(r) for r in trace[h["actions_start"]:h["actions_end"]] if r[0] == KIND_CALL]
                         for h in headers})
    same = auctions[0].keys() & auctions[1].keys()
    assert len(same) >= 5 and all(auctions[0][k] == auctions[1][k] for k in same)


@pytest.mark.parametrize("value", ["0", "-3", "2.5", "1e9", "nan", "inf", "many"])
def test_bad_worlds_are_refused_in_one_line(value):
    with pytest.raises(PolicyError) as err:
        parse_policy(f"pimc:worlds={value}", "bridgette")
    assert "\n" not in str(err.value) and "worlds" in str(err.value)


def test_bad_worlds_exit_2_from_the_command_line():
    result = in_process("sim.run", "--games", "1", "--policy", "0=pimc:worlds=0")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "pimc:worlds must be a whole number" in result.stderr


# --- The benchmark -------------------------------------------------------------------------------

def test_the_pimc_benchmark_times_a_pimc_seat_in_every_game(monkeypatch, capsys):
    """benchmarks.pimc: a line per game with the pimc seat's rate, in the game's unit."""
    from benchmarks import pimc as bench

    monkeypatch.setattr(bench, "GAMES", dict.fromkeys(bench.GAMES, 2))
    bench.main(["--worlds", "1", "--repeats", "1", "--threads", "1"])
    lines = capsys.readouterr().out.splitlines()
    for game, unit in (("bridgette", "deals/s"), ("draw-bridge", "deals/s"), ("bid-euchre", "hands/s")):
        line = next(line for line in lines if line.startswith(f"{game} "))
        rate, shown_unit = line.split(": ")[1].split()
        assert float(rate.replace(",", "")) > 0 and shown_unit == unit


def test_the_benchmarks_play_the_default_policies_of_each_game():
    """benchmarks.throughput and benchmarks.pimc time the policies a run plays: each game's
    default heuristic, not the neutral parameters of a policy parsed without a game."""
    from benchmarks import pimc as pimc_bench
    from benchmarks import throughput
    from sim.policies import parse_policy

    for game in ("bridgette", "draw-bridge", "bid-euchre"):
        heuristic = parse_policy("heuristic", game)
        seats = len(throughput.lineup(game, "heuristic"))
        assert throughput.lineup(game, "heuristic") == [heuristic] * seats
        assert throughput.lineup(game, "random") == [parse_policy("random", game)] * seats
        assert pimc_bench.lineup(game, 4) == [parse_policy("pimc:worlds=4", game)] + [heuristic] * (seats - 1)
    # What a policy parsed without a game would have timed: not Draw Bridge's defaults.
    assert parse_policy("heuristic").kernel_params() != parse_policy("heuristic", "draw-bridge").kernel_params()
