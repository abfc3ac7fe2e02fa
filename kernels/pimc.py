"""Players that search: card play by sampling worlds and solving them double dummy (``pimc``).

At each card with a choice, a ``pimc`` seat deals the cards it cannot see ``worlds``
times, each deal drawn uniformly among those consistent with everything the seat knows,
values every legal card in each world with the double-dummy solver (kernels.dd: its side's
tricks from here, the trick in progress included; no more exactly than the choice needs,
``card_sums_nb``) and plays the card with the highest average, the lowest of equals (the
``dd`` seat's tie rule, so a seat whose knowledge fixes every hand plays exactly as
``dd``). With ``bid_worlds`` above 0 its calls are sampled as well: the call whose likely
contract has the best expected score over worlds in which the other seats' calls so far
are the heuristic's (``pimc_call_nb``; Bid Euchre's ``pimc_euchre_bid_nb``, and its trump,
``pimc_euchre_trump_nb``), only those worlds: with none the seat makes the heuristic's call
and the deal counts it ``unexplained``; otherwise its calls, and always its exchanges and
draws, are the heuristic's.

**What a seat knows.** Its own hand and every card played; in Bridgette its own discards
and the up-card (B-3: ``unseen`` of the deal kernel, which leaves out its discards and a
dead up-card; an up-card the seat cannot see is with the opponent: in its hand or among its
discards, never in the stock), how many cards each side discarded; in Draw Bridge the
draw phase, after which the unseen cards are exactly the opponent's hand (D-2: the stock
is gone); in Bid Euchre its own joker discard (E-10), and, as the asking bidder, the cards
it gave its partner and what the forced returns say of the partner's other trumps (E-4).
Play shows the rest (``observe_*``): a seat that does not follow suit holds none of it
(C-3, E-2's effective suits: a trump void is a void in the bowers too); a Colon played as a
B-10 last resort says every card left is such a Colon; leading a suit barred by B-8 says
every card left is of that suit. These are public and go to every seat's ``may_hold`` row.

**Uniform worlds.** The unseen cards go to *holders*: the hands of the other seats and the
places cards lie out of play (Bridgette: the opponent's discards and the undrawn stock;
Bid Euchre: the joker discard, the hand of a partner who sits out), each holder taking a
known number of cards from the set it may hold. ``world_table_nb`` counts, for every card
(in a fixed order) and every vector of holders' remaining room, the ways to place that
card and the later ones; ``sample_world_nb`` places the cards one by one, each in a
holder with probability (ways after it) / (ways before). The product of these
probabilities is 1 / (number of consistent deals): every consistent deal has the same
chance, whatever the constraints (no rejection, no bias from placing constrained cards
first). The counts are float64 (below 2**63 for every deal of these games: exact enough
that the bias is under 1e-15). Should the constraints admit no deal (a replayed renege
that showed a false void), they are dropped and the counts and places alone apply.

**Kept worlds (Bridgette's ``keep``, on by default).** A seat that keeps its worlds starts
each card from the worlds of its last card that are still consistent (``kept_worlds_nb``):
those whose opponent held the cards played since and still fits every void shown, less
those cards; fresh draws make up the number. A world drawn uniformly among the deals
consistent then that is still consistent is uniform among the deals consistent now; but
the kept worlds are not independent of the card the seat chose on them: it keeps to the
reading of the hands it played by. Their positions are in the table from the last card's
searches, so they cost little (a third of a Bridgette seat's worlds are kept; it searches
about 12% fewer nodes). Where the seat has learned anything else (a draw, a count that
moved, dropped constraints), every world is drawn afresh.

**Reproducible.** Each decision with a choice takes one number from the game's policy
stream (kernels.rng, SplitMix64) and samples its worlds from a SplitMix64 stream started
there, so a game's choices are a pure function of (seed, game index) for any thread count,
block size or cluster, and a decision consumes the same amount of the shared stream
however many worlds it samples. The search context ``dd`` (kernels.dd, with its table) is
the game's own; positions of different worlds share its table safely (entries are keyed on
the whole position and kept while the trump and rules stay the same, ``renew_nb``).
"""

import numpy as np
from numba import njit

from kernels.cards import (
    ALL_SUITED, CARD_CLASS, EUCHRE_EFF_SUIT, EUCHRE_JOKER, EUCHRE_POWER, EUCHRE_SUIT_OF, NONE, NOUGHT, ONE, SUIT_MASKS,
    ZERO, bit_nb, cards_of_nb, highest_nb, lowest_nb, popcount_nb,
)
from kernels.dd import (
    EUCHRE_FROM_LAYOUT, card_bound_nb, card_value_nb, contract_at_nb, contract_representatives_nb,
    contract_rules_nb, contract_segs_nb, euchre_at_nb, euchre_follow_nb, euchre_load_nb, euchre_representatives_nb,
    euchre_share_runs_nb, renew_nb, search_table_nb, value_near_nb,
)
from kernels.calls import (
    ASKING, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, EUCHRE_PASS, N_BIDS, STRAIN_BIDS, WITH_PARTNER,
    euchre_bid_kind_nb, euchre_legal_bids_nb, legal_calls_nb,
)
from kernels.policies import (
    POLICY_HEURISTIC, POLICY_SEARCH, calls_by_worlds_nb, heuristic_call_nb, heuristic_euchre_bid_nb,
    heuristic_euchre_give_nb, heuristic_euchre_return_nb, heuristic_euchre_trump_nb, reads_calls_in_play_nb,
    searches_calls_nb,
)
from kernels.rng import next_u64_nb
from kernels.step import KEPT_HOLDERS, MAX_KEPT, MAX_SEATS, POLICY_SCRIPT, note_unexplained_nb
from kernels.tricks import highest_trumps_nb

# ``facts`` of the seats record (kernels.step): Bridgette's up-card (card + 1; 0 none known)
# and how many cards each seat discarded (B-3); Bid Euchre's joker dealer (seat + 1; 0: no
# joker discard, E-10).
FACT_UPCARD, FACT_DISCARDS = 0, 1
FACT_JOKER_DEALER = 0

MAX_HOLDERS = 4
BID_TRIES = 50  # draws per world wanted before a pimc seat's calls make do with fewer worlds
_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53
EXPLAINED_TRIES = 200  # draws per world wanted before a search seat's card play makes do with fewer


# --- What seats learn ------------------------------------------------------------------------

@njit(cache=True)
def note_bridgette_exchange_nb(seats, upcard, discarded0, discarded1):
    """B-3, public once the exchange is over: the up-card and how many cards each seat
    discarded (its draw, set by the rules and the up-card's class)."""
    seats.facts[FACT_UPCARD] = upcard + 1
    seats.facts[FACT_DISCARDS] = popcount_nb(discarded0)
    seats.facts[FACT_DISCARDS + 1] = popcount_nb(discarded1)


