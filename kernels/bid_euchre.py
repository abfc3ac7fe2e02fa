"""Bid Euchre: deal, auction, trump, exchange, play and score (RULES.md E-1..E-10, C-3, C-6).

Cards use the Bid Euchre layout of ``kernels.cards``. Which suit a card follows and how it
ranks depend on trump (E-2: the left bower is a trump), so both come from tables chosen
per deal (``kernels.tricks``). Identical double-deck cards have equal power, and a card
takes the lead of a trick only by beating it strictly, so the first played ranks higher.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels import activity
from kernels.calls import (
    ALONE, ASKING, EUCHRE_FIRST_LEVEL, EUCHRE_PASS, WITH_PARTNER, euchre_bid_kind_nb, euchre_legal_bids_nb,
    euchre_need_nb,
)
from kernels.cards import (
    EUCHRE_ACES, EUCHRE_FACES, EUCHRE_JOKER, EUCHRE_SUIT_OF, NONE, NOUGHT, ZERO, bit_nb, lowest_nb, popcount_nb,
)
from kernels.dd import euchre_dd_card_nb
from kernels.dealing import conditioned_order_nb, first_dealer_nb
from kernels.dd_run import (
    DD_EUCHRE_DTYPE, dd_out_nb, euchre_card_lost_nb, euchre_play_end_nb, euchre_play_start_nb, start_euchre_row_nb,
)
from kernels.pimc import (
    note_ask_exchange_nb, note_euchre_auction_nb, note_joker_discard_nb, observe_euchre_card_nb, pimc_euchre_bid_nb,
    pimc_euchre_card_nb, pimc_euchre_trump_nb,
)
from kernels.policies import (
    POLICY_DD, calls_by_worlds_nb, choose_euchre_bid_nb, choose_euchre_card_nb, choose_euchre_discard_nb,
    choose_euchre_give_nb, choose_euchre_return_nb, choose_euchre_trump_nb, plays_by_worlds_nb, searches_calls_nb,
    searches_exchange_nb,
)
from kernels.records import record_dtype
from kernels.rng import below_nb, shuffle_nb
from kernels.search.euchre import (
    search_euchre_bid_nb, search_euchre_give_nb, search_euchre_returns_nb, search_euchre_trump_nb,
)
from kernels.step import (
    BY_POLICY, ERROR_FIELDS, MAX_SCRIPT, NO_ACTION, POLICY_SCRIPT, close_header_nb, deal_row_nb,
    header_cards_nb, header_dtype, left_over_nb, legal_nb, new_deal_nb, open_header_nb, record_nb,
    scripted_nb, start_game_nb, stop_nb, trace_row_nb, unexplained_nb,
)
from kernels.tricks import euchre_beats_nb, euchre_follow_legal_nb, highest_trumps_nb

JOKER = EUCHRE_JOKER


def n_levels(tricks: int) -> int:
    """Number bids of a deck: 3 .. tricks-1."""
    return tricks - EUCHRE_FIRST_LEVEL


def bid_names(tricks: int) -> list[str]:
    return [str(EUCHRE_FIRST_LEVEL + i) for i in range(n_levels(tricks))] + [f"{tricks}A", f"{tricks}M"]


VOID_ALL_PASS, VOID_ACE_NO_FACE = 1, 2

ERR_NONE, ERR_DISCARD, ERR_AUCTION, ERR_EXCHANGE, ERR_PLAY = range(5)
ERROR_RULES = ("", "E-10", "E-3", "E-4", "E-6")
AT_DISCARDS, AT_CALLS, AT_TRUMP, AT_EXCHANGE, AT_PLAY = range(5)

# Replay lists (Seats.script rows) and trace row kinds.
LIST_DISCARD, LIST_CALLS, LIST_TRUMP, LIST_GIVE, LIST_RETURN, LIST_PLAY = range(6)
N_LISTS = 6
KIND_DISCARD, KIND_CALL, KIND_TRUMP, KIND_GIVE, KIND_RETURN, KIND_PLAY = range(6)
MAX_RENEGES = 64
ALL_SUITS = np.uint64(0b1111)


class KernelRules(NamedTuple):
    """The kernel's view of a validated ``BidEuchreRules``: the option record (with the
    derived ``tricks``: 6, or 12 with the double deck) and the deck."""

    params: np.ndarray  # one record: sim.rules.params_dtype(BidEuchreRules, ("tricks",))
    deck: np.ndarray
    plan: np.ndarray  # one record: how the run deals (kernels.dealing)


# --- Records -------------------------------------------------------------------------------

DEAL_DTYPE = record_dtype([
    ("game", np.int64), ("deal", np.int16), ("dealer", np.int8), ("bid", np.int8), ("bidder", np.int8),
    ("trump", np.int8), ("void", np.int8), ("tricks0", np.int8), ("tricks1", np.int8),
    ("score0", np.int16), ("score1", np.int16), ("reneges", np.int8), *ERROR_FIELDS,
    activity.ACTIVITY_FIELD, ("tries", np.int32), ("unexplained", np.int8),
])

DD_DTYPE = DD_EUCHRE_DTYPE  # a --dd run's double-dummy row beside each deal row (kernels.dd_run)

GAME_DTYPE = record_dtype([
    ("game", np.int64), ("first_dealer", np.int8), ("deals", np.int16), ("total0", np.int32),
    ("total1", np.int32), ("winner", np.int8), ("abandoned", np.int8),
])

HEADER_DTYPE = header_dtype(4, 0)  # trace: one per hand


def max_deals_per_game(kr: KernelRules) -> int:
    return int(kr.params[0]["max_hands"])


@njit(cache=True)
def start_deal_nb(row):
    row.bid = -1
    row.bidder = -1
    row.trump = -1
    row.void = 0
    row.tricks0 = 0
    row.tricks1 = 0
    row.score0 = 0
    row.score1 = 0
    row.reneges = 0
    row.error = 0
    row.error_at = 0
    row.error_index = 0
    row.activity = 0


@njit(cache=True)
def score_hand_nb(p, bid, bidding_team_tricks):
    """E-7: (bidding team's points, defenders' points) for a bid (ladder id) and the tricks
    the bidding team took. A set team scores minus its bid (times set_bid_points) and no
    trick points; an ask or a moon is made only by taking every trick and then scores
    ask_all or moon_all; other tricks score made_trick_points or defender_trick_points."""
    defenders = (p.tricks - bidding_team_tricks) * p.defender_trick_points
    need = euchre_need_nb(bid, p.tricks)
    if bidding_team_tricks < need:
        return -need * p.set_bid_points, defenders
    kind = euchre_bid_kind_nb(bid, p.tricks)
    if kind == ASKING:
        return p.ask_all, defenders
    if kind == ALONE:
        return p.moon_all, defenders
    return bidding_team_tricks * p.made_trick_points, defenders


@njit(cache=True)
def pick_copy_nb(hand, card):
    """The held copy of a card (first copy preferred), or -1 when not held."""
    if card < 0:
        return -1
    if hand & bit_nb(card):
        return card
    if card < 24 and hand & bit_nb(card + 24):
        return card + 24
    return -1


# --- Decision steps: a replayed card is matched to the copy held -------------------------------

@njit(cache=True, inline="always")
def discard_step_nb(seats, trace, seat, hand, copies):
    """E-10 joker: the dealer's discard before the auction."""
    card = scripted_nb(seats, seat, LIST_DISCARD)
    if card == BY_POLICY:
        card = choose_euchre_discard_nb(seats.pol[seat], seats.prm[seat], hand, copies, seats.rng)
    return record_nb(seats, trace, KIND_DISCARD, seat, pick_copy_nb(hand, card), hand)


