"""python -m sim.show --game G --seed S --index N [--count K | --deal K] [--json], or RUN_DIR --deal I


One simulated game traced in words: hands, up-card, draws and discards, auction, every
trick with its winner and any Colon effect, and the scores. The same (seed, index) gives
the same game as in any run with that seed and the same rules and policies. With --json
each deal is printed instead as one line of the RULES.md replay format, ``expect``
filled with the engine's outcome, ready for ``python -m sim.replay``. With --dd each deal
also gets its double-dummy table and par (``python -m sim.solve``) and every card played
that cost its side tricks against double dummy (every hand seen, perfect play from that
card on): an analysis that sees all cards, not a fair judge of a player who cannot.
Given a run folder, the game, rules, policies, seed and a deal run's conditions are the
run's (its manifest): ``RUN_DIR --deal I`` shows the deal of row I of its deal records
(in a deal run, deal I), ``RUN_DIR --index N [--deal K]`` game N of it.
"""

from __future__ import annotations

import json
from pathlib import Path

from sim.cli import LARGEST_COUNT, deal_number, exit_with, flag_type, interruptible, path_text, say
from sim.games import DEFAULT_GAME, GAME_NAMES, game_module
from sim.rules import overrides
from sim.run import USER_ERRORS, OneLineParser, add_rule_flags, index_value, seed_value

REPLAY_KEYS = ("game", "rules", "dealer", "hands", "stock", "discards", "calls", "trump", "trump_exchange",
               "play", "expect")


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.show", description=__doc__.split("\n\n")[1])
    parser.add_argument("run", type=path_text, nargs="?", metavar="RUN_DIR",
                        help="a finished run folder: its game, rules, policies, seed and deal-run conditions")
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--seed", type=seed_value, help="the run's seed (required without RUN_DIR)")
    parser.add_argument("--index", type=index_value, help="the game's index in the run (0-based; required "
                                                          "without RUN_DIR)")
    parser.add_argument("--deal", type=deal_number, help="show only this counted deal of the game (0-based); with "
                                                         "RUN_DIR and no --index, the deal of row I of its deal records")
    parser.add_argument("--count", type=flag_type(_games_shown), default=1,
                        help=f"show games --index .. --index + COUNT - 1 (default 1, at most {MOST_SHOWN:,}): with "
                             "--json, every deal of them for a referee to replay")
    parser.add_argument("--json", action="store_true", help="print each deal as a replay-format JSON line, with "
                                                            "its game's index and whether it counted (C-5)")
    parser.add_argument("--dd", action="store_true",
                        help="add each deal's double-dummy table and par and the tricks each card played lost")
    add_rule_flags(parser)
    args = parser.parse_args(argv)
    from sim.resolve import resolve_policies, resolve_rules

    plan = None
    try:
        if args.run is not None:
            args.game, rules, policies, args.seed, plan, played = from_run(args, parser)
            if args.index is None:
                args.index, args.deal = deal_row(Path(args.run), args.deal)
            elif args.index + args.count > played:
                return parser.fail(f"--index {args.index}" + (f" --count {args.count}" if args.count > 1 else "")
                                   + f": {args.run} played {'deals' if plan is not None else 'games'} 0.."
                                     f"{played - 1}")
        else:
            missing = [flag for flag, value in (("--seed", args.seed), ("--index", args.index)) if value is None]
            if missing:
                parser.error(f"the following arguments are required: {', '.join(missing)} (or RUN_DIR)")
            rules = resolve_rules(args.game, args.rules, args.set_options)
            policies = resolve_policies(args.game, args.policy)
        if args.count > 1 and args.deal is not None:
            parser.error("--deal picks a deal of one game: leave out --count")
        end = args.index + args.count
        if end > LARGEST_COUNT:
            parser.error(f"--index {args.index} --count {args.count}: game indices go up to 2**53-1")
        module = game_module(args.game)
        solver = None
        if args.dd:
            from sim.dd import Solver

            solver = Solver()
        for start in range(args.index, end, SHOWN_AT_ONCE):  # a chunk's traces held at a time, not the range's
            indices = list(range(start, min(start + SHOWN_AT_ONCE, end)))
            games, traces = module.trace_games(rules, policies, args.seed, indices, plan)
            for index, game, deals in zip(indices, games, traces):
                counted = [d for d in deals if d["counted"]]
                if args.deal is not None and not 0 <= args.deal < len(counted):
                    return parser.fail(f"--deal {args.deal}: game {args.index} has deals 0..{len(counted) - 1}")
                show_game(module, rules, args, index, game, deals if args.deal is None else [counted[args.deal]],
                          deals, solver)
    except USER_ERRORS as exc:
        return parser.fail(exc)
    return 0


MOST_SHOWN = 100_000  # games one sim.show prints
SHOWN_AT_ONCE = 500  # games traced at a time: the traces of a chunk are held, not the whole range's


def _games_shown(text) -> int:
    from sim.cli import whole_count

    return whole_count(text, MOST_SHOWN)


def replay_line(rules, deal: dict, index: int) -> dict:
    """A traced deal as a replay-format line (``--json``), with its game's ``index`` and
    whether it ``counted`` (a passed-out deal that is redealt does not, C-5)."""
    line = {"rules": overrides(rules), **{k: deal[k] for k in REPLAY_KEYS if k in deal and k != "rules"}}
    return {**line, "index": index, "counted": deal["counted"]}


