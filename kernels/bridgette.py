"""Bridgette: deal, exchange, auction, play and score (RULES.md B-1..B-15, C-3..C-6).

One deal is played by ``play_deal_nb`` over two uint64 hands; ``play_game_nb`` strings
deals into a game. Rule options arrive as one ``KernelRules``: the record of the scalar
options (``p.jump_min_cards``, ...), the deck, and the score tables of B-11..B-14.
Actions come from the policies, or from a script when a recorded deal is replayed; a
scripted action outside the legal set stops the deal with the rule id RULES.md's replay
section prescribes.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, N_BIDS, bid_index
from kernels import activity
from kernels.cards import CARD_CLASS, COLONS, NONE, NOUGHT, SUIT_MASKS, ZERO, bit_nb, lowest_nb, popcount_nb
from kernels.contract import (
    AT_DISCARDS, AT_PLAY, ERR_AUCTION, ERR_BAR, ERR_COLON, ERR_EXCHANGE, ERR_FOLLOW, ERR_NOT_IN_HAND,
    KIND_DISCARD, LIST_DISCARDS, LIST_PLAY, RECORD_FIELDS, add_trick_nb, auction_nb,
    card_step_nb, declarer_tricks_nb, score_contract_nb, start_deal_nb,
)
from kernels.dealing import conditioned_order_nb, first_dealer_nb
from kernels.dd_run import (
    DD_CONTRACT_DTYPE, contract_auction_row_nb, contract_card_lost_nb, contract_play_end_nb, contract_play_start_nb,
    contract_table_at_nb, contract_tricks_row_nb, dd_out_nb, start_contract_row_nb,
)
from kernels.options import COLON_DISCARD, MADE_BASIS, OPENING_PASS, OVERTRICK_BONUS_RULE, PASSED_OUT, UPCARD_TO
from kernels.pimc import note_bridgette_exchange_nb
from kernels.policies import choose_discard_nb, searches_exchange_nb
from kernels.records import plain_nb, record_dtype
from kernels.rng import below_nb, shuffle_nb
from kernels.search.exchange import search_discards_nb
from kernels.step import (
    BY_POLICY, POLICY_SCRIPT, close_header_nb, deal_row_nb, header_cards_nb, header_dtype, left_over_nb,
    legal_nb, new_deal_nb, open_header_nb, record_nb, scripted_nb, start_game_nb, stop_nb, unexplained_nb,
)
from kernels.tricks import follow_legal_nb, lead_legal_nb, trick_nb

UPCARD_TO_DEALER = UPCARD_TO.index("dealer")
UPCARD_DEAD = UPCARD_TO.index("dead")
OPENING_PASS_ENDS = OPENING_PASS.index("ends")
PASSED_OUT_REDEAL = PASSED_OUT.index("redeal")
COLON_DISCARD_WHEN_VOID = COLON_DISCARD.index("when_void")
MADE_BASIS_TRICKS = MADE_BASIS.index("tricks")
OVERTRICK_ATLEAST3 = OVERTRICK_BONUS_RULE.index("atleast3")

HAND_SIZE = 13
MAX_SHORT = 13
STOCK_SIZE = 29

# How a Colon was played: to block a suited lead of its range (B-8), as a lead (B-9), or
# anything else (a discard: to a lead outside its range, or to a led Colon).
COLON_BLOCK, COLON_LEAD, COLON_DISCARD = 0, 1, 2
COLON_KINDS = ("block", "lead", "discard")

# The rule each kernels.contract error code stands for in Bridgette (RULES.md replay section).
ERROR_RULES = ("", "B-3", "C-4", "B-6", "B-7", "C-3", "B-10", "B-8", "B-5")


class KernelRules(NamedTuple):
    """The kernel's view of a validated ``BridgetteRules``.

    ``tables`` is one ``TABLES_DTYPE`` record: ``value[b]`` and ``exact[b]`` are B-11's
    contract value and B-12's exact bonus by ladder index; ``penalty[level, doubled,
    short]`` is B-14's table with the chosen last-row reading folded in; ``gain[doubled,
    bid, tricks]`` is the deal's score by ``score_deal_nb``, the declarer's minus the
    opponent's, for the policies' auction. A record, so that a game passes it to each deal
    as one pointer whose arrays numba does not count.
    """

    params: np.ndarray  # one record of the options (sim.rules.params_dtype)
    deck: np.ndarray
    tables: np.ndarray  # one record: TABLES_DTYPE
    plan: np.ndarray  # one record: how the run deals (kernels.dealing)


TABLES_DTYPE = np.dtype((np.record, np.dtype([
    ("value", np.int64, N_BIDS), ("exact", np.int64, N_BIDS), ("penalty", np.int64, (8, 3, MAX_SHORT + 1)),
    ("gain", np.int64, (3, N_BIDS, HAND_SIZE + 1))], align=True)))


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = record_dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("upcard", np.int8),
    ("upcard_class", np.int8), ("colon_little", np.int8), ("colon_royal", np.int8),
    ("colon_grand", np.int8), ("colon_little_play", np.int8), ("colon_royal_play", np.int8),
    ("colon_grand_play", np.int8), ("colon_little_won", np.int8), ("colon_royal_won", np.int8),
    ("colon_grand_won", np.int8), *RECORD_FIELDS, ("tries", np.int32),
    ("unexplained", np.int8),
])

DD_DTYPE = DD_CONTRACT_DTYPE  # a --dd run's double-dummy row beside each deal row (kernels.dd_run)

GAME_DTYPE = record_dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16),
    ("tiebreak_deals", np.int16), ("redeals", np.int16), ("total0", np.int32),
    ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
])

HEADER_DTYPE = header_dtype(2, STOCK_SIZE)  # trace: one per deal dealt, redeals included

# Replay lists of a deal: discards by seat, calls, play (kernels.contract).
N_LISTS = 4


def max_deals_per_game(kr: KernelRules) -> int:
    """Deal rows a game can fill: B-15's deals plus its tie-break deals."""
    p = kr.params[0]
    return int(p["deals"] + p["max_tiebreak_deals"])


