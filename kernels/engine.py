"""Games into record arrays: the only place with prange (DESIGN point 4).

Each game derives its cards and its policies' random choices from (seed, game index)
alone, so the records do not depend on the thread count, on how a run is cut into
blocks, or on which games are played together. Game ``i`` of a call writes its deal rows
into ``deal_rows[offsets[i]:offsets[i + 1]]`` (rows past that room are counted in its
game row but not written, so a caller can give a long game more room and play it again).
A tracing call plays chosen games one after another and records every deal's header and
outcome (``headers``, ``outcomes``) and every action (``trace``); a parallel run records
none: it passes None as its headers, or with search code headers of no rows, so that its
deal kernels are the traces' (search code takes minutes to compile; kernels.step's
``no_trace_nb`` does the same for the trace). A --dd run passes ``dd_rows``, one
double-dummy row per deal row at the same places (kernels.dd_run); other runs and traces
pass an empty array and no deal computes one. ``dd_contexts`` holds the search contexts,
one per thread and a spare (``game_context_nb``; a trace's one context is ``dd_proto``),
None when no seat searches and no row is computed.

The threads of a parallel call take its games one at a time (``take_nb``), so a thread
that drew long games does not hold up the block while the others wait: a pimc seat's
games differ in cost many times over. numba's OpenMP threading layer (its default where
OpenMP is installed) splits a prange into one equal share per thread whatever chunk size
``numba.set_parallel_chunksize`` asks for, so each iteration of the loop is a worker that
takes games until none is left.
"""

import numpy as np
from llvmlite import ir
from numba import config, get_thread_id, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import draw_bridge as kd
from kernels.step import no_trace_nb


@njit(cache=True)
def game_buffers_nb(seats, deal_rows, dd_rows):
    """A game's own copy of the seats record, its spare deal row (kernels.step.deal_row_nb)
    and its spare double-dummy row, made in a function of their own so the parallel loop
    allocates them per game.

    Kernels pass records (``seats[0]``, ``deal_rows[k]``) as bare pointers that do not keep
    their array alive: a record's array is always an argument of the function that takes
    the record out of it, never a temporary of that function.
    """
    return seats.copy(), np.zeros(1, dtype=deal_rows.dtype), np.zeros(1, dtype=dd_rows.dtype)


def game_context_nb(dd_contexts):
    """The search context of the thread playing a game (``dd_contexts``: one per thread of
    the run and a last one no game writes, kernels.dd.new_context), or None when the run
    has none: no seat searches (``dd`` or ``pimc``) and no double-dummy row is computed.
    Numba then compiles the deal kernels without search code (every ``dd is not None``
    branch is pruned), which compile in a fraction of the time and play faster.

    A thread's games share its context, table included: a table entry holds a position's
    exact bounds under the rules its generation names (kernels.dd.renew_nb), so the values
    every search returns, and with them the records, do not depend on which games ran on
    the thread before; every other field is set before the search that reads it. Sharing
    spares each game a copy of the context (megabytes, with the table). A thread beyond
    the contexts given (never, when there is one per thread) gets a copy of the last, which
    no thread writes (a copy of a context in use could catch an entry half written).

    The kernels choose by type when numba compiles them (the overload below): a branch on
    ``is None`` would give an array that may be None. This body runs with
    NUMBA_DISABLE_JIT=1."""
    return None if dd_contexts is None else _thread_context(dd_contexts)


def _thread_context(dd_contexts):
    k = get_thread_id()
    last = dd_contexts.shape[0] - 1
    return dd_contexts[k:k + 1] if k < last else dd_contexts[last:].copy()


if not config.DISABLE_JIT:
    @overload(game_context_nb)
    def _game_context_by_type(dd_contexts):
        if isinstance(dd_contexts, types.NoneType):
            return lambda dd_contexts: None
        return _thread_context


if config.DISABLE_JIT:
    def take_nb(taken):
        """The next game to play (one thread in Python: a plain count)."""
        taken[0] += 1
        return taken[0] - 1
else:
    @intrinsic
    def take_nb(typingctx, taken):
        """The next game to play: ``taken[0]``, counted up by one in the same atomic step, so
        every game goes to exactly one thread."""
        sig = types.int64(taken)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [context.get_constant(types.intp, 0)])
            return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "monotonic")

        return sig, codegen


