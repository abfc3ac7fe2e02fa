"""Draw Bridge: deal, draw phase, auction, contract play and score (RULES.md D-1..D-7, C-3..C-6).

``play_deal_nb`` plays one deal over two uint64 hands and the 26-card stock;
``play_game_nb`` strings deals into a game to ``game.target``. The auction is the shared
C-4 auction of ``kernels.contract`` on the ladder 1C..7NT without holding limits (D-3).
"""

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, N_BIDS
from kernels.cards import ZERO, bit_nb
from kernels.contract import (
    AT_PLAY, ERR_AUCTION, ERR_FOLLOW, ERR_NOT_IN_HAND, KIND_PLAY, O_CONTRACT, O_DECLARER,
    O_DOUBLED, O_GAME, O_SCORE, O_TRICKS, auction_nb, stop_nb, trace_nb,
)
from kernels.policies import POLICY_SCRIPT, choose_card_nb, choose_draw_card_nb, replaying_nb
from kernels.rng import below_nb, game_stream_nb, shuffle_nb
from kernels.tricks import follow_mask_nb

# --- Rule parameters: columns of the int64 row made by kernel_rules -----------------------
P_MUST_FOLLOW = 0
P_LED_SUIT_WINS = 1
P_SHOW_STOCK_TOP = 2
P_OPENING_PASS_ENDS = 3
P_PASSED_OUT_REDEAL = 4
P_MAX_REDEALS = 5
P_TARGET = 6
P_MAX_DEALS = 7
N_PARAMS = 8

HAND_SIZE = 13
FIRST_BID = 1  # D-3: the ladder starts at 1C

O_DRAW_TRICKS = O_GAME  # two columns: draw-phase tricks by seat
N_OUT = O_GAME + 2

# The rule each kernels.contract error code stands for; the draw phase (play[0..25])
# reports D-2 for a card not in hand or a must-follow breach (RULES.md replay section).
ERROR_RULES = ("", "", "C-4", "", "D-4", "C-3", "", "", "D-3")
DRAW_PHASE_ERROR = "D-2"


def kernel_rules(rules):
    """The kernel's view of a validated ``DrawBridgeRules``: (params, made, undertricks).

    ``made[bid, doubled, tricks]`` is D-5's score of a made contract by declarer tricks;
    ``undertricks[doubled, short]`` is D-6's (zeros for ``scoring.undertricks = "none"``).
    """
    dr, au = rules.draw, rules.auction
    params = np.zeros(N_PARAMS, dtype=np.int64)
    params[P_MUST_FOLLOW] = dr.must_follow
    params[P_LED_SUIT_WINS] = dr.trick_winner == "led_suit"
    params[P_SHOW_STOCK_TOP] = dr.show_stock_top
    params[P_OPENING_PASS_ENDS] = au.opening_pass == "ends"
    params[P_PASSED_OUT_REDEAL] = au.passed_out == "redeal"
    params[P_MAX_REDEALS] = au.max_redeals
    params[P_TARGET] = rules.game.target
    params[P_MAX_DEALS] = rules.game.max_deals

    made = np.zeros((N_BIDS, 3, HAND_SIZE + 1), dtype=np.int64)
    for b in range(FIRST_BID, N_BIDS):
        strain = BID_STRAIN[b]
        for tricks in range(6 + BID_LEVEL[b], HAND_SIZE + 1):
            over = tricks - 6  # every trick over six, overtricks included
            if strain == 4:
                points = 40 + 30 * (over - 1)
            else:
                points = over * (30 if strain >= 2 else 20)
            made[b, :, tricks] = (points, 2 * points, 4 * points)
    undertricks = np.zeros((3, HAND_SIZE + 1), dtype=np.int64)
    if rules.scoring.undertricks == "bridge":
        for short in range(1, HAND_SIZE + 1):
            doubled = sum(100 if k == 1 else 200 if k <= 3 else 300 for k in range(1, short + 1))
            undertricks[:, short] = (50 * short, doubled, 2 * doubled)
    return params, made, undertricks


