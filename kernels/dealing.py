"""How a run deals: whole games or single deals, the dealer, and conditions on the cards.

A game's kernel reads one ``PLAN_DTYPE`` record (``KernelRules.plan``, built by
sim.dealing). The default plan plays whole games with the dealer drawn and the cards
shuffled as they always were, so game runs keep their records. A deal run plays one
counted deal per game index, its dealer fixed or alternating by index. Conditions fix
the up-card's set (Bridgette), cards a seat holds as dealt (predeal), and ranges of counts
a seat's hand must fall in (suit lengths, aces, bowers, high-card points).

Conditioned dealing is exact: the deck is shuffled, the up-card drawn uniformly from its
allowed set less the predealt cards and swapped into its place, each predealt card swapped
into its seat's places, and a deal outside a range thrown away whole (up-card included)
and dealt again. Every deal that meets the conditions is equally likely.
"""

import numpy as np
from numba import njit

from kernels.cards import ONE, ZERO, bit_nb, hcp_nb, lowest_nb, nth_card_nb, popcount_nb
from kernels.rng import below_nb, shuffle_nb
from kernels.records import record_dtype

MAX_REQUIREMENTS = 32
MAX_SEATS = 4

DEALER_DRAWN = -1  # whole games: the first dealer is drawn from the game's deal stream
DEALER_ALTERNATE = -2  # deal runs: deal i is dealt by seat i mod the number of seats

REQ_COUNT = 0  # cards of the hand in ``mask``
REQ_HCP = 1  # high-card points (A 4, K 3, Q 2, J 1; Colons none)

# A deal still outside its ranges after this many tries stops the run (sim.dealing checks
# the acceptance rate before a run starts, so only a run that was told otherwise gets here).
MAX_TRIES = 10_000_000

PLAN_DTYPE = record_dtype([
    ("one_deal", np.bool_), ("dealer", np.int8), ("conditioned", np.bool_),
    ("upcards", np.uint64), ("predeal", np.uint64, (MAX_SEATS,)),
    ("n_req", np.int64),
    ("req_seat", np.int64, (MAX_REQUIREMENTS,)), ("req_kind", np.int64, (MAX_REQUIREMENTS,)),
    ("req_mask", np.uint64, (MAX_REQUIREMENTS,)), ("req_lo", np.int64, (MAX_REQUIREMENTS,)),
    ("req_hi", np.int64, (MAX_REQUIREMENTS,)),
])


def games_plan() -> np.ndarray:
    """The plan of a game run: whole games, dealer drawn, no conditions."""
    plan = np.zeros(1, dtype=PLAN_DTYPE)
    plan[0]["dealer"] = DEALER_DRAWN
    return plan


@njit(cache=True)
def first_dealer_nb(plan, drawn, game_index, seats):
    """The game's first dealer: ``drawn`` from its stream, or the deal run's choice."""
    if plan.dealer == DEALER_DRAWN:
        return drawn
    if plan.dealer == DEALER_ALTERNATE:
        return game_index % seats
    return np.int64(plan.dealer)


@njit(cache=True)
def meets_nb(plan, hands):
    """Whether every hand is within the plan's ranges."""
    for r in range(plan.n_req):
        hand = hands[plan.req_seat[r]]
        value = popcount_nb(hand & plan.req_mask[r]) if plan.req_kind[r] == REQ_COUNT else hcp_nb(hand)
        if value < plan.req_lo[r] or value > plan.req_hi[r]:
            return False
    return True


@njit(cache=True, inline="always")
def swap_in_nb(order, card, place):
    """Move ``card`` to ``place`` of ``order``, the card there to where ``card`` was."""
    k = 0
    while order[k] != card:
        k += 1
    order[k], order[place] = order[place], card


@njit(cache=True)
def candidate_nb(deal_rng, plan, deck, order, hands, start, seats, dealt, extra_seat, up_pos):
    """One deal with the plan's up-card (drawn from ``plan.upcards``: cards of the deck, none
    predealt) and predeals, the rest uniform; whether it is within the ranges.

    Place ``k`` of ``order`` is dealt to seat ``(start + k) % seats`` for ``k < dealt``, to
    ``extra_seat`` at ``k == dealt`` when that is a seat (E-10's joker card), and is the
    stock otherwise; ``up_pos`` is the up-card's place (-1: none). The deck is shuffled as
    an unconditioned deal is, then the up-card and each predealt card are swapped into
    their places (a seat's predealt cards into its first places): every arrangement with
    those cards there is reached from as many shuffles, so the rest stays uniform.
    """
    n = deck.shape[0]
    order[:n] = deck
    shuffle_nb(deal_rng, order[:n])
    if plan.upcards != ZERO:
        swap_in_nb(order, nth_card_nb(plan.upcards, below_nb(deal_rng, popcount_nb(plan.upcards))), up_pos)
    for seat in range(seats):
        cards = plan.predeal[seat]
        slot = 0
        while cards:
            card = lowest_nb(cards)
            cards &= cards - ONE
            swap_in_nb(order, card, slot * seats + (seat - start) % seats)
            slot += 1
    hands[:] = ZERO
    seat = start
    for k in range(dealt):
        hands[seat] |= bit_nb(order[k])
        seat = seat + 1 if seat + 1 < seats else 0
    if n > dealt and extra_seat >= 0:
        hands[extra_seat] |= bit_nb(order[dealt])
    return meets_nb(plan, hands)


@njit(cache=True)
def conditioned_order_nb(deal_rng, plan, deck, order, hands, start, seats, dealt, extra_seat, up_pos):
    """Deal ``deck`` into ``order`` and ``hands`` under the plan's conditions (places as in
    ``candidate_nb``); the tries it took, or -1 when MAX_TRIES deals all missed the ranges."""
    for tries in range(1, MAX_TRIES + 1):
        if candidate_nb(deal_rng, plan, deck, order, hands, start, seats, dealt, extra_seat, up_pos):
            return tries
    return -1


@njit(cache=True)
def acceptance_nb(plan, deck, seed, tries, start, seats, dealt, extra_seat, up_pos):
    """How many of ``tries`` candidate deals from a pilot stream meet the ranges."""
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    order = np.empty(deck.shape[0], dtype=np.int64)
    hands = np.zeros(MAX_SEATS, dtype=np.uint64)
    met = 0
    for _ in range(tries):
        met += candidate_nb(rng, plan, deck, order, hands, start, seats, dealt, extra_seat, up_pos)
    return met


@njit(cache=True)
def sample_nb(plan, deck, seed, start, seats, dealt, extra_seat, up_pos, hands_out, up_out):
    """Deal ``hands_out.shape[0]`` conditioned deals from a stream of their own: each one's
    hands and up-card (-1 where the game has none)."""
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    order = np.empty(deck.shape[0], dtype=np.int64)
    hands = np.zeros(MAX_SEATS, dtype=np.uint64)
    for i in range(hands_out.shape[0]):
        conditioned_order_nb(rng, plan, deck, order, hands, start, seats, dealt, extra_seat, up_pos)
        hands_out[i] = hands[:seats]
        up_out[i] = order[up_pos] if up_pos >= 0 else -1