@njit(cache=True, parallel=True, nogil=True)
def run_bridgette_games_nb(kr, seed, game_indices, offsets, seats, deal_rows, game_rows, dd_contexts, dd_rows,
                           headers, outcomes, hcur):
    """Play games in parallel, each with its own copy of the ``seats`` record (1 row)."""
    no_trace = no_trace_nb(dd_contexts)
    taken = np.zeros(1, dtype=np.int64)
    for _ in prange(game_indices.shape[0]):  # workers: each takes games until none is left
        i = take_nb(taken)
        while i < game_indices.shape[0]:
            own, spare, dd_spare = game_buffers_nb(seats, deal_rows, dd_rows)
            dd = game_context_nb(dd_contexts)
            kb.play_game_nb(kr, seed, game_indices[i], own, no_trace, deal_rows[offsets[i]:offsets[i + 1]], spare,
                            game_rows[i:i + 1], headers, outcomes, hcur, dd,
                            dd_rows[offsets[i]:offsets[i + 1]], dd_spare)
            i = take_nb(taken)


@njit(cache=True)
def trace_bridgette_games_nb(kr, seed, game_indices, seats, deal_rows, game_rows, headers, outcomes, hcur, trace,
                             dd_proto, dd_rows):
    """Play chosen games one after another, recording every deal header and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    spare = np.zeros(1, dtype=deal_rows.dtype)
    dd_spare = np.zeros(1, dtype=dd_rows.dtype)
    for i in range(game_indices.shape[0]):
        kb.play_game_nb(kr, seed, game_indices[i], seats, trace, deal_rows[i * per_game:(i + 1) * per_game], spare,
                        game_rows[i:i + 1], headers, outcomes, hcur, dd_proto,
                        dd_rows[i * per_game:(i + 1) * per_game], dd_spare)


@njit(cache=True, parallel=True, nogil=True)
def run_draw_bridge_games_nb(kr, seed, game_indices, offsets, seats, deal_rows, game_rows, dd_contexts, dd_rows,
                             headers, outcomes, hcur):
    no_trace = no_trace_nb(dd_contexts)
    taken = np.zeros(1, dtype=np.int64)
    for _ in prange(game_indices.shape[0]):  # workers: each takes games until none is left
        i = take_nb(taken)
        while i < game_indices.shape[0]:
            own, spare, dd_spare = game_buffers_nb(seats, deal_rows, dd_rows)
            dd = game_context_nb(dd_contexts)
            kd.play_game_nb(kr, seed, game_indices[i], own, no_trace, deal_rows[offsets[i]:offsets[i + 1]], spare,
                            game_rows[i:i + 1], headers, outcomes, hcur, dd,
                            dd_rows[offsets[i]:offsets[i + 1]], dd_spare)
            i = take_nb(taken)


@njit(cache=True)
def trace_draw_bridge_games_nb(kr, seed, game_indices, seats, deal_rows, game_rows, headers, outcomes, hcur, trace,
                               dd_proto, dd_rows):
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    spare = np.zeros(1, dtype=deal_rows.dtype)
    dd_spare = np.zeros(1, dtype=dd_rows.dtype)
    for i in range(game_indices.shape[0]):
        kd.play_game_nb(kr, seed, game_indices[i], seats, trace, deal_rows[i * per_game:(i + 1) * per_game], spare,
                        game_rows[i:i + 1], headers, outcomes, hcur, dd_proto,
                        dd_rows[i * per_game:(i + 1) * per_game], dd_spare)


@njit(cache=True, parallel=True, nogil=True)
def run_bid_euchre_games_nb(kr, seed, game_indices, offsets, seats, deal_rows, game_rows, dd_contexts, dd_rows,
                            headers, outcomes, hcur):
    no_trace = no_trace_nb(dd_contexts)
    taken = np.zeros(1, dtype=np.int64)
    for _ in prange(game_indices.shape[0]):  # workers: each takes games until none is left
        i = take_nb(taken)
        while i < game_indices.shape[0]:
            own, spare, dd_spare = game_buffers_nb(seats, deal_rows, dd_rows)
            dd = game_context_nb(dd_contexts)
            ke.play_game_nb(kr, seed, game_indices[i], own, no_trace, deal_rows[offsets[i]:offsets[i + 1]], spare,
                            game_rows[i:i + 1], headers, outcomes, hcur, dd,
                            dd_rows[offsets[i]:offsets[i + 1]], dd_spare)
            i = take_nb(taken)


@njit(cache=True)
def trace_bid_euchre_games_nb(kr, seed, game_indices, seats, deal_rows, game_rows, headers, outcomes, hcur, trace,
                              dd_proto, dd_rows):
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    spare = np.zeros(1, dtype=deal_rows.dtype)
    dd_spare = np.zeros(1, dtype=dd_rows.dtype)
    for i in range(game_indices.shape[0]):
        ke.play_game_nb(kr, seed, game_indices[i], seats, trace, deal_rows[i * per_game:(i + 1) * per_game], spare,
                        game_rows[i:i + 1], headers, outcomes, hcur, dd_proto,
                        dd_rows[i * per_game:(i + 1) * per_game], dd_spare)
