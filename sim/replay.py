"""python -m sim.replay FILE.jsonl [--engine reference|kernel] [--json]

Replays deals written in the replay format of docs/rules.md, one JSON object per line, in the
readable reference referee or in the numba kernel. Exit status: 0 when every ``expect``
holds, 1 when one does not (or a deal's game is not supported yet), 2 for bad input.
"""

from __future__ import annotations

import importlib
import json
import tempfile
from collections import Counter

from sim.cli import OneLineParser, exit_with, one_line, path_text
from sim.files import open_input
from sim.games import GAMES
from sim.rules import rules_for


class MalformedCase(ValueError):
    pass


MAX_LINE = 2**20  # a deal's line is a few kilobytes


def bounded_lines(fh):
    """The lines of the open file ``fh``, none read past ``MAX_LINE`` characters: a longer
    one (a file that is no replay file: /dev/zero, say) is a MalformedCase, never read whole."""
    for number, line in enumerate(iter(lambda: fh.readline(MAX_LINE + 2), ""), 1):  # its \r\n not counted
        if len(line.rstrip("\r\n")) > MAX_LINE:
            raise MalformedCase(f"line {number} is longer than {MAX_LINE:,} characters: not a deal")
        yield line


SPOOL_IN_MEMORY = 2**24  # bytes of checked lines kept in memory; a longer file's go to a temporary file


class SpoolError(Exception):
    """The checked deals could not be kept: the temporary folder takes no more."""


class Cases:
    """The deals of a replay file as (line number, case): every line is parsed and checked
    first (``lines``: an open file, read by ``bounded_lines``, or a list), so a bad file
    produces no partial report; the checked lines are kept as text (in a temporary file
    past SPOOL_IN_MEMORY) and parsed again as they are used, so memory stays bounded
    however many deals a file holds. A file with bad lines is a MalformedCase naming the
    first of them."""

    def __init__(self, lines):
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, mode="w+", encoding="utf-8",
                                                    newline="\n")
        self._count, problems = 0, []
        if hasattr(lines, "readline"):
            lines = bounded_lines(lines)
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                check_case(json.loads(line, parse_int=_json_integer, object_pairs_hook=_once_each))
            except RecursionError:
                problems.append(f"line {number}: nested too deeply")
                continue
            except json.JSONDecodeError as exc:  # its own line and column would count within this line
                problems.append(f"line {number}: " + ("a byte-order mark starts the line (files joined together?): "
                                                      "remove it" if exc.msg.startswith("Unexpected UTF-8 BOM") else
                                                      f"not one JSON object (at character {exc.pos + 1}: "
                                                      f"{exc.msg[0].lower()}{exc.msg[1:]})"))
                continue
            except ValueError as exc:  # bad JSON (also a number of thousands of digits), MalformedCase, RulesError
                problems.append(f"line {number}: {one_line(exc)}")
                continue
            try:
                self._spool.write(f"{number} {line.strip()}\n")
            except OSError as exc:  # past SPOOL_IN_MEMORY the deals go to the temporary folder
                raise SpoolError(f"cannot keep the checked deals in {tempfile.gettempdir()} (TMPDIR): "
                                 f"{exc.strerror or exc}") from None
            self._count += 1
        if problems:
            more = f"; and {len(problems) - MAX_PROBLEMS} more line(s)" if len(problems) > MAX_PROBLEMS else ""
            raise MalformedCase("; ".join(problems[:MAX_PROBLEMS]) + more)

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        self._spool.seek(0)
        for row in self._spool:
            number, _, text = row.partition(" ")
            yield int(number), json.loads(text)


