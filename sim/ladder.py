"""python -m sim.ladder --game G [--games N] [--seed S] [--worlds 4,16] [--bid-worlds N] [--dd-games N]
                       [--threads T] [--rules FILE_OR_NAME] [--set KEY=VALUE] [--out DIR] [--json]

The policy ladder: random, the heuristic, pimc at each --worlds (its calls sampled from
--bid-worlds worlds, or the heuristic's) and dd, each measured
against the game's heuristic in one table. For each rung, a duplicate match of the rung (A)
against the heuristic (B) as sim.match plays it (A minus B points per deal, A's game win
rate, 95% intervals; in Bid Euchre both partners of A play the rung), and a --dd run (sim.dd_run)
of the same seed with the rung in A's seats and the heuristic elsewhere: the tricks the
rung's side loses against double dummy per deal it declares and per deal it defends, and
the share of the contracts (bids) it declares that it makes. dd sees every card: it is an
upper bound on card play, not a fair player.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from sim.cli import claim_folder, exit_with, path_text, plural, refuse_another, say, stopped
from sim.files import read_file
from sim.games import DEFAULT_GAME, GAME_NAMES, game_info, game_module
from sim.resolve import in_argument_words
from sim.rules import changes_words, variant_game
from sim.run import USER_ERRORS, OneLineParser, count, seed_value

KIND = "policy ladder"  # ladder.json's "kind": what marks a folder as the ladder's own
BASELINE = "heuristic"
DEFAULT_WORLDS = (4, 16)
DD_NOTE = "dd sees every card: an upper bound on card play, not a fair player"


class LadderError(ValueError):
    """An output folder the ladder cannot write (one line for the user)."""


def worlds_list(text: str) -> tuple[int, ...]:
    """--worlds: pimc's ``worlds`` values, comma-separated, each checked as pimc checks it;
    in increasing order, as the rungs are listed."""
    from sim.policies import PolicyError, parse_policy

    values = []
    for item in text.split(","):
        try:
            parse_policy(f"pimc:worlds={item.strip()}")
        except PolicyError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        value = int(float(item))
        if value in values:  # one rung per count: a second would play the same match again
            raise argparse.ArgumentTypeError(f"{text} lists {value} twice")
        values.append(value)
    return tuple(sorted(values))  # the rungs weakest first, and 16,4 the ladder 4,16 is


def bid_worlds_count(text: str) -> int:
    """--bid-worlds: pimc's ``bid_worlds``, checked as pimc checks it."""
    from sim.policies import PolicyError, parse_policy

    try:
        parse_policy(f"pimc:bid_worlds={text.strip()}")
    except PolicyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return int(float(text))


def rungs(game: str, worlds=DEFAULT_WORLDS, bid_worlds: int = 0) -> list[tuple[str, object]]:
    """(label, Policy) of each rung, weakest first: random, the heuristic, pimc at each
    ``worlds`` (with ``bid_worlds`` > 0 its calls sampled), dd."""
    from sim.policies import parse_policy

    calls = f",bid_worlds={bid_worlds}" if bid_worlds else ""
    specs = ["random", BASELINE, *(f"pimc:worlds={w}{calls}" for w in worlds), "dd"]
    return [(spec, parse_policy(spec, game)) for spec in specs]


# --- The --dd run ---------------------------------------------------------------------------

def side_aggregate(info, module, rules, deals, seats) -> dict:
    """A block's double-dummy figures of the side playing ``seats`` (its team's two seats
    together in Bid Euchre): exact histograms of its tricks lost per deal it declared and
    per deal it defended, and [deals declared, made]. Blocks merge with sim.summary.merge."""
    from sim.dd_run import _played, _role, roles
    from sim.summary import histogram

    played = _played(info, deals)
    defender = roles(info).index("defender")
    role = np.stack([_role(info, deals, seat) for seat in seats])  # -1: the seat played no card
    declared = played & ((role >= 0) & (role != defender)).any(axis=0)
    lost = sum(np.maximum(np.asarray(deals[f"dd_lost{seat}"], np.int64), 0) for seat in seats)
    made = np.asarray(module.made_flags(rules, deals), bool)
    return {"deals": len(deals), "played": int(played.sum()),
            "declarer": histogram(lost[declared]), "defender": histogram(lost[played & ~declared]),
            "made": [int(declared.sum()), int((made & declared).sum())]}


