"""Double-dummy columns of ``--dd`` runs (docs/dd.md): what perfect play with every hand seen
makes of each deal, computed inside the deal kernels while the deal is played.

A --dd run gives every deal row a row of its own in a parallel record array (``DD_CONTRACT_DTYPE``
for Bridgette and Draw Bridge, ``DD_EUCHRE_DTYPE`` for Bid Euchre), joined into the deal
records by the game's Python module; other runs pass an empty array and compute nothing.

- At the auction (Bridgette B-5..B-14, Draw Bridge D-3..D-6): the deal's table (the tricks
  each seat takes as declarer in each strain, the opponent leading: ``kernels.dd.
  contract_table_nb``), its par (``par_nb``, a port of ``sim.par``) and, when a contract is
  played, the declarer's tricks in its strain and whether that makes it.
- Along the card play, one value search per card (``kernels.dd``, the context's own table
  serving every position of the deal; in Bid Euchre also later hands of the game under the
  same trump, where the bridge games' tables of the next deal change the strain first):
  the double-dummy value of the position for the side to move. A card's seat *loses* the
  value before its card minus what it got after it (the trick, if its card completed one
  its side won, plus the value after), so the side's tricks taken are its double-dummy
  tricks at the start less what its own cards lost plus what the other side's cards lost.
  A seat that plays double dummy loses 0 with every card.
- A context with ``contract_only`` set (a multilevel ``dd`` level, sim.multilevel) searches
  only the contract reached, one search a deal (``contract_tricks_row_nb``): the other
  columns stay null.
"""

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, N_BIDS, legal_calls_nb
from kernels.cards import NO, NONE, NOUGHT, ZERO, bit_nb, popcount_nb
from kernels.dd import (
    contract_best_nb, contract_rules_nb, contract_table_nb, declarer_tricks_nb, euchre_load_nb, euchre_value_nb,
    TT_BITS, renew_nb, search_table_nb,
)
from kernels.records import record_dtype

NULL = -1  # a value the deal has not got (no contract, a seat that plays no card): null in the records

# Bridgette and Draw Bridge: one row per deal row.
DD_CONTRACT_DTYPE = record_dtype([
    ("dd_tricks", np.int8),  # the declarer's double-dummy tricks in the contract's strain
    ("dd_makeable", np.int8),  # 1 when dd_tricks >= 6 + level
    ("dd_best0", np.int8), ("dd_best1", np.int8),  # a seat's most tricks as declarer in any strain
    ("par_contract", np.int8), ("par_declarer", np.int8), ("par_doubled", np.int8),  # ladder index, -1 pass
    ("par_score0", np.int32), ("par_score1", np.int32),  # each seat's score at par (as score0, score1)
    ("dd_lost0", np.int8), ("dd_lost1", np.int8),  # tricks each seat's cards lost against double dummy
])

# Bid Euchre: one row per hand.
DD_EUCHRE_DTYPE = record_dtype([
    ("dd_tricks", np.int8),  # the bidding team's double-dummy tricks in the trump named
    ("dd_makeable", np.int8),
    ("dd_lost0", np.int8), ("dd_lost1", np.int8), ("dd_lost2", np.int8), ("dd_lost3", np.int8),
])

N_CALLS_TRIED = 3 + N_BIDS  # pass, double, redouble, then the bids from the lowest (sim.par's tie-break order)


@njit(cache=True, inline="always")
def dd_out_nb(dd_row, dd_rows, k, spare):
    """The double-dummy row of a game's deal ``k`` as a 0- or 1-row array: None in a run
    without search code (``dd_row`` None: numba prunes the rest), none when the run computes
    none (``dd_rows`` empty), else its row, or the spare one once the game outruns its room
    (as ``kernels.step.deal_row_nb``)."""
    if dd_row is None:
        return None
    if k < dd_rows.shape[0]:
        return dd_rows[k:k + 1]
    return spare[:min(1, dd_rows.shape[0])]


@njit(cache=True)
def start_contract_row_nb(out):
    """A deal's double-dummy row before its auction ends: every value null, par a pass."""
    out.dd_tricks = out.dd_makeable = NULL
    out.dd_best0 = out.dd_best1 = NULL
    out.par_contract = out.par_declarer = NULL
    out.par_doubled = 0
    out.par_score0 = out.par_score1 = 0
    out.dd_lost0 = out.dd_lost1 = NULL


