"""The two bridge games' calls by rollout (C-4 with doubles and redoubles; ``call_worlds``).

**Candidates**: the heuristic's call, a pass, a double or redouble where legal, and in each
strain the cheapest legal bid and the cheapest that scores more when made exactly (the
next step of the contract values: 1NT to 3NT, 3H to 4H).

**Worlds**: the opponent's hands uniform among those consistent with what the seat knows
(kernels.pimc, ``sample_bidding_worlds_nb``) in which the model of the opponent would have
made its calls so far (kernels.policies.reading: the heuristic, exactly; with
``call_model`` a searching opponent by a softmax over these same candidates, each world kept
with its chance), within ``REJECTION_TRIES`` draws per world wanted. No world is taken that
the model cannot explain: with fewer accepted the seat values its candidates over those;
with none, the softmax's likeliest draws; and where the model gives every draw the chance 0
the seat makes the heuristic's call and the deal counts one ``unexplained`` decision (the
model has failed to read the opponent, and an unconditioned world would value a double
against a random hand). After the candidate, the auction goes on as the model makes it; in Draw
Bridge, after D-2, the one world is the deal and the model bids from both hands.
"""

import numpy as np
from numba import njit

from kernels.pimc import REJECTION_TRIES, sample_bidding_worlds_nb
from kernels.policies import MAX_CALL_CANDIDATES, ODDS_WIDTH, call_candidates_nb, heuristic_call_nb
from kernels.search.rollout import after_call_nb, best_candidate_nb, goal_nb, model_auction_nb, note_unexplained_nb


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
    opp, whole = sample_bidding_worlds_nb(seats, seat, hands, unseen, calls, n_calls, dealer, lowest_bid,
                                          min_trump_cards, nt_needs_all_suits, jump_min_cards, gain,
                                          seats.prm[seat].search.call_worlds, REJECTION_TRIES)
    n_w = opp.shape[0]
    if n_w == 0:
        note_unexplained_nb(seats, seat)
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
                seats.prm, both, whole, 1 - seat, bid, by, dbl, n_calls + 1, lowest_bid, min_trump_cards, nt_needs_all_suits,
                jump_min_cards, opening_pass_ends, gain, odds)
    mine_hands = np.full(n_c, hands[seat], dtype=np.uint64)
    return candidates[best_candidate_nb(dd, seat, mine_hands, opp, contract, declarer, doubling, when_void, gain,
                                            goal_nb(seats, seat))]
