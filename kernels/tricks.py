"""Trick mechanics shared by the games (RULES.md C-3)."""

from numba import njit

from kernels.cards import SUIT_MASKS, ZERO


@njit(cache=True, inline="always")
def suit_of_nb(card):
    return card // 13


@njit(cache=True, inline="always")
def rank_of_nb(card):
    return card % 13


@njit(cache=True)
def follow_suit_mask_nb(hand, suit):
    """C-3: the cards a follower must choose from: the suit led if held, else any card."""
    held = hand & SUIT_MASKS[suit]
    if held != ZERO:
        return held
    return hand


@njit(cache=True)
def beats_nb(card, best, trump):
    """C-3: does suited ``card`` beat the suited ``best`` so far (trump -1 for none)?"""
    cs = card // 13
    bs = best // 13
    if cs == bs:
        return card > best
    return cs == trump