@njit(cache=True)
def start_euchre_row_nb(out):
    """A hand's double-dummy row before its play: every value null."""
    out.dd_tricks = out.dd_makeable = NULL
    out.dd_lost0 = out.dd_lost1 = out.dd_lost2 = out.dd_lost3 = NULL


# --- Par (docs/dd.md, sim/par.py) ------------------------------------------------------------

@njit(cache=True)
def par_nb(scores, hands, dealer, lowest, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends,
           out):
    """The par of a deal, as ``sim.par.par`` defines it: C-4's auction on the ladder from
    ``lowest`` with B-6's limits on ``hands`` (those at the start of the auction), solved as a
    zero-sum game of perfect information, each player maximising its own score minus the
    other's. ``scores[bid, declarer, doubled, seat]`` is each seat's score of every contract
    (the declarer taking the table's tricks). ``out`` gets (contract, declarer, doubled,
    score0, score1) of the principal line: contract -1 when it passes the deal out.

    Backward induction over the auction states (bid, bidder, doubled), the highest bid
    first (a call only ever leads to a higher bid or a higher doubling of the same bid),
    then the state after an opening pass and the opening one. A mover tries its calls in
    sim.par's order (pass, double, redouble, bids from the lowest) and keeps the first best.
    """
    # val[...]: seat 0's score minus seat 1's under best play from the state; call[...]: the mover's call.
    val = np.zeros((N_BIDS, 2, 3), dtype=np.int64)
    call = np.zeros((N_BIDS, 2, 3), dtype=np.int64)
    for bid in range(N_BIDS - 1, lowest - 1, -1):
        for bidder in range(2):
            for doubled in range(2, -1, -1):
                mover = bidder if doubled == 1 else 1 - bidder
                v, c = _par_choice_nb(scores, val, hands[mover], mover, bid, bidder, doubled, lowest,
                                      min_trump_cards, nt_needs_all_suits, jump_min_cards, NO, NOUGHT)
                val[bid, bidder, doubled], call[bid, bidder, doubled] = v, c
    # After an opening pass (only when it does not end the auction) the non-dealer calls; a pass ends it.
    after_v, after_c = _par_choice_nb(scores, val, hands[1 - dealer], 1 - dealer, NONE, NONE, NOUGHT, lowest,
                                      min_trump_cards, nt_needs_all_suits, jump_min_cards, NO, NOUGHT)
    open_v, open_c = _par_choice_nb(scores, val, hands[dealer], dealer, NONE, NONE, NOUGHT, lowest, min_trump_cards,
                                    nt_needs_all_suits, jump_min_cards, not opening_pass_ends, after_v)
    # The principal line, from the opening call to the pass that ends the auction.
    c = open_c
    bid, bidder, doubled = NONE, NONE, NOUGHT
    if c == CALL_PASS and not opening_pass_ends:
        c = after_c
        mover = 1 - dealer
    else:
        mover = dealer
    while c != CALL_PASS:
        if c == CALL_DOUBLE:
            doubled = 1
        elif c == CALL_REDOUBLE:
            doubled = 2
        else:
            bid, bidder, doubled = c, mover, 0
        mover = bidder if doubled == 1 else 1 - bidder
        c = call[bid, bidder, doubled]
    out[0], out[1], out[2] = bid, bidder, doubled
    if bid < 0:
        out[3], out[4] = 0, 0
    else:
        out[3], out[4] = scores[bid, bidder, doubled, 0], scores[bid, bidder, doubled, 1]


@njit(cache=True)
def _par_choice_nb(scores, val, hand, mover, bid, bidder, doubled, lowest, min_trump_cards, nt_needs_all_suits,
                   jump_min_cards, pass_continues, after_pass):
    """The mover's best call at a state and its value (seat 0 minus seat 1): the first of the
    best in sim.par's order. A pass ends the auction (the contract, or a passed-out deal
    scoring 0), unless ``pass_continues`` (an opening pass under "continues": the state after
    it is worth ``after_pass``)."""
    legal = legal_calls_nb(hand, mover, bid, bidder, doubled, lowest, min_trump_cards, nt_needs_all_suits,
                           jump_min_cards)
    sign = 1 if mover == 0 else -1
    best, best_call = 0, -1
    for k in range(N_CALLS_TRIED):
        c = CALL_PASS + k if k < 3 else k - 3
        if legal & bit_nb(c) == ZERO:
            continue
        if c == CALL_PASS:
            if pass_continues:
                v = after_pass
            elif bid < 0:
                v = 0
            else:
                v = scores[bid, bidder, doubled, 0] - scores[bid, bidder, doubled, 1]
        elif c == CALL_DOUBLE:
            v = val[bid, bidder, 1]
        elif c == CALL_REDOUBLE:
            v = val[bid, bidder, 2]
        else:
            v = val[c, mover, 0]
        if best_call < 0 or sign * v > sign * best:
            best, best_call = v, c
    return best, best_call


