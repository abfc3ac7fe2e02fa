"""python -m benchmarks.dd_run [--games G=N ...] [--threads T ...] [--repeats R] [--json]

Deals/s of a ``--dd`` run (sim.dd_run: every deal valued double dummy inside the deal
kernels) per game and thread count, with the default rules and the heuristic in every
seat, warm (the kernels compiled on one game first): the best of ``--repeats`` blocks of
``--games`` games, each from another seed. The same blocks without --dd are timed for the
ratio, and the hours a 100,000-deal run would take at the measured rate are printed.
"""

from __future__ import annotations

import json
import os
import time

import numba

from benchmarks.throughput import machine_facts, machine_line
from sim.api import resolve_policies, resolve_rules
from sim.cli import OneLineParser, exit_with, flag_type, thread_count, whole_count, whole_number
from sim.games import GAME_NAMES, game_module

# Games per timed block: about 20-60 s of --dd work per block on one thread.
DEFAULT_GAMES = {"bridgette": 100, "draw-bridge": 25, "bid-euchre": 3000}


def game_count(text: str) -> tuple[str, int]:
    """--games GAME=N: a game's name and its games per block."""
    game, equals, count = text.partition("=")
    if not equals or game.strip() not in GAME_NAMES:
        raise ValueError(f"'{text}' is not GAME=N with GAME one of {', '.join(GAME_NAMES)}")
    return game.strip(), whole_count(count)


def measure(game: str, games: int, repeats: int) -> dict:
    """Best of ``repeats`` --dd blocks: games, deals, seconds, deals/s, and deals per CPU
    second of the process."""
    module = game_module(game)
    rules, policies = resolve_rules(game), resolve_policies(game)
    module.run_block(rules, policies, 0, 0, 1, True)  # compile or load the kernels
    best = None
    for r in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        deals, _ = module.run_block(rules, policies, 100 + r, 0, games, True)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        row = {"games": games, "deals": len(deals), "seconds": elapsed, "deals_per_s": len(deals) / elapsed,
               "deals_per_cpu_s": len(deals) / cpu}
        if best is None or row["deals_per_s"] > best["deals_per_s"]:
            best = row
    return best


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m benchmarks.dd_run", description=__doc__.split("\n\n")[1])
    p.add_argument("--games", action="append", type=flag_type(game_count), default=[], metavar="GAME=N",
                   help="games per block for a game (repeatable; default " +
                        ", ".join(f"{g}={n}" for g, n in DEFAULT_GAMES.items()) + ")")
    p.add_argument("--only", action="append", choices=GAME_NAMES, help="measure only these games")
    p.add_argument("--threads", type=thread_count, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=whole_number, default=2)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    sizes = {**DEFAULT_GAMES, **dict(args.games)}
    facts = machine_facts()
    results = []
    if not args.json:
        print(machine_line(facts) + f"; load average {os.getloadavg()[0]:.2f}", flush=True)
    before = numba.get_num_threads()
    try:
        for game in args.only or GAME_NAMES:
            for threads in args.threads:
                numba.set_num_threads(threads)
                row = {"game": game, "threads": threads, **measure(game, sizes[game], args.repeats)}
                row["hours_per_100k_deals"] = 1e5 / row["deals_per_s"] / 3600
                results.append(row)
                if not args.json:
                    print(f"{game:12s} threads {threads}: --dd {row['deals_per_s']:9,.1f} deals/s "
                          f"({row['deals']:,} deals in {row['seconds']:.1f} s; "
                          f"{row['deals_per_cpu_s']:,.1f} per CPU s); 100,000 deals: "
                          f"{row['hours_per_100k_deals']:.2f} h", flush=True)
    finally:
        numba.set_num_threads(before)
    if args.json:
        print(json.dumps({"machine": facts, "load_average": os.getloadavg()[0], "results": results}))
    else:
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.dd_run")
