"""python -m benchmarks.search [--threads T ...] [--repeats R]

Deals/s (Bid Euchre: hands/s) with every seat ``search`` at its defaults, per game and
thread count, warm: a warm-up block, then the best of ``--repeats`` blocks (a fresh seed
each), timed in this process (start-up and compiling left out). The targets are for 2
threads: 10 Bridgette deals/s (a 5,000-deal study in under 10 minutes) and 100 Bid Euchre
hands/s.
"""

from __future__ import annotations


import numba

from benchmarks.pimc import deals_per_second
from benchmarks.throughput import machine_facts, machine_line
from sim.cli import OneLineParser, exit_with, thread_count, whole_number
from sim.games import IMPLEMENTED, game_info
from sim.policies import parse_policy

GAMES = {"bridgette": 6, "draw-bridge": 1, "bid-euchre": 40}  # games per timed block (Draw Bridge: 200 deals)
TARGETS = {"bridgette": 10, "bid-euchre": 100}  # deals/s on 2 threads


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.search")
    parser.add_argument("--threads", type=thread_count, nargs="+", default=[min(2, numba.config.NUMBA_NUM_THREADS)])
    parser.add_argument("--repeats", type=whole_number, default=2)
    args = parser.parse_args(argv)
    print(machine_line(machine_facts()))
    for game in IMPLEMENTED:
        unit = f"{game_info(game).deal}s/s"
        policies = [parse_policy("search", game)] * game_info(game).seats
        for threads in args.threads:
            numba.set_num_threads(threads)
            rate = deals_per_second(game, 0, args.repeats, GAMES[game], policies)
            line = f"{game:11s} all seats search, threads {threads}: {rate:9,.1f} {unit}"
            if game in TARGETS and threads == 2:
                line += f" (target {TARGETS[game]:,}: {'met' if rate >= TARGETS[game] else 'not met'})"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.search")