@njit(cache=True)
def note_joker_discard_nb(seats, dealer, card):
    """E-10: the joker dealer knows its discard; the others know only that one card lies
    out of play."""
    seats.aside[dealer] |= bit_nb(card)
    seats.facts[FACT_JOKER_DEALER] = dealer + 1


@njit(cache=True)
def note_ask_exchange_nb(seats, bidder, given, returned, trump):
    """E-4, what the asking bidder learns: the cards it gave stay with the partner, who sits
    out; the partner's trumps came back from the top, so the partner keeps none above the
    lowest returned (none at all when it returned fewer trumps than it gave cards)."""
    seats.aside[bidder] |= given
    partner = (bidder + 2) % 4
    trumps = EUCHRE_SUIT_OF[trump, trump]
    forced = returned & trumps
    if popcount_nb(forced) < popcount_nb(given):
        seats.may_hold[bidder, partner] &= ~trumps
        return
    floor = 10**6
    rest = forced
    while rest:
        floor = min(floor, EUCHRE_POWER[trump, lowest_nb(rest)])
        rest &= rest - ONE
    rest = trumps
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if EUCHRE_POWER[trump, c] > floor:
            seats.may_hold[bidder, partner] &= ~bit_nb(c)


@njit(cache=True, inline="always")
def _shown_nb(seats, seat, gone):
    """Every seat now knows ``seat`` holds none of ``gone``."""
    for s in range(MAX_SEATS):
        seats.may_hold[s, seat] &= ~gone


