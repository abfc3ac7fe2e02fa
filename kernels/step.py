"""One decision step, one deal record and one trace for every game.

Each decision goes through its game's step function (one per kind: discard, call, card,
...): a scripted seat reads the next action of its replay list, any other seat asks its
policy, and a legal action is appended to the trace. The deal kernels check legality and
write outcomes, and why a replayed deal stopped, straight into the deal record (its fields
``error``, ``error_at``, ``error_index``).
"""

import numpy as np
from numba import config, njit, types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from kernels.calls import MAX_CALLS
from kernels.cards import ZERO, bit_nb
from kernels.policies import ODDS_WIDTH, POLICY_PARAMS
from kernels.records import record_dtype
from kernels.rng import game_streams_nb

POLICY_SCRIPT = -1  # replay: the seat's actions come from a recorded deal, not a policy
BY_POLICY = -4  # what a policy seat reads from the script: nothing
NO_ACTION = -3  # past the end of a replayed list

TRACE_WIDTH = 4  # a trace row: (kind, seat, action, legal set)

def no_trace_nb(dd):
    """The trace of a run that does not trace, by its search context ``dd``.

    A plain run (``dd`` None, kernels.engine) gets None: numba prunes every ``trace is not
    None`` branch, so its deal kernels hold no trace code and no step counts references to
    a trace. A run with search code gets an array of no rows with no memory behind it (each
    step calls numba's counting functions, which find nothing to count), so that it shares
    its compiled kernels with the traces: search code takes minutes to compile.

    In the kernels the choice is made by type when numba compiles the caller (the overload
    below); this Python body is what runs with NUMBA_DISABLE_JIT=1."""
    return None if dd is None else np.zeros((0, TRACE_WIDTH), dtype=np.int64)


if not config.DISABLE_JIT:
    @intrinsic
    def _empty_trace(typingctx):
        arrty = types.Array(types.int64, 2, "C")

        def codegen(context, builder, signature, args):
            size = lambda v: context.get_constant(types.intp, v)
            ary = context.make_array(arrty)(context, builder)
            populate_array(ary, data=context.get_constant_null(types.CPointer(types.int64)),
                           shape=[size(0), size(TRACE_WIDTH)], strides=[size(8 * TRACE_WIDTH), size(8)],
                           itemsize=size(8), meminfo=None)
            return ary._getvalue()

        return arrty(), codegen

    @overload(no_trace_nb, inline="always")
    def _no_trace_by_type(dd):
        if isinstance(dd, types.NoneType):
            return lambda dd: None
        return lambda dd: _empty_trace()


MAX_SEATS = 4
MAX_LISTS = 6
MAX_SCRIPT = 128  # replayed actions kept per list: more than any legal deal holds
MAX_KEPT, KEPT_HOLDERS = 64, 3  # a pimc seat's worlds kept from its last card (kernels.pimc)

