"""Shared by the two-player contract games, Bridgette and Draw Bridge.

The C-4 auction with doubling (and B-6's holding restrictions, switched off for Draw
Bridge), the columns of a deal's outcome row, the error codes a replayed action can
stop on, and the trace rows.
"""

from numba import njit

from kernels.calls import (
    CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, CALL_UNKNOWN, N_BIDS, STRAIN_BIDS,
)
from kernels.cards import ONE, SUIT_MASKS, ZERO, bit_nb, popcount_nb
from kernels.policies import POLICY_SCRIPT, choose_call_nb, replaying_nb
from kernels.trace import O_ERROR, O_ERROR_AT, O_ERROR_INDEX, TRACE_WIDTH, stop_nb, trace_nb  # noqa: F401

# --- Deal outcome: columns of the int64 row ``out`` (games add their own from O_GAME) ----
O_CONTRACT = 0  # ladder index, -1 passed out
O_DECLARER = 1
O_DOUBLED = 2
O_TRICKS = 3  # two columns, by seat
O_SCORE = 5  # two columns, by seat
O_GAME = 10  # O_ERROR, O_ERROR_AT, O_ERROR_INDEX (7..9) come from kernels.trace

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

# --- Trace row kinds ---------------------------------------------------------------------
KIND_DISCARD, KIND_CALL, KIND_PLAY = 0, 1, 2


@njit(cache=True)
def legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards,
                   nt_needs_all_suits, jump_min_cards):
    """C-4 with B-6: the legal calls as a bit set over call ids.

    Bids start at ``lowest_bid`` (0NT in Bridgette, 1C in Draw Bridge); holding limits of
    0 and False switch B-6 off.
    """
    legal = bit_nb(CALL_PASS)
    above = ~((bit_nb(max(cur_bid + 1, lowest_bid))) - ONE)  # bids that outrank the current one
    for strain in range(5):
        bids = STRAIN_BIDS[strain] & above
        if bids == ZERO:
            continue
        if strain == 4:
            if nt_needs_all_suits:
                for s in range(4):
                    if hand & SUIT_MASKS[s] == ZERO:
                        bids = ZERO
            legal |= bids  # no-trump bids have no jump requirement
            continue
        length = popcount_nb(hand & SUIT_MASKS[strain])
        if length < min_trump_cards:
            continue
        if length < jump_min_cards:
            bids &= ~(bids - ONE)  # only the lowest, non-jump bid in this strain
        legal |= bids
    if cur_bid >= 0 and doubled == 0 and bidder != seat:
        legal |= bit_nb(CALL_DOUBLE)
    if cur_bid >= 0 and doubled == 1 and bidder == seat:
        legal |= bit_nb(CALL_REDOUBLE)
    return legal


@njit(cache=True)
def call_error_nb(call, cur_bid, lowest_bid):
    """The reason an illegal call is illegal: off the ladder, a holding limit, otherwise C-4."""
    if call == CALL_UNKNOWN or 0 <= call < lowest_bid:
        return ERR_LADDER
    if 0 <= call < N_BIDS and call > cur_bid:
        return ERR_HOLDING
    return ERR_AUCTION


@njit(cache=True)
def auction_nb(hands, dealer, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards,
               opening_pass_ends, pol, prm, rng, script_calls, trace, tcur, out):
    """C-4: the auction, dealer first. Returns (completed, contract or -1, declarer, doubled).

    ``completed`` is False when a scripted call was illegal or missing (``out`` says why);
    a passed-out deal completes with contract -1.
    """
    cur_bid, bidder, doubled = -1, -1, 0
    seat = dealer
    n_calls = 0
    while True:
        legal = legal_calls_nb(hands[seat], seat, cur_bid, bidder, doubled, lowest_bid,
                               min_trump_cards, nt_needs_all_suits, jump_min_cards)
        if pol[seat] == POLICY_SCRIPT:
            if n_calls >= script_calls.shape[0]:
                stop_nb(out, ERR_AUCTION, AT_CALLS, n_calls)
                return False, -1, -1, 0
            call = script_calls[n_calls]
            if call < 0 or (legal & bit_nb(call)) == ZERO:
                stop_nb(out, call_error_nb(call, cur_bid, lowest_bid), AT_CALLS, n_calls)
                return False, -1, -1, 0
        else:
            call = choose_call_nb(pol[seat], prm[seat], seat, hands[seat], legal,
                                  cur_bid, bidder, doubled, rng)
        if trace.shape[0] > 0:
            trace_nb(trace, tcur, KIND_CALL, seat, call, legal)
        n_calls += 1
        if call == CALL_PASS:
            if cur_bid >= 0:
                break
            if n_calls == 2 or opening_pass_ends:
                cur_bid = -1
                break
        elif call == CALL_DOUBLE:
            doubled = 1
        elif call == CALL_REDOUBLE:
            doubled = 2
        else:
            cur_bid, bidder, doubled = call, seat, 0
        seat = 1 - seat
    if replaying_nb(pol) and n_calls < script_calls.shape[0]:
        stop_nb(out, ERR_AUCTION, AT_CALLS, n_calls)  # a call after the auction ended
        return False, -1, -1, 0
    if cur_bid < 0:
        return True, -1, -1, 0
    return True, cur_bid, bidder, doubled