@njit(cache=True)
def bid_gain_nb(p):
    """E-7 for the seats that sample their calls: ``gain[bid, tricks]``, the bidding team's
    points minus the defenders' when it takes ``tricks``."""
    gain = np.empty((p.tricks - EUCHRE_FIRST_LEVEL + 2, p.tricks + 1))
    for bid in range(gain.shape[0]):
        for tricks in range(p.tricks + 1):
            points, defenders = score_hand_nb(p, bid, tricks)
            gain[bid, tricks] = points - defenders
    return gain


@njit(cache=True, inline="always")
def bid_step_nb(seats, trace, p, dealer, turn, seat, legal, high, bidder, dd):
    """E-3: a pass or a bid (``turn``: the calls before it, kept in ``seats.calls``); a
    ``search`` seat's by rollout (kernels.search.euchre)."""
    call = scripted_nb(seats, seat, LIST_CALLS)
    if call == BY_POLICY:
        if dd is not None and searches_calls_nb(seats.pol[seat], seats.prm[seat]):
            call = search_euchre_bid_nb(dd[0], seats, seat, seats.hands[:4], legal, high, bidder, turn, dealer,
                                        bid_gain_nb(p), p.tricks, p.ask_cards, p.double_deck, p.joker,
                                        p.stick_the_dealer)
        elif dd is not None and calls_by_worlds_nb(seats.pol[seat], seats.prm[seat]):
            call = pimc_euchre_bid_nb(dd[0], seats, seat, seats.hands[:4], legal, high, bidder, turn, dealer,
                                      bid_gain_nb(p), p.tricks, p.ask_cards, p.double_deck, p.joker,
                                      p.stick_the_dealer)
        else:
            call = choose_euchre_bid_nb(seats.pol[seat], seats.prm[seat], seats.hands[seat], legal, high, bidder, seat,
                                        p.tricks, 1 + p.double_deck, seats.rng)
    return record_nb(seats, trace, KIND_CALL, seat, call, legal)