def dd_run(game: str, rules, rung, baseline, seed: int, games: int) -> dict:
    """The --dd run of ``games`` games with ``rung`` in A's seats (sim.match's first play)
    and ``baseline`` elsewhere, played block by block here: the side's figures (means and
    rates with 95% intervals, as summary.json's double_dummy gives them) and its time."""
    from sim.match import _lineups, block_games
    from sim.summary import describe, merge, rate

    info, module = game_info(game), game_module(game)
    lineup = _lineups(game, rung, baseline)[0]
    seats = info.sides[0]
    total, began = None, time.perf_counter()
    block = block_games(rules)
    for first in range(0, games, block):
        deals, _ = module.run_block(rules, lineup, seed, first, min(block, games - first), True)
        part = side_aggregate(info, module, rules, deals, seats)
        total = part if total is None else merge(total, part)
    seconds = time.perf_counter() - began
    declared, made = total["made"]
    return {"games": games, "deals": total["deals"], "played": total["played"],
            "lost_as_declarer": describe(total["declarer"], 0), "lost_as_defender": describe(total["defender"], 0),
            "made_as_declarer": rate(made, declared),
            "seconds": seconds, "deals_per_s": total["deals"] / seconds if seconds > 0 else None}


# --- The ladder --------------------------------------------------------------------------------

def warm_up(game: str, rules, seed: int, notify=None) -> float:
    """Compile (or load from numba's cache) the game's kernels with and without --dd on one
    game, so that no rung's time counts it; the seconds it took. ``notify(line)`` is told
    first when the kernels must be compiled."""
    from sim.api import COMPILING_SEARCH, kernels_cached
    from sim.policies import parse_policy

    module = game_module(game)
    if notify is not None and not (kernels_cached(module) and kernels_cached(module, searching=True)):
        notify(COMPILING_SEARCH)
    began = time.perf_counter()
    lineup = [parse_policy(BASELINE, game)] * game_info(game).seats
    for dd in (False, True):
        module.run_block(rules, lineup, seed, 0, 1, dd)
    return time.perf_counter() - began


def check_rules(game: str, rules) -> None:
    """A RunError for rules its pimc rungs cannot play (sim.dd_run.refusal), before anything is."""
    from sim.dd_run import refusal
    from sim.store import RunError

    reason = refusal(game_info(game), rules, "the ladder's pimc rungs")
    if reason:
        raise RunError(reason)


def _checked_arguments(game, rules, seed, games, dd_games, worlds, bid_worlds):
    """ladder's arguments, checked as sim.simulate checks its own: (seed, games, dd_games,
    rules, worlds), the rules the game's (None: its defaults), the worlds in increasing
    order (the rungs weakest first), or a TypeError or ValueError naming the argument."""
    from sim.cli import seed_number, whole_count
    from sim.resolve import checked
    from sim.rules import RulesError

    module = game_module(game)
    if rules is None:
        rules = module.RULES()
    elif not isinstance(rules, module.RULES):
        raise RulesError(f"rules must be {game}'s rules (sim.rules.rules_for({game!r}, ...)), got "
                         f"{type(rules).__name__}")
    if isinstance(worlds, str) or not isinstance(worlds, (list, tuple)) or not worlds:
        raise TypeError(f"worlds must be a list of pimc's world counts, e.g. (2, 16), got {worlds!r:.60}")
    for name, value in [*(("worlds", w) for w in worlds), ("bid_worlds", bid_worlds)]:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must hold whole numbers, got {value!r:.60}")
    if len(set(worlds)) < len(worlds):
        raise ValueError(f"worlds lists a count twice ({worlds!r:.60}): one rung per count")
    return (checked("seed", seed_number, seed), checked("games", whole_count, games),
            checked("dd_games", whole_count, dd_games), rules, tuple(sorted(worlds)))


