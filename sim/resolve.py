"""What a user gives, made ready to run: a game's rules from a variant and --set overrides,
each seat's policy from --policy texts, and the checks of the Python API's arguments.
Every command and the Python API (sim.api) resolve their inputs here."""

from __future__ import annotations

import functools
import inspect
import operator
import os
import re

import numpy as np

from sim.games import game_info, game_module
from sim.policies import PolicyError, parse_policy
from sim.rules import RulesError, dict_tables, merge_tables, parse_set, read_variant
from sim.store import RunError


def resolve_rules(game: str, rules=None, set_options=()):
    """Validated rules from a variant (dict of tables, TOML path or shipped name; a dict may
    name its game as a file does) plus --set overrides (``set_options``: "TABLE.KEY=VALUE" text, one or a list)."""
    module = game_module(game)
    check_rules(rules)
    if rules is None:
        tables = {}
    elif isinstance(rules, dict):
        tables = dict_tables(rules, game)
    else:
        tables = read_variant(rules, game)
    overrides = parse_set(texts("set_options", set_options, "'TABLE.KEY=VALUE'"))
    try:
        return module.RULES.from_dict(merge_tables(tables, overrides))
    except RulesError as exc:
        if rules is None or isinstance(rules, dict):
            raise
        try:  # the file alone at fault (not only with the --set values): its name goes with the words
            module.RULES.from_dict(tables)
        except Exception as alone:  # noqa: BLE001 - only compared: the error raised is the first one
            if isinstance(alone, RulesError) and str(alone) == str(exc):
                raise RulesError(f"rules file {rules}: {exc}") from None
        raise


def resolve_policies(game: str, policies=None) -> list:
    """One Policy per seat from ``SEAT=NAME[:k=v,...]`` strings or a {seat or 'all': spec} dict
    (a seat as its number or its digits).

    Every seat starts as ``heuristic``; ``all`` sets every seat, and seat entries after it
    the seats that differ. A seat given twice, or ``all`` after a seat entry (which it would
    undo), is refused: one of the two would be dropped without a word.
    """
    players = game_info(game).seats
    chosen = [parse_policy("heuristic", game)] * players
    if policies is None:
        return chosen
    if isinstance(policies, dict):
        items = policies.items()
    else:
        items = (_split_seat(p) for p in texts("policies", policies, "'SEAT=NAME[:param=value,...]'"))
    given: list = []  # "all" and the seat numbers, as they came
    for seat, spec in items:
        if not isinstance(spec, str):
            raise TypeError(f"policies: seat {seat!r} needs a policy such as 'heuristic' or 'pimc:worlds=2', "
                            f"got {spec!r}")
        policy = parse_policy(spec, game)
        if seat == "all":
            if given:
                raise PolicyError("policies: all= comes first, then the seats that differ (here it would replace "
                                  f"{'all=' if 'all' in given else 'the seat entries'} given before it)")
            given.append("all")
            chosen = [policy] * players
            continue
        index = _seat_number(seat)
        if not 0 <= index < players:
            named = f"policies: seat {seat!r}" if isinstance(policies, dict) else f"seat '{seat}'"
            raise PolicyError(f"{named} does not exist in {game} (seats 0..{players - 1} or all)")
        if index in given:
            raise PolicyError(f"policies: seat {index} is given two policies")
        given.append(index)
        chosen[index] = policy
    return chosen


def _seat_number(seat) -> int:
    """A seat given as a whole number or its digits; -1 for anything else (0.0, True)."""
    if isinstance(seat, bool):
        return -1
    try:
        if isinstance(seat, str):  # ASCII digits only, as every number the package reads
            return int(seat) if re.fullmatch(r"\s*\d{1,4}\s*", seat, re.ASCII) else -1
        return operator.index(seat)
    except (TypeError, ValueError):
        return -1


def texts(name: str, value, form: str) -> list:
    """``value``, one string or a list or tuple of them, as a list; a TypeError naming the
    argument ``name`` and the ``form`` of its strings otherwise."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise TypeError(f"{name} must be a {form} string or a list of them, got {value!r}")
    return list(items)


def checked(name: str, check, value):
    """``check(value)``; its ValueError as a RunError (a ValueError too) naming ``name``."""
    try:
        return check(value)
    except ValueError as exc:
        raise RunError(f"{name}: {exc}") from None


def check_kind(name: str, value, kinds: tuple, takes: str) -> None:
    """A TypeError naming the argument ``name`` and what it ``takes``, unless ``value`` is None
    or one of ``kinds``."""
    if value is not None and not isinstance(value, kinds):
        raise TypeError(f"{name} must be {takes}, got {value!r}")


def check_text(name: str, value) -> None:
    """A TypeError naming the argument ``name`` unless ``value`` is text (None is not)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be text, got {value!r:.60}")


def check_path(name: str, value, takes: str = "a folder's path or None", names: str = "folder") -> None:
    """A TypeError unless ``value`` is None or a path (of a ``names``: a folder, a file); a
    RunError for one that names nothing (an empty path is the folder the program is in) or
    holds a NUL, which no path can."""
    check_kind(name, value, (str, os.PathLike), takes)
    if value is not None and not str(value).strip():
        raise RunError(f"{name}: an empty path names no {names}")
    if value is not None and "\0" in str(value):
        raise RunError(f"{name}: {str(value)!r} holds a NUL character, which no path can")


