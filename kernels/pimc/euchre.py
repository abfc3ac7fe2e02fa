"""The ``pimc`` seat of Bid Euchre: where the cards it has not seen lie, its card, and its
bids and trump sampled over worlds that its model of the other seats explains."""

import numpy as np
from numba import njit

from kernels.calls import ASKING, EUCHRE_PASS, FOUR_CALLS, WITH_PARTNER, euchre_bid_kind_nb, euchre_legal_bids_nb
from kernels.cards import EUCHRE_JOKER, EUCHRE_SUIT_OF, NONE, NOUGHT, ONE, ZERO, bit_nb, lowest_nb, popcount_nb
from kernels.dd import (
    EUCHRE_FROM_LAYOUT, euchre_at_nb, euchre_follow_nb, euchre_load_nb, euchre_representatives_nb, euchre_share_runs_nb,
    search_table_nb, value_near_nb,
)
from kernels.pimc.choice import best_of_nb, card_sums_nb
from kernels.pimc.knowledge import FACT_JOKER_DEALER
from kernels.pimc.worlds import (
    BID_TRIES, EXPLAINED_TRIES, deal_table_nb, decision_stream_nb, sample_world_nb, unexplained_worlds_nb, worlds_of_nb,
)
from kernels.policies import (
    POLICY_HEURISTIC, POLICY_SEARCH, calls_by_worlds_nb, heuristic_euchre_bid_nb, heuristic_euchre_give_nb,
    heuristic_euchre_return_nb, heuristic_euchre_trump_nb, reads_calls_in_play_nb, searches_calls_nb,
)
from kernels.step import POLICY_SCRIPT, note_unexplained_nb
from kernels.tricks import highest_trumps_nb

MAX_HOLDERS = 4


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


@njit(cache=True, inline="always")
def calls_as_heuristic_nb(pid, prm):
    """Whether a seat's calls are the heuristic's, so that its partner may read them with
    the model: every policy but ``random`` and those that search or sample their calls; a
    replayed seat's (``POLICY_SCRIPT``) are taken to be."""
    return (pid == POLICY_SCRIPT or POLICY_HEURISTIC <= pid <= POLICY_SEARCH) and not searches_calls_nb(pid, prm) \
        and not calls_by_worlds_nb(pid, prm)


@njit(cache=True)
def euchre_calls_agree_nb(prm, hands, unread, calls, n_calls, dealer, tricks, copies, stick_the_dealer):
    """Whether every seat not in the bit set ``unread``, holding ``hands``, would have made
    its calls among the auction's first ``n_calls`` ``calls`` as the heuristic with its own
    parameters (``prm``: the seats' parameter records) (E-3)."""
    high, bidder = -1, -1
    for turn in range(n_calls):
        caller = (dealer + 1 + turn) % 4
        call = calls[turn]
        if not unread >> caller & 1:
            legal = euchre_legal_bids_nb(tricks, high, turn, stick_the_dealer)
            if heuristic_euchre_bid_nb(prm[caller].heuristic, hands[caller], legal, high, bidder, caller, tricks,
                                       copies) != call:
                return False
        if call != EUCHRE_PASS:
            high, bidder = call, caller
    return True


