"""python -m sim.sweep --game G --vary TABLE.KEY=V1,V2,... [--vary ...] --games N [options]

Plays a grid of rule settings (the cartesian product of every --vary) on common random
numbers: every setting is a run of the same seed, games, block size and policies, so game
i deals the same cards in every setting until the varied rule makes the games part.
Reports each metric (builtin, or custom: an expression over the records, sim.custom)
per setting with its difference from the first setting, paired game by game
(sim.comparison), and the balance point where a metric crosses its even value over a
numeric grid; draws the plot. Each setting is an ordinary run folder under --out,
so a sweep resumes, and any setting can be studied like any other run.

With --control (deal runs, sim.multilevel) each setting is a multilevel estimate instead:
the --policy players on --deals deals and cheaper levels on the same deals, each setting
with its own levels on the same seed, in a multilevel folder under --out; differences from
the first setting are paired deal by deal through each deal's influence on both estimates,
and balance points are bracketed by the multilevel intervals (the plain intervals of the
target's deals alone beside them).
"""

from __future__ import annotations

import json
from pathlib import Path

from sim.cli import path_text, say, stopped
from sim.games import DEFAULT_GAME, GAME_NAMES
from sim.metrics import METRICS, MetricsError, parse_metrics
from sim.multilevel import add_control_flags, check_control_flags
from sim.run import (
    OneLineParser, USER_ERRORS, add_cluster_flag, add_dealing_flags, add_rule_flags, block_size_value,
    check_conditions_file, count, dealing_of, seed_value,
)
from sim.store import RECORD_MODES
from sim.sweep.grid import SweepError, parse_vary
from sim.sweep.output import format_report, plot, save_tables
from sim.sweep.play import default_sweep_out, sweep
from sim.until import until_argument


def build_parser():
    p = OneLineParser(prog="python -m sim.sweep", description=__doc__.split("\n\n")[1])
    p.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME, help=f"game to play (default {DEFAULT_GAME})")
    p.add_argument("--vary", action="append", default=[], metavar="TABLE.KEY=V1,V2,...",
                   help="an option and its values (repeatable; the grid is every combination); "
                        "values are read as --set reads them")
    p.add_argument("--games", type=count, help="whole games per setting; 1e5 works")
    p.add_argument("--deals", type=count, help="instead of --games: independent deals per setting (sim.dealing), "
                                               "paired deal by deal")
    add_dealing_flags(p)
    p.add_argument("--seed", type=seed_value, default=1, help="seed shared by every setting (default 1)")
    p.add_argument("--threads", type=count, help="worker threads (default: all cores)")
    add_rule_flags(p)
    p.add_argument("--out", type=path_text,
                   help="sweep folder, one run folder per setting inside "
                        "(default runs/sweep-<game>-<keys>-<seed>-<games>); an existing one resumes")
    p.add_argument("--metrics", action="append", metavar="M1,M2,...",
                   help=f"metrics to report, comma-separated, repeatable (default all: {', '.join(METRICS)}); "
                        "a custom one is NAME = mean(EXPR) [where COND] [balance V] or NAME = sum(EXPR) / "
                        "sum(EXPR) ... over the deal or game columns (commas inside parentheses or quotes "
                        "do not separate)")
    p.add_argument("--records", choices=RECORD_MODES, default="deals",
                   help="records each setting keeps (default deals; without them metrics come from the "
                        "summaries, unpaired, where they can)")
    p.add_argument("--block-size", type=block_size_value, default=None,
                   help="games per block (default 50000, at most 1,000,000)")
    p.add_argument("--plot", type=path_text, metavar="PATH", help="where to draw the plot (default <out>/sweep.png)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors and the result")
    add_control_flags(p)
    p.add_argument("--until", type=until_argument, metavar="METRIC:HALF_WIDTH",
                   help="with --control: grow each setting's levels until the metric's 95%% half-width is at most "
                        "HALF_WIDTH (any deal metric, or one named in --metrics), --deals being each setting's cap")
    add_cluster_flag(p, "; --out must then be a folder every worker shares")
    return p


