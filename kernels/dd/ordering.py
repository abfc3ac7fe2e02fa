"""Move ordering: the order in which a node tries its cards, best first, so that cut-offs
come early (the table's best lead, then winners; a follower's cheapest winning card)."""

from numba import njit

from kernels.cards import (
    ALL_SUITED, COLONS, ONE, RANGE_MASKS, SUIT_MASKS, ZERO, bit_nb, highest_nb, lowest_nb, popcount_nb,
)
from kernels.dd.bounds import above_nb
from kernels.dd.context import USE_ORDER
from kernels.dd.layout import euchre_layout_beats_nb, next_seat_nb
from kernels.tricks import beaters_nb


@njit(cache=True, inline="always")
def _push_lowest_first_nb(order, n, cards):
    """Append the cards of ``cards`` to ``order[n:]`` from the lowest; the new length."""
    while cards:
        order[n] = lowest_nb(cards)
        cards &= cards - ONE
        n += 1
    return n


@njit(cache=True, inline="always")
def order_leads_nb(order, moves, other, trump, best, flags):
    """Leads to try, best first: the table's best lead, then side-suit cards that win the
    trick as they stand, other side-suit cards, winning trumps, other trumps; where the
    other hand holds trumps, the winning trumps first and cards of suits it can ruff last;
    then Colons from the lowest. Each group suit by suit, from the suit the other hand
    holds fewest cards of, and from the highest card (a winner to cash, or a card to drive
    one out)."""
    n = 0
    if best >= 0 and moves & bit_nb(best):
        order[n] = best
        n += 1
        moves &= ~bit_nb(best)
    if not flags & USE_ORDER:
        return _push_lowest_first_nb(order, n, moves)
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    can_ruff = other & trumps != ZERO
    winners, ruffed = ZERO, ZERO
    # The suits as (the other hand's cards << 2 | suit), sorted by a five-swap network.
    k0, k1 = popcount_nb(other & SUIT_MASKS[0]) << 2, popcount_nb(other & SUIT_MASKS[1]) << 2 | 1
    k2, k3 = popcount_nb(other & SUIT_MASKS[2]) << 2 | 2, popcount_nb(other & SUIT_MASKS[3]) << 2 | 3
    k0, k1 = min(k0, k1), max(k0, k1)
    k2, k3 = min(k2, k3), max(k2, k3)
    k0, k2 = min(k0, k2), max(k0, k2)
    k1, k3 = min(k1, k3), max(k1, k3)
    k1, k2 = min(k1, k2), max(k1, k2)
    for s in range(4):
        mine = moves & SUIT_MASKS[s]
        if mine == ZERO:
            continue
        theirs = other & SUIT_MASKS[s]
        if theirs != ZERO:
            winners |= mine & above_nb(theirs)
        elif s == trump or not can_ruff:
            winners |= mine
        else:
            ruffed |= mine
    rest = moves & ~winners
    side_winners, side_rest = winners & ~trumps, rest & ALL_SUITED & ~trumps & ~ruffed
    if can_ruff:
        parts = (winners & trumps, side_winners, side_rest, rest & trumps, ruffed)
    else:
        parts = (side_winners, side_rest, winners & trumps, rest & trumps, ruffed)  # none ruffable
    for part in parts:
        for k in (k0, k1, k2, k3):
            cards = part & SUIT_MASKS[k & 3]
            while cards:
                top = highest_nb(cards)
                order[n] = top
                cards &= ~bit_nb(top)
                n += 1
    return _push_lowest_first_nb(order, n, moves & ~ALL_SUITED)


@njit(cache=True, inline="always")
def order_follows_nb(order, moves, lead, trump, flags):
    """Follows to try: the cheapest card that wins the trick, then a Colon (a B-8 block, or a
    discard), then the others from the lowest, trumps last."""
    n = 0
    if not flags & USE_ORDER:
        return _push_lowest_first_nb(order, n, moves)
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    suited = moves & ALL_SUITED
    # C-3, B-9: a led Colon loses to a trump or a card of its range; a Colon never wins.
    winners = suited & (trumps | RANGE_MASKS[lead - 52]) if lead >= 52 else beaters_nb(suited, lead, trump)
    if winners:
        order[0] = lowest_nb(winners)
        n = 1
        moves &= ~bit_nb(order[0])
    for part in (moves & COLONS, moves & ~trumps & ~COLONS, moves & trumps):
        n = _push_lowest_first_nb(order, n, part)
    return n


