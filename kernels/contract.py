"""Shared by the two-player contract games, Bridgette and Draw Bridge.

The C-4 auction with doubling (and B-6's holding restrictions, switched off for Draw
Bridge), the fields of a deal record both games write, the error codes a replayed action
can stop on, the replay lists, and the decision steps for calls and contract cards.
"""

import numpy as np
from numba import njit

from kernels import activity
from kernels.calls import CALL_PASS, CALL_UNKNOWN, N_BIDS, legal_calls_nb, refused_nb
from kernels.cards import NONE, NOUGHT
from kernels.dd import contract_dd_card_nb
from kernels.pimc import observe_contract_card_nb, pimc_call_nb, pimc_contract_card_nb
from kernels.policies import (
    POLICY_DD, calls_by_worlds_nb, choose_call_nb, choose_card_nb, plays_by_worlds_nb, searches_calls_nb,
)
from kernels.records import plain_nb
from kernels.search.calls import search_call_nb
from kernels.search.rollout import after_call_nb
from kernels.step import (
    BY_POLICY, ERROR_FIELDS, NO_ACTION, left_over_nb, legal_nb, record_nb, scripted_nb, stop_nb,
)

# --- The deal record: fields both games write (each game adds its own) ---------------------
CONTRACT_FIELDS = [
    ("contract", np.int8),  # ladder index, -1 passed out
    ("declarer", np.int8), ("doubled", np.int8), ("tricks0", np.int8), ("tricks1", np.int8),
    ("score0", np.int32), ("score1", np.int32),
]
RECORD_FIELDS = CONTRACT_FIELDS + ERROR_FIELDS + [activity.ACTIVITY_FIELD]

# --- Why a replayed action is illegal (each game names the rule: B-7 or D-4, ...) ----------
ERR_NONE = 0
ERR_EXCHANGE = 1  # a wrong discard (B-3)
ERR_AUCTION = 2  # C-4: does not outrank, improper double or redouble, after the auction
ERR_HOLDING = 3  # B-6
ERR_NOT_IN_HAND = 4  # or too few or too many cards
ERR_FOLLOW = 5  # C-3 (D-2 in a must-follow draw phase)
ERR_COLON = 6  # B-10
ERR_BAR = 7  # B-8
ERR_LADDER = 8  # not a call of this game's ladder (B-5, D-3)
AT_DISCARDS, AT_CALLS, AT_PLAY = 0, 1, 2
AT_NAMES = ("discards", "calls", "play")

# --- Replay lists (Seats.script rows) and trace row kinds ------------------------------------
LIST_DISCARDS = 0  # two lists, by seat (Bridgette's B-3 exchange)
LIST_CALLS, LIST_PLAY = 2, 3
N_LISTS = 4
KIND_DISCARD, KIND_CALL, KIND_PLAY = 0, 1, 2


@njit(cache=True)
def start_deal_nb(row):
    """A deal record before play: passed out until a contract is reached, no error."""
    row.contract = -1
    row.declarer = -1
    row.doubled = 0
    row.tricks0 = 0
    row.tricks1 = 0
    row.score0 = 0
    row.score1 = 0
    row.error = 0
    row.error_at = 0
    row.error_index = 0
    row.activity = 0


@njit(cache=True, inline="always")
def add_trick_nb(row, seat):
    if seat == 0:
        row.tricks0 += 1
    else:
        row.tricks1 += 1


@njit(cache=True)
def score_contract_nb(row, declarer, declarer_gain, opponent_gain):
    """Write the deal's scores by seat from the declarer's and the opponent's gains."""
    row.score0 = declarer_gain if declarer == 0 else opponent_gain
    row.score1 = opponent_gain if declarer == 0 else declarer_gain


@njit(cache=True)
def declarer_tricks_nb(row):
    return row.tricks0 if row.declarer == 0 else row.tricks1


# --- C-4: the auction ------------------------------------------------------------------------

@njit(cache=True)
def call_error_nb(call, cur_bid, lowest_bid):
    """The reason an illegal call is illegal: off the ladder, a holding limit, otherwise C-4."""
    if call == CALL_UNKNOWN or 0 <= call < lowest_bid:
        return ERR_LADDER
    if 0 <= call < N_BIDS and call > cur_bid:
        return ERR_HOLDING
    return ERR_AUCTION


@njit(cache=True, inline="always")
def call_step_nb(seats, trace, seat, legal, cur_bid, bidder, doubled, unseen, tables, when_void, dd, calls,
                 n_calls, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends):
    """C-4: the next call of ``seat``, replayed or chosen, traced when legal. A ``pimc``
    seat that samples its calls (kernels.pimc) and a ``search`` seat that rolls them out
    (kernels.search) search in the context ``dd``, reading the auction's ``calls`` so far;
    ``dd`` is None when no seat searches."""
    call = scripted_nb(seats, seat, LIST_CALLS)
    if call == BY_POLICY:
        if dd is not None and searches_calls_nb(seats.pol[seat], seats.prm[seat]):
            call = search_call_nb(dd[0], seats, seat, seats.hands[:2], legal, cur_bid, bidder, doubled, unseen,
                                  plain_nb(tables.gain), when_void, plain_nb(calls), n_calls, dealer, lowest_bid,
                                  min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends)
        elif dd is not None and calls_by_worlds_nb(seats.pol[seat], seats.prm[seat]):
            call = pimc_call_nb(dd[0], seats, seat, seats.hands[:2], legal, cur_bid, bidder, doubled, unseen,
                                plain_nb(tables.gain), when_void, plain_nb(calls), n_calls, dealer, lowest_bid,
                                min_trump_cards, nt_needs_all_suits, jump_min_cards)
        else:
            call = choose_call_nb(seats.pol[seat], seats.prm[seat], seat, seats.hands[seat], legal, cur_bid, bidder,
                                  doubled, unseen, tables.gain, seats.odds[seat], seats.rng)
    return record_nb(seats, trace, KIND_CALL, seat, call, legal)