# Who decides at each seat, and the replay and trace cursors: one record per game, read
# by the step functions beside the trace rows (``trace``; no rows: not tracing). A record
# passes between kernels as a pointer, without the reference counting of arrays.
SEATS_DTYPE = record_dtype([
    ("pol", np.int64, (MAX_SEATS,)),  # policy id per seat; POLICY_SCRIPT: replayed
    ("prm", POLICY_PARAMS, (MAX_SEATS,)),  # policy parameters per seat (kernels.policies)
    ("rng", np.uint64, (1,)),  # the policy stream
    # Replay lists, read in order through ``cursor[lst]``, which counts every action of the
    # list, replayed or chosen, so seats can be scripted one by one; ``script_len`` is a
    # list's full length (a list longer than MAX_SCRIPT is illegal before its end).
    ("script", np.int16, (MAX_LISTS, MAX_SCRIPT)),
    ("script_len", np.int64, (MAX_LISTS,)),
    ("cursor", np.int64, (MAX_LISTS,)),
    ("tcur", np.int64),  # trace rows written (counted past the end of ``trace``)
    # Every seat replays: a recorded deal replayed whole, whose lists must then hold
    # exactly the deal's actions (seats_for sets it).
    ("replaying", np.int8),
    # What each seat knows of the cards it cannot see, for the seats that sample them
    # (kernels.pimc); reset by ``new_deal_nb``. ``may_hold[s, t]``: the cards seat ``s``
    # knows seat ``t`` may still hold (voids and B-8..B-10 shown in play, E-4's forced
    # returns); ``aside[s]``: cards ``s`` has seen leave the play unplayed (the E-10 joker
    # discard, cards given to a partner who sits out); ``facts``: public numbers of the deal
    # (kernels.pimc says which).
    ("may_hold", np.uint64, (MAX_SEATS, MAX_SEATS)),
    ("aside", np.uint64, (MAX_SEATS,)),
    ("facts", np.int64, (4,)),
    # Searched decisions of each seat this deal whose worlds the model could not explain
    # (kernels.search.rollout.note_unexplained_nb): the deal record's ``unexplained``.
    ("unexplained", np.int64, (MAX_SEATS,)),
    # Where the game stands as the deal starts, for searched choices that value winning the
    # game (kernels.policies.OBJECTIVE_GAMES; Bridgette): each seat's total so far and how
    # many deals of the game's regular length remain after this one (0 in a tie-break deal).
    ("totals", np.int64, (2,)),
    # What a ``search`` seat's card play reads of the auction (kernels.pimc): the cards
    # each seat has played this deal, and the auction's length, dealer and rules (the
    # contract games' ``auction_nb``: n_calls, dealer, lowest_bid, min_trump_cards,
    # nt_needs_all_suits, jump_min_cards; Bid Euchre's: n_calls, dealer, tricks,
    # stick_the_dealer, bidder, bid; n_calls 0: no auction yet).
    ("played", np.uint64, (MAX_SEATS,)),
    ("auction", np.int64, (6,)),
    ("deals_left", np.int64),
    # ``known_tricks[s, strain, declarer]``: the declarer's double-dummy tricks in a deal
    # seat ``s`` knows whole (Draw Bridge after D-2), once its calls have solved them; -1
    # not yet (kernels.pimc).
    ("known_tricks", np.int8, (MAX_SEATS, 5, 2)),
    # The worlds a ``pimc`` seat solved at its last card (kernels.pimc.kept_worlds_nb):
    # ``kept[s, w, h]`` holder ``h``'s cards in world ``w``, ``kept_n[s]`` how many (0 at a
    # deal's start), and what the seat knew then: its unseen cards, each holder's count
    # (-1: no such holder) and the cards each holder could take.
    ("kept", np.uint64, (MAX_SEATS, MAX_KEPT, KEPT_HOLDERS)),
    ("kept_n", np.int64, (MAX_SEATS,)),
    ("kept_unseen", np.uint64, (MAX_SEATS,)),
    ("kept_counts", np.int64, (MAX_SEATS, KEPT_HOLDERS)),
    ("kept_allowed", np.uint64, (MAX_SEATS, KEPT_HOLDERS)),
    ("calls", np.int64, (MAX_CALLS,)),  # the auction's calls so far (kernels.contract; Bid Euchre's E-3)
    # ``odds[s, 0 or 1, strain]``: seat ``s``'s memo rows of kernels.policies.trick_odds_nb,
    # for its own tricks and its opponent's (all zero: empty).
    ("odds", np.float64, (MAX_SEATS, 2, 5, ODDS_WIDTH)),
    # The game's working arrays: the hands, the deck order of a shuffle and the deal stream.
    # Numba counts a reference, with an atomic add and subtract, each time a function binds
    # an array argument, unless the array owns no memory, as a record's fields do; even then
    # it calls its counting functions. So the deal kernels play the hands in place here, and
    # the decision steps, called at every action, read them here and bind no array.
    ("hands", np.uint64, (MAX_SEATS,)), ("order", np.int64, (64,)), ("deal_rng", np.uint64, (1,)),
])


@njit(cache=True)
def new_deal_nb(seats):
    """A deal starts: every replay list read from its start, and nothing known of the
    cards a seat cannot see but that they are in the deck."""
    seats.cursor[:] = 0
    seats.may_hold[:, :] = ~ZERO
    seats.aside[:] = ZERO
    seats.facts[:] = 0
    seats.known_tricks[:, :, :] = -1
    seats.kept_n[:] = 0
    seats.unexplained[:] = 0
    seats.played[:] = ZERO
    seats.auction[:] = 0


@njit(cache=True)
def note_unexplained_nb(seats, seat):
    """A searched decision of ``seat`` found no world in which the model makes what the
    other players did: counted for the deal's records (``unexplained``); the decision then
    says what the seat does instead."""
    seats.unexplained[seat] += 1


@njit(cache=True, inline="always")
def unexplained_nb(seats):
    """The deal's searched decisions the model could not explain, every seat's (at most
    127: the record's field)."""
    return min(127, seats.unexplained.sum())


@njit(cache=True, inline="always")
def scripted_nb(seats, seat, lst):
    """The replayed action of a scripted ``seat`` at the next place of list ``lst``
    (NO_ACTION past its end), or BY_POLICY for a seat that chooses; the list advances."""
    i = seats.cursor[lst]
    seats.cursor[lst] = i + 1
    if seats.pol[seat] != POLICY_SCRIPT:
        return BY_POLICY
    if i >= seats.script_len[lst]:
        return NO_ACTION
    return np.int64(seats.script[lst, i])


