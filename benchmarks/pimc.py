"""python -m benchmarks.pimc [--threads T ...] [--worlds N] [--repeats R]

Deals/s (Bid Euchre: hands/s) of one ``pimc`` seat among heuristic seats, per game and
thread count, warm: a warm-up block first, then the best of ``--repeats`` blocks (a fresh
seed each), timed in this process, so start-up and compiling are left out. The pimc
targets are for 16 worlds on 2 threads: 200 Bridgette deals/s and 2,000 Bid Euchre hands/s.
"""

from __future__ import annotations

import time

import numba

from benchmarks.throughput import machine_facts, machine_line
from sim.cli import OneLineParser, exit_with, thread_count, whole_number
from sim.games import IMPLEMENTED, game_info, game_module
from sim.policies import parse_policy

# Games per timed block: a few seconds each at 16 worlds.
GAMES = {"bridgette": 40, "draw-bridge": 200, "bid-euchre": 1000}
TARGETS = {"bridgette": 200, "bid-euchre": 2000}  # deals/s, 16 worlds, 2 threads


def lineup(game: str, worlds: int) -> list:
    """A ``pimc`` seat 0 against the game's default heuristic in the other seats."""
    others = game_info(game).seats - 1
    return [parse_policy(f"pimc:worlds={worlds}", game)] + [parse_policy("heuristic", game)] * others


def deals_per_second(game: str, worlds: int, repeats: int, games: int | None = None, policies=None) -> float:
    """Best of ``repeats`` blocks of a ``pimc`` seat 0 against heuristics (or of the seats'
    ``policies``), after a warm-up."""
    module = game_module(game)
    policies = policies or lineup(game, worlds)
    rules = module.RULES()
    module.run_block(rules, policies, seed=0, first_game=0, count=2)  # compile or load, warm caches
    count = games or GAMES[game]
    best = 0.0
    for r in range(repeats):
        start = time.perf_counter()
        deals, _ = module.run_block(rules, policies, seed=r + 1, first_game=0, count=count)
        best = max(best, len(deals) / (time.perf_counter() - start))
    return best


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.pimc")
    parser.add_argument("--threads", type=thread_count, nargs="+", default=[min(2, numba.config.NUMBA_NUM_THREADS)])
    parser.add_argument("--worlds", type=whole_number, default=16)
    parser.add_argument("--repeats", type=whole_number, default=2)
    args = parser.parse_args(argv)
    print(machine_line(machine_facts()))
    for game in IMPLEMENTED:
        unit = f"{game_info(game).deal}s/s"
        for threads in args.threads:
            numba.set_num_threads(threads)
            rate = deals_per_second(game, args.worlds, args.repeats)
            line = f"{game:11s} pimc:worlds={args.worlds} threads {threads}: {rate:9,.0f} {unit}"
            if game in TARGETS and threads == 2 and args.worlds == 16:
                met = "met" if rate >= TARGETS[game] else "not met"
                line += f"   target >= {TARGETS[game]:,} ({met})"
            print(line)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.pimc")
