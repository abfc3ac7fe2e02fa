"""python -m benchmarks.run_path [--rounds N] [--vs PATH] [--no-main] [--no-euchre]

The run command's own path, as users run it: whole processes of ``python -m sim.run`` with
a warm numba cache, each into a fresh folder.

- The main job, ``python -m sim.run --games 1e6 --threads 2`` (Bridgette, heuristic seats,
  per-deal records): wall and CPU seconds of the whole process, start-up included.
- Bid Euchre with random seats, ``--threads 1`` (``--games 20000 --block-size 2000``: ten
  blocks of about 750,000 hands): hands per second of the run's own timing (process start
  and kernel load left out; each block's tables and Parquet are written on another thread
  while the next one plays, as in any run), beside OpenSpiel's C++ ``euchre`` played by
  uniform random bots on one core (needs the ``bench`` extra), timed in this process just
  before each run, so that each round's ratio compares the same minutes of the machine.

``--vs PATH`` (another checkout of the project, e.g. a ``git worktree`` of the commit
before a change) runs every command with that code too, the two taking turns, and gives
the ratio of each pair: on a shared machine only such ratios hold. Each figure is the
median of its rounds.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.throughput import ROOT, machine_facts, machine_line
from sim.cli import OneLineParser, exit_with, path_text, whole_number

MAIN_JOB = ["--games", "1e6", "--threads", "2"]
EUCHRE = ["--game", "bid-euchre", "--policy", "all=random", "--games", "20000", "--block-size", "2000",
          "--threads", "1"]


def sim_run(checkout: str, args: list, out: str) -> dict:
    """One ``python -m sim.run ARGS --quiet`` with ``checkout``'s code: its wall and CPU
    seconds, and the run's own timing and hands (the run folder's manifest and summary)."""
    env = dict(os.environ, PYTHONPATH=checkout)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim.run", *args, "--quiet", "--out", out], cwd=checkout, env=env,
                   check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    manifest = json.loads((Path(out) / "manifest.json").read_text())
    summary = json.loads((Path(out) / "summary.json").read_text())
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "seconds": manifest["timing"]["seconds"], "deals": summary["deals"]}


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.run_path", description=__doc__.split("\n\n")[1])
    parser.add_argument("--rounds", type=whole_number, default=3, help="runs of each command and checkout (default 3)")
    parser.add_argument("--vs", type=path_text, metavar="PATH", help="another checkout of the project, timed in turn")
    parser.add_argument("--no-main", action="store_true", help="leave out the main job")
    parser.add_argument("--no-euchre", action="store_true", help="leave out Bid Euchre and OpenSpiel")
    args = parser.parse_args(argv)
    checkouts = {"this": ROOT}
    if args.vs:
        if not (Path(args.vs) / "sim" / "run.py").is_file():
            parser.error(f"--vs {args.vs}: not a checkout of the project (no sim/run.py)")
        checkouts["vs"] = str(Path(args.vs).resolve())
    jobs = ([] if args.no_main else [("main", MAIN_JOB)]) + ([] if args.no_euchre else [("euchre", EUCHRE)])
    print(machine_line(machine_facts()) + "; " + ", ".join(f"{k} = {v}" for k, v in checkouts.items()), flush=True)

    openspiel = None
    if not args.no_euchre:
        from benchmarks.peers import INSTALL_HINT, openspiel_figure, size_block

        openspiel, release = openspiel_figure()
        if openspiel is None:
            print(INSTALL_HINT)
        else:
            openspiel.block = size_block(openspiel, 1.0)
            print(f"open_spiel {release}: blocks of {openspiel.block:,} deals")

    results = {(name, who): [] for name, _ in jobs for who in checkouts}
    yardstick = []
    with tempfile.TemporaryDirectory() as tmp:
        for who, checkout in checkouts.items():  # warm: load (or compile) each checkout's kernels once
            sim_run(checkout, ["--games", "1000"], f"{tmp}/warm-main-{who}")
            sim_run(checkout, [*EUCHRE[:4], "--games", "10"], f"{tmp}/warm-euchre-{who}")
        for r in range(args.rounds):
            for name, job in jobs:
                for who, checkout in checkouts.items():
                    if name == "euchre" and openspiel is not None:
                        yardstick.append(openspiel.play(openspiel.block)[1])
                    got = sim_run(checkout, job, f"{tmp}/{name}-{who}-{r}")
                    results[name, who].append(got)
                    line = (f"wall {got['wall']:6.2f} s, cpu {got['cpu']:6.2f} s" if name == "main" else
                            f"{got['deals'] / got['seconds']:12,.0f} hands/s (the run's timing), "
                            f"process wall {got['wall']:6.2f} s, cpu {got['cpu']:6.2f} s")
                    print(f"round {r + 1} {name:6s} {who:4s} {line}", flush=True)

    def median(name, who, key):
        return statistics.median(g[key] for g in results[name, who])

    print(f"\nmedians of {args.rounds} rounds")
    for who in checkouts:
        if not args.no_main:
            print(f"main job ({who}): sim.run {' '.join(MAIN_JOB)}: wall {median('main', who, 'wall'):.2f} s, "
                  f"cpu {median('main', who, 'cpu'):.2f} s (whole process, warm)")
        if not args.no_euchre:
            rates = [g["deals"] / g["seconds"] for g in results["euchre", who]]
            line = f"Bid Euchre random, 1 thread ({who}): {statistics.median(rates):,.0f} hands/s"
            if yardstick:
                mine = yardstick[list(checkouts).index(who)::len(checkouts)]
                ratios = [a / b for a, b in zip(rates, mine)]
                line += (f"; OpenSpiel euchre {statistics.median(mine):,.0f} deals/s per core; "
                         f"ratio {statistics.median(ratios):.1f}x (median of the rounds' ratios)")
            print(line)
    if "vs" in checkouts:
        for name, key in (("main", "wall"), ("main", "cpu"), ("euchre", "seconds")):
            if any(n == name for n, _ in jobs):
                pairs = [a[key] / b[key] for a, b in zip(results[name, "this"], results[name, "vs"])]
                print(f"this / vs, {name} {key}: {statistics.median(pairs):.3f} (median of {len(pairs)} pairs)")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.run_path")
