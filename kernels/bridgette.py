"""Bridgette: deal, exchange, auction, play and score (RULES.md B-1..B-15, C-3..C-6).

One deal is played by ``play_deal_nb`` over two uint64 hands; ``play_game_nb`` strings
deals into a game. Rule options arrive as the arrays of ``kernel_rules``: an int64
parameter row indexed by the ``P_*`` constants, the deck, and the score tables of
B-11..B-14. Actions come from the policies, or from a script when a recorded deal is
replayed; a scripted action outside the legal set stops the deal with the rule id
RULES.md's replay section prescribes.
"""

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, N_BIDS, bid_index
from kernels.cards import (
    ALL_SUITED, CARD_CLASS, COLON_GRAND, COLON_LITTLE, COLON_ROYAL, COLONS, SUIT_MASKS,
    ZERO, bit_nb, popcount_nb,
)
from kernels.contract import (
    AT_DISCARDS, AT_PLAY, ERR_AUCTION, ERR_BAR, ERR_COLON, ERR_EXCHANGE,
    ERR_FOLLOW, ERR_NOT_IN_HAND, KIND_DISCARD, KIND_PLAY, O_CONTRACT, O_DECLARER,
    O_DOUBLED, O_GAME, O_SCORE, O_TRICKS, auction_nb, stop_nb, trace_nb,
)
from kernels.policies import POLICY_SCRIPT, choose_card_nb, choose_discard_nb, replaying_nb
from kernels.rng import below_nb, game_stream_nb, shuffle_nb

# --- Rule parameters: columns of the int64 row made by kernel_rules -----------------------
P_NONDEALER_DRAW = 0
P_DEALER_DRAW = 1  # three columns, indexed by up-card class (numeral, face, ace)
P_UPCARD_TO = 4
P_OPENING_PASS_ENDS = 5
P_PASSED_OUT_REDEAL = 6
P_MAX_REDEALS = 7
P_MIN_TRUMP_CARDS = 8
P_NT_NEEDS_ALL_SUITS = 9
P_JUMP_MIN_CARDS = 10
P_COLON_DISCARD_WHEN_VOID = 11
P_MADE_BASIS_TRICKS = 12
P_OVERTRICK_ATLEAST3 = 13
P_MULTIPLY_BONUSES = 14
P_DEALS = 15
P_MAX_TIEBREAK_DEALS = 16
N_PARAMS = 17

UPCARD_TO_NONDEALER, UPCARD_TO_DEALER, UPCARD_DEAD = 0, 1, 2
HAND_SIZE = 13
MAX_SHORT = 13

# --- Deal outcome: the shared columns of kernels.contract, then Bridgette's own -------------
O_COLON_HOLDER = O_GAME  # three columns (Little, Royal, Grand): seat after the exchange, -1 none
O_UPCARD = O_GAME + 3
O_COLON_PLAY = O_GAME + 4  # three columns: COLON_* play kind of each Colon, or -1 not played
O_COLON_WON = O_GAME + 7  # three columns: 1 when the Colon's trick went to the seat that played it
N_OUT = O_GAME + 10

# How a Colon was played: to block a suited lead of its range (B-8), as a lead (B-9), or
# anything else (a discard: to a lead outside its range, or to a led Colon).
COLON_BLOCK, COLON_LEAD, COLON_DISCARD = 0, 1, 2
COLON_KINDS = ("block", "lead", "discard")

# The rule each kernels.contract error code stands for in Bridgette (RULES.md replay section).
ERROR_RULES = ("", "B-3", "C-4", "B-6", "B-7", "C-3", "B-10", "B-8", "B-5")