@njit(cache=True, inline="always")
def observe_contract_card_nb(seats, seat, card, lead, barred, when_void):
    """C-3 with B-8..B-10: what a legal card shows of the hand it came from. Not following
    a suited lead with a suited card shows a void (so does a Colon outside the lead's range
    under ``when_void``; under ``last_resort`` it shows that only such Colons are left);
    leading a suit barred by B-8 shows that every card left is of that suit. The card itself
    joins what ``seat`` has played (``seats.played``)."""
    seats.played[seat] |= bit_nb(card)
    if lead < 0:
        if barred >= 0 and card < 52 and card // 13 == barred:
            _shown_nb(seats, seat, ~SUIT_MASKS[barred])
        return
    if lead >= 52 or card == 52 + CARD_CLASS[lead] or (card < 52 and card // 13 == lead // 13):
        return
    if card < 52 or when_void:
        _shown_nb(seats, seat, SUIT_MASKS[lead // 13])
    else:
        _shown_nb(seats, seat, ALL_SUITED | bit_nb(52 + CARD_CLASS[lead]))


@njit(cache=True)
def note_euchre_auction_nb(seats, dealer, tricks, stick_the_dealer, bidder, bid):
    """E-3, public once the auction is over: what a ``search`` seat's card play reads of it
    (``seats.calls`` holds the four calls)."""
    a = seats.auction
    a[0], a[1], a[2], a[3], a[4], a[5] = 4, dealer, tricks, stick_the_dealer, bidder, bid


@njit(cache=True, inline="always")
def observe_euchre_card_nb(seats, seat, card, lead, trump):
    """C-3 over E-2: a card off the effective suit led shows a void in that suit. The card
    joins what ``seat`` has played (``seats.played``)."""
    seats.played[seat] |= bit_nb(card)
    if lead >= 0 and EUCHRE_EFF_SUIT[trump, card] != EUCHRE_EFF_SUIT[trump, lead]:
        _shown_nb(seats, seat, EUCHRE_SUIT_OF[trump, EUCHRE_EFF_SUIT[trump, lead]])


# --- Uniform consistent worlds -------------------------------------------------------------------

@njit(cache=True)
def world_table_nb(cards, counts, allowed):
    """Counts of consistent deals: ``ways[i, state]`` is the number of ways to place
    ``cards[i:]`` in the holders when their remaining room is ``state`` (mixed radix:
    holder ``h`` has room ``state // stride[h] % (counts[h] + 1)``), holder ``h`` taking
    only cards of ``allowed[h]``. The full deal is ``ways[0, stride[-1] - 1]``. Returns
    (ways, stride)."""
    m, n = counts.shape[0], cards.shape[0]
    stride = np.empty(m + 1, dtype=np.int64)
    stride[0] = 1
    for h in range(m):
        stride[h + 1] = stride[h] * (counts[h] + 1)
    n_states = stride[m]
    room = np.empty((n_states, m), dtype=np.int64)
    total = np.zeros(n_states, dtype=np.int64)
    for state in range(n_states):
        for h in range(m):
            room[state, h] = (state // stride[h]) % (counts[h] + 1)
            total[state] += room[state, h]
    ways = np.zeros((n + 1, n_states))
    ways[n, 0] = 1.0
    for i in range(n - 1, -1, -1):
        c = bit_nb(cards[i])
        for state in range(n_states):
            if total[state] != n - i:  # room must match the cards left
                continue
            w = 0.0
            for h in range(m):
                if room[state, h] > 0 and allowed[h] & c:
                    w += ways[i + 1, state - stride[h]]
            ways[i, state] = w
    return ways, stride


@njit(cache=True, inline="always")
def uniform_nb(state):
    """A uniform float in [0, 1) from 53 bits of the stream."""
    return np.float64(next_u64_nb(state) >> _S11) * _UNIT


@njit(cache=True)
def sample_world_nb(ways, stride, cards, counts, allowed, rng, out):
    """One consistent deal, uniform among all (``world_table_nb``): ``out[h]`` the cards of
    holder ``h``. Each card goes to a holder with probability (ways left after placing it
    there) / (ways before)."""
    m = counts.shape[0]
    state = stride[m] - 1
    for h in range(m):
        out[h] = ZERO
    for i in range(cards.shape[0]):
        c = bit_nb(cards[i])
        r = uniform_nb(rng) * ways[i, state]
        chosen = -1
        for h in range(m):
            if allowed[h] & c and (state // stride[h]) % (counts[h] + 1) > 0:
                w = ways[i + 1, state - stride[h]]
                if w > 0.0:
                    chosen = h  # the last holder with room takes any rounding remainder
                    if r < w:
                        break
                    r -= w
        out[chosen] |= c
        state -= stride[chosen]


@njit(cache=True)
def deal_table_nb(unseen, counts, allowed):
    """The cards of ``unseen`` in order and the counts of their consistent deals; when the
    constraints admit none, the table without them (each holder may take any unseen card).
    Returns (cards, ways, stride, allowed used, number of deals)."""
    cards = cards_of_nb(unseen)
    ways, stride = world_table_nb(cards, counts, allowed)
    top = stride[counts.shape[0]] - 1
    if ways[0, top] == 0.0:
        allowed = np.full(counts.shape[0], unseen, dtype=np.uint64)
        ways, stride = world_table_nb(cards, counts, allowed)
    return cards, ways, stride, allowed, ways[0, top]


@njit(cache=True, inline="always")
def worlds_of_nb(seats, seat, n_deals):
    """How many worlds to solve: the seat's ``worlds``, or one when only one deal fits."""
    return 1 if n_deals == 1.0 else max(1, np.int64(seats.prm[seat].pimc.worlds))


@njit(cache=True, inline="always")
def decision_stream_nb(seats):
    """The worlds' stream of one decision: started from one draw of the policy stream."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = next_u64_nb(seats.rng)
    return rng


# --- Choosing a card over worlds ----------------------------------------------------------------

@njit(cache=True)
def best_of_nb(cards, sums):
    """The card of ``cards`` with the highest sum of values over the worlds, the lowest of
    equals."""
    chosen, value = -1, -1
    while cards:
        c = lowest_nb(cards)
        cards &= cards - ONE
        if sums[c] > value:
            chosen, value = c, sums[c]
    return chosen


@njit(cache=True)
def _refine_nb(tt, dd, euchre, to_move, pos, held, value, bounded, first, sums, c):
    """``card_sums_nb``: search ``c`` once more, at its bound, in the world where it is only
    bounded and its bound lies furthest above the value of that world's first card
    (``first``; the earliest such world): exact there if it reaches its bound, else
    bounded tighter, its sum lowered to match. False when it is exact in every world."""
    pick = -1
    for w in range(held.shape[0]):
        if bounded[w, c] and (pick < 0 or value[w, c] - first[w] > value[pick, c] - first[pick]):
            pick = w
    if pick < 0:
        return False
    dd.hands[:] = held[pick]
    bound = value[pick, c]
    v = min(card_bound_nb(tt, dd, euchre, to_move, pos, c, bound), bound)
    sums[c] -= bound - v
    value[pick, c], bounded[pick, c] = v, v < bound
    return True


@njit(cache=True)
def card_sums_nb(dd, euchre, to_move, pos, moves, held, sums):
    """Add to ``sums[c]``, for each card ``c`` of ``moves``, its double-dummy value (as
    ``card_bound_nb``) summed over the worlds ``held[w]`` (the hands, as ``dd.hands``
    takes them), exact where the choice needs it: ``best_of_nb(moves, sums)`` is then the
    card with the best exact average (the lowest of equals), and its sum is exact; every
    other sum is an upper bound, below the best for the cards below the chosen one.

    In each world the card best so far (the *leader*; the lowest card in the first world)
    is valued exactly and every other card is searched once, from the highest sum so far
    (the lowest of equals), for one trick more than the best card of the world so far: it
    is valued exactly only where it reaches that, and is then the best so far; elsewhere
    the best card's value bounds it. Then the card with the highest sum (the lowest of
    equals) is searched again at its bound where it is only bounded (``_refine_nb``), until
    that card is exact in every world: the cards below it have lower sums and the cards
    above it cannot beat it on a tie. Exact values step from a guess: the leader's from
    its value in the last world, a card that beats the best so far upwards from there."""
    n_w = held.shape[0]
    n = popcount_nb(held[0, to_move])
    value = np.zeros((n_w, 64), dtype=np.int64)
    bounded = np.zeros((n_w, 64), dtype=np.bool_)  # value[w, c] only an upper bound
    first = np.zeros(n_w, dtype=np.int64)  # the leader's value in each world
    leader = lowest_nb(moves)
    tt = search_table_nb(dd, euchre)
    for w in range(n_w):
        dd.hands[:] = held[w]
        top = card_value_nb(tt, dd, euchre, to_move, pos, leader, value[w - 1, leader] if w > 0 else -1, NOUGHT, n)
        value[w, leader] = first[w] = top  # top: from here on, the best value of the world so far
        rest = moves & ~bit_nb(leader)
        while rest:
            c = best_of_nb(rest, sums)
            rest &= ~bit_nb(c)
            bound = card_bound_nb(tt, dd, euchre, to_move, pos, c, top + 1) if top < n else top
            if bound > top:
                value[w, c] = top = card_value_nb(tt, dd, euchre, to_move, pos, c, bound + 1, bound, n)
            else:
                value[w, c], bounded[w, c] = bound, True
        rest = moves
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            sums[c] += value[w, c]
        leader = best_of_nb(moves, sums)
    while _refine_nb(tt, dd, euchre, to_move, pos, held, value, bounded, first, sums, best_of_nb(moves, sums)):
        pass


# --- Bridgette and Draw Bridge ---------------------------------------------------------------------

@njit(cache=True)
def contract_deals_nb(seats, seat, hands, unseen):
    """The consistent deals of the cards ``seat`` has not seen (``unseen``: not its hand,
    discards, the dead up-card or a card played) in the two-player games: (cards, ways,
    stride, counts, allowed, number of deals) for ``sample_world_nb``, the opponent's hand
    the first holder.

    Holders: the opponent's hand (its count, the cards play has not ruled out); where the
    up-card is unseen, the opponent's discards (their count) and the undrawn stock (the
    rest, never the up-card); else one holder for discards and stock together."""
    opp = 1 - seat
    n_unseen = popcount_nb(unseen)
    n_opp = popcount_nb(hands[opp])
    up = seats.facts[FACT_UPCARD] - 1
    d_opp = seats.facts[FACT_DISCARDS + opp]
    split = up >= 0 and unseen & bit_nb(up) != ZERO and n_unseen - n_opp - d_opp >= 0
    m = 3 if split else 2
    counts = np.empty(m, dtype=np.int64)
    allowed = np.empty(m, dtype=np.uint64)
    counts[0], allowed[0] = n_opp, seats.may_hold[seat, opp] & unseen
    if split:
        counts[1], allowed[1] = d_opp, unseen
        counts[2], allowed[2] = n_unseen - n_opp - d_opp, unseen & ~bit_nb(up)
    else:
        counts[1], allowed[1] = n_unseen - n_opp, unseen
    cards, ways, stride, allowed, n_deals = deal_table_nb(unseen, counts, allowed)
    return cards, ways, stride, counts, allowed, n_deals


@njit(cache=True)
def kept_worlds_nb(seats, seat, unseen, counts, allowed, holders):
    """The worlds of the seat's last card that stay consistent with what it knows now
    (``counts`` and ``allowed`` of ``contract_deals_nb`` over ``unseen``), in their order,
    into ``holders[:k]``; returns k. None when the seat has learned anything since but the
    cards the opponent played (its count down by as many, the other holders' the same, no
    holder allowed a card it was not allowed then): a kept world is then consistent when
    the opponent's hand in it held those cards and still fits what play has shown."""
    m, n = counts.shape[0], seats.kept_n[seat]
    before = seats.kept_unseen[seat]
    if n == 0 or unseen & ~before != ZERO:
        return 0
    played = popcount_nb(before & ~unseen)
    for h in range(KEPT_HOLDERS):
        if h >= m:
            if seats.kept_counts[seat, h] >= 0:
                return 0
        elif (seats.kept_counts[seat, h] - (played if h == 0 else 0) != counts[h]
              or allowed[h] & ~seats.kept_allowed[seat, h] != ZERO):
            return 0
    k = 0
    for w in range(min(n, holders.shape[0])):
        fits = True
        for h in range(m):  # into the next free row, kept only if every holder fits
            holders[k, h] = seats.kept[seat, w, h] & unseen
            fits = fits and popcount_nb(holders[k, h]) == counts[h] and holders[k, h] & ~allowed[h] == ZERO
        k += fits
    return k


@njit(cache=True)
def keep_worlds_nb(seats, seat, unseen, counts, allowed, holders):
    """Keep the worlds of this card (the first ``MAX_KEPT``) and what the seat knew."""
    m = counts.shape[0]
    n = min(holders.shape[0], MAX_KEPT)
    seats.kept_n[seat] = n
    seats.kept_unseen[seat] = unseen
    for h in range(KEPT_HOLDERS):
        seats.kept_counts[seat, h] = counts[h] if h < m else -1
        seats.kept_allowed[seat, h] = allowed[h] if h < m else ZERO
        for w in range(n):
            seats.kept[seat, w, h] = holders[w, h] if h < m else ZERO


@njit(cache=True)
def unexplained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, worlds):
    """No world explained what happened: the decision counts as ``unexplained`` and every
    row of ``worlds`` is drawn as ``pimc`` draws them; returns how many."""
    note_unexplained_nb(seats, seat)
    for w in range(worlds.shape[0]):
        sample_world_nb(ways, stride, cards, counts, allowed, rng, worlds[w])
    return worlds.shape[0]


@njit(cache=True)
def explained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holders, kept, gain):
    """Fill ``holders[kept:]`` with worlds of ``contract_deals_nb`` in which the opponent,
    modelled as the heuristic with this seat's parameters, would have made its calls of the
    auction (``seats.calls``, ``seats.auction``) from the hand it held then: its hand in the
    world with the cards it has played since. Exact rejection, at most
    ``EXPLAINED_TRIES`` draws per world wanted; returns how many worlds there are, the
    accepted ones first. The worlds kept from the seat's last card were explained then.
    With none explained, the model cannot read the opponent: the decision counts as
    ``unexplained`` and the seat plays over worlds drawn as ``pimc`` draws them."""
    n_w = holders.shape[0]
    opp = 1 - seat
    a = seats.auction
    model = seats.prm[seat].heuristic
    got = kept
    for _ in range(EXPLAINED_TRIES * (n_w - kept)):
        if got == n_w:
            break
        sample_world_nb(ways, stride, cards, counts, allowed, rng, holders[got])
        if calls_agree_nb(model, holders[got, 0] | seats.played[opp], opp, seats.calls, a[0], a[1], a[2], a[3],
                          a[4] != 0, a[5], gain, seats.odds[opp]):
            got += 1
    return got if got > 0 else unexplained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holders)


