"""The heuristic of Bid Euchre, and each decision's dispatch by policy: the E-10 joker
discard, the E-3 bids and trump, the E-4 exchange of an ask and the E-6 card play.
Cards are in the Bid Euchre layout of kernels.cards; bids are ladder ids (3.. first, then
the ask and the moon), EUCHRE_PASS a pass. ``copies`` is 2 with the double deck, else 1."""

import numpy as np
from numba import njit

from kernels.calls import EUCHRE_PASS
from kernels.cards import (
    EUCHRE_ACES, EUCHRE_KING, EUCHRE_POWER, EUCHRE_SUIT_OF, ONE, POWER_LEFT_BOWER, POWER_RIGHT_BOWER, POWER_TRUMP_ACE,
    POWER_TRUMP_KING, TRUMP_POWER, ZERO, bit_nb, lowest_nb, popcount_nb,
)
from kernels.policies.kinds import POLICY_RANDOM, pick_random_nb
from kernels.rng import below_nb
from kernels.tricks import euchre_beats_nb


@njit(cache=True)
def _euchre_extreme_nb(mask, trump, highest):
    """The card of ``mask`` with the highest (or lowest) power under ``trump``."""
    best, best_power = -1, -1 if highest else 10**6
    rest = mask
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        p = EUCHRE_POWER[trump, c]
        if (p > best_power) if highest else (p < best_power):
            best, best_power = c, p
    return best


@njit(cache=True)
def euchre_strength_nb(hand, trump, copies):
    """Tricks this hand expects to take by itself with ``trump``: trumps by rank, side aces.

    Trumps that head the suit without a gap (the right bower down, every copy of each
    rank held) are sure tricks; the joker of E-10 is not counted against them.
    """
    est = 0.0
    trumps = hand & EUCHRE_SUIT_OF[trump, trump]
    top = POWER_RIGHT_BOWER
    while top >= TRUMP_POWER:
        held = 0
        rest = trumps
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            held += EUCHRE_POWER[trump, c] == top
        if held < copies:
            break
        top -= 1
    rest = trumps
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        p = EUCHRE_POWER[trump, c]
        if p > top:
            est += 1.0
        else:
            est += (1.0 if p >= POWER_RIGHT_BOWER else 0.85 if p == POWER_LEFT_BOWER else
                    0.7 if p == POWER_TRUMP_ACE else 0.5 if p == POWER_TRUMP_KING else 0.35)
    n = popcount_nb(trumps)
    if n >= 3:
        est += 0.3 * (n - 2)
    est += 0.7 * popcount_nb(hand & EUCHRE_ACES & ~trumps)
    return est


@njit(cache=True)
def _best_trump_nb(hand, copies):
    """The suit this hand is strongest in, and its estimate."""
    best, best_est = 0, -1.0
    for t in range(4):
        e = euchre_strength_nb(hand, t, copies)
        if e > best_est:
            best, best_est = t, e
    return best, best_est


@njit(cache=True, inline="always")
def choose_euchre_discard_nb(pid, prm, hand, copies, rng):
    """E-10 joker: the dealer's discard before the auction: its weakest card."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(hand, rng)
    return heuristic_euchre_discard_nb(prm.heuristic, hand, copies)


@njit(cache=True)
def heuristic_euchre_discard_nb(h, hand, copies):
    """The heuristic's choice for ``choose_euchre_discard_nb``."""
    trump, _ = _best_trump_nb(hand, copies)
    return _euchre_extreme_nb(hand, trump, False)


