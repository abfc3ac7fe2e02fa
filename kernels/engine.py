"""Games into record arrays: the only place with prange (DESIGN point 4).

Each game derives its cards and its policies' random choices from (seed, game index)
alone, so the records do not depend on the thread count, on how a run is cut into
blocks, or on which games are played together. Game ``i`` of a call writes its deal rows
into ``deal_rows[offsets[i]:offsets[i + 1]]`` (rows past that room are counted in its
game row but not written, so a caller can give a long game more room and play it again).
A tracing call plays chosen games one after another and records every deal's header and
outcome (``headers``, ``outcomes``) and every action (``trace``).
"""

import numpy as np
from numba import njit, prange

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import draw_bridge as kd
from kernels.step import TRACE_WIDTH, Seats


@njit(cache=True)
def policy_seats_nb(pol, prm, lists, trace, tcur):
    """Seats that all choose by policy (no replay lists), tracing into ``trace``."""
    return Seats(pol, prm, np.zeros(1, dtype=np.uint64), np.zeros((lists, 0), dtype=np.int64),
                 np.zeros(lists, dtype=np.int64), np.zeros(lists, dtype=np.int64), trace, tcur)


@njit(cache=True, parallel=True)
def run_bridgette_games_nb(kr, seed, game_indices, offsets, pol, prm, deal_rows, game_rows, headers, outcomes):
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        seats = policy_seats_nb(pol, prm, kb.N_LISTS, no_trace, np.zeros(1, dtype=np.int64))
        kb.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[offsets[i]:offsets[i + 1]],
                        game_rows[i:i + 1], headers, outcomes, np.zeros(1, dtype=np.int64),
                        np.empty(64, dtype=np.int64))


@njit(cache=True)
def trace_bridgette_games_nb(kr, seed, game_indices, pol, prm, deal_rows, game_rows, headers, outcomes,
                             hcur, trace, tcur):
    """Play chosen games one after another, recording every deal header and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    seats = policy_seats_nb(pol, prm, kb.N_LISTS, trace, tcur)
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kb.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[i * per_game:(i + 1) * per_game],
                        game_rows[i:i + 1], headers, outcomes, hcur, scratch)


@njit(cache=True, parallel=True)
def run_draw_bridge_games_nb(kr, seed, game_indices, offsets, pol, prm, deal_rows, game_rows, headers, outcomes):
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        seats = policy_seats_nb(pol, prm, kd.N_LISTS, no_trace, np.zeros(1, dtype=np.int64))
        kd.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[offsets[i]:offsets[i + 1]],
                        game_rows[i:i + 1], headers, outcomes, np.zeros(1, dtype=np.int64),
                        np.empty(64, dtype=np.int64))


@njit(cache=True)
def trace_draw_bridge_games_nb(kr, seed, game_indices, pol, prm, deal_rows, game_rows, headers, outcomes,
                               hcur, trace, tcur):
    """Play chosen Draw Bridge games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    seats = policy_seats_nb(pol, prm, kd.N_LISTS, trace, tcur)
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kd.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[i * per_game:(i + 1) * per_game],
                        game_rows[i:i + 1], headers, outcomes, hcur, scratch)


@njit(cache=True, parallel=True)
def run_bid_euchre_games_nb(kr, seed, game_indices, offsets, pol, prm, deal_rows, game_rows, headers, outcomes):
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        seats = policy_seats_nb(pol, prm, ke.N_LISTS, no_trace, np.zeros(1, dtype=np.int64))
        ke.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[offsets[i]:offsets[i + 1]],
                        game_rows[i:i + 1], headers, outcomes, np.zeros(1, dtype=np.int64),
                        np.empty(64, dtype=np.int64))


@njit(cache=True)
def trace_bid_euchre_games_nb(kr, seed, game_indices, pol, prm, deal_rows, game_rows, headers, outcomes,
                              hcur, trace, tcur):
    """Play chosen Bid Euchre games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    seats = policy_seats_nb(pol, prm, ke.N_LISTS, trace, tcur)
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        ke.play_game_nb(kr, seed, game_indices[i], seats, deal_rows[i * per_game:(i + 1) * per_game],
                        game_rows[i:i + 1], headers, outcomes, hcur, scratch)


@njit(cache=True, parallel=True)
def copy_rows_nb(src, src_starts, counts, dst, dst_starts):
    """Copy ``counts[i]`` rows from ``src[src_starts[i]:]`` to ``dst[dst_starts[i]:]`` for every
    game ``i``; the rows are byte views of record arrays."""
    for i in prange(counts.shape[0]):
        for k in range(counts[i]):
            dst[dst_starts[i] + k, :] = src[src_starts[i] + k, :]
