"""Players that search beyond card play (``search``): the exchange and the calls by rollout.

A ``search`` seat plays its cards as ``pimc`` does (kernels.pimc); what it adds is searched
here: Bridgette's B-3 exchange and the two bridge games' calls (C-4). Each values a few
candidate actions over sampled worlds by rolling the auction out to its end, both players
modelled as the heuristic with the seat's own parameters, and scoring the contract reached
at its double-dummy tricks, the declarer's opponent leading: the seat's points minus the
opponent's (B-11..B-14, D-5/D-6), 0 when passed out. Every candidate is valued in the same
worlds (a paired comparison), and the seat takes the highest mean, the heuristic's own
action among equals. Solves go strain by strain, so the search table's entries
(kernels.dd) serve the next solve of the same trump, and a world's (strain, declarer) is
solved once however many candidates reach it.

**The exchange** (B-3, Bridgette):

**Candidates.** Discarding back to 13 is one choice of a set. The seat values a few sets
(``exchange_candidates_nb``): the heuristic's own, the same with each Colon it holds kept
or dropped the other way, the heuristic's last discard kept and its next one dropped
instead, and each short side suit discarded whole (a void to ruff with), the rest of each
set filled as the heuristic fills it.

**Worlds.** What the seat cannot see of the opponent at its exchange is the opponent's
holding before its discards: the 13 cards it was dealt and what it drew (B-3), drawn
uniformly from the cards the seat has not seen, the up-card with the opponent where the
rules put it there. The opponent's discards are private; the seat models them, and every
later call of both players, as the heuristic with the seat's own parameters. With that
model the opponent's hand after the exchange is a function of its holding, so these worlds
are exactly the model's posterior: nothing is rejected or weighted.

**The calls** (C-4 with doubles and redoubles; Bridgette and Draw Bridge): the candidates
are the heuristic's call, a pass, a double or redouble where legal, and in each strain the
cheapest legal bid and the cheapest that scores more when made exactly (the next step of
the contract values: 1NT to 3NT, 3H to 4H). The worlds are the opponent's hands uniform
among those consistent with what the seat knows (kernels.pimc, ``contract_deals_nb``) in
which the heuristic model would have made the opponent's calls so far: exact rejection, the
model being deterministic, within ``REJECTION_TRIES`` draws per world wanted. No world is
taken that the model cannot explain: with fewer accepted the seat values its candidates
over those, and with none it makes the heuristic's call (the model has failed to read the
opponent, and an unconditioned world would value a double against a random hand). After
the candidate, the auction goes on as the model makes it; in Draw Bridge, after D-2, the
one world is the deal and the model bids from both hands.

**Reproducible.** One number of the policy stream starts the decision's own stream, as in
kernels.pimc, and the worlds are drawn from the seat's unseen cards in card order, so the
choice depends only on what the seat knows.
"""

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, STRAIN_BIDS, legal_calls_nb
from kernels.cards import COLONS, ONE, SUIT_MASKS, ZERO, bit_nb, cards_of_nb, lowest_nb, popcount_nb
from kernels.dd import contract_at_nb, contract_rules_nb, renew_nb, search_table_nb, value_near_nb
from kernels.pimc import calls_agree_nb, contract_deals_nb, decision_stream_nb, sample_world_nb
from kernels.policies import ODDS_WIDTH, heuristic_call_nb, heuristic_discard_nb
from kernels.rng import below_nb

HAND_SIZE = 13
MAX_CANDIDATES = 9  # the heuristic's set, a Colon the other way (3), its next discard, a void (4)


@njit(cache=True)
def heuristic_discards_nb(h, hand, excess, forced, protect):
    """``excess`` discards from ``hand``: the cards of ``forced`` first, then the
    heuristic's choices (B-3, ``heuristic_discard_nb``) one at a time from what is left,
    never a card of ``protect``. The set discarded."""
    out = ZERO
    rest = hand
    while forced and popcount_nb(out) < excess:
        c = lowest_nb(forced)
        forced &= ~bit_nb(c)
        out |= bit_nb(c)
        rest &= ~bit_nb(c)
    while popcount_nb(out) < excess:
        c = heuristic_discard_nb(h, rest & ~protect)
        out |= bit_nb(c)
        rest &= ~bit_nb(c)
    return out


