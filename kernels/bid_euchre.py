"""Bid Euchre: deal, auction, trump, exchange, play and score (RULES.md E-1..E-10, C-3, C-6).

Cards use the Bid Euchre layout of ``kernels.cards``. Which suit a card follows and how it
ranks depend on trump (E-2: the left bower is a trump), so both come from tables chosen
per deal: ``EFF_SUIT[trump, card]``, ``POWER[trump, card]`` and ``SUIT_OF[trump, suit]``
masks. Identical double-deck cards have equal power, and a card takes the lead of a
trick only by beating it strictly, so the first played ranks higher.
"""

import numpy as np
from numba import njit

from kernels.cards import (
    EUCHRE_ACES, EUCHRE_EFF_SUIT, EUCHRE_FACES, EUCHRE_JOKER, EUCHRE_POWER, EUCHRE_SUIT_OF, ONE, ZERO,
    bit_nb, lowest_nb, popcount_nb,
)
from kernels.policies import (
    POLICY_SCRIPT, replaying_nb, choose_euchre_bid_nb, choose_euchre_card_nb, choose_euchre_discard_nb,
    choose_euchre_give_nb, choose_euchre_return_nb, choose_euchre_trump_nb,
)
from kernels.rng import below_nb, game_stream_nb, shuffle_nb
from kernels.trace import O_ERROR, O_ERROR_AT, O_ERROR_INDEX, TRACE_WIDTH, stop_nb, trace_nb  # noqa: F401

# --- Cards (the Bid Euchre layout of kernels.cards) --------------------------------------------
JOKER = EUCHRE_JOKER
EFF_SUIT, POWER, SUIT_OF = EUCHRE_EFF_SUIT, EUCHRE_POWER, EUCHRE_SUIT_OF
ACES, FACES = EUCHRE_ACES, EUCHRE_FACES

# --- Rule parameters ------------------------------------------------------------------------
P_STICK_THE_DEALER = 0
P_ASK_CARDS = 1
P_ASK_ALL = 2
P_MOON_ALL = 3
P_RENEGE_PENALTY = 4
P_TARGET = 5
P_MAX_HANDS = 6
P_ACE_NO_FACE = 7
P_JOKER = 8
P_DOUBLE_DECK = 9
P_TRICKS = 10  # tricks in a hand and cards in a hand: 6, or 12 with the double deck
N_PARAMS = 11

# --- Bids: ids in ladder order, 3 .. tricks-1, then the ask (6A/12A) and the moon (6M/12M) ---
FIRST_LEVEL = 3
BID_PASS = 15


@njit(cache=True)
def n_levels(tricks):
    return tricks - FIRST_LEVEL


def bid_names(tricks: int) -> list[str]:
    return [str(FIRST_LEVEL + i) for i in range(n_levels(tricks))] + [f"{tricks}A", f"{tricks}M"]


# --- Outcome row ------------------------------------------------------------------------------
O_BID, O_BIDDER, O_TRUMP = 0, 1, 2
O_TRICKS = 3  # two columns, by team
O_SCORE = 5  # two columns, by team, renege penalties included
O_RENEGES = 10  # (7..9 hold O_ERROR, O_ERROR_AT, O_ERROR_INDEX of kernels.trace)
O_VOID = 11  # 0 played, 1 all passed, 2 ace-no-face
N_OUT = 12
VOID_ALL_PASS, VOID_ACE_NO_FACE = 1, 2

ERR_NONE, ERR_DISCARD, ERR_AUCTION, ERR_EXCHANGE, ERR_PLAY = range(5)
ERROR_RULES = ("", "E-10", "E-3", "E-4", "E-6")
AT_DISCARDS, AT_CALLS, AT_TRUMP, AT_EXCHANGE, AT_PLAY = range(5)

KIND_DISCARD, KIND_CALL, KIND_TRUMP, KIND_GIVE, KIND_RETURN, KIND_PLAY = range(6)
MAX_RENEGES = 64


