"""How a rule option is declared and checked: ``opt`` (its default, rule id, meaning and
allowed values), a game's rule set built from tables of options with one-line errors, the
option table every command lists, and the kernels' record of the scalar options."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import numbers
from dataclasses import field
from typing import Any


class RulesError(ValueError):
    """A variant file or rule override the simulator cannot accept."""


# The ranges of the whole-number options. A game's deals and redeals are counted in int16
# record fields, and sim.blocks gives each of a block's first 256 games room for the longest
# game the rules allow: 256 x 10,000 deal rows of at most 68 bytes is 175 MB.
MAX_GAME_DEALS = 10_000
STOCK = 29  # B-3: the most cards a Bridgette stock holds (every Colon in the deck)
HAND = 13  # B-2: cards in a Bridgette hand
MAX_TARGET = 100_000  # D-7, E-9: far past any real game; totals are int32
# E-7, E-8: a hand's scores are int16 in the records: a team's 24 reneges of a double-deck
# hand at 1,000 each, plus a 1,000-point moon, still fit.
MAX_HAND_SCORE = 1_000
# B-11..B-14, D-5, D-6: the score table entries and doubling factors a designer may set. A
# Bridgette game plays up to MAX_GAME_DEALS deals into int32 totals: a made contract's
# (value + bonus + doubled bonus) x factor is at most 30,000 x 6, and 10,000 of them fit.
MAX_POINTS = 10_000
MAX_FACTOR = 6


def opt(default, rule: str, meaning: str, choices=None, low=None, high=None, kind=None, length=None):
    """Declare one rule option: its default, rule id, meaning and allowed values (a whole
    number's range is ``low`` to ``high``).

    A default of None means "decided by other options" (``kind`` then gives the type);
    the rules class fills it in when it is built. A list of whole numbers (a score table's
    row) is declared by ``kind=list`` with ``length`` (entries, or (fewest, most)) and
    each entry's range ``low`` to ``high``.
    """
    if isinstance(length, int):
        length = (length, length)
    meta = {"rule": rule, "meaning": meaning, "choices": choices, "low": low, "high": high,
            "kind": kind or type(default), "length": length}
    if isinstance(default, tuple):
        return field(default_factory=lambda: default, metadata=meta)
    return field(default=default, metadata=meta)


def points(default: tuple, rule: str, meaning: str, length=None):
    """A score table's row: whole numbers from 0 to MAX_POINTS, as many as the default
    unless ``length`` says otherwise."""
    return opt(default, rule, meaning, low=0, high=MAX_POINTS, kind=list, length=length or len(default))


class RuleSet:
    """What every game's rules dataclass shares: TOML tables in and out, validation."""

    @classmethod
    def from_dict(cls, tables: dict | None):
        return _build(cls, tables or {})

    def to_dict(self) -> dict:
        # Options are numbers, words, None and tuples of them: read field by field, without
        # the deep copy of dataclasses.asdict (a traced deal carries its rules).
        out = {}
        for sec in dataclasses.fields(self):
            table = getattr(self, sec.name)
            out[sec.name] = {f.name: (list(v) if isinstance(v := getattr(table, f.name), tuple) else v)
                             for f in dataclasses.fields(table)}
        return out

    def validate(self) -> None:
        """Cross-option checks (single options are checked when the tables are read)."""

    def fewest_deals(self) -> int:
        """The deals every game plays at least (sim.blocks sizes a block's records by it)."""
        return 1

    def most_deals(self) -> int:
        """The deal records one game can fill (a redeal reuses its row): sim.match sizes its
        blocks by it."""
        raise NotImplementedError(f"{type(self).__name__} must say how many deal records one game can fill")


def _build(cls, tables: dict):
    if not isinstance(tables, dict):
        raise RulesError("rules must be a table of option tables")
    sections = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for name, table in tables.items():
        if name not in sections:
            raise RulesError(f"unknown rule table '{name}' for {cls.GAME}"
                             f"{did_you_mean(name, sections)} (tables: {', '.join(sections)})")
        if not isinstance(table, dict):
            raise RulesError(f"'{name}' must be a table of options")
        section_cls = sections[name].default_factory
        known = {f.name: f for f in dataclasses.fields(section_cls)}
        kwargs = {}
        for key, value in table.items():
            if key not in known:
                every = [row["option"] for row in option_table(cls)]
                raise RulesError(f"unknown option '{name}.{key}' for {cls.GAME}"
                                 f"{did_you_mean(f'{name}.{key}', every)}")
            kwargs[key] = _check(f"{name}.{key}", known[key], value)
        values[name] = section_cls(**kwargs)
    rules = cls(**values)
    rules.validate()
    return rules


def did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _check(dotted: str, f: dataclasses.Field, value: Any):
    meta = f.metadata
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    auto = default is None  # filled in from other options, as the option's help says
    if auto:
        if value is None or value == "auto":
            return None
        default = meta["kind"]()
    choices = meta["choices"]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesError(f"option '{dotted}' must be true or false, got {given(value)}")
    elif meta["kind"] is list:
        value = _check_ints(dotted, meta, value)
    elif isinstance(default, int):
        low, high = meta["low"], meta["high"]
        if not _integer(value):
            raise RulesError(f"option '{dotted}' must be an integer from {low:,} to {high:,}"
                             f"{' or auto' if auto else ''}, got {given(value)}")
        value = int(value)
        if not low <= value <= high:
            raise RulesError(f"option '{dotted}' must be at {'least' if value < low else 'most'} "
                             f"{low if value < low else high:,}, got {_count(value)}")
    elif isinstance(default, str):
        if value not in choices:
            raise RulesError(f"option '{dotted}' must be one of "
                             f"{', '.join(repr(c) for c in choices)}; got {given(value)}")
    elif isinstance(default, tuple):
        if not isinstance(value, (list, tuple)) or any(v not in choices for v in value):
            raise RulesError(f"option '{dotted}' must be a list drawn from "
                             f"{', '.join(repr(c) for c in choices)}; got {given(value)}")
        if len(set(value)) != len(value):
            raise RulesError(f"option '{dotted}' lists a value twice: {given(value)}")
        value = tuple(c for c in choices if c in value)  # canonical order
    return value


def given(value) -> str:
    """A value as an error line shows it, as a rules file or a replay line writes it (true,
    null, a table, a TOML date or time), else Python's repr."""
    import datetime

    if isinstance(value, (datetime.date, datetime.time)):
        return f"{value.isoformat()} (a date or time)"
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    return "a table" if isinstance(value, dict) else repr(value)


def _check_ints(dotted: str, meta, value) -> tuple:
    """A list of whole numbers: its length and each entry's range (returned as a tuple)."""
    (fewest, most), low, high = meta["length"], meta["low"], meta["high"]
    size = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    if not isinstance(value, (list, tuple)) or not all(_integer(v) for v in value):
        raise RulesError(f"option '{dotted}' must be a list of {size} integers from {low:,} to {high:,}, "
                         f"got {given(value)}")
    if not fewest <= len(value) <= most:
        raise RulesError(f"option '{dotted}' must list {size} integers, got {len(value)}")
    for k, v in enumerate(value):
        if not low <= v <= high:
            raise RulesError(f"option '{dotted}' must have entries from {low:,} to {high:,}; entry {k + 1} "
                             f"is {_count(v)}")
    return tuple(int(v) for v in value)


def _count(value: int) -> str:
    """An integer as an error shows it: 1,000,000, but not the thousands of digits an API
    caller's 10**5000 would print."""
    return f"{value:,}" if abs(value) < 10**30 else "a number of more than 30 digits"


def _integer(value) -> bool:
    """An integer option's value: Python's or numpy's integers, never a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def option_table(cls) -> list[dict]:
    """Every option of a game: dotted name, type, default, allowed values, rule id, meaning."""
    rows = []
    for sec in dataclasses.fields(cls):
        for f in dataclasses.fields(sec.default_factory):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            rows.append({"option": f"{sec.name}.{f.name}", "type": f.metadata["kind"].__name__,
                         "default": default, "choices": f.metadata["choices"],
                         "low": f.metadata["low"], "high": f.metadata["high"],
                         "length": f.metadata["length"], "rule": f.metadata["rule"], "meaning": f.metadata["meaning"]})
    return rows


LISTS = ("tuple", "list")  # option_table's types of the list options (of choices; of whole numbers)


@functools.cache
def params_dtype(cls, derived: tuple = ()):
    """The kernels' record of a game's scalar options: one int64 field per option, named by
    its key (keys are unique within a game), plus ``derived`` fields the game computes
    from several options. A list option (Bridgette's ``deck.colons``, a score table's row)
    goes into the deck or the score tables instead."""
    import numpy as np

    names = [row["option"].split(".")[1] for row in option_table(cls) if row["type"] not in LISTS]
    names += list(derived)
    assert len(set(names)) == len(names), f"option keys of {cls.GAME} must be unique"
    return np.dtype((np.record, np.dtype([(n, np.int64) for n in names], align=True)))


def kernel_params(rules, **derived):
    """A validated rule set's scalar options as one record (a 1-element array of
    ``params_dtype``), with the ``derived`` fields set."""
    import numpy as np

    cls = type(rules)
    params = np.zeros(1, dtype=params_dtype(cls, tuple(derived)))
    for row in option_table(cls):
        section, key = row["option"].split(".")
        value = getattr(getattr(rules, section), key)
        if row["type"] in LISTS:
            continue
        params[key] = row["choices"].index(value) if row["type"] == "str" else int(value)
    for key, value in derived.items():
        params[key] = value
    return params