# --- Bridgette and Draw Bridge ---------------------------------------------------------------

@njit(cache=True, inline="always")
def _contract_deal_nb(dd, hands, when_void):
    """The context on a contract deal's two ``hands`` at the start of play (B-10's rule
    ``when_void``)."""
    ctx = dd[0]
    ctx.hands[0], ctx.hands[1] = hands[0], hands[1]
    ctx.hands[2], ctx.hands[3] = ZERO, ZERO
    ctx.when_void = when_void
    return ctx


@njit(cache=True, inline="always")
def _run_table_nb(ctx):
    """The part of the context's table that a --dd run's contract searches use (the size of
    a Solver's, ``TT_BITS``): its whole tables and the values along the play ran 1.1x
    faster in it than in all of it (docs/dd.md, "Speed")."""
    return ctx.tt[:1 << TT_BITS]


@njit(cache=True)
def contract_table_at_nb(dd, hands, when_void, table):
    """B-7, D-4: the deal's table (``table[strain, declarer]``, the opponent leading) from the
    hands at the start of the auction, which are those of the start of play."""
    ctx = _contract_deal_nb(dd, hands, when_void)
    contract_table_nb(_run_table_nb(ctx), dd, table)


@njit(cache=True)
def contract_tricks_row_nb(dd, hands, when_void, out, contract, declarer):
    """B-7, D-4 in a ``contract_only`` run, at the end of the auction: for a played
    ``contract`` (-1: passed out) the declarer's tricks in its strain and whether they make
    its level: the one entry of the deal's table (``contract_auction_row_nb``) that it
    reads, one search where the table takes ten and the card play one a card."""
    if contract < 0:
        return
    ctx = _contract_deal_nb(dd, hands, when_void)
    tricks = declarer_tricks_nb(_run_table_nb(ctx), ctx, BID_STRAIN[contract], declarer, NONE)
    out.dd_tricks = tricks
    out.dd_makeable = tricks >= 6 + BID_LEVEL[contract]


@njit(cache=True)
def contract_auction_row_nb(out, table, scores, hands, dealer, contract, declarer, strain, level, lowest,
                            min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends):
    """Fill a deal's double-dummy row at the end of the auction from its ``table`` and the
    ``scores`` of every contract (``par_nb``): the best strain's tricks per seat, the par, and
    for a played ``contract`` (-1: passed out) the declarer's tricks in its ``strain`` and
    whether they make ``level``."""
    out.dd_best0 = table[:, 0].max()
    out.dd_best1 = table[:, 1].max()
    par = np.zeros(5, dtype=np.int64)
    par_nb(scores, hands, dealer, lowest, min_trump_cards, nt_needs_all_suits, jump_min_cards, opening_pass_ends,
           par)
    out.par_contract, out.par_declarer, out.par_doubled = par[0], par[1], par[2]
    out.par_score0, out.par_score1 = par[3], par[4]
    if contract >= 0:
        out.dd_tricks = table[strain, declarer]
        out.dd_makeable = table[strain, declarer] >= 6 + level


@njit(cache=True)
def contract_play_start_nb(dd, hands, trump, when_void):
    """Before the first card of the contract play: the context on this deal, its table's
    entries kept if they were searched in this strain (``kernels.dd.renew_nb``); they then
    serve every position of the play."""
    ctx = dd[0]
    ctx.hands[0], ctx.hands[1] = hands[0], hands[1]
    ctx.trump = trump
    ctx.when_void = when_void
    ctx.lost[:] = 0
    renew_nb(ctx, contract_rules_nb(trump, when_void))


