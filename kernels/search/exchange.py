"""Bridgette's B-3 exchange by rollout (``exchange_worlds``).

**Candidates.** Discarding back to 13 is one choice of a set. The seat values a few sets
(``exchange_candidates_nb``): the heuristic's own, the same with each Colon it holds kept
or dropped the other way, the heuristic's last discard kept and its next one dropped
instead, and each short side suit discarded whole (a void to ruff with), the rest of each
set filled as the heuristic fills it.

**Worlds.** What the seat cannot see of the opponent at its exchange is the opponent's
holding before its discards: the 13 cards it was dealt and what it drew (B-3), drawn
uniformly from the cards the seat has not seen, the up-card with the opponent where the
rules put it there. The opponent's discards are private; the seat models them, and every
later call of both players, as the heuristic with the player's own parameters. With that
model the opponent's hand after the exchange is a function of its holding, so these worlds
are exactly the model's posterior: nothing is rejected or weighted.
"""

import numpy as np
from numba import njit

from kernels.cards import COLONS, NO, NONE, NOUGHT, SUIT_MASKS, ZERO, bit_nb, lowest_nb, popcount_nb
from kernels.pimc import decision_stream_nb
from kernels.policies import ODDS_WIDTH, add_distinct_nb, heuristic_discard_nb
from kernels.search.rollout import (
    HAND_SIZE, best_candidate_nb, draw_from_nb, goal_nb, model_auction_nb,
)

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
            n = add_distinct_nb(out, n, heuristic_discards_nb(h, hand, excess, ZERO, c))  # kept
        else:
            n = add_distinct_nb(out, n, heuristic_discards_nb(h, hand, excess, c, ZERO))  # dropped
    # The heuristic's last discard kept, its next choice dropped instead.
    last = ZERO
    rest = hand
    for _ in range(excess):
        last = bit_nb(heuristic_discard_nb(h, rest))
        rest &= ~last
    n = add_distinct_nb(out, n, heuristic_discards_nb(h, hand, excess, ZERO, last))
    for s in range(4):
        suit = hand & SUIT_MASKS[s]
        if suit and popcount_nb(suit) <= excess:
            n = add_distinct_nb(out, n, heuristic_discards_nb(h, hand, excess, suit, ZERO))
    return n


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
    model = seats.prm[1 - seat].heuristic
    for w in range(n_w):
        held = opp_known | draw_from_nb(rng, pool, opp_holding - popcount_nb(opp_known))
        opp[w] = held & ~heuristic_discards_nb(model, held, opp_holding - HAND_SIZE, ZERO, ZERO)
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
                seats.prm, hands, NO, dealer, NONE, NONE, NOUGHT, NOUGHT, NOUGHT, min_trump_cards, nt_needs_all_suits,
                jump_min_cards, opening_pass_ends, gain, odds)
    mine = np.empty(n_c, dtype=np.uint64)
    for c in range(n_c):
        mine[c] = hand & ~candidates[c]
    return candidates[best_candidate_nb(dd, seat, mine, opp, contract, declarer, doubled, when_void, gain,
                                            goal_nb(seats, seat))]