def _once_each(pairs) -> dict:
    """A JSON object of a replay line, each key given once: of two, JSON readers keep one or
    the other (the last, in Python), so the line would say two things."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise MalformedCase(f"the key {_shown(key)} is given twice in one object")
        seen[key] = value
    return seen


def _json_integer(text: str) -> int:
    """A JSON integer of a replay line; one longer than Python reads (4,300 digits unless
    set otherwise) is refused in the project's words (a shorter one reaches its field's
    check, which names the field)."""
    try:
        return int(text)
    except ValueError:
        raise MalformedCase(f"a number of {len(text.lstrip('-')):,} digits, more than any field takes") from None


def parse_cases(lines) -> Cases:
    """The checked deals of a replay file (``Cases``)."""
    return Cases(lines)


MAX_PROBLEMS = 5  # bad lines named in the one error line


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _string_lists(value) -> bool:
    return isinstance(value, list) and all(_strings(item) for item in value)


def _integers(value) -> bool:
    return isinstance(value, list) and all(_integer(item) for item in value)


def _renege(value) -> bool:
    return (isinstance(value, dict) and set(value) == {"at", "seat", "card"} and isinstance(value["at"], str)
            and _integer(value["seat"]) and isinstance(value["card"], str))


# The type of each field of a line (docs/rules.md, "Replaying a deal"): a test and its words.
FIELD_TYPES = {
    "hands": (_string_lists, "a list of card lists"),
    "stock": (_strings, "a list of cards"),
    "discards": (_string_lists, "a list of card lists, one per seat"),
    "calls": (_strings, "a list of calls"),
    "trump": (lambda v: v is None or isinstance(v, str), "a suit letter or null"),
    "trump_exchange": (lambda v: v is None or _string_lists(v), "a list of card lists or null"),
    "play": (_strings, "a list of cards"),
    "expect": (lambda v: isinstance(v, dict), "an object"),
}
# The type of each field of "expect": those of the outcome it is compared with.
EXPECT_TYPES = {
    "contract": (lambda v: isinstance(v, str), "a string"),
    "bid": (lambda v: isinstance(v, str), "a string"),
    "declarer": (lambda v: v is None or _integer(v), "a seat number or null"),
    "bidder": (lambda v: v is None or _integer(v), "a seat number or null"),
    "trump": (lambda v: v is None or isinstance(v, str), "a suit letter or null"),
    "doubled": (_integer, "an integer"),
    "tricks": (_integers, "a list of integers"),
    "score": (_integers, "a list of integers"),
    "reneges": (lambda v: isinstance(v, list) and all(_renege(r) for r in v),
                'a list of {"at", "seat", "card"} objects'),
    "error": (lambda v: isinstance(v, str), "a string"),
    "at": (lambda v: isinstance(v, str), "a string"),
    "card": (lambda v: isinstance(v, str), "a string"),
}


def _plain(value) -> bool:
    """Whether a case's value prints as itself: printable ASCII text (a card's name)."""
    return isinstance(value, str) and value.isascii() and value.isprintable()


def _shown(value) -> str:
    """A value as JSON, cut short: for error lines."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_fields(obj: dict, types: dict, where: str) -> None:
    for key, (test, words) in types.items():
        if key in obj and not test(obj[key]):
            raise MalformedCase(f"\"{where}{key}\" must be {words}, got {_shown(obj[key])}")


def check_case(case) -> None:
    """Refuse a line that is not a deal of the replay format: a missing field or one of
    the wrong type (an integer is a JSON integer: not 0.0, true or "0"). Rule errors are
    left to the referee, which names the rule."""
    if not isinstance(case, dict):
        raise MalformedCase("not a JSON object")
    if "game" not in case:
        raise MalformedCase("missing \"game\"")
    game = case["game"]
    if not isinstance(game, str):
        raise MalformedCase(f"\"game\" must be a string, got {_shown(game)}")
    if game not in GAMES:
        return
    info = GAMES[game]
    for key in info.replay_keys:
        if key not in case:
            raise MalformedCase(f"missing \"{key}\"")
    seats = info.seats
    if not (_integer(case["dealer"]) and 0 <= case["dealer"] < seats):
        raise MalformedCase(f"\"dealer\" must be a seat 0..{seats - 1} (an integer), got {_shown(case['dealer'])}")
    _check_fields(case, FIELD_TYPES, "")
    if len(case.get("discards", [])) > seats:
        raise MalformedCase(f"\"discards\" must be a list of card lists, one per seat (at most {seats})")
    expect = case.get("expect", {})
    _check_fields(expect, EXPECT_TYPES, "expect.")
    unknown = sorted(set(expect) - set(EXPECT_TYPES))
    if unknown:
        raise MalformedCase(f"\"expect\" has no field {_shown(unknown[0])} (fields: {', '.join(EXPECT_TYPES)})")
    seats_named = [(f"expect.{key}", expect.get(key)) for key in ("declarer", "bidder")]
    seats_named += [("expect.reneges[].seat", r["seat"]) for r in expect.get("reneges", [])]
    for where, seat in seats_named:
        if seat is not None and not 0 <= seat < seats:
            raise MalformedCase(f"\"{where}\" must be a seat 0..{seats - 1}, got {_shown(seat)}")
    rules_for(game, case.get("rules"))


def replay_case(case: dict, engine: str) -> dict:
    """One case's outcome in the chosen engine, or an "unsupported" marker. A case that is
    not of the replay format (check_case: a field missing or of the wrong type) is a
    MalformedCase, as the command names it, before either engine sees it."""
    from sim.games import game_module

    if engine not in ("kernel", "reference"):
        raise ValueError(f"engine must be 'kernel' or 'reference', got {engine!r:.60}")
    case = _as_read(case)
    check_case(case)
    game = case["game"]
    if game not in GAMES:
        return {"error": "unsupported", "message": f"game {_shown(game)} is unknown"}
    if engine == "kernel":
        return with_card_at_fault(case, game_module(game).replay_deal(case))
    result = importlib.import_module(GAMES[game].referee).replay(case)
    return with_card_at_fault(case, {k: v for k, v in result.items() if k != "message"})


