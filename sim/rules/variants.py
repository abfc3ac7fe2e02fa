"""Rule sets from what a user gives: the games' rule classes, variant files (a path or a
shipped variant's name), --set overrides merged over them, and a rule set's changes from
the defaults."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from sim.cli import TOO_DEEP, TOO_LONG, read_toml
from sim.files import is_pipe
from sim.rules.bid_euchre import BidEuchreRules
from sim.rules.bridgette import BridgetteRules
from sim.rules.draw_bridge import DrawBridgeRules
from sim.rules.schema import RulesError, did_you_mean, given

GAMES = {"bridgette": BridgetteRules, "draw-bridge": DrawBridgeRules, "bid-euchre": BidEuchreRules}
VARIANTS_DIR = Path(__file__).resolve().parent.parent / "variants"  # sim/variants


def rules_for(game: str, tables: dict | None = None):
    """Validated rules of ``game`` with the overrides in ``tables`` (nested as in TOML)."""
    if not isinstance(game, str) or game not in GAMES:
        raise RulesError(f"unknown game {game!r:.60} (games: {', '.join(GAMES)})")
    if tables is not None and not (isinstance(tables, dict) and all(isinstance(k, str) for k in tables)):
        raise RulesError(f"rules must be a dict of option tables named by strings, got {given(tables):.60}")
    return GAMES[game].from_dict(tables)


def read_variant(source: str | Path, game: str | None = None) -> dict:
    """The option tables of a variant file, given as a path or a shipped variant's name. A
    variant made for another game than ``game`` (variant_game) is a RulesError."""
    path = Path(source)
    named = len(path.parts) == 1 and not str(source).startswith(".")  # ./name is a path, never a shipped name
    if named and not path.suffix and not _exists(path):
        path = VARIANTS_DIR / f"{source}.toml"
        if not _exists(path):
            shipped = sorted(p.stem for p in VARIANTS_DIR.glob("*.toml"))
            raise RulesError(f"no rules file '{source}' and no shipped variant of that name"
                             f"{did_you_mean(str(source), shipped)} (shipped: {', '.join(shipped)})")
    try:
        tables = read_toml(path, "rules", RulesError)
    except RulesError as exc:
        if "given a second time" not in str(exc) or not re.search(r": '\[\s*game\s*\]", str(exc)):
            raise
        raise RulesError(f"{exc}: a file that also sets [game] options names its game in that table, "
                         '[game] name = "bid-euchre", not with a top-level game = ...') from None
    named = _named_game(tables, f"rules file {path}")
    made_for = named or (_shipped_game(path.stem) if path.parent == VARIANTS_DIR else None)
    if game is not None and made_for is not None and made_for != game:
        if is_pipe(path):  # read once, after the game was chosen
            raise RulesError(f"--rules {source} is a {made_for} variant read from a pipe: give --game {made_for}")
        raise RulesError(f"--rules {source} is a {made_for} variant, not one of {game}: leave out --game "
                         f"(the variant selects its game) or give --game {made_for}")
    return tables


def _named_game(tables: dict, origin: str):
    """The game a rules file or dict names, taken out of its tables: a top-level
    ``game = "..."`` or, where the game's [game] options are set too, ``name`` in that
    table. A RulesError, led by ``origin``, where it names no game."""
    if "game" in tables and not isinstance(tables["game"], (str, dict)):
        raise RulesError(f"{origin}: game = {tables['game']!r} is neither a game's name nor a table of "
                         "[game] options")
    named = None
    if isinstance(tables.get("game"), str):
        named = tables.pop("game")
    elif isinstance(tables.get("game"), dict) and "name" in tables["game"]:
        named = tables["game"].pop("name")
    if named is not None and named not in GAMES:
        raise RulesError(f"{origin}: game = {named!r:.60} is no game (games: {', '.join(GAMES)})")
    return named


def _copied(rules: dict) -> dict:
    """A rules dict with its tables copied, so the game taken out of them stays in the user's."""
    return {key: dict(value) if isinstance(value, dict) else value for key, value in rules.items()}


def dict_tables(rules: dict, game: str | None = None) -> dict:
    """The option tables of a rules dict, the game it names taken out as a file's is
    (``{"game": "bid-euchre", ...}``); a RulesError where it names another game than ``game``."""
    tables = _copied(rules)
    named = _named_game(tables, "rules")
    if game is not None and named is not None and named != game:
        raise RulesError(f"the rules name the game {named}, not {game}: leave out game (the rules select "
                         f"it) or give game={named!r}")
    return tables