@njit(cache=True, inline="always")
def trump_step_nb(seats, trace, p, dealer, seat, bid, dd):
    """E-3: the bidder names trump (a suit)."""
    trump = scripted_nb(seats, seat, LIST_TRUMP)
    if trump == BY_POLICY:
        if dd is not None and searches_calls_nb(seats.pol[seat], seats.prm[seat]):
            trump = search_euchre_trump_nb(dd[0], seats, seat, seats.hands[:4], bid, dealer, bid_gain_nb(p), p.tricks,
                                           p.ask_cards, p.double_deck, p.joker, p.stick_the_dealer)
        elif dd is not None and calls_by_worlds_nb(seats.pol[seat], seats.prm[seat]):
            trump = pimc_euchre_trump_nb(dd[0], seats, seat, seats.hands[:4], bid, dealer, bid_gain_nb(p), p.tricks,
                                         p.ask_cards, p.double_deck, p.joker, p.stick_the_dealer)
        else:
            trump = choose_euchre_trump_nb(seats.pol[seat], seats.prm[seat], seats.hands[seat], 1 + p.double_deck,
                                           seats.rng)
    return record_nb(seats, trace, KIND_TRUMP, seat, trump, ALL_SUITS)


@njit(cache=True, inline="always")
def give_step_nb(seats, trace, seat, legal, trump, planned):
    """E-4: a card the asking bidder gives partner: the next of a set ``planned`` by search
    (empty: none planned), or the policy's."""
    card = scripted_nb(seats, seat, LIST_GIVE)
    if card == BY_POLICY:
        if planned & legal:
            card = lowest_nb(planned & legal)
        else:
            card = choose_euchre_give_nb(seats.pol[seat], seats.prm[seat], legal, trump, seats.rng)
    return record_nb(seats, trace, KIND_GIVE, seat, pick_copy_nb(legal, card), legal)


@njit(cache=True, inline="always")
def return_step_nb(seats, trace, seat, legal, trump, scripted, planned):
    """E-4: a return of partner's choice (``scripted``: the replayed one, or BY_POLICY): the
    next of a set ``planned`` by search (empty: none planned), or the policy's."""
    card = scripted
    if card == BY_POLICY:
        if planned & legal:
            card = lowest_nb(planned & legal)
        else:
            card = choose_euchre_return_nb(seats.pol[seat], seats.prm[seat], legal, trump, seats.rng)
    return record_nb(seats, trace, KIND_RETURN, seat, pick_copy_nb(legal, card), legal)


