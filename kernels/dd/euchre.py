"""Bid Euchre's card play (E-2, E-6, C-3): four hands in partnerships (three in a lone
hand), in the solver layout. A zero-window search over an explicit stack, answering yes
or no."""

from numba import njit

from kernels.cards import ONE, ZERO, bit_nb, lowest_nb, popcount_nb
from kernels.dd.bounds import last_trick_nb, last_two_tricks_nb, sure_trumps_nb
from kernels.dd.context import (
    ENTER, EXPAND, FR_BEST, FR_BEST_SEAT, FR_I, FR_LEAD, FR_LEADER, FR_N, FR_PLAYED, FR_T_LEAD, FR_TARGET, FR_TO_PLAY,
    RESOLVED_FALSE, RESOLVED_TRUE, ST_NODES, ST_TT_HITS, USE_BOUNDS, USE_EQUIV, USE_TT,
)
from kernels.dd.layout import euchre_follow_nb, euchre_layout_beats_nb
from kernels.dd.ordering import order_euchre_nb
from kernels.dd.ranks import double_deck_key_nb, euchre_key_nb, euchre_representatives_nb
from kernels.dd.table import tt_probe_nb, tt_store_nb


@njit(cache=True, inline="always")
def euchre_enter_nb(tt, ctx, d):
    """Open the node of frame ``d`` (see ``contract_enter_nb``): can team ``ctx.side`` take
    ``target`` of the tricks left, counting the trick in progress? The frame holds the
    trick's ``leader`` and ``lead`` (-1: not led yet), the cards ``played`` to it, the card
    winning it (``best``, by ``best_seat``) and the seat ``to_play``; cards and suits are in
    the solver layout (``ctx``'s tables); ``ctx.out_seat`` sits out."""
    fr = ctx.fr[d]
    hands = ctx.hands
    leader, played, to_play, target, side = fr[FR_LEADER], fr[FR_PLAYED], fr[FR_TO_PLAY], fr[FR_TARGET], ctx.side
    n = popcount_nb(hands[to_play])
    if target <= 0:
        return RESOLVED_TRUE
    if target > n:
        return RESOLVED_FALSE
    ctx.stats[ST_NODES] += 1
    flags = ctx.techniques
    segs, seg_of = ctx.segs, ctx.seg_of
    if n == 1:
        won = last_trick_nb(ctx, played, fr[FR_BEST], fr[FR_BEST_SEAT], to_play) % 2 == side
        return RESOLVED_TRUE if won else RESOLVED_FALSE
    in_play = hands[0] | hands[1] | hands[2] | hands[3]
    best = -1
    hand = hands[to_play]
    if played == 0:
        t_lead = target if leader % 2 == side else n - target + 1
        fr[FR_T_LEAD] = t_lead
        if flags & USE_BOUNDS:
            sure0, sure1 = sure_trumps_nb(hands, segs[0], ctx.double_deck != 0)
            mine, theirs = (sure0, sure1) if side == 0 else (sure1, sure0)
            if mine >= target:
                return RESOLVED_TRUE
            if n - theirs < target:
                return RESOLVED_FALSE
        if n == 2:
            return RESOLVED_TRUE if last_two_tricks_nb(ctx, leader, side, target) else RESOLVED_FALSE
        if flags & USE_TT:
            if ctx.double_deck:
                k0, k1, k2, k3 = double_deck_key_nb(hands, in_play, segs)
            else:
                k0, k1, k2, k3 = euchre_key_nb(hands, in_play, segs)
            ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3] = k0, k1, k2, k3
            j = tt_probe_nb(tt, ctx, k0, k1, k2, k3, leader)
            if j >= 0:
                if tt[j].lo >= t_lead or tt[j].hi < t_lead:
                    ctx.stats[ST_TT_HITS] += 1
                    return RESOLVED_TRUE if (tt[j].lo >= t_lead) == (leader % 2 == side) else RESOLVED_FALSE
                best = tt[j].best
        moves = hand
    else:
        in_play |= bit_nb(fr[FR_BEST])  # the card to beat parts runs it falls between
        moves = euchre_follow_nb(hand, fr[FR_LEAD], segs, seg_of)
        if moves & (moves - ONE) == ZERO:  # one legal card
            ctx.order[d, 0] = lowest_nb(moves)
            fr[FR_N], fr[FR_I] = 1, 0
            return EXPAND
    if flags & USE_EQUIV:
        moves = euchre_representatives_nb(moves, hand, in_play, segs, ctx.group, ctx.double_deck)
    fr[FR_N] = order_euchre_nb(ctx.order[d], moves, ctx, to_play, played, fr[FR_LEAD], fr[FR_BEST], fr[FR_BEST_SEAT],
                                best, in_play)
    fr[FR_I] = 0
    return EXPAND


