"""python -m sim.show --game G --seed S --index N [--deal K] [--json]

One simulated game traced in words: hands, up-card, draws and discards, auction, every
trick with its winner and any Colon effect, and the scores. The same (seed, index) gives
the same game as in any run with that seed and the same rules and policies. With --json
each deal is printed instead as one line of the RULES.md replay format, ``expect``
filled with the engine's outcome, ready for ``python -m sim.replay``. With --dd each deal
also gets its double-dummy table and par (``python -m sim.solve``) and every card played
that cost its side tricks against double dummy (every hand seen, perfect play from that
card on): an analysis that sees all cards, not a fair judge of a player who cannot.
"""

from __future__ import annotations

import json

from sim.cli import exit_with
from sim.games import DEFAULT_GAME, GAME_NAMES, game_module
from sim.rules import overrides
from sim.run import USER_ERRORS, OneLineParser, add_rule_flags, index_value, seed_value

REPLAY_KEYS = ("game", "rules", "dealer", "hands", "stock", "discards", "calls", "trump", "trump_exchange",
               "play", "expect")


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.show", description=__doc__.split("\n\n")[1])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--seed", type=seed_value, required=True, help="the run's seed")
    parser.add_argument("--index", type=index_value, required=True, help="the game's index in the run (0-based)")
    parser.add_argument("--deal", type=int, help="show only this counted deal of the game (0-based)")
    parser.add_argument("--json", action="store_true", help="print each deal as a replay-format JSON line")
    parser.add_argument("--dd", action="store_true",
                        help="add each deal's double-dummy table and par and the tricks each card played lost")
    add_rule_flags(parser)
    args = parser.parse_args(argv)
    from sim.api import resolve_policies, resolve_rules

    try:
        module = game_module(args.game)
        rules = resolve_rules(args.game, args.rules, args.set_options)
        policies = resolve_policies(args.game, args.policy)
    except USER_ERRORS as exc:
        return parser.fail(exc)
    games, (deals,) = module.trace_games(rules, policies, args.seed, [args.index])
    counted = [d for d in deals if d["counted"]]
    if args.deal is not None and not 0 <= args.deal < len(counted):
        return parser.fail(f"--deal {args.deal}: game {args.index} has deals 0..{len(counted) - 1}")
    chosen = deals if args.deal is None else [counted[args.deal]]
    cases = [{"rules": overrides(rules), **{k: deal[k] for k in REPLAY_KEYS if k in deal and k != "rules"}}
             for deal in chosen]
    if args.json:
        for case in cases:
            if args.dd:
                case["dd"] = dd_analysis(case)
            print(json.dumps(case))
        return 0
    print(module.describe_game(rules, games[0], deals, args.seed, args.deal))
    if args.dd:
        from sim.solve import describe, describe_losses

        for number, case in enumerate(cases):
            analysis = dd_analysis(case)
            print(f"\ndeal {number} of those shown:")
            print("\n".join(describe(analysis)[1:] + describe_losses(analysis["cards"])))
    return 0


def dd_analysis(case: dict) -> dict:
    """A deal's double-dummy table, par and the cards played against double dummy."""
    from sim.dd import Solver
    from sim.solve import card_losses, deal_from_case, solve

    solver = Solver()
    result = solve(deal_from_case(case, None, "deal"), solver, None)
    result["cards"] = card_losses(solver, case)
    return result


if __name__ == "__main__":
    exit_with(main, "python -m sim.show")