@njit(cache=True)
def exchange_candidates_nb(h, hand, excess, out):
    """B-3: the discard sets the seat values (module docstring), distinct, the heuristic's
    first, into ``out``; returns how many."""
    n = 0
    base = heuristic_discards_nb(h, hand, excess, ZERO, ZERO)
    out[n] = base
    n += 1
    colons = hand & COLONS
    while colons:
        c = bit_nb(lowest_nb(colons))
        colons &= ~c
        if base & c:
            n = _add_nb(out, n, heuristic_discards_nb(h, hand, excess, ZERO, c))  # kept
        else:
            n = _add_nb(out, n, heuristic_discards_nb(h, hand, excess, c, ZERO))  # dropped
    # The heuristic's last discard kept, its next choice dropped instead.
    last = ZERO
    rest = hand
    for _ in range(excess):
        last = bit_nb(heuristic_discard_nb(h, rest))
        rest &= ~last
    n = _add_nb(out, n, heuristic_discards_nb(h, hand, excess, ZERO, last))
    for s in range(4):
        suit = hand & SUIT_MASKS[s]
        if suit and popcount_nb(suit) <= excess:
            n = _add_nb(out, n, heuristic_discards_nb(h, hand, excess, suit, ZERO))
    return n


@njit(cache=True, inline="always")
def _add_nb(out, n, cards):
    """Append ``cards`` to ``out[:n]`` unless already there; the new length."""
    for k in range(n):
        if out[k] == cards:
            return n
    out[n] = cards
    return n + 1


@njit(cache=True, inline="always")
def after_call_nb(call, seat, cur_bid, bidder, doubled, n_calls, opening_pass_ends):
    """C-4: the auction after ``seat`` calls ``call`` as its ``n_calls``-th call (counted
    from 1): (whether it is over, the bid, its bidder, the doubling)."""
    if call == CALL_PASS:
        return cur_bid >= 0 or n_calls == 2 or opening_pass_ends, cur_bid, bidder, doubled
    if call == CALL_DOUBLE:
        return False, cur_bid, bidder, 1
    if call == CALL_REDOUBLE:
        return False, cur_bid, bidder, 2
    return False, call, seat, 0


@njit(cache=True)
def model_auction_nb(h, hands, whole, seat, cur_bid, bidder, doubled, n_calls, lowest_bid, min_trump_cards,
                     nt_needs_all_suits, jump_min_cards, opening_pass_ends, gain, odds):
    """C-4 with B-5/B-6 (D-3): the rest of an auction, ``seat`` to call after ``n_calls``
    calls, as both players make it as the heuristic with parameters ``h``, each from its
    own hand, or from both when the deal is known ``whole`` (Draw Bridge after D-2; the
    turns and end of ``kernels.contract.auction_nb``); returns (contract, declarer,
    doubled), contract -1 when passed out. ``odds``: a memo of ``ODDS_WIDTH`` rows for the
    heuristic (its rows depend on the strain and the tricks alone, so any hand may share it)."""
    while True:
        hand = hands[seat]
        legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards, nt_needs_all_suits,
                               jump_min_cards)
        call = heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, hands[1 - seat] if whole else ~hand,
                                 gain, odds)
        n_calls += 1
        over, cur_bid, bidder, doubled = after_call_nb(call, seat, cur_bid, bidder, doubled, n_calls,
                                                       opening_pass_ends)
        if over:
            return cur_bid, bidder, doubled
        seat = 1 - seat


@njit(cache=True)
def defence_tricks_nb(dd, hands, strain, declarer, when_void, guess):
    """The tricks the declarer's opponent takes double dummy, leading, with the two
    ``hands`` and ``strain`` (B-7..B-10, C-3); ``guess``: a value near it to start the
    search from (-1 none)."""
    dd.trump, dd.when_void = (strain if strain < 4 else -1), when_void
    renew_nb(dd, contract_rules_nb(dd.trump, when_void))
    dd.hands[0], dd.hands[1], dd.hands[2], dd.hands[3] = hands[0], hands[1], ZERO, ZERO
    leader = 1 - declarer
    at = contract_at_nb(dd, leader, -1, -1, leader)
    return value_near_nb(search_table_nb(dd, False), dd, False, at, guess, 0, HAND_SIZE)


