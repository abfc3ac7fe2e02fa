"""Draw Bridge: deal, draw phase, auction, contract play and score (RULES.md D-1..D-7, C-3..C-6).

``play_deal_nb`` plays one deal over two uint64 hands and the 26-card stock;
``play_game_nb`` strings deals into a game to ``game.target``. The auction is the shared
C-4 auction of ``kernels.contract`` on the ladder 1C..7NT without holding limits (D-3).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels import activity
from kernels.calls import BID_LEVEL, BID_STRAIN, FIRST_BID, N_BIDS
from kernels.cards import NO, NONE, NOUGHT, ZERO, bit_nb
from kernels.contract import (
    AT_PLAY, ERR_AUCTION, ERR_FOLLOW, ERR_NOT_IN_HAND, KIND_PLAY, LIST_PLAY, RECORD_FIELDS, add_trick_nb,
    auction_nb, card_step_nb, declarer_tricks_nb, score_contract_nb, start_deal_nb,
)
from kernels.dealing import conditioned_order_nb, first_dealer_nb
from kernels.dd_run import (
    DD_CONTRACT_DTYPE, contract_auction_row_nb, contract_card_lost_nb, contract_play_end_nb, contract_play_start_nb,
    contract_table_at_nb, contract_tricks_row_nb, dd_out_nb, start_contract_row_nb,
)
from kernels.options import OPENING_PASS, PASSED_OUT, TRICK_WINNER
from kernels.policies import choose_draw_card_nb, searches_draw_nb
from kernels.records import plain_nb, record_dtype
from kernels.rng import below_nb, shuffle_nb
from kernels.search.draw import search_draw_card_nb
from kernels.step import (
    BY_POLICY, close_header_nb, deal_row_nb, header_cards_nb, header_dtype, left_over_nb, legal_nb,
    new_deal_nb, open_header_nb, record_nb, scripted_nb, start_game_nb, stop_nb, unexplained_nb,
)
from kernels.tricks import draw_beats_nb, draw_follow_legal_nb, follow_legal_nb, trick_nb

LED_SUIT_WINS = TRICK_WINNER.index("led_suit")
OPENING_PASS_ENDS = OPENING_PASS.index("ends")
PASSED_OUT_REDEAL = PASSED_OUT.index("redeal")

HAND_SIZE = 13

# The rule each kernels.contract error code stands for; the draw phase (play[0..25])
# reports D-2 for a card not in hand or a must-follow breach (RULES.md replay section).
ERROR_RULES = ("", "", "C-4", "", "D-4", "C-3", "", "", "D-3")
DRAW_PHASE_ERROR = "D-2"


class KernelRules(NamedTuple):
    """The kernel's view of a validated ``DrawBridgeRules``.

    ``tables`` is one ``TABLES_DTYPE`` record: ``made[bid, doubled, tricks]`` is D-5's
    score of a made contract by declarer tricks; ``undertricks[doubled, short]`` is D-6's
    (zeros for ``scoring.undertricks = "none"``); ``gain[doubled, bid, tricks]`` is both in
    one, the declarer's score minus the opponent's, for the policies' auction. A record, so
    that a game passes it to each deal as one pointer whose arrays numba does not count.
    """

    params: np.ndarray  # one record of the options (sim.rules.params_dtype)
    tables: np.ndarray  # one record: TABLES_DTYPE
    plan: np.ndarray  # one record: how the run deals (kernels.dealing)


TABLES_DTYPE = np.dtype((np.record, np.dtype([
    ("made", np.int64, (N_BIDS, 3, HAND_SIZE + 1)), ("undertricks", np.int64, (3, HAND_SIZE + 1)),
    ("gain", np.int64, (3, N_BIDS, HAND_SIZE + 1))], align=True)))


DECK = np.arange(52, dtype=np.int64)  # D-1


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = record_dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("draw_tricks0", np.int8),
    ("draw_tricks1", np.int8), *RECORD_FIELDS, ("tries", np.int32),
    ("unexplained", np.int8),
])

DD_DTYPE = DD_CONTRACT_DTYPE  # a --dd run's double-dummy row beside each deal row (kernels.dd_run)

GAME_DTYPE = record_dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16), ("redeals", np.int16),
    ("total0", np.int32), ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
])

HEADER_DTYPE = header_dtype(2, 2 * HAND_SIZE)  # trace: one per deal dealt, redeals included
N_LISTS = 4  # replay lists of kernels.contract (discards unused)


def max_deals_per_game(kr: KernelRules) -> int:
    return int(kr.params[0]["max_deals"])


# --- Decision steps --------------------------------------------------------------------------

@njit(cache=True, inline="always")
def draw_card_step_nb(seats, trace, seat, hand, legal, lead, shown, led_suit_wins, dd, p, tables, dealer, trick, dealt,
                      drew, plays, leaders, tops):
    """D-2: the next draw-phase card of ``seat``, replayed or chosen, traced when legal. A
    ``search`` seat with ``draw_worlds`` rolls it out (kernels.search.draw) in the context
    ``dd`` (None when no seat searches) from what it knows: its dealt hand, its own draws
    ``drew[seat]``, the ``plays``, ``leaders`` and face-up ``tops`` so far."""
    card = scripted_nb(seats, seat, LIST_PLAY)
    if card == BY_POLICY:
        if dd is not None and searches_draw_nb(seats.pol[seat], seats.prm[seat]):
            card = search_draw_card_nb(dd[0], seats, seat, hand, legal, lead, led_suit_wins, p.must_follow != 0,
                                       trick, dealt[seat], drew[seat], plays, leaders, tops, dealer,
                                       p.opening_pass == OPENING_PASS_ENDS, plain_nb(tables.gain))
        else:
            card = choose_draw_card_nb(seats.pol[seat], seats.prm[seat], hand, legal, lead, shown,
                                       led_suit_wins, seats.rng)
    return record_nb(seats, trace, KIND_PLAY, seat, card, legal)


@njit(cache=True)
def card_error_nb(hand, card):
    """A replayed card not in hand, or one that breaks the follow rule."""
    return ERR_NOT_IN_HAND if card < 0 or (hand & bit_nb(card)) == ZERO else ERR_FOLLOW


# --- The phases of a deal ----------------------------------------------------------------------

@njit(cache=True)
def draw_phase_nb(p, tables, dealer, hands, stock, seats, trace, row, dd):
    """D-2: thirteen tricks without trumps; the winner draws the stock's top card and leads
    next. Returns (completed, the cards played: out of the deal). ``dd``: the search
    context of ``search`` seats (None: none searches)."""
    gone = ZERO
    leader = 1 - dealer
    led_suit_wins = p.trick_winner == LED_SUIT_WINS
    draw_tricks0 = 0
    # What the draw phase shows, for seats that search it: each seat's dealt hand and own
    # draws, the cards played, each trick's leader (then the last winner), face-up tops.
    dealt = hands.copy()
    drew = np.full((2, HAND_SIZE), -1, dtype=np.int64)
    plays = np.full(2 * HAND_SIZE, -1, dtype=np.int64)
    leaders = np.full(HAND_SIZE + 1, -1, dtype=np.int64)
    tops = np.full(HAND_SIZE, -1, dtype=np.int64)
    for trick in range(HAND_SIZE):
        top = stock[2 * trick]
        shown = top if p.show_stock_top else -1
        leaders[trick] = leader
        tops[trick] = shown
        lead = NONE
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = hand if turn == 0 else draw_follow_legal_nb(hand, lead, p.must_follow != 0)
            # D-2's draw.must_follow decides where its two values allow other cards: under either value
            if turn == 1 and (legal if p.must_follow != 0 else draw_follow_legal_nb(hand, lead, True)) != hand:
                row.activity |= activity.MUST_FOLLOW
            card = draw_card_step_nb(seats, trace, seat, hand, legal, lead, shown, led_suit_wins, dd, p, tables,
                                     dealer, trick, dealt, drew, plays, leaders, tops)
            if not legal_nb(card, legal):
                return stop_nb(row, card_error_nb(hand, card), AT_PLAY, 2 * trick + turn), gone
            hands[seat] &= ~bit_nb(card)
            gone |= bit_nb(card)
            plays[2 * trick + turn] = card
            if turn == 0:
                lead = card
            else:
                if card // 13 != lead // 13 and card % 13 > lead % 13:  # the rank's winner, not the suit's
                    row.activity |= activity.TRICK_WINNER
                if draw_beats_nb(card, lead, led_suit_wins):
                    leader = seat
        draw_tricks0 += leader == 0
        hands[leader] |= bit_nb(top)
        hands[1 - leader] |= bit_nb(stock[2 * trick + 1])
        drew[leader, trick] = top
        drew[1 - leader, trick] = stock[2 * trick + 1]
    leaders[HAND_SIZE] = leader
    row.draw_tricks0 = draw_tricks0
    row.draw_tricks1 = HAND_SIZE - draw_tricks0
    return True, gone


@njit(cache=True)
def play_tricks_nb(gain, hands, unseen, trump, seats, trace, row, dd, dd_out):
    """D-4: thirteen tricks under C-3, the declarer's opponent leading (``play[26:]``;
    ``gain``: the deal scores for the seats that search, ``card_step_nb``); with
    a double-dummy row (``dd_out``, kernels.dd_run), each seat's tricks lost against double
    dummy go to it."""
    declarer = row.declarer
    leader = 1 - declarer
    n_played = 2 * HAND_SIZE
    dd_on = dd is not None and dd_out.shape[0] > 0 and dd[0].contract_only == 0  # card values
    value = NOUGHT
    if dd_on:
        contract_play_start_nb(dd, hands, trump, NO)
        value = HAND_SIZE - dd_out[0].dd_tricks  # the opening leader's tricks
    for _ in range(HAND_SIZE):
        lead = NONE
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = hand if turn == 0 else follow_legal_nb(hand, lead, False)
            card = card_step_nb(seats, trace, seat, legal, lead, trump, seat == declarer, unseen & ~hand, NONE,
                                NO, dd, gain)
            if not legal_nb(card, legal):
                return stop_nb(row, card_error_nb(hand, card), AT_PLAY, n_played)
            hands[seat] &= ~bit_nb(card)
            unseen &= ~bit_nb(card)
            n_played += 1
            if turn == 0:
                lead = card
                if dd_on:
                    value = contract_card_lost_nb(dd, hands, seat, value, NOUGHT, 1 - seat, card, NONE)
                continue
            if not trick_nb(lead, card, trump)[0]:
                leader = seat
            if dd_on:
                value = contract_card_lost_nb(dd, hands, seat, value, int(leader == seat), leader, NONE, NONE)
        add_trick_nb(row, leader)
    if left_over_nb(seats, LIST_PLAY):
        return stop_nb(row, ERR_NOT_IN_HAND, AT_PLAY, n_played)
    if dd_on:
        contract_play_end_nb(dd_out[0], dd)
    return True


@njit(cache=True)
def contract_scores_nb(tables, table, scores):
    """D-5, D-6: ``scores[bid, declarer, doubled, seat]``, each seat's score of every
    contract when the declarer takes the ``table``'s tricks in its strain (for par)."""
    for bid in range(FIRST_BID, N_BIDS):
        need = 6 + BID_LEVEL[bid]
        for declarer in range(2):
            got = table[BID_STRAIN[bid], declarer]
            for doubled in range(3):
                if got >= need:
                    scores[bid, declarer, doubled, declarer] = tables.made[bid, doubled, got]
                else:
                    scores[bid, declarer, doubled, 1 - declarer] = tables.undertricks[doubled, need - got]