@njit(cache=True, inline="always")
def card_step_nb(seats, trace, seat, legal, lead, best, best_seat, trump, bidder, played, p, out_seat,
                 leader, in_trick, dd):
    """E-6: a card to play: the copy held, -1 when not held. A replayed card outside
    ``legal`` but in hand is an E-8 renege: it stands, and is traced as played. A ``dd``
    seat sees every hand (the trick led by ``leader``, ``in_trick`` cards so far) and
    searches in the context ``dd`` (None when no seat searches); a ``pimc`` seat samples
    what it cannot see (kernels.pimc), and learns what each card shows."""
    hand = seats.hands[seat]
    card = scripted_nb(seats, seat, LIST_PLAY)
    if card == BY_POLICY:
        if dd is not None and seats.pol[seat] == POLICY_DD:
            card = euchre_dd_card_nb(dd[0], seats.hands[:4], seat, trump, out_seat, p.double_deck, p.joker, leader,
                                     in_trick, lead, best, best_seat)
        elif dd is not None and plays_by_worlds_nb(seats.pol[seat], seats.prm[seat]):
            card = pimc_euchre_card_nb(dd[0], seats, seat, seats.hands[:4], legal, trump, out_seat, p.double_deck,
                                       p.joker, leader, in_trick, lead, best, best_seat, played)
        else:
            card = choose_euchre_card_nb(seats.pol[seat], seats.prm[seat], hand, legal, lead, best, best_seat,
                                         seat, trump, bidder, played, seats.rng)
    held = pick_copy_nb(legal, card)
    if held < 0:
        held = pick_copy_nb(hand, card)
    if dd is not None and held >= 0:
        observe_euchre_card_nb(seats, seat, held, lead, trump)
    if trace is not None and held >= 0 and trace.shape[0] > 0:
        trace_row_nb(seats, trace, KIND_PLAY, seat, held, legal)
    return held


# --- The phases of a hand ------------------------------------------------------------------------

@njit(cache=True)
def ace_no_face_nb(hands):
    """E-10 ace-no-face: a hand dealt with an ace and no J, Q or K voids the deal."""
    for s in range(4):
        if hands[s] & EUCHRE_ACES and (hands[s] & EUCHRE_FACES) == ZERO:
            return True
    return False


@njit(cache=True)
def auction_nb(p, dealer, hands, seats, trace, row, dd):
    """E-3: one round from the dealer's left, the dealer last; the high bid and bidder go
    to ``row`` (bid -1: all passed), the calls to ``seats.calls``. False when a replayed
    call is illegal."""
    high, bidder = NONE, NONE
    for turn in range(4):
        seat = (dealer + 1 + turn) % 4
        legal = euchre_legal_bids_nb(p.tricks, high, turn, p.stick_the_dealer)
        if turn == 3 and high < 0 and p.stick_the_dealer:
            row.activity |= activity.STICK_THE_DEALER
        call = bid_step_nb(seats, trace, p, dealer, turn, seat, legal, high, bidder, dd)
        if not legal_nb(call, legal):
            return stop_nb(row, ERR_AUCTION, AT_CALLS, turn)
        seats.calls[turn] = call
        if call != EUCHRE_PASS:
            high, bidder = call, seat
    if left_over_nb(seats, LIST_CALLS):
        return stop_nb(row, ERR_AUCTION, AT_CALLS, 4)
    row.bid = high
    row.bidder = bidder
    note_euchre_auction_nb(seats, dealer, p.tricks, p.stick_the_dealer, bidder, high)
    return True


@njit(cache=True)
def scripted_return_nb(seats, forced, i):
    """E-4: a replayed partner's returns, each forced trump taken once: the ``i``-th return
    that is not forced (NO_ACTION when there are fewer), and the forced trumps not
    returned."""
    rest = forced
    choice = NO_ACTION
    for j in range(min(seats.script_len[LIST_RETURN], MAX_SCRIPT)):
        action = np.int64(seats.script[LIST_RETURN, j])
        card = pick_copy_nb(rest, action)
        if card >= 0:
            rest &= ~bit_nb(card)
        else:
            if i == 0:
                choice = action
            i -= 1
    return choice, rest


