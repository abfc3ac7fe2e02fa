"""The double-dummy solvers (kernels/dd/ through sim/dd.py) against the plain minimax
reference (sim/reference/dd.py, written from docs/rules.md alone) on random endings of
every game, and the solvers' own consistency:

* tricks and every legal card's value agree with the reference (B-7..B-10 with every Colon
  and bar state and both ``play.colon_discard`` readings, D-4 without Colons, E-2 bowers,
  the E-10 joker and double deck, E-6 lone hands; mid-trick positions in all);
* each technique switched off alone gives the same values (kernels.dd.USE_*);
* the contract search's soft-fail bound lies on the right side of the true value;
* the two sides' values add up to the tricks left, and playing out the solver's own best
  cards for every seat takes exactly the value it promised;
* the bit-parallel steps (pext, the occluded fill of equivalent cards, the table key) equal
  their one-card-at-a-time definitions, and positions that share a key have one value.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from kernels import dd
from kernels.cards import (
    CARD_IDS, EUCHRE_EFF_SUIT, EUCHRE_JOKER, card_name, compress_nb, compress_table_nb, euchre_card_name,
)
from kernels.tricks import follow_legal_nb, lead_legal_nb, trick_nb
from sim import dd as sdd
from sim.reference import dd as ref

SUITS = "CDHS"
# Random endings per game against the reference: a few thousand here, ten times more in
# make test-all (other endings: the seed depends on the count).
ENDINGS = [4_000, pytest.param(40_000, marks=pytest.mark.slow)]


def contract_ending(rng: random.Random, max_tricks: int = 5, colons: bool = True):
    """A random two-hand position: up to ``max_tricks`` tricks left, any Colons (none:
    Draw Bridge's contract phase), any strain, a bar at a trick boundary or a card led."""
    colons = rng.sample([52, 53, 54], rng.randint(0, 3)) if colons else []
    deck = list(range(52)) + colons
    k = rng.randint(1, max_tricks)
    cards = rng.sample(deck, 2 * k)
    hands = [cards[:k], cards[k:]]
    trump = rng.randint(-1, 3)
    to_move = rng.randint(0, 1)
    when_void = rng.random() < 0.5
    lead, barred = -1, -1
    if rng.random() < 0.5:  # mid-trick: the other seat has led
        leader = 1 - to_move
        lead = rng.choice(hands[leader])
        hands[leader].remove(lead)
    elif rng.random() < 0.5:
        barred = rng.randint(0, 3)
    return hands, trump, to_move, lead, barred, when_void


def reference_contract(hands, trump, to_move, lead, barred, when_void):
    names = ([card_name(c) for c in hands[0]], [card_name(c) for c in hands[1]])
    args = dict(trump=None if trump < 0 else SUITS[trump], to_move=to_move,
                trick=(card_name(lead),) if lead >= 0 else (), barred=None if barred < 0 else SUITS[barred],
                colon_discard="when_void" if when_void else "last_resort")
    return ref.contract_tricks(names, **args), ref.contract_card_values(names, **args)


@pytest.mark.parametrize("endings", ENDINGS)
@pytest.mark.parametrize("game", ["bridgette", "draw_bridge"])
def test_contract_solver_agrees_with_reference_minimax(game, endings):
    rng = random.Random((2026 if game == "bridgette" else 2028) + endings)
    solver = sdd.Solver()
    for _ in range(endings):
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng, colons=game == "bridgette")
        want, want_values = reference_contract(hands, trump, to_move, lead, barred, when_void)
        got = solver.contract_tricks(hands, trump, to_move, lead, barred, when_void)
        values = solver.contract_card_values(hands, trump, to_move, lead, barred, when_void)
        assert (got, {card_name(c): v for c, v in values.items()}) == (want, want_values), \
            (hands, trump, to_move, lead, barred, when_void)


@njit
def _contract_bound(tt, ctx_arr, leader, lead, barred, side, target):
    ctx = ctx_arr[0]
    dd.renew_nb(ctx, dd.contract_rules_nb(ctx.trump, ctx.when_void))
    return dd.contract_search_nb(tt, ctx, leader, lead, barred, side, target)