@njit(cache=True)
def set_colon_holder_nb(row, k, holder):
    """B-1: who holds Colon ``k`` (0 Little, 1 Royal, 2 Grand) after the exchange, -1 nobody."""
    if k == 0:
        row.colon_little = holder
    elif k == 1:
        row.colon_royal = holder
    else:
        row.colon_grand = holder


@njit(cache=True)
def set_colon_play_nb(row, k, play, won):
    """How Colon ``k`` was played (COLON_*, -1 not played) and whether it won its trick."""
    if k == 0:
        row.colon_little_play, row.colon_little_won = play, won
    elif k == 1:
        row.colon_royal_play, row.colon_royal_won = play, won
    else:
        row.colon_grand_play, row.colon_grand_won = play, won


# --- Decision steps --------------------------------------------------------------------------

@njit(cache=True, inline="always")
def discard_step_nb(seats, trace, seat, hand, planned):
    """B-3: the next discard of ``seat`` (any card of its hand), replayed or chosen: the
    lowest card of ``planned`` where the seat chose its discards as a set."""
    card = scripted_nb(seats, seat, LIST_DISCARDS + seat)
    if card == BY_POLICY:
        if planned & hand:
            card = lowest_nb(planned & hand)
        else:
            card = choose_discard_nb(seats.pol[seat], seats.prm[seat], hand, seats.rng)
    return record_nb(seats, trace, KIND_DISCARD, seat, card, hand)


@njit(cache=True)
def search_exchange_nb(p, tables, dealer, seat, unseen, upcard, seats, dd):
    """B-3: the discards of a ``search`` seat (kernels.search.exchange), from what
    it knows of its opponent's holding before the opponent's discards: 13 cards and the
    opponent's draw, the up-card among them where the rules give it to the opponent."""
    opp = 1 - seat
    up_holder = -1 if p.upcard_to == UPCARD_DEAD else (dealer if p.upcard_to == UPCARD_TO_DEALER else 1 - dealer)
    draw = dealer_draw_nb(p, upcard) if opp == dealer else p.nondealer_draw
    return search_discards_nb(dd, seats, seat, dealer, seats.hands[seat], unseen,
                              bit_nb(upcard) if up_holder == opp else ZERO,
                              HAND_SIZE + draw, p.min_trump_cards, p.nt_needs_all_suits != 0, p.jump_min_cards,
                              p.opening_pass == OPENING_PASS_ENDS, p.colon_discard == COLON_DISCARD_WHEN_VOID,
                              plain_nb(tables.gain))