@njit(cache=True)
def ask_exchange_nb(p, hands, bidder, trump, seats, trace, row, dealer, dd):
    """E-4: after a 6A (12A) the bidder gives partner ``ask_cards`` cards of its choice and
    gets back as many: partner's highest trumps first, the rest partner's choice of
    non-trumps (from the hand it held before the exchange). A ``search`` seat plans its
    set of either side at once (kernels.search.euchre), in the search context ``dd``."""
    k = p.ask_cards
    partner = (bidder + 2) % 4
    before = hands[partner]
    forced = highest_trumps_nb(before, trump, k)
    if seats.replaying != 0 and (seats.script_len[LIST_GIVE] != k or seats.script_len[LIST_RETURN] != k):
        return stop_nb(row, ERR_EXCHANGE, AT_EXCHANGE, 0)
    planned = ZERO
    if dd is not None and searches_exchange_nb(seats.pol[bidder], seats.prm[bidder]):
        planned = search_euchre_give_nb(dd[0], seats, bidder, hands, row.bid, trump, dealer, bid_gain_nb(p), p.tricks,
                                        k, p.double_deck, p.joker, p.stick_the_dealer)
    given = ZERO
    for _ in range(k):
        legal = hands[bidder] & ~given
        card = give_step_nb(seats, trace, bidder, legal, trump, planned)
        if card < 0:
            return stop_nb(row, ERR_EXCHANGE, AT_EXCHANGE, 0)
        given |= bit_nb(card)
    # A replayed partner's returns must hold every forced trump; the rest are its choices.
    scripted = seats.pol[partner] == POLICY_SCRIPT
    if scripted and (seats.script_len[LIST_RETURN] != k or scripted_return_nb(seats, forced, 0)[1] != ZERO):
        return stop_nb(row, ERR_EXCHANGE, AT_EXCHANGE, 0)
    returned = forced
    planned = ZERO
    if dd is not None and searches_exchange_nb(seats.pol[partner], seats.prm[partner]):
        planned = search_euchre_returns_nb(dd[0], seats, partner, hands, bidder, row.bid, trump, dealer,
                                           bid_gain_nb(p), p.tricks, k, p.double_deck, p.joker, p.stick_the_dealer)
    for i in range(k - popcount_nb(forced)):
        legal = before & ~returned & ~EUCHRE_SUIT_OF[trump, trump]
        choice = scripted_return_nb(seats, forced, i)[0] if scripted else BY_POLICY
        card = return_step_nb(seats, trace, partner, legal, trump, choice, planned)
        if card < 0:
            return stop_nb(row, ERR_EXCHANGE, AT_EXCHANGE, 0)
        returned |= bit_nb(card)
    hands[bidder] = (hands[bidder] & ~given) | returned
    hands[partner] = (hands[partner] & ~returned) | given
    note_ask_exchange_nb(seats, bidder, given, returned, trump)
    return True


@njit(cache=True)
def play_tricks_nb(p, hands, bidder, trump, out_seat, seats, trace, reneges, row, dd, dd_out):
    """E-6: the bidder leads; ``out_seat`` (partner of a 6A or 6M bidder, else -1) plays no
    cards. E-8: a replayed card that breaks the follow rule stands as a renege (its play
    index and seat go to ``reneges``) and costs its team ``renege_penalty``. With a
    double-dummy row (``dd_out``, kernels.dd_run), the bidding team's double-dummy tricks
    and each seat's tricks lost against double dummy go to it."""
    played = ZERO
    tricks0 = penalty0 = penalty1 = n_reneges = n_played = NOUGHT
    leader = bidder
    dd_on = dd is not None and dd_out.shape[0] > 0
    value = NOUGHT
    if dd_on:
        value = euchre_play_start_nb(dd, dd_out[0], hands, trump, out_seat, p.double_deck, p.joker, bidder,
                                     euchre_need_nb(row.bid, p.tricks))
    for _ in range(p.tricks):
        lead, best, best_seat = NONE, NONE, NONE
        seat = leader
        in_trick = NOUGHT
        for _turn in range(4):
            if seat == out_seat:
                seat = (seat + 1) % 4
                continue
            hand = hands[seat]
            legal = euchre_follow_legal_nb(hand, lead, trump)
            card = card_step_nb(seats, trace, seat, legal, lead, best, best_seat, trump, bidder, played, p,
                                out_seat, leader, in_trick, dd)
            in_trick += 1
            if card < 0:
                return stop_nb(row, ERR_PLAY, AT_PLAY, n_played)
            if not legal_nb(card, legal):
                if reneges is not None and n_reneges < reneges.shape[0]:
                    reneges[n_reneges, 0] = n_played
                    reneges[n_reneges, 1] = seat
                n_reneges += 1
                if seat % 2 == 0:
                    penalty0 += p.renege_penalty
                else:
                    penalty1 += p.renege_penalty
            hands[seat] &= ~bit_nb(card)
            played |= bit_nb(card)
            n_played += 1
            if lead < 0:
                lead, best, best_seat = card, card, seat
            elif euchre_beats_nb(card, best, trump):
                best, best_seat = card, seat
            if dd_on:
                value = euchre_card_lost_nb(dd, hands, trump, out_seat, p.double_deck, p.joker, seat, value, leader,
                                            in_trick, lead, best, best_seat)
            seat = (seat + 1) % 4
        tricks0 += best_seat % 2 == 0
        leader = best_seat
    if left_over_nb(seats, LIST_PLAY):
        return stop_nb(row, ERR_PLAY, AT_PLAY, n_played)
    if dd_on:
        euchre_play_end_nb(dd_out[0], dd, out_seat)
    # E-7 scores, then E-8 penalties.
    row.tricks0 = tricks0
    row.tricks1 = p.tricks - tricks0
    team = bidder % 2
    gain, defenders = score_hand_nb(p, row.bid, tricks0 if team == 0 else p.tricks - tricks0)
    row.score0 = (gain if team == 0 else defenders) - penalty0
    row.score1 = (defenders if team == 0 else gain) - penalty1
    row.reneges = n_reneges
    return True


