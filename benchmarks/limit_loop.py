"""The limit loop: how fast plain numba deals and plays a trick-taking game with almost no rules.

A deal draws a counter-based random stream (SplitMix64, a pure function of seed and deal
index), shuffles the deck (inside-out Fisher-Yates), builds bitmask hands and plays greedy
tricks to the end. Two shapes, the bare bones of the project's games:

- ``two``: Bridgette-like. 55 cards (bit ``suit * 13 + rank``, the three Colons at bits
  52..54 as the top trumps), two hands of 13, 13 two-card tricks.
- ``four``: Bid Euchre-like. 24 cards (bit ``suit * 6 + rank``, no bowers, no joker), four
  hands of 6 in two partnerships (seats 0 and 2, 1 and 3), 6 four-card tricks.

Spades (suit 3) are trumps. Seat 0 leads the first trick and each trick's winner leads
the next. A leader leads the highest card of its longest suit (the lowest suit on ties).
A follower plays the lowest card of the led suit that beats the trick so far, else its
lowest card of the led suit; void, the lowest trump that wins the trick, else its lowest
non-trump, else its lowest card. A card beats the trick's winning card if it is higher in
the same suit, or a trump on a non-trump.

No auction, no scoring, no policies, no records: a full rules kernel can approach this
rate but not pass it, which makes it the yardstick of ``python -m benchmarks.peers``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kernels.cards import highest_nb, lowest_nb, popcount_nb
from kernels.rng import mix64_nb

TRUMP = 3
ZERO, ONE = np.uint64(0), np.uint64(1)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_S32 = np.uint64(32)


def _layout(per_suit: int, extra_trumps: int):
    """(effective-suit masks, suit of each card) of a deck of 4 suits plus top trumps."""
    cards = 4 * per_suit + extra_trumps
    suit_of = np.array([c // per_suit if c < 4 * per_suit else TRUMP for c in range(cards)], dtype=np.int64)
    masks = np.array([sum(1 << c for c in range(cards) if suit_of[c] == s) for s in range(4)], dtype=np.uint64)
    return masks, suit_of


SUITS2, SUIT_OF2 = _layout(13, 3)
SUITS4, SUIT_OF4 = _layout(6, 0)

# shape: (cards, hands, cards per hand = tricks, suit masks, suit of each card)
SHAPES = {"two": (55, 2, 13, SUITS2, SUIT_OF2), "four": (24, 4, 6, SUITS4, SUIT_OF4)}


@njit(inline="always")
def _deal(seed, game, deck, n_cards, hands, n_hands, size):
    """Shuffle ``deck[:n_cards]`` for deal ``game`` and give ``size`` cards to each hand."""
    state = mix64_nb(mix64_nb(np.uint64(seed)) + np.uint64(game) * _GAMMA)
    deck[0] = 0
    for i in range(1, n_cards):  # inside-out Fisher-Yates: no need to reset the deck
        state += _GAMMA
        j = np.int64(((mix64_nb(state) >> _S32) * np.uint64(i + 1)) >> _S32)
        deck[i] = deck[j]
        deck[j] = i
    for p in range(n_hands):
        hand = ZERO
        for k in range(size):
            hand |= ONE << np.uint64(deck[p * size + k])
        hands[p] = hand


@njit(inline="always")
def _lead(hand, suits):
    best, longest = 0, -1
    for s in range(4):
        n = popcount_nb(hand & suits[s])
        if n > longest:
            best, longest = s, n
    return highest_nb(hand & suits[best])


@njit(inline="always")
def _follow(hand, win, led, suits, suit_of):
    above = ~(((ONE << np.uint64(win)) << ONE) - ONE)  # cards with a higher bit than the winner
    legal = hand & suits[led]
    if legal != ZERO:
        if suit_of[win] == led:
            beat = legal & above
            if beat != ZERO:
                return lowest_nb(beat)
        return lowest_nb(legal)
    trumps = hand & suits[TRUMP]
    if suit_of[win] == TRUMP:
        trumps &= above
    if trumps != ZERO:
        return lowest_nb(trumps)
    others = hand & ~suits[TRUMP]
    if others != ZERO:
        return lowest_nb(others)
    return lowest_nb(hand)


@njit(inline="always")
def _play(hands, n_hands, tricks, suits, suit_of, trace, record):
    """Play every trick; the tricks won by seat 0 (and its partner). With ``record``,
    ``trace[t]`` = leader, then the cards in playing order."""
    leader = 0
    won = 0
    for t in range(tricks):
        win = _lead(hands[leader], suits)
        hands[leader] &= ~(ONE << np.uint64(win))
        led = suit_of[win]
        winner = leader
        if record:
            trace[t, 0] = leader
            trace[t, 1] = win
        for k in range(1, n_hands):
            p = (leader + k) % n_hands
            card = _follow(hands[p], win, led, suits, suit_of)
            hands[p] &= ~(ONE << np.uint64(card))
            if record:
                trace[t, 1 + k] = card
            if (suit_of[card] == suit_of[win] and card > win) or (suit_of[card] == TRUMP and suit_of[win] != TRUMP):
                win, winner = card, p
        leader = winner
        if winner % 2 == 0:
            won += 1
    return won


@njit(cache=True)
def run_two_nb(seed, first, count):
    """Deal and play deals ``first .. first+count-1`` of the two-hand loop: seat 0's tricks in all."""
    deck = np.empty(55, dtype=np.int64)
    hands = np.empty(2, dtype=np.uint64)
    trace = np.empty((1, 1), dtype=np.int64)
    total = 0
    for g in range(first, first + count):
        _deal(seed, g, deck, 55, hands, 2, 13)
        total += _play(hands, 2, 13, SUITS2, SUIT_OF2, trace, False)
    return total


@njit(cache=True)
def run_four_nb(seed, first, count):
    """Deal and play deals ``first .. first+count-1`` of the four-hand loop: seats 0 and 2's tricks."""
    deck = np.empty(24, dtype=np.int64)
    hands = np.empty(4, dtype=np.uint64)
    trace = np.empty((1, 1), dtype=np.int64)
    total = 0
    for g in range(first, first + count):
        _deal(seed, g, deck, 24, hands, 4, 6)
        total += _play(hands, 4, 6, SUITS4, SUIT_OF4, trace, False)
    return total


@njit(cache=True)
def trace_nb(seed, first, count, n_cards, n_hands, size, suits, suit_of):
    """The same deals and play, recorded: (hands dealt, trick traces, tricks won by seat 0's side)."""
    deck = np.empty(n_cards, dtype=np.int64)
    hands = np.empty((count, n_hands), dtype=np.uint64)
    traces = np.zeros((count, size, 1 + n_hands), dtype=np.int64)
    won = np.zeros(count, dtype=np.int64)
    work = np.empty(n_hands, dtype=np.uint64)
    for i in range(count):
        _deal(seed, first + i, deck, n_cards, work, n_hands, size)
        hands[i] = work
        won[i] = _play(work, n_hands, size, suits, suit_of, traces[i], True)
    return hands, traces, won


RUN = {"two": run_two_nb, "four": run_four_nb}


def run(shape: str, seed: int, first: int, count: int) -> int:
    """Play ``count`` deals of the ``two`` or ``four`` loop; seat 0's side's tricks in all."""
    return int(RUN[shape](seed, first, count))


def trace(shape: str, seed: int, first: int, count: int):
    n_cards, n_hands, size, suits, suit_of = SHAPES[shape]
    return trace_nb(seed, first, count, n_cards, n_hands, size, suits, suit_of)