def kernel_rules(rules):
    """The kernel's view of a validated ``BridgetteRules``: (params, deck, value, exact, penalty).

    ``value[b]`` and ``exact[b]`` are B-11's contract value and B-12's exact bonus by
    ladder index; ``penalty[level, doubled, short]`` is B-14's table with the chosen
    last-row reading folded in.
    """
    ex, au, sc = rules.exchange, rules.auction, rules.scoring
    params = np.zeros(N_PARAMS, dtype=np.int64)
    params[P_NONDEALER_DRAW] = ex.nondealer_draw
    params[P_DEALER_DRAW:P_DEALER_DRAW + 3] = (ex.dealer_draw_numeral, ex.dealer_draw_face,
                                                ex.dealer_draw_ace)
    params[P_UPCARD_TO] = ("nondealer", "dealer", "dead").index(ex.upcard_to)
    params[P_OPENING_PASS_ENDS] = au.opening_pass == "ends"
    params[P_PASSED_OUT_REDEAL] = au.passed_out == "redeal"
    params[P_MAX_REDEALS] = au.max_redeals
    params[P_MIN_TRUMP_CARDS] = au.min_trump_cards
    params[P_NT_NEEDS_ALL_SUITS] = au.nt_needs_all_suits
    params[P_JUMP_MIN_CARDS] = au.jump_min_cards
    params[P_COLON_DISCARD_WHEN_VOID] = rules.play.colon_discard == "when_void"
    params[P_MADE_BASIS_TRICKS] = sc.made_basis == "tricks"
    params[P_OVERTRICK_ATLEAST3] = sc.overtrick_bonus_rule == "atleast3"
    params[P_MULTIPLY_BONUSES] = sc.multiply_bonuses
    params[P_DEALS] = rules.game.deals
    params[P_MAX_TIEBREAK_DEALS] = rules.game.max_tiebreak_deals

    colon_ids = {"little": COLON_LITTLE, "royal": COLON_ROYAL, "grand": COLON_GRAND}
    deck = np.array(list(range(52)) + [colon_ids[c] for c in rules.deck.colons], dtype=np.int64)

    value = np.zeros(N_BIDS, dtype=np.int64)
    exact = np.zeros(N_BIDS, dtype=np.int64)
    for b in range(N_BIDS):
        level, nt = int(BID_LEVEL[b]), BID_STRAIN[b] == 4
        if level <= 1:
            value[b] = 250 if (nt and level == 1) else 150
        elif level <= 3:
            value[b] = 750 if (nt and level == 3) else 250
        elif level == 4:
            value[b] = 750 if BID_STRAIN[b] >= 2 else 250
        elif level == 5:
            value[b] = 1500 if nt else 750
        elif level == 6:
            value[b] = 2200 if nt else 1500
        else:
            value[b] = 2500 if nt else 2200
        if level == 7:
            exact[b] = 0
        elif level == 6:
            exact[b] = 100
        elif sc.exact_bonus == "nt_reduced" and nt:
            exact[b] = 100
        else:
            exact[b] = 250

    rows = np.array([[100, 200, 300, 400, 700, 1000],
                     [200, 500, 800, 1100, 2000, 3000],
                     [300, 700, 1100, 1500, 2700, 4000]], dtype=np.int64)
    penalty = np.zeros((8, 3, MAX_SHORT + 1), dtype=np.int64)
    for level in range(8):
        for short in range(1, MAX_SHORT + 1):
            if sc.penalty_last_row == "failed_slam":
                row = 5 if level >= 6 else min(short, 5) - 1
            else:
                row = min(short, 6) - 1
            penalty[level, :, short] = rows[:, row]
    return params, deck, value, exact, penalty


# --- Play (C-3, B-7..B-10) -----------------------------------------------------------------

@njit(cache=True)
def lead_legal_nb(hand, barred_suit):
    """B-8: any card, except the barred suit while the leader holds anything else."""
    if barred_suit >= 0:
        other = hand & ~SUIT_MASKS[barred_suit]
        if other != ZERO:
            return other
    return hand


