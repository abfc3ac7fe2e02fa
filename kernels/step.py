"""One decision step, one deal record and one trace for every game.

Each decision goes through its game's step function (one per kind: discard, call, card,
...): a scripted seat reads the next action of its replay list, any other seat asks its
policy, and a legal action is appended to the trace. The deal kernels check legality and
write outcomes, and why a replayed deal stopped, straight into the deal record (its fields
``error``, ``error_at``, ``error_index``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.cards import ZERO, bit_nb

POLICY_SCRIPT = -1  # replay: the seat's actions come from a recorded deal, not a policy
BY_POLICY = -4  # what a policy seat reads from the script: nothing
NO_ACTION = -3  # past the end of a replayed list

TRACE_WIDTH = 4  # a trace row: (kind, seat, action, legal set)


class Seats(NamedTuple):
    """Who decides at each seat and where the actions go.

    ``pol``/``prm``: policy id and parameter row per seat (POLICY_SCRIPT: replayed);
    ``rng``: the policy stream; ``script[lst, i]`` with ``script_len[lst]``: the replayed
    lists, read in order through ``cursor[lst]``, which counts every action of the list,
    replayed or chosen, so seats can be scripted one by one; ``trace``/``tcur``: the
    trace rows and their count (no rows: not tracing).
    """

    pol: np.ndarray
    prm: np.ndarray
    rng: np.ndarray
    script: np.ndarray
    script_len: np.ndarray
    cursor: np.ndarray
    trace: np.ndarray
    tcur: np.ndarray


def script_lists(lists) -> tuple:
    """Replay lists (sequences of action ids) as the ``script`` and ``script_len`` of Seats."""
    width = max((len(x) for x in lists), default=0)
    script = np.full((len(lists), max(width, 1)), NO_ACTION, dtype=np.int64)
    for k, actions in enumerate(lists):
        script[k, :len(actions)] = actions
    return script, np.array([len(x) for x in lists], dtype=np.int64)


@njit(cache=True)
def replaying_nb(pol):
    """Every seat reads its actions from a script: a recorded deal replayed whole, whose
    script must then hold exactly the deal's actions."""
    for p in pol:
        if p != POLICY_SCRIPT:
            return False
    return True


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
    return seats.script[lst, i]


@njit(cache=True, inline="always")
def legal_nb(action, legal):
    """Is ``action`` (an id, negative when unknown) in the ``legal`` set?"""
    return action >= 0 and (legal & bit_nb(action)) != ZERO


@njit(cache=True)
def trace_row_nb(seats, kind, seat, action, legal):
    """Append an action and its legal set to the trace, if tracing; rows past its end are
    counted so the caller can grow it."""
    if seats.trace.shape[0] > 0:
        i = seats.tcur[0]
        if i < seats.trace.shape[0]:
            seats.trace[i, 0] = kind
            seats.trace[i, 1] = seat
            seats.trace[i, 2] = action
            seats.trace[i, 3] = np.int64(legal)
        seats.tcur[0] = i + 1


@njit(cache=True)
def record_nb(seats, kind, seat, action, legal):
    """Trace a legal action with its legal set; returns the action, legal or not."""
    if legal_nb(action, legal):
        trace_row_nb(seats, kind, seat, action, legal)
    return action


@njit(cache=True)
def left_over_nb(seats, lst):
    """A whole replay holds more actions in list ``lst`` than the deal used."""
    return replaying_nb(seats.pol) and seats.cursor[lst] < seats.script_len[lst]


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
def open_header_nb(headers, hcur, tcur, game_index, seq, dealer):
    """Start a traced deal's header (its hands and stock are the game's to fill): the
    header's index, or -1 when not tracing or out of room (counted so the caller can grow)."""
    h = hcur[0]
    if headers.shape[0] == 0:
        return -1
    hcur[0] = h + 1
    if h >= headers.shape[0]:
        return -1
    head = headers[h]
    head.game = game_index
    head.seq = seq
    head.dealer = dealer
    head.actions_start = tcur[0]
    return h


@njit(cache=True)
def close_header_nb(headers, outcomes, h, tcur, row, counted):
    """End a traced deal: its last action and a copy of its outcome."""
    if h >= 0:
        headers[h].actions_end = tcur[0]
        headers[h].counted = counted
        outcomes[h] = row


def record_dtype(fields) -> np.dtype:
    """An aligned record type whose rows read and write by field name (``row.contract``) in
    the kernels and, with NUMBA_DISABLE_JIT=1, in Python too (numpy's record scalars)."""
    return np.dtype((np.record, np.dtype(fields, align=True)))


def header_dtype(hands: int, stock: int) -> np.dtype:
    """A traced deal's header: which deal, the hands and stock as dealt, its trace rows."""
    return record_dtype([
        ("game", np.int64), ("seq", np.int32), ("counted", np.int8), ("dealer", np.int8),
        ("hands", np.uint64, (hands,)), ("stock_len", np.int8), ("stock", np.int8, (max(stock, 1),)),
        ("actions_start", np.int64), ("actions_end", np.int64),
    ])


ERROR_FIELDS = [("error", np.int8), ("error_at", np.int8), ("error_index", np.int16)]


def seats_for(pol, prm, lists, trace=None):
    """Seats for a call from Python: policy ids and rows, the replay ``lists`` (sequences of
    action ids, one per list), and an optional trace buffer (int64 rows of TRACE_WIDTH)."""
    script, script_len = script_lists(lists)
    if trace is None:
        trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    return Seats(np.asarray(pol, dtype=np.int64), np.asarray(prm, dtype=np.float64), np.zeros(1, dtype=np.uint64),
                 script, script_len, np.zeros(len(lists), dtype=np.int64), trace, np.zeros(1, dtype=np.int64))
