"""How a seat reads the opponent's calls (C-4): the chance that the opponent, holding a
given hand, would have made its calls of the auction so far, under a model of its policy.

- An opponent whose calls are the heuristic's (``heuristic``, ``dd``, ``pimc`` without
  ``bid_worlds``, ``search`` without ``call_worlds``; ``random``, and ``pimc`` sampling its
  calls, are read as the heuristic too), and any opponent of a reader whose ``call_model``
  is 0, is modelled exactly: the chance is 1 when the heuristic with the opponent's own
  parameters makes every one of its calls from that hand, else 0.
- An opponent that searches its calls (``search`` with ``call_worlds``) is read, by a seat
  whose ``call_model`` is 1, through a softmax over the candidates it values
  (``call_candidates_nb``): each candidate scores ``CALL_MODEL`` times its features, the
  main one the candidate's expected score with the hand's tricks estimated as the heuristic
  estimates them, and a call's chance is its share of the exponentials. The calls' chances
  multiply. A searched call depends on worlds and double-dummy values no reader can redo
  cheaply; this model puts every such call within reach (chance above 0 wherever it is a
  legal candidate) and weighs the hands by how well they explain it.

A reader keeps a world with this chance (exact rejection sampling of the model's posterior:
``kept_nb``), so the heuristic's 0 and 1 draw nothing and leave every other run as it was.
"""

import numpy as np
from numba import njit

from kernels.calls import (
    BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, STRAIN_BIDS, contract_after_nb, legal_calls_nb,
)
from kernels.cards import NONE, NOUGHT, ONE, ZERO, bit_nb, lowest_nb
from kernels.policies.contract import (
    ODDS_WIDTH, defence_estimate_nb, estimate_tricks_nb, expected_gain_nb, heuristic_call_nb,
)
from kernels.policies.kinds import POLICY_SEARCH, add_distinct_nb
from kernels.rng import uniform_nb

MAX_CALL_CANDIDATES = 14  # the heuristic's call, pass, double, redouble, two bids in each strain

# The softmax's weights on a candidate's features (``candidate_features_nb``), fitted by
# maximum likelihood to the calls of two ``search`` seats at Bridgette's defaults
# (``python -m benchmarks.call_model --games 250 --seed 2 --fit``, docs/search.md):
# [expected score in hundreds of points, the heuristic's own call, a pass, a double, a
# redouble, the bid's level, a bid above the heuristic's].
CALL_MODEL = np.array([0.147, 3.013, 0.733, 1.301, -4.457, 0.202, 1.003])
N_FEATURES = CALL_MODEL.shape[0]


@njit(cache=True)
def call_candidates_nb(mine, legal, gain, out):
    """C-4: the calls a ``search`` seat values, distinct, into ``out``; returns how many.
    The heuristic's call ``mine`` first, then a pass, a double or redouble where legal, and
    in each strain the cheapest legal bid and the cheapest that scores more when made
    exactly (``gain``, the next step of the contract values: 1NT to 3NT, 3H to 4H)."""
    n = add_distinct_nb(out, 0, mine)
    for call in (CALL_PASS, CALL_DOUBLE, CALL_REDOUBLE):
        if legal & bit_nb(call):
            n = add_distinct_nb(out, n, call)
    for strain in range(5):
        bids = legal & STRAIN_BIDS[strain]
        if bids == ZERO:
            continue
        first = lowest_nb(bids)
        n = add_distinct_nb(out, n, first)
        made = gain[0, first, 6 + BID_LEVEL[first]]
        rest = bids & ~bit_nb(first)
        while rest:
            b = lowest_nb(rest)
            rest &= rest - ONE
            if gain[0, b, 6 + BID_LEVEL[b]] > made:
                n = add_distinct_nb(out, n, b)
                break
    return n