@njit(cache=True)
def draw_trick_leader_wins_nb(lead, follow, led_suit_wins):
    """D-2: does the leader win a draw-phase trick?"""
    if led_suit_wins:
        return not (follow // 13 == lead // 13 and follow > lead)
    return follow % 13 <= lead % 13  # highest rank wins; equal ranks go to the leader


@njit(cache=True)
def scripted_card_nb(script_play, n_played, hand, legal, out):
    """The replayed card ``play[n_played]``, or -1 after recording why it is illegal."""
    if n_played >= script_play.shape[0]:
        stop_nb(out, ERR_NOT_IN_HAND, AT_PLAY, n_played)
        return -1
    card = script_play[n_played]
    if card < 0 or (legal & bit_nb(card)) == ZERO:
        err = ERR_NOT_IN_HAND if card < 0 or (hand & bit_nb(card)) == ZERO else ERR_FOLLOW
        stop_nb(out, err, AT_PLAY, n_played)
        return -1
    return card


@njit(cache=True)
def play_deal_nb(params, made, undertricks, dealer, hands, stock, pol, prm, rng,
                 script_calls, script_play, trace, tcur, out):
    """Play one Draw Bridge deal from dealt ``hands`` (uint64[2], updated) and the ``stock``.

    As in Bridgette, POLICY_SCRIPT reads the actions from ``script_calls`` and
    ``script_play`` (draw phase then contract) and stops at the first illegal one.
    """
    replaying = replaying_nb(pol)
    tracing = trace.shape[0] > 0
    out[:] = 0
    out[O_CONTRACT] = -1
    out[O_DECLARER] = -1
    deck_mask = hands[0] | hands[1]
    for c in stock:
        deck_mask |= bit_nb(c)

    # D-2: thirteen tricks without trumps; the winner draws first and leads next.
    gone = ZERO  # cards played in the draw phase: out of the deal
    leader = 1 - dealer
    must_follow = params[P_MUST_FOLLOW] != 0
    led_suit_wins = params[P_LED_SUIT_WINS] != 0
    n_played = 0
    for trick in range(HAND_SIZE):
        top = stock[2 * trick]
        shown = top if params[P_SHOW_STOCK_TOP] else -1
        lead = -1
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = follow_mask_nb(hand, lead) if (turn == 1 and must_follow) else hand
            if pol[seat] == POLICY_SCRIPT:
                card = scripted_card_nb(script_play, n_played, hand, legal, out)
                if card < 0:
                    return
            else:
                card = choose_draw_card_nb(pol[seat], prm[seat], hand, legal, lead, shown,
                                           led_suit_wins, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_PLAY, seat, card, legal)
            hands[seat] &= ~bit_nb(card)
            gone |= bit_nb(card)
            n_played += 1
            if turn == 0:
                lead = card
            elif not draw_trick_leader_wins_nb(lead, card, led_suit_wins):
                leader = seat
        out[O_DRAW_TRICKS + leader] += 1
        hands[leader] |= bit_nb(top)
        hands[1 - leader] |= bit_nb(stock[2 * trick + 1])

    # D-3: the auction, dealer first, 1C..7NT, no holding requirements.
    completed, contract, declarer, doubled = auction_nb(
        hands, dealer, FIRST_BID, 0, False, 0, params[P_OPENING_PASS_ENDS] != 0, pol, prm, rng,
        script_calls, trace, tcur, out)
    if not completed:
        return
    if contract < 0:
        if replaying and script_play.shape[0] > n_played:
            stop_nb(out, ERR_AUCTION, AT_PLAY, n_played)  # a card after a passed-out deal
        return
    out[O_CONTRACT] = contract
    out[O_DECLARER] = declarer
    out[O_DOUBLED] = doubled

    # D-4: thirteen tricks under C-3, the declarer's opponent leading.
    strain = BID_STRAIN[contract]
    trump = strain if strain < 4 else -1
    leader = 1 - declarer
    played = ZERO
    for _ in range(HAND_SIZE):
        lead = -1
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            hand = hands[seat]
            legal = hand if turn == 0 else follow_mask_nb(hand, lead)
            if pol[seat] == POLICY_SCRIPT:
                card = scripted_card_nb(script_play, n_played, hand, legal, out)
                if card < 0:
                    return
            else:
                unseen = deck_mask & ~hand & ~gone & ~played
                card = choose_card_nb(pol[seat], prm[seat], hand, legal, lead, trump,
                                      seat == declarer, unseen, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_PLAY, seat, card, legal)
            hands[seat] &= ~bit_nb(card)
            played |= bit_nb(card)
            n_played += 1
            if turn == 0:
                lead = card
            else:
                follow_wins = (card // 13 == lead // 13 and card > lead) or (
                    card // 13 == trump and lead // 13 != trump)
                if follow_wins:
                    leader = seat
        out[O_TRICKS + leader] += 1
    if replaying and n_played < script_play.shape[0]:
        stop_nb(out, ERR_NOT_IN_HAND, AT_PLAY, n_played)
        return
    need = 6 + BID_LEVEL[contract]
    if out[O_TRICKS + declarer] >= need:
        out[O_SCORE + declarer] = made[contract, doubled, out[O_TRICKS + declarer]]
    else:
        out[O_SCORE + 1 - declarer] = undertricks[doubled, need - out[O_TRICKS + declarer]]


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = np.dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("draw_tricks0", np.int8),
    ("draw_tricks1", np.int8), ("contract", np.int8), ("declarer", np.int8), ("doubled", np.int8),
    ("tricks0", np.int8), ("tricks1", np.int8), ("score0", np.int32), ("score1", np.int32),
], align=True)

