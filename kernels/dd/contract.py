"""The contract play of Bridgette and Draw Bridge (C-3 with B-7..B-10, D-4): two hands, up
to 13 tricks. A zero-window search over an explicit stack that fails soft: its answer
carries a bound on the side's tricks, which the table keeps for searches at other
targets."""

import numpy as np
from numba import njit

from kernels.cards import SUIT_MASKS, ZERO, bit_nb, popcount_nb, prefetch_nb
from kernels.dd.bounds import last_tricks_nb, later_tricks_nb, quick_tricks_nb
from kernels.dd.context import (
    ENTER, EXPAND, FR_BARRED, FR_BOUND, FR_I, FR_LEAD, FR_LEADER, FR_META, FR_N, FR_T_LEAD, FR_TARGET, FR_TO_PLAY,
    RESOLVED_FALSE, RESOLVED_TRUE, ST_NODES, ST_TT_HITS, USE_BOUNDS, USE_EQUIV, USE_TT,
)
from kernels.dd.ordering import order_follows_nb, order_leads_nb
from kernels.dd.ranks import contract_key_nb, contract_representatives_nb
from kernels.dd.table import tt_bucket_nb, tt_find_nb, tt_store_nb
from kernels.tricks import follow_legal_nb, lead_legal_nb, trick_nb


@njit(cache=True, inline="always")
def contract_enter_nb(tt, ctx, d):
    """Open the node of frame ``d``: RESOLVED_TRUE or RESOLVED_FALSE when its question
    ("can ``ctx.side`` take ``target`` of the tricks left?") is answered at once (too many or
    no tricks wanted, the last trick, quick tricks, the table), else EXPAND with its moves
    in ``ctx.order[d]``. The frame holds ``leader``, ``lead`` (the card led, -1 at a trick
    boundary), ``barred`` (B-8: the suit the leader may not lead) and ``target``."""
    fr = ctx.fr[d]
    hands = ctx.hands
    leader, lead, barred, target, side = fr[FR_LEADER], fr[FR_LEAD], fr[FR_BARRED], fr[FR_TARGET], ctx.side
    follower = 1 - leader
    n = popcount_nb(hands[follower])
    if target <= 0:
        fr[FR_BOUND] = 0
        return RESOLVED_TRUE
    if target > n:
        fr[FR_BOUND] = n
        return RESOLVED_FALSE
    ctx.stats[ST_NODES] += 1
    flags, trump = ctx.techniques, ctx.trump
    if n <= 2:  # the last two tricks, played out
        won = last_tricks_nb(hands[leader], hands[follower], lead, barred, trump, ctx.when_void != 0)
        return _resolved_nb(fr, leader == side, n, won, won)
    in_play = hands[0] | hands[1]
    if lead >= 0:
        in_play |= bit_nb(lead)
    order = ctx.order[d]
    if lead < 0:
        # A trick boundary: the table holds bounds on the leader's tricks.
        t_lead = target if leader == side else n - target + 1
        fr[FR_T_LEAD] = t_lead
        if barred >= 0 and (hands[leader] & SUIT_MASKS[barred] == ZERO or hands[leader] & ~SUIT_MASKS[barred] == ZERO):
            barred = -1  # the bar (B-8) leaves the leads as they are: the position without it
        if flags & USE_TT:
            # The key first, and its bucket fetched while the bounds are tried: a probe waits
            # for memory more than any other step of a node.
            k0, k1, k2, k3 = contract_key_nb(hands[leader], hands[follower], in_play)
            i = tt_bucket_nb(tt, k0, k1, k2, k3, barred + 1)
            prefetch_nb(tt, i)
            prefetch_nb(tt, i + 1)
        if flags & USE_BOUNDS:
            quick = quick_tricks_nb(hands[leader], hands[follower], trump, barred)
            if quick >= t_lead:
                return _resolved_nb(fr, leader == side, n, quick, n)
            most = n - later_tricks_nb(hands[follower], hands[leader], trump)
            if most < t_lead:
                return _resolved_nb(fr, leader == side, n, 0, most)
        best = -1
        if flags & USE_TT:
            ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3] = k0, k1, k2, k3
            fr[FR_META] = barred + 1
            j = tt_find_nb(tt, ctx, i, k0, k1, k2, k3, barred + 1)
            if j >= 0:
                if tt[j].lo >= t_lead or tt[j].hi < t_lead:
                    ctx.stats[ST_TT_HITS] += 1
                    return _resolved_nb(fr, leader == side, n, np.int64(tt[j].lo), np.int64(tt[j].hi))
                best = tt[j].best
        fr[FR_TO_PLAY] = leader
        moves = lead_legal_nb(hands[leader], barred)
        if flags & USE_EQUIV:
            moves = contract_representatives_nb(moves, hands[leader], in_play, hands[follower])
        fr[FR_N] = order_leads_nb(order, moves, hands[follower], trump, best, flags)
    else:
        # The follower's turn: C-3 with B-8..B-10.
        fr[FR_TO_PLAY] = follower
        moves = follow_legal_nb(hands[follower], lead, ctx.when_void != 0)
        if flags & USE_EQUIV:
            moves = contract_representatives_nb(moves, hands[follower], in_play, hands[leader] | bit_nb(lead))
        fr[FR_N] = order_follows_nb(order, moves, lead, trump, flags)
    fr[FR_I] = 0
    fr[FR_BOUND] = -1 if fr[FR_TO_PLAY] == side else n  # no child's bound yet
    return EXPAND


