"""The Python API of runs, the same path as ``python -m sim.run``.

    import sim
    run = sim.simulate(game="bridgette", games=100_000, seed=7,
                       rules={"exchange": {"upcard_to": "dead"}},
                       policies={"all": "heuristic", 1: "random"})
    run.summary["contracts_made"]      # statistics, as in summary.json
    run.deals()                        # pandas DataFrame of the deal records
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from sim.aggregates import block_aggregates, merged_summary
from sim.blocks import Columns, check_room
from sim.cli import DEFAULT_BLOCK_SIZE, block_size as block_size_count, seed_number, whole_count
from sim.games import DEFAULT_GAME, GAME_NAMES, game_info, game_module
from sim.placement import check_place
from sim.policies import searches
from sim.resolve import (
    check_kind, check_path, check_rules, check_switch, checked, in_argument_words, resolve_policies, resolve_rules,
    texts, use_threads,
)
from sim.rules import variant_game
from sim.store import (
    RECORD_MODES, RunConfig, RunError, RunFolder, finished_manifest, load_records, read_manifest, read_summary,
    run_path,
)

MANIFEST_EVERY_S = 1.0  # on a cluster, how often the manifest's list of blocks done is rewritten


def default_out(game: str, seed: int, games: int, unit: str = "game") -> Path:
    """runs/<game>-<seed>-<games>, or runs/<game>-<seed>-<n>-deals for a deal run."""
    return Path("runs") / (f"{game}-{seed}-{games}" + ("-deals" if unit == "deal" else ""))


COMPILING = "compiling kernels, once per machine (about 20 s)..."
COMPILING_SEARCH = "compiling kernels with search code, once per machine (about 2 minutes)..."


def kernels_cached(module, searching: bool = False) -> bool:
    """Whether numba's on-disk cache holds the game's run kernel in the version a run
    needs: plain, or with search code when a seat searches or the run is --dd
    (kernels.engine: the plain one is compiled for a search context of None).
    kernels/__init__.py names the cache folder after the kernels' sources."""
    signatures = [key[0] for key in module.RUN_KERNEL._cache._cache_file._load_index()]
    return searching in searching_versions(signatures)


def searching_versions(signatures) -> set[bool]:
    """Which versions of a run kernel the argument types ``signatures`` are: True for one
    with search code, False for the plain one (its search context typed None)."""
    from numba import types

    return {not any(isinstance(t, types.NoneType) for t in args) for args in signatures}


def check_block_room(rules, games: int, block_size: int, deal_run: bool = False) -> None:
    """A RunError, before anything is played, when blocks of games that ``rules`` make long
    need room for more deal records than a block may hold (a deal run's deals are one
    each); sim.blocks refuses a block of games long by chance as it plays it."""
    check_room(min(games, block_size), 1 if deal_run else rules.fewest_deals(), "at least")