@in_argument_words
def ladder(game: str, rules, seed: int, games: int, dd_games: int, worlds=DEFAULT_WORLDS, progress=None,
           bid_worlds: int = 0) -> dict:
    """Every rung's match against the heuristic, --dd run and speed: the JSON-ready result.

    A rung's speed is the deals of both plays of its match over the match's wall time, the
    kernels warm: the rung plays half the seats, the heuristic the rest (the --dd run's own
    rate, every deal also valued double dummy, is given beside it). ``progress(line)`` is
    called as each rung starts (and before compiling the kernels)."""
    import numba

    from sim.match import play_match
    from sim.policies import parse_policy
    from sim.rules import overrides

    seed, games, dd_games, rules, worlds = _checked_arguments(game, rules, seed, games, dd_games, worlds, bid_worlds)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a function of one line of text or None, got {progress!r:.60}")
    check_rules(game, rules)
    baseline = parse_policy(BASELINE, game)
    ladder_rungs = rungs(game, worlds, bid_worlds)  # each checked before the kernels warm up
    threads = numba.get_num_threads()
    compile_seconds = warm_up(game, rules, seed, progress)
    out = []
    for k, (label, policy) in enumerate(ladder_rungs, 1):
        if progress is not None:
            progress(f"rung {k}/{len(ladder_rungs)}: {label}: a duplicate match of {plural(games, 'game')} "
                     f"against {BASELINE}, then a --dd run of {plural(dd_games, 'game')}")
        began = time.perf_counter()
        match = play_match(game, policy, baseline, games, seed, rules)
        seconds = time.perf_counter() - began
        out.append({
            "policy": label, "sees_all_cards": policy.name == "dd", "reference": label == BASELINE,
            "match": match,
            "dd_run": dd_run(game, rules, policy, baseline, seed, dd_games),
            "speed": {"deals": match["deals_played"], "seconds": seconds,
                      "deals_per_s": match["deals_played"] / seconds if seconds > 0 else None,
                      "threads": threads, "warm": True},
        })
    return {"kind": KIND, "game": game, "baseline": BASELINE, "seed": seed, "games": games, "dd_games": dd_games,
            "worlds": list(worlds), "bid_worlds": bid_worlds, "rules": overrides(rules), "threads": threads,
            "compile_seconds": compile_seconds, "rungs": out}


# --- Output ----------------------------------------------------------------------------------

CSV_COLUMNS = ("policy", "sees_all_cards", "paired_deals", "diff_per_deal", "diff_ci_low", "diff_ci_high",
               "win_rate", "win_ci_low", "win_ci_high", "dd_deals", "declared", "lost_as_declarer",
               "lost_as_declarer_ci_low", "lost_as_declarer_ci_high", "defended", "lost_as_defender",
               "lost_as_defender_ci_low", "lost_as_defender_ci_high", "made_as_declarer", "made_ci_low",
               "made_ci_high", "deals_per_s", "match_seconds", "dd_run_deals_per_s", "dd_run_seconds", "threads")


def csv_rows(result: dict) -> list[list]:
    """One flat row per rung (ladder.csv), in the order of CSV_COLUMNS: the figures of
    ladder.json, intervals split in two columns; an empty cell where there is no figure (one
    pair has no interval)."""
    def pair(bounds):
        return bounds if bounds is not None else (None, None)

    rows = []
    for r in result["rungs"]:
        m, dd, speed = r["match"], r["dd_run"], r["speed"]
        decl, defn, made = dd["lost_as_declarer"], dd["lost_as_defender"], dd["made_as_declarer"]
        rows.append([
            r["policy"], r["sees_all_cards"], m["deals"], m["mean_diff_per_deal"], *pair(m["ci95"]),
            m["a_game_win_rate"], *pair(m["a_game_win_ci95"]), dd["deals"],
            decl["n"], decl.get("mean"), *pair(decl.get("mean_ci95")),
            defn["n"], defn.get("mean"), *pair(defn.get("mean_ci95")),
            made["rate"], *pair(made["ci95"]), speed["deals_per_s"], speed["seconds"],
            dd["deals_per_s"], dd["seconds"], speed["threads"]])
    return rows


def _rate(per_second) -> str:
    """'123,456' or '7.43' deals a second, '-' when not timed."""
    if per_second is None:
        return "-"
    return f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"


