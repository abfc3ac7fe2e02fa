"""Games longer than the room their block gives them (kernels.step.deal_row_nb).

A block gives each game a fixed number of deal rows (sim.blocks); a game that needs more
must write only its own rows, count every deal in its game row, and be played again with
more room. Numba does not check bounds, so a missing guard would write into the next
game's rows: the rows after each game's room hold a sentinel that must survive.
"""

import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import draw_bridge as kd
from kernels.dd import new_context
from kernels.engine import run_bid_euchre_games_nb, run_bridgette_games_nb, run_draw_bridge_games_nb
from sim import bid_euchre, bridgette, draw_bridge
from kernels.step import seats_for
from sim.contract import no_headers
from sim.games import kernel_rules
from sim.policies import kernel_policies, parse_policy
from sim.rules import BidEuchreRules, BridgetteRules, DrawBridgeRules

SENTINEL = -7
# Bridgette with one deal and many tie-break deals: random play ties often enough.
LONG_TIES = {"game": {"deals": 1, "max_tiebreak_deals": 300}, "auction": {"opening_pass": "ends"}}

GAMES = [  # (kernels, their block kernel, game module, rules, players, games played, games outrunning)
    (kb, run_bridgette_games_nb, bridgette, BridgetteRules(), 2, 40, 40),
    (kb, run_bridgette_games_nb, bridgette, BridgetteRules.from_dict(LONG_TIES), 2, 400, 5),
    (kd, run_draw_bridge_games_nb, draw_bridge, DrawBridgeRules(), 2, 40, 30),
    (ke, run_bid_euchre_games_nb, bid_euchre, BidEuchreRules(), 4, 40, 40),
]


def _play(engine, run_games_nb, rules, players, n_games, room, dd=False):
    """Play games 0..n-1 with ``room`` deal rows each (and as many double-dummy rows with
    ``dd``, a --dd run's), in buffers whose rows past every game's room (and past the end)
    hold the sentinel: (deal rows, game rows, stride, double-dummy rows or None)."""
    kr = kernel_rules(rules)
    seats = seats_for(*kernel_policies([parse_policy("random")] * players))
    stride = room + 3  # three sentinel rows after each game's room
    deals = np.zeros(n_games * stride + 3, dtype=engine.DEAL_DTYPE)
    deals["game"] = SENTINEL
    dd_rows = np.zeros(n_games * stride + 3 if dd else 0, dtype=engine.DD_DTYPE)
    dd_rows["dd_tricks"] = SENTINEL
    games = np.zeros(n_games, dtype=engine.GAME_DTYPE)
    starts = np.arange(n_games + 1, dtype=np.int64) * stride
    for i in range(n_games):  # one call per game: its own slice of exactly ``room`` rows
        run_games_nb(kr, np.uint64(5), np.array([i], dtype=np.int64), np.array([0, room], dtype=np.int64),
                     seats, deals[starts[i]:starts[i] + room], games[i:i + 1], new_context() if dd else None,
                     dd_rows[starts[i]:starts[i] + room] if dd else dd_rows, *no_headers(engine, dd))
    return deals, games, stride, dd_rows if dd else None


@pytest.mark.parametrize("engine,run_games_nb,module,rules,players,n,outrun", GAMES,
                         ids=["bridgette", "bridgette-long-ties", "draw-bridge", "bid-euchre"])
def test_a_game_longer_than_its_room_writes_only_its_rows(engine, run_games_nb, module, rules, players, n, outrun):
    room = 1
    deals, games, stride, _ = _play(engine, run_games_nb, rules, players, n, room)
    assert (games["deals"] > room).sum() >= outrun
    for i in range(n):
        assert (deals["game"][i * stride + room:(i + 1) * stride] == SENTINEL).all(), f"game {i} wrote past its room"
    # The game rows count every deal, and the rows written are the game's first deals.
    full_deals, full_games = module.run_block(rules, [parse_policy("random")] * players, 5, 0, n)
    assert np.array_equal(games, full_games)
    first = np.concatenate([[0], np.cumsum(full_games["deals"])[:-1]])
    for name in ("game", "deal", "dealer", "score0", "score1"):
        assert np.array_equal(deals[name][np.arange(n) * stride], full_deals[name][first]), name


@pytest.mark.parametrize("engine,run_games_nb,module,rules,players,n,outrun", [GAMES[0], GAMES[3]],
                         ids=["bridgette", "bid-euchre"])
def test_a_dd_game_longer_than_its_room_writes_only_its_rows(engine, run_games_nb, module, rules, players, n, outrun):
    """A --dd run's double-dummy rows (kernels.dd_run.dd_out_nb) keep to the room as the deal
    rows do, and the rows written are those of the game's first deals."""
    n, room = 8, 1
    deals, games, stride, dd_rows = _play(engine, run_games_nb, rules, players, n, room, dd=True)
    assert (games["deals"] > room).all()
    for i in range(n):
        assert (dd_rows["dd_tricks"][i * stride + room:(i + 1) * stride] == SENTINEL).all(), f"game {i}"
    full_deals, _ = module.run_block(rules, [parse_policy("random")] * players, 5, 0, n, dd=True)
    first = np.concatenate([[0], np.cumsum(games["deals"])[:-1]])
    for name in engine.DD_DTYPE.names:
        assert np.array_equal(dd_rows[name][np.arange(n) * stride], full_deals[name][first]), name


def test_long_tie_breaks_fill_their_records():
    """B-15: games of one deal that tie go on to tie-break deals; a block replays the games
    longer than its room, so every deal of every game is recorded."""
    rules = BridgetteRules.from_dict(LONG_TIES)
    deals, games = bridgette.run_block(rules, [parse_policy("random")] * 2, 5, 0, 2000)
    assert games["tiebreak_deals"].max() >= 2
    assert len(deals) == games["deals"].sum()
    starts = np.concatenate([[0], np.cumsum(games["deals"])[:-1]])
    for g, (start, count) in enumerate(zip(starts, games["deals"])):
        assert list(deals["deal"][start:start + count]) == list(range(count))
        assert (deals["game"][start:start + count] == g).all()
