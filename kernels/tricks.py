"""Trick mechanics shared by the games (RULES.md C-3)."""

from numba import njit


@njit(cache=True)
def beats_nb(card, best, trump):
    """C-3: does suited ``card`` beat the suited ``best`` so far (trump -1 for none)?"""
    cs = card // 13
    bs = best // 13
    if cs == bs:
        return card > best
    return cs == trump

