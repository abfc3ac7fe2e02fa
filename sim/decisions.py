"""python -m sim.decisions --game G --games N [--seed S] [--search POLICY] [--only D,...] [--json]

Where the points go: the heuristic with exactly one kind of decision replaced by its
searched version (the ``search`` policy with every other kind's worlds at 0), each in a
duplicate match against the heuristic itself (sim.match). A row per decision the game
has: the calls (C-4; Bid Euchre's E-3 bids and trump), the exchange (B-3; E-4), the draw
phase (D-2) and the card play, with the points per deal and the games won, each with its
95% interval. Players and designers see which decision the searched player gains by, so
which decisions a study's verdict turns on.
"""

from __future__ import annotations

import json
from dataclasses import replace

from sim.cli import exit_with, plural, say
from sim.games import game_info, game_module
from sim.match import _ci, add_match_flags, interrupted, play_match
from sim.policies import Policy, PolicyError, defaults, parse_policy
from sim.resolve import in_argument_words
from sim.rules import changes_words, overrides
from sim.run import USER_ERRORS, OneLineParser

# (decision, the ``search`` parameter whose worlds search it); the rules that decide it are
# each game's (sim.games.GameInfo.decided_by).
DECISIONS = (("calls", "call_worlds"), ("exchange", "exchange_worlds"), ("draw phase", "draw_worlds"),
             ("card play", "worlds"))
DECISION_NAMES = tuple(d for d, _ in DECISIONS)


def one_decision_players(game: str, search: Policy, only=DECISION_NAMES) -> list[tuple[str, str, Policy, Policy]]:
    """(decision, rules, A, B) for each decision of ``only`` that ``search`` searches in
    ``game``: A is ``search`` with every other decision's worlds at 0 (made as the
    heuristic makes it), B the heuristic with ``search``'s heuristic parameters, so A and B
    differ in that one decision alone."""
    values = dict(search.params)
    heuristic = Policy("heuristic", tuple((k, values[k]) for k in defaults("heuristic", game)), game)
    worlds = {param for _, param in DECISIONS if param in values}
    decided_by = game_info(game).decided_by
    out = []
    for decision, param in DECISIONS:
        if decision in only and values.get(param, 0) > 0:
            alone = tuple((k, 0.0 if k in worlds and k != param else v) for k, v in search.params)
            out.append((decision, decided_by[decision], replace(search, params=alone), heuristic))
    return out


@in_argument_words
def where_points_go(game: str, games: int, seed: int = 1, search: Policy | str | None = None, rules=None,
                    only=None, cluster=None, progress=None) -> list[dict]:
    """The match of each one-decision player against the heuristic (``one_decision_players``),
    as sim.match reports it, with the decision and its rules named; ``progress`` is called
    with each decision before its match. ``search``: the search policy (a Policy or its
    text; None: its defaults); ``only``: the decisions to measure (None: every one
    ``search`` searches in ``game``). A ``cluster`` is reached once, before any match (an
    address no scheduler answers is said before anything is played)."""
    from contextlib import ExitStack

    players = _checked_players(game, search, only, rules)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a function of a decision's name or None, got {progress!r:.60}")
    rows = []
    threads = None
    with ExitStack() as stack:
        if cluster is not None:
            from sim.cluster import open_cluster

            pool = stack.enter_context(open_cluster(cluster, None))
            cluster, threads = pool.client, pool.threads  # the threads it chose for each worker
        for decision, decided_by, a, b in players:
            if progress:
                progress(decision)
            result = play_match(game, a, b, games, seed, rules, cluster, threads)
            # "rules": the rules the decision is made by, as before; the options played, as the
            # match names them, are "rule_options".
            rows.append({"decision": decision, **result, "rules": decided_by, "rule_options": result["rules"]})
    return rows


