"""Trick mechanics shared by the games (RULES.md C-3)."""

from numba import njit

from kernels.cards import SUIT_MASKS, ZERO


@njit(cache=True)
def beats_nb(card, best, trump):
    """C-3: does suited ``card`` beat the suited ``best`` so far (trump -1 for none)?"""
    cs = card // 13
    bs = best // 13
    if cs == bs:
        return card > best
    return cs == trump



@njit(cache=True)
def follow_mask_nb(hand, lead):
    """C-3: the cards a player may play to ``lead`` (-1 when leading): the suit led if held."""
    if lead < 0:
        return hand
    held = hand & SUIT_MASKS[lead // 13]
    if held != ZERO:
        return held
    return hand
