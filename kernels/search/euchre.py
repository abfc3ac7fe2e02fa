"""Bid Euchre's bids, trump and E-4 exchange by rollout (``call_worlds``, ``exchange_worlds``).

**Worlds.** The hands of the other three seats drawn as ``kernels.pimc.euchre_holders_nb``
places the cards the seat has not seen (the E-10 joker discard one of its holders), kept
only when every other seat, modelled as the heuristic with its own parameters, would
have made its calls so far (and, for the partner's returns, named the trump it named):
exact rejection, the model being deterministic, within ``REJECTION_TRIES`` draws per world
wanted (``kernels.pimc.euchre_calling_worlds_nb``). No world is taken that the model cannot
explain: with none accepted the seat decides as the heuristic and the deal counts one
``unexplained`` decision. The joker dealer's discard is not read (a world's dealer need not
have discarded as the model would).

**Bids (E-3).** Every legal call is a candidate (pass, each level, the ask, the moon: at
most a dozen). In each world the auction rolls on to its end with the model's calls (the
turns, stick-the-dealer and overcalls of ``kernels.calls.euchre_legal_bids_nb``); a hand
all four pass is void and scores 0 (E-3). Another seat that wins names the model's trump
and makes the model's E-4 exchange; the seat itself, winning with a bid, names the trump
best on average over the worlds in which it wins with that bid (its worlds as it names
trump are these, read with the whole auction), the heuristic's among equals; it considers
the suits in which it holds a third of the hand's tricks in trumps (half for an ask or the
moon) and the heuristic's suit (``own_suits_nb``). The contract
is valued at the bidding team's double-dummy tricks, the bidder leading
(``euchre_bid_tricks_nb``), scored by E-7 (``bid_gain_nb``) for the seat's team: the seat's
team's points minus the other team's. Each (world, trump, bidder, way of playing) is solved
once for all candidates.

**Trump (E-3).** Over worlds consistent with the whole auction, each suit valued as the bid
at the bidder's double-dummy tricks after the model's E-4 exchange for an ask.

**E-4 exchange.** The asking bidder plans the set it gives at its first give; the partner,
its returns of choice after the forced highest trumps (from its hand before the exchange:
the exchange is simultaneous, so the cards given are not read). Candidates: every set of
the size wanted (identical double-deck copies once), or, when there are more than
``MAX_SETS``, the heuristic's set and each set one card away from it. Each is valued over
worlds consistent with the auction (and the partner's, with the trump named) at the E-7
score of the bidder's double-dummy tricks alone, the other side of the exchange made by
the model.

**Objective.** Every searched choice here maximizes the expected E-7 score of the hand, the
seat's team's points minus the other team's (``objective`` is not read). A game to 32
lasts many hands of a few points each (E-9), so a hand's margin is what moves the race,
and the contracts at stake (a set of 3 to 6 against a made bid) differ by points, not by
the game's end.
"""

import numpy as np
from numba import njit

from kernels.calls import (
    ALONE, ASKING, EUCHRE_PASS, FOUR_CALLS, WITH_PARTNER, euchre_bid_kind_nb, euchre_legal_bids_nb,
)
from kernels.cards import EUCHRE_SUIT_OF, NO, NONE, ONE, YES, ZERO, bit_nb, cards_of_nb, lowest_nb, popcount_nb
from kernels.pimc import REJECTION_TRIES, euchre_bid_tricks_nb, euchre_calling_worlds_nb
from kernels.policies import (
    add_distinct_nb, heuristic_euchre_bid_nb, heuristic_euchre_give_nb, heuristic_euchre_return_nb,
    heuristic_euchre_trump_nb,
)
from kernels.search.rollout import note_unexplained_nb
from kernels.tricks import highest_trumps_nb

MAX_BID_CANDIDATES = 16  # every call of the double deck's ladder (9 levels, ask, moon) and the pass
MAX_SETS = 80  # E-4 candidate sets: every set up to this many, else the heuristic's and its neighbours
DOUBLE_COPY = 24  # a double-deck card's second copy: its id plus this (kernels.cards)


@njit(cache=True)
def model_euchre_auction_nb(prm, hands, turn, dealer, high, bidder, tricks, copies, stick_the_dealer):
    """E-3: the auction from its ``turn``-th call (0-3) to its end, every caller the
    heuristic with its own parameters of ``prm`` holding its hand of ``hands``, after the
    high bid ``high`` by ``bidder`` (-1: none); returns the final (high bid, bidder)."""
    for t in range(turn, 4):
        caller = (dealer + 1 + t) % 4
        legal = euchre_legal_bids_nb(tricks, high, t, stick_the_dealer)
        call = heuristic_euchre_bid_nb(prm[caller].heuristic, hands[caller], legal, high, bidder, caller, tricks,
                                       copies)
        if call != EUCHRE_PASS:
            high, bidder = call, caller
    return high, bidder