def kernel_rules(rules):
    """The kernel's view of a validated ``BidEuchreRules``: (params, deck)."""
    params = np.zeros(N_PARAMS, dtype=np.int64)
    params[P_STICK_THE_DEALER] = rules.auction.stick_the_dealer
    params[P_ASK_CARDS] = rules.auction.ask_cards
    params[P_ASK_ALL] = rules.scoring.ask_all
    params[P_MOON_ALL] = rules.scoring.moon_all
    params[P_RENEGE_PENALTY] = rules.scoring.renege_penalty
    params[P_TARGET] = rules.game.target
    params[P_MAX_HANDS] = rules.game.max_hands
    params[P_ACE_NO_FACE] = rules.variant.ace_no_face
    params[P_JOKER] = rules.variant.joker
    params[P_DOUBLE_DECK] = rules.variant.double_deck
    params[P_TRICKS] = 12 if rules.variant.double_deck else 6
    deck = list(range(48 if rules.variant.double_deck else 24)) + ([JOKER] if rules.variant.joker else [])
    return params, np.array(deck, dtype=np.int64)


@njit(cache=True)
def score_hand_nb(params, bid, bidding_team_tricks):
    """E-7: (bidding team's points, defenders' points) for a bid (ladder id) and the tricks
    the bidding team took. A set team scores minus its bid and no trick points; an ask or
    a moon is made only by taking every trick and then scores ask_all or moon_all."""
    tricks_in_hand = params[P_TRICKS]
    ask = n_levels(tricks_in_hand)
    defenders = tricks_in_hand - bidding_team_tricks
    need = FIRST_LEVEL + bid if bid < ask else tricks_in_hand
    if bidding_team_tricks < need:
        return -need, defenders
    if bid == ask:
        return params[P_ASK_ALL], defenders
    if bid == ask + 1:
        return params[P_MOON_ALL], defenders
    return bidding_team_tricks, defenders


@njit(cache=True)
def pick_copy_nb(hand, card):
    """The held copy of a replayed card (first copy preferred), or -1 when not held."""
    if card < 0:
        return -1
    if hand & bit_nb(card):
        return card
    if card < 24 and hand & bit_nb(card + 24):
        return card + 24
    return -1


@njit(cache=True)
def follow_legal_nb(hand, lead, trump):
    """C-3 with E-2 suits: the suit led (effective suit) if held, else any card."""
    if lead < 0:
        return hand
    held = hand & SUIT_OF[trump, EFF_SUIT[trump, lead]]
    return held if held != ZERO else hand


@njit(cache=True)
def trick_trumps_nb(hand, trump):
    return hand & SUIT_OF[trump, trump]


@njit(cache=True)
def highest_trumps_nb(hand, trump, k):
    """E-4: the ``k`` highest trumps of ``hand`` (all of them if fewer), as a card set."""
    chosen = ZERO
    trumps = hand & SUIT_OF[trump, trump]
    for _ in range(k):
        if trumps == ZERO:
            break
        best, best_power = -1, -1
        rest = trumps
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            if POWER[trump, c] > best_power:
                best, best_power = c, POWER[trump, c]
        chosen |= bit_nb(best)
        trumps &= ~bit_nb(best)
    return chosen


