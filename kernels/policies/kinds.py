"""The policies the kernels know: their ids, the parameter record each one reads, which
decisions each one searches or samples, and the random policy's uniform pick."""

import numpy as np
from numba import njit

from kernels.cards import nth_card_nb, popcount_nb
from kernels.records import record_dtype
from kernels.rng import below_nb

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1
POLICY_DD = 2  # the card play: double dummy (kernels.dd), every hand seen; the rest: heuristic
POLICY_PIMC = 3  # the card play: double dummy averaged over sampled worlds (kernels.pimc); the rest: heuristic
POLICY_SEARCH = 4  # pimc's card play, and the other decisions by rollout (kernels.search)

# The parameters each policy reads, one record each (meanings and defaults: sim/policies.py).
HEURISTIC_PARAMS = record_dtype([(name, np.float64) for name in (
    "aggression", "double_margin", "redouble_margin", "keep_colons", "use_colons", "colon_lead_odds", "draw_fight",
    "partner_aware", "bid_by_score", "compete_margin")])
PIMC_PARAMS = record_dtype([(name, np.float64) for name in (
    "worlds",  # worlds sampled per card
    "bid_worlds",  # worlds sampled for a deal's calls (0: the heuristic's calls)
    "keep",  # 1 keeps the worlds of the seat's last card that stay consistent (Bridgette)
)])
SEARCH_PARAMS = record_dtype([(name, np.float64) for name in (
    "exchange_worlds",  # worlds valuing each candidate exchange (B-3, E-4; 0: the heuristic's)
    "call_worlds",  # worlds valuing each candidate call (C-4, E-3's bids and trump; 0: the heuristic's)
    "draw_worlds",  # worlds valuing each candidate draw-phase card (Draw Bridge's D-2; 0: the heuristic's)
    "objective",  # what a searched choice maximizes: OBJECTIVE_POINTS or OBJECTIVE_GAMES
    "call_model",  # 1 reads a searching opponent's calls by the softmax model (kernels.policies.reading), 0 as the heuristic's
)])
OBJECTIVE_POINTS = 0  # the mean deal score: the seat's points minus the opponent's
OBJECTIVE_GAMES = 1  # the mean chance of winning the game from the current totals
# A seat's parameters: the searching seats decide as the heuristic wherever they do not
# search, and ``search`` plays its cards as ``pimc``, so each seat carries every record.
POLICY_PARAMS = record_dtype([("heuristic", HEURISTIC_PARAMS), ("pimc", PIMC_PARAMS), ("search", SEARCH_PARAMS)])


@njit(cache=True, inline="always")
def plays_by_worlds_nb(pid, prm):
    """Whether a seat plays its cards over sampled worlds (kernels.pimc): ``pimc``, and
    ``search`` unless its ``worlds`` is 0 (the heuristic's card play)."""
    return pid == POLICY_PIMC or (pid == POLICY_SEARCH and prm.pimc.worlds > 0)


@njit(cache=True, inline="always")
def reads_calls_in_play_nb(pid):
    """Whether a seat playing its cards over worlds keeps only the worlds in which the
    opponent, modelled as the heuristic, would have made its calls (kernels.pimc):
    ``search``; ``pimc`` samples every world its card play allows."""
    return pid == POLICY_SEARCH


@njit(cache=True, inline="always")
def calls_by_worlds_nb(pid, prm):
    """Whether a seat makes its calls over sampled worlds, one answer ahead (kernels.pimc):
    ``pimc`` with ``bid_worlds`` above 0."""
    return pid == POLICY_PIMC and prm.pimc.bid_worlds > 0


@njit(cache=True, inline="always")
def searches_calls_nb(pid, prm):
    """Whether a seat makes its calls by rollout (kernels.search: the bridge games' C-4, Bid
    Euchre's E-3 bids and trump): ``search`` with ``call_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.call_worlds > 0


@njit(cache=True, inline="always")
def searches_exchange_nb(pid, prm):
    """Whether a seat chooses its exchange by rollout (kernels.search: Bridgette's B-3
    discards, Bid Euchre's E-4 gives and returns): ``search`` with ``exchange_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.exchange_worlds > 0


@njit(cache=True, inline="always")
def searches_draw_nb(pid, prm):
    """Whether a seat plays Draw Bridge's draw phase by rollout (kernels.search): ``search``
    with ``draw_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.draw_worlds > 0


@njit(cache=True, inline="always")
def add_distinct_nb(out, n, action):
    """Append ``action`` to ``out[:n]`` unless already there; the new length."""
    for k in range(n):
        if out[k] == action:
            return n
    out[n] = action
    return n + 1


@njit(cache=True, inline="always")
def pick_random_nb(mask, rng):
    """Uniform choice of one set bit of ``mask``."""
    return nth_card_nb(mask, below_nb(rng, popcount_nb(mask)))