@njit(cache=True)
def solve_needed_nb(dd, prm, worlds, need, ask_cards, double_deck, joker):
    """``won[w, trump, bidder, kind]``: the bidding team's double-dummy tricks in world ``w``
    (``euchre_bid_tricks_nb``) wherever ``need`` says (-1 elsewhere); grouped by trump and
    seat sitting out, so that the search context's table serves a group's worlds."""
    n_w = worlds.shape[0]
    won = np.full((n_w, 4, 4, 3), -1, dtype=np.int64)
    for t in range(4):
        for part in range(2):  # with partner (no one out), then alone and asking (partner out)
            for b in range(4):
                for k in range(3):
                    if (k == WITH_PARTNER) != (part == 0):
                        continue
                    guess = NONE
                    for w in range(n_w):
                        if need[w, t, b, k]:
                            guess = euchre_bid_tricks_nb(dd, prm, worlds[w], b, t, k, ask_cards, double_deck,
                                                         joker, guess)
                            won[w, t, b, k] = guess
    return won


@njit(cache=True)
def own_suits_nb(hand, tricks, first):
    """``suits[kind, trump]``: the trumps in which the seat's own bids of each way of playing
    are valued as it bids: those where ``hand`` holds a third of the hand's tricks in trumps
    (E-2's trump suit), half alone or asking (E-4, E-5), and always ``first``, the
    heuristic's suit. A contract in a suit of fewer trumps is all but never the best one,
    and leaving it out halves the bids' solves."""
    suits = np.zeros((3, 4), dtype=np.bool_)
    for t in range(4):
        n = popcount_nb(hand & EUCHRE_SUIT_OF[t, t])
        suits[WITH_PARTNER, t] = 3 * n >= tricks or t == first
        suits[ASKING, t] = suits[ALONE, t] = 2 * n >= tricks or t == first
    return suits


@njit(cache=True)
def best_of_totals_nb(totals, first):
    """The index of the highest of ``totals``, ``first`` among equals, then the lowest."""
    best = first
    for i in range(totals.shape[0]):
        if totals[i] > totals[best]:
            best = i
    return best


@njit(cache=True)
def search_euchre_bid_nb(dd, seats, seat, hands, legal, high, bidder, n_calls, dealer, gain, tricks, ask_cards,
                         double_deck, joker, stick_the_dealer):
    """E-3: the call of a ``search`` seat, the ``n_calls``-th of the auction: the legal call
    whose rolled-out auction scores best on average for its team over worlds consistent with
    the calls so far (module docstring), the heuristic's among equals. ``dd``: the game's
    search context; ``gain``: E-7 (``kernels.bid_euchre.bid_gain_nb``)."""
    h = seats.prm[seat].heuristic
    copies = 1 + np.int64(double_deck)
    mine = heuristic_euchre_bid_nb(h, hands[seat], legal, high, bidder, seat, tricks, copies)
    if legal & (legal - ONE) == ZERO:
        return mine
    worlds = euchre_calling_worlds_nb(seats, seat, hands, n_calls, dealer, tricks, double_deck, joker,
                                      stick_the_dealer, seats.prm[seat].search.call_worlds, REJECTION_TRIES, NONE, NONE)
    n_w = worlds.shape[0]
    if n_w == 0:
        note_unexplained_nb(seats, seat)
        return mine
    candidates = np.empty(MAX_BID_CANDIDATES, dtype=np.int64)
    n_c = add_distinct_nb(candidates, 0, mine)
    rest = legal
    while rest:
        n_c = add_distinct_nb(candidates, n_c, lowest_nb(rest))
        rest &= rest - ONE
    first_trump = heuristic_euchre_trump_nb(h, hands[seat], copies)
    suits = own_suits_nb(hands[seat], tricks, first_trump)
    # Each candidate's auction in each world, and the contracts it needs solved.
    final = np.empty((n_c, n_w), dtype=np.int64)
    by = np.empty((n_c, n_w), dtype=np.int64)
    named = np.zeros((n_c, n_w), dtype=np.int64)
    need = np.zeros((n_w, 4, 4, 3), dtype=np.bool_)
    for c in range(n_c):
        call = candidates[c]
        h0, b0 = (high, bidder) if call == EUCHRE_PASS else (call, seat)
        for w in range(n_w):
            bid, b = model_euchre_auction_nb(seats.prm, worlds[w], n_calls + 1, dealer, h0, b0, tricks, copies,
                                             stick_the_dealer)
            final[c, w], by[c, w] = bid, b
            if bid < 0:
                continue  # void (E-3): 0
            k = euchre_bid_kind_nb(bid, tricks)
            if b == seat:
                need[w, :, seat, k] = suits[k]
            else:
                named[c, w] = heuristic_euchre_trump_nb(seats.prm[b].heuristic, worlds[w, b], copies)
                need[w, named[c, w], b, k] = True
    won = solve_needed_nb(dd, seats.prm, worlds, need, ask_cards, double_deck, joker)
    value = np.zeros(n_c)
    totals = np.zeros(4)
    for c in range(n_c):
        call = candidates[c]
        if call != EUCHRE_PASS:  # the seat's own contract: the trump best over the worlds it wins in
            k = euchre_bid_kind_nb(call, tricks)
            for t in range(4):
                totals[t] = 0.0 if suits[k, t] else -np.inf
            for w in range(n_w):
                if by[c, w] == seat:
                    for t in range(4):
                        if suits[k, t]:
                            totals[t] += gain[call, won[w, t, seat, k]]
            value[c] += totals[best_of_totals_nb(totals, first_trump)]
        for w in range(n_w):
            bid, b = final[c, w], by[c, w]
            if bid < 0 or b == seat:
                continue
            g = gain[bid, won[w, named[c, w], b, euchre_bid_kind_nb(bid, tricks)]]
            value[c] += g if (b - seat) % 2 == 0 else -g
    return candidates[best_of_totals_nb(value, 0)]


