"""The game declarations (sim/games.py): consistent with the modules they name, and cheap
to import."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from sim.games import GAME_NAMES, GameError, game_info, game_module
from sim.rules import GAMES as RULE_CLASSES

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_declaration_agrees_with_the_modules_it_names(name):
    info = game_info(name)
    assert info.name == name and RULE_CLASSES[name].GAME == name
    engine = game_module(name)
    assert engine.PLAYERS == info.seats and engine.RULES is RULE_CLASSES[name]
    assert callable(importlib.import_module(info.referee).replay)
    assert callable(importlib.import_module(info.analysis).report_sections)
    # The sides partition the seats; a seat's side is where it sits.
    assert sorted(seat for side in info.sides for seat in side) == list(range(info.seats))
    assert all(info.seat_sides[seat] == k for k, side in enumerate(info.sides) for seat in side)


def test_sides_seats_and_teams():
    assert game_info("bridgette").sides == ((0,), (1,)) and game_info("bridgette").side == "seat"
    euchre = game_info("bid-euchre")
    assert euchre.seat_sides == (0, 1, 0, 1) and euchre.side == "team" and euchre.deal == "hand"
    assert euchre.summary_key("contracts_made") == "bids_made"
    assert game_info("draw-bridge").summary_key("contracts_made") == "contracts_made"
    with pytest.raises(GameError, match="unknown game 'whist'"):
        game_module("whist")


def test_declarations_import_without_numba_or_numpy():
    code = "import sys, sim.games; assert 'numba' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
