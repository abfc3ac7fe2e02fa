"""Values from zero-window searches, in either game family: a position's value stepping from
a guess or halving a range (``value_near_nb``), one card's value or bound (the position
after it, searched), every legal card's value, and the ``dd`` seat's best card."""

import numpy as np
from numba import njit, types
from numba.extending import overload

from kernels.cards import NONE, NOUGHT, ONE, bit_nb, lowest_nb, popcount_nb
from kernels.dd.context import ST_SEARCHES, contract_at_nb, contract_rules_nb, euchre_at_nb, renew_nb, search_table_nb
from kernels.dd.contract import contract_after_card_nb, contract_search_nb
from kernels.dd.euchre import euchre_search_nb
from kernels.dd.layout import euchre_after_card_nb
from kernels.tricks import follow_legal_nb, lead_legal_nb


@njit(cache=True)
def contract_best_nb(tt, ctx, leader, lead, barred, side, floor):
    """The most tricks ``side`` takes from here (known to be at least ``floor``): zero-window
    searches halving [floor, tricks left] until they meet, the table shared between them."""
    at = contract_at_nb(ctx, leader, lead, barred, side)
    return value_near_nb(tt, ctx, False, at, NONE, floor, popcount_nb(ctx.hands[1 - leader]))


@njit(cache=True, nogil=True)  # nogil: a command waits for it in another thread
def contract_value_nb(tt, ctx_arr, to_move, lead, barred):
    """Tricks the side to move takes from here with perfect play. ``lead`` >= 0: the other
    seat has led it and ``to_move`` follows; else ``to_move`` leads, barred from ``barred``."""
    ctx = ctx_arr[0]
    renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
    return contract_best_nb(tt, ctx, to_move if lead < 0 else 1 - to_move, lead, barred, to_move, NOUGHT)


@njit(cache=True, nogil=True)
def contract_card_values_nb(tt, ctx_arr, to_move, lead, barred, values):
    """``values[card]``: tricks the side to move takes from here after playing that legal
    card (-1 for the others, ``card_values_nb``); returns the best of them."""
    ctx = ctx_arr[0]
    renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
    hands = ctx.hands
    values[:] = -1
    if lead < 0:
        legal = lead_legal_nb(hands[to_move], barred)
    else:
        legal = follow_legal_nb(hands[to_move], lead, ctx.when_void != 0)
    return card_values_nb(tt, ctx, False, to_move, np.array([lead]), legal, values)


@njit(cache=True)
def euchre_value_nb(tt, ctx, leader, played, best, best_seat, lead, to_play, side, floor):
    """The most tricks team ``side`` takes from this position (known to be at least
    ``floor``): zero-window searches halving [floor, tricks left], the table shared
    between them."""
    at = euchre_at_nb(ctx, leader, played, best, best_seat, lead, to_play, side)
    return value_near_nb(tt, ctx, True, at, NONE, floor, popcount_nb(ctx.hands[to_play]))


@njit(cache=True)
def after_card_nb(dd, euchre, to_move, pos, c, at):
    """Take ``c`` from the hand of ``to_move`` in ``dd.hands`` and set ``at`` to the position
    after it is played from ``pos``; returns the trick its side wins if ``c`` ends one (0
    or 1). The caller puts the card back."""
    dd.hands[to_move] &= ~bit_nb(c)
    if euchre:
        side = to_move % 2
        won, at[0], at[1], at[2], at[3], at[4], at[5] = euchre_after_card_nb(dd, c, to_move, dd.out_seat, side,
                                                                            pos[0], pos[1], pos[2], pos[3], pos[4])
        at[6] = side
        return won
    won, at[0], at[1], at[2] = contract_after_card_nb(c, to_move, pos[0], dd.trump)
    at[3] = to_move
    return won


@njit(cache=True)
def contract_bound_nb(tt, dd, at, target):
    """``bound_nb`` of the contract games: their search fails soft."""
    dd.stats[ST_SEARCHES] += 1
    return contract_search_nb(tt, dd, at[0], at[1], at[2], at[3], target)


@njit(cache=True)
def euchre_bound_nb(tt, dd, at, target):
    """``bound_nb`` of Bid Euchre: ``target`` when its team reaches it, else ``target - 1``."""
    dd.stats[ST_SEARCHES] += 1
    found = euchre_search_nb(tt, dd, at[0], at[1], at[2], at[3], at[4], at[5], at[6], target)
    return target if found else target - 1


def bound_nb(tt, dd, euchre, at, target):
    """One zero-window search: does the side searched take at least ``target`` of the
    tricks left from the position ``at``? A bound on its tricks: a lower one, at least
    ``target``, when it does, else an upper one. In the kernels numba types it by the
    overload below; this body runs with the JIT disabled, and where the family is not a
    constant."""
    if euchre:
        return euchre_bound_nb(tt, dd, at, target)
    return contract_bound_nb(tt, dd, at, target)