@njit(cache=True, inline="always")
def choose_euchre_bid_nb(pid, prm, hand, legal, high, high_bidder, seat, tricks, copies, rng):
    """E-3: pass or a bid (ladder id). Bids the team's expected tricks in its best suit; asks
    or shoots the moon with a hand that expects (nearly) every trick."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_bid_nb(prm.heuristic, hand, legal, high, high_bidder, seat, tricks, copies)


@njit(cache=True)
def heuristic_euchre_bid_nb(h, hand, legal, high, high_bidder, seat, tricks, copies):
    """The heuristic's choice for ``choose_euchre_bid_nb``."""
    _, alone = _best_trump_nb(hand, copies)
    scale = tricks / 6.0
    levels = tricks - 3
    ask, moon = levels, levels + 1
    aggression = h.aggression
    choice = -1
    if alone + aggression >= tricks - 0.3 * scale:
        choice = moon
    elif alone + aggression + 0.8 * scale >= tricks - 0.5 * scale:
        choice = ask
    else:
        team = alone + aggression + 1.25 * scale  # what partner adds on average
        level = int(np.floor(team))
        if high_bidder >= 0 and (high_bidder - seat) % 2 == 0:
            level = int(np.floor(team - 1.5))  # do not overbid partner without a clear margin
        if level >= 3:
            choice = min(level - 3, levels - 1)
    while choice >= 0 and (legal & bit_nb(choice)) == ZERO:
        choice -= 1
    if choice >= 0 and choice > high:
        return choice
    if legal & bit_nb(EUCHRE_PASS):
        return EUCHRE_PASS
    return lowest_nb(legal)  # stuck dealer: the lowest bid


@njit(cache=True, inline="always")
def choose_euchre_trump_nb(pid, prm, hand, copies, rng):
    """E-3: the bidder names trump: its strongest suit."""
    if pid == POLICY_RANDOM:
        return below_nb(rng, 4)
    return heuristic_euchre_trump_nb(prm.heuristic, hand, copies)


@njit(cache=True)
def heuristic_euchre_trump_nb(h, hand, copies):
    """The heuristic's choice for ``choose_euchre_trump_nb``."""
    trump, _ = _best_trump_nb(hand, copies)
    return trump


@njit(cache=True, inline="always")
def choose_euchre_give_nb(pid, prm, legal, trump, rng):
    """E-4: a card the asking bidder gives partner: its least useful one."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_give_nb(prm.heuristic, legal, trump)


@njit(cache=True)
def heuristic_euchre_give_nb(h, legal, trump):
    """The heuristic's choice for ``choose_euchre_give_nb``."""
    return _euchre_extreme_nb(legal, trump, False)


@njit(cache=True, inline="always")
def choose_euchre_return_nb(pid, prm, legal, trump, rng):
    """E-4: a return of partner's choice (no trumps left): its best card."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_return_nb(prm.heuristic, legal, trump)


@njit(cache=True)
def heuristic_euchre_return_nb(h, legal, trump):
    """The heuristic's choice for ``choose_euchre_return_nb``."""
    return _euchre_extreme_nb(legal, trump, True)


@njit(cache=True, inline="always")
def choose_euchre_card_nb(pid, prm, hand, legal, lead, best, best_seat, seat, trump, bidder, played, rng):
    """E-6: a card to play. Leads trump from the top on the bidding side, cashes side aces,
    never overtakes a partner who is winning with a high card, wins as cheaply as it can."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_card_nb(prm.heuristic, hand, legal, lead, best, best_seat, seat, trump, bidder, played)


@njit(cache=True)
def heuristic_euchre_card_nb(h, hand, legal, lead, best, best_seat, seat, trump, bidder, played):
    """The heuristic's choice for ``choose_euchre_card_nb``."""
    trumps = legal & EUCHRE_SUIT_OF[trump, trump]
    if lead < 0:
        if trumps and (seat - bidder) % 2 == 0:
            top = _euchre_extreme_nb(trumps, trump, True)
            if EUCHRE_POWER[trump, top] >= POWER_LEFT_BOWER:
                return top
        aces = legal & EUCHRE_ACES & ~trumps
        if aces:
            return lowest_nb(aces)
        return _euchre_extreme_nb(legal, trump, False)
    winners = ZERO
    rest = legal
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if euchre_beats_nb(c, best, trump):
            winners |= bit_nb(c)
    partner_winning = (best_seat - seat) % 4 == 2
    strong = EUCHRE_POWER[trump, best] >= EUCHRE_KING  # a trump, or a plain king or ace
    if winners and not (partner_winning and strong and h.partner_aware > 0):
        return _euchre_extreme_nb(winners, trump, False)
    return _euchre_extreme_nb(legal, trump, False)