def test_contract_search_bound_holds():
    """Asked whether the side to move takes ``target`` tricks, the contract search answers
    with a bound: at least ``target`` exactly when the reference value is, a lower bound on
    that value then and an upper bound otherwise, within the tricks left. Searches share
    the table, so bounds stored by earlier ones are read back. Some bounds must be tighter
    than the target (else the search is not failing soft)."""
    rng = random.Random(2030)
    solver = sdd.Solver()
    beyond = 0
    for _ in range(2_000):
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng)
        want, _ = reference_contract(hands, trump, to_move, lead, barred, when_void)
        solver._contract(hands, trump, when_void, to_move, lead, barred)
        n = len(hands[to_move])
        leader = to_move if lead < 0 else 1 - to_move
        for target in range(n + 2):
            bound = _contract_bound(solver.table, solver.ctx, leader, lead, barred, to_move, target)
            case = (hands, trump, to_move, lead, barred, when_void, target, bound, want)
            assert 0 <= bound <= n, case
            assert (bound >= target) == (want >= target), case
            assert want >= bound if bound >= target else want <= bound, case
            beyond += bound > target or bound < target - 1
    assert beyond > 1_000


def test_later_tricks_are_a_lower_bound_whoever_leads():
    """``later_tricks_nb`` never exceeds the reference minimax's tricks of its hand, with
    that hand or the other to lead, in every strain, with and without Colons (with one in
    play it counts only the top trumps). Many positions without Colons have hands that hold
    a suit's top cards against the other's cards of it; there the side-suit count must
    add to the top trumps, and sometimes reach the value."""
    def bound(hand, other, trump):
        return dd.later_tricks_nb(np.uint64(sum(1 << CARD_IDS[c] for c in hand.split())),
                                  np.uint64(sum(1 << CARD_IDS[c] for c in other.split())), trump)

    # By hand, no-trump: the AS is a trick when the other hand holds a spade it must play
    # onto it; else it leads its diamonds, and the AS is discarded on the second.
    assert bound("AS 2D", "KS 3D", -1) == 1
    assert bound("AS 2D", "AD KD", -1) == 0
    # Spades trumps, hearts led: the 2S ruffs but is below the other's 3S; the AH stands.
    assert bound("2S AH KH", "3S QH 2H", 3) == 2
    rng = random.Random(2031)
    beyond_trumps = reached = 0
    for _ in range(600):
        deck = list(range(52)) + (rng.sample([52, 53, 54], rng.randint(1, 3)) if rng.random() < 0.3 else [])
        k = rng.randint(1, 5)
        cards = rng.sample(deck, 2 * k)
        hands, trump, when_void = [cards[:k], cards[k:]], rng.randint(-1, 3), rng.random() < 0.5
        masks = [sum(1 << c for c in h) for h in hands]
        names = ([card_name(c) for c in hands[0]], [card_name(c) for c in hands[1]])
        bound = dd.later_tricks_nb(np.uint64(masks[0]), np.uint64(masks[1]), trump)
        trumps = int(dd.top_run_nb(np.uint64(masks[0]), np.uint64(masks[1]),
                                   np.uint64(0x1FFF << (13 * trump)) if trump >= 0 else np.uint64(0)))
        for to_move in (0, 1):
            tricks = ref.contract_tricks(names, trump=None if trump < 0 else SUITS[trump], to_move=to_move,
                                         colon_discard="when_void" if when_void else "last_resort")
            mine = tricks if to_move == 0 else len(hands[0]) - tricks
            assert bound <= mine, (hands, trump, to_move, bound, mine)
            reached += bound == mine and bound > trumps
        if any(c >= 52 for h in hands for c in h):
            assert bound == trumps, (hands, trump)
        beyond_trumps += bound > trumps
    assert beyond_trumps > 120 and reached > 100, (beyond_trumps, reached)