@njit(cache=True)
def pimc_contract_card_nb(dd, seats, seat, hands, legal, lead, barred, trump, when_void, unseen, gain):
    """B-7..B-10, D-4: the ``pimc`` card of ``seat``: the legal card with the best average
    double-dummy value over worlds sampled from ``contract_deals_nb``, the lowest of equals.
    A seat that reads the calls (``reads_calls_in_play_nb``) keeps only the worlds its model
    of the opponent explains (``explained_worlds_nb``; ``gain``: the deal scores the model's
    calls read)."""
    # Cards of the seat with no unseen card between them are worth the same in every world
    # (kernels.dd's equivalence, over every card that may be in play): solve one of each run;
    # with one run there is nothing to choose.
    in_play = hands[seat] | unseen
    if lead >= 0:
        in_play |= bit_nb(lead)
    moves = contract_representatives_nb(legal, hands[seat], in_play, in_play)
    if popcount_nb(moves) == 1:
        return lowest_nb(legal)
    rng = decision_stream_nb(seats)
    cards, ways, stride, counts, allowed, n_deals = contract_deals_nb(seats, seat, hands, unseen)
    n_w = worlds_of_nb(seats, seat, n_deals)
    holders = np.empty((n_w, counts.shape[0]), dtype=np.uint64)
    keep = seats.prm[seat].pimc.keep > 0
    kept = kept_worlds_nb(seats, seat, unseen, counts, allowed, holders) if keep else 0
    if reads_calls_in_play_nb(seats.pol[seat]) and seats.auction[0] > 0 and n_deals != 1.0:
        n_w = explained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holders, kept, gain)
        holders = holders[:n_w]
    else:
        for w in range(kept, n_w):
            sample_world_nb(ways, stride, cards, counts, allowed, rng, holders[w])
    if keep:
        keep_worlds_nb(seats, seat, unseen, counts, allowed, holders)
    held = np.zeros((n_w, 4), dtype=np.uint64)
    for w in range(n_w):
        held[w, seat], held[w, 1 - seat] = hands[seat], holders[w, 0]
    dd.trump, dd.when_void = trump, when_void
    renew_nb(dd, contract_rules_nb(trump, when_void))
    sums = np.zeros(64, dtype=np.int64)
    card_sums_nb(dd, False, seat, np.array([lead]), moves, held, sums)

    # A card left out takes the value of the next card above it in play (its run's top).
    skipped = legal & ~moves
    segs = contract_segs_nb(in_play)
    while skipped:
        c = highest_nb(skipped)
        skipped &= ~bit_nb(c)
        for k in range(segs.shape[0]):
            if segs[k] & bit_nb(c):
                above = in_play & segs[k] & ~((bit_nb(c) << ONE) - ONE)
                sums[c] = sums[lowest_nb(above)]
    return best_of_nb(legal, sums)