@njit(cache=True)
def auction_nb(hands, unseen0, unseen1, tables, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits,
               jump_min_cards, opening_pass_ends, when_void, seats, trace, row, dd):
    """C-4: the auction, dealer first; the contract, declarer and doubling go to ``row``.

    ``unseen0``/``unseen1``: the cards each seat has not seen (its own hand is taken off);
    ``tables.gain[doubled, bid, tricks]``: the game's deal score, the declarer's minus the
    opponent's, for the policies (``tables``: the game's tables record); ``when_void``
    (B-10) and the search context ``dd`` (a 1-record array, None when no seat searches)
    for seats that search. Returns False when a replayed call was illegal or missing
    (``row`` says why); a passed-out deal completes with contract -1.
    """
    cur_bid, bidder, doubled = NONE, NONE, NOUGHT
    seat = dealer
    n_calls = NOUGHT
    calls = seats.calls
    b6 = min_trump_cards > 0 or nt_needs_all_suits or jump_min_cards > 0
    while True:
        legal = legal_calls_nb(hands[seat], seat, cur_bid, bidder, doubled, lowest_bid,
                               min_trump_cards, nt_needs_all_suits, jump_min_cards)
        if b6 and row.activity & activity.B6 != activity.B6:  # until each restriction has bitten once
            row.activity |= refused_nb(hands[seat], cur_bid, lowest_bid, min_trump_cards, nt_needs_all_suits,
                                       jump_min_cards)
        unseen = (unseen0 if seat == 0 else unseen1) & ~hands[seat]
        call = call_step_nb(seats, trace, seat, legal, cur_bid, bidder, doubled, unseen, tables, when_void, dd,
                            calls, n_calls, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards,
                            opening_pass_ends)
        if not legal_nb(call, legal):
            err = ERR_AUCTION if call == NO_ACTION else call_error_nb(call, cur_bid, lowest_bid)
            return stop_nb(row, err, AT_CALLS, n_calls)
        calls[n_calls] = call
        if n_calls == 0 and call == CALL_PASS:
            row.activity |= activity.OPENING_PASS
        n_calls += 1
        over, cur_bid, bidder, doubled = after_call_nb(call, seat, cur_bid, bidder, doubled, n_calls,
                                                       opening_pass_ends)
        if over:
            break
        seat = 1 - seat
    if left_over_nb(seats, LIST_CALLS):
        return stop_nb(row, ERR_AUCTION, AT_CALLS, n_calls)  # a call after the auction ended
    if cur_bid >= 0:
        row.contract = cur_bid
        row.declarer = bidder
        row.doubled = doubled
    a = seats.auction
    a[0], a[1], a[2], a[3], a[4], a[5] = n_calls, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards
    return True


# --- Contract play: the card step -----------------------------------------------------------

@njit(cache=True, inline="always")
def card_step_nb(seats, trace, seat, legal, lead, trump, is_declarer, unseen, barred, when_void, dd, gain):
    """B-7..B-10, D-4: the next contract card of ``seat``, replayed or chosen, traced when legal.
    A ``dd`` seat sees both hands (and searches in the context ``dd``, None when no seat
    searches); a ``pimc`` or ``search`` seat samples what it cannot see (kernels.pimc), and
    learns what each card shows (a ``search`` seat also reads the auction: ``gain``, the
    game's deal scores, as its model of the calls needs them). The hands are read from
    ``seats.hands``, not passed."""
    card = scripted_nb(seats, seat, LIST_PLAY)
    if card == BY_POLICY:
        if dd is not None and seats.pol[seat] == POLICY_DD:
            card = contract_dd_card_nb(dd[0], seats.hands[:2], seat, lead, barred, trump, when_void)
        elif dd is not None and plays_by_worlds_nb(seats.pol[seat], seats.prm[seat]):
            card = pimc_contract_card_nb(dd[0], seats, seat, seats.hands[:2], legal, lead, barred, trump, when_void,
                                         unseen, plain_nb(gain))
        else:
            card = choose_card_nb(seats.pol[seat], seats.prm[seat], seats.hands[seat], legal, lead, trump, is_declarer,
                                  unseen, seats.rng)
    if dd is not None and legal_nb(card, legal):
        observe_contract_card_nb(seats, seat, card, lead, barred, when_void)
    return record_nb(seats, trace, KIND_PLAY, seat, card, legal)