@njit(cache=True)
def contract_card_lost_nb(dd, hands, seat, value, won, nxt, lead, barred):
    """After ``seat``'s card, which had ``value`` (its tricks from the position before the
    card, the trick in progress counted): the position's value for ``nxt``, the seat to play
    next (following ``lead``, or leading barred from ``barred``, B-8), searched in the
    context; the context's ``lost[seat]`` grows by what the card cost (``won``: it
    completed a trick its seat won)."""
    ctx = dd[0]
    left = popcount_nb(hands[nxt])
    after = 0
    if left:
        ctx.hands[0], ctx.hands[1] = hands[0], hands[1]
        after = contract_best_nb(_run_table_nb(ctx), ctx, nxt if lead < 0 else 1 - nxt, lead, barred, nxt,
                                 NOUGHT)
    ctx.lost[seat] += value - won - (after if nxt == seat else left - after)
    return after


@njit(cache=True)
def contract_play_end_nb(out, dd):
    out.dd_lost0 = dd[0].lost[0]
    out.dd_lost1 = dd[0].lost[1]


# --- Bid Euchre ----------------------------------------------------------------------------------

@njit(cache=True)
def euchre_play_start_nb(dd, out, hands, trump, out_seat, double_deck, joker, bidder, need):
    """Before the first card (E-6): the context's solver layout for this trump (E-2) and the
    seat sitting out, its table's entries kept if they were searched under the same
    (``kernels.dd.renew_nb``); the bidding team's tricks (the bidder leading) and whether
    they reach ``need`` go to the hand's row. Returns them: the value of the first position
    for the bidder's team."""
    dd[0].lost[:] = 0
    value = euchre_position_value_nb(dd, hands, trump, out_seat, double_deck, joker, bidder, NOUGHT, NONE, NONE, NONE,
                                     bidder)
    out.dd_tricks = value
    out.dd_makeable = value >= need
    return value


@njit(cache=True)
def euchre_position_value_nb(dd, hands, trump, out_seat, double_deck, joker, leader, played, lead, best, best_seat,
                             to_play):
    """E-6: the tricks the team of ``to_play`` takes from here, the trick in progress (led by
    ``leader``, ``played`` cards, ``best`` by ``best_seat`` winning it; kernel card ids)
    counted."""
    ctx = dd[0]
    to_layout = euchre_load_nb(ctx, hands, trump, out_seat, double_deck, joker)
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    return euchre_value_nb(search_table_nb(ctx, True), ctx, leader, played, best_b, best_seat, lead_b, to_play,
                           to_play % 2, 0)


@njit(cache=True)
def euchre_card_lost_nb(dd, hands, trump, out_seat, double_deck, joker, seat, value, leader, in_trick, lead, best,
                        best_seat):
    """After ``seat``'s card (the ``in_trick``-th of the trick led by ``leader``; ``best`` by
    ``best_seat`` now winning it), which had ``value`` for its team: the value of the new
    position for the team of the seat to play next, and the context's ``lost[seat]`` grows
    by what the card cost its team (the trick, if it completed one its team won, counts as got)."""
    if in_trick == (4 if out_seat < 0 else 3):
        nxt, won = best_seat, int(best_seat % 2 == seat % 2)
        nl, np_, nlead, nbest, nbs = best_seat, 0, -1, -1, -1
    else:
        nxt = (seat + 1) % 4
        if nxt == out_seat:
            nxt = (nxt + 1) % 4
        won = 0
        nl, np_, nlead, nbest, nbs = leader, in_trick, lead, best, best_seat
    left = popcount_nb(hands[nxt])
    after = 0
    if left:
        after = euchre_position_value_nb(dd, hands, trump, out_seat, double_deck, joker, nl, np_, nlead, nbest, nbs,
                                         nxt)
    dd[0].lost[seat] += value - won - (after if nxt % 2 == seat % 2 else left - after)
    return after


@njit(cache=True)
def euchre_play_end_nb(out, dd, out_seat):
    """Each seat's tricks lost; null for a seat that sits out (E-6)."""
    lost = dd[0].lost
    out.dd_lost0 = lost[0] if out_seat != 0 else NULL
    out.dd_lost1 = lost[1] if out_seat != 1 else NULL
    out.dd_lost2 = lost[2] if out_seat != 2 else NULL
    out.dd_lost3 = lost[3] if out_seat != 3 else NULL