@njit(cache=True)
def best_candidate_nb(dd, seat, mine, opp, contract, declarer, doubled, when_void, gain):
    """The candidate with the highest mean score for ``seat`` (the first among equals) when
    candidate ``c`` in world ``w`` reaches ``contract[c, w]`` (-1 passed out: 0) played by
    ``declarer[c, w]`` at ``doubled[c, w]``, the seat holding ``mine[c]`` and the opponent
    ``opp[w]``; each world's (strain, declarer) solved once while the seat's hand is the
    same."""
    n_c, n_w = contract.shape
    value = np.zeros(n_c)
    tricks = np.full((n_w, 5, 2), -1, dtype=np.int64)
    hands = np.empty(2, dtype=np.uint64)
    for strain in range(5):
        guess = -1
        for c in range(n_c):
            if c > 0 and mine[c] != mine[c - 1]:
                tricks[:, strain, :] = -1
            hands[seat] = mine[c]
            for w in range(n_w):
                bid = contract[c, w]
                if bid < 0 or BID_STRAIN[bid] != strain:
                    continue
                d = declarer[c, w]
                if tricks[w, strain, d] < 0:
                    hands[1 - seat] = opp[w]
                    guess = defence_tricks_nb(dd, hands, strain, d, when_void, guess)
                    tricks[w, strain, d] = HAND_SIZE - guess
                score = gain[doubled[c, w], bid, tricks[w, strain, d]]
                value[c] += score if d == seat else -score
    best = 0
    for c in range(1, n_c):
        if value[c] > value[best]:
            best = c
    return best


@njit(cache=True)
def draw_from_nb(rng, pool, k):
    """``k`` cards drawn uniformly from the set ``pool`` (a partial shuffle of its cards in
    card order)."""
    cards = cards_of_nb(pool)
    n = cards.shape[0]
    out = ZERO
    for i in range(k):
        j = i + below_nb(rng, n - i)
        cards[i], cards[j] = cards[j], cards[i]
        out |= bit_nb(cards[i])
    return out


@njit(cache=True)
def search_discards_nb(dd, seats, seat, dealer, hand, unseen, opp_known, opp_holding, min_trump_cards,
                       nt_needs_all_suits, jump_min_cards, opening_pass_ends, when_void, gain):
    """B-3: the discards of a ``search`` seat holding ``hand`` (above 13 cards): the
    candidate set with the best mean score over worlds (module docstring). ``unseen``: the
    cards the seat has not seen; ``opp_known``: those of them the opponent surely holds
    (the up-card, where the rules give it to the opponent); ``opp_holding``: how many cards
    the opponent holds before its discards. ``dd``: the game's search context."""
    h = seats.prm[seat].heuristic
    excess = popcount_nb(hand) - HAND_SIZE
    candidates = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    n_c = exchange_candidates_nb(h, hand, excess, candidates)
    if n_c == 1:
        return candidates[0]
    rng = decision_stream_nb(seats)
    n_w = max(1, np.int64(seats.prm[seat].search.exchange_worlds))
    opp = np.empty(n_w, dtype=np.uint64)
    pool = unseen & ~opp_known
    for w in range(n_w):
        held = opp_known | draw_from_nb(rng, pool, opp_holding - popcount_nb(opp_known))
        opp[w] = held & ~heuristic_discards_nb(h, held, opp_holding - HAND_SIZE, ZERO, ZERO)
    # The auction of every (candidate, world), then its contract's tricks strain by strain.
    contract = np.empty((n_c, n_w), dtype=np.int64)
    declarer = np.empty((n_c, n_w), dtype=np.int64)
    doubled = np.empty((n_c, n_w), dtype=np.int64)
    odds = np.zeros((2, 5, ODDS_WIDTH))
    hands = np.empty(2, dtype=np.uint64)
    for c in range(n_c):
        hands[seat] = hand & ~candidates[c]
        for w in range(n_w):
            hands[1 - seat] = opp[w]
            contract[c, w], declarer[c, w], doubled[c, w] = model_auction_nb(
                h, hands, False, dealer, -1, -1, 0, 0, 0, min_trump_cards, nt_needs_all_suits, jump_min_cards,
                opening_pass_ends, gain, odds)
    mine = np.empty(n_c, dtype=np.uint64)
    for c in range(n_c):
        mine[c] = hand & ~candidates[c]
    return candidates[best_candidate_nb(dd, seat, mine, opp, contract, declarer, doubled, when_void, gain)]