@njit(cache=True)
def search_euchre_trump_nb(dd, seats, seat, hands, bid, dealer, gain, tricks, ask_cards, double_deck, joker,
                           stick_the_dealer):
    """E-3: the trump a ``search`` bidder names for its ``bid``: the suit whose contract (E-4
    by the model for an ask) scores best on average over worlds consistent with the whole
    auction, the heuristic's among equals."""
    h = seats.prm[seat].heuristic
    mine = heuristic_euchre_trump_nb(h, hands[seat], 1 + np.int64(double_deck))
    worlds = euchre_calling_worlds_nb(seats, seat, hands, FOUR_CALLS, dealer, tricks, double_deck, joker,
                                      stick_the_dealer, seats.prm[seat].search.call_worlds, REJECTION_TRIES, NONE, NONE)
    if worlds.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return mine
    k = euchre_bid_kind_nb(bid, tricks)
    totals = np.zeros(4)
    for t in range(4):
        guess = NONE
        for w in range(worlds.shape[0]):
            guess = euchre_bid_tricks_nb(dd, seats.prm, worlds[w], seat, t, k, ask_cards, double_deck, joker, guess)
            totals[t] += gain[bid, guess]
    return best_of_totals_nb(totals, mine)


@njit(cache=True, inline="always")
def canonical_copies_nb(cards, pool):
    """``cards`` (a subset of ``pool``) with each second double-deck copy swapped for its
    first copy where the pool holds that one outside the set: identical sets alike."""
    rest = cards
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if DOUBLE_COPY <= c < 2 * DOUBLE_COPY:
            twin = bit_nb(c - DOUBLE_COPY)
            if pool & twin and cards & twin == ZERO:
                cards = (cards & ~bit_nb(c)) | twin
    return cards


@njit(cache=True)
def card_sets_nb(pool, k, first, out):
    """E-4's candidate sets of ``k`` cards from ``pool``, distinct, ``first`` (the heuristic's)
    first, into ``out``: every set, or where there are more than ``MAX_SETS``, those one
    card away from ``first``. Returns how many."""
    cards = cards_of_nb(pool)
    n = cards.shape[0]
    n_c = add_distinct_nb(out, 0, first)
    sets = 1.0
    for i in range(k):
        sets = sets * (n - i) / (i + 1)
    if sets < MAX_SETS:
        idx = np.arange(k)
        while True:
            s = ZERO
            for i in range(k):
                s |= bit_nb(cards[idx[i]])
            n_c = add_distinct_nb(out, n_c, canonical_copies_nb(s, pool))
            i = k - 1
            while i >= 0 and idx[i] == n - k + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, k):
                idx[j] = idx[j - 1] + 1
    else:
        out_of = first
        while out_of:
            a = lowest_nb(out_of)
            out_of &= out_of - ONE
            into = pool & ~first
            while into:
                b = lowest_nb(into)
                into &= into - ONE
                n_c = add_distinct_nb(out, n_c, canonical_copies_nb((first & ~bit_nb(a)) | bit_nb(b), pool))
    return n_c


@njit(cache=True)
def model_gives_nb(h, hand, trump, k):
    """E-4: the ``k`` cards the heuristic with ``h`` gives from ``hand``."""
    given = ZERO
    for _ in range(k):
        given |= bit_nb(heuristic_euchre_give_nb(h, hand & ~given, trump))
    return given