@overload(bound_nb, prefer_literal=True)
def _bound_of_family(tt, dd, euchre, at, target):
    """The family's own search only: every caller names the family by a constant, and
    typing both searches put the other family's into each game's kernels (a sixth of a
    game's compile with search code)."""
    if not isinstance(euchre, types.BooleanLiteral):
        return bound_nb
    if euchre.literal_value:
        return lambda tt, dd, euchre, at, target: euchre_bound_nb(tt, dd, at, target)
    return lambda tt, dd, euchre, at, target: contract_bound_nb(tt, dd, at, target)


@njit(cache=True)
def value_near_nb(tt, dd, euchre, at, guess, lo, hi):
    """The most tricks the side searched takes from the position ``at``, known to lie in
    [lo, hi]: zero-window searches stepping from ``guess``, cheap when the guess is close
    (negative: halving the range), each narrowing the range by the bound it returns."""
    up = True  # stepping up from a target reached, or down from one missed
    if guess >= 0:
        target = min(max(guess, lo), hi)
        if target > lo:
            bound = bound_nb(tt, dd, euchre, at, target)
            up = bound >= target
            lo, hi = (max(lo, bound), hi) if up else (lo, min(hi, bound))
    while lo < hi:
        target = (lo + hi + 1) // 2 if guess < 0 else (lo + 1 if up else hi)
        bound = bound_nb(tt, dd, euchre, at, target)
        lo, hi = (max(lo, bound), hi) if bound >= target else (lo, min(hi, bound))
    return lo


@njit(cache=True)
def card_bound_nb(tt, dd, euchre, to_move, pos, c, target):
    """Whether the side of ``to_move`` takes at least ``target`` of the tricks left, the
    trick in progress included, after it plays ``c`` from ``pos`` in ``dd.hands``, as a
    bound on those tricks (``bound_nb``): at least ``target`` exactly when it does."""
    won = after_card_nb(dd, euchre, to_move, pos, c, dd.at)
    bound = won + bound_nb(tt, dd, euchre, dd.at, target - won)
    dd.hands[to_move] |= bit_nb(c)
    return bound


@njit(cache=True)
def card_value_nb(tt, dd, euchre, to_move, pos, c, guess, lo, hi):
    """The tricks the side of ``to_move`` takes, the trick in progress included, after it
    plays ``c`` from ``pos`` in ``dd.hands``, known to lie in [lo, hi]: ``value_near_nb``
    stepping from ``guess`` (negative: halving)."""
    won = after_card_nb(dd, euchre, to_move, pos, c, dd.at)
    v = won + value_near_nb(tt, dd, euchre, dd.at, max(guess - won, 0) if guess >= 0 else -1, max(lo - won, 0),
                            hi - won)
    dd.hands[to_move] |= bit_nb(c)
    return v


@njit(cache=True)
def card_values_nb(tt, dd, euchre, to_move, pos, moves, values):
    """``values[c]`` for each card ``c`` of ``moves``: the tricks the side of ``to_move``
    takes after playing it from ``pos`` (``card_value_nb``), each card valued from the value
    of the card before (values move little between cards); returns the best of them."""
    n = popcount_nb(dd.hands[to_move])
    best, guess = NOUGHT, NONE
    while moves:
        c = lowest_nb(moves)
        moves &= moves - ONE
        values[c] = guess = card_value_nb(tt, dd, euchre, to_move, pos, c, guess, NOUGHT, n)
        best = max(best, guess)
    return best


@njit(cache=True)
def dd_best_card_nb(dd, euchre, to_move, pos, legal):
    """The card of ``legal`` whose double-dummy value is highest, the lowest of equals (the
    ``dd`` seat): the first is valued exactly, each other is searched once, for one trick
    more than the best so far, and valued exactly, upwards from the bound that search
    returns, only when it reaches that."""
    n = popcount_nb(dd.hands[to_move])
    tt = search_table_nb(dd, euchre)
    chosen, best = -1, -1
    while legal:
        c = lowest_nb(legal)
        legal &= legal - ONE
        if chosen < 0:
            chosen, best = c, card_value_nb(tt, dd, euchre, to_move, pos, c, NONE, NOUGHT, n)
        elif best < n:
            bound = card_bound_nb(tt, dd, euchre, to_move, pos, c, best + 1)
            if bound > best:
                chosen, best = c, card_value_nb(tt, dd, euchre, to_move, pos, c, bound + 1, bound, n)
    return chosen