GAME_DTYPE = np.dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16), ("redeals", np.int16),
    ("total0", np.int32), ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
], align=True)

# Trace deal headers: one row per deal dealt (redeals included).
H_GAME, H_SEQ, H_COUNTED, H_DEALER, H_HAND, H_STOCK = 0, 1, 2, 3, 4, 6
H_ACTIONS = H_STOCK + 26
H_OUT = H_ACTIONS + 2
HEADER_WIDTH = H_OUT + N_OUT


@njit(cache=True)
def play_game_nb(params, made, undertricks, seed, game_index, pol, prm, deal_rows, game_out,
                 headers, hcur, trace, tcur, scratch):
    """D-7 with C-5, C-6: one game to ``game.target``, a pure function of (seed, game index).

    Writes at most ``deal_rows.shape[0]`` deal rows; the game row counts them all, so a
    caller can tell when a game needs more room.
    """
    deal_rng = np.zeros(1, dtype=np.uint64)
    policy_rng = np.zeros(1, dtype=np.uint64)
    game_stream_nb(seed, game_index, deal_rng)
    game_stream_nb(seed, game_index, policy_rng)
    policy_rng[0] = ~policy_rng[0]
    out = np.zeros(N_OUT, dtype=np.int64)
    hands = np.zeros(2, dtype=np.uint64)
    order = scratch[:52]
    no_calls = np.zeros(0, dtype=np.int64)

    first_dealer = below_nb(deal_rng, 2)
    dealer = first_dealer
    deals = 0
    redeals = 0
    totals = np.zeros(2, dtype=np.int64)
    abandoned = False
    winner = -1
    seq = 0
    while True:
        for c in range(52):
            order[c] = c
        shuffle_nb(deal_rng, order)
        hands[:] = ZERO
        for k in range(2 * HAND_SIZE):  # D-1: one at a time, non-dealer first
            hands[(1 - dealer) if k % 2 == 0 else dealer] |= bit_nb(order[k])
        stock = order[2 * HAND_SIZE:]
        h = hcur[0]
        if trace.shape[0] > 0 and h < headers.shape[0]:
            headers[h, H_GAME] = game_index
            headers[h, H_SEQ] = seq
            headers[h, H_DEALER] = dealer
            headers[h, H_HAND] = np.int64(hands[0])
            headers[h, H_HAND + 1] = np.int64(hands[1])
            headers[h, H_STOCK:H_STOCK + 26] = stock
            headers[h, H_ACTIONS] = tcur[0]
        play_deal_nb(params, made, undertricks, dealer, hands, stock, pol, prm, policy_rng,
                     no_calls, no_calls, trace, tcur, out)
        counted = not (out[O_CONTRACT] < 0 and params[P_PASSED_OUT_REDEAL])
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
        if deals < deal_rows.shape[0]:
            row = deal_rows[deals]
            row["game"] = game_index
            row["deal"] = deals
            row["dealer"] = dealer
            row["draw_tricks0"] = out[O_DRAW_TRICKS]
            row["draw_tricks1"] = out[O_DRAW_TRICKS + 1]
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
        # D-7: only one seat scores in a deal, so at most one reaches the target.
        if totals[0] >= params[P_TARGET] or totals[1] >= params[P_TARGET]:
            winner = 0 if totals[0] >= params[P_TARGET] else 1
            break
        if deals >= params[P_MAX_DEALS]:
            abandoned = True
            break
    game_row = game_out[0]
    game_row["game"] = game_index
    game_row["first_dealer"] = first_dealer
    game_row["deals"] = deals
    game_row["redeals"] = redeals
    game_row["total0"] = totals[0]
    game_row["total1"] = totals[1]
    game_row["winner"] = winner
    game_row["abandoned"] = abandoned