@njit(cache=True)
def model_returns_nb(h, before, trump, k):
    """E-4: the ``k`` cards a partner holding ``before`` returns when the heuristic with ``h``
    chooses: its highest trumps, then its choice of the rest."""
    returned = highest_trumps_nb(before, trump, k)
    for _ in range(k - popcount_nb(returned)):
        returned |= bit_nb(heuristic_euchre_return_nb(h, before & ~returned & ~EUCHRE_SUIT_OF[trump, trump], trump))
    return returned


@njit(cache=True)
def exchange_values_nb(dd, prm, worlds, bidder, trump, sets, n_c, giving, mine, k, bid, gain, double_deck, joker):
    """Each candidate set's total E-7 score over ``worlds`` of the bidder's double-dummy
    tricks alone after the exchange: the asking bidder (``giving``) gives ``sets[c]`` from
    ``mine`` and takes the model's returns; else the partner returns ``sets[c]`` beside its
    forced trumps (``mine``: those) and the bidder gives as the model does (the model: the
    heuristic with the other player's parameters of ``prm``)."""
    partner = (bidder + 2) % 4
    value = np.zeros(n_c)
    held = np.empty(4, dtype=np.uint64)
    for w in range(worlds.shape[0]):
        held[:] = worlds[w]
        if giving:
            other = model_returns_nb(prm[partner].heuristic, worlds[w, partner], trump, k)  # whatever is given
        else:
            other = worlds[w, bidder] & ~model_gives_nb(prm[bidder].heuristic, worlds[w, bidder], trump, k)  # kept
        guess = NONE
        for c in range(n_c):
            held[bidder] = ((mine & ~sets[c]) | other) if giving else (other | mine | sets[c])
            guess = euchre_bid_tricks_nb(dd, prm, held, bidder, trump, ALONE, k, double_deck, joker, guess)
            value[c] += gain[bid, guess]
    return value


@njit(cache=True)
def search_euchre_give_nb(dd, seats, seat, hands, bid, trump, dealer, gain, tricks, ask_cards, double_deck, joker,
                          stick_the_dealer):
    """E-4: the set of ``ask_cards`` cards an asking ``search`` bidder gives its partner: the
    candidate (module docstring) of the best mean score over worlds consistent with the
    auction, the heuristic's among equals. The kernel gives it one card at a time."""
    h = seats.prm[seat].heuristic
    hand = hands[seat]
    first = model_gives_nb(h, hand, trump, ask_cards)
    sets = np.empty(MAX_SETS, dtype=np.uint64)
    n_c = card_sets_nb(hand, ask_cards, first, sets)
    if n_c == 1:
        return first
    worlds = euchre_calling_worlds_nb(seats, seat, hands, FOUR_CALLS, dealer, tricks, double_deck, joker,
                                      stick_the_dealer, seats.prm[seat].search.exchange_worlds, REJECTION_TRIES,
                                      NONE, NONE)
    if worlds.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return first
    value = exchange_values_nb(dd, seats.prm, worlds, seat, trump, sets, n_c, YES, hand, ask_cards, bid, gain,
                               double_deck, joker)
    return sets[best_of_totals_nb(value, 0)]


@njit(cache=True)
def search_euchre_returns_nb(dd, seats, seat, hands, bidder, bid, trump, dealer, gain, tricks, ask_cards, double_deck,
                             joker, stick_the_dealer):
    """E-4: the returns of choice of a ``search`` partner of an asking ``bidder`` (after its
    forced highest trumps; none: nothing to choose), from its hand before the exchange: the
    candidate set of the best mean score over worlds consistent with the auction and the
    trump named, the heuristic's among equals. The kernel returns it one card at a time."""
    h = seats.prm[seat].heuristic
    before = hands[seat]
    forced = highest_trumps_nb(before, trump, ask_cards)
    k = ask_cards - popcount_nb(forced)
    if k == 0:
        return ZERO
    pool = before & ~forced & ~EUCHRE_SUIT_OF[trump, trump]
    first = model_returns_nb(h, before, trump, ask_cards) & ~forced
    sets = np.empty(MAX_SETS, dtype=np.uint64)
    n_c = card_sets_nb(pool, k, first, sets)
    if n_c == 1:
        return first
    worlds = euchre_calling_worlds_nb(seats, seat, hands, FOUR_CALLS, dealer, tricks, double_deck, joker,
                                      stick_the_dealer, seats.prm[seat].search.exchange_worlds, REJECTION_TRIES,
                                      bidder, trump)
    if worlds.shape[0] == 0:
        note_unexplained_nb(seats, seat)
        return first
    value = exchange_values_nb(dd, seats.prm, worlds, bidder, trump, sets, n_c, NO, forced, ask_cards, bid, gain,
                               double_deck, joker)
    return sets[best_of_totals_nb(value, 0)]