@njit(cache=True)
def dd_auction_nb(p, tables, dealer, hands, row, dd, out):
    """A --dd run's values at the end of the auction (kernels.dd_run): the deal's table after
    the draw phase, its par (D-3 from 1C, D-5, D-6) and the contract's tricks; the
    contract's tricks alone in a ``contract_only`` run."""
    contract = row.contract
    if dd[0].contract_only:
        contract_tricks_row_nb(dd, hands, NO, out, contract, row.declarer)
        return
    table = np.zeros((5, 2), dtype=np.int64)
    contract_table_at_nb(dd, hands, NO, table)
    scores = np.zeros((N_BIDS, 2, 3, 2), dtype=np.int64)
    contract_scores_nb(tables, table, scores)
    contract_auction_row_nb(out, table, scores, hands, dealer, contract, row.declarer, BID_STRAIN[max(contract, 0)],
                            BID_LEVEL[max(contract, 0)], FIRST_BID, NOUGHT, NO, NOUGHT,
                            p.opening_pass == OPENING_PASS_ENDS)


@njit(cache=True)
def play_deal_nb(kr, dealer, hands, stock, seats, trace, row, dd, dd_out):
    """``deal_nb`` with the records of ``kr`` from dealt ``hands`` (uint64[2], updated)
    (replays and tests). ``dd_out`` goes on as a run passes it (``dd_out_nb``), so that a
    replay with search seats shares the run's compiled deal kernel."""
    seats.hands[:2] = hands
    deal_nb(kr.params[0], kr.tables[0], dealer, stock, seats, trace, row, dd, dd_out_nb(dd, dd_out, 0, dd_out))
    hands[:] = seats.hands[:2]