def execute(game: str, rules, policies, seed: int, games: int, out, records: str = "deals",
            block_size: int = DEFAULT_BLOCK_SIZE, progress=None, cluster=None,
            threads: int | None = None, notify=None, until=None, dd: bool = False,
            dealing=None) -> tuple[RunFolder, dict, dict]:
    """Play (or resume) a run into its folder: (folder, summary, timing).

    Before the first block, the kernels are compiled (or loaded from numba's cache) on one
    game, timed apart from the blocks (``timing["compile_seconds"]``, ``"compiled"``), and
    ``notify(COMPILING)`` (``COMPILING_SEARCH`` when a seat searches or the run is --dd) is
    called first when they are not cached yet.

    With ``cluster`` (a Dask scheduler address, ``local:N`` or a ``distributed.Client``) the
    blocks are played by its workers, ``threads`` numba threads each (see ``sim.cluster``);
    the folder ends the same as when they are played here.

    With ``until`` (``"dealer_advantage:0.5"``, see sim.until) ``games`` is the cap: blocks
    are played until the metric's 95% half-width over the blocks done is at most the width.

    With ``dd`` every deal is also valued double dummy (sim.dd_run): its records and the
    summary gain the double-dummy columns and section; rules the solver does not cover are
    a RunError.

    With ``dealing`` (a sim.dealing.Dealing of unit "deals") ``games`` independent deals are
    played, dealt as it says; conditions too rare to finish are a DealingError.
    """
    from sim.dealing import checked_plan
    from sim.until import Stopping, parse_until

    until = None if until is None else parse_until(until)
    if until is not None and cluster is not None:
        raise RunError("--until plays blocks in order and cannot be used with --cluster")
    if until is not None and until.metric == "deals_per_game" and dealing is not None and dealing.deal_run:
        raise RunError("--until deals_per_game: a deal run plays one deal a game, so it is always 1")
    if records not in RECORD_MODES:
        raise RunError(f"records must be one of {', '.join(RECORD_MODES)}, got '{records}'")
    games, block_size = checked("games", whole_count, games), checked("block size", block_size_count, block_size)
    deal_run = dealing is not None and dealing.deal_run
    check_block_room(rules, games, block_size, deal_run)
    module = game_module(game)
    from sim.dd_run import sampler_refusal

    reason = sampler_refusal(game, rules, policies)
    if reason:  # before the run folder is made
        raise RunError(reason)
    plan, acceptance = checked_plan(game, rules, dealing) if deal_run else (None, None)
    config = RunConfig(game=game, rules=rules.to_dict(), policies=[str(p) for p in policies],
                       policy_params=[p.kernel_params() for p in policies],
                       seed=int(seed), games=int(games), block_size=int(block_size), records=records,
                       until=None if until is None else str(until), dd=bool(dd),
                       dealing=None if plan is None else kept_dealing(out, dealing))
    if cluster is None:
        workers = nullcontext()
    else:
        from sim.cluster import open_cluster

        workers = open_cluster(cluster, threads)
    # The cluster is reached first (a bad address leaves no folder); the folder is then this
    # process's alone until the run ends.
    with workers as pool, RunFolder(out, config, notify) as folder:
        done = folder.done()
        stopping = None if until is None else Stopping(until, game, rules)
        if stopping is not None:
            todo = iter(_resume_until(stopping, folder, config.blocks(), done))
        else:  # made as they are played: a run may have more blocks than memory could list
            todo = (block for block in config.blocks() if block[0] not in done)
        next_block = next(todo, None)
        if next_block is not None:
            todo = itertools.chain([next_block], todo)
        compiled, compile_seconds = False, 0.0
        if pool is None and next_block is not None:
            searching = dd or searches(policies)
            compiled = not kernels_cached(module, searching)
            if compiled and notify is not None:
                notify(COMPILING_SEARCH if searching else COMPILING)
            began = time.perf_counter()
            module.run_block(rules, policies, seed, next_block[1], 1, dd, plan)
            compile_seconds = time.perf_counter() - began
        start = time.perf_counter()
        played = 0
        if progress is not None:
            progress.update(sum(config.blocks()[i][2] for i in done))
        if pool is None:
            # Each block is tabled, aggregated and written while the next one plays (the
            # kernels release the GIL), in order, one block behind at most.
            with ThreadPoolExecutor(max_workers=1) as writer:
                pending, pending_count = None, 0
                for index, first, count in todo:
                    deals, game_rows = module.run_block(rules, policies, seed, first, count, dd, plan)
                    if pending is not None:
                        aggregates = pending.result()
                        pending = None
                        if stopping is not None and stopping.add(aggregates, pending_count):
                            break  # the block just played is past the stopping block: not kept
                    pending = writer.submit(_write_block, folder, module, rules, policies, index, deals, game_rows,
                                            plan)
                    pending_count = count
                    played += count
                    if progress is not None:
                        progress.update(count)
                if pending is not None:
                    aggregates = pending.result()
                    if stopping is not None:
                        stopping.add(aggregates, pending_count)
        else:
            where = pool.describe()
            if next_block is not None:
                where["warm_up_seconds"] = pool.warm_up(game, rules, policies, folder.path.resolve())
            written = time.perf_counter()
            for index, count, aggregates in pool.play_blocks(game, rules, policies, seed, todo,
                                                             folder.path.resolve(), records, dd, plan):
                # Many workers can finish blocks faster than a long manifest is rewritten:
                # at most once a second (it may lag behind the blocks' files, never lead).
                due = time.perf_counter() - written >= MANIFEST_EVERY_S
                folder.mark_done(index, aggregates, manifest=due)
                if due:
                    written = time.perf_counter()
                played += count
                if progress is not None:
                    progress.update(count)
        elapsed = time.perf_counter() - start
        summary = merged_summary(game, rules, folder.aggregates(stopping.blocks if stopping else None), policies,
                                 None if plan is None else dealing, acceptance)
        timing = {"seconds": elapsed, "games_played_now": played,
                  "games_per_second": played / elapsed if elapsed > 0 else None,
                  "compiled": compiled, "compile_seconds": compile_seconds}
        if pool is not None:
            timing["cluster"] = where
        folder.finish(summary, timing, stopping.record() if stopping else None)
    return folder, summary, timing