@njit(cache=True, inline="always")
def order_euchre_nb(order, moves, ctx, seat, played, lead, trick_best, trick_best_seat, best, in_play):
    """Cards to try: the table's best lead first, then (leading) ``_order_euchre_leads_nb``
    or (following) the cheapest card that takes the trick from the opponents for good; then
    the rest from the lowest, side cards before trumps."""
    n = 0
    if best >= 0 and moves & bit_nb(best):
        order[0] = best
        n = 1
        moves &= ~bit_nb(best)
    if ctx.techniques & USE_ORDER and moves:
        if played == 0:
            n, moves = _order_euchre_leads_nb(order, n, moves, ctx.hands, seat, ctx.segs, in_play)
        else:
            c = _euchre_overtake_nb(moves, ctx, seat, played, lead, trick_best, trick_best_seat)
            if c >= 0:
                order[n] = c
                n += 1
                moves &= ~bit_nb(c)
    for part in (moves & ~ctx.segs[0], moves & ctx.segs[0]):
        n = _push_lowest_first_nb(order, n, part)
    return n


@njit(cache=True, inline="always")
def _order_euchre_leads_nb(order, n, moves, hands, seat, segs, in_play):
    """Leads to try, side suits before trumps (cut-offs come sooner that way), each in
    steps: the top card in play of a suit; a low card of a suit whose top card the partner
    holds; a low card of a suit the partner can ruff; the highest card of any other suit.
    A suit an opponent can ruff (void, holding trumps) is left to the rest."""
    partner, opp1, opp2 = hands[(seat + 2) % 4], hands[(seat + 1) % 4], hands[(seat + 3) % 4]
    trumps = segs[0]
    for trump_suit in (False, True):
        for step in range(4):
            for k in range(0 if trump_suit else 1, 1 if trump_suit else 4):
                mine = moves & segs[k]
                if mine == ZERO:
                    continue
                if k > 0 and ((opp1 & segs[k] == ZERO and opp1 & trumps != ZERO)
                              or (opp2 & segs[k] == ZERO and opp2 & trumps != ZERO)):
                    continue
                top = highest_nb(in_play & segs[k])
                if step == 0 and highest_nb(mine) == top:
                    c = top
                elif step == 1 and partner & bit_nb(top):
                    c = lowest_nb(mine)
                elif step == 2 and k > 0 and partner & segs[k] == ZERO and partner & trumps != ZERO:
                    c = lowest_nb(mine)
                elif step == 3:
                    c = highest_nb(mine)
                else:
                    continue
                order[n] = c
                n += 1
                moves &= ~bit_nb(c)
    return n, moves


@njit(cache=True, inline="always")
def _euchre_overtake_nb(moves, ctx, seat, played, lead, trick_best, trick_best_seat):
    """A follower's card to try first, or -1: while the opponents win the trick, or could
    still overtake the partner's card, the cheapest card that takes it beyond the reach of
    the opponents still to play (failing that, while the opponents win, the cheapest that
    takes it at all)."""
    power, seg_of = ctx.power, ctx.seg_of
    # The strongest card the opponent still to play (at most one: seats alternate between
    # the teams) can put on the trick, -1 if none.
    threat = -1
    s = seat
    for _ in range((4 if ctx.out_seat < 0 else 3) - played - 1):
        s = next_seat_nb(s, ctx.out_seat)
        if s % 2 != seat % 2:
            hand = ctx.hands[s]
            held = hand & ctx.segs[seg_of[lead]]
            if held:
                threat = highest_nb(held)
            elif hand & ctx.segs[0]:
                threat = highest_nb(hand & ctx.segs[0])
    theirs = trick_best_seat % 2 != seat % 2
    if not theirs and (threat < 0 or not euchre_layout_beats_nb(threat, trick_best, power, seg_of)):
        return -1
    first = -1
    rest = moves
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if euchre_layout_beats_nb(c, trick_best, power, seg_of):
            if threat < 0 or not euchre_layout_beats_nb(threat, c, power, seg_of):
                return c
            if first < 0 and theirs:
                first = c
    return first