@njit(cache=True)
def deal_nb(p, tables, dealer, stock, seats, trace, row, dd, dd_out):
    """Play one Draw Bridge deal from the hands dealt into ``seats.hands`` (two, updated) and
    the ``stock``, writing its outcome, or why a replay stopped, into the deal record
    ``row``; ``dd`` is the search context (a 1-record array) of a seat playing the contract
    double dummy (the draw phase it plays as the heuristic: the solver does not search
    draws), of a ``search`` seat's draw phase (``draw_worlds``) and of a --dd run, whose
    double-dummy row is ``dd_out`` (none: not a --dd run)."""
    hands = seats.hands[:2]
    start_deal_nb(row)
    row.draw_tricks0 = 0
    row.draw_tricks1 = 0
    new_deal_nb(seats)
    dd_on = dd is not None and dd_out.shape[0] > 0
    if dd_on:
        start_contract_row_nb(dd_out[0])
    deck = hands[0] | hands[1]
    for c in stock:
        deck |= bit_nb(c)
    completed, gone = draw_phase_nb(p, tables, dealer, hands, stock, seats, trace, row, dd)
    if not completed:
        return
    # D-3: the auction, dealer first, 1C..7NT, no holding requirements. Every card played in
    # the draw phase was seen, so what a seat has not seen is the opponent's hand.
    if not auction_nb(hands, deck & ~gone, deck & ~gone, tables, dealer, FIRST_BID, NOUGHT, NO, NOUGHT,
                      p.opening_pass == OPENING_PASS_ENDS, NO, seats, trace, row, dd):
        return
    if dd_on and (row.contract >= 0 or p.passed_out != PASSED_OUT_REDEAL):  # a redealt deal has no row
        dd_auction_nb(p, tables, dealer, hands, row, dd, dd_out[0])
    if row.contract < 0:
        if left_over_nb(seats, LIST_PLAY):
            stop_nb(row, ERR_AUCTION, AT_PLAY, 2 * HAND_SIZE)  # a card after a passed-out deal
        return
    strain = BID_STRAIN[row.contract]
    if not play_tricks_nb(tables.gain, hands, deck & ~gone, strain if strain < 4 else -1, seats, trace, row, dd, dd_out):
        return
    need = 6 + BID_LEVEL[row.contract]
    got = declarer_tricks_nb(row)
    if got >= need:
        score_contract_nb(row, row.declarer, tables.made[row.contract, row.doubled, got], 0)
    else:
        score_contract_nb(row, row.declarer, 0, tables.undertricks[row.doubled, need - got])