@njit(cache=True)
def play_deal_nb(params, dealer, hands, pol, prm, rng, script_discard, script_calls, script_trump,
                 script_give, script_return, script_play, reneges, trace, tcur, out):
    """Play one Bid Euchre deal from the dealt ``hands`` (uint64[4], updated).

    With POLICY_SCRIPT the actions come from the script arrays (a card not held is -1, an
    unknown call -2); an illegal one stops the deal, except a card that breaks the follow
    rule, which stands as an E-8 renege (its play index and seat go to ``reneges``).
    """
    replaying = replaying_nb(pol)
    tracing = trace.shape[0] > 0
    out[:] = 0
    out[O_BID] = -1
    out[O_BIDDER] = -1
    out[O_TRUMP] = -1
    tricks_in_hand = params[P_TRICKS]
    levels = n_levels(tricks_in_hand)
    ask = levels

    # E-10 ace-no-face: judged on the hands as dealt.
    if params[P_ACE_NO_FACE]:
        for s in range(4):
            if hands[s] & ACES and (hands[s] & FACES) == ZERO:
                out[O_VOID] = VOID_ACE_NO_FACE  # a replay must hold nothing more (checked by the caller)
                return

    # E-10 joker: the dealer discards one card before the auction.
    if params[P_JOKER]:
        if pol[dealer] == POLICY_SCRIPT:
            card = pick_copy_nb(hands[dealer], script_discard[0]) if script_discard.shape[0] == 1 else -1
            if card < 0:
                stop_nb(out, ERR_DISCARD, AT_DISCARDS, dealer)
                return
        else:
            card = choose_euchre_discard_nb(pol[dealer], prm[dealer], hands[dealer], rng)
        if tracing:
            trace_nb(trace, tcur, KIND_DISCARD, dealer, card, hands[dealer])
        hands[dealer] &= ~bit_nb(card)
    elif replaying and script_discard.shape[0] > 0:
        stop_nb(out, ERR_DISCARD, AT_DISCARDS, dealer)
        return

    # E-3: one round from the dealer's left, the dealer last.
    high, bidder = -1, -1
    for turn in range(4):
        seat = (dealer + 1 + turn) % 4
        legal = (bit_nb(levels + 2) - ONE) & ~(bit_nb(high + 1) - ONE)  # every bid above the high one
        forced = turn == 3 and high < 0 and params[P_STICK_THE_DEALER]
        if not forced:
            legal |= bit_nb(BID_PASS)
        if pol[seat] == POLICY_SCRIPT:
            if turn >= script_calls.shape[0]:
                stop_nb(out, ERR_AUCTION, AT_CALLS, turn)
                return
            call = script_calls[turn]
            if call < 0 or (legal & bit_nb(call)) == ZERO:
                stop_nb(out, ERR_AUCTION, AT_CALLS, turn)
                return
        else:
            call = choose_euchre_bid_nb(pol[seat], prm[seat], hands[seat], legal, high, bidder, seat,
                                        tricks_in_hand, rng)
        if tracing:
            trace_nb(trace, tcur, KIND_CALL, seat, call, legal)
        if call != BID_PASS:
            high, bidder = call, seat
    if replaying and script_calls.shape[0] > 4:
        stop_nb(out, ERR_AUCTION, AT_CALLS, 4)
        return
    if high < 0:
        out[O_VOID] = VOID_ALL_PASS
        if replaying and (script_trump.shape[0] or script_give.shape[0] or script_return.shape[0]
                         or script_play.shape[0]):
            if script_trump.shape[0]:
                stop_nb(out, ERR_AUCTION, AT_TRUMP, 0)
            elif script_give.shape[0] or script_return.shape[0]:
                stop_nb(out, ERR_AUCTION, AT_EXCHANGE, 0)
            else:
                stop_nb(out, ERR_AUCTION, AT_PLAY, 0)
        return
    out[O_BID] = high
    out[O_BIDDER] = bidder

    # The bidder names trump (a suit).
    if pol[bidder] == POLICY_SCRIPT:
        if script_trump.shape[0] != 1 or not 0 <= script_trump[0] < 4:
            stop_nb(out, ERR_AUCTION, AT_TRUMP, 0)
            return
        trump = script_trump[0]
    else:
        trump = choose_euchre_trump_nb(pol[bidder], prm[bidder], hands[bidder], rng)
    if tracing:
        trace_nb(trace, tcur, KIND_TRUMP, bidder, trump, np.uint64(0b1111))
    out[O_TRUMP] = trump

    # E-4 / E-5: the ask exchange; the partner of a six bid sits out.
    partner = (bidder + 2) % 4
    out_seat = partner if high >= ask else -1
    if high == ask:
        k = params[P_ASK_CARDS]
        before = hands[partner]
        forced = highest_trumps_nb(before, trump, k)
        given = ZERO
        if replaying and (script_give.shape[0] != k or script_return.shape[0] != k):
            stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
            return
        for i in range(k):
            legal = hands[bidder] & ~given
            if pol[bidder] == POLICY_SCRIPT:
                if i >= script_give.shape[0]:
                    stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
                    return
                card = pick_copy_nb(legal, script_give[i])
                if card < 0:
                    stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
                    return
            else:
                card = choose_euchre_give_nb(pol[bidder], prm[bidder], legal, trump, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_GIVE, bidder, card, legal)
            given |= bit_nb(card)
        returned = forced
        partner_scripted = pol[partner] == POLICY_SCRIPT
        if partner_scripted:
            if script_return.shape[0] != k:
                stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
                return
            # The replayed returns must hold every forced trump; the rest are the choices.
            rest = forced
            chosen_script = np.full(k, -1, dtype=np.int64)
            n_chosen = 0
            for i in range(k):
                card = pick_copy_nb(rest, script_return[i])
                if card >= 0:
                    rest &= ~bit_nb(card)
                else:
                    chosen_script[n_chosen] = script_return[i]
                    n_chosen += 1
            if rest != ZERO:
                stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
                return
        for i in range(k - popcount_nb(forced)):
            legal = before & ~returned & ~SUIT_OF[trump, trump]
            if partner_scripted:
                card = pick_copy_nb(legal, chosen_script[i])
                if card < 0:
                    stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
                    return
            else:
                card = choose_euchre_return_nb(pol[partner], prm[partner], legal, trump, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_RETURN, partner, card, legal)
            returned |= bit_nb(card)
        hands[bidder] = (hands[bidder] & ~given) | returned
        hands[partner] = (hands[partner] & ~returned) | given
    elif replaying and (script_give.shape[0] or script_return.shape[0]):
        stop_nb(out, ERR_EXCHANGE, AT_EXCHANGE, 0)
        return

    # E-6: the bidder leads; a seat sitting out plays no cards.
    played = ZERO
    tricks0 = tricks1 = penalty0 = penalty1 = 0
    n_reneges = 0
    leader = bidder
    n_played = 0
    for _ in range(tricks_in_hand):
        lead = -1
        best, best_seat = -1, -1
        seat = leader
        for _turn in range(4):
            if seat == out_seat:
                seat = (seat + 1) % 4
                continue
            hand = hands[seat]
            legal = follow_legal_nb(hand, lead, trump)
            if pol[seat] == POLICY_SCRIPT:
                if n_played >= script_play.shape[0]:
                    stop_nb(out, ERR_PLAY, AT_PLAY, n_played)
                    return
                card = pick_copy_nb(legal, script_play[n_played])
                if card < 0:
                    card = pick_copy_nb(hand, script_play[n_played])
                    if card < 0:
                        stop_nb(out, ERR_PLAY, AT_PLAY, n_played)
                        return
                    if n_reneges < reneges.shape[0]:  # E-8: the card stands
                        reneges[n_reneges, 0] = n_played
                        reneges[n_reneges, 1] = seat
                    n_reneges += 1
                    if seat % 2 == 0:
                        penalty0 += params[P_RENEGE_PENALTY]
                    else:
                        penalty1 += params[P_RENEGE_PENALTY]
            else:
                card = choose_euchre_card_nb(pol[seat], prm[seat], hand, legal, lead, best, best_seat,
                                             seat, trump, bidder, played, rng)
            if tracing:
                trace_nb(trace, tcur, KIND_PLAY, seat, card, legal)
            hands[seat] &= ~bit_nb(card)
            played |= bit_nb(card)
            n_played += 1
            if lead < 0:
                lead, best, best_seat = card, card, seat
            else:
                cs, bs = EFF_SUIT[trump, card], EFF_SUIT[trump, best]
                if (cs == bs and POWER[trump, card] > POWER[trump, best]) or (cs == trump and bs != trump):
                    best, best_seat = card, seat
            seat = (seat + 1) % 4
        if best_seat % 2 == 0:
            tricks0 += 1
        else:
            tricks1 += 1
        leader = best_seat
    if replaying and n_played < script_play.shape[0]:
        stop_nb(out, ERR_PLAY, AT_PLAY, n_played)
        return

    # E-7 scores, then E-8 penalties.
    team = bidder % 2
    out[O_TRICKS] = tricks0
    out[O_TRICKS + 1] = tricks1
    out[O_SCORE + team], out[O_SCORE + 1 - team] = score_hand_nb(params, high, tricks0 if team == 0 else tricks1)
    out[O_SCORE] -= penalty0
    out[O_SCORE + 1] -= penalty1
    out[O_RENEGES] = n_reneges


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = np.dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("bid", np.int8), ("bidder", np.int8),
    ("trump", np.int8), ("void", np.int8), ("tricks0", np.int8), ("tricks1", np.int8),
    ("score0", np.int16), ("score1", np.int16),
], align=True)