def test_quick_tricks_are_a_lower_bound_for_the_leader():
    """``quick_tricks_nb`` never exceeds the reference minimax's tricks of the hand on lead,
    in every strain, with any bar and any Colons. A suit whose winners are at least as many
    as the other's cards of it, and none of whose cards a Colon of the other can block,
    runs to its length, and trumps so run are drawn first; those counts must go beyond the
    winners alone, and sometimes reach the value."""
    def bound(hand, other, trump, barred=-1):
        return dd.quick_tricks_nb(np.uint64(sum(1 << CARD_IDS[c] for c in hand.split())),
                                  np.uint64(sum(1 << CARD_IDS[c] for c in other.split())), trump, barred)

    # By hand, no-trump: the AS and KS draw the QS and JS, and the 3S and 2S then stand.
    assert bound("AS KS 3S 2S", "QS JS 5H 4H", -1) == 4
    # Spades trumps: the AS and KS draw the other's trumps, and the hearts it lacks stand.
    assert bound("AS KS 3H 2H", "QS JS 5D 4D", 3) == 4
    # The other's JS outnumbers the leader's top trump: no draw, and its hearts are ruffed.
    assert bound("AS 2S 3H 2H", "KS JS 5D 4D", 3) == 1
    # The Grand Colon blocks only aces (B-8): the spades still run. The Royal Colon can block
    # the KS or QS, and bar the suit: only the winners, and of them the first, are sure.
    assert bound("KS QS 3S 2S", "JS TS CG 5H", -1) == 4
    assert bound("KS QS 3S 2S", "JS TS CR 5H", -1) == 1
    # Barred from spades, the leader must first lead a heart, which loses: nothing is sure.
    assert bound("AS KS 3S 2H", "QS JS 5H 4H", -1, barred=3) == 0
    rng = random.Random(2032)
    beyond_winners = reached = 0
    for _ in range(1_500):
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng)
        if lead >= 0:  # back to the trick's start
            hands[1 - to_move].append(lead)
        names = ([card_name(c) for c in hands[0]], [card_name(c) for c in hands[1]])
        masks = [np.uint64(sum(1 << c for c in h)) for h in hands]
        quick = dd.quick_tricks_nb(masks[0], masks[1], trump, barred)
        tricks = ref.contract_tricks(names, trump=None if trump < 0 else SUITS[trump], to_move=0,
                                     barred=None if barred < 0 else SUITS[barred],
                                     colon_discard="when_void" if when_void else "last_resort")
        assert 0 <= quick <= tricks, (hands, trump, barred, when_void, quick, tricks)
        winners = sum(bin(int(masks[0]) & (0x1FFF << 13 * s) & int(dd.above_nb(
            np.uint64(int(masks[1]) & (0x1FFF << 13 * s))))).count("1") for s in range(4))
        beyond_winners += quick > winners
        reached += quick > winners and quick == tricks
    assert beyond_winners > 50 and reached > 50, (beyond_winners, reached)


def euchre_ending(rng: random.Random, max_tricks: int = 4):
    """A random Bid Euchre position: any variant deck, a lone hand or not, any trump, a
    trick in progress with 0 to 3 cards played by the follow rule."""
    double, joker = rng.random() < 0.3, rng.random() < 0.5
    deck = list(range(48 if double else 24)) + ([EUCHRE_JOKER] if joker else [])
    out_seat = rng.choice([-1, -1, 0, 1, 2, 3])
    active = [s for s in range(4) if s != out_seat]
    k = rng.randint(1, max_tricks)
    cards = rng.sample(deck, k * len(active))
    hands = [[] for _ in range(4)]
    for i, s in enumerate(active):
        hands[s] = cards[i * k:(i + 1) * k]
    trump = rng.randint(0, 3)
    leader = rng.choice(active)
    trick = []
    seat = leader
    for _ in range(rng.randint(0, len(active) - 1)):
        legal = [c for c in hands[seat] if not trick or _euchre_follows(c, trick[0][1], hands[seat], trump)]
        card = rng.choice(legal)
        hands[seat].remove(card)
        trick.append((seat, card))
        seat = (seat + 1) % 4 if (seat + 1) % 4 != out_seat else (seat + 2) % 4
    return hands, trump, seat, trick, out_seat, double, joker


def _euchre_follows(card, lead, hand, trump):
    led = EUCHRE_EFF_SUIT[trump, lead]
    return EUCHRE_EFF_SUIT[trump, card] == led or all(EUCHRE_EFF_SUIT[trump, c] != led for c in hand)


@pytest.mark.parametrize("endings", ENDINGS)
def test_euchre_solver_agrees_with_reference_minimax(endings):
    rng = random.Random(2027 + endings)
    solver = sdd.Solver()
    for _ in range(endings):
        hands, trump, to_move, trick, out_seat, double, joker = euchre_ending(rng)
        names = [[euchre_card_name(c % 24 if c < 48 else c) for c in h] for h in hands]
        args = dict(trump=SUITS[trump], to_move=to_move,
                    trick=tuple((s, euchre_card_name(c % 24 if c < 48 else c)) for s, c in trick),
                    out_seat=None if out_seat < 0 else out_seat)
        want = ref.euchre_tricks(names, **args), ref.euchre_card_values(names, **args)
        kw = dict(out_seat=out_seat, double_deck=double, joker=joker)
        got = solver.euchre_tricks(hands, trump, to_move, trick, **kw)
        values = solver.euchre_card_values(hands, trump, to_move, trick, **kw)
        assert (got, {euchre_card_name(c): v for c, v in values.items()}) == want, (hands, trump, to_move, trick, kw)


