"""Entry points of a seat that sees every hand: the double-dummy best card of the contract
games and of Bid Euchre (the ``dd`` policy), and every legal card's value in Bid Euchre
for ``sim.dd.Solver``."""

import numpy as np
from numba import njit

from kernels.cards import ONE, bit_nb, highest_nb, lowest_nb
from kernels.dd.context import USE_EQUIV, contract_rules_nb, renew_nb, search_table_nb
from kernels.dd.layout import EUCHRE_FROM_LAYOUT, euchre_follow_nb, euchre_load_nb
from kernels.dd.ranks import euchre_representatives_nb
from kernels.dd.value import card_values_nb, dd_best_card_nb, euchre_value_nb
from kernels.tricks import follow_legal_nb, lead_legal_nb


@njit(cache=True)
def contract_dd_card_nb(dd, hands, to_move, lead, barred, trump, when_void):
    """B-7..B-10: the legal card of ``to_move`` whose double-dummy value is highest (the
    lowest of equals), every hand seen."""
    dd.hands[0], dd.hands[1] = hands[0], hands[1]
    dd.trump, dd.when_void = trump, when_void
    renew_nb(dd, contract_rules_nb(trump, when_void))
    legal = lead_legal_nb(hands[to_move], barred) if lead < 0 else follow_legal_nb(hands[to_move], lead, when_void)
    return dd_best_card_nb(dd, False, to_move, np.array([lead]), legal)


@njit(cache=True)
def euchre_share_runs_nb(skipped, hand, segs, seg_of, group, values):
    """Give each card of ``skipped`` (cards of ``hand`` that ``euchre_representatives_nb``
    left out) the value of the next card of ``hand`` above it in its effective suit, past
    its own copies: the card that stands for its run, or one that took its value already
    (highest first)."""
    while skipped:
        b = highest_nb(skipped)
        skipped &= ~bit_nb(b)
        above = hand & segs[seg_of[b]] & ~((bit_nb(b) << ONE) - ONE) & ~group[b]
        values[b] = values[lowest_nb(above)]


@njit(cache=True, nogil=True)  # nogil: a command waits for it in another thread
def euchre_card_values_nb(ctx_arr, hands, to_move, trump, out_seat, double_deck, joker, leader, played, lead,
                          best, best_seat, values):
    """E-6 from Python (``sim.dd.Solver``): the tricks the team of ``to_move`` takes from this
    position (kernel card ids; the trick in progress as for ``euchre_dd_card_nb``) and, when
    ``values`` has room, ``values[card]`` for each legal card: the tricks after playing it
    (-1 for the others; a double-deck card under the first copy held)."""
    dd = ctx_arr[0]
    to_layout = euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker)
    from_layout = EUCHRE_FROM_LAYOUT[int(double_deck), int(joker), trump]
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    tt = search_table_nb(dd, True)
    if values.shape[0] == 0:
        return euchre_value_nb(tt, dd, leader, played, best_b, best_seat, lead_b, to_move, to_move % 2, 0)
    hand = dd.hands[to_move]
    in_play = dd.hands[0] | dd.hands[1] | dd.hands[2] | dd.hands[3]
    if best_b >= 0:
        in_play |= bit_nb(best_b)
    legal = euchre_follow_nb(hand, lead_b, dd.segs, dd.seg_of)
    moves = legal
    if dd.techniques & USE_EQUIV:
        moves = euchre_representatives_nb(legal, hand, in_play, dd.segs, dd.group, dd.double_deck)
    by_bit = np.full(64, -1, dtype=np.int64)
    card_values_nb(tt, dd, True, to_move, np.array([leader, played, lead_b, best_b, best_seat]), moves, by_bit)
    euchre_share_runs_nb(legal & ~moves, hand, dd.segs, dd.seg_of, dd.group, by_bit)
    values[:] = -1
    top = 0
    while legal:
        b = lowest_nb(legal)
        legal &= legal - ONE
        card = from_layout[b] % 24 if from_layout[b] < 48 else from_layout[b]
        if values[card] < 0:  # else the other copy of a double-deck card, of equal value
            values[card] = by_bit[b]
            top = max(top, by_bit[b])
    return top


@njit(cache=True)
def euchre_dd_card_nb(dd, hands, to_move, trump, out_seat, double_deck, joker, leader, played, lead, best,
                      best_seat):
    """E-6: the legal card of ``to_move`` (kernel card ids) whose double-dummy value for its
    team is highest (the lowest of equals), every hand seen; the trick in progress was led
    by ``leader`` with ``lead``, ``best`` (by ``best_seat``) winning it after ``played``
    cards (-1s at a trick boundary)."""
    to_layout = euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker)
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    legal = euchre_follow_nb(dd.hands[to_move], lead_b, dd.segs, dd.seg_of)
    chosen = dd_best_card_nb(dd, True, to_move, np.array([leader, played, lead_b, best_b, best_seat]), legal)
    return EUCHRE_FROM_LAYOUT[int(double_deck), int(joker), trump, chosen]