def check_switch(name: str, value) -> bool:
    """``value`` as a bool: a TypeError naming the argument ``name`` for anything but True or
    False (numpy's too), such as the text "no", which Python would take as true."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r:.60}")
    return bool(value)


def use_threads(threads: int) -> None:
    """numba's threads for the kernels: a RunError beyond those this machine has."""
    import numba

    if threads > numba.config.NUMBA_NUM_THREADS:
        raise RunError(f"threads={threads} exceeds the {numba.config.NUMBA_NUM_THREADS} threads available")
    numba.set_num_threads(threads)


def check_resolved(game: str, rules, policies, seed, count_name: str, count, *, out=None, threads=None,
                   notify=None, largest: int | None = None) -> tuple[int, int, int | None]:
    """The arguments of the functions beneath the API that take rules and policies already
    resolved (sim.strata.run_stratified, sim.multilevel.run_multilevel, sim.dealing.sample),
    checked as sim.simulate checks its own: a TypeError for rules that are not ``game``'s
    (sim.resolve.resolve_rules), policies that are not one Policy per seat
    (resolve_policies; None: a function that takes none), a path or a ``notify`` of the
    wrong kind; a ValueError naming the argument for a seed, a count (``count_name``, up to
    ``largest``) or threads out of range, or an empty path. Returns (seed, count, threads)
    as whole numbers."""
    from sim.cli import seed_number, whole_count
    from sim.policies import Policy
    from sim.rules import GAMES as RULE_CLASSES

    seats = game_info(game).seats
    if not isinstance(rules, RULE_CLASSES[game]):
        raise TypeError(f"rules must be {game}'s rules as sim.resolve.resolve_rules({game!r}, ...) gives them, got "
                        f"{rules!r:.60}")
    if policies is not None and not (isinstance(policies, (list, tuple)) and len(policies) == seats
                                     and all(isinstance(p, Policy) for p in policies)):
        raise TypeError(f"policies must be one Policy per seat ({seats}) as sim.resolve.resolve_policies({game!r}, "
                        f"...) gives them, got {policies!r:.60}")
    check_path("out", out)
    if notify is not None and not callable(notify):
        raise TypeError(f"notify must be a function of one line of text, or None, got {notify!r:.60}")
    seed = checked("seed", seed_number, seed)
    count = checked(count_name, whole_count if largest is None else lambda n: whole_count(n, largest), count)
    return seed, count, None if threads is None else checked("threads", whole_count, threads)


# A flag as the project's words name it: after a space or "(", before a space, ":,;)" or a
# sentence's end (a path's or a quoted value's "--out" is the user's, and left as given).
_FLAG = re.compile(r"(?<![^\s(])--([a-z][a-z-]*)( N\b)?(?![^\s:,;).])(?!\.\S)")
_FLAG_ARGUMENTS = {"policy": "policies", "set": "set_options", "vary": "grid", "stratify": "stratification",
                   "plot": "plot_path"}  # an argument named otherwise


def in_argument_words(function):
    """A Python API function whose errors name its arguments where the command's shared
    checks name flags: ``--control-deals 10: ...`` is ``control_deals 10: ...`` from
    ``sim.estimate``. A flag that is none of the function's arguments stays as written."""
    parameters = set(inspect.signature(function).parameters)

    def argument(match):
        name = _FLAG_ARGUMENTS.get(match[1], match[1].replace("-", "_"))
        if match[0] == "--deals N" and "deals" not in parameters and "dealing" in parameters:
            return 'dealing=sim.dealing.parse("deals")'
        if match[0] in ("--deals N", "--games N") and "unit" in parameters:  # sim.dealing.parse
            return f'unit="{match[1]}"'
        return next((n + (match[2] or "") for n in (name, name + "s") if n in parameters), match[0])

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except ValueError as exc:
            if len(exc.args) == 1 and isinstance(exc.args[0], str):
                exc.args = (_FLAG.sub(argument, exc.args[0]),)
            raise

    return call


def check_rules(rules) -> None:
    """A TypeError unless ``rules`` is None or a form sim.rules can read; a RulesError for
    an empty path."""
    check_kind("rules", rules, (dict, str, os.PathLike), "a dict of option tables, a TOML file's path or a "
                                                         "shipped variant's name")
    if isinstance(rules, (str, os.PathLike)) and not os.fspath(rules).strip():
        raise RulesError("rules: an empty path names no file (None plays the game's defaults)")
    unnamed = [table for table in rules if not isinstance(table, str)] if isinstance(rules, dict) else []
    if unnamed:
        raise TypeError(f"rules must name its option tables by strings, got {unnamed[0]!r}")


def _split_seat(text: str) -> tuple[str, str]:
    seat, eq, spec = text.partition("=")
    if not eq:
        raise PolicyError(f"--policy needs SEAT=NAME[:param=value,...], got '{text}'")
    return seat.strip(), spec.strip()
