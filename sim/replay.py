"""python -m sim.replay FILE.jsonl [--engine reference|kernel] [--json]

Replays deals written in the replay format of docs/rules.md, one JSON object per line, in the
readable reference referee or in the numba kernel. Exit status: 0 when every ``expect``
holds, 1 when one does not (or a deal's game is not supported yet), 2 for bad input.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter

from sim.cli import OneLineParser, exit_with
from sim.games import GAMES
from sim.rules import RulesError, rules_for


class MalformedCase(ValueError):
    pass


def parse_cases(lines) -> list[dict]:
    """Parse and check every line first, so a bad file produces no partial report."""
    cases, problems = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            check_case(case)
        except (json.JSONDecodeError, MalformedCase, RulesError) as exc:
            problems.append(f"line {number}: {exc}")
            continue
        cases.append((number, case))
    if problems:
        raise MalformedCase("; ".join(problems))
    return cases


def check_case(case) -> None:
    if not isinstance(case, dict):
        raise MalformedCase("not a JSON object")
    game = case.get("game")
    if not isinstance(game, str):
        raise MalformedCase("missing \"game\"")
    if game not in GAMES:
        return
    info = GAMES[game]
    for key in info.replay_keys:
        if key not in case:
            raise MalformedCase(f"missing \"{key}\"")
    seats = info.seats
    if case["dealer"] not in range(seats) or isinstance(case["dealer"], bool):
        raise MalformedCase(f"\"dealer\" must be a seat 0..{seats - 1}")
    for key in ("hands", "stock", "calls", "play"):
        value = case.get(key, [])
        if key == "hands":
            if not (isinstance(value, list) and all(isinstance(h, list) for h in value)):
                raise MalformedCase("\"hands\" must be a list of card lists")
            value = [c for h in value for c in h]
        if not (isinstance(value, list) and all(isinstance(c, str) for c in value)):
            raise MalformedCase(f"\"{key}\" must be a list of strings")
    discards = case.get("discards", [])
    if not (isinstance(discards, list) and len(discards) <= seats
            and all(isinstance(d, list) and all(isinstance(c, str) for c in d) for d in discards)):
        raise MalformedCase("\"discards\" must be a list of card lists, one per seat")
    if "expect" in case and not isinstance(case["expect"], dict):
        raise MalformedCase("\"expect\" must be an object")
    rules_for(game, case.get("rules"))


def replay_case(case: dict, engine: str) -> dict:
    """One case's outcome in the chosen engine, or an "unsupported" marker."""
    from sim.games import game_module

    game = case["game"]
    if engine == "kernel":
        if game not in GAMES:
            return {"error": "unsupported", "message": f"game '{game}' is not in the kernel yet"}
        return with_card_at_fault(case, game_module(game).replay_deal(case))
    if game not in GAMES:
        return {"error": "unsupported", "message": f"game '{game}' is unknown"}
    result = importlib.import_module(GAMES[game].referee).replay(case)
    return with_card_at_fault(case, {k: v for k, v in result.items() if k != "message"})


def with_card_at_fault(case: dict, outcome: dict) -> dict:
    """A deal that does not match its deck (an error at "hands" or "stock") names in "card"
    the first card dealt that the deck does not hold, or holds fewer times, if there is one."""
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
        card = f" (card {outcome['card']})" if "card" in outcome else ""
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
    parser.add_argument("file", help="replay file, one JSON deal per line (RULES.md replay format)")
    parser.add_argument("--engine", choices=("reference", "kernel"), default="reference",
                        help="the readable referee (default) or the numba kernel")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON outcome object per input line instead of OK/MISMATCH")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as fh:
            cases = parse_cases(fh)
    except OSError as exc:
        return parser.fail(f"cannot read {args.file}: {exc.strerror}")
    except UnicodeDecodeError:
        return parser.fail(f"{args.file} is not UTF-8 text")
    except MalformedCase as exc:
        return parser.fail(f"{args.file}: {exc}")
    failed = 0
    for number, case in cases:
        outcome = replay_case(case, args.engine)
        expect = case.get("expect")
        ok = outcome.get("error") != "unsupported" and (expect is None or matches(expect, outcome))
        failed += not ok
        if args.json:
            print(json.dumps(outcome))
        elif expect is None:
            print(f"line {number}: {case['game']}: {describe(outcome)}")
        elif ok:
            print(f"line {number}: OK {case['game']}: {describe(outcome)}")
        elif outcome.get("error") == "unsupported":
            print(f"line {number}: NOT SUPPORTED {outcome['message']}")
        else:
            got = {k: outcome.get(k) for k in (expect if "error" not in outcome else outcome)}
            print(f"line {number}: MISMATCH {case['game']}: expected {json.dumps(expect)}, "
                  f"got {json.dumps(got)}")
    if not args.json:
        print(f"{len(cases) - failed} of {len(cases)} deals OK ({args.engine} engine)")
    return 1 if failed else 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.replay")