@njit(cache=True, inline="always")
def legal_nb(action, legal):
    """Is ``action`` (an id, negative when unknown) in the ``legal`` set?"""
    return action >= 0 and (legal & bit_nb(action)) != ZERO


@njit(cache=True)
def trace_row_nb(seats, trace, kind, seat, action, legal):
    """Append an action and its legal set to the trace, if tracing; rows past its end are
    counted so the caller can grow it."""
    if trace.shape[0] > 0:
        i = seats.tcur
        if i < trace.shape[0]:
            trace[i, 0] = kind
            trace[i, 1] = seat
            trace[i, 2] = action
            trace[i, 3] = np.int64(legal)
        seats.tcur = i + 1


@njit(cache=True, inline="always")
def record_nb(seats, trace, kind, seat, action, legal):
    """Trace a legal action with its legal set; returns the action, legal or not. A run
    that does not trace passes an empty trace or, with no search code, None."""
    if trace is not None and trace.shape[0] > 0 and legal_nb(action, legal):
        trace_row_nb(seats, trace, kind, seat, action, legal)
    return action


@njit(cache=True, inline="always")
def left_over_nb(seats, lst):
    """A whole replay holds more actions in list ``lst`` than the deal used."""
    return seats.replaying != 0 and seats.cursor[lst] < seats.script_len[lst]


@njit(cache=True)
def stop_nb(row, err, at, index):
    """Record in the deal record why a replayed deal stopped; returns False."""
    row.error = err
    row.error_at = at
    row.error_index = index
    return False


@njit(cache=True, inline="always")
def deal_row_nb(deal_rows, k, spare):
    """The record of a game's deal ``k``, or the spare row once the game outruns its room:
    the deal is still played and counted in the game row, so the caller can give that
    game more room and play it again (kernels.engine). The one bounds check of all games."""
    return deal_rows[k] if k < deal_rows.shape[0] else spare[0]


@njit(cache=True)
def open_header_nb(headers, hcur, seats, game_index, seq, dealer):
    """Start a traced deal's header (its hands and stock are the game's to fill): the
    header's index, or -1 when not tracing (``headers`` None or empty) or out of room
    (counted so the caller can grow). Runs pass None: numba then compiles no header code
    and counts no references to header arrays at each deal."""
    if headers is None or headers.shape[0] == 0:
        return -1
    h = hcur[0]
    hcur[0] = h + 1
    if h >= headers.shape[0]:
        return -1
    head = headers[h]
    head.game = game_index
    head.seq = seq
    head.dealer = dealer
    head.actions_start = seats.tcur
    return h


@njit(cache=True)
def header_cards_nb(headers, h, hands, stock):
    """A traced deal's cards as dealt: the hands and the stock (-1: not tracing)."""
    if headers is not None and h >= 0:
        head = headers[h]
        head.hands[:] = hands
        head.stock_len = stock.shape[0]
        head.stock[:stock.shape[0]] = stock


@njit(cache=True)
def start_game_nb(seed, game_index, seats):
    """A game's streams (kernels.rng), both kept in ``seats``; returns the deal stream."""
    game_streams_nb(seed, game_index, seats.deal_rng, seats.rng)
    return seats.deal_rng


@njit(cache=True)
def close_header_nb(headers, outcomes, h, seats, row, counted):
    """End a traced deal: its last action and a copy of its outcome."""
    if headers is not None and h >= 0:
        headers[h].actions_end = seats.tcur
        headers[h].counted = counted
        outcomes[h] = row


def header_dtype(hands: int, stock: int) -> np.dtype:
    """A traced deal's header: which deal, the hands and stock as dealt, its trace rows."""
    return record_dtype([
        ("game", np.int64), ("seq", np.int32), ("counted", np.int8), ("dealer", np.int8),
        ("hands", np.uint64, (hands,)), ("stock_len", np.int8), ("stock", np.int8, (max(stock, 1),)),
        ("actions_start", np.int64), ("actions_end", np.int64),
    ])


ERROR_FIELDS = [("error", np.int8), ("error_at", np.int8), ("error_index", np.int16)]


def seats_for(pol, prm=None, lists=()):
    """The seats record (a 1-element array) for a call from Python: policy ids and
    ``POLICY_PARAMS`` records per seat (None: all zero, as scripted seats need), and the
    replay ``lists`` (sequences of action ids, one per list)."""
    seats = np.zeros(1, dtype=SEATS_DTYPE)
    seats["pol"][0, :len(pol)] = pol
    if prm is not None:
        seats["prm"][0, :len(pol)] = prm
    seats["replaying"] = all(p == POLICY_SCRIPT for p in pol)
    for k, actions in enumerate(lists):
        kept = list(actions)[:MAX_SCRIPT]
        seats["script"][0, k, :len(kept)] = kept
        seats["script_len"][0, k] = len(actions)
    return seats