@njit(cache=True)
def candidate_features_nb(seat, hand, cur_bid, bidder, doubled, gain, mine, candidates, n, memo, out):
    """``out[i]``: the features of ``candidates[i]`` (``CALL_MODEL`` says which) for
    ``seat`` holding ``hand``. A candidate's expected score takes the auction to end with it:
    a bid played undoubled, a double or redouble of the contract, a pass leaving the
    contract as it stands (0 with no bid yet); the declarer's tricks fall about the hand's
    estimate (the heuristic's ``expected_gain_nb``). ``memo[0, strain]`` and ``memo[1,
    strain]``: memo rows of the trick chances as declarer and as defender, which serve every
    call of the same hand."""
    for i in range(n):
        c = candidates[i]
        value = 0.0
        if c == CALL_PASS and cur_bid >= 0:
            strain = BID_STRAIN[cur_bid]
            if bidder == seat:
                value = expected_gain_nb(gain, cur_bid, doubled, estimate_tricks_nb(hand, strain), memo[0, strain])
            else:
                value = -expected_gain_nb(gain, cur_bid, doubled, 13.0 - defence_estimate_nb(hand, strain),
                                          memo[1, strain])
        elif c == CALL_DOUBLE:
            strain = BID_STRAIN[cur_bid]
            value = -expected_gain_nb(gain, cur_bid, 1, 13.0 - defence_estimate_nb(hand, strain), memo[1, strain])
        elif c == CALL_REDOUBLE:
            strain = BID_STRAIN[cur_bid]
            value = expected_gain_nb(gain, cur_bid, 2, estimate_tricks_nb(hand, strain), memo[0, strain])
        elif c != CALL_PASS:
            value = expected_gain_nb(gain, c, 0, estimate_tricks_nb(hand, BID_STRAIN[c]), memo[0, BID_STRAIN[c]])
        out[i, 0] = value / 100.0
        out[i, 1] = 1.0 if c == mine else 0.0
        out[i, 2] = 1.0 if c == CALL_PASS else 0.0
        out[i, 3] = 1.0 if c == CALL_DOUBLE else 0.0
        out[i, 4] = 1.0 if c == CALL_REDOUBLE else 0.0
        out[i, 5] = BID_LEVEL[c] if c < CALL_PASS else 0.0
        out[i, 6] = 1.0 if c < CALL_PASS and mine < CALL_PASS and c > mine else 0.0


@njit(cache=True)
def searched_call_chance_nb(h, seat, hand, legal, cur_bid, bidder, doubled, gain, odds, memo, call):
    """The softmax model's chance that a ``search`` seat with the heuristic parameters
    ``h``, holding ``hand``, makes ``call`` (module docstring); 0 where it is no candidate.
    ``odds``: the seat's memo for its heuristic call; ``memo``: ``candidate_features_nb``'s."""
    mine = heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, ~hand, gain, odds)
    candidates = np.empty(MAX_CALL_CANDIDATES, dtype=np.int64)
    n = call_candidates_nb(mine, legal, gain, candidates)
    k = -1
    for i in range(n):
        if candidates[i] == call:
            k = i
    if k < 0:
        return 0.0
    if n == 1:
        return 1.0
    features = np.empty((n, N_FEATURES))
    candidate_features_nb(seat, hand, cur_bid, bidder, doubled, gain, mine, candidates, n, memo, features)
    scores = np.zeros(n)  # by hand: numba's matrix product needs SciPy, which the project does not take
    for i in range(n):
        for f in range(N_FEATURES):
            scores[i] += features[i, f] * CALL_MODEL[f]
    top = scores.max()
    return np.exp(scores[k] - top) / np.exp(scores - top).sum()


@njit(cache=True, inline="always")
def read_as_search_nb(reader_prm, pid, prm):
    """Whether a reader with parameters ``reader_prm`` reads a player of policy ``pid``
    with parameters ``prm`` by the softmax model: that player searches its calls and the
    reader's ``call_model`` is 1."""
    return reader_prm.search.call_model > 0 and pid == POLICY_SEARCH and prm.search.call_worlds > 0


@njit(cache=True)
def calls_chance_nb(h, searched, hand, seat, calls, n_calls, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits,
                    jump_min_cards, gain, odds, memo):
    """The chance that ``seat``, holding ``hand``, made its calls among the auction's
    ``calls`` so far (C-4 with B-6): under the heuristic with the parameters ``h`` 1 or 0;
    with ``searched``, the product of the softmax model's chances (module docstring).
    ``odds``: the seat's memo of trick chances; ``memo``: the softmax's (2, 5, ODDS_WIDTH)
    memo rows (``candidate_features_nb``), one for all the worlds of a decision, as its rows
    are keyed by strain and tricks."""
    cur_bid, bidder, doubled = NONE, NONE, NOUGHT
    unseen = ~hand  # more cards than the hand: the heuristic counts from its own hand
    chance = 1.0
    for i in range(n_calls):
        caller = (dealer + i) % 2
        call = calls[i]
        if caller == seat:
            legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards,
                                   nt_needs_all_suits, jump_min_cards)
            if searched:
                chance *= searched_call_chance_nb(h, seat, hand, legal, cur_bid, bidder, doubled, gain, odds, memo,
                                                  call)
                if chance == 0.0:
                    return 0.0
            elif heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, unseen, gain, odds) != call:
                return 0.0
        cur_bid, bidder, doubled = contract_after_nb(call, caller, cur_bid, bidder, doubled)
    return chance


@njit(cache=True, inline="always")
def kept_nb(chance, rng):
    """Whether a reader keeps a world whose hand explains the calls with ``chance``: always
    at 1, never at 0, else when a uniform draw of ``rng`` falls below it."""
    if chance >= 1.0:
        return True
    if chance <= 0.0:
        return False
    return uniform_nb(rng) < chance