@njit(cache=True)
def follow_legal_nb(hand, lead, colon_when_void):
    """C-3 with B-8..B-10: the cards the follower may play to ``lead``."""
    if lead >= 52:
        return hand  # B-9: any card to a led Colon
    match = bit_nb(52 + CARD_CLASS[lead])
    legal = hand & match
    suit = hand & SUIT_MASKS[lead // 13]
    if suit != ZERO:
        return legal | suit
    legal |= hand & ALL_SUITED
    other_colons = hand & COLONS & ~match
    if colon_when_void or (hand & ~other_colons) == ZERO:
        legal |= other_colons
    return legal


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


@njit(cache=True)
def trick_nb(lead, follow, trump):
    """B-8, B-9, C-3: (does the leader win, suit barred to the leader's next lead or -1)."""
    if lead >= 52:
        if follow >= 52:
            return True, -1
        wins = follow // 13 == trump or CARD_CLASS[follow] == lead - 52
        return not wins, -1
    if follow >= 52:
        barred = lead // 13 if follow == 52 + CARD_CLASS[lead] else -1
        return True, barred
    if follow // 13 == lead // 13:
        return follow < lead, -1
    return follow // 13 != trump, -1


# --- Score (B-11..B-14) --------------------------------------------------------------------

@njit(cache=True)
def score_deal_nb(params, value, exact, penalty, contract, doubled, declarer_tricks):
    """(declarer's gain, opponent's gain) for a played contract."""
    level = BID_LEVEL[contract]
    need = 6 + level
    if declarer_tricks < need:
        return 0, penalty[level, doubled, need - declarer_tricks]
    over = declarer_tricks - need
    basis = contract
    if params[P_MADE_BASIS_TRICKS]:
        basis = bid_index(min(declarer_tricks - 6, 7), BID_STRAIN[contract])
    bonus = 0
    if over == 0:
        bonus = exact[contract]
    elif over == 3 or (over > 3 and params[P_OVERTRICK_ATLEAST3]):
        bonus = 350
    factor = (1, 2, 4)[doubled]
    insult = (0, 400, 1000)[doubled]
    if params[P_MULTIPLY_BONUSES]:
        return (value[basis] + bonus + insult) * factor, 0
    return (value[basis] + bonus) * factor + insult, 0


# --- One deal ------------------------------------------------------------------------------

@njit(cache=True)
def play_deal_nb(params, value, exact, penalty, deck_mask, dealer, hands, stock,
                 pol, prm, rng, script_discards, script_calls, script_play, trace, tcur, out):
    """Play one Bridgette deal from dealt ``hands`` (uint64[2], updated) and ``stock``.

    ``pol``/``prm``: policy id and parameter row per seat. With POLICY_SCRIPT the
    actions are read from ``script_discards`` (row per seat: count, then cards),
    ``script_calls`` and ``script_play``, and the first illegal one stops the deal.
    Writes the outcome into ``out`` (O_* columns); appends to ``trace`` when it has rows.
    """
    replaying = replaying_nb(pol)
    tracing = trace.shape[0] > 0
    out[:] = 0
    out[O_CONTRACT] = -1
    out[O_DECLARER] = -1
    out[O_COLON_PLAY:O_COLON_PLAY + 3] = -1
    nondealer = 1 - dealer

    # B-3: the draws.
    up = stock[0]
    out[O_UPCARD] = up
    to_nondealer = params[P_NONDEALER_DRAW]
    to_dealer = params[P_DEALER_DRAW + CARD_CLASS[up]]
    mode = params[P_UPCARD_TO]
    top = 0
    dead_up = ZERO
    if mode == UPCARD_DEAD:
        dead_up = bit_nb(up)
        top = 1
    elif mode == UPCARD_TO_DEALER:
        hands[dealer] |= bit_nb(up)
        top = 1
        to_dealer -= 1
    for _ in range(to_nondealer):
        hands[nondealer] |= bit_nb(stock[top])
        top += 1
    for _ in range(to_dealer):
        hands[dealer] |= bit_nb(stock[top])
        top += 1

    # B-3: discards back to 13, non-dealer first.
    discards0 = discards1 = ZERO  # each seat's own discards: seen by it alone
    for seat in (nondealer, dealer):
        excess = popcount_nb(hands[seat]) - HAND_SIZE
        scripted = pol[seat] == POLICY_SCRIPT
        if scripted and script_discards[seat, 0] != excess:
            stop_nb(out, ERR_EXCHANGE, AT_DISCARDS, seat)
            return
        for k in range(excess):
            legal = hands[seat]
            if scripted:
                card = script_discards[seat, 1 + k]
                if card < 0 or (legal & bit_nb(card)) == ZERO:
                    stop_nb(out, ERR_EXCHANGE, AT_DISCARDS, seat)
                    return
            else:
                card = choose_discard_nb(pol[seat], prm[seat], hands[seat], rng)
            if tracing:
                trace_nb(trace, tcur, KIND_DISCARD, seat, card, legal)
            hands[seat] &= ~bit_nb(card)
            if seat == 0:
                discards0 |= bit_nb(card)
            else:
                discards1 |= bit_nb(card)
    for k in range(3):
        c = 52 + k
        out[O_COLON_HOLDER + k] = 0 if hands[0] & bit_nb(c) else (1 if hands[1] & bit_nb(c) else -1)

    # C-4 with B-5's ladder from 0NT and B-6's holding requirements.
    completed, cur_bid, bidder, doubled = auction_nb(
        hands, dealer, 0, params[P_MIN_TRUMP_CARDS], params[P_NT_NEEDS_ALL_SUITS] != 0,
        params[P_JUMP_MIN_CARDS], params[P_OPENING_PASS_ENDS] != 0, pol, prm, rng, script_calls,
        trace, tcur, out)
    if not completed:
        return
    if cur_bid < 0:
        if replaying and script_play.shape[0] > 0:
            stop_nb(out, ERR_AUCTION, AT_PLAY, 0)  # a card after a passed-out deal
        return
    out[O_CONTRACT] = cur_bid
    out[O_DECLARER] = bidder
    out[O_DOUBLED] = doubled

    # B-7..B-10: thirteen tricks, the declarer's opponent leading first.
    strain = BID_STRAIN[cur_bid]
    trump = strain if strain < 4 else -1
    when_void = params[P_COLON_DISCARD_WHEN_VOID] != 0
    leader = 1 - bidder
    barred = -1
    played = ZERO
    n_played = 0
    for _ in range(HAND_SIZE):
        lead = -1
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = lead_legal_nb(hand, barred) if turn == 0 else follow_legal_nb(hand, lead, when_void)
            if pol[seat] == POLICY_SCRIPT:
                if n_played >= script_play.shape[0]:
                    stop_nb(out, ERR_NOT_IN_HAND, AT_PLAY, n_played)
                    return
                card = script_play[n_played]
                if card < 0 or (legal & bit_nb(card)) == ZERO:
                    stop_nb(out, card_error_nb(hand, card, lead, barred), AT_PLAY, n_played)
                    return
            else:
                mine = discards0 if seat == 0 else discards1
                unseen = deck_mask & ~hand & ~played & ~mine & ~dead_up
                card = choose_card_nb(pol[seat], prm[seat], hand, legal, lead, trump,
                                      seat == bidder, unseen, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_PLAY, seat, card, legal)
            hands[seat] &= ~bit_nb(card)
            played |= bit_nb(card)
            n_played += 1
            if turn == 0:
                lead = card
            else:
                leader_wins, barred = trick_nb(lead, card, trump)
                if lead >= 52:
                    out[O_COLON_PLAY + lead - 52] = COLON_LEAD
                    out[O_COLON_WON + lead - 52] = leader_wins
                if card >= 52:
                    blocks = lead < 52 and card == 52 + CARD_CLASS[lead]
                    out[O_COLON_PLAY + card - 52] = COLON_BLOCK if blocks else COLON_DISCARD
                    out[O_COLON_WON + card - 52] = not leader_wins
                if not leader_wins:
                    leader = seat
                out[O_TRICKS + leader] += 1
    if replaying and n_played < script_play.shape[0]:
        stop_nb(out, ERR_NOT_IN_HAND, AT_PLAY, n_played)
        return

    declarer_gain, opponent_gain = score_deal_nb(params, value, exact, penalty, cur_bid,
                                                 doubled, out[O_TRICKS + bidder])
    out[O_SCORE + bidder] = declarer_gain
    out[O_SCORE + 1 - bidder] = opponent_gain


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = np.dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("upcard", np.int8),
    ("upcard_class", np.int8), ("colon_little", np.int8), ("colon_royal", np.int8),
    ("colon_grand", np.int8), ("colon_little_play", np.int8), ("colon_royal_play", np.int8),
    ("colon_grand_play", np.int8), ("colon_little_won", np.int8), ("colon_royal_won", np.int8),
    ("colon_grand_won", np.int8), ("contract", np.int8), ("declarer", np.int8),
    ("doubled", np.int8), ("tricks0", np.int8), ("tricks1", np.int8),
    ("score0", np.int32), ("score1", np.int32),
], align=True)