@njit(cache=True)
def play_deal_nb(kr, dealer, hands, reneges, seats, trace, row, dd, dd_out):
    """``play_hand_nb`` under the rules ``kr`` from dealt ``hands`` (uint64[4], updated): the
    deal kernel replays call, as in the other games. ``dd_out`` goes on as a run passes it
    (``dd_out_nb``), so that a replay with search seats and no ``reneges`` kept shares the
    run's compiled hand kernel."""
    seats.hands[:4] = hands
    play_hand_nb(kr.params[0], dealer, reneges, seats, trace, row, dd, dd_out_nb(dd, dd_out, 0, dd_out))
    hands[:] = seats.hands[:4]


@njit(cache=True)
def play_hand_nb(p, dealer, reneges, seats, trace, row, dd, dd_out):
    """Play one Bid Euchre hand from the hands dealt into ``seats.hands`` (four, updated) under
    the rule parameters ``p``, writing its outcome, or why a replay stopped, into the deal record
    ``row``; each E-8 renege of a replay goes to ``reneges`` (play index, seat; None: not
    kept); ``dd`` is the search context (a 1-record array, kernels.dd) of a seat playing
    double dummy and of a --dd run, whose double-dummy row is ``dd_out`` (none: not a --dd
    run). Games pass the parameters record, not the rules tuple, whose arrays numba would
    count at every hand."""
    hands = seats.hands[:4]
    start_deal_nb(row)
    if dd is not None and dd_out.shape[0] > 0:
        start_euchre_row_nb(dd_out[0])
    new_deal_nb(seats)
    replaying = seats.replaying != 0
    if p.ace_no_face and ace_no_face_nb(hands):
        row.void = VOID_ACE_NO_FACE  # a replay must hold nothing more (checked by the caller)
        return
    if p.joker:  # E-10 joker: the dealer discards one card before the auction
        if seats.pol[dealer] == POLICY_SCRIPT and seats.script_len[LIST_DISCARD] != 1:
            stop_nb(row, ERR_DISCARD, AT_DISCARDS, dealer)
            return
        card = discard_step_nb(seats, trace, dealer, hands[dealer], 1 + p.double_deck)
        if card < 0:
            stop_nb(row, ERR_DISCARD, AT_DISCARDS, dealer)
            return
        hands[dealer] &= ~bit_nb(card)
        note_joker_discard_nb(seats, dealer, card)
    elif replaying and seats.script_len[LIST_DISCARD] > 0:
        stop_nb(row, ERR_DISCARD, AT_DISCARDS, dealer)
        return
    if not auction_nb(p, dealer, hands, seats, trace, row, dd):
        return
    if row.bid < 0:
        row.void = VOID_ALL_PASS
        if replaying:
            if seats.script_len[LIST_TRUMP]:
                stop_nb(row, ERR_AUCTION, AT_TRUMP, 0)
            elif seats.script_len[LIST_GIVE] or seats.script_len[LIST_RETURN]:
                stop_nb(row, ERR_AUCTION, AT_EXCHANGE, 0)
            elif seats.script_len[LIST_PLAY]:
                stop_nb(row, ERR_AUCTION, AT_PLAY, 0)
        return
    bidder = np.int64(row.bidder)  # as int64: the seats of play start from it (NONE, kernels.cards)
    if seats.pol[bidder] == POLICY_SCRIPT and seats.script_len[LIST_TRUMP] != 1:
        stop_nb(row, ERR_AUCTION, AT_TRUMP, 0)
        return
    trump = trump_step_nb(seats, trace, p, dealer, bidder, row.bid, dd)
    if not legal_nb(trump, ALL_SUITS):
        stop_nb(row, ERR_AUCTION, AT_TRUMP, 0)
        return
    row.trump = trump
    kind = euchre_bid_kind_nb(row.bid, p.tricks)
    if kind == ASKING:  # E-4 / E-5
        if not ask_exchange_nb(p, hands, bidder, trump, seats, trace, row, dealer, dd):
            return
    elif replaying and (seats.script_len[LIST_GIVE] or seats.script_len[LIST_RETURN]):
        stop_nb(row, ERR_EXCHANGE, AT_EXCHANGE, 0)
        return
    out_seat = -1 if kind == WITH_PARTNER else (bidder + 2) % 4
    play_tricks_nb(p, hands, bidder, trump, out_seat, seats, trace, reneges, row,
                   dd, dd_out)