# --- One game ------------------------------------------------------------------------------

@njit(cache=True)
def deal_cards_nb(deal_rng, plan, dealer, hands, order):
    """D-1: shuffle 52 cards and deal 13 each, one at a time, non-dealer first; the stock
    is ``order[26:52]``. Returns the tries it took (kernels.dealing)."""
    if plan.conditioned:
        return conditioned_order_nb(deal_rng, plan, DECK, order, hands, 1 - dealer, 2, 2 * HAND_SIZE, -1, -1)
    for c in range(52):
        order[c] = c
    shuffle_nb(deal_rng, order[:52])
    hands[:] = ZERO
    for k in range(2 * HAND_SIZE):
        hands[(1 - dealer) if k % 2 == 0 else dealer] |= bit_nb(order[k])
    return 1


@njit(cache=True)
def play_game_nb(kr, seed, game_index, seats_row, trace, deal_rows, spare, game_out, headers, outcomes, hcur,
                 dd_row, dd_rows, dd_spare):
    """D-7 with C-5, C-6: one game to ``game.target``, a pure function of (seed, game index);
    ``dd_rows`` the deals' double-dummy rows (empty: none computed), ``dd_spare`` their spare."""
    p = kr.params[0]
    seats = seats_row[0]
    deal_rng = start_game_nb(seed, game_index, seats)
    hands, order = seats.hands[:2], seats.order
    plan = kr.plan[0]
    first_dealer = first_dealer_nb(plan, below_nb(deal_rng, 2), game_index, 2)
    dealer = first_dealer
    deals = redeals = seq = total0 = total1 = 0
    abandoned = False
    winner = -1
    while True:
        tries = deal_cards_nb(deal_rng, plan, dealer, hands, order)
        stock = order[2 * HAND_SIZE:52]
        h = open_header_nb(headers, hcur, seats, game_index, seq, dealer)
        header_cards_nb(headers, h, hands, stock)
        row = deal_row_nb(deal_rows, deals, spare)
        deal_nb(p, kr.tables[0], dealer, stock, seats, trace, row, dd_row, dd_out_nb(dd_row, dd_rows, deals, dd_spare))
        counted = not (row.contract < 0 and p.passed_out == PASSED_OUT_REDEAL)
        row.game, row.deal, row.dealer, row.tries = game_index, deals, dealer, tries
        row.unexplained = unexplained_nb(seats)
        close_header_nb(headers, outcomes, h, seats, row, counted)
        seq += 1
        if not counted:  # C-5: the same dealer deals again, at most max_redeals times
            if redeals == p.max_redeals:
                abandoned = True
                break
            redeals += 1
            continue
        total0 += row.score0
        total1 += row.score1
        deals += 1
        dealer = 1 - dealer
        # D-7: only one seat scores in a deal, so at most one reaches the target.
        if total0 >= p.target or total1 >= p.target:
            winner = 0 if total0 >= p.target else 1
            break
        if plan.one_deal:
            break
        if deals >= p.max_deals:
            abandoned = True
            break
    game_row = game_out[0]
    game_row.game = game_index
    game_row.first_dealer = first_dealer
    game_row.deals = deals
    game_row.redeals = redeals
    game_row.total0 = total0
    game_row.total1 = total1
    game_row.winner = winner
    game_row.abandoned = abandoned