GAME_DTYPE = np.dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16), ("total0", np.int32),
    ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
], align=True)

H_GAME, H_SEQ, H_DEALER, H_HAND = 0, 1, 2, 3  # four hand columns
H_ACTIONS = H_HAND + 4
H_OUT = H_ACTIONS + 2
HEADER_WIDTH = H_OUT + N_OUT


@njit(cache=True)
def play_game_nb(params, deck, seed, game_index, pol, prm, deal_rows, game_out, headers, hcur,
                 trace, tcur, scratch):
    """E-9 with C-6: one game to ``game.target``, a pure function of (seed, game index).

    Writes at most ``deal_rows.shape[0]`` deal rows; the game row counts every hand.
    """
    deal_rng = np.zeros(1, dtype=np.uint64)
    policy_rng = np.zeros(1, dtype=np.uint64)
    game_stream_nb(seed, game_index, deal_rng)
    game_stream_nb(seed, game_index, policy_rng)
    policy_rng[0] = ~policy_rng[0]
    out = np.zeros(N_OUT, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    n_deck = deck.shape[0]
    order = scratch[:n_deck]
    empty = np.zeros(0, dtype=np.int64)
    no_reneges = np.zeros((0, 2), dtype=np.int64)
    per_seat = params[P_TRICKS]

    first_dealer = below_nb(deal_rng, 4)
    dealer = first_dealer
    deals = 0
    totals = np.zeros(2, dtype=np.int64)
    abandoned = False
    winner = -1
    while True:
        order[:] = deck
        shuffle_nb(deal_rng, order)
        hands[:] = ZERO
        for k in range(4 * per_seat):  # E-1: one at a time from the dealer's left
            hands[(dealer + 1 + k) % 4] |= bit_nb(order[k])
        if n_deck > 4 * per_seat:  # E-10 joker: the dealer is dealt one card more
            hands[dealer] |= bit_nb(order[4 * per_seat])
        h = hcur[0]
        if trace.shape[0] > 0 and h < headers.shape[0]:
            headers[h, H_GAME] = game_index
            headers[h, H_SEQ] = deals
            headers[h, H_DEALER] = dealer
            for s in range(4):
                headers[h, H_HAND + s] = np.int64(hands[s])
            headers[h, H_ACTIONS] = tcur[0]
        play_deal_nb(params, dealer, hands, pol, prm, policy_rng, empty, empty, empty, empty, empty,
                     empty, no_reneges, trace, tcur, out)
        if trace.shape[0] > 0:
            if h < headers.shape[0]:
                headers[h, H_ACTIONS + 1] = tcur[0]
                headers[h, H_OUT:H_OUT + N_OUT] = out
            hcur[0] = h + 1
        if deals < deal_rows.shape[0]:
            row = deal_rows[deals]
            row["game"] = game_index
            row["deal"] = deals
            row["dealer"] = dealer
            row["bid"] = out[O_BID]
            row["bidder"] = out[O_BIDDER]
            row["trump"] = out[O_TRUMP]
            row["void"] = out[O_VOID]
            row["tricks0"] = out[O_TRICKS]
            row["tricks1"] = out[O_TRICKS + 1]
            row["score0"] = out[O_SCORE]
            row["score1"] = out[O_SCORE + 1]
        totals[0] += out[O_SCORE]
        totals[1] += out[O_SCORE + 1]
        deals += 1
        dealer = (dealer + 1) % 4  # C-6: the deal passes to the left after every hand
        # E-9: the first team to reach the target; both at once: the higher total.
        reached0, reached1 = totals[0] >= params[P_TARGET], totals[1] >= params[P_TARGET]
        if (reached0 or reached1) and not (reached0 and reached1 and totals[0] == totals[1]):
            winner = 0 if (reached0 and (not reached1 or totals[0] > totals[1])) else 1
            break
        if deals >= params[P_MAX_HANDS]:
            abandoned = True
            break
    game_row = game_out[0]
    game_row["game"] = game_index
    game_row["first_dealer"] = first_dealer
    game_row["deals"] = deals
    game_row["total0"] = totals[0]
    game_row["total1"] = totals[1]
    game_row["winner"] = winner
    game_row["abandoned"] = abandoned
