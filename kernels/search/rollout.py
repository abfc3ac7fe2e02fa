"""What every searched decision shares: distinct candidates, the auction rolled out by the
model, the contract reached valued double dummy, and the count of decisions the model could
not explain.

Each player is modelled as the heuristic with its own parameters (those its policy makes
its heuristic decisions with: public, as a pair's agreements are at the bridge table). A
contract is valued at its double-dummy tricks, the declarer's opponent leading, scored by
the game (B-11..B-14, D-5/D-6): the seat's points minus the opponent's, 0 when passed out.
Every candidate is valued in the same worlds (a paired comparison), and the seat takes the
highest mean, the heuristic's own action among equals.
"""

import math

import numpy as np
from numba import njit

from kernels.calls import BID_STRAIN, CALL_PASS, contract_after_nb, legal_calls_nb
from kernels.cards import NONE, NOUGHT, ZERO, bit_nb, cards_of_nb
from kernels.dd import contract_at_nb, contract_rules_nb, renew_nb, search_table_nb, value_near_nb
from kernels.policies import OBJECTIVE_POINTS, heuristic_call_nb
from kernels.rng import below_nb
from kernels.step import note_unexplained_nb  # noqa: F401 (every searched decision counts through it)

HAND_SIZE = 13
# The spread of one Bridgette deal's score, one seat's minus the other's: its standard
# deviation in points, 1,065 over 120,250 deals of 20,000 heuristic games (default rules,
# seed 5); what a lead is worth in the deals left (``worth_nb``).
DEAL_SPREAD = 1065.0


@njit(cache=True)
def goal_nb(seats, seat):
    """What ``seat``'s searched choices maximize (``worth_nb``): [its objective, its lead in
    the game's totals, the deals of the game left after this one]."""
    return np.array([seats.prm[seat].search.objective, seats.totals[seat] - seats.totals[1 - seat],
                     seats.deals_left], dtype=np.float64)


@njit(cache=True, inline="always")
def worth_nb(points, goal):
    """What a deal scoring ``points`` for the seat (its points minus the opponent's) is worth
    under ``goal`` (``goal_nb``): the points, or the chance of then winning the game. After
    the last deal that is whether the seat leads (a tie: one half, a tie-break deal being
    even); before it the lead is taken to move by the sum of the deals left, each of spread
    ``DEAL_SPREAD`` and even on average (the dealer alternates)."""
    if goal[0] == OBJECTIVE_POINTS:
        return points
    margin = goal[1] + points
    if goal[2] <= 0:
        return 1.0 if margin > 0 else (0.5 if margin == 0 else 0.0)
    return 0.5 * (1.0 + math.erf(margin / (DEAL_SPREAD * math.sqrt(2.0 * goal[2]))))


@njit(cache=True, inline="always")
def after_call_nb(call, seat, cur_bid, bidder, doubled, n_calls, opening_pass_ends):
    """C-4: the auction after ``seat`` calls ``call`` as its ``n_calls``-th call (counted
    from 1): (whether it is over, the bid, its bidder, the doubling)."""
    over = call == CALL_PASS and (cur_bid >= 0 or n_calls == 2 or opening_pass_ends)
    bid, by, dbl = contract_after_nb(call, seat, cur_bid, bidder, doubled)
    return over, bid, by, dbl


@njit(cache=True)
def model_auction_nb(prm, hands, whole, seat, cur_bid, bidder, doubled, n_calls, lowest_bid, min_trump_cards,
                     nt_needs_all_suits, jump_min_cards, opening_pass_ends, gain, odds):
    """C-4 with B-5/B-6 (D-3): the rest of an auction, ``seat`` to call after ``n_calls``
    calls, as both players make it as the heuristic with its own parameters (``prm``: the
    seats' parameter records), each from its
    own hand, or from both when the deal is known ``whole`` (Draw Bridge after D-2; the
    turns and end of ``kernels.contract.auction_nb``); returns (contract, declarer,
    doubled), contract -1 when passed out. ``odds``: a memo of ``ODDS_WIDTH`` rows for the
    heuristic (its rows depend on the strain and the tricks alone, so any hand may share it)."""
    while True:
        hand = hands[seat]
        legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards, nt_needs_all_suits,
                               jump_min_cards)
        call = heuristic_call_nb(prm[seat].heuristic, seat, hand, legal, cur_bid, bidder, doubled,
                                 hands[1 - seat] if whole else ~hand, gain, odds)
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
    return value_near_nb(search_table_nb(dd, False), dd, False, at, guess, NOUGHT, np.int64(HAND_SIZE))


@njit(cache=True)
def best_candidate_nb(dd, seat, mine, opp, contract, declarer, doubled, when_void, gain, goal):
    """The candidate of the highest mean worth for ``seat`` under ``goal`` (``worth_nb``;
    the first among equals) when candidate ``c`` in world ``w`` reaches ``contract[c, w]``
    (-1 passed out: 0 points) played by ``declarer[c, w]`` at ``doubled[c, w]``, the seat
    holding ``mine[c]`` and the opponent ``opp[w]``; each world's (strain, declarer) solved
    once while the seat's hand is the same."""
    n_c, n_w = contract.shape
    value = np.zeros(n_c)
    for c in range(n_c):
        for w in range(n_w):
            if contract[c, w] < 0:
                value[c] += worth_nb(0.0, goal)
    tricks = np.full((n_w, 5, 2), -1, dtype=np.int64)
    hands = np.empty(2, dtype=np.uint64)
    for strain in range(5):
        guess = NONE
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
                value[c] += worth_nb(score if d == seat else -score, goal)
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