@njit(cache=True)
def calls_agree_nb(h, hand, seat, calls, n_calls, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits,
                   jump_min_cards, gain, odds):
    """Whether ``seat`` holding ``hand`` would have made its calls among the auction's
    ``calls`` so far as a heuristic with the parameters ``h`` (C-4 with B-6), ``odds``
    its memo of trick chances.
    """
    cur_bid, bidder, doubled = -1, -1, 0
    unseen = ~hand  # more cards than the hand: the heuristic counts from its own hand
    for i in range(n_calls):
        caller = (dealer + i) % 2
        call = calls[i]
        if caller == seat:
            legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards,
                                   nt_needs_all_suits, jump_min_cards)
            if heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, unseen, gain, odds) != call:
                return False
        if call == CALL_DOUBLE:
            doubled = 1
        elif call == CALL_REDOUBLE:
            doubled = 2
        elif call != CALL_PASS:
            cur_bid, bidder, doubled = call, caller, 0
    return True


@njit(cache=True)
def sample_bidding_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid, min_trump_cards,
                             nt_needs_all_suits, jump_min_cards, gain, wanted, tries):
    """The opponent's hands of up to ``wanted`` worlds from ``contract_deals_nb`` in which
    the opponent, modelled as a heuristic with this seat's parameters, would have made its
    calls so far: exact rejection (the model is deterministic) among at most ``tries``
    draws per world wanted (``pimc``: ``BID_TRIES``), and only those worlds: none when the
    model explains none of them (the caller then makes the heuristic's call and counts the
    deal's ``unexplained``). One number from the policy stream starts the draws. Also returns
    whether only one deal fits (the seat knows the deal whole: one world, the deal itself)."""
    rng = decision_stream_nb(seats)
    cards, ways, stride, counts, allowed, n_deals = contract_deals_nb(seats, seat, hands, unseen)
    n = 1 if n_deals == 1.0 else max(1, np.int64(wanted))
    out = np.empty(n, dtype=np.uint64)
    world = np.empty(counts.shape[0], dtype=np.uint64)
    model = seats.prm[seat].heuristic  # the opponent, modelled with this seat's parameters
    got = 0
    for _ in range(tries * n):
        sample_world_nb(ways, stride, cards, counts, allowed, rng, world)
        if n_deals == 1.0 or calls_agree_nb(model, world[0], 1 - seat, calls, n_calls, dealer, lowest_bid,
                                            min_trump_cards, nt_needs_all_suits, jump_min_cards, gain,
                                            seats.odds[1 - seat]):
            out[got] = world[0]
            got += 1
            if got == n:
                break
    return out[:got], n_deals == 1.0


@njit(cache=True)
def expected_scores_nb(dd, seat, hand, opponents, whole, gain, when_void, strain, declarer, value, known):
    """B-11..B-14, D-5/D-6: into ``value[bid, doubled]``, for every bid of ``strain`` played
    by ``declarer``, the expected deal score for ``seat`` (its points minus the opponent's,
    ``gain``) over worlds where the opponent holds ``opponents[w]``, the opponent of the
    declarer leading (as ``kernels.dd.contract_table_nb``); the worlds of a strain share
    the search context's table. With ``whole`` the one world is the deal itself (the seat
    knows it whole): its tricks are kept in ``known`` for the deal's later calls."""
    n_tricks = popcount_nb(hand)
    n = opponents.shape[0]
    sign = (1.0 if declarer == seat else -1.0) / n
    defence = -1  # the defenders' tricks in the last world: the next one's guess
    for w in range(n):
        if whole and known[strain, declarer] >= 0:
            defence = n_tricks - known[strain, declarer]
        else:
            if w == 0:
                dd.when_void = when_void
                dd.trump = strain if strain < 4 else -1
                renew_nb(dd, contract_rules_nb(dd.trump, when_void))
                dd.hands[2], dd.hands[3] = ZERO, ZERO
            dd.hands[seat], dd.hands[1 - seat] = hand, opponents[w]
            at = contract_at_nb(dd, 1 - declarer, -1, -1, 1 - declarer)
            defence = value_near_nb(search_table_nb(dd, False), dd, False, at, defence, NOUGHT, n_tricks)
            if whole:
                known[strain, declarer] = n_tricks - defence
        bids = STRAIN_BIDS[strain]
        while bids:
            bid = lowest_nb(bids)
            bids &= bids - ONE
            for doubled in range(3):
                value[bid, doubled] += sign * gain[doubled, bid, n_tricks - defence]


@njit(cache=True)
def pimc_call_nb(dd, seats, seat, hands, legal, cur_bid, bidder, doubled, unseen, gain, when_void, calls, n_calls,
                 dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards):
    """C-4 (B-5, B-6; D-3): the ``pimc`` call of ``seat``: the legal call whose likely
    contract has the best expected score over worlds consistent with what it knows and
    with the opponent's ``calls`` so far (``sample_bidding_worlds_nb``), the opponent
    answering a bid or a double as suits it best: a bid, that bid played by this seat
    undoubled or doubled, whichever is worse for it; a double, the contract doubled or
    redoubled, whichever is worse for it; a redouble, the contract redoubled; a pass, the
    contract as it stands (no bid yet: nothing, 0). Ties go to the pass, then the double,
    then the lowest bid. Only the strains a call needs are solved."""
    if legal == bit_nb(CALL_PASS):
        return CALL_PASS
    opponents, whole = sample_bidding_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid,
                                                min_trump_cards, nt_needs_all_suits, jump_min_cards, gain,
                                                seats.prm[seat].pimc.bid_worlds, BID_TRIES)
    if opponents.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return heuristic_call_nb(seats.prm[seat].heuristic, seat, hands[seat], legal, cur_bid, bidder, doubled, unseen,
                                 gain, seats.odds[seat])
    mine = np.zeros((N_BIDS, 3))
    call, best = CALL_PASS, 0.0
    if cur_bid >= 0:
        theirs = np.zeros((N_BIDS, 3))
        strain = BID_STRAIN[cur_bid]
        expected_scores_nb(dd, seat, hands[seat], opponents, whole, gain, when_void, strain, bidder,
                           mine if bidder == seat else theirs, seats.known_tricks[seat])
        stands = mine if bidder == seat else theirs
        best = stands[cur_bid, doubled]
        if legal & bit_nb(CALL_DOUBLE) and min(theirs[cur_bid, 1], theirs[cur_bid, 2]) > best:
            call, best = CALL_DOUBLE, min(theirs[cur_bid, 1], theirs[cur_bid, 2])
        if legal & bit_nb(CALL_REDOUBLE) and mine[cur_bid, 2] > best:
            call, best = CALL_REDOUBLE, mine[cur_bid, 2]
    bids = legal & ((ONE << np.uint64(N_BIDS)) - ONE)
    for strain in range(5):
        if bids & STRAIN_BIDS[strain] and not (cur_bid >= 0 and bidder == seat and strain == BID_STRAIN[cur_bid]):
            expected_scores_nb(dd, seat, hands[seat], opponents, whole, gain, when_void, strain, seat, mine,
                               seats.known_tricks[seat])
    while bids:
        bid = lowest_nb(bids)
        bids &= bids - ONE
        if min(mine[bid, 0], mine[bid, 1]) > best:
            call, best = bid, min(mine[bid, 0], mine[bid, 1])
    return call