def table_lines(result: dict) -> list[str]:
    """The printed report: a heading, one row per rung, and what the columns mean."""
    from sim.dd_run import mean_text
    from sim.match import _ci
    from sim.summary import percent

    info = game_info(result["game"])
    head = ["policy", f"A minus B per {info.deal} [95% CI]", "A's game wins [95% CI]",
            "lost as declarer", "lost as defender", f"{info.contract}s made", f"{info.deal}s/s"]
    rows = []
    for r in result["rungs"]:
        m, dd, speed = r["match"], r["dd_run"], r["speed"]
        label = r["policy"] + (" (B itself)" if r["reference"] else "") + (" *" if r["sees_all_cards"] else "")
        ci = _ci(m["ci95"], "{:+z.2f}").removeprefix("95% CI ")
        wins = _ci(m["a_game_win_ci95"], "{:.1%}").removeprefix("95% CI ")
        rows.append([label, f"{m['mean_diff_per_deal']:+z.2f} {ci}", f"{100 * m['a_game_win_rate']:.1f}% {wins}",
                     mean_text(dd["lost_as_declarer"]), mean_text(dd["lost_as_defender"]),
                     percent(dd["made_as_declarer"]).strip(),
                     _rate(speed["deals_per_s"])])
    widths = [max(len(row[c]) for row in [head, *rows]) for c in range(len(head))]
    side = "team" if info.teams else "seat"
    declared = "bid" if info.dd_solver == "euchre" else "declared"  # sim.dd_run's words
    lines = [f"{info.title} policy ladder against {result['baseline']} (B), seed {result['seed']}: duplicate matches "
             f"of {plural(result['games'], 'game')}, --dd runs of {plural(result['dd_games'], 'game')}; "
             f"{plural(result['threads'], 'thread')}", f"rules: {changes_words(result['rules'])}", ""]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head, *rows]]
    lines += ["", f"* {DD_NOTE}.",
              f"Tricks lost: per {info.deal} the rung's {side} {declared} or defended, against double dummy "
              f"in the --dd run, the rung in A's seats" + (" (its two seats together)" if info.teams else "")
              + f"; {info.contract}s made: the share of its {info.contract}s that it made.",
              f"{info.deal}s/s: {info.deal}s of both plays of the match over its wall time, kernels warm, "
              f"the rung in half the seats."]
    return lines


FILES = ("ladder.json", "ladder.csv")  # what the ladder writes in its folder


def _is_ladder_folder(out: Path) -> bool:
    """An empty folder, or one whose ladder.json the ladder wrote (it may write over it). A
    folder of the ladder's files alone whose ladder.json cannot be read is a LadderError
    naming that file. A temporary of a writer killed mid-write does not count."""
    from sim.store import listing

    names = listing(out) or set()
    if not names:
        return True
    try:
        return json.loads(read_file(out / "ladder.json")).get("kind") == KIND
    except (OSError, ValueError, AttributeError) as exc:
        if names <= set(FILES) and "ladder.json" in names:
            reason = (exc.strerror or exc if isinstance(exc, OSError) else "not a JSON object"
                      if isinstance(exc, AttributeError) else "not whole JSON: cut short or altered")
            raise LadderError(f"cannot read {out / 'ladder.json'} ({reason}): remove it to write the ladder there "
                              f"again, or use another --out") from None
        return False


IDENTITY = ("game", "seed", "games", "dd_games", "worlds", "bid_worlds", "rules")  # what makes two ladders one


def prepare_out(out: Path, identity: dict):
    """Check (before anything is played), create and lock the output folder: the lock
    (``sim.store.FolderLock``, held until the ladder's files are written) keeps a second
    command from writing there at once. A folder holding the ladder of another
    configuration (``identity``: the IDENTITY fields) is refused, as sim.run refuses a run
    folder of another: its files would be written over."""
    from sim.placement import check_place
    from sim.store import FolderLock

    check_place(out, LadderError)  # not in a folder whose own command would then refuse it
    claim_folder(out, _is_ladder_folder, "ladder", LadderError)
    lock = FolderLock(out, "ladder")
    try:
        _check_out(out, identity)
    except BaseException:
        lock.release()
        raise
    return lock