GAME_DTYPE = np.dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16),
    ("tiebreak_deals", np.int16), ("redeals", np.int16), ("total0", np.int32),
    ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
], align=True)

# Trace deal headers: one row per deal dealt (redeals included).
H_GAME, H_SEQ, H_COUNTED, H_DEALER, H_HAND, H_STOCK_LEN, H_STOCK = 0, 1, 2, 3, 4, 6, 7
H_ACTIONS = H_STOCK + 29  # first and one-past-last trace row of this deal
H_OUT = H_ACTIONS + 2
HEADER_WIDTH = H_OUT + N_OUT


def max_deals_per_game(params) -> int:
    """Deal rows a game can fill: B-15's deals plus its tie-break deals."""
    return int(params[P_DEALS] + params[P_MAX_TIEBREAK_DEALS])


@njit(cache=True)
def play_game_nb(params, value, exact, penalty, deck, seed, game_index, pol, prm,
                 deal_rows, game_out, headers, hcur, trace, tcur, scratch):
    """B-15 with C-5, C-6: one whole game, its cards a pure function of (seed, game index).

    Deals come from their own stream (first dealer, then one shuffle per deal), policies
    draw from a second one, so the cards of every deal are the same whatever the policies.
    """
    deal_rng = np.zeros(1, dtype=np.uint64)
    policy_rng = np.zeros(1, dtype=np.uint64)
    game_stream_nb(seed, game_index, deal_rng)
    game_stream_nb(seed, game_index, policy_rng)
    policy_rng[0] = ~policy_rng[0]
    out = np.zeros(N_OUT, dtype=np.int64)
    hands = np.zeros(2, dtype=np.uint64)
    order = scratch
    n_deck = deck.shape[0]
    deck_mask = ZERO
    for c in deck:
        deck_mask |= bit_nb(c)
    empty_d = np.zeros((2, 1), dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)

    first_dealer = below_nb(deal_rng, 2)
    dealer = first_dealer
    deals = 0
    redeals = 0
    totals = np.zeros(2, dtype=np.int64)
    abandoned = False
    seq = 0
    while True:
        # Shuffle all 55 cards and keep those in the deck, so decks that differ only in
        # their Colons draw the same random numbers and keep the suited cards in the same
        # order: variant comparisons stay paired (common random numbers).
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
        for k in range(2 * HAND_SIZE):  # B-2: one at a time, non-dealer first
            hands[(1 - dealer) if k % 2 == 0 else dealer] |= bit_nb(order[k])
        stock = order[2 * HAND_SIZE:n_deck]
        h = hcur[0]
        if trace.shape[0] > 0 and h < headers.shape[0]:
            headers[h, H_GAME] = game_index
            headers[h, H_SEQ] = seq
            headers[h, H_DEALER] = dealer
            headers[h, H_HAND] = np.int64(hands[0])
            headers[h, H_HAND + 1] = np.int64(hands[1])
            headers[h, H_STOCK_LEN] = stock.shape[0]
            headers[h, H_STOCK:H_STOCK + stock.shape[0]] = stock
            headers[h, H_ACTIONS] = tcur[0]
        play_deal_nb(params, value, exact, penalty, deck_mask, dealer, hands, stock,
                     pol, prm, policy_rng, empty_d, empty, empty, trace, tcur, out)
        passed = out[O_CONTRACT] < 0
        counted = not (passed and params[P_PASSED_OUT_REDEAL])
        if trace.shape[0] > 0:
            if h < headers.shape[0]:
                headers[h, H_ACTIONS + 1] = tcur[0]
                headers[h, H_COUNTED] = counted
                headers[h, H_OUT:H_OUT + N_OUT] = out
            hcur[0] = h + 1
        seq += 1
        if not counted:  # C-5: the same dealer deals again, at most max_redeals times
            if redeals == params[P_MAX_REDEALS]:
                abandoned = True
                break
            redeals += 1
            continue
        row = deal_rows[deals]
        row["game"] = game_index
        row["deal"] = deals
        row["dealer"] = dealer
        row["upcard"] = out[O_UPCARD]
        row["upcard_class"] = CARD_CLASS[out[O_UPCARD]]
        row["colon_little"] = out[O_COLON_HOLDER]
        row["colon_royal"] = out[O_COLON_HOLDER + 1]
        row["colon_grand"] = out[O_COLON_HOLDER + 2]
        row["colon_little_play"] = out[O_COLON_PLAY]
        row["colon_royal_play"] = out[O_COLON_PLAY + 1]
        row["colon_grand_play"] = out[O_COLON_PLAY + 2]
        row["colon_little_won"] = out[O_COLON_WON]
        row["colon_royal_won"] = out[O_COLON_WON + 1]
        row["colon_grand_won"] = out[O_COLON_WON + 2]
        row["contract"] = out[O_CONTRACT]
        row["declarer"] = out[O_DECLARER]
        row["doubled"] = out[O_DOUBLED]
        row["tricks0"] = out[O_TRICKS]
        row["tricks1"] = out[O_TRICKS + 1]
        row["score0"] = out[O_SCORE]
        row["score1"] = out[O_SCORE + 1]
        totals[0] += out[O_SCORE]
        totals[1] += out[O_SCORE + 1]
        deals += 1
        dealer = 1 - dealer
        if deals >= params[P_DEALS]:
            if totals[0] != totals[1] or deals >= params[P_DEALS] + params[P_MAX_TIEBREAK_DEALS]:
                break
    game_row = game_out[0]
    game_row["game"] = game_index
    game_row["first_dealer"] = first_dealer
    game_row["deals"] = deals
    game_row["tiebreak_deals"] = max(0, deals - params[P_DEALS])
    game_row["redeals"] = redeals
    game_row["total0"] = totals[0]
    game_row["total1"] = totals[1]
    game_row["abandoned"] = abandoned
    if abandoned or totals[0] == totals[1]:
        game_row["winner"] = -1
    else:
        game_row["winner"] = 0 if totals[0] > totals[1] else 1
