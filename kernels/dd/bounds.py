"""Bounds that answer a node without searching it: the contract games' quick tricks and
top trumps, and their last two tricks played out; Bid Euchre's sure trumps and its last
two tricks by plain minimax."""

import numpy as np
from numba import njit

from kernels.cards import COLONS, ONE, RANGE_MASKS, SUIT_MASKS, ZERO, bit_nb, highest_nb, lowest_nb, popcount_nb
from kernels.dd.layout import PAIR_LOWS, euchre_follow_nb, euchre_layout_beats_nb, next_seat_nb
from kernels.tricks import follow_legal_nb, lead_legal_nb, trick_nb


@njit(cache=True, inline="always")
def above_nb(cards):
    """The bits above the highest card of ``cards`` (every bit when empty)."""
    return ~ZERO if cards == ZERO else ~((bit_nb(highest_nb(cards)) << ONE) - ONE)


@njit(cache=True)
def top_run_nb(hand, other, trumps):
    """How many of the highest trumps in play ``hand`` holds in a row: each takes a trick of
    its own whoever leads (C-3; a Colon never beats a trump, B-8..B-10)."""
    return popcount_nb(hand & trumps & above_nb(other & trumps))


@njit(cache=True)
def later_tricks_nb(hand, other, trump):
    """A lower bound on the tricks ``hand`` takes against ``other`` whoever leads: its top
    trumps (``top_run_nb``) and, with no Colon in play, in each side suit of which
    ``other`` holds cards, as many of its cards above all of ``other``'s as ``other``
    holds of the suit (C-3). ``hand`` keeps those cards: it plays a top card when the suit
    is led and a top trump when it ruffs; it cashes them when it gets the lead, the side
    suits first, so that ``other``, holding each such suit, must follow; and it never has
    to discard one, as it is void in the suit led only while holding fewer such cards
    than ``other`` holds cards outside that suit, and so another card."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    n = popcount_nb(hand & trumps & above_nb(other & trumps))
    if (hand | other) & COLONS == ZERO:
        for s in range(4):
            theirs = other & SUIT_MASKS[s]
            if s != trump and theirs != ZERO:
                n += min(popcount_nb(hand & SUIT_MASKS[s] & above_nb(theirs)), popcount_nb(theirs))
    return n


@njit(cache=True)
def quick_tricks_nb(hand, other, trump, barred):
    """A lower bound on the tricks the leader (``hand``) takes against ``other``: the winners
    it can cash one after another. In each suit, the top cards in play that it holds (in a
    trump contract, a side suit only while ``other`` must follow or has no trump), and each
    Colon ``other`` cannot beat (B-9). The leader cashes a winner of a suit it is not barred
    from; it is stuck only when barred from the one suit whose winners remain. A block by
    a Colon of ``other`` (B-8) still loses the trick and bars the suit, and is possible only
    in a suit whose winners include a card of that Colon's range: stuck after it, the leader
    loses at most the rest of that suit, so at most the largest such suit's winners but
    one; barred from the start, at most the barred suit's.

    A suit none of whose cards in ``hand`` a Colon of ``other`` can block, and whose
    winners are at least as many as ``other``'s cards of it, runs to its length (C-3:
    ``other`` must follow until void); trumps that so run are drawn first (unless the leader
    is barred from them), after which every side suit counts as in no-trump."""
    n = 0
    blockable = ZERO  # the ranges of the Colons ``other`` holds
    for k in range(3):
        if other & (ONE << np.uint64(52 + k)):
            blockable |= RANGE_MASKS[k]
    other_trumps = trump >= 0 and other & SUIT_MASKS[trump] != ZERO
    if other_trumps and barred != trump and hand & SUIT_MASKS[trump] & blockable == ZERO:
        trumps = SUIT_MASKS[trump]
        if popcount_nb(hand & trumps & above_nb(other & trumps)) >= popcount_nb(other & trumps):
            other_trumps = False  # drawn first
    for k in range(3):
        if hand & (ONE << np.uint64(52 + k)) and not other_trumps and other & RANGE_MASKS[k] == ZERO:
            n += 1
    barred_winners = most = 0
    for s in range(4):
        mine = hand & SUIT_MASKS[s]
        theirs = other & SUIT_MASKS[s]
        run = mine & above_nb(theirs)
        top = popcount_nb(run)
        if other_trumps and s != trump:
            top = min(top, popcount_nb(theirs))
        elif mine & blockable == ZERO and top >= popcount_nb(theirs):
            top = popcount_nb(mine)
        n += top
        if run & blockable:
            most = max(most, top)
        if s == barred:
            barred_winners = top
    if most > 0:
        return n - max(most - 1, barred_winners)
    return n if n > barred_winners else 0


@njit(cache=True)
def last_tricks_nb(lead_hand, follow_hand, lead, barred, trump, when_void):
    """Tricks the leader takes of the last one or two, with best play by both: the leader
    picks its lead (``lead`` >= 0: already led), the follower its answer, then the last
    cards fall (B-8's bar cannot matter with one card left)."""
    leads = bit_nb(lead) if lead >= 0 else lead_legal_nb(lead_hand, barred)
    best = -1
    while leads:
        c = lowest_nb(leads)
        leads &= leads - ONE
        rest_lead = lead_hand & ~bit_nb(c)
        worst = 3
        follows = follow_legal_nb(follow_hand, c, when_void)
        while follows:
            f = lowest_nb(follows)
            follows &= follows - ONE
            rest_follow = follow_hand & ~bit_nb(f)
            leader_wins, _ = trick_nb(c, f, trump)
            won = 1 if leader_wins else 0
            if rest_follow:
                if leader_wins:
                    won += trick_nb(lowest_nb(rest_lead), lowest_nb(rest_follow), trump)[0]
                else:
                    won += not trick_nb(lowest_nb(rest_follow), lowest_nb(rest_lead), trump)[0]
            worst = min(worst, won)
        best = max(best, worst)
    return best


@njit(cache=True, inline="always")
def last_trick_nb(ctx, played, trick_best, trick_best_seat, to_play):
    """The winner of the last trick, every seat from ``to_play`` on holding one card."""
    best, best_seat = trick_best, trick_best_seat
    n_active = 4 if ctx.out_seat < 0 else 3
    seat = to_play
    for _ in range(n_active - played):
        c = lowest_nb(ctx.hands[seat])
        if best < 0 or euchre_layout_beats_nb(c, best, ctx.power, ctx.seg_of):
            best, best_seat = c, seat
        seat = (seat + 1) % 4
        if seat == ctx.out_seat:
            seat = (seat + 1) % 4
    return best_seat


@njit(cache=True, inline="always")
def sure_trumps_nb(hands, trumps, double_deck):
    """(team 0's, team 1's) sure tricks from trumps: a trump above every trump the other
    team holds wins the trick it is played to (in the double deck, above both copies of
    the other team's highest: of two identical cards the first played wins, and a partner's
    copy wins for the team all the same), and one hand's cards go to different tricks, so a
    team takes at least as many tricks as either of its hands holds such trumps; the other
    team takes at most the rest."""
    t0 = (hands[0] | hands[2]) & trumps
    t1 = (hands[1] | hands[3]) & trumps
    if double_deck:  # each pair of copies starts at an even bit (kernels.dd.layout)
        t0 |= (t0 & PAIR_LOWS) << ONE
        t1 |= (t1 & PAIR_LOWS) << ONE
    above1, above0 = above_nb(t1), above_nb(t0)
    sure0 = max(popcount_nb(hands[0] & trumps & above1), popcount_nb(hands[2] & trumps & above1))
    sure1 = max(popcount_nb(hands[1] & trumps & above0), popcount_nb(hands[3] & trumps & above0))
    return sure0, sure1


@njit(cache=True, inline="always")
def _winner_nb(c0, c1, c2, c3, s1, s2, s3, leader, power, seg_of):
    """The seat winning a trick led by ``leader`` with ``c0``, then ``c1`` by ``s1`` ... (c3
    -1 in a three-card trick)."""
    best, best_seat = c0, leader
    if euchre_layout_beats_nb(c1, best, power, seg_of):
        best, best_seat = c1, s1
    if euchre_layout_beats_nb(c2, best, power, seg_of):
        best, best_seat = c2, s2
    if c3 >= 0 and euchre_layout_beats_nb(c3, best, power, seg_of):
        best_seat = s3
    return best_seat


@njit(cache=True)
def last_two_tricks_nb(ctx, leader, side, target):
    """Can team ``side`` take ``target`` of the last two tricks, every active hand holding
    two cards and ``leader`` to lead? The ways to play the first trick (at most 16), each
    followed by the forced last trick, by plain minimax that stops at a seat as soon as one
    card settles the answer for its team."""
    hands, power, seg_of, segs, out = ctx.hands, ctx.power, ctx.seg_of, ctx.segs, ctx.out_seat
    s1 = next_seat_nb(leader, out)
    s2 = next_seat_nb(s1, out)
    s3 = next_seat_nb(s2, out) if out < 0 else -1
    h0, h1, h2 = hands[leader], hands[s1], hands[s2]
    # At each seat: a card that reaches the target settles it for the side (``mine``), one
    # that misses it for the other team.
    mine0, mine1, mine2, mine3 = leader % 2 == side, s1 % 2 == side, s2 % 2 == side, s3 % 2 == side
    ok0, rest0 = not mine0, h0
    while rest0:
        c0 = lowest_nb(rest0)
        rest0 &= rest0 - ONE
        ok1, rest1 = not mine1, euchre_follow_nb(h1, c0, segs, seg_of)
        while rest1:
            c1 = lowest_nb(rest1)
            rest1 &= rest1 - ONE
            ok2, rest2 = not mine2, euchre_follow_nb(h2, c0, segs, seg_of)
            while rest2:
                c2 = lowest_nb(rest2)
                rest2 &= rest2 - ONE
                # Three-handed (E-6): one pass with no fourth card.
                ok3, rest3 = not mine3, euchre_follow_nb(hands[s3], c0, segs, seg_of) if s3 >= 0 else ONE
                while rest3:
                    c3 = lowest_nb(rest3) if s3 >= 0 else -1
                    rest3 &= rest3 - ONE
                    w = _winner_nb(c0, c1, c2, c3, s1, s2, s3, leader, power, seg_of)
                    # The last trick: every hand's other card, the first trick's winner leading.
                    gone = ~(bit_nb(c0) | bit_nb(c1) | bit_nb(c2) | (bit_nb(c3) if c3 >= 0 else ZERO))
                    t1 = next_seat_nb(w, out)
                    t2 = next_seat_nb(t1, out)
                    t3 = next_seat_nb(t2, out) if out < 0 else -1
                    w2 = _winner_nb(lowest_nb(hands[w] & gone), lowest_nb(hands[t1] & gone),
                                    lowest_nb(hands[t2] & gone), lowest_nb(hands[t3] & gone) if t3 >= 0 else -1,
                                    t1, t2, t3, w, power, seg_of)
                    if (int(w % 2 == side) + int(w2 % 2 == side) >= target) == mine3:
                        ok3 = mine3
                        break
                if ok3 == mine2:
                    ok2 = mine2
                    break
            if ok2 == mine1:
                ok1 = mine1
                break
        if ok1 == mine0:
            ok0 = mine0
            break
    return ok0