def kept_dealing(out, dealing) -> dict:
    """``dealing`` as the run folder ``out`` recorded it, where it holds these conditions
    written in another form (a folder played before parse wrote terms in one form: ``hcp==12``
    for ``hcp=12``), so that the folder resumes as its own; else ``dealing.to_dict()``."""
    from sim.dealing import from_dict

    mine = dealing.to_dict()
    try:
        theirs = read_manifest(Path(out), played_by=False)["config"].get("dealing")
        return theirs if theirs != mine and from_dict(theirs) == dealing else mine
    except (RunError, OSError, KeyError, TypeError, ValueError, AttributeError):  # none, or not a run's: its checks say
        return mine


def _resume_until(stopping, folder, blocks, done) -> list:
    """Feed the blocks already done (written in order: a prefix) to ``stopping``; the blocks
    left to play, none when the target was reached among them."""
    for k, (index, first, count) in enumerate(blocks):
        if index not in done:
            return blocks[k:]
        if stopping.add(folder.read_block(index), count):
            return []
    return []


def _write_block(folder, module, rules, policies, index, deals, game_rows, plan=None):
    """Table, aggregate and write one block; its aggregates."""
    deals = Columns(deals)
    aggregates = block_aggregates(folder.config.game, rules, deals, game_rows, plan)
    folder.write_block(index, module.deal_table(rules, deals, policies), module.game_table(game_rows), aggregates)
    return aggregates


@dataclass
class Run:
    """A finished run folder: its summary and its records as pandas."""

    path: Path

    @property
    def manifest(self) -> dict:
        return read_manifest(self.path)

    @property
    def summary(self) -> dict:
        return read_summary(self.path, self.manifest)

    def deals(self, columns=None, filter=None):
        """Deal records; ``columns`` and ``filter`` (a pyarrow filter, see sim.store.load_records)
        are applied block by block, so only what is asked is ever held."""
        return load_records(self.path, "deals", columns, filter)

    def games(self, columns=None, filter=None):
        """Game records, read as ``deals`` reads them."""
        return load_records(self.path, "games", columns, filter)


@in_argument_words
def simulate(game: str | None = None, games: int = 10_000, rules=None, policies=None, seed: int = 1,
             out=None, records: str = "deals", block_size: int = DEFAULT_BLOCK_SIZE,
             threads: int | None = None, set_options=(), cluster=None, until=None, dd: bool = False,
             dealing=None) -> Run:
    """Play a run as ``python -m sim.run`` does and return it; resumes an existing folder.

    ``game``: None plays the game ``rules`` is a variant of (sim.rules.variant_game), else
    DEFAULT_GAME.

    ``policies``: {seat or "all": "NAME[:param=value,...]"} (a seat as its number or its
    digits), or "SEAT=NAME[:...]" text, one or a list, as ``--policy`` takes it.

    ``set_options``: "TABLE.KEY=VALUE" text, one or a list, as ``--set`` takes it.

    ``dealing``: a sim.dealing.Dealing (``sim.dealing.parse("deals", upcard="ace")``) to play
    ``games`` independent deals, dealt as it says, instead of whole games.

    ``dd``: True also values every deal double dummy, as ``--dd`` (sim.dd_run).

    ``cluster``: a Dask scheduler address, ``local:N`` or a ``distributed.Client`` to play
    the blocks on (``threads`` is then per worker process); None plays them here.
    Numbers are checked as the command line checks them (``games="1e6"`` works, 1.5 is a
    ValueError with the command line's words).
    """
    games, block_size = checked("games", whole_count, games), checked("block_size", block_size_count, block_size)
    seed = checked("seed", seed_number, seed)
    game = common_arguments(game, rules, out, dealing)
    dd = check_switch("dd", dd)
    resolved, chosen, threads = rules_players_threads(game, rules, set_options, policies, threads, cluster)
    deal_run = dealing is not None and dealing.deal_run
    path = Path(out) if out is not None else default_out(game, seed, games, "deal" if deal_run else "game")
    check_place(path)
    execute(game, resolved, chosen, seed, games, path, records, block_size, cluster=cluster, threads=threads,
            until=until, dd=dd, dealing=dealing)
    return Run(path)


