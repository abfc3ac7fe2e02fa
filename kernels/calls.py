"""Auction vocabularies (RULES.md C-4, B-5, D-3; E-3).

Two-player games: calls are integers, the 36 bids of the ladder ``0NT, 1C, 1D, 1H, 1S,
1NT, 2C, ... 7NT`` in rank order (so "outranks" is ">"), then pass, double and redouble.
Bid Euchre: bids 3 .. tricks-1 from id 0, then the ask and the moon, and its own pass.
"""

import numpy as np
from numba import njit

from kernels import activity
from kernels.cards import ONE, SUIT_MASKS, ZERO, bit_nb, popcount_nb

N_BIDS = 36
CALL_PASS, CALL_DOUBLE, CALL_REDOUBLE = 36, 37, 38
N_CALLS = 39
CALL_UNKNOWN = -2  # a replayed call that is not on the ladder (B-5)
# D-3: Draw Bridge's ladder starts at 1C, id 1 (int64, not a literal: kernels.cards.NONE)
FIRST_BID = np.int64(1)
MAX_CALLS = 3 * N_BIDS + 3  # C-4: every bid doubled and redoubled, and the passes that end it

BID_LEVEL = np.array([0] + [1 + i // 5 for i in range(35)], dtype=np.int64)
BID_STRAIN = np.array([4] + [i % 5 for i in range(35)], dtype=np.int64)  # 0..3 suits, 4 NT
STRAIN_CHARS = ("C", "D", "H", "S", "NT")
STRAIN_BIDS = np.array([sum(1 << b for b in range(N_BIDS) if BID_STRAIN[b] == s) for s in range(5)],
                       dtype=np.uint64)


@njit(cache=True)
def bid_index(level, strain):
    """Ladder index of a bid (level 0 exists only in no-trump)."""
    return 0 if level == 0 else 1 + (level - 1) * 5 + strain


def call_name(call: int) -> str:
    if call == CALL_PASS:
        return "P"
    if call == CALL_DOUBLE:
        return "X"
    if call == CALL_REDOUBLE:
        return "XX"
    return f"{BID_LEVEL[call]}{STRAIN_CHARS[BID_STRAIN[call]]}"


CALL_IDS = {call_name(c): c for c in range(N_CALLS)}


@njit(cache=True, inline="always")
def contract_after_nb(call, caller, cur_bid, bidder, doubled):
    """C-4: the contract so far (its bid, bidder and doubling) after ``caller`` calls ``call``."""
    if call == CALL_DOUBLE:
        return cur_bid, bidder, 1
    if call == CALL_REDOUBLE:
        return cur_bid, bidder, 2
    if call != CALL_PASS:
        return call, caller, 0
    return cur_bid, bidder, doubled


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
def refused_nb(hand, cur_bid, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards):
    """B-6's activity at one call (kernels.activity bits): which of its restrictions took a
    bid away that C-4 alone would allow, as ``legal_calls_nb`` applies them."""
    bits = 0
    above = ~((bit_nb(max(cur_bid + 1, lowest_bid))) - ONE)
    for strain in range(5):
        bids = STRAIN_BIDS[strain] & above
        if bids == ZERO:
            continue
        if strain == 4:
            if nt_needs_all_suits:
                for s in range(4):
                    if hand & SUIT_MASKS[s] == ZERO:
                        bits |= activity.NT_NEEDS_ALL_SUITS
            continue
        length = popcount_nb(hand & SUIT_MASKS[strain])
        if length < min_trump_cards:
            bits |= activity.MIN_TRUMP_CARDS
        elif length < jump_min_cards and bids & (bids - ONE) != ZERO:
            bits |= activity.JUMP_MIN_CARDS
    return bits


EUCHRE_FIRST_LEVEL = 3  # E-3: the lowest bid, id 0
EUCHRE_PASS = 15  # above every bid id of either deck
FOUR_CALLS = np.int64(4)  # E-3: a whole round of bids (int64, not a literal: kernels.cards.NONE)

# How the bidding team plays a bid (E-3..E-5): both partners (the number bids), the bidder
# alone after the ask exchange (6A, 12A), the bidder alone (6M, 12M). int64, not literals
# (kernels.cards.NONE): a kernel handed ALONE compiled a second time.
WITH_PARTNER, ASKING, ALONE = np.int64(0), np.int64(1), np.int64(2)


@njit(cache=True, inline="always")
def euchre_bid_kind_nb(bid, tricks):
    """How a bid (ladder id) is played in a deck of ``tricks`` tricks: ``WITH_PARTNER``,
    ``ASKING`` or ``ALONE`` (the partner sits out of the last two, E-4, E-5)."""
    ask = tricks - EUCHRE_FIRST_LEVEL
    return WITH_PARTNER if bid < ask else (ASKING if bid == ask else ALONE)


@njit(cache=True, inline="always")
def euchre_need_nb(bid, tricks):
    """E-7: the tricks a bid (ladder id) needs: its number, or every trick for 6A and 6M."""
    return EUCHRE_FIRST_LEVEL + bid if euchre_bid_kind_nb(bid, tricks) == WITH_PARTNER else tricks


@njit(cache=True)
def euchre_legal_bids_nb(tricks, high, turn, stick_the_dealer):
    """E-3: the calls open at the ``turn``-th call (0-3) after the bid ``high`` (-1: none):
    every bid above it, and the pass, unless the dealer is stuck (three passes before)."""
    legal = (bit_nb(tricks - EUCHRE_FIRST_LEVEL + 2) - ONE) & ~(bit_nb(high + 1) - ONE)
    if not (turn == 3 and high < 0 and stick_the_dealer):
        legal |= bit_nb(EUCHRE_PASS)
    return legal
