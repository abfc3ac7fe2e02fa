"""Players that search beyond card play (``search``): Bridgette's exchange by rollout.

A ``search`` seat plays its cards and makes its calls as ``pimc`` does (kernels.pimc);
what it adds is searched here. Today that is Bridgette's B-3 exchange:

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

**Value.** In each world, for each candidate, the auction is played to its end by the two
modelled players (``model_auction_nb``) and the contract it reaches is scored (B-11..B-14)
at its double-dummy tricks, the declarer's opponent leading: the seat's points minus the
opponent's, 0 when passed out. Every candidate is valued in the same worlds (a paired
comparison), and the seat discards the set with the highest mean, the heuristic's among
equals. Solves are taken strain by strain, so the search table's entries (kernels.dd) serve
the next solve of the same trump.

**Reproducible.** One number of the policy stream starts the decision's own stream, as in
kernels.pimc, and the worlds are drawn from the seat's unseen cards in card order, so the
choice depends only on what the seat knows.
"""

import numpy as np
from numba import njit

from kernels.calls import BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, legal_calls_nb
from kernels.cards import COLONS, ONE, SUIT_MASKS, ZERO, bit_nb, lowest_nb, popcount_nb
from kernels.dd import contract_at_nb, contract_rules_nb, renew_nb, search_table_nb, value_near_nb
from kernels.pimc import decision_stream_nb
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


@njit(cache=True)
def model_auction_nb(h, hands, dealer, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends,
                     gain, odds):
    """C-4 with B-5/B-6: the auction both players make as the heuristic with parameters
    ``h``, each from its own hand (``kernels.contract.auction_nb``'s turns and end);
    returns (contract, declarer, doubled), contract -1 when passed out. ``odds``: a
    scratch memo of ``ODDS_WIDTH`` rows for the heuristic."""
    cur_bid, bidder, doubled = -1, -1, 0
    seat = dealer
    n_calls = 0
    while True:
        hand = hands[seat]
        legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, 0, min_trump_cards, nt_needs_all_suits,
                               jump_min_cards)
        call = heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, ~hand, gain, odds)
        n_calls += 1
        if call == CALL_PASS:
            if cur_bid >= 0 or n_calls == 2 or opening_pass_ends:
                break
        elif call == CALL_DOUBLE:
            doubled = 1
        elif call == CALL_REDOUBLE:
            doubled = 2
        else:
            cur_bid, bidder, doubled = call, seat, 0
        seat = 1 - seat
    return cur_bid, bidder, doubled


@njit(cache=True)
def draw_from_nb(rng, pool, k):
    """``k`` cards drawn uniformly from the set ``pool`` (a partial shuffle of its cards in
    card order)."""
    n = popcount_nb(pool)
    cards = np.empty(n, dtype=np.int64)
    rest = pool
    for i in range(n):
        cards[i] = lowest_nb(rest)
        rest &= rest - ONE
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
                h, hands, dealer, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends, gain,
                odds)
    value = np.zeros(n_c)
    dd.when_void = when_void
    dd.hands[2], dd.hands[3] = ZERO, ZERO
    for strain in range(5):
        guess = -1
        started = False
        for c in range(n_c):
            for w in range(n_w):
                bid = contract[c, w]
                if bid < 0 or BID_STRAIN[bid] != strain:
                    continue
                if not started:
                    dd.trump = strain if strain < 4 else -1
                    renew_nb(dd, contract_rules_nb(dd.trump, when_void))
                    started = True
                dd.hands[seat], dd.hands[1 - seat] = hand & ~candidates[c], opp[w]
                leader = 1 - declarer[c, w]
                at = contract_at_nb(dd, leader, -1, -1, leader)
                guess = value_near_nb(search_table_nb(dd, False), dd, False, at, guess, 0, HAND_SIZE)
                score = gain[doubled[c, w], bid, HAND_SIZE - guess]
                value[c] += score if declarer[c, w] == seat else -score
    best = 0
    for c in range(1, n_c):
        if value[c] > value[best]:
            best = c
    return candidates[best]
