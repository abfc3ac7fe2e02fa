"""The ``pimc`` seat of Bridgette and Draw Bridge: the deals consistent with what it knows,
worlds kept from its last card, worlds its model of the opponent explains, its card, and its
calls sampled over worlds (``bid_worlds``)."""

import numpy as np
from numba import njit

from kernels.calls import BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, N_BIDS, STRAIN_BIDS
from kernels.cards import NONE, NOUGHT, ONE, ZERO, bit_nb, highest_nb, lowest_nb, popcount_nb
from kernels.dd import (
    contract_at_nb, contract_representatives_nb, contract_rules_nb, contract_segs_nb, renew_nb, search_table_nb,
    value_near_nb,
)
from kernels.pimc.choice import best_of_nb, card_sums_nb
from kernels.pimc.knowledge import FACT_DISCARDS, FACT_UPCARD
from kernels.pimc.worlds import (
    BID_TRIES, EXPLAINED_TRIES, deal_table_nb, decision_stream_nb, keep_likeliest_nb, sample_world_nb,
    unexplained_worlds_nb, worlds_of_nb,
)
from kernels.policies import (
    ODDS_WIDTH, calls_chance_nb, heuristic_call_nb, kept_nb, read_as_search_nb, reads_calls_in_play_nb,
)
from kernels.records import plain_nb
from kernels.step import KEPT_HOLDERS, MAX_KEPT, note_unexplained_nb


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
def explained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holders, kept, gain):
    """Fill ``holders[kept:]`` with worlds of ``contract_deals_nb`` in which the opponent,
    under the seat's model of it (kernels.policies.reading: the heuristic with its own
    parameters, or a searching opponent's softmax), would have made its calls of the
    auction (``seats.calls``, ``seats.auction``) from the hand it held then: its hand in the
    world with the cards it has played since. Exact rejection, each world kept with the
    model's chance of those calls, at most ``EXPLAINED_TRIES`` draws per world wanted;
    returns how many worlds there are, the accepted ones first. The worlds kept from the
    seat's last card were explained then. With none accepted, a softmax model's likeliest
    draws are the worlds; with none of chance above 0, the model cannot read the opponent:
    the decision counts as ``unexplained`` and the seat plays over worlds drawn as ``pimc``
    draws them."""
    n_w = holders.shape[0]
    opp = 1 - seat
    a, calls = seats.auction, plain_nb(seats.calls)
    model = seats.prm[opp].heuristic
    searched = read_as_search_nb(seats.prm[seat], seats.pol[opp], seats.prm[opp])
    likeliest = np.zeros(n_w if searched else 1)
    spare = np.empty((likeliest.shape[0], holders.shape[1]), dtype=np.uint64)
    memo = np.zeros((2, 5, ODDS_WIDTH))
    got = kept
    for _ in range(EXPLAINED_TRIES * (n_w - kept)):
        if got == n_w:
            break
        sample_world_nb(ways, stride, cards, counts, allowed, rng, holders[got])
        chance = calls_chance_nb(model, searched, holders[got, 0] | seats.played[opp], opp, calls, a[0], a[1],
                                 a[2], a[3], a[4] != 0, a[5], gain, seats.odds[opp], memo)
        if kept_nb(chance, rng):
            got += 1
        elif searched:
            keep_likeliest_nb(likeliest, spare, chance, holders[got])
    if got == 0:  # the likeliest draws, where the softmax gave any a chance
        got = np.count_nonzero(likeliest)
        holders[:got] = spare[:got]
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
def sample_bidding_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid, min_trump_cards,
                             nt_needs_all_suits, jump_min_cards, gain, wanted, tries):
    """The opponent's hands of up to ``wanted`` worlds from ``contract_deals_nb`` in which
    the opponent, under the seat's model of it (kernels.policies.reading: the heuristic
    with its own parameters, or a searching opponent's softmax), would have made its calls
    so far: exact rejection (each world kept with the model's chance of those calls) among
    at most ``tries`` draws per world wanted (``pimc``: ``BID_TRIES``), and only those worlds;
    with none accepted, a softmax model's likeliest draws; none when the model gives every
    draw the chance 0 (the caller then makes the heuristic's call and counts the deal's
    ``unexplained``). One number from the policy stream starts the draws. Also returns
    whether only one deal fits (the seat knows the deal whole: one world, the deal itself)."""
    rng = decision_stream_nb(seats)
    cards, ways, stride, counts, allowed, n_deals = contract_deals_nb(seats, seat, hands, unseen)
    n = 1 if n_deals == 1.0 else max(1, np.int64(wanted))
    out = np.empty(n, dtype=np.uint64)
    world = np.empty(counts.shape[0], dtype=np.uint64)
    opp = 1 - seat
    model = seats.prm[opp].heuristic
    searched = read_as_search_nb(seats.prm[seat], seats.pol[opp], seats.prm[opp])
    likeliest = np.zeros(n if searched else 1)
    spare = np.empty((likeliest.shape[0], world.shape[0]), dtype=np.uint64)
    memo = np.zeros((2, 5, ODDS_WIDTH))
    got = 0
    for _ in range(tries * n):
        sample_world_nb(ways, stride, cards, counts, allowed, rng, world)
        chance = 1.0 if n_deals == 1.0 else calls_chance_nb(model, searched, world[0], opp, calls, n_calls, dealer,
                                                            lowest_bid, min_trump_cards, nt_needs_all_suits,
                                                            jump_min_cards, gain, seats.odds[opp], memo)
        if kept_nb(chance, rng):
            out[got] = world[0]
            got += 1
            if got == n:
                break
        elif searched:
            keep_likeliest_nb(likeliest, spare, chance, world)
    if got == 0:  # the likeliest draws, where the softmax gave any a chance
        got = np.count_nonzero(likeliest)
        out[:got] = spare[:got, 0]
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
    defence = NONE  # the defenders' tricks in the last world: the next one's guess
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
