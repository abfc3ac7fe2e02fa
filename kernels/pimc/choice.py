"""Choosing a card over worlds: each legal card's double-dummy value summed over the worlds,
exact only where the choice needs it (``card_sums_nb``), and the best card by those sums."""

import numpy as np
from numba import njit

from kernels.cards import NOUGHT, ONE, bit_nb, lowest_nb, popcount_nb
from kernels.dd import card_bound_nb, card_value_nb, search_table_nb


@njit(cache=True)
def best_of_nb(cards, sums):
    """The card of ``cards`` with the highest sum of values over the worlds, the lowest of
    equals."""
    chosen, value = -1, -1
    while cards:
        c = lowest_nb(cards)
        cards &= cards - ONE
        if sums[c] > value:
            chosen, value = c, sums[c]
    return chosen


@njit(cache=True)
def _refine_nb(tt, dd, euchre, to_move, pos, held, value, bounded, first, sums, c):
    """``card_sums_nb``: search ``c`` once more, at its bound, in the world where it is only
    bounded and its bound lies furthest above the value of that world's first card
    (``first``; the earliest such world): exact there if it reaches its bound, else
    bounded tighter, its sum lowered to match. False when it is exact in every world."""
    pick = -1
    for w in range(held.shape[0]):
        if bounded[w, c] and (pick < 0 or value[w, c] - first[w] > value[pick, c] - first[pick]):
            pick = w
    if pick < 0:
        return False
    dd.hands[:] = held[pick]
    bound = value[pick, c]
    v = min(card_bound_nb(tt, dd, euchre, to_move, pos, c, bound), bound)
    sums[c] -= bound - v
    value[pick, c], bounded[pick, c] = v, v < bound
    return True


@njit(cache=True)
def card_sums_nb(dd, euchre, to_move, pos, moves, held, sums):
    """Add to ``sums[c]``, for each card ``c`` of ``moves``, its double-dummy value (as
    ``card_bound_nb``) summed over the worlds ``held[w]`` (the hands, as ``dd.hands``
    takes them), exact where the choice needs it: ``best_of_nb(moves, sums)`` is then the
    card with the best exact average (the lowest of equals), and its sum is exact; every
    other sum is an upper bound, below the best for the cards below the chosen one.

    In each world the card best so far (the *leader*; the lowest card in the first world)
    is valued exactly and every other card is searched once, from the highest sum so far
    (the lowest of equals), for one trick more than the best card of the world so far: it
    is valued exactly only where it reaches that, and is then the best so far; elsewhere
    the best card's value bounds it. Then the card with the highest sum (the lowest of
    equals) is searched again at its bound where it is only bounded (``_refine_nb``), until
    that card is exact in every world: the cards below it have lower sums and the cards
    above it cannot beat it on a tie. Exact values step from a guess: the leader's from
    its value in the last world, a card that beats the best so far upwards from there."""
    n_w = held.shape[0]
    n = popcount_nb(held[0, to_move])
    value = np.zeros((n_w, 64), dtype=np.int64)
    bounded = np.zeros((n_w, 64), dtype=np.bool_)  # value[w, c] only an upper bound
    first = np.zeros(n_w, dtype=np.int64)  # the leader's value in each world
    leader = lowest_nb(moves)
    tt = search_table_nb(dd, euchre)
    for w in range(n_w):
        dd.hands[:] = held[w]
        top = card_value_nb(tt, dd, euchre, to_move, pos, leader, value[w - 1, leader] if w > 0 else -1, NOUGHT, n)
        value[w, leader] = first[w] = top  # top: from here on, the best value of the world so far
        rest = moves & ~bit_nb(leader)
        while rest:
            c = best_of_nb(rest, sums)
            rest &= ~bit_nb(c)
            bound = card_bound_nb(tt, dd, euchre, to_move, pos, c, top + 1) if top < n else top
            if bound > top:
                value[w, c] = top = card_value_nb(tt, dd, euchre, to_move, pos, c, bound + 1, bound, n)
            else:
                value[w, c], bounded[w, c] = bound, True
        rest = moves
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            sums[c] += value[w, c]
        leader = best_of_nb(moves, sums)
    while _refine_nb(tt, dd, euchre, to_move, pos, held, value, bounded, first, sums, best_of_nb(moves, sums)):
        pass