def show_game(module, rules, args, index: int, game, chosen: list, deals: list, solver=None) -> None:
    """Print game ``index``'s ``chosen`` deals (of all its ``deals``): in words, or with
    --json as replay lines; with --dd each deal's double-dummy analysis by ``solver``."""
    cases = [replay_line(rules, deal, index) for deal in chosen]
    if args.json:
        for case in cases:
            if args.dd:
                case["dd"] = dd_analysis(case, solver)
            print(json.dumps(case))
        return
    print(module.describe_game(rules, game, deals, args.seed, args.deal))
    if args.dd:
        from sim.solve import describe, describe_losses

        for number, case in enumerate(cases):
            analysis = dd_analysis(case, solver)
            print(f"\ndeal {number} of those shown:")
            print("\n".join(describe(analysis)[1:] + describe_losses(analysis["cards"])))
    if args.count > 1:
        print()


def from_run(args, parser):
    """(game, rules, policies, seed, dealing plan or None, games played) of the run folder
    ``args.run``, refusing the flags that would make it another run."""
    from sim.resolve import resolve_policies, resolve_rules
    from sim.dealing import from_dict, plan
    from sim.store import RunError, read_manifest
    from sim.store.reading import check_run_folder

    given = [flag for flag, value in (("--seed", args.seed), ("--rules", args.rules), ("--set", args.set_options),
                                      ("--policy", args.policy)) if value]
    if given:
        parser.error(f"{given[0]} comes from the run folder's manifest; leave it out with RUN_DIR")
    folder = Path(args.run)
    check_run_folder(folder)
    manifest = read_manifest(folder)
    try:
        config = manifest["config"]
        game, seed, version = config["game"], config["seed"], config["rules_version"]
        played = manifest.get("games_played", config["games"])  # fewer where --until stopped it
        rules, names, dealing = config["rules"], config["policies"], config.get("dealing")
    except KeyError:
        raise RunError(f"{folder}/manifest.json is unreadable or not a run manifest") from None
    from sim.version import RULES_VERSION

    if "game" in parser.given and args.game != game:  # a --game of its own: the run's is another
        parser.error(f"--game {args.game}: {folder} is a {game} run; leave out --game with RUN_DIR")
    if version != RULES_VERSION:
        raise RunError(f"{folder} was played by rules version {version}, this simulator is version "
                       f"{RULES_VERSION}: its deals would not be shown as they were played")
    rules = resolve_rules(game, rules)
    policies = resolve_policies(game, {seat: name for seat, name in enumerate(names)})
    if [p.kernel_params() for p in policies] != config.get("policy_params", [p.kernel_params() for p in policies]):
        raise RunError(f"{folder} was played with other policy parameters than {', '.join(names)} have now")
    deal_run = from_dict(dealing)
    return game, rules, policies, seed, plan(game, rules, deal_run) if deal_run.deal_run else None, played


def deal_row(folder: Path, row: int | None) -> tuple[int, int]:
    """(game index, counted deal in the game) of row ``row`` of the run's deal records, read
    from the one block file that holds it."""
    import pyarrow.parquet as pq

    from sim.store import RECORD_KINDS, RunError, check_records, read_manifest, run_digest
    from sim.store.holder import writer_of

    if row is None:
        raise RunError("give --deal I (a row of the run's deal records) or --index N with a run folder")
    manifest = read_manifest(folder)
    if "deals" not in RECORD_KINDS.get(manifest["config"]["records"], ()):
        raise RunError(f"{folder} kept no deal records; give --index N (and --deal K) to show game N of it")
    done = set(manifest.get("blocks_done", ()))
    writer = None if manifest.get("complete") else writer_of(folder)
    being = (f"{folder} is still being written ({len(done)} of {manifest.get('blocks', '?')} blocks done; {writer})"
             if writer else None)
    n = 0
    while n < manifest.get("blocks", 0) and n in done:  # the blocks played in order: their rows count from 0
        n += 1
    first = 0
    for file in (folder / "records" / f"deals-{i:06d}.parquet" for i in range(n)):
        check_records(folder, [file], run_digest(manifest["config"]))  # a damaged file is named, not read
        rows = pq.ParquetFile(file).metadata.num_rows
        if 0 <= row - first < rows:
            table = pq.read_table(file, columns=["game", "deal"]).slice(row - first, 1).to_pylist()[0]
            if being:  # a reader of a run still being written says so; this deal's block is kept
                say(f"{being}: deal row {row} is of a block already kept")
            return int(table["game"]), int(table["deal"])
        first += rows
    raise RunError(f"--deal {row}: {folder} holds deal rows 0..{first - 1}" + (f" so far: {being}" if being else ""))


def dd_analysis(case: dict, solver) -> dict:
    """A deal's double-dummy table, par and the cards played against double dummy, solved by
    ``solver`` (a sim.dd.Solver, one for every deal shown: its table is megabytes)."""
    from sim.solve import card_losses, deal_from_case, solve

    def analysed():
        result = solve(deal_from_case(case, None, "deal"), solver, None)
        result["cards"] = card_losses(solver, case)
        return result

    return interruptible(analysed)  # a command hears Ctrl-C while the deal is solved


if __name__ == "__main__":
    exit_with(main, "python -m sim.show")