@in_argument_words
def estimate(game: str | None = None, deals: int = 2_000, policies=None, control=("auto",), control_deals=None,
             metrics=None, rules=None, seed: int = 1, set_options=(), dealing=None, until=None, out=None,
             threads: int | None = None, cluster=None) -> dict:
    """A multilevel estimate as ``python -m sim.run --deals N --control LEVEL`` makes it
    (sim.multilevel): each metric of ``policies`` over ``deals`` independent deals of
    ``seed``, with cheaper ``control`` levels playing the same deals; returns the
    estimates (``result["metrics"][metric]``: value, ci95, estimator, variance saved,
    the plain deals it stands for, each level's deals and seconds).

    ``control``: levels as ``--control`` takes them, one text or a list ("auto",
    "all=heuristic", "dd:all=heuristic", "hand"); ``control_deals``: each played
    control's deals (None: sized from a pilot by the allocation rule); ``metrics``: names
    or custom metrics as ``--metrics`` takes them (None: the dealer's advantage);
    ``until``: "METRIC:W", grow the levels until W is the 95% half-width; ``dealing``: a
    sim.dealing.Dealing of deal runs (conditions); ``out``: a folder that keeps the
    levels, so an interrupted estimate resumes (None: nothing kept). ``game``,
    ``rules``, ``policies``, ``set_options``, ``seed``, ``threads`` and ``cluster`` as
    for ``simulate``.
    """
    from sim.metrics import parse_metrics
    from sim.multilevel import run_multilevel

    deals, seed = checked("deals", whole_count, deals), checked("seed", seed_number, seed)
    game = common_arguments(game, rules, out, dealing)
    controls = texts("control", control, "level")
    if not controls:
        raise RunError('control names no level: an estimate needs one ("auto", "all=heuristic", ...); '
                       "sim.simulate plays a plain run")
    check_kind("until", until, str, '"METRIC:W" (a metric and the 95% half-width wanted) or None')
    if metrics is not None:
        metrics = texts("metrics", metrics, "metric")
        if not metrics:
            raise RunError("metrics names no metric: give one or a list (None: the dealer's advantage)")
    control_deals = checked_control_deals(control_deals)
    resolved, chosen, threads = rules_players_threads(game, rules, set_options, policies, threads, cluster)
    if out is not None:
        check_place(out)
    return run_multilevel(game, resolved, chosen, seed, deals, controls, control_deals,
                          None if metrics is None else parse_metrics(metrics), dealing, until, out,
                          cluster=cluster, threads=threads)


def rules_players_threads(game: str, rules, set_options, policies, threads, cluster) -> tuple:
    """(rules, one Policy per seat, threads) of simulate, estimate and sim.strata's stratify,
    resolved and checked; numba's threads set to ``threads`` where the blocks play here
    (no ``cluster``)."""
    if threads is not None:
        threads = checked("threads", whole_count, threads)
    resolved, chosen = resolve_rules(game, rules, set_options), resolve_policies(game, policies)
    if threads is not None and cluster is None:
        use_threads(threads)
    return resolved, chosen, threads


def checked_control_deals(control_deals) -> list[int] | None:
    """``control_deals`` of sim.estimate and sim.stratify: each played control's deals, one
    count or a list (None: sized by the pilot), checked as --control-deals is."""
    if control_deals is None:
        return None
    return [checked("control_deals", whole_count, n) for n in
            (control_deals if isinstance(control_deals, (list, tuple)) else [control_deals])]


def common_arguments(game, rules, out, dealing) -> str:
    """The game to play, once the arguments ``simulate``, ``estimate`` and sim.strata's
    ``stratify`` share are checked:
    a TypeError for an argument of the wrong kind, a ValueError (GameError, RunError) for
    a game or a folder that names nothing. ``game`` None: the game ``rules`` is a variant
    of, else DEFAULT_GAME."""
    from sim.dealing import Dealing

    check_kind("game", game, str, f"a game's name ({', '.join(GAME_NAMES)}) or None")
    check_rules(rules)
    check_path("out", out)
    check_kind("dealing", dealing, Dealing, 'a sim.dealing.Dealing (sim.dealing.parse("deals", ...)) or None')
    if game is None:
        return variant_game(rules) or DEFAULT_GAME
    game_info(game)  # a GameError names an unknown game
    return game




def load_run(path) -> Run:
    """An existing run folder, its manifest and summary checked (a RunError names a damaged
    file in one line); its records are checked as they are read."""
    path = run_path(path)
    read_summary(path, finished_manifest(path))
    return Run(path)