def _as_read(case):
    """A case given from Python as a replay file's line would read: numpy's numbers as
    Python's, tuples as lists; a value JSON has no form for (a set, whose order is lost) is
    a MalformedCase naming it."""
    import numpy as np

    def as_python(value):
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            return value.item()
        raise MalformedCase(f"a case holds what a JSON line can: {type(value).__name__} {value!r:.60} is none of it")

    try:
        return json.loads(json.dumps(case, default=as_python))
    except MalformedCase:
        raise
    except (TypeError, ValueError, RecursionError) as exc:  # a key JSON has no form for (a tuple), nested too deep
        raise MalformedCase(f"a case holds what a JSON line can: {one_line(exc)}") from None


def with_card_at_fault(case: dict, outcome: dict) -> dict:
    """A deal that does not match its deck (an error at "hands" or "stock") names in "card"
    the first card that the deck does not hold, or holds fewer times, if there is one, in
    the line's order: hand by hand, then the stock."""
    if outcome.get("at") not in ("hands", "stock"):
        return outcome
    referee = importlib.import_module(GAMES[case["game"]].referee)
    left = Counter(referee.deck_for(rules_for(case["game"], case.get("rules"))))
    dealt = [card for hand in case["hands"] for card in hand]
    if outcome["at"] == "stock":
        dealt += case.get("stock") or []
    for card in dealt:
        left[card] -= 1
        if left[card] < 0:
            return {**outcome, "card": card}
    return outcome


def matches(expect: dict, outcome: dict) -> bool:
    return all(outcome.get(k) == v for k, v in expect.items()) and (
        "error" in expect or "error" not in outcome)


def describe(outcome: dict) -> str:
    if "error" in outcome:
        if outcome["error"] == "unsupported":
            return outcome["message"]
        card = outcome.get("card")
        card = "" if card is None else f" (card {card if _plain(card) else _shown(card)})"
        return f"illegal {outcome['error']} at {outcome.get('at')}{card}"
    if "bid" in outcome:  # Bid Euchre
        if outcome["bid"] == "pass":
            return "void deal"
        reneges = f", {len(outcome['reneges'])} renege(s)" if outcome.get("reneges") else ""
        return (f"{outcome['bid']} by seat {outcome['bidder']} in {outcome['trump']}, team tricks "
                f"{outcome['tricks']}, score {outcome['score']}{reneges}")
    if outcome["contract"] == "pass":
        return "passed out"
    dbl = ("", "X", "XX")[outcome["doubled"]]
    return (f"{outcome['contract']}{dbl} by seat {outcome['declarer']}, tricks {outcome['tricks']}, "
            f"score {outcome['score']}")


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.replay", description=" ".join(__doc__.split("\n\n")[1].split()))
    parser.add_argument("file", type=path_text, help="replay file, one JSON deal per line (RULES.md replay format)")
    parser.add_argument("--engine", choices=("reference", "kernel"), default="reference",
                        help="the readable referee (default) or the numba kernel")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON outcome object per input line instead of OK/MISMATCH")
    args = parser.parse_args(argv)
    try:
        with open_input(args.file, encoding="utf-8-sig") as fh:  # a byte-order mark is read past
            cases = parse_cases(fh)
    except OSError as exc:
        return parser.fail(one_line(f"cannot read {args.file}: {exc.strerror}"))
    except UnicodeDecodeError:
        return parser.fail(one_line(f"{args.file} is not UTF-8 text"))
    except MalformedCase as exc:
        return parser.fail(one_line(f"{args.file}: {exc}"))
    except SpoolError as exc:
        return parser.fail(exc)
    if not len(cases):
        return parser.fail(one_line(f"{args.file} holds no deals"))
    failed = unchecked = illegal = 0
    for number, case in cases:
        outcome = replay_case(case, args.engine)
        expect = case.get("expect") or None  # an empty one checks nothing: the deal is replayed, not checked
        ok = outcome.get("error") != "unsupported" and (expect is None or matches(expect, outcome))
        failed += not ok
        unchecked += expect is None
        illegal += expect is None and outcome.get("error", "unsupported") != "unsupported"
        game = case["game"] if case["game"] in GAMES else _shown(case["game"])
        if args.json:
            print(json.dumps(outcome))
        elif expect is None:
            print(f"line {number}: {game}: {describe(outcome)}")
        elif ok:
            print(f"line {number}: OK {game}: {describe(outcome)}")
        elif outcome.get("error") == "unsupported":
            print(f"line {number}: NOT SUPPORTED {outcome['message']}")
        else:
            got = {k: outcome.get(k) for k in (expect if "error" not in outcome else outcome)}
            print(f"line {number}: MISMATCH {game}: expected {json.dumps(expect)}, got {json.dumps(got)}")
    if not args.json:
        found = f"; {illegal:,} of these illegal" if illegal else ""
        without = f", {unchecked:,} of them without an expect (replayed, not checked{found})" if unchecked else ""
        print(f"{len(cases) - failed:,} of {len(cases):,} deals OK ({args.engine} engine){without}")
    return 1 if failed else 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.replay")