def _setting_rules(args, grid) -> list[tuple[list, object]]:
    """Each setting's options and rules (None where they do not resolve: the sweep names
    those as it plays)."""
    from sim.resolve import resolve_rules
    from sim.sweep.grid import setting_options, settings_of

    out = []
    for setting in settings_of(grid):
        options = setting_options(setting)
        try:
            out.append((options, resolve_rules(args.game, args.rules, list(args.set_options) + options)))
        except ValueError:
            out.append((options, None))
    return out


def _check_conditions(args, settings) -> None:
    """A conditions file, read once, checked against the rules of every setting that
    resolves, before any plays."""
    from sim.dealing import read_conditions

    given = read_conditions(args.conditions)
    for options, setting_rules in settings:
        if setting_rules is None:
            continue
        try:
            check_conditions_file(args.game, args.conditions, given, setting_rules)
        except ValueError as exc:
            raise type(exc)(f"{', '.join(options)}: {exc}") from None


def _searchable(game: str, settings) -> bool:
    """Whether players that sample worlds can play every setting (not Bid Euchre's double
    deck, which a setting may turn on): only then is the sweep with stronger players offered."""
    from sim.dd_run import samplers_refused
    from sim.games import game_info

    return not any(rules is not None and samplers_refused(game_info(game), rules) for _, rules in settings)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_control_flags(args, parser)
    try:
        # None: sweep's defaults (with --control the dealer's advantage alone: a strong player is dear)
        metrics = None if args.metrics is None else parse_metrics(args.metrics)
        grid = parse_vary(args.vary, args.set_options)
        if args.threads is not None and args.cluster is None:
            import numba

            if args.threads > numba.config.NUMBA_NUM_THREADS:
                parser.error(f"--threads {args.threads} exceeds the {numba.config.NUMBA_NUM_THREADS} "
                             "threads available")
        log = None if args.quiet else say
        from sim.headline import same_question
        from sim.resolve import resolve_rules

        rules = resolve_rules(args.game, args.rules, args.set_options)
        dealing = dealing_of(args, parser)
        settings = _setting_rules(args, grid)
        if args.conditions:  # the file's own words checked under each setting's rules: a fault names its keys
            _check_conditions(args, settings)
        n = args.deals if dealing.deal_run else args.games
        out = Path(args.out) if args.out else default_sweep_out(args.game, grid, args.seed, n, dealing.deal_run)
        plot_path = Path(args.plot) if args.plot else out / "sweep.png"
        same = same_question(args.rules, args.set_options, dealing, rules, args.game)
        play = getattr(sweep, "__wrapped__", sweep)  # not the Python API's wrapper: errors name flags
        result = play(args.game, grid, n, args.seed, args.rules, args.set_options, args.policy, out, metrics,
                      args.records, args.block_size, args.cluster, args.threads, log, plot_path,
                      dealing if dealing.deal_run else None, args.control, args.control_deals, args.until)
        try:  # checked before playing, but a disk can still fill up: the tables are kept all the same
            result["plot"], problem = str(plot(result, plot_path)), None
        except SweepError as exc:
            result["plot"], problem = None, exc
        tables = save_tables(result)
    except (*USER_ERRORS, SweepError, MetricsError) as exc:
        return parser.fail(exc)
    except KeyboardInterrupt:
        return stopped("rerun the same command to resume the sweep")
    if args.json:
        print(json.dumps(result))
    else:
        from sim.headline import sweep_headline, sweep_next

        print("\n".join(sweep_headline(result)))
        print()
        print(format_report(result))
        print(f"\ntables: {tables[0]}, {tables[1]}")
        if result["plot"]:
            print(f"plot: {result['plot']}")
        offered = (same[0], same[1] and _searchable(args.game, settings))
        print("\n".join(sweep_next(result, args.records != "none", offered)))
    return parser.fail(f"{problem}; the tables are saved in {out}") if problem else 0
