"""python -m benchmarks.throughput [--games N] [--threads T ...] [--main-job] [--memory N]

Games/s and deals/s per game, policy and thread count, warm (best of 3 blocks after a
warm-up), plus the cold compile time in a fresh numba cache. ``--main-job`` times
``python -m sim.run --games 1e6`` cold and warm; ``--memory N`` reports the peak memory of
``python -m sim.run --records none --games N``.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from sim.api import resolve_policies
from sim.cli import OneLineParser, exit_with, thread_count, whole_number
from sim.games import IMPLEMENTED, game_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine_facts() -> dict:
    """CPU, cores and versions, for the first line of a benchmark's output."""
    return {"cpu": cpu_name(), "cores": os.cpu_count(), "python": platform.python_version(),
            "numba": numba.__version__, "numpy": np.__version__,
            "threading_layer": numba.config.THREADING_LAYER, "numba_threads": numba.config.NUMBA_NUM_THREADS}


def machine_line(facts: dict) -> str:
    return (f"machine: {facts['cpu']}, {facts['cores']} cores; Python {facts['python']}, "
            f"numba {facts['numba']}, numpy {facts['numpy']}, threading layer {facts['threading_layer']}")


def measure(module, rules, policies, games: int, repeats: int = 3) -> tuple[float, float]:
    """Best of ``repeats`` blocks: (games/s, deals/s)."""
    best = (0.0, 0.0)
    for r in range(repeats):
        start = time.perf_counter()
        deals, _ = module.run_block(rules, policies, seed=r, first_game=0, count=games)
        elapsed = time.perf_counter() - start
        best = max(best, (games / elapsed, len(deals) / elapsed))
    return best


def lineup(game: str, pairing: str) -> list:
    """Every seat playing ``pairing`` with ``game``'s default parameters, as a run of
    ``sim.run --policy all=PAIRING`` plays it."""
    return resolve_policies(game, {"all": pairing})


def timed_subprocess(args, cache_dir) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.throughput")
    parser.add_argument("--games", type=whole_number, default=50_000, help="games per timed block")
    parser.add_argument("--threads", type=thread_count, nargs="+", default=sorted({1, numba.config.NUMBA_NUM_THREADS}))
    parser.add_argument("--main-job", action="store_true", help="also time sim.run --games 1e6, cold and warm")
    parser.add_argument("--memory", type=whole_number, default=None, metavar="N",
                        help="also measure sim.run --records none --games N")
    args = parser.parse_args(argv)
    print(machine_line(machine_facts()))
    with tempfile.TemporaryDirectory() as cold:
        for game in IMPLEMENTED:
            code = (f"from sim.api import resolve_policies; from sim.games import game_module; "
                    f"m = game_module('{game}'); [m.run_block(m.RULES(), resolve_policies('{game}', {{'all': p}}), "
                    f"0, 0, 10) for p in ('random', 'heuristic')]")
            print(f"{game}: cold compile {timed_subprocess(['-c', code], cold):.1f} s, "
                  f"cache load {timed_subprocess(['-c', code], cold):.1f} s (whole process)")
    for game in IMPLEMENTED:
        module = game_module(game)
        rules = module.RULES()
        for pairing in ("random", "heuristic"):
            policies = lineup(game, pairing)
            speeds = {}
            for threads in args.threads:
                numba.set_num_threads(threads)
                measure(module, rules, policies, 1000, repeats=1)  # warm-up
                speeds[threads] = measure(module, rules, policies, args.games)
                games_s, deals_s = speeds[threads]
                print(f"{game:10s} {pairing:9s} threads {threads}: {games_s:10,.0f} games/s "
                      f"{deals_s:11,.0f} deals/s")
            if len(speeds) > 1:
                lo, hi = min(speeds), max(speeds)
                print(f"{game:10s} {pairing:9s} speed-up {hi} vs {lo} threads: {speeds[hi][1] / speeds[lo][1]:.2f}x")
    if args.main_job:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            job = ["-m", "sim.run", "--games", "1e6", "--quiet"]
            cold = timed_subprocess(job + ["--out", os.path.join(out, "a")], cache)
            warm = timed_subprocess(job + ["--out", os.path.join(out, "b")], cache)
            print(f"sim.run --games 1e6 (bridgette, heuristic, per-deal records): first-ever run {cold:.1f} s, "
                  f"warm {warm:.1f} s wall")
    if args.memory:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "sim.run", "--games", str(args.memory), "--records", "none",
                            "--quiet", "--out", out + "/m"], cwd=ROOT, check=True)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"sim.run --records none --games {args.memory:,}: {time.perf_counter() - start:.0f} s, "
                  f"peak memory {peak:.0f} MiB (largest child process)")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.throughput")
