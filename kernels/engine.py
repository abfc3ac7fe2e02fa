"""Games into record arrays: the only place with prange (DESIGN point 4).

Each game derives its cards and its policies' random choices from (seed, game index)
alone, so the records do not depend on the thread count, on how a run is cut into
blocks, or on which games are played together. Game ``i`` of a call writes its deal rows
into ``deal_rows[offsets[i]:offsets[i + 1]]`` (rows past that room are counted in its
game row but not written, so a caller can give a long game more room and play it again).
"""

import numpy as np
from numba import njit, prange

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import contract as kc
from kernels import draw_bridge as kd


@njit(cache=True, parallel=True)
def run_bridgette_games_nb(params, value, exact, penalty, deck, seed, game_indices, offsets, pol, prm,
                           deal_rows, game_rows):
    no_headers = np.zeros((0, kb.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, kc.TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        kb.play_game_nb(params, value, exact, penalty, deck, seed, game_indices[i], pol, prm,
                        deal_rows[offsets[i]:offsets[i + 1]], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_bridgette_games_nb(params, value, exact, penalty, deck, seed, game_indices, pol, prm,
                             deal_rows, game_rows, headers, hcur, trace, tcur):
    """Play chosen games one after another, recording every deal header and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kb.play_game_nb(params, value, exact, penalty, deck, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)


@njit(cache=True, parallel=True)
def run_draw_bridge_games_nb(params, made, undertricks, seed, game_indices, offsets, pol, prm,
                             deal_rows, game_rows):
    no_headers = np.zeros((0, kd.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, kc.TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        kd.play_game_nb(params, made, undertricks, seed, game_indices[i], pol, prm,
                        deal_rows[offsets[i]:offsets[i + 1]], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_draw_bridge_games_nb(params, made, undertricks, seed, game_indices, pol, prm, deal_rows,
                               game_rows, headers, hcur, trace, tcur):
    """Play chosen Draw Bridge games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kd.play_game_nb(params, made, undertricks, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)


@njit(cache=True, parallel=True)
def run_bid_euchre_games_nb(params, deck, seed, game_indices, offsets, pol, prm, deal_rows, game_rows):
    no_headers = np.zeros((0, ke.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, ke.TRACE_WIDTH), dtype=np.int64)
    for i in prange(game_indices.shape[0]):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        ke.play_game_nb(params, deck, seed, game_indices[i], pol, prm,
                        deal_rows[offsets[i]:offsets[i + 1]], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_bid_euchre_games_nb(params, deck, seed, game_indices, pol, prm, deal_rows, game_rows,
                              headers, hcur, trace, tcur):
    """Play chosen Bid Euchre games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        ke.play_game_nb(params, deck, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)


@njit(cache=True, parallel=True)
def copy_rows_nb(src, src_starts, counts, dst, dst_starts):
    """Copy ``counts[i]`` rows from ``src[src_starts[i]:]`` to ``dst[dst_starts[i]:]`` for every
    game ``i``; the rows are byte views of record arrays."""
    for i in prange(counts.shape[0]):
        for k in range(counts[i]):
            dst[dst_starts[i] + k, :] = src[src_starts[i] + k, :]