def _check_out(out: Path, identity: dict) -> None:
    from sim.store import remove_dead_temporaries, temporary

    remove_dead_temporaries(out)
    for name in FILES:  # found now, not after every rung is played
        if (out / name).exists() and not (out / name).is_file():
            raise LadderError(f"{out / name} is not a file: move it away, or use another --out")
    probe = temporary(out / FILES[0])
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise LadderError(f"cannot write in output folder {out}: {exc.strerror or exc}") from None
    try:
        theirs = json.loads(read_file(out / "ladder.json"))
    except (OSError, ValueError):
        return
    worlds = theirs.get("worlds") if isinstance(theirs, dict) else None
    if isinstance(worlds, list) and all(isinstance(w, int) for w in worlds):  # kept in the order given before
        theirs = {**theirs, "worlds": sorted(worlds)}
    refuse_another(out, "a ladder", identity, theirs, LadderError, IDENTITY)


def _remove_if_empty(out: Path, made: bool) -> None:
    """Take away the output folder the ladder made, if it ended before writing in it."""
    if made:
        try:
            out.rmdir()  # only an empty folder goes
        except OSError:
            pass


def write_files(out: Path, result: dict) -> None:
    """ladder.json and ladder.csv, each written whole (sim.store.write_atomic)."""
    from sim.store import csv_bytes, write_atomic, write_json

    write_json(out / "ladder.json", result)
    write_atomic(out / "ladder.csv", csv_bytes(CSV_COLUMNS, csv_rows(result)))


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.ladder", description=__doc__.split("\n\n")[1])
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--games", type=count, default=200, help="games of each match, each played twice (default 200)")
    parser.add_argument("--dd-games", type=count, metavar="N", help="games of each --dd run (default: --games)")
    parser.add_argument("--seed", type=seed_value, default=1)
    parser.add_argument("--worlds", type=worlds_list, default=DEFAULT_WORLDS, metavar="W1,W2,...",
                        help="pimc rungs: worlds sampled per card (default 4,16)")
    parser.add_argument("--bid-worlds", type=bid_worlds_count, default=0, metavar="N",
                        help="pimc rungs: worlds sampled per call (0, the default: the heuristic's calls)")
    parser.add_argument("--threads", type=count, help="numba threads (default: all cores)")
    parser.add_argument("--rules", type=path_text, metavar="FILE_OR_NAME", help="variant file or shipped variant name")
    parser.game_of_rules = variant_game
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set_options")
    parser.add_argument("--out", type=path_text,
                        help="folder for ladder.json and ladder.csv (default runs/ladder-<game>-<seed>-<games>)")
    parser.add_argument("--json", action="store_true", help="print the JSON of ladder.json instead of the table")
    args = parser.parse_args(argv)
    from sim.resolve import resolve_rules
    from sim.rules import overrides

    out = Path(args.out or f"runs/ladder-{args.game}-{args.seed}-{args.games}")
    try:
        made = not out.exists()  # a folder this command makes goes again if it ends with nothing in it
    except OSError:
        made = False
    try:
        rules = resolve_rules(args.game, args.rules, args.set_options)
        import numba

        if args.threads is not None:
            if args.threads > numba.config.NUMBA_NUM_THREADS:
                parser.error(f"--threads {args.threads} exceeds the {numba.config.NUMBA_NUM_THREADS} threads available")
            numba.set_num_threads(args.threads)
        check_rules(args.game, rules)
        with prepare_out(out, {"game": args.game, "seed": args.seed, "games": args.games,
                               "dd_games": args.dd_games or args.games, "worlds": list(args.worlds),
                               "bid_worlds": args.bid_worlds, "rules": overrides(rules)}):
            play = getattr(ladder, "__wrapped__", ladder)  # not the Python API's wrapper: errors name flags
            result = play(args.game, rules, args.seed, args.games, args.dd_games or args.games, args.worlds,
                          lambda line: say(f"ladder: {line}"), args.bid_worlds)
            write_files(out, result)  # a folder that takes no file (full, read-only) is a RunError
    except (*USER_ERRORS, LadderError) as exc:
        _remove_if_empty(out, made)
        return parser.fail(exc)
    except KeyboardInterrupt:
        _remove_if_empty(out, made)
        return stopped("the ladder writes its files when every rung is done, so rerun the command")
    if args.json:
        print(json.dumps(result))
    else:
        print("\n".join(table_lines(result)))
        print(f"\nwritten: {out / 'ladder.json'}, {out / 'ladder.csv'}")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.ladder")
