"""The game declarations (sim/games.py): consistent with the modules they name, cheap to
import, and the only place outside a game's own modules that names a game."""

import importlib
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from sim.games import GAME_NAMES, GAMES, GameError, game_info, game_module
from sim.policies import POLICIES
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
    assert set(info.heuristic) <= set(POLICIES["heuristic"].parameters)
    assert set(info.pimc) <= set(POLICIES["pimc"].parameters)
    assert set(info.search) <= set(POLICIES["search"].parameters)
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
    with pytest.raises(GameError, match=r"unknown game \['bridgette'\] \(games: "):  # "unhashable type" before
        game_module(["bridgette"])


def test_declarations_import_without_numba_or_numpy():
    code = "import sys, sim.games; assert 'numba' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# Outside sim/games.py, a module names a game only if it is that game's own: its engine,
# referee, analysis or rules module (sim/rules/variants.py keeps the registry of rules classes).
OWN = {info.name: {info.engine, info.referee, info.analysis, RULE_CLASSES[info.name].__module__}
       for info in GAMES.values()}
REGISTRIES = {"sim.games", "sim.rules.variants"}


def named_games(path: Path) -> set:
    """Game names written as string literals in a Python file (docstrings and prose aside)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return {tok.string.strip("'\"") for tok in tokens if tok.type == tokenize.STRING} & set(GAME_NAMES)


@pytest.mark.parametrize("package", ["sim", "analysis"])
def test_no_game_names_outside_their_own_modules(package):
    offenders = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module in REGISTRIES:
            continue
        foreign = {g for g in named_games(path) if module not in OWN[g]}
        if foreign:
            offenders[module] = sorted(foreign)
    assert not offenders