MAX_CALL_CANDIDATES = 14  # the heuristic's call, pass, double, redouble, two bids in each strain
REJECTION_TRIES = 200  # draws per world wanted before the calls' worlds make do with fewer


@njit(cache=True)
def calling_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid, min_trump_cards,
                      nt_needs_all_suits, jump_min_cards, gain, wanted):
    """Up to ``wanted`` opponent's hands consistent with what ``seat`` knows in which the
    opponent, as the heuristic with this seat's parameters, would have made its calls so
    far; only those (module docstring). Returns (hands, whether the seat knows the deal
    whole: then the one world is the deal)."""
    rng = decision_stream_nb(seats)
    cards, ways, stride, counts, allowed, n_deals = contract_deals_nb(seats, seat, hands, unseen)
    n = 1 if n_deals == 1.0 else max(1, np.int64(wanted))
    out = np.empty(n, dtype=np.uint64)
    world = np.empty(counts.shape[0], dtype=np.uint64)
    model = seats.prm[seat].heuristic
    got = 0
    for _ in range(REJECTION_TRIES * n):
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
def call_candidates_nb(mine, legal, gain, out):
    """C-4: the calls a ``search`` seat values (module docstring), distinct, the heuristic's
    call ``mine`` first, into ``out``; returns how many."""
    n = _add_nb(out, 0, mine)
    for call in (CALL_PASS, CALL_DOUBLE, CALL_REDOUBLE):
        if legal & bit_nb(call):
            n = _add_nb(out, n, call)
    for strain in range(5):
        bids = legal & STRAIN_BIDS[strain]
        if bids == ZERO:
            continue
        first = lowest_nb(bids)
        n = _add_nb(out, n, first)
        made = gain[0, first, 6 + BID_LEVEL[first]]
        rest = bids & ~bit_nb(first)
        while rest:
            b = lowest_nb(rest)
            rest &= rest - ONE
            if gain[0, b, 6 + BID_LEVEL[b]] > made:
                n = _add_nb(out, n, b)
                break
    return n


@njit(cache=True)
def search_call_nb(dd, seats, seat, hands, legal, cur_bid, bidder, doubled, unseen, gain, when_void, calls, n_calls,
                   dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends):
    """C-4 (B-5, B-6; D-3): the call of a ``search`` seat: the candidate whose rolled-out
    auction scores best on average over worlds consistent with the opponent's ``calls`` so
    far (module docstring). ``dd``: the game's search context."""
    h = seats.prm[seat].heuristic
    mine = heuristic_call_nb(h, seat, hands[seat], legal, cur_bid, bidder, doubled, unseen, gain, seats.odds[seat])
    candidates = np.empty(MAX_CALL_CANDIDATES, dtype=np.int64)
    n_c = call_candidates_nb(mine, legal, gain, candidates)
    if n_c == 1:
        return mine
    opp, whole = calling_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid, min_trump_cards,
                                   nt_needs_all_suits, jump_min_cards, gain, seats.prm[seat].search.call_worlds)
    n_w = opp.shape[0]
    if n_w == 0:
        return mine
    contract = np.empty((n_c, n_w), dtype=np.int64)
    declarer = np.empty((n_c, n_w), dtype=np.int64)
    doubling = np.empty((n_c, n_w), dtype=np.int64)
    odds = np.zeros((2, 5, ODDS_WIDTH))
    both = np.empty(2, dtype=np.uint64)
    both[seat] = hands[seat]
    for c in range(n_c):
        over, bid, by, dbl = after_call_nb(candidates[c], seat, cur_bid, bidder, doubled, n_calls + 1,
                                           opening_pass_ends)
        for w in range(n_w):
            if over:
                contract[c, w], declarer[c, w], doubling[c, w] = bid, by, dbl
                continue
            both[1 - seat] = opp[w]
            contract[c, w], declarer[c, w], doubling[c, w] = model_auction_nb(
                h, both, whole, 1 - seat, bid, by, dbl, n_calls + 1, lowest_bid, min_trump_cards, nt_needs_all_suits,
                jump_min_cards, opening_pass_ends, gain, odds)
    mine_hands = np.full(n_c, hands[seat], dtype=np.uint64)
    return candidates[best_candidate_nb(dd, seat, mine_hands, opp, contract, declarer, doubling, when_void, gain)]