def _shipped_game(name: str) -> str | None:
    """A shipped variant's game: the start of its name (bid-euchre-joker: bid-euchre)."""
    return next((g for g in sorted(GAMES, key=len, reverse=True) if name.startswith(f"{g}-")), None)


def variant_game(source) -> str | None:
    """The game a variant selects when none is given: a shipped variant's by its name, a
    file's by its top-level ``game = "bid-euchre"``; None where it names none, or cannot be
    read (reading its rules then says why)."""
    if source is None:
        return None
    if isinstance(source, dict):
        try:
            return _named_game(_copied(source), "rules")
        except RulesError:
            return None
    path = Path(source)
    if not path.suffix and not _exists(path):
        return _shipped_game(str(source)) if _exists(VARIANTS_DIR / f"{source}.toml") else None
    if is_pipe(path):  # read once, for its options: a game it names is checked then
        return None
    try:
        named = _named_game(read_toml(path, "rules", RulesError), f"rules file {path}")
    except RulesError:
        return None
    return named if isinstance(named, str) and named in GAMES else None


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a name the system cannot take (too long) names nothing."""
    try:
        return path.exists()
    except OSError:
        return False


def load_rules_file(game: str, path: str | Path):
    """Rules from a TOML variant file (a path or a shipped variant's name)."""
    return rules_for(game, read_variant(path, game))


def parse_set(items) -> dict:
    """``--set KEY=VALUE`` overrides as nested option tables.

    VALUE is a TOML literal (``8``, ``true``, ``"dealer"``, ``["grand"]``); anything that is
    not one is taken as a bare string, so ``exchange.upcard_to=dealer`` works.
    """
    if isinstance(items, str) or not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        raise RulesError(f"--set takes a list of KEY=VALUE texts, got {items!r:.60}")
    tables: dict = {}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise RulesError(f"--set needs KEY=VALUE with a dotted option name, got '{item}'")
        if key.count(".") != 1 or not all(key.split(".")):
            raise RulesError(f"--set {key}: option names are dotted TABLE.KEY, e.g. exchange.upcard_to")
        if len(raw.splitlines()) > 1:  # TOML would read the next lines as other keys, and drop them
            raise RulesError(f"--set {key}: a value is one line, got '{raw}'")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        except ValueError:
            raise RulesError(f"--set {key}: the value {TOO_LONG}") from None
        except RecursionError:
            raise RulesError(f"--set {key}: the value {TOO_DEEP}") from None
        table, name = key.split(".")
        if name in tables.get(table, {}):
            raise RulesError(f"--set {key} is given twice")
        tables.setdefault(table, {})[name] = value
    return tables


def merge_tables(base: dict, overrides: dict) -> dict:
    """Option tables with ``overrides`` applied on top of ``base``."""
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for table, values in overrides.items():
        if isinstance(merged.get(table), dict):
            merged[table].update(values)
        else:
            merged[table] = dict(values)
    return merged


def overrides(rules) -> dict:
    """The options of ``rules`` that differ from the defaults, nested as in a variant file:
    read back, they give ``rules``. A default that another option moves (Bid Euchre's double
    deck asks for 2 cards, E-10) is written where the rules keep the other value: the double
    deck with ``ask_cards = 1`` says so, where the plain default 1 would be left out and read
    back as 2."""
    written = rules.to_dict()
    changed = _differing(written, type(rules)().to_dict())
    for table, values in _differing(written, type(rules).from_dict(changed).to_dict()).items():
        changed.setdefault(table, {}).update(values)
    return changed


def changes_words(changed: dict) -> str:
    """``overrides`` in words, as the commands say what rules they played: each option as
    TABLE.KEY=VALUE, or "RULES.md defaults" where none differs."""
    words = [f"{table}.{key}={json.dumps(value) if not isinstance(value, str) else value}"
             for table, options in changed.items() for key, value in options.items()]
    return ", ".join(words) or "RULES.md defaults"


def _differing(tables: dict, others: dict) -> dict:
    """The options of ``tables`` whose values ``others`` do not hold, nested as they are."""
    out = {}
    for table, values in tables.items():
        diff = {k: v for k, v in values.items() if v != others[table][k]}
        if diff:
            out[table] = diff
    return out