@pytest.mark.parametrize("off", [dd.USE_TT, dd.USE_EQUIV, dd.USE_ORDER, dd.USE_BOUNDS])
def test_each_technique_leaves_values_unchanged(off):
    rng = random.Random(off)
    full, without = sdd.Solver(), sdd.Solver(flags=dd.ALL_TECHNIQUES & ~off)
    for _ in range(300):
        ending = contract_ending(rng, max_tricks=8)
        assert full.contract_card_values(*ending) == without.contract_card_values(*ending)
        hands, trump, to_move, trick, out_seat, double, joker = euchre_ending(rng, max_tricks=5)
        kw = dict(out_seat=out_seat, double_deck=double, joker=joker)
        assert full.euchre_card_values(hands, trump, to_move, trick, **kw) == \
            without.euchre_card_values(hands, trump, to_move, trick, **kw)


def test_sides_add_up_and_best_play_reaches_the_value():
    """Playing the solver's best card at every turn, for both seats, takes exactly the
    tricks it promised; at every card the side to move and the other side's values add up
    to the tricks left."""
    rng = random.Random(7)
    solver = sdd.Solver()
    checked = 0
    for _ in range(200):
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng, max_tricks=9)
        if lead >= 0:
            continue
        value = solver.contract_tricks(hands, trump, to_move, -1, barred, when_void)
        leader, taken, promised = to_move, 0, value
        while hands[leader]:
            n = len(hands[leader])
            v = solver.contract_card_values(hands, trump, leader, -1, barred, when_void)
            lead = max(v, key=v.get)
            hands[leader].remove(lead)
            follower = 1 - leader
            assert solver.contract_tricks(hands, trump, follower, lead, -1, when_void) == n - v[lead]
            v = solver.contract_card_values(hands, trump, follower, lead, -1, when_void)
            follow = max(v, key=v.get)
            hands[follower].remove(follow)
            leader_wins, barred = trick_nb(lead, follow, trump)
            leader = leader if leader_wins else follower
            taken += leader == to_move
        assert taken == promised
        checked += 1
    assert checked > 50


def test_legal_sets_match_the_play_rules():
    """The solver's card values cover exactly the legal cards of kernels.tricks."""
    rng = random.Random(11)
    solver = sdd.Solver()
    for _ in range(300):
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng, max_tricks=6)
        mask = sum(1 << c for c in hands[to_move])
        legal = lead_legal_nb(mask, barred) if lead < 0 else follow_legal_nb(mask, lead, when_void)
        values = solver.contract_card_values(hands, trump, to_move, lead, barred, when_void)
        assert set(values) == {c for c in range(55) if int(legal) >> c & 1}


def test_a_lone_bidders_partner_holds_cards_that_take_no_part():
    """E-6: the seat that sits out plays no cards, so what it still holds changes nothing."""
    rng = random.Random(13)
    solver = sdd.Solver()
    for _ in range(200):
        deck = rng.sample(range(24), 24)
        hands = [deck[6 * s:6 * s + 6] for s in range(4)]
        out_seat, trump, leader = rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 3)
        if leader == out_seat:
            continue
        emptied = [h if s != out_seat else [] for s, h in enumerate(hands)]
        assert solver.euchre_tricks(hands, trump, leader, out_seat=out_seat) == \
            solver.euchre_tricks(emptied, trump, leader, out_seat=out_seat)


# --- The bit-parallel steps against their one-card-at-a-time definitions -------------------

def _bits(x: int) -> list[int]:
    return [b for b in range(64) if x >> b & 1]


def _plain_compress(x: int, mask: int) -> int:
    """pext by its definition: the bits of ``x`` under ``mask``, moved down in order."""
    return sum((x >> b & 1) << k for k, b in enumerate(_bits(mask)))


def _plain_representatives(legal: int, hand: int, in_play: int, segments) -> int:
    """A card of ``legal`` is dropped when the next card in play above it in its segment
    is in ``hand``; a card outside every segment (a Colon) is kept."""
    keep = legal
    for c in _bits(legal):
        seg = next((int(s) for s in segments if int(s) >> c & 1), 0)
        above = [b for b in _bits(seg & in_play) if b > c]
        if above and hand >> above[0] & 1:
            keep &= ~(1 << c)
    return keep


