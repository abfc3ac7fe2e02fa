"""The Python API of runs, the same path as ``python -m sim.run``.

    import sim
    run = sim.simulate(game="bridgette", games=100_000, seed=7,
                       rules={"exchange": {"upcard_to": "dead"}},
                       policies={"all": "heuristic", 1: "random"})
    run.summary["contracts_made"]      # statistics, as in summary.json
    run.deals()                        # pandas DataFrame of the deal records
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from sim.games import game_module
from sim.policies import PolicyError, parse_policy
from sim.rules import merge_tables, parse_set, read_variant
from sim.store import RECORD_MODES, RunConfig, RunError, RunFolder, load_records
from sim.summary import merge

DEFAULT_BLOCK_SIZE = 50_000


def resolve_rules(game: str, rules=None, set_options=()):
    """Validated rules from a variant (dict of tables, TOML path or shipped name) plus --set."""
    module = game_module(game)
    if rules is None:
        tables = {}
    elif isinstance(rules, dict):
        tables = rules
    else:
        tables = read_variant(rules)
    return module.RULES.from_dict(merge_tables(tables, parse_set(set_options)))


def resolve_policies(game: str, policies=None) -> list:
    """One Policy per seat from ``SEAT=NAME[:k=v,...]`` strings or a {seat or 'all': spec} dict.

    Later entries override earlier ones; every seat starts as ``heuristic``.
    """
    players = game_module(game).PLAYERS
    chosen = [parse_policy("heuristic")] * players
    if policies is None:
        return chosen
    if isinstance(policies, str):
        policies = [policies]
    items = policies.items() if isinstance(policies, dict) else (_split_seat(p) for p in policies)
    for seat, spec in items:
        policy = parse_policy(spec)
        if str(seat) == "all":
            chosen = [policy] * players
            continue
        try:
            index = int(seat)
        except ValueError:
            index = -1
        if not 0 <= index < players:
            raise PolicyError(f"seat '{seat}' does not exist in {game} (seats 0..{players - 1} or all)")
        chosen[index] = policy
    return chosen


def _split_seat(text: str) -> tuple[str, str]:
    seat, eq, spec = text.partition("=")
    if not eq:
        raise PolicyError(f"--policy needs SEAT=NAME[:param=value,...], got '{text}'")
    return seat.strip(), spec.strip()


def default_out(game: str, seed: int, games: int) -> Path:
    return Path("runs") / f"{game}-{seed}-{games}"


def execute(game: str, rules, policies, seed: int, games: int, out, records: str = "deals",
            block_size: int = DEFAULT_BLOCK_SIZE, progress=None) -> tuple[RunFolder, dict, dict]:
    """Play (or resume) a run into its folder: (folder, summary, timing)."""
    if records not in RECORD_MODES:
        raise RunError(f"records must be one of {', '.join(RECORD_MODES)}, got '{records}'")
    if games < 1 or block_size < 1:
        raise RunError("games and block size must be at least 1")
    module = game_module(game)
    config = RunConfig(game=game, rules=rules.to_dict(), policies=[str(p) for p in policies],
                       seed=int(seed), games=int(games), block_size=int(block_size), records=records)
    folder = RunFolder(out, config)
    done = folder.done()
    start = time.perf_counter()
    played = 0
    if progress is not None:
        progress.update(sum(n for i, _, n in config.blocks() if i in done))
    for index, first, count in config.blocks():
        if index in done:
            continue
        deals, game_rows = module.run_block(rules, policies, seed, first, count)
        folder.write_block(index, module.deal_table(rules, deals, policies), module.game_table(game_rows),
                           module.aggregate(rules, deals, game_rows))
        played += count
        if progress is not None:
            progress.update(count)
    elapsed = time.perf_counter() - start
    aggregates = folder.aggregates()
    total = next(aggregates)
    for agg in aggregates:
        total = merge(total, agg)
    summary = {"game": game, **module.summarize(rules, total)}
    timing = {"seconds": elapsed, "games_played_now": played,
              "games_per_second": played / elapsed if elapsed > 0 else None}
    folder.finish(summary, timing)
    return folder, summary, timing


@dataclass
class Run:
    """A finished run folder: its summary and its records as pandas."""

    path: Path

    @property
    def manifest(self) -> dict:
        return json.loads((self.path / "manifest.json").read_text())

    @property
    def summary(self) -> dict:
        return json.loads((self.path / "summary.json").read_text())

    def deals(self):
        return load_records(self.path, "deals")

    def games(self):
        return load_records(self.path, "games")


def simulate(game: str = "bridgette", games: int = 10_000, rules=None, policies=None, seed: int = 1,
             out=None, records: str = "deals", block_size: int = DEFAULT_BLOCK_SIZE,
             threads: int | None = None, set_options=()) -> Run:
    """Play a run as ``python -m sim.run`` does and return it; resumes an existing folder."""
    resolved = resolve_rules(game, rules, set_options)
    chosen = resolve_policies(game, policies)
    if threads is not None:
        import numba

        numba.set_num_threads(threads)
    path = Path(out) if out is not None else default_out(game, seed, games)
    execute(game, resolved, chosen, seed, games, path, records, block_size)
    return Run(path)


def load_run(path) -> Run:
    """An existing run folder."""
    path = Path(path)
    if not (path / "summary.json").exists():
        raise RunError(f"{path} is not a finished run folder (no summary.json)")
    return Run(path)
