"""python -m benchmarks.throughput [--games N] [--threads T ...]

Games/s and deals/s of whole Bridgette games per policy pairing and thread count, after
a warm-up; the first (compile or cache-load) call is timed separately.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np

from sim.engine import run_block
from sim.policies import parse_policy
from sim.rules import BridgetteRules


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def measure(rules, policies, games: int, repeats: int = 3) -> tuple[float, float]:
    """Best of ``repeats`` runs: (games/s, deals/s)."""
    best = (0.0, 0.0)
    for r in range(repeats):
        start = time.perf_counter()
        deals, _ = run_block(rules, policies, seed=r, first_game=0, count=games)
        elapsed = time.perf_counter() - start
        best = max(best, (games / elapsed, len(deals) / elapsed))
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput")
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--threads", type=int, nargs="+",
                        default=sorted({1, numba.config.NUMBA_NUM_THREADS}))
    args = parser.parse_args(argv)
    rules = BridgetteRules()
    print(f"CPU: {cpu_name()} ({os.cpu_count()} cores); Python {platform.python_version()}, "
          f"numba {numba.__version__}, numpy {np.__version__}")
    start = time.perf_counter()
    run_block(rules, [parse_policy("random")] * 2, 0, 0, 10)
    print(f"first call (compile or cache load): {time.perf_counter() - start:.1f} s")
    for pairing in ("random", "heuristic"):
        policies = [parse_policy(pairing)] * 2
        for threads in args.threads:
            numba.set_num_threads(threads)
            measure(rules, policies, 1000, repeats=1)  # warm-up
            games_s, deals_s = measure(rules, policies, args.games)
            print(f"bridgette  {pairing:9s}  threads {threads}:  {games_s:10,.0f} games/s  "
                  f"{deals_s:11,.0f} deals/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