@njit(cache=True, inline="always")
def euchre_child_nb(ctx, d, c):
    """Play card ``c`` at frame ``d`` and set up the next frame (E-6: the seat that sits out
    is skipped; a complete trick's winner leads the next)."""
    fr, child = ctx.fr[d], ctx.fr[d + 1]
    seat = fr[FR_TO_PLAY]
    ctx.hands[seat] &= ~bit_nb(c)
    best, best_seat, lead = fr[FR_BEST], fr[FR_BEST_SEAT], fr[FR_LEAD]
    if fr[FR_PLAYED] == 0:
        best, best_seat, lead = c, seat, c
    elif euchre_layout_beats_nb(c, best, ctx.power, ctx.seg_of):
        best, best_seat = c, seat
    if fr[FR_PLAYED] + 1 == (4 if ctx.out_seat < 0 else 3):
        child[FR_LEADER], child[FR_PLAYED], child[FR_TO_PLAY] = best_seat, 0, best_seat
        child[FR_LEAD], child[FR_BEST], child[FR_BEST_SEAT] = -1, -1, -1
        child[FR_TARGET] = fr[FR_TARGET] - (best_seat % 2 == ctx.side)
    else:
        nxt = (seat + 1) % 4
        if nxt == ctx.out_seat:
            nxt = (nxt + 1) % 4
        child[FR_LEADER], child[FR_PLAYED], child[FR_TO_PLAY] = fr[FR_LEADER], fr[FR_PLAYED] + 1, nxt
        child[FR_LEAD], child[FR_BEST], child[FR_BEST_SEAT] = lead, best, best_seat
        child[FR_TARGET] = fr[FR_TARGET]


@njit(cache=True, inline="always")
def euchre_close_nb(tt, ctx, d, found, chosen):
    """A trick boundary's answer goes to the table as a bound on the leader's team's tricks."""
    fr = ctx.fr[d]
    if fr[FR_PLAYED] == 0 and ctx.techniques & USE_TT:
        leader = fr[FR_LEADER]
        tt_store_nb(tt, ctx, ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3], leader,
                    found == (leader % 2 == ctx.side), fr[FR_T_LEAD], chosen, popcount_nb(ctx.hands[leader]))


@njit(cache=True)
def euchre_search_nb(tt, ctx, leader, played, best, best_seat, lead, to_play, side, target):
    """Can team ``side`` take at least ``target`` of the tricks left? The frame of the root
    is the position (see ``euchre_enter_nb``); a depth-first search over an explicit stack."""
    ctx.side = side
    root = ctx.fr[0]
    root[FR_LEADER], root[FR_PLAYED], root[FR_BEST], root[FR_BEST_SEAT] = leader, played, best, best_seat
    root[FR_LEAD], root[FR_TO_PLAY], root[FR_TARGET] = lead, to_play, target
    d = 0
    state = ENTER
    while True:
        # One call site per step: numba inlines each step into this loop.
        if state == ENTER:
            state = euchre_enter_nb(tt, ctx, d)
        closing, chosen = False, -1
        if state == EXPAND:
            fr = ctx.fr[d]
            if fr[FR_I] < fr[FR_N]:
                euchre_child_nb(ctx, d, ctx.order[d, fr[FR_I]])
                d += 1
                state = ENTER
                continue
            found = fr[FR_TO_PLAY] % 2 != side
            closing = True
        else:
            found = state == RESOLVED_TRUE
        while True:
            if closing:
                euchre_close_nb(tt, ctx, d, found, chosen)
            if d == 0:
                return found
            d -= 1
            fr = ctx.fr[d]
            c = ctx.order[d, fr[FR_I]]
            ctx.hands[fr[FR_TO_PLAY]] |= bit_nb(c)
            if found == (fr[FR_TO_PLAY] % 2 == side):
                closing, chosen = True, c
                continue
            fr[FR_I] += 1
            state = EXPAND
            break
