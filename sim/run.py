"""python -m sim.run --games N [options], or --deals N [conditions]

Plays N whole games (Bridgette: 6 deals and any tie-breaks, B-15), or N independent deals
dealt under conditions (sim.dealing, sim.strata), into a run folder and prints a summary.
Rerunning the same command on the same folder resumes an interrupted run; the records do
not depend on --threads or --block-size, nor on whether a Dask cluster plays the blocks
(--cluster, see sim.cluster).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.cli import DEFAULT_BLOCK_SIZE, LARGEST_BLOCK, OneLineParser, block_size, exit_with, flag_type, game_index, \
    path_text, plural, say, seed_number, shell_word, stopped, whole_number
from sim.games import DEFAULT_GAME, GAME_NAMES, GameError, game_info, game_module
from sim.metrics import MetricsError
from sim.policies import POLICIES, PolicyError
from sim.placement import check_place
from sim.rules import GAMES, RulesError, changes_words, option_table, overrides, variant_game
from sim.store import RECORD_MODES, RunError
from sim.until import INTERVALS, until_argument
from sim.dealing import DealingError
from sim.multilevel import MultilevelError, add_control_flags, check_control_flags, play_cli

USER_ERRORS = (RulesError, PolicyError, RunError, GameError, DealingError, MetricsError, MultilevelError)


count = whole_number  # the flag type of a count: a positive whole number, also written as 1e6


block_size_value = flag_type(block_size)  # games per block, at most LARGEST_BLOCK
seed_value = flag_type(seed_number)
index_value = flag_type(game_index)  # a game's index in a run (sim.show --index)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m sim.run", description=__doc__.split("\n\n")[1])
    p.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME, help=f"game to play (default {DEFAULT_GAME})")
    p.add_argument("--games", type=count, help="whole games to play; 1e6 works")
    p.add_argument("--deals", type=count,
                   help="instead of --games: independent deals to play, deal i a pure function of (seed, i)")
    add_dealing_flags(p)
    add_stratify_flags(p)
    p.add_argument("--until", type=until_argument, metavar="METRIC:HALF_WIDTH",
                   help="play blocks until the metric's 95%% half-width is at most HALF_WIDTH (a rate's as a "
                        "proportion), --games being the cap; metrics: " + ", ".join(INTERVALS) +
                        "; with --control, any deal metric or one named in --metrics, --deals being the cap")
    add_control_flags(p)
    p.add_argument("--seed", type=seed_value, default=1, help="run seed (default 1): the same seed, the same games")
    p.add_argument("--threads", type=count, help="worker threads (default: all cores); records do not depend on it. "
                                                  "With --cluster: numba threads of each worker process")
    add_rule_flags(p)
    p.add_argument("--out", type=path_text,
                   help="run folder (default runs/<game>-<seed>-<games>); an existing one resumes")
    p.add_argument("--records", choices=RECORD_MODES, default="deals",
                   help="Parquet records to keep: per-deal and per-game rows (default), per-game rows, or none "
                        "(aggregates and summary only)")
    p.add_argument("--block-size", type=block_size_value, default=None,
                   help=f"games per block: one Parquet file and one resume point each (default 50000, "
                        f"at most {LARGEST_BLOCK:,})")
    p.add_argument("--dd", action="store_true",
                   help="also value every deal double dummy (every hand seen, perfect play): the deal records "
                        "gain its columns and the summary a section (docs/usage.md, 'Double-dummy runs'); much slower")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors (no progress bar, no summary)")
    add_cluster_flag(p, "; --out must then be a path every worker shares")
    p.add_argument("--list-options", action="store_true",
                   help="list every rule option of --game with its type, default and meaning, then exit")
    return p


def add_dealing_flags(p: argparse.ArgumentParser) -> None:
    """The deal-run flags (sim.dealing), shared by sim.run and sim.sweep."""
    p.add_argument("--conditions", type=path_text, metavar="FILE",
                   help="deal runs: dealer, upcard, [predeal] and [require] from a TOML file (sim.dealing); "
                        "the flags add to it")
    p.add_argument("--dealer", metavar="SEAT", help="deal runs: the dealer of every deal, or 'alternate' (default: "
                                                     "deal i is dealt by seat i mod the seats)")
    p.add_argument("--upcard", metavar="CARDS",
                   help="deal runs, Bridgette: the up-card's cards or classes, e.g. ace, face, numeral, colon, CG, "
                        "AS,AH")
    p.add_argument("--predeal", action="append", default=[], metavar="SEAT=CARDS",
                   help="deal runs: cards a seat holds as dealt, e.g. 0=CG,AS (repeatable)")
    p.add_argument("--require", action="append", default=[], metavar="SEAT:TERMS",
                   help="deal runs: ranges a seat's hand must meet, e.g. '0:hcp>=12,spades>=5' (repeatable; "
                        "features: clubs..spades, aces, hcp, colons, little, royal, grand; Bid Euchre "
                        "trumps_SUIT, bowers_SUIT, e.g. trumps_spades)")


def add_stratify_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stratify", metavar="NAME",
                   help="deal runs, Bridgette: one conditioned run per stratum, reweighted by exact "
                        "probabilities (sim.strata): upcard_class, little_holder, royal_holder, grand_holder")
    p.add_argument("--allocation", metavar="RULE",
                   help="with --stratify: deals per stratum, proportional (default), equal, neyman (from a pilot "
                        "of the dealer's advantage), or shares such as ace=0.5,face=0.25,numeral=0.25")
    p.add_argument("--metrics", action="append", metavar="M1,M2,...",
                   help="with --stratify or --control: metrics to estimate (default dealer_advantage, contract_made, "
                        "mean_score; with --control dealer_advantage); "
                        "builtin names or custom NAME = mean(EXPR) [where COND], as analysis.compare takes them")


def dealing_of(args, parser, rules=None):
    """The run's sim.dealing.Dealing from --games/--deals and the deal-run flags; with the
    run's ``rules``, a conditions file's own settings are also checked against its game
    (its dealer's seat, its cards), so that a fault names the file's key."""
    from sim.dealing import parse, read_conditions

    if (args.games is None) == (args.deals is None):
        parser.error("give either --games N (whole games) or --deals N (independent deals)")
    for flag in ("dealer", "upcard", "stratify", "allocation"):
        value = getattr(args, flag, None)
        if value is not None and not str(value).strip():
            parser.error(f"--{flag} '{value}' names nothing")
    if hasattr(args, "stratify"):  # sim.run's strata flags (sim.sweep has none)
        strata_flags_of(args)
    if args.conditions and args.games is not None:
        raise DealingError("--conditions applies to deal runs: play --deals N instead of --games N")
    given = read_conditions(args.conditions) if args.conditions else {"dealer": None, "upcard": None,
                                                                       "predeal": [], "require": []}
    if given["dealer"] is not None and args.dealer is not None:  # one dealer: the flags add only conditions
        raise DealingError(f"--dealer: the conditions file {args.conditions} already sets the dealer "
                           f"({given['dealer']}); give it once")
    if args.conditions:
        check_conditions_file(args.game, args.conditions, given, rules)
    upcard = ",".join(u for u in (given["upcard"], args.upcard) if u) or None
    return parse.__wrapped__("deals" if args.deals else "games", args.dealer or given["dealer"], upcard,
                 given["predeal"] + args.predeal, given["require"] + args.require)


def check_conditions_file(game: str, path, given: dict, rules=None) -> None:
    """A conditions file's own words (``given``, as read_conditions reads ``path``) checked
    alone, and with ``rules`` against its game, so that a fault names its key, not a flag."""
    from sim.dealing import parse, plan

    try:
        alone = parse.__wrapped__("deals", given["dealer"], given["upcard"], given["predeal"], given["require"])
        if rules is not None:
            plan(game, rules, alone)
    except DealingError as exc:
        words = str(exc)
        for flag, key in (("--dealer", "dealer"), ("--upcard", "upcard"), ("--predeal", "[predeal]"),
                          ("--require", "[require]")):
            words = words.replace(flag, key)
        raise DealingError(f"conditions file {path}: {words}") from None


def strata_flags_of(args) -> None:
    """--stratify takes --deals and no other condition; --allocation and --metrics need it."""
    if args.stratify:
        if args.games or args.upcard or args.predeal or args.require or args.conditions:
            raise DealingError("--stratify plays --deals N with its strata's own conditions, and no other: "
                               "drop --games, --upcard, --predeal, --require and --conditions")
        if args.until or args.dd:
            raise DealingError(f"--stratify does not take {'--until' if args.until else '--dd'}")
    elif args.allocation:
        raise DealingError("--allocation applies to --stratify runs")
    elif args.metrics and not getattr(args, "control", None):
        raise DealingError("--metrics applies to --stratify and --control runs (a plain run keeps every builtin "
                           "metric; analysis.compare, and analysis.report of two runs, take custom ones)")


def cluster_address(text: str) -> str:
    """``local:N`` or a Dask scheduler address, checked before anything starts."""
    from sim.cluster import parse_address

    try:
        parse_address(text)
    except RunError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_cluster_flag(p: argparse.ArgumentParser, note: str = "") -> None:
    """--cluster, shared by sim.run and sim.match."""
    p.add_argument("--cluster", type=cluster_address, metavar="ADDRESS",
                   help="play the blocks on a Dask cluster: a scheduler address (tcp://host:8786) or local:N "
                        f"(N worker processes on this machine){note}; the results are the same as without it")


def add_rule_flags(p: argparse.ArgumentParser) -> None:
    """--rules, --set and --policy, shared by sim.run, sim.show and sim.sweep."""
    p.game_of_rules = variant_game
    p.add_argument("--rules", type=path_text, metavar="FILE_OR_NAME",
                   help="variant file (TOML of RULES.md options) or a shipped variant's name, "
                        "e.g. bridgette-no-colons")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set_options",
                   help="override one option (repeatable): dotted RULES.md name = TOML literal; a bare word "
                        "is a string, e.g. --set exchange.upcard_to=dealer --set deck.colons='[\"grand\"]'")
    names = ", ".join(POLICIES)
    p.add_argument("--policy", action="append", default=[], metavar="SEAT=NAME[:param=value,...]",
                   help=f"policy of a seat (0, 1, ... or all; repeatable; default all=heuristic). Policies: {names}")


def list_options(game: str) -> str:
    rows = option_table(GAMES[game])
    lines = [f"Rule options of {game} (set in a variant file or with --set TABLE.KEY=VALUE):"]
    for row in rows:
        default = row["default"]
        shown = ("auto" if default is None
                 else "[" + ", ".join(f'"{c}"' for c in default) + "]" if row["type"] == "tuple"
                 else "[" + ",".join(map(str, default)) + "]" if row["type"] == "list"
                 else str(default).lower() if isinstance(default, bool)
                 else f'"{default}"' if isinstance(default, str) else str(default))
        kind = {"tuple": "list", "list": "integers", "str": "string", "int": "integer", "bool": "boolean"}[row["type"]]
        choices = (f" ({' | '.join(row['choices'])})" if row["choices"]
                   else f" ({row['low']:,} to {row['high']:,})" if row["type"] == "int" else "")
        if row["type"] == "list":  # a score table's row: how many entries, each in its range
            fewest, most = row["length"]
            count = fewest if fewest == most else f"{fewest} to {most}"
            choices = f" ({count} of {row['low']:,} to {row['high']:,})"
        lines.append(f"  {row['option']:32s} {kind:8s} default {shown:30s} {row['rule']:5s} "
                     f"{row['meaning']}{choices}")
    return "\n".join(lines)


def advantage_lines(game: str, summary: dict) -> list[str]:
    """The dealer's advantage with its 95% interval, overall and by up-card where kept."""
    from sim.metrics import METRICS

    adv = summary.get("dealer_advantage")
    if adv is None:
        return []
    info, metric = game_info(game), METRICS["dealer_advantage"]

    def shown(e):
        if e["value"] is None:
            return "-"
        ci = "" if e["ci95"] is None else f" [{metric.format(e['ci95'][0], True)}, {metric.format(e['ci95'][1], True)}]"
        return metric.format(e["value"], True) + ci

    who = f"the dealer's {info.side}'s {info.deal} score minus the other's"
    over = "deals" if "dealing" in summary else "games"
    lines = ["", f"dealer's advantage ({who}, {metric.unit_for(game)}, 95% interval over {over}): {shown(adv)}"]
    if "by_upcard" in adv:
        lines.append("  by up-card: " + "; ".join(f"{e['upcard']} {shown(e)}" for e in adv["by_upcard"] if e["deals"]))
    return lines


def play_stratified(args, rules, policies, dealing) -> int:
    """--stratify: every stratum's deal run, then the stratified tables."""
    from sim.metrics import parse_metrics
    from sim import strata

    out = args.out or strata.default_out(args.game, args.seed, args.deals, args.stratify)
    check_place(out)
    notify = None if args.quiet else say
    try:
        result = strata.run_stratified(args.game, rules, policies, args.seed, args.deals, out, args.stratify,
                                       args.allocation or "proportional", args.records,
                                       args.block_size or DEFAULT_BLOCK_SIZE, args.cluster, args.threads, notify,
                                       dealing.dealer,
                                       None if args.metrics is None else parse_metrics(args.metrics),
                                       args.control, args.control_deals)
    except KeyboardInterrupt:
        return stopped(f"rerun the same command to resume the strata in {out}")
    if not args.quiet:
        from sim.headline import strata_headline

        print("\n".join(strata_headline(result, policies, args.deals, args.seed)))
        print()
        print(f"{args.game}: {plural(args.deals, 'independent deal')}, seed {args.seed}; "
              f"policies {', '.join(f'{s}={p}' for s, p in enumerate(policies))}; folder {out}")
        print(strata.format_report(result))
        each = ("" if args.control else " (each stratum's folder, a run folder, has its own report)")
        print(f"\nnext:\n  python -m analysis.report {shell_word(out)}\n"
              f"      the strata's tables as HTML and CSV{each}")
    return 0


def dealing_line(section: dict) -> str:
    """A deal run's dealing, and the acceptance rate of its ranges where it has some."""
    line = section["description"]
    if "tries" in section:
        rate = section["acceptance"]  # a rare one in significant digits: 0.00053%, not 0.00%
        shown = f"{rate:.2%}" if rate >= 1e-4 or rate == 0 else f"{100 * rate:.2g}%"
        line += f"; {shown} of the deals tried met the conditions ({section['tries']:,} tried for {section['deals']:,})"
    return line


def until_words(until: dict) -> str:
    """The half-width --until reached, in words: none where the games played give no interval
    (a single game, say)."""
    width = until.get("achieved_half_width")
    return "no interval from so few" if width is None else f"half-width {width:.4g}"


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.list_options:
            other = [a.option_strings[0] for a in parser._actions if a.option_strings
                     and a.dest not in ("help", "list_options", "game", "rules")
                     and (a.dest in parser.given or getattr(args, a.dest) != a.default)]
            if other:  # not read: refused rather than passed over in silence
                parser.error(f"--list-options lists a game's rule options and takes only --game or --rules: "
                             f"drop {other[0]}")
            if args.rules is not None:  # the variant named must exist and be the game's
                from sim.api import resolve_rules

                resolve_rules(args.game, args.rules)
            print(list_options(args.game))
            return 0
        return play(args, parser)
    except USER_ERRORS as exc:
        return parser.fail(exc)


def play(args, parser) -> int:
    from sim.api import default_out, execute, resolve_policies, resolve_rules

    check_control_flags(args, parser)
    if args.control and args.deals is None:  # (sim.sweep.play says the same for a sweep)
        parser.error("--control plays deal runs: give --deals N")
    rules = resolve_rules(args.game, args.rules, args.set_options)
    dealing = dealing_of(args, parser, rules)
    policies = resolve_policies(args.game, args.policy)
    n, unit = (args.deals, "deal") if dealing.deal_run else (args.games, "game")
    import numba

    if args.threads is not None and args.cluster is None:
        if args.threads > numba.config.NUMBA_NUM_THREADS:
            parser.error(f"--threads {args.threads} exceeds the {numba.config.NUMBA_NUM_THREADS} threads available")
        numba.set_num_threads(args.threads)
    if args.stratify:  # with --control too: each stratum a multilevel estimate
        return play_stratified(args, rules, policies, dealing)
    if args.control:
        return play_cli(args, rules, policies, dealing)
    out = args.out or default_out(args.game, args.seed, n, unit)
    check_place(out)
    block_size = args.block_size or DEFAULT_BLOCK_SIZE
    progress = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        progress = tqdm(total=n, unit=f" {unit}s", unit_scale=True, smoothing=0.1,
                        desc=f"{args.game} seed {args.seed}", file=sys.stderr)
    if args.quiet:
        notify = None
    elif progress is not None:
        def notify(line):
            progress.write(line, file=sys.stderr)
    else:
        notify = say
    try:
        folder, summary, timing = execute(args.game, rules, policies, args.seed, n, out,
                                          args.records, block_size, progress, args.cluster, args.threads, notify,
                                          args.until, args.dd, dealing)
    except KeyboardInterrupt:
        if progress is not None:
            progress.close()
        if not (Path(out) / "manifest.json").exists():  # stopped before a block was kept: its run went with it
            return stopped("nothing was kept; rerun the same command to play it")
        return stopped(f"rerun the same command to resume the run in {out}")
    if progress is not None:
        progress.close()
    until = folder.manifest.get("until")
    if until is not None and not until["reached"]:
        print(f"--until {args.until}: the cap of {plural(n, unit)} was reached first "
              f"({until_words(until)}); the run is complete up to the cap", file=sys.stderr)
    if args.quiet:
        return 0
    from sim.headline import run_headline, run_next, same_question

    for line in run_headline(args.game, summary, policies, args.seed, dealing.deal_run):
        print(line)
    print()
    print(f"rules: {changes_words(overrides(rules))}; run folder {folder.path}")
    if dealing.deal_run:
        print(f"dealing: {dealing_line(summary['dealing'])}")
    if until is not None and until["reached"]:
        print(f"until {args.until}: reached after {plural(until['games_played'], unit)} ({until_words(until)})")
    print()
    print(game_module(args.game).format_summary(summary))
    for line in advantage_lines(args.game, summary):
        print(line)
    from sim.activity import format_lines

    for line in format_lines(summary.get("rule_activity", [])):
        print(line)
    if "double_dummy" in summary:
        from sim.dd_run import format_lines

        for line in format_lines(game_info(args.game), summary["double_dummy"]):
            print(line)
    if summary.get("unexplained_decisions"):
        print(f"searched decisions the opponent model could not explain: {summary['unexplained_decisions']:,} "
              "(made as the heuristic makes them; the deal records' `unexplained` column counts them)")
    print()
    if timing["games_played_now"]:
        if "cluster" in timing:
            where = timing["cluster"]
            each = where["threads_per_worker"]
            how = (plural(where["workers"], "worker process", "worker processes")
                   + (f" of {plural(each, 'thread')}" if each else "") + f" at {where['address']}")
        else:
            how = plural(numba.get_num_threads(), "thread")
        compiling = (f"; compiling the kernels took {timing['compile_seconds']:.1f} s more, not counted"
                     if timing.get("compiled") else "")
        print(f"{plural(timing['games_played_now'], unit)} played now in {timing['seconds']:.1f} s "
              f"({timing['games_per_second']:,.0f} {unit}s/s, {how}{compiling})")
    else:
        print("nothing left to play: the run folder was already complete")
    same = same_question(args.rules, args.set_options, dealing, rules, args.game)
    for line in run_next(args.game, folder.path, dealing.deal_run, n, policies, same):
        print(line)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.run")