# --- Bid Euchre --------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _to_layout_nb(cards, to_layout):
    out = ZERO
    while cards:
        out |= bit_nb(to_layout[lowest_nb(cards)])
        cards &= cards - ONE
    return out


@njit(cache=True)
def euchre_unseen_nb(seats, seat, hand, played, double_deck, joker):
    """The cards of the deck (E-1, E-10) that ``seat`` holding ``hand`` has not seen: not
    in its hand, not played, not set aside before its eyes."""
    deck = (ONE << np.uint64(48 if double_deck else 24)) - ONE
    if joker:
        deck |= bit_nb(EUCHRE_JOKER)
    return deck & ~hand & ~played & ~seats.aside[seat]


@njit(cache=True)
def euchre_holders_nb(seats, seat, hands, unseen, out_seat, counts, allowed, holder_seat):
    """Where the ``unseen`` cards of ``seat`` lie, into ``counts``, ``allowed`` and
    ``holder_seat`` (-1: out of play): the other seats that play (their counts, the cards
    play has not ruled out), a partner who sits out (the rest, less the cards the seat saw
    given to it; E-4's forced returns rule out its higher trumps for the bidder), and the
    joker dealer's discard (one card) for every seat but the dealer. Returns how many
    holders, or -1 when the counts do not add up (not a deal this seat can be in)."""
    m = 0
    placed = 0
    for k in range(1, 4):
        t = (seat + k) % 4
        if t == out_seat:
            continue
        counts[m], allowed[m], holder_seat[m] = popcount_nb(hands[t]), seats.may_hold[seat, t] & unseen, t
        placed += counts[m]
        m += 1
    dealer = seats.facts[FACT_JOKER_DEALER] - 1
    discard = 1 if dealer >= 0 and dealer != seat else 0
    n_unseen = popcount_nb(unseen)
    if out_seat >= 0 and out_seat != seat:
        counts[m], allowed[m] = n_unseen - placed - discard, seats.may_hold[seat, out_seat] & unseen
        placed += counts[m]
        m += 1
    if discard:
        counts[m], allowed[m] = 1, unseen
        placed += 1
        m += 1
    if placed != n_unseen or counts[:m].min() < 0:
        return -1
    return m


@njit(cache=True)
def pimc_euchre_card_nb(dd, seats, seat, hands, legal, trump, out_seat, double_deck, joker, leader, in_trick, lead,
                        best, best_seat, played):
    """E-6: the ``pimc`` card of ``seat`` (kernel card ids): the legal card with the best
    average double-dummy value for its team over sampled worlds, the lowest of equals in
    the solver layout (as ``dd``). ``played``: every card played this hand; the trick in
    progress was led by ``leader`` with ``lead``, ``best`` (by ``best_seat``) winning it
    after ``in_trick`` cards; the worlds place the unseen cards as ``euchre_holders_nb``. A
    seat that reads the calls (``reads_calls_in_play_nb``) keeps only the worlds its model of
    the other seats explains (``euchre_explained_worlds_nb``)."""
    if popcount_nb(legal) == 1:
        return lowest_nb(legal)
    rng = decision_stream_nb(seats)
    d, j = int(double_deck), int(joker)
    unseen = euchre_unseen_nb(seats, seat, hands[seat], played, d, j)
    counts = np.zeros(MAX_HOLDERS, dtype=np.int64)
    allowed = np.zeros(MAX_HOLDERS, dtype=np.uint64)
    holder_seat = np.full(MAX_HOLDERS, -1, dtype=np.int64)
    m = euchre_holders_nb(seats, seat, hands, unseen, out_seat, counts, allowed, holder_seat)
    if m < 0:
        return lowest_nb(legal)  # not a deal this seat can be in (the kernels never reach it)

    own_only = np.zeros(4, dtype=np.uint64)
    own_only[seat] = hands[seat]
    to_layout = euchre_load_nb(dd, own_only, trump, out_seat, d, j)
    own = dd.hands[seat]
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    # Cards of the seat with no card between them that may be in play (nor the trick's best)
    # are worth the same in every world (kernels.dd's equivalence): solve one of each run.
    in_play = own | _to_layout_nb(unseen, to_layout)
    if best_b >= 0:
        in_play |= bit_nb(best_b)
    legal_b = euchre_follow_nb(own, lead_b, dd.segs, dd.seg_of)
    moves = euchre_representatives_nb(legal_b, own, in_play, dd.segs, dd.group, dd.double_deck)
    sums = np.zeros(64, dtype=np.int64)
    if moves & (moves - ONE):
        cards, ways, stride, used, n_deals = deal_table_nb(unseen, counts[:m], allowed[:m])
        worlds = np.empty((worlds_of_nb(seats, seat, n_deals), m), dtype=np.uint64)
        n_w = worlds.shape[0]
        if reads_calls_in_play_nb(seats.pol[seat]) and seats.auction[0] > 0 and n_deals != 1.0:
            n_w = euchre_explained_worlds_nb(seats, seat, ways, stride, cards, counts[:m], used, rng, holder_seat[:m],
                                             out_seat, trump, 1 + d, worlds)
        else:
            for w in range(n_w):
                sample_world_nb(ways, stride, cards, counts[:m], used, rng, worlds[w])
        held = np.zeros((n_w, 4), dtype=np.uint64)
        for w in range(n_w):
            held[w, seat] = own
            for h in range(m):
                t = holder_seat[h]
                if t >= 0:
                    held[w, t] = _to_layout_nb(worlds[w, h], to_layout)
        card_sums_nb(dd, True, seat, np.array([leader, in_trick, lead_b, best_b, best_seat]), moves, held, sums)
        euchre_share_runs_nb(legal_b & ~moves, own, dd.segs, dd.seg_of, dd.group, sums)
    return EUCHRE_FROM_LAYOUT[d, j, trump, best_of_nb(legal_b, sums)]


# --- Bid Euchre's calls --------------------------------------------------------------------------