@njit(cache=True)
def euchre_explained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, holder_seat, out_seat, trump,
                               copies, worlds):
    """Fill ``worlds`` with worlds of ``euchre_holders_nb``'s holders in which the other
    seats, each modelled as the heuristic with its own parameters, would have made their
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
        if (euchre_calls_agree_nb(seats.prm, then, unread, seats.calls, FOUR_CALLS, dealer, tricks, copies,
                                  stick_the_dealer)
                and (unread >> bidder & 1
                     or heuristic_euchre_trump_nb(seats.prm[bidder].heuristic, then[bidder], copies) == trump)):
            got += 1
    return got if got > 0 else unexplained_worlds_nb(seats, seat, ways, stride, cards, counts, allowed, rng, worlds)


@njit(cache=True)
def euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker, stick_the_dealer,
                             wanted, tries, named_by, trump):
    """Up to ``wanted`` deals of the four hands (``[w, s]``; the seat's own as it is) drawn as
    ``euchre_holders_nb`` places the cards ``seat`` has not seen, kept when the other seats,
    each modelled as the heuristic with its own parameters, would have made their calls among
    the first ``n_calls`` of ``seats.calls`` and, where ``named_by`` is another seat (-1:
    none), that seat would have named ``trump`` (E-3): exact rejection (the model is
    deterministic) among at most ``tries`` draws per world wanted, and only those worlds:
    none when the model explains none. One number from the policy stream starts the draws."""
    rng = decision_stream_nb(seats)
    unseen = euchre_unseen_nb(seats, seat, hands[seat], ZERO, double_deck, joker)
    counts = np.zeros(MAX_HOLDERS, dtype=np.int64)
    allowed = np.zeros(MAX_HOLDERS, dtype=np.uint64)
    holder_seat = np.full(MAX_HOLDERS, -1, dtype=np.int64)
    m = euchre_holders_nb(seats, seat, hands, unseen, NONE, counts, allowed, holder_seat)
    cards, ways, stride, used, n_deals = deal_table_nb(unseen, counts[:m], allowed[:m])
    n = 1 if n_deals == 1.0 else max(1, np.int64(wanted))
    out = np.zeros((n, 4), dtype=np.uint64)
    world = np.empty(m, dtype=np.uint64)
    copies = 1 + np.int64(double_deck)
    got = 0
    for _ in range(tries * n):
        sample_world_nb(ways, stride, cards, counts[:m], used, rng, world)
        out[got, seat] = hands[seat]
        for h in range(m):
            if holder_seat[h] >= 0:
                out[got, holder_seat[h]] = world[h]
        if n_deals == 1.0 or (
                euchre_calls_agree_nb(seats.prm, out[got], 1 << seat, seats.calls, n_calls, dealer, tricks, copies,
                                      stick_the_dealer)
                and (named_by < 0 or named_by == seat
                     or heuristic_euchre_trump_nb(seats.prm[named_by].heuristic, out[got, named_by], copies) == trump)):
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
                                    seats.prm[seat].pimc.bid_worlds, BID_TRIES, NONE, NONE)


@njit(cache=True)
def euchre_bid_tricks_nb(dd, prm, hands, bidder, trump, kind, ask_cards, double_deck, joker, guess):
    """E-4..E-6: the tricks the team of ``bidder`` takes double dummy from the deal ``hands``
    with ``trump``, the bidder leading: with partner (``WITH_PARTNER``), alone (``ALONE``,
    partner out) or alone after E-4's exchange made as the heuristic makes it, each of the
    two with its own parameters of ``prm`` (``ASKING``: the bidder gives ``ask_cards``,
    partner returns its highest trumps and its choice of the rest). Searched from
    ``guess`` (-1: none)."""
    held = hands.copy()
    out_seat = -1
    if kind != WITH_PARTNER:
        out_seat = (bidder + 2) % 4
    if kind == ASKING:
        before = held[out_seat]
        given = ZERO
        for _ in range(ask_cards):
            given |= bit_nb(heuristic_euchre_give_nb(prm[bidder].heuristic, held[bidder] & ~given, trump))
        returned = highest_trumps_nb(before, trump, ask_cards)
        for _ in range(ask_cards - popcount_nb(returned)):
            returned |= bit_nb(heuristic_euchre_return_nb(prm[out_seat].heuristic,
                                                          before & ~returned & ~EUCHRE_SUIT_OF[trump, trump], trump))
        held[bidder] = (held[bidder] & ~given) | returned
    euchre_load_nb(dd, held, trump, out_seat, double_deck, joker)
    at = euchre_at_nb(dd, bidder, 0, -1, -1, -1, bidder, bidder % 2)
    return value_near_nb(search_table_nb(dd, True), dd, True, at, guess, NOUGHT, popcount_nb(dd.hands[bidder]))


@njit(cache=True)
def bid_tricks_nb(dd, prm, worlds, bidder, kind, ask_cards, double_deck, joker):
    """``tricks[t, w]``: ``euchre_bid_tricks_nb`` in each of the ``worlds`` with each trump
    ``t``. The worlds of a trump share the search context's table, and each is searched
    from the last one's tricks."""
    n = worlds.shape[0]
    tricks = np.empty((4, n), dtype=np.int64)
    for t in range(4):
        guess = NONE
        for w in range(n):
            guess = euchre_bid_tricks_nb(dd, prm, worlds[w], bidder, t, kind, ask_cards, double_deck, joker, guess)
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
                trump = heuristic_euchre_trump_nb(seats.prm[bidder].heuristic, worlds[w, bidder], 1 + double_deck)
                won = euchre_bid_tricks_nb(dd, seats.prm, worlds[w], bidder, trump, kind, ask_cards, double_deck, joker,
                                           won)
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
            tables[kind] = bid_tricks_nb(dd, seats.prm, worlds, seat, kind, ask_cards, double_deck, joker)
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
    worlds = sample_euchre_calling_worlds_nb(seats, seat, hands, FOUR_CALLS, dealer, tricks, double_deck, joker,
                                             stick_the_dealer)
    if worlds.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return heuristic_euchre_trump_nb(seats.prm[seat].heuristic, hands[seat], 1 + np.int64(double_deck))
    table = bid_tricks_nb(dd, seats.prm, worlds, seat, euchre_bid_kind_nb(bid, tricks), ask_cards, double_deck, joker)
    return best_trump_nb(gain, bid, table)[0]