@njit(cache=True, inline="always")
def _resolved_nb(fr, leader_searched, n, lo, hi):
    """Answer a node at once from bounds on the leader's tricks, ``lo`` <= tricks <= ``hi``,
    one of which settles the frame's question: RESOLVED_TRUE or RESOLVED_FALSE, with the
    bound on the searched side's tricks that settles it in ``FR_BOUND``."""
    if not leader_searched:
        lo, hi = n - hi, n - lo
    found = lo >= fr[FR_TARGET]
    fr[FR_BOUND] = lo if found else hi
    return RESOLVED_TRUE if found else RESOLVED_FALSE


@njit(cache=True, inline="always")
def contract_child_nb(ctx, d, c):
    """Play card ``c`` at frame ``d`` and set up the next frame."""
    fr, child = ctx.fr[d], ctx.fr[d + 1]
    leader, lead = fr[FR_LEADER], fr[FR_LEAD]
    ctx.hands[fr[FR_TO_PLAY]] &= ~bit_nb(c)
    if lead < 0:
        child[FR_LEADER], child[FR_LEAD], child[FR_BARRED], child[FR_TARGET] = leader, c, -1, fr[FR_TARGET]
    else:
        leader_wins, bar = trick_nb(lead, c, ctx.trump)
        nxt = leader if leader_wins else 1 - leader
        child[FR_LEADER], child[FR_LEAD], child[FR_BARRED] = nxt, -1, bar
        child[FR_TARGET] = fr[FR_TARGET] - (nxt == ctx.side)


@njit(cache=True, inline="always")
def contract_close_nb(tt, ctx, d, found, chosen):
    """A trick boundary's answer goes to the table as a bound on the leader's tricks: its
    ``FR_BOUND``, turned to the leader's side."""
    fr = ctx.fr[d]
    if fr[FR_LEAD] < 0 and ctx.techniques & USE_TT:
        leader = fr[FR_LEADER]
        n = popcount_nb(ctx.hands[1 - leader])
        bound = fr[FR_BOUND]
        is_lower = found == (leader == ctx.side)
        if leader != ctx.side:
            bound = n - bound
        tt_store_nb(tt, ctx, ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3], fr[FR_META],
                    is_lower, bound if is_lower else bound + 1, chosen, n)


@njit(cache=True)
def contract_search_nb(tt, ctx, leader, lead, barred, side, target):
    """Can ``side`` take at least ``target`` of the tricks left (counting the trick in
    progress)? ``lead``: the card the leader has led, or -1 at a trick boundary, where
    ``barred`` is the suit the leader may not lead (B-8, -1: none). A depth-first search
    over the frames of ``ctx`` (an explicit stack: no recursion), failing soft: it returns
    a bound on the tricks ``side`` takes, at least ``target`` (a lower bound) exactly when
    the answer is yes, else an upper bound. Each node's bound is what its children's
    bounds prove (the bound of the move that settles it, or the mover's best over all its
    moves when none does), so the table keeps bounds tighter than the target, for the next
    searches at other targets."""
    ctx.side = side
    root = ctx.fr[0]
    root[FR_LEADER], root[FR_LEAD], root[FR_BARRED], root[FR_TARGET] = leader, lead, barred, target
    d = 0
    state = ENTER
    while True:
        # One call site per step: numba inlines each step into this loop.
        if state == ENTER:
            state = contract_enter_nb(tt, ctx, d)
        closing, chosen = False, -1
        if state == EXPAND:
            fr = ctx.fr[d]
            if fr[FR_I] < fr[FR_N]:
                contract_child_nb(ctx, d, ctx.order[d, fr[FR_I]])
                d += 1
                state = ENTER
                continue
            found = fr[FR_TO_PLAY] != side  # every move tried: the mover could not
            closing = True
        else:
            found = state == RESOLVED_TRUE
        # Hand the answer up until a parent still has moves to try.
        while True:
            if closing:
                contract_close_nb(tt, ctx, d, found, chosen)
            if d == 0:
                return ctx.fr[0, FR_BOUND]
            child = ctx.fr[d]
            d -= 1
            fr = ctx.fr[d]
            bound = child[FR_BOUND] + fr[FR_TARGET] - child[FR_TARGET]  # with the trick the move won
            c = ctx.order[d, fr[FR_I]]
            ctx.hands[fr[FR_TO_PLAY]] |= bit_nb(c)
            if found == (fr[FR_TO_PLAY] == side):  # the mover's wish: this move settles the node
                fr[FR_BOUND] = bound
                closing, chosen = True, c
                continue
            fr[FR_BOUND] = min(fr[FR_BOUND], bound) if found else max(fr[FR_BOUND], bound)
            fr[FR_I] += 1
            state = EXPAND
            break


@njit(cache=True, inline="always")
def contract_after_card_nb(c, to_move, lead, trump):
    """C-3 with B-8: the position after ``to_move`` plays ``c`` (``lead``: the card led to
    it, -1 when ``c`` is the lead): (the trick for ``to_move`` if ``c`` ends it, 0 or 1;
    the leader; the card led, -1 at the next trick's start; the suit that leader may not
    lead)."""
    if lead < 0:
        return 0, to_move, c, -1
    leader_wins, barred = trick_nb(lead, c, trump)
    leader = 1 - to_move if leader_wins else to_move
    return int(leader == to_move), leader, -1, barred