@njit(cache=True, inline="always")
def calls_as_heuristic_nb(pid, prm):
    """Whether a seat's calls are the heuristic's, so that its partner may read them with
    the model: every policy but ``random`` and those that search or sample their calls; a
    replayed seat's (``POLICY_SCRIPT``) are taken to be."""
    return (pid == POLICY_SCRIPT or POLICY_HEURISTIC <= pid <= POLICY_SEARCH) and not searches_calls_nb(pid, prm) \
        and not calls_by_worlds_nb(pid, prm)


@njit(cache=True)
def euchre_calls_agree_nb(h, hands, unread, calls, n_calls, dealer, tricks, copies, stick_the_dealer):
    """Whether every seat not in the bit set ``unread``, holding ``hands``, would have made
    its calls among the auction's first ``n_calls`` ``calls`` as a heuristic with the
    parameters ``h`` (E-3)."""
    high, bidder = -1, -1
    for turn in range(n_calls):
        caller = (dealer + 1 + turn) % 4
        call = calls[turn]
        if not unread >> caller & 1:
            legal = euchre_legal_bids_nb(tricks, high, turn, stick_the_dealer)
            if heuristic_euchre_bid_nb(h, hands[caller], legal, high, bidder, caller, tricks, copies) != call:
                return False
        if call != EUCHRE_PASS:
            high, bidder = call, caller
    return True


@njit(cache=True)
def euchre_explained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holder_seat, out_seat, trump,
                               copies, worlds):
    """Fill ``worlds`` with worlds of ``euchre_holders_nb``'s holders in which the other
    seats, modelled as the heuristic with this seat's parameters, would have made their
    calls of the auction (``seats.calls``, ``seats.auction``) and the bidder would have named
    ``trump``, each from the hand it held then: its cards in the world with those it has
    played since. The seat's partner is read only where its calls are the heuristic's
    (``calls_as_heuristic_nb``; a partner that searches them is no heuristic). After a 6A
    (12A) the asking bidder's and its partner's hands changed in E-4's exchange, which
    only they saw, so their calls are not read. Exact rejection, at most
    ``EXPLAINED_TRIES`` draws per world wanted; returns how many worlds there are, the
    accepted ones first. With none explained the decision counts as ``unexplained`` and
    the worlds are drawn as ``pimc`` draws them."""
    a = seats.auction
    dealer, tricks, stick_the_dealer, bidder, bid = a[1], a[2], a[3] != 0, a[4], a[5]
    unread = 1 << seat
    partner = (seat + 2) % 4
    if not calls_as_heuristic_nb(seats.pol[partner], seats.prm[partner]):
        unread |= 1 << partner
    if euchre_bid_kind_nb(bid, tricks) == ASKING:
        unread |= (1 << bidder) | (1 << ((bidder + 2) % 4))
    out_h = -1  # the sitting-out seat's cards follow the seats that play (euchre_holders_nb)
    if out_seat >= 0 and out_seat != seat:
        out_h = 0
        while holder_seat[out_h] >= 0:
            out_h += 1
    n_w = worlds.shape[0]
    model = seats.prm[seat].heuristic
    then = np.empty(4, dtype=np.uint64)
    got = 0
    for _ in range(EXPLAINED_TRIES * n_w):
        if got == n_w:
            break
        sample_world_nb(ways, stride, cards, counts, allowed, rng, worlds[got])
        then[:] = seats.played[:4]
        for h in range(counts.shape[0]):
            if holder_seat[h] >= 0:
                then[holder_seat[h]] |= worlds[got, h]
        if out_h >= 0:
            then[out_seat] |= worlds[got, out_h]
        if (euchre_calls_agree_nb(model, then, unread, seats.calls, 4, dealer, tricks, copies, stick_the_dealer)
                and (unread >> bidder & 1 or heuristic_euchre_trump_nb(model, then[bidder], copies) == trump)):
            got += 1
    return got if got > 0 else unexplained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, worlds)


@njit(cache=True)
def euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker, stick_the_dealer,
                             wanted, tries, named_by, trump):
    """Up to ``wanted`` deals of the four hands (``[w, s]``; the seat's own as it is) drawn as
    ``euchre_holders_nb`` places the cards ``seat`` has not seen, kept when the other seats,
    modelled as heuristics with this seat's parameters, would have made their calls among
    the first ``n_calls`` of ``seats.calls`` and, where ``named_by`` is another seat (-1:
    none), that seat would have named ``trump`` (E-3): exact rejection (the model is
    deterministic) among at most ``tries`` draws per world wanted, and only those worlds:
    none when the model explains none. One number from the policy stream starts the draws."""
    rng = decision_stream_nb(seats)
    unseen = euchre_unseen_nb(seats, seat, hands[seat], ZERO, double_deck, joker)
    counts = np.zeros(MAX_HOLDERS, dtype=np.int64)
    allowed = np.zeros(MAX_HOLDERS, dtype=np.uint64)
    holder_seat = np.full(MAX_HOLDERS, -1, dtype=np.int64)
    m = euchre_holders_nb(seats, seat, hands, unseen, -1, counts, allowed, holder_seat)
    cards, ways, stride, used, n_deals = deal_table_nb(unseen, counts[:m], allowed[:m])
    n = 1 if n_deals == 1.0 else max(1, np.int64(wanted))
    out = np.zeros((n, 4), dtype=np.uint64)
    world = np.empty(m, dtype=np.uint64)
    model = seats.prm[seat].heuristic  # the other seats, modelled with this seat's parameters
    copies = 1 + np.int64(double_deck)
    got = 0
    for _ in range(tries * n):
        sample_world_nb(ways, stride, cards, counts[:m], used, rng, world)
        out[got, seat] = hands[seat]
        for h in range(m):
            if holder_seat[h] >= 0:
                out[got, holder_seat[h]] = world[h]
        if n_deals == 1.0 or (
                euchre_calls_agree_nb(model, out[got], 1 << seat, seats.calls, n_calls, dealer, tricks, copies,
                                      stick_the_dealer)
                and (named_by < 0 or named_by == seat
                     or heuristic_euchre_trump_nb(model, out[got, named_by], copies) == trump)):
            got += 1
            if got == n:
                break
    return out[:got]


@njit(cache=True)
def sample_euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker,
                                    stick_the_dealer):
    """The worlds of a ``pimc`` seat's calls (``bid_worlds`` wanted): ``euchre_calling_worlds_nb``
    after the first ``n_calls`` calls, within ``BID_TRIES`` draws per world wanted."""
    return euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker, stick_the_dealer,
                                    seats.prm[seat].pimc.bid_worlds, BID_TRIES, -1, -1)