@njit(cache=True)
def card_error_nb(hand, card, lead, barred_suit):
    """The rule an illegal card breaks (RULES.md replay section)."""
    if card < 0 or (hand & bit_nb(card)) == ZERO:
        return ERR_NOT_IN_HAND
    if lead < 0:
        return ERR_BAR
    if hand & SUIT_MASKS[lead // 13]:
        return ERR_FOLLOW
    return ERR_COLON


# --- The phases of a deal ----------------------------------------------------------------------

@njit(cache=True)
def dealer_draw_nb(p, up):
    """B-3: how many cards the dealer draws after the up-card ``up``, by its class."""
    cls = CARD_CLASS[up]
    return p.dealer_draw_numeral if cls == 0 else (p.dealer_draw_face if cls == 1 else p.dealer_draw_ace)


@njit(cache=True)
def draw_nb(p, dealer, hands, stock):
    """B-3: the up-card and the draws; returns the dead up-card as a set (empty unless dead)."""
    up = stock[0]
    to_nondealer = p.nondealer_draw
    to_dealer = dealer_draw_nb(p, up)
    top = 0
    dead_up = ZERO
    if p.upcard_to == UPCARD_DEAD:
        dead_up = bit_nb(up)
        top = 1
    elif p.upcard_to == UPCARD_TO_DEALER:
        hands[dealer] |= bit_nb(up)
        top = 1
        to_dealer -= 1
    for _ in range(to_nondealer):
        hands[1 - dealer] |= bit_nb(stock[top])
        top += 1
    for _ in range(to_dealer):
        hands[dealer] |= bit_nb(stock[top])
        top += 1
    return dead_up


@njit(cache=True)
def exchange_nb(p, tables, dealer, hands, unseen, upcard, seats, trace, row, dd):
    """B-3: each seat discards back to 13, non-dealer first; a ``search`` seat chooses its
    discards as a set, searching in the context ``dd`` (None when no seat searches) from
    the cards it has not seen (``unseen`` less its hand). Returns (completed, the cards
    seat 0 discarded, seat 1's): each seat alone sees its own discards."""
    discarded0 = discarded1 = ZERO
    for seat in (1 - dealer, dealer):
        excess = popcount_nb(hands[seat]) - HAND_SIZE
        if seats.pol[seat] == POLICY_SCRIPT and seats.script_len[LIST_DISCARDS + seat] != excess:
            return stop_nb(row, ERR_EXCHANGE, AT_DISCARDS, seat), discarded0, discarded1
        planned = ZERO
        if dd is not None and excess > 0 and searches_exchange_nb(seats.pol[seat], seats.prm[seat]):
            planned = search_exchange_nb(p, tables, dealer, seat, unseen & ~hands[seat], upcard, seats, dd[0])
        for _ in range(excess):
            card = discard_step_nb(seats, trace, seat, hands[seat], planned)
            if not legal_nb(card, hands[seat]):
                return stop_nb(row, ERR_EXCHANGE, AT_DISCARDS, seat), discarded0, discarded1
            hands[seat] &= ~bit_nb(card)
            if seat == 0:
                discarded0 |= bit_nb(card)
            else:
                discarded1 |= bit_nb(card)
    for k in range(3):
        c = bit_nb(52 + k)
        set_colon_holder_nb(row, k, 0 if hands[0] & c else (1 if hands[1] & c else -1))
    return True, discarded0, discarded1


@njit(cache=True)
def play_tricks_nb(p, gain, hands, unseen0, unseen1, trump, seats, trace, row, dd, dd_out):
    """B-7..B-10: thirteen tricks, the declarer's opponent leading first; the Colons'
    plays go to the record. ``unseen0``/``unseen1``: the cards each seat has not seen;
    ``gain``: the deal scores for the seats that search (``card_step_nb``).
    With a double-dummy row (``dd_out``, kernels.dd_run), each seat's tricks lost against
    double dummy go to it."""
    declarer = row.declarer
    when_void = p.colon_discard == COLON_DISCARD_WHEN_VOID
    leader = 1 - declarer
    barred = NONE
    n_played = NOUGHT
    dd_on = dd is not None and dd_out.shape[0] > 0 and dd[0].contract_only == 0  # card values
    value = NOUGHT
    if dd_on:
        contract_play_start_nb(dd, hands, trump, when_void)
        value = HAND_SIZE - dd_out[0].dd_tricks  # the opening leader's tricks
    for _ in range(HAND_SIZE):
        lead = NONE
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = lead_legal_nb(hand, barred) if turn == 0 else follow_legal_nb(hand, lead, when_void)
            if turn == 0:
                if legal != hand:
                    row.activity |= activity.LEAD_BARRED
            elif hand & COLONS != ZERO and lead < 52:  # B-10 needs a Colon in hand, which is rare
                other_colons = hand & COLONS & ~bit_nb(52 + CARD_CLASS[lead])
                if other_colons != ZERO and hand & SUIT_MASKS[lead // 13] == ZERO and hand & ~other_colons != ZERO:
                    row.activity |= activity.COLON_DISCARD
            unseen = (unseen0 if seat == 0 else unseen1) & ~hand
            card = card_step_nb(seats, trace, seat, legal, lead, trump, seat == declarer, unseen,
                                barred, when_void, dd, gain)
            if not legal_nb(card, legal):
                return stop_nb(row, card_error_nb(hand, card, lead, barred), AT_PLAY, n_played)
            hands[seat] &= ~bit_nb(card)
            unseen0 &= ~bit_nb(card)
            unseen1 &= ~bit_nb(card)
            n_played += 1
            if turn == 0:
                lead = card
                if dd_on:
                    value = contract_card_lost_nb(dd, hands, seat, value, NOUGHT, 1 - seat, card, NONE)
                continue
            leader_wins, barred = trick_nb(lead, card, trump)
            if lead >= 52:
                set_colon_play_nb(row, lead - 52, COLON_LEAD, leader_wins)
            if card >= 52:
                blocks = lead < 52 and card == 52 + CARD_CLASS[lead]
                set_colon_play_nb(row, card - 52, COLON_BLOCK if blocks else COLON_DISCARD, not leader_wins)
            if not leader_wins:
                leader = seat
            if dd_on:
                value = contract_card_lost_nb(dd, hands, seat, value, int(leader == seat), leader, NONE, barred)
        add_trick_nb(row, leader)
    if left_over_nb(seats, LIST_PLAY):
        return stop_nb(row, ERR_NOT_IN_HAND, AT_PLAY, n_played)
    if dd_on:
        contract_play_end_nb(dd_out[0], dd)
    return True


@njit(cache=True)
def score_deal_nb(p, tables, contract, doubled, declarer_tricks):
    """B-11..B-14: (declarer's gain, opponent's gain) for a played contract (``tables``: a
    ``TABLES_DTYPE`` record; ``p``'s scoring options give the bonuses and factors)."""
    level = BID_LEVEL[contract]
    need = 6 + level
    if declarer_tricks < need:
        return 0, tables.penalty[level, doubled, need - declarer_tricks]
    over = declarer_tricks - need
    basis = contract
    if p.made_basis == MADE_BASIS_TRICKS:
        basis = bid_index(min(declarer_tricks - 6, 7), BID_STRAIN[contract])
    bonus = 0
    if over == 0:
        bonus = tables.exact[contract]
    elif over == 3 or (over > 3 and p.overtrick_bonus_rule == OVERTRICK_ATLEAST3):
        bonus = p.overtrick_bonus
    factor, insult = 1, 0
    if doubled == 1:
        factor, insult = p.double_factor, p.double_bonus
    elif doubled == 2:
        factor, insult = p.redouble_factor, p.redouble_bonus
    if p.multiply_bonuses:
        return (tables.value[basis] + bonus + insult) * factor, 0
    return (tables.value[basis] + bonus) * factor + insult, 0


@njit(cache=True)
def gain_table_nb(params, tables):
    """``score_deal_nb`` for every doubling, bid and declarer tricks: the declarer's gain
    minus the opponent's."""
    gain = np.zeros((3, N_BIDS, HAND_SIZE + 1), dtype=np.int64)
    for doubled in range(3):
        for b in range(N_BIDS):
            for tricks in range(HAND_SIZE + 1):
                won, lost = score_deal_nb(params[0], tables[0], b, doubled, tricks)
                gain[doubled, b, tricks] = won - lost
    return gain


# --- One deal ------------------------------------------------------------------------------

@njit(cache=True)
def contract_scores_nb(p, tables, table, scores):
    """B-11..B-14: ``scores[bid, declarer, doubled, seat]``, each seat's score of every
    contract when the declarer takes the ``table``'s tricks in its strain (for par)."""
    for bid in range(N_BIDS):
        for declarer in range(2):
            tricks = table[BID_STRAIN[bid], declarer]
            for doubled in range(3):
                gain, loss = score_deal_nb(p, tables, bid, doubled, tricks)
                scores[bid, declarer, doubled, declarer] = gain
                scores[bid, declarer, doubled, 1 - declarer] = loss


@njit(cache=True)
def dd_auction_nb(p, tables, dealer, hands, row, dd, out):
    """A --dd run's values at the end of the auction (kernels.dd_run): the deal's table, its
    par (B-5, B-6 on the hands after the exchange, B-11..B-14) and the contract's tricks;
    the contract's tricks alone in a ``contract_only`` run."""
    contract = row.contract
    when_void = p.colon_discard == COLON_DISCARD_WHEN_VOID
    if dd[0].contract_only:
        contract_tricks_row_nb(dd, hands, when_void, out, contract, row.declarer)
        return
    table = np.zeros((5, 2), dtype=np.int64)
    contract_table_at_nb(dd, hands, when_void, table)
    scores = np.zeros((N_BIDS, 2, 3, 2), dtype=np.int64)
    contract_scores_nb(p, tables, table, scores)
    contract_auction_row_nb(out, table, scores, hands, dealer, contract, row.declarer, BID_STRAIN[max(contract, 0)],
                            BID_LEVEL[max(contract, 0)], NOUGHT, p.min_trump_cards, p.nt_needs_all_suits != 0,
                            p.jump_min_cards, p.opening_pass == OPENING_PASS_ENDS)


@njit(cache=True)
def play_deal_nb(kr, deck_mask, dealer, hands, stock, seats, trace, row, dd, dd_out):
    """``deal_nb`` with the records of ``kr`` from dealt ``hands`` (uint64[2], updated)
    (replays and tests). ``dd_out`` goes on as a run passes it (``dd_out_nb``), so that a
    replay with search seats shares the run's compiled deal kernel."""
    seats.hands[:2] = hands
    deal_nb(kr.params[0], kr.tables[0], deck_mask, dealer, stock, seats, trace, row, dd,
            dd_out_nb(dd, dd_out, 0, dd_out))
    hands[:] = seats.hands[:2]


@njit(cache=True)
def deal_nb(p, tables, deck_mask, dealer, stock, seats, trace, row, dd, dd_out):
    """Play one Bridgette deal from the hands dealt into ``seats.hands`` (two, updated) and
    ``stock``, writing its outcome, or why a replay stopped, into the deal record ``row``;
    ``dd`` is the search context (a 1-record array, kernels.dd) of a seat playing double
    dummy and of a --dd run, whose double-dummy row is ``dd_out`` (none: not a --dd run)."""
    hands = seats.hands[:2]
    start_deal_nb(row)
    new_deal_nb(seats)
    row.upcard = stock[0]
    row.upcard_class = CARD_CLASS[stock[0]]
    for k in range(3):
        set_colon_holder_nb(row, k, -1)
        set_colon_play_nb(row, k, -1, 0)
    dd_on = dd is not None and dd_out.shape[0] > 0
    if dd_on:
        start_contract_row_nb(dd_out[0])
    dead_up = draw_nb(p, dealer, hands, stock)
    unseen = deck_mask & ~dead_up
    completed, discarded0, discarded1 = exchange_nb(p, tables, dealer, hands, unseen, stock[0], seats, trace, row, dd)
    if not completed:
        return
    note_bridgette_exchange_nb(seats, stock[0], discarded0, discarded1)
    if not auction_nb(hands, unseen & ~discarded0, unseen & ~discarded1, tables, dealer, NOUGHT, p.min_trump_cards,
                      p.nt_needs_all_suits != 0, p.jump_min_cards, p.opening_pass == OPENING_PASS_ENDS,
                      p.colon_discard == COLON_DISCARD_WHEN_VOID, seats, trace, row, dd):
        return
    if dd_on and (row.contract >= 0 or p.passed_out != PASSED_OUT_REDEAL):  # a redealt deal has no row
        dd_auction_nb(p, tables, dealer, hands, row, dd, dd_out[0])
    if row.contract < 0:
        if left_over_nb(seats, LIST_PLAY):
            stop_nb(row, ERR_AUCTION, AT_PLAY, 0)  # a card after a passed-out deal
        return
    strain = BID_STRAIN[row.contract]
    if not play_tricks_nb(p, tables.gain, hands, unseen & ~discarded0, unseen & ~discarded1, strain if strain < 4 else -1,
                          seats, trace, row, dd, dd_out):
        return
    gain, loss = score_deal_nb(p, tables, row.contract, row.doubled, declarer_tricks_nb(row))
    score_contract_nb(row, row.declarer, gain, loss)


# --- One game ------------------------------------------------------------------------------

@njit(cache=True)
def deal_cards_nb(deal_rng, plan, deck, deck_mask, dealer, hands, order):
    """B-2: shuffle and deal 13 cards each, one at a time, non-dealer first; the stock is
    ``order[26:n_deck]``, the up-card first. Returns the tries it took (kernels.dealing).

    All 55 cards are shuffled and those in the deck kept, so decks that differ only in
    their Colons draw the same random numbers and keep the suited cards in the same order:
    variant comparisons stay paired (common random numbers).
    """
    n_deck = deck.shape[0]
    if plan.conditioned:
        return conditioned_order_nb(deal_rng, plan, deck, order, hands, 1 - dealer, 2, 2 * HAND_SIZE, -1,
                                    2 * HAND_SIZE)
    for c in range(55):
        order[c] = c
    shuffle_nb(deal_rng, order[:55])
    if n_deck < 55:
        k = 0
        for i in range(55):
            if deck_mask & bit_nb(order[i]):
                order[k] = order[i]
                k += 1
    hands[:] = ZERO
    for k in range(2 * HAND_SIZE):
        hands[(1 - dealer) if k % 2 == 0 else dealer] |= bit_nb(order[k])
    return 1


@njit(cache=True)
def play_game_nb(kr, seed, game_index, seats_row, trace, deal_rows, spare, game_out, headers, outcomes, hcur,
                 dd_row, dd_rows, dd_spare):
    """B-15 with C-5, C-6: one whole game, its cards a pure function of (seed, game index).

    Deals come from their own stream (first dealer, then one shuffle per deal), policies
    draw from the stream in ``seats``, reset here for this game. ``dd_rows``: the deals'
    double-dummy rows beside ``deal_rows`` (empty: none computed), ``dd_spare`` their spare.
    """
    p = kr.params[0]
    seats = seats_row[0]
    deal_rng = start_game_nb(seed, game_index, seats)
    hands, order, deck = seats.hands[:2], seats.order, kr.deck
    n_deck = deck.shape[0]
    deck_mask = ZERO
    for c in deck:
        deck_mask |= bit_nb(c)
    plan = kr.plan[0]
    first_dealer = first_dealer_nb(plan, below_nb(deal_rng, 2), game_index, 2)
    dealer = first_dealer
    deals = redeals = seq = total0 = total1 = 0
    abandoned = False
    while True:
        tries = deal_cards_nb(deal_rng, plan, deck, deck_mask, dealer, hands, order)
        stock = order[2 * HAND_SIZE:n_deck]
        h = open_header_nb(headers, hcur, seats, game_index, seq, dealer)
        header_cards_nb(headers, h, hands, stock)
        row = deal_row_nb(deal_rows, deals, spare)
        seats.totals[0], seats.totals[1] = total0, total1
        seats.deals_left = max(0, p.deals - deals - 1)
        deal_nb(p, kr.tables[0], deck_mask, dealer, stock, seats, trace, row, dd_row,
                dd_out_nb(dd_row, dd_rows, deals, dd_spare))
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
        if plan.one_deal:
            break
        if deals >= p.deals and (total0 != total1 or deals >= p.deals + p.max_tiebreak_deals):
            break
    game_row = game_out[0]
    game_row.game = game_index
    game_row.first_dealer = first_dealer
    game_row.deals = deals
    game_row.tiebreak_deals = max(0, deals - p.deals)
    game_row.redeals = redeals
    game_row.total0 = total0
    game_row.total1 = total1
    game_row.abandoned = abandoned
    game_row.winner = -1 if (abandoned or total0 == total1) else (0 if total0 > total1 else 1)
