"""Bid Euchre's solver layout (E-2): per trump, each effective suit a run of bits in power
order, trump first, so that following suit, the trick winner, equivalent cards and
relative ranks are the contract game's bit operations; loading a context with a deal in
that layout, and the position after a card."""

import numpy as np
from numba import njit

from kernels.cards import EUCHRE_BITS, EUCHRE_EFF_SUIT, EUCHRE_JOKER, EUCHRE_POWER, ONE, ZERO, bit_nb, lowest_nb
from kernels.dd.context import euchre_rules_nb, renew_nb


PAIR_LOWS = np.uint64(0x5555555555555555)  # the first bit of each double-deck pair (``euchre_layout``)


def euchre_layout(trump: int, double_deck: bool, joker: bool):
    """The solver layout for one trump suit (E-2): (to_layout[card], from_layout[bit],
    segs[effective suit], seg_of[bit], power[bit], group[bit]). Each effective suit is a run of bits in
    power order, trump the first (suit 0 of the layout); the double deck's two copies of a
    card sit side by side in a pair (``group``: the pair's bits), every pair starting at an
    even bit, so that copies are told apart only by the order they are played in."""
    copies = 2 if double_deck else 1
    cards = [c + 24 * k for k in range(copies) for c in range(24)] + ([EUCHRE_JOKER] if joker else [])
    suits = [trump] + [s for s in range(4) if s != trump]
    to_layout = np.full(EUCHRE_BITS, -1, dtype=np.int64)
    from_layout = np.full(64, -1, dtype=np.int64)
    segs = np.zeros(4, dtype=np.uint64)
    seg_of = np.zeros(64, dtype=np.int64)
    power = np.zeros(64, dtype=np.int64)
    group = np.zeros(64, dtype=np.uint64)
    bit = 0
    for k, suit in enumerate(suits):
        members = sorted((c for c in cards if EUCHRE_EFF_SUIT[trump, c] == suit), key=lambda c: EUCHRE_POWER[trump, c])
        powers = sorted({int(EUCHRE_POWER[trump, c]) for c in members})
        for p in powers:
            same = [c for c in members if EUCHRE_POWER[trump, c] == p]
            start = bit
            for c in same:
                to_layout[c] = bit
                from_layout[bit] = c
                power[bit] = p
                seg_of[bit] = k
                bit += 1
            pair = sum(1 << b for b in range(start, bit))
            for b in range(start, bit):
                group[b] = pair
            if double_deck:
                bit += bit % 2
        segs[k] = sum(1 << int(to_layout[c]) for c in members)
    return to_layout, from_layout, segs, seg_of, power, group


@njit(cache=True, inline="always")
def euchre_follow_nb(hand, lead, segs, seg_of):
    """C-3 over E-2 in the solver layout: the lead's effective suit if held, else any card."""
    if lead < 0:
        return hand
    held = hand & segs[seg_of[lead]]
    return held if held != ZERO else hand


@njit(cache=True, inline="always")
def euchre_layout_beats_nb(card, best, power, seg_of):
    """E-2, C-3 in the solver layout (trump is effective suit 0): a trump beats any other
    suit; within a suit the higher power, and an identical copy does not beat."""
    if seg_of[card] == seg_of[best]:
        return power[card] > power[best]
    return seg_of[card] == 0


@njit(cache=True, inline="always")
def next_seat_nb(seat, out_seat):
    """E-6: the seat after ``seat`` in play, skipping the one that sits out."""
    nxt = (seat + 1) % 4
    return (nxt + 1) % 4 if nxt == out_seat else nxt


def _euchre_layouts():
    """Every solver layout, indexed [double deck, joker, trump]: to_layout, from_layout,
    segs, seg_of, power, group (see ``euchre_layout``), as arrays the kernels read."""
    tables = [[[euchre_layout(t, bool(d), bool(j)) for t in range(4)] for j in range(2)] for d in range(2)]
    return tuple(np.array([[[tables[d][j][t][k] for t in range(4)] for j in range(2)] for d in range(2)])
                 for k in range(6))


(EUCHRE_TO_LAYOUT, EUCHRE_FROM_LAYOUT, EUCHRE_SEGS, EUCHRE_SEG_OF, EUCHRE_LAYOUT_POWER,
 EUCHRE_GROUP) = _euchre_layouts()


@njit(cache=True)
def euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker):
    """Set the context ``dd`` for Bid Euchre play with ``trump``: that solver layout's
    tables (E-2), the seat sitting out (E-6, holding no cards) and the ``hands`` (kernel
    card ids) in the layout, the table renewed (``renew_nb``). Returns the layout's map
    from kernel card ids."""
    d, j = int(double_deck), int(joker)
    to_layout = EUCHRE_TO_LAYOUT[d, j, trump]
    dd.segs[:] = EUCHRE_SEGS[d, j, trump]
    dd.seg_of[:] = EUCHRE_SEG_OF[d, j, trump]
    dd.power[:] = EUCHRE_LAYOUT_POWER[d, j, trump]
    dd.group[:] = EUCHRE_GROUP[d, j, trump]
    dd.double_deck, dd.out_seat = d, out_seat
    renew_nb(dd, euchre_rules_nb(trump, out_seat, d, j))
    for s in range(4):
        h = ZERO
        rest = hands[s] if s != out_seat else ZERO
        while rest:
            h |= bit_nb(to_layout[lowest_nb(rest)])
            rest &= rest - ONE
        dd.hands[s] = h
    return to_layout


@njit(cache=True)
def euchre_after_card_nb(dd, b, to_move, out_seat, side, leader, played, lead, best, best_seat):
    """The position after ``to_move`` plays ``b`` (solver layout) into the trick in progress,
    led by ``leader`` with ``lead`` and won so far by ``best`` (of ``best_seat``) after
    ``played`` cards: (the trick for ``side`` if this card ends it, 0 or 1; the next trick's
    leader, cards in it, best, best seat, lead; the seat to move)."""
    nb, nbs, nlead = best, best_seat, lead
    if played == 0:
        nb, nbs, nlead = b, to_move, b
    elif euchre_layout_beats_nb(b, best, dd.power, dd.seg_of):
        nb, nbs = b, to_move
    if played + 1 == (4 if out_seat < 0 else 3):  # the trick is complete: its winner leads the next
        return int(nbs % 2 == side), nbs, 0, -1, -1, -1, nbs
    nxt = (to_move + 1) % 4
    if nxt == out_seat:
        nxt = (nxt + 1) % 4
    return 0, leader if played > 0 else to_move, played + 1, nb, nbs, nlead, nxt