def _live_segments(in_play: int):
    return dd.CONTRACT_SEGS[in_play >> 52 & 7]


def _random_two_hands(rng: random.Random):
    k = rng.randint(1, 13)
    cards = rng.sample(range(55), 2 * k)
    return sum(1 << c for c in cards[:k]), sum(1 << c for c in cards[k:])


@pytest.mark.parametrize("compress", [compress_nb, compress_table_nb])
def test_compress_moves_the_masked_bits_down_in_order(compress):
    """Both ways, pext where the machine has a fast one and the nibble table."""
    rng = random.Random(17)
    for i in range(3000):
        x, mask = rng.getrandbits(64), rng.getrandbits(64)
        mask = (mask, mask & rng.getrandbits(64), mask | rng.getrandbits(64))[i % 3]  # any, sparse, dense
        assert int(compress(np.uint64(x), np.uint64(mask))) == _plain_compress(x, mask)


def test_equivalent_cards_match_their_definition():
    """The occluded fill finds the same runs as walking each card to the next card in play
    above it: contract segments with every set of Colons in play, a card led (in play, in
    neither hand), and Bid Euchre's single-deck layouts with and without the joker."""
    rng = random.Random(19)
    for _ in range(3000):
        h0, h1 = _random_two_hands(rng)
        lead = 1 << rng.choice([c for c in range(55) if not (h0 | h1) >> c & 1]) if rng.random() < 0.5 else 0
        in_play = h0 | h1 | lead
        for hand in (h0, h1):
            legal = hand & rng.getrandbits(55) | (hand & -hand)
            got = dd.contract_representatives_nb(np.uint64(legal), np.uint64(hand), np.uint64(in_play),
                                                 np.uint64(in_play))
            assert int(got) == _plain_representatives(legal, hand, in_play, _live_segments(in_play))
    for joker in (False, True):
        for trump in range(4):
            to_layout, _, segs, _, _, group = dd.euchre_layout(trump, False, joker)
            layout_bits = [int(b) for b in to_layout if b >= 0]
            for _ in range(300):
                cards = rng.sample(layout_bits, rng.randint(2, len(layout_bits)))
                in_play = sum(1 << b for b in cards)
                hand = sum(1 << b for b in cards[:len(cards) // 2])
                got = dd.euchre_representatives_nb(np.uint64(hand), np.uint64(hand), np.uint64(in_play), segs, group,
                                                   False)
                assert int(got) == _plain_representatives(hand, hand, in_play, segs)


SUIT_SEGMENTS = [((1 << 13) - 1) << (13 * s) for s in range(4)]


def _rank_class(card: int) -> int:
    """B-1: 0 for 2-10, 1 for J-K, 2 for an ace (the Little, Royal and Grand ranges)."""
    rank = card % 13
    return 0 if rank < 9 else 1 if rank < 12 else 2


def _alike(leader_hand: int, follower_hand: int):
    """A trick boundary as play can tell it apart: per suit, the cards in play from the
    lowest as (owner: 0 leader, 1 follower; the card's class where the other hand holds
    the Colon of that range, else None: B-8..B-10 read a class only there), and each
    seat's Colons."""
    hands = (leader_hand, follower_hand)
    suits = []
    for seg in SUIT_SEGMENTS:
        row = []
        for c in _bits(seg & (leader_hand | follower_hand)):
            owner = 0 if leader_hand >> c & 1 else 1
            read = hands[1 - owner] >> (52 + _rank_class(c)) & 1
            row.append((owner, _rank_class(c) if read else None))
        suits.append(tuple(row))
    return tuple(suits), leader_hand >> 52, follower_hand >> 52


def _moved(rng: random.Random, leader_hand: int, follower_hand: int, segments):
    """The position with each segment's cards in play moved to other ranks of the segment,
    their order kept."""
    in_play = leader_hand | follower_hand
    new = [leader_hand & ~((1 << 52) - 1), follower_hand & ~((1 << 52) - 1)]
    for seg in segments:
        held = _bits(int(seg) & in_play)
        for old, b in zip(held, sorted(rng.sample(_bits(int(seg)), len(held)))):
            new[0 if leader_hand >> old & 1 else 1] |= 1 << b
    return new[0], new[1]


def _classes_moved(a: tuple, b: tuple) -> bool:
    """Whether some card in play has another class in ``b`` than in ``a`` while a Colon is
    in play: positions a key cut at every live Colon's ranges would keep apart."""
    if not (a[0] | a[1] | b[0] | b[1]) >> 52:
        return False
    return any([_rank_class(c) for c in _bits(seg & (a[0] | a[1]))] !=
               [_rank_class(c) for c in _bits(seg & (b[0] | b[1]))] for seg in SUIT_SEGMENTS)


def test_table_keys_are_equal_exactly_when_positions_are_alike():
    """Cards moved within their suits keep the key exactly when the position stays alike
    (``_alike``), moved within the classes of the Colons in play always; and positions
    sharing a key are alike."""
    rng = random.Random(23)

    def key(h0, h1):
        return tuple(int(k) for k in dd.contract_key_nb(np.uint64(h0), np.uint64(h1), np.uint64(h0 | h1)))

    by_key = {}
    kept = parted = 0
    for _ in range(3000):
        h0, h1 = _random_two_hands(rng)
        if rng.random() < 0.3:  # few cards: positions that share relative ranks come up
            h0 &= rng.getrandbits(55) | (1 << 52)
        assert key(*_moved(rng, h0, h1, _live_segments(h0 | h1))) == key(h0, h1)
        moved = _moved(rng, h0, h1, SUIT_SEGMENTS)
        same = _alike(*moved) == _alike(h0, h1)
        assert (key(*moved) == key(h0, h1)) == same
        kept += same and _classes_moved((h0, h1), moved)
        parted += not same
        by_key.setdefault(key(h0, h1), set()).add(_alike(h0, h1))
    assert all(len(alike) == 1 for alike in by_key.values())
    assert len(by_key) > 2500 and kept > 100 and parted > 100


def test_positions_alike_have_equal_values():
    """What the table key leaves out cannot change a value: the reference minimax gives
    alike positions (``_alike``) the same tricks, among them many whose cards in play
    changed class while a Colon was in play, where no Colon of the other hand reads it."""
    rng = random.Random(29)
    checked = classes_moved = 0
    while checked < 3000:
        hands, trump, to_move, lead, barred, when_void = contract_ending(rng)
        if lead >= 0:
            continue
        mine, other = (sum(1 << c for c in hand) for hand in (hands[to_move], hands[1 - to_move]))
        moved = _moved(rng, mine, other, SUIT_SEGMENTS)
        if _alike(*moved) != _alike(mine, other):
            continue
        again = [None, None]
        again[to_move], again[1 - to_move] = _bits(moved[0]), _bits(moved[1])
        assert reference_contract(again, trump, to_move, -1, barred, when_void)[0] == \
            reference_contract(hands, trump, to_move, -1, barred, when_void)[0], (hands, again, trump, barred)
        checked += 1
        classes_moved += _classes_moved((mine, other), moved)
    assert classes_moved > 100


@pytest.mark.parametrize("call, words", [
    (lambda s: s.euchre_tricks(([5, 11], [4, 10], [3, 9], [2, 8]), 0, 10**7),
     "to_move must be a whole number from 0 to 3"),
    (lambda s: s.contract_tricks(([12, 25, 38], [11, 24, 37]), -1, 0, barred=10**6), "barred must be"),
    (lambda s: s.contract_tricks(([12, 25, 38], [11, 24, 37]), 10**6, 0), "trump must be a whole number from -1 to 3"),
    (lambda s: s.euchre_card_values(([5, 11], [4, 10], [3, 9], [2, 8]), 100, 0), "trump must be a whole number from 0"),
    (lambda s: s.euchre_tricks(([11], [4, 10], [3, 9], [2, 8]), 0, 1, trick=[(0, 10000)]), "a trick's card must be"),
    (lambda s: s.contract_tricks(([12, 25, 38], [12, 24, 37]), -1, 0), "card 12 is held twice"),
    (lambda s: s.contract_tricks(([12, 25], [11, 24, 37]), -1, 0), "unequal numbers of cards"),
    (lambda s: s.contract_tricks(([12, 64], [11, 24]), -1, 0), "a card of hand 0 must be a whole number from 0 to 54"),
    (lambda s: s.contract_tricks(([12, 25],), -1, 0), "hands must be 2 lists of card ids"),
    (lambda s: s.euchre_tricks(([5, 48], [4, 10], [3, 9], [2, 8]), 0, 0), "must be a whole number from 0 to 23"),
    (lambda s: s.euchre_tricks(([5], [4, 10], [3, 9], [2, 8]), 0, 1, trick=[(0, 5)]), "still in a hand"),
    (lambda s: s.euchre_tricks(([0, 1, 4], [2], [6, 7], [8, 9, 10, 11]), 0, 0), "unequal numbers of cards"),
    (lambda s: s.euchre_tricks(([11], [4, 10], [3, 9], [2, 8]), 0, 2, trick=[(0, 5)]), "the seats play in turn"),
    (lambda s: s.euchre_tricks(([11], [4], [3, 9], [2, 8]), 0, 2, trick=[(0, 5), (0, 10)]), "play in turn"),
    (lambda s: s.euchre_tricks(([11], [4], [3, 9], [2, 8, 7]), 0, 3, trick=[(0, 5), (1, 10)], out_seat=2),
     "unequal numbers of cards"),
    (lambda s: s.euchre_tricks(([5, 11], [4, 10], [3, 9], [2, 8]), 0, 2, out_seat=2), "seat 2 is set aside"),
    (lambda s: s.euchre_tricks(([11], [4, 10], [3], [2, 8]), 0, 3, trick=[(2, 9)], out_seat=2), "set aside"),
])
def test_a_position_the_solver_cannot_take_is_named_before_any_search(call, words):
    """Out-of-range seats, strains, cards or trick entries reached the search unchecked and
    could crash the interpreter (a search reading memory it never set); a card held twice
    or hands of unequal size gave numbers for impossible positions. Each is a PositionError
    (a ValueError) naming the argument."""
    from sim.dd import PositionError

    with pytest.raises(PositionError, match=words):
        call(sdd.Solver())


def test_a_solver_refuses_a_table_flags_or_switches_it_cannot_use():
    """A table of 0 or 1 entries crashed the interpreter at the first solve (the search
    masks its index with the size minus 2), one of another type failed after 20 s of numba
    typing, and the text "no" was read as a true switch. Each is named before any search."""
    from kernels.dd.context import new_table

    for kwargs, error, words in (({"table": new_table(0)}, ValueError, "table must hold 2\\*\\*bits entries"),
                                 ({"table": new_table(4)[::2]}, ValueError, "in one piece"),
                                 ({"table": np.zeros(8)}, TypeError, "an array of float64"),
                                 ({"table": None}, TypeError, "got None"),
                                 ({"flags": 2**70}, ValueError, "only the bits"),
                                 ({"flags": "x"}, TypeError, "flags must be a whole number")):
        with pytest.raises(error, match=words):
            sdd.Solver(**kwargs)
    assert sdd.Solver(flags=np.uint64(dd.ALL_TECHNIQUES)).flags == dd.ALL_TECHNIQUES  # numpy's types are whole too
    small = sdd.Solver(table=new_table(1))  # the smallest table works: one bucket of two entries
    assert small.contract_tricks(([0, 1, 14], [2, 15, 16]), 0, 0) == sdd.Solver().contract_tricks(
        ([0, 1, 14], [2, 15, 16]), 0, 0)
    s = sdd.Solver()
    for call, name in ((lambda: s.contract_tricks(([0], [1]), 0, 0, when_void="no"), "when_void"),
                       (lambda: s.euchre_tricks(([0], [1], [2], [3]), 0, 0, double_deck="no"), "double_deck"),
                       (lambda: s.euchre_tricks(([0], [1], [2], [3]), 0, 0, joker=1), "joker")):
        with pytest.raises(TypeError, match=f"{name} must be True or False"):
            call()
    with pytest.raises(TypeError, match="solver must be a sim.dd.Solver"):  # before: an AttributeError
        sdd.contract_table(None, ([0], [1]))


def test_the_hand_set_aside_may_repeat_a_card_and_changes_nothing():
    """The partner of a lone bidder (out_seat) is set aside: a card it still holds after the
    exchange (the one it passed) is no card held twice, and the value is the one with its
    hand empty."""
    hands = ([0, 6, 12], [1, 7, 13], [0, 8, 14], [3, 9, 15])  # seat 2 sits out, holding card 0 too
    s = sdd.Solver()
    assert s.euchre_tricks(hands, 0, 0, out_seat=2) == s.euchre_tricks((hands[0], hands[1], [], hands[3]), 0, 0,
                                                                         out_seat=2)
    from sim.dd import PositionError

    with pytest.raises(PositionError, match="card 0 is held twice"):
        s.euchre_tricks(hands, 0, 0)


def _double_deck_alike(hands, layout_power, segs):
    """A double-deck trick boundary as play can tell it apart: per effective suit, its
    cards with a copy in play from the lowest power, each as the copies every hand holds."""
    suits = []
    for seg in segs:
        powers = sorted({int(layout_power[b]) for h in hands for b in _bits(h & int(seg))})
        suits.append(tuple(tuple(sum(1 for b in _bits(h & int(seg)) if layout_power[b] == p) for h in hands)
                           for p in powers))
    return tuple(suits)


def test_double_deck_keys_are_equal_exactly_when_positions_are_alike():
    """The double deck's relative-rank key: copies moved to other cards of their effective
    suit, the order of the cards kept, share the key exactly when each hand still holds the
    same copies of each card in play (``_double_deck_alike``); a card whose copies are
    both gone orders nothing."""
    rng = random.Random(31)
    by_key, kept, parted = {}, 0, 0
    for _ in range(2000):
        joker, trump = rng.random() < 0.5, rng.randint(0, 3)
        _, _, segs, _, power, group = dd.euchre_layout(trump, True, joker)
        pairs = sorted({int(group[b]) for b in range(64) if group[b]})  # one per card (the joker alone)
        k = rng.randint(1, 12)
        held = rng.sample([b for p in pairs for b in _bits(p)], 4 * k)
        hands = [sum(1 << b for b in held[s * k:(s + 1) * k]) for s in range(4)]

        def key(hs):
            h = np.array(hs, dtype=np.uint64)
            return tuple(int(x) for x in dd.double_deck_key_nb(h, np.uint64(hs[0] | hs[1] | hs[2] | hs[3]), segs))

        moved = [0, 0, 0, 0]  # each suit's cards in play onto other cards of the suit, in order
        for seg in segs:
            cards = [p for p in pairs if p & int(seg) and p & (hands[0] | hands[1] | hands[2] | hands[3])]
            places = [p for p in pairs if p & int(seg)]
            for old, new in zip(cards, sorted(rng.sample(places, len(cards)), key=lambda p: p.bit_length())):
                if rng.random() < 0.2:  # a copy handed to another seat: the position may change
                    new = rng.choice(places)
                copies = [s for s in range(4) for b in _bits(old) if hands[s] >> b & 1]
                for s, b in zip(copies, _bits(new)):
                    moved[s] |= 1 << b
        if sum(bin(h).count("1") for h in moved) != 4 * k:
            continue  # two old cards landed on one: not a position of 4k cards
        same = _double_deck_alike(moved, power, segs) == _double_deck_alike(hands, power, segs)
        assert (key(moved) == key(hands)) == same, (hands, moved)
        kept += same
        parted += not same
        by_key.setdefault(key(hands), set()).add(_double_deck_alike(hands, power, segs))
    assert all(len(alike) == 1 for alike in by_key.values())
    assert kept > 300 and parted > 100, (kept, parted)


def test_sure_trumps_bound_both_teams_in_either_deck():
    """A trump above every trump of the other team (in the double deck above both copies of
    its highest) takes a trick for its team: each team takes at least the sure trumps of
    either of its hands, and at most what the other team's leave, against the reference
    minimax at trick boundaries of every variant deck (lone hands included)."""
    rng = random.Random(37)
    reached = 0
    for _ in range(3000):
        hands, trump, leader, trick, out_seat, double, joker = euchre_ending(rng)
        if trick:
            continue  # the bounds hold at trick boundaries
        to_layout, _, segs, _, _, _ = dd.euchre_layout(trump, double, joker)
        masks = np.array([sum(1 << int(to_layout[c]) for c in h) for h in hands], dtype=np.uint64)
        sure = dd.sure_trumps_nb(masks, segs[0], double)
        names = [[euchre_card_name(c % 24 if c < 48 else c) for c in h] for h in hands]
        tricks = ref.euchre_tricks(names, trump=SUITS[trump], to_move=leader,
                                   out_seat=None if out_seat < 0 else out_seat)
        n = len(hands[leader])
        team = (tricks, n - tricks) if leader % 2 == 0 else (n - tricks, tricks)
        assert sure[0] <= team[0] and sure[1] <= team[1], (hands, trump, out_seat, double, sure, team)
        reached += double and (sure[0] == team[0] > 0 or sure[1] == team[1] > 0)
    assert reached > 50, reached