@njit(cache=True)
def euchre_bid_tricks_nb(dd, h, hands, bidder, trump, kind, ask_cards, double_deck, joker, guess):
    """E-4..E-6: the tricks the team of ``bidder`` takes double dummy from the deal ``hands``
    with ``trump``, the bidder leading: with partner (``WITH_PARTNER``), alone (``ALONE``,
    partner out) or alone after E-4's exchange made as heuristics with ``h`` make it
    (``ASKING``: the bidder gives ``ask_cards``, partner returns its highest trumps and
    its choice of the rest). Searched from ``guess`` (-1: none)."""
    held = hands.copy()
    out_seat = -1
    if kind != WITH_PARTNER:
        out_seat = (bidder + 2) % 4
    if kind == ASKING:
        before = held[out_seat]
        given = ZERO
        for _ in range(ask_cards):
            given |= bit_nb(heuristic_euchre_give_nb(h, held[bidder] & ~given, trump))
        returned = highest_trumps_nb(before, trump, ask_cards)
        for _ in range(ask_cards - popcount_nb(returned)):
            returned |= bit_nb(heuristic_euchre_return_nb(h, before & ~returned & ~EUCHRE_SUIT_OF[trump, trump],
                                                          trump))
        held[bidder] = (held[bidder] & ~given) | returned
    euchre_load_nb(dd, held, trump, out_seat, double_deck, joker)
    at = euchre_at_nb(dd, bidder, 0, -1, -1, -1, bidder, bidder % 2)
    return value_near_nb(search_table_nb(dd, True), dd, True, at, guess, NOUGHT, popcount_nb(dd.hands[bidder]))


@njit(cache=True)
def bid_tricks_nb(dd, h, worlds, bidder, kind, ask_cards, double_deck, joker):
    """``tricks[t, w]``: ``euchre_bid_tricks_nb`` in each of the ``worlds`` with each trump
    ``t``. The worlds of a trump share the search context's table, and each is searched
    from the last one's tricks."""
    n = worlds.shape[0]
    tricks = np.empty((4, n), dtype=np.int64)
    for t in range(4):
        guess = NONE
        for w in range(n):
            guess = euchre_bid_tricks_nb(dd, h, worlds[w], bidder, t, kind, ask_cards, double_deck, joker, guess)
            tricks[t, w] = guess
    return tricks


@njit(cache=True)
def best_trump_nb(gain, bid, tricks):
    """E-7: the trump whose mean score of ``bid`` over the worlds (``gain[bid, tricks[t, w]]``:
    the bidding team's points minus the defenders') is highest, the lowest of equals, and
    that mean."""
    best_t, best = 0, -np.inf
    for t in range(4):
        total = 0.0
        for w in range(tricks.shape[1]):
            total += gain[bid, tricks[t, w]]
        if total / tricks.shape[1] > best:
            best_t, best = t, total / tricks.shape[1]
    return best_t, best


@njit(cache=True)
def pimc_euchre_bid_nb(dd, seats, seat, hands, legal, high, bidder, n_calls, dealer, gain, tricks, ask_cards,
                       double_deck, joker, stick_the_dealer):
    """E-3: the ``pimc`` call of ``seat`` with ``bid_worlds`` > 0: the legal call whose
    contract has the best expected score for its team over worlds consistent with its hand
    and the ``n_calls`` calls so far (``sample_euchre_calling_worlds_nb``). A bid is worth
    its expected score played by this seat with the trump best on average over the
    worlds; a pass, the high bid as it stands, played by its bidder with the trump the
    heuristic would name from the bidder's hand in each world (no bid yet: nothing, 0).
    It looks no further: a later seat may still bid on. Ties go to the pass, then the
    lowest bid. With no world the model explains: the heuristic's call, counted
    ``unexplained``."""
    if legal & (legal - ONE) == ZERO:
        return lowest_nb(legal)
    worlds = sample_euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker,
                                             stick_the_dealer)
    n = worlds.shape[0]
    h = seats.prm[seat].heuristic
    if n == 0:
        note_unexplained_nb(seats, seat)
        return heuristic_euchre_bid_nb(h, hands[seat], legal, high, bidder, seat, tricks, 1 + np.int64(double_deck))
    call, best = -1, -np.inf
    if legal & bit_nb(EUCHRE_PASS):
        call, best = EUCHRE_PASS, 0.0
        if high >= 0:
            kind = euchre_bid_kind_nb(high, tricks)
            total = 0.0
            won = NONE  # the last world's tricks: the next one's guess
            for w in range(n):
                trump = heuristic_euchre_trump_nb(h, worlds[w, bidder], 1 + double_deck)
                won = euchre_bid_tricks_nb(dd, h, worlds[w], bidder, trump, kind, ask_cards, double_deck, joker, won)
                total += gain[high, won]
            best = total / n if bidder % 2 == seat % 2 else -total / n
    tables = np.empty((3, 4, n), dtype=np.int64)  # per way of playing a bid, solved when first needed
    solved = np.zeros(3, dtype=np.bool_)
    bids = legal & ~bit_nb(EUCHRE_PASS)
    while bids:
        bid = lowest_nb(bids)
        bids &= bids - ONE
        kind = euchre_bid_kind_nb(bid, tricks)
        if not solved[kind]:
            tables[kind] = bid_tricks_nb(dd, h, worlds, seat, kind, ask_cards, double_deck, joker)
            solved[kind] = True
        value = best_trump_nb(gain, bid, tables[kind])[1]
        if value > best:
            call, best = bid, value
    return call


@njit(cache=True)
def pimc_euchre_trump_nb(dd, seats, seat, hands, bid, dealer, gain, tricks, ask_cards, double_deck, joker,
                         stick_the_dealer):
    """E-3: the trump a ``pimc`` bidder with ``bid_worlds`` > 0 names for its ``bid``: the
    suit whose contract has the best expected score over worlds consistent with its hand
    and the whole auction, the lowest of equals (none the model explains: the heuristic's,
    counted ``unexplained``)."""
    worlds = sample_euchre_calling_worlds_nb(seats, seat, hands, 4, dealer, tricks, double_deck, joker,
                                             stick_the_dealer)
    if worlds.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return heuristic_euchre_trump_nb(seats.prm[seat].heuristic, hands[seat], 1 + np.int64(double_deck))
    table = bid_tricks_nb(dd, seats.prm[seat].heuristic, worlds, seat, euchre_bid_kind_nb(bid, tricks), ask_cards,
                          double_deck, joker)
    return best_trump_nb(gain, bid, table)[0]
