"""The games the simulator knows, and the module that plays each (rules, blocks, records).

A game module provides: ``PLAYERS``, ``RULES`` (its rules dataclass), ``run_block``,
``trace_games``, ``replay_deal``, ``deal_table``, ``game_table``, ``aggregate``,
``summarize``, ``format_summary`` and ``describe_game``. Everything in ``sim.run``, ``sim.show`` and the
run folders goes through this interface, so a new game plugs in without new flags.
"""

from __future__ import annotations

import importlib

GAME_NAMES = ("bridgette", "draw-bridge", "bid-euchre")
IMPLEMENTED = {"bridgette": "sim.bridgette", "draw-bridge": "sim.draw_bridge", "bid-euchre": "sim.bid_euchre"}


class GameError(ValueError):
    """A game name the simulator does not know or does not implement yet."""


def game_module(name: str):
    if name not in GAME_NAMES:
        raise GameError(f"unknown game '{name}' (games: {', '.join(GAME_NAMES)})")
    if name not in IMPLEMENTED:
        raise GameError(f"game '{name}' is not implemented yet (implemented: {', '.join(IMPLEMENTED)})")
    return importlib.import_module(IMPLEMENTED[name])
