"""Uniform consistent worlds: the ways to place the cards a seat has not seen in their
holders (``world_table_nb``), one deal drawn uniformly among them (``sample_world_nb``),
how many worlds a decision solves, the stream it draws them from, and the worlds it plays
over when no world explains what happened."""

import numpy as np
from numba import njit

from kernels.cards import ZERO, bit_nb, cards_of_nb
from kernels.rng import next_u64_nb, uniform_nb
from kernels.step import note_unexplained_nb

# Draws per world wanted before a seat makes do with fewer worlds: a pimc seat's calls, a search
# seat's card play, and a search seat's calls, exchange and draw phase (int64, not literals:
# kernels.cards.NONE).
BID_TRIES = np.int64(50)
EXPLAINED_TRIES = np.int64(200)
REJECTION_TRIES = np.int64(200)


@njit(cache=True)
def world_table_nb(cards, counts, allowed):
    """Counts of consistent deals: ``ways[i, state]`` is the number of ways to place
    ``cards[i:]`` in the holders when their remaining room is ``state`` (mixed radix:
    holder ``h`` has room ``state // stride[h] % (counts[h] + 1)``), holder ``h`` taking
    only cards of ``allowed[h]``. The full deal is ``ways[0, stride[-1] - 1]``. Returns
    (ways, stride)."""
    m, n = counts.shape[0], cards.shape[0]
    stride = np.empty(m + 1, dtype=np.int64)
    stride[0] = 1
    for h in range(m):
        stride[h + 1] = stride[h] * (counts[h] + 1)
    n_states = stride[m]
    room = np.empty((n_states, m), dtype=np.int64)
    total = np.zeros(n_states, dtype=np.int64)
    for state in range(n_states):
        for h in range(m):
            room[state, h] = (state // stride[h]) % (counts[h] + 1)
            total[state] += room[state, h]
    ways = np.zeros((n + 1, n_states))
    ways[n, 0] = 1.0
    for i in range(n - 1, -1, -1):
        c = bit_nb(cards[i])
        for state in range(n_states):
            if total[state] != n - i:  # room must match the cards left
                continue
            w = 0.0
            for h in range(m):
                if room[state, h] > 0 and allowed[h] & c:
                    w += ways[i + 1, state - stride[h]]
            ways[i, state] = w
    return ways, stride


@njit(cache=True)
def sample_world_nb(ways, stride, cards, counts, allowed, rng, out):
    """One consistent deal, uniform among all (``world_table_nb``): ``out[h]`` the cards of
    holder ``h``. Each card goes to a holder with probability (ways left after placing it
    there) / (ways before)."""
    m = counts.shape[0]
    state = stride[m] - 1
    for h in range(m):
        out[h] = ZERO
    for i in range(cards.shape[0]):
        c = bit_nb(cards[i])
        r = uniform_nb(rng) * ways[i, state]
        chosen = -1
        for h in range(m):
            if allowed[h] & c and (state // stride[h]) % (counts[h] + 1) > 0:
                w = ways[i + 1, state - stride[h]]
                if w > 0.0:
                    chosen = h  # the last holder with room takes any rounding remainder
                    if r < w:
                        break
                    r -= w
        out[chosen] |= c
        state -= stride[chosen]


@njit(cache=True)
def deal_table_nb(unseen, counts, allowed):
    """The cards of ``unseen`` in order and the counts of their consistent deals; when the
    constraints admit none, the table without them (each holder may take any unseen card).
    Returns (cards, ways, stride, allowed used, number of deals)."""
    cards = cards_of_nb(unseen)
    ways, stride = world_table_nb(cards, counts, allowed)
    top = stride[counts.shape[0]] - 1
    if ways[0, top] == 0.0:
        allowed = np.full(counts.shape[0], unseen, dtype=np.uint64)
        ways, stride = world_table_nb(cards, counts, allowed)
    return cards, ways, stride, allowed, ways[0, top]


@njit(cache=True, inline="always")
def worlds_of_nb(seats, seat, n_deals):
    """How many worlds to solve: the seat's ``worlds``, or one when only one deal fits."""
    return 1 if n_deals == 1.0 else max(1, np.int64(seats.prm[seat].pimc.worlds))


@njit(cache=True, inline="always")
def decision_stream_nb(seats):
    """The worlds' stream of one decision: started from one draw of the policy stream."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = next_u64_nb(seats.rng)
    return rng


@njit(cache=True)
def keep_likeliest_nb(likeliest, spare, chance, world):
    """Keep ``world`` among the rows of ``spare`` while its ``chance`` is among the highest
    seen (``likeliest``, the rows' chances in falling order, 0 for an empty row): the worlds
    a reader falls back on when its rejection keeps none (kernels.pimc.contract)."""
    n = likeliest.shape[0]
    if chance <= likeliest[n - 1]:
        return
    i = n - 1
    while i > 0 and likeliest[i - 1] < chance:
        likeliest[i] = likeliest[i - 1]
        spare[i] = spare[i - 1]
        i -= 1
    likeliest[i] = chance
    spare[i] = world


@njit(cache=True)
def unexplained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, worlds):
    """No world explained what happened: the decision counts as ``unexplained`` and every
    row of ``worlds`` is drawn as ``pimc`` draws them; returns how many."""
    note_unexplained_nb(seats, seat)
    for w in range(worlds.shape[0]):
        sample_world_nb(ways, stride, cards, counts, allowed, rng, worlds[w])
    return worlds.shape[0]