# --- One game ------------------------------------------------------------------------------

@njit(cache=True)
def deal_cards_nb(deal_rng, plan, deck, per_seat, dealer, hands, order):
    """E-1: shuffle and deal one card at a time from the dealer's left; with E-10's joker
    the dealer is dealt one card more. Returns the tries it took (kernels.dealing)."""
    if plan.conditioned:
        return conditioned_order_nb(deal_rng, plan, deck, order, hands, (dealer + 1) % 4, 4, 4 * per_seat, dealer, -1)
    n_deck = deck.shape[0]
    order[:n_deck] = deck
    shuffle_nb(deal_rng, order[:n_deck])
    hands[:] = ZERO
    for k in range(4 * per_seat):
        hands[(dealer + 1 + k) % 4] |= bit_nb(order[k])
    if n_deck > 4 * per_seat:
        hands[dealer] |= bit_nb(order[4 * per_seat])
    return 1


@njit(cache=True)
def play_game_nb(kr, seed, game_index, seats_row, trace, deal_rows, spare, game_out, headers, outcomes, hcur,
                 dd_row, dd_rows, dd_spare):
    """E-9 with C-6: one game to ``game.target``, a pure function of (seed, game index);
    ``dd_rows`` the hands' double-dummy rows (empty: none computed), ``dd_spare`` their spare."""
    p = kr.params[0]
    seats = seats_row[0]
    deal_rng = start_game_nb(seed, game_index, seats)
    hands, order, deck = seats.hands[:4], seats.order, kr.deck
    plan = kr.plan[0]
    first_dealer = first_dealer_nb(plan, below_nb(deal_rng, 4), game_index, 4)
    dealer = first_dealer
    deals = total0 = total1 = 0
    abandoned = False
    winner = -1
    while True:
        tries = deal_cards_nb(deal_rng, plan, deck, p.tricks, dealer, hands, order)
        h = open_header_nb(headers, hcur, seats, game_index, deals, dealer)
        header_cards_nb(headers, h, hands, order[:0])
        row = deal_row_nb(deal_rows, deals, spare)
        play_hand_nb(p, dealer, None, seats, trace, row, dd_row, dd_out_nb(dd_row, dd_rows, deals, dd_spare))
        row.game, row.deal, row.dealer, row.tries = game_index, deals, dealer, tries
        row.unexplained = unexplained_nb(seats)
        close_header_nb(headers, outcomes, h, seats, row, True)
        total0 += row.score0
        total1 += row.score1
        deals += 1
        dealer = (dealer + 1) % 4  # C-6: the deal passes to the left after every hand
        if plan.one_deal:  # a deal run's hand: the team that scored more wins it (equal: neither)
            winner = -1 if total0 == total1 else (0 if total0 > total1 else 1)
            break
        # E-9: the first team to reach the target; both at once: the higher total.
        reached0, reached1 = total0 >= p.target, total1 >= p.target
        if (reached0 or reached1) and not (reached0 and reached1 and total0 == total1):
            winner = 0 if (reached0 and (not reached1 or total0 > total1)) else 1
            break
        if deals >= p.max_hands:
            abandoned = True
            break
    game_row = game_out[0]
    game_row.game = game_index
    game_row.first_dealer = first_dealer
    game_row.deals = deals
    game_row.total0 = total0
    game_row.total1 = total1
    game_row.winner = winner
    game_row.abandoned = abandoned
