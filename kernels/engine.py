"""Blocks of games into record arrays: the only place with prange (DESIGN point 4).

A block is a pure function of (rules, policies, seed, first game index, count): each game
derives its cards and its policies' random choices from (seed, game index) alone, so the
records do not depend on the thread count or on how a run is cut into blocks.
"""

import numpy as np
from numba import njit, prange

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import contract as kc
from kernels import draw_bridge as kd


@njit(cache=True, parallel=True)
def run_bridgette_block_nb(params, value, exact, penalty, deck, seed, first_game, pol, prm,
                           deal_rows, game_rows):
    """Play ``game_rows.shape[0]`` games from ``first_game``; deal rows in fixed slots per game."""
    n_games = game_rows.shape[0]
    per_game = deal_rows.shape[0] // n_games
    no_headers = np.zeros((0, kb.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, kc.TRACE_WIDTH), dtype=np.int64)
    for i in prange(n_games):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        kb.play_game_nb(params, value, exact, penalty, deck, seed, first_game + i, pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_bridgette_games_nb(params, value, exact, penalty, deck, seed, game_indices, pol, prm,
                             deal_rows, game_rows, headers, hcur, trace, tcur):
    """Replay chosen games one after another, recording every deal header and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kb.play_game_nb(params, value, exact, penalty, deck, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)


@njit(cache=True, parallel=True)
def run_draw_bridge_block_nb(params, made, undertricks, seed, first_game, pol, prm, deal_rows,
                             game_rows):
    """Play ``game_rows.shape[0]`` Draw Bridge games; deal rows in fixed slots per game."""
    n_games = game_rows.shape[0]
    per_game = deal_rows.shape[0] // n_games
    no_headers = np.zeros((0, kd.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, kc.TRACE_WIDTH), dtype=np.int64)
    for i in prange(n_games):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        kd.play_game_nb(params, made, undertricks, seed, first_game + i, pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_draw_bridge_games_nb(params, made, undertricks, seed, game_indices, pol, prm, deal_rows,
                               game_rows, headers, hcur, trace, tcur):
    """Replay chosen Draw Bridge games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        kd.play_game_nb(params, made, undertricks, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)


@njit(cache=True, parallel=True)
def run_bid_euchre_block_nb(params, deck, seed, first_game, pol, prm, deal_rows, game_rows):
    """Play ``game_rows.shape[0]`` Bid Euchre games; deal rows in fixed slots per game."""
    n_games = game_rows.shape[0]
    per_game = deal_rows.shape[0] // n_games
    no_headers = np.zeros((0, ke.HEADER_WIDTH), dtype=np.int64)
    no_trace = np.zeros((0, ke.TRACE_WIDTH), dtype=np.int64)
    for i in prange(n_games):
        scratch = np.empty(64, dtype=np.int64)
        cursor = np.zeros(2, dtype=np.int64)
        ke.play_game_nb(params, deck, seed, first_game + i, pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        no_headers, cursor[0:1], no_trace, cursor[1:2], scratch)


@njit(cache=True)
def trace_bid_euchre_games_nb(params, deck, seed, game_indices, pol, prm, deal_rows, game_rows,
                              headers, hcur, trace, tcur):
    """Replay chosen Bid Euchre games one after another, recording every deal and action."""
    per_game = deal_rows.shape[0] // game_indices.shape[0]
    scratch = np.empty(64, dtype=np.int64)
    for i in range(game_indices.shape[0]):
        ke.play_game_nb(params, deck, seed, game_indices[i], pol, prm,
                        deal_rows[i * per_game:(i + 1) * per_game], game_rows[i:i + 1],
                        headers, hcur, trace, tcur, scratch)