def _checked_players(game: str, search, only, rules) -> list:
    """``one_decision_players`` once ``search`` is the game's search policy, ``only`` names
    decisions it searches there, each once, and the rules let it search; a PolicyError
    (a ValueError) naming what is not."""
    from sim.dd_run import refusal

    if search is not None and not isinstance(search, (str, Policy)):
        raise TypeError(f"search must be a search policy or its text (\"search:call_worlds=16\"), got {search!r:.60}")
    text = search if isinstance(search, str) else "search"
    if not isinstance(search, Policy):
        search = parse_policy(text, game)
    if search.name != "search":
        raise PolicyError(f"--search takes the search policy, got '{search.name}'")
    if search.game != game:
        raise PolicyError(f"--search holds the parameters of {search.game or 'no game'}, not of {game}: "
                          f"parse_policy(..., {game!r})")
    if only is not None:
        if isinstance(only, str) or not all(isinstance(d, str) for d in only):
            raise PolicyError(f"--only takes a list of decisions ({', '.join(DECISION_NAMES)}), got {only!r:.60}")
        if not only:
            raise PolicyError("--only names no decision")
        unknown = next((d for d in only if d not in DECISION_NAMES), None)
        if unknown is not None:
            raise PolicyError(f"unknown decision '{unknown}' in --only (known: {', '.join(DECISION_NAMES)})")
        twice = next((d for k, d in enumerate(only) if d in only[:k]), None)
        if twice is not None:
            raise PolicyError(f"--only names '{twice}' twice: each decision is measured once")
        has = [d for d, param in DECISIONS if param in dict(search.params)]
        missing = next((d for d in only if d not in has), None)
        if missing is not None:
            raise PolicyError(f"{game} has no {missing} to search (its decisions: {', '.join(has)})")
    reason = refusal(game_info(game), rules if rules is not None else game_module(game).RULES(), f"--search {text}")
    if reason:
        raise PolicyError(reason)
    players = one_decision_players(game, search, DECISION_NAMES if only is None else tuple(only))
    if not players:
        raise PolicyError(f"--search {text} searches none of the decisions asked for in {game}")
    measured = {decision for decision, *_ in players}
    unsearched = next((d for d in only or () if d not in measured), None)
    if unsearched is not None:  # asked for by name: said, not left out of the table in silence
        param = dict(DECISIONS)[unsearched]
        raise PolicyError(f"--search {text} does not search {unsearched} ({param}=0): give it worlds, or leave it "
                          f"out of --only")
    return players


def table_lines(rows: list[dict]) -> list[str]:
    """The table: a row per decision, points per deal and games won with 95% intervals."""
    lines = [f"{'decision searched':18s}{'points per deal, A - B':>36s}  {'games won by A':>28s}"]
    for r in rows:
        points = f"{r['mean_diff_per_deal']:+z.2f} {_ci(r['ci95'], '{:+z.2f}').replace('95% CI ', '')}"
        wins = f"{r['a_game_win_rate']:.1%} {_ci(r['a_game_win_ci95'], '{:.1%}').replace('95% CI ', '')}"
        lines.append(f"{r['decision']:18s}{points:>36s}  {wins:>28s}")
        if r["points_and_wins_disagree"]:
            lines.append(f"  {r['points_and_wins_disagree']}")
    return lines


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.decisions", description=__doc__.split("\n\n")[1])
    add_match_flags(parser, "games per decision, each played twice", "print one JSON list instead of the table")
    parser.add_argument("--search", default="search", metavar="POLICY",
                        help="the searched player whose decisions are taken one at a time (default: search with "
                             "the game's defaults), e.g. search:call_worlds=16")
    parser.add_argument("--only", metavar="DECISION,...",
                        help=f"decisions to measure (default every one the game has: {', '.join(DECISION_NAMES)})")
    args = parser.parse_args(argv)
    from sim.resolve import resolve_rules

    try:
        only = None if args.only is None else [d.strip() for d in args.only.split(",")]
        rules = resolve_rules(args.game, args.rules, args.set_options)
        progress = None if args.json else (lambda d: say(f"playing {d} ..."))
        play = getattr(where_points_go, "__wrapped__", where_points_go)  # not the API's wrapper: errors name flags
        rows = play(args.game, args.games, args.seed, args.search, rules, only, args.cluster, progress)
    except USER_ERRORS as exc:
        return parser.fail(exc)
    except KeyboardInterrupt:
        return interrupted("the matches keep nothing, so rerun the command to play them")
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{args.game}: where the points go, each decision searched alone against the heuristic; "
          f"{plural(args.games, 'duplicate game')} each, seed {args.seed}")
    print(f"rules: {changes_words(overrides(rules))}")
    for line in table_lines(rows):
        print(line)
    for r in rows:
        print(f"  {r['decision']}: A = {r['a']}")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.decisions")
