"""python -m benchmarks.dd_yardstick --probe PATH [--deals N] [--rounds R] [--json]

The contract games' double-dummy tables timed side by side with a plain two-hand
double-dummy solver (the yardstick, a ``dd_probe.py`` script given by ``--probe``; it is not
part of the repository), one thread each, on the same random
deals: 13 + 13 cards of the 52 suited cards, no Colon in play, where a Bridgette table is
the probe's game. Each round times the probe's ``tables_serial`` over all the deals, then
the project's ``contract_table_nb`` over the same deals (a ``sim.dd.Solver``'s table), so
both see the same machine; the two must agree on every entry. Reports tables per second
and nodes per table for each, the ratio per round, and the load average before and after
(the machine is shared: compare figures within one run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.throughput import machine_facts, machine_line
from kernels import dd
from sim.cli import OneLineParser, exit_with, whole_number
from sim.dd import Solver
from sim.run import seed_value

PROBE_TT_BITS = 16  # the probe's own table, as its README times it


def load_probe(path: Path):
    spec = importlib.util.spec_from_file_location("dd_probe_yardstick", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba looks its functions' module up by name
    spec.loader.exec_module(module)
    return module


def project_tables(solver: Solver, h0: np.ndarray, h1: np.ndarray) -> tuple[np.ndarray, int]:
    """``table[i, strain, declarer]`` for every deal (strain 4 no-trump) and the nodes."""
    out = np.zeros((h0.shape[0], 5, 2), dtype=np.int64)
    ctx = solver.ctx
    before = int(solver.stats[dd.ST_NODES])
    for i in range(h0.shape[0]):
        ctx["hands"][0, 0], ctx["hands"][0, 1] = h0[i], h1[i]
        dd.contract_table_nb(solver.table, ctx, out[i])
    return out, int(solver.stats[dd.ST_NODES]) - before


def probe_tables(probe, h0: np.ndarray, h1: np.ndarray) -> tuple[np.ndarray, int]:
    """The probe's ``out[i, strain, leader]`` (seat 0's tricks) turned to the project's
    ``[strain, declarer]`` (the declarer's tricks, the opponent leading), and its nodes."""
    out = np.zeros((h0.shape[0], 5, 2), dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    probe.tables_serial(h0, h1, PROBE_TT_BITS, probe.OPT_ALL, out, nodes)
    table = np.empty_like(out)
    table[:, :, 0] = out[:, :, 1]  # seat 0 declares, seat 1 leads
    table[:, :, 1] = 13 - out[:, :, 0]  # seat 1 declares, seat 0 leads
    return table, int(nodes[0])


def main(argv=None) -> int:
    ap = OneLineParser(prog="python -m benchmarks.dd_yardstick", description=__doc__.splitlines()[0])
    ap.add_argument("--probe", type=Path, required=True, help="the yardstick: a dd_probe.py script")
    ap.add_argument("--deals", type=whole_number, default=400, help="random deals (default 400)")
    ap.add_argument("--rounds", type=whole_number, default=3, help="rounds of the two in turn (default 3)")
    ap.add_argument("--seed", type=seed_value, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not args.probe.is_file():
        print(f"benchmarks.dd_yardstick: no yardstick at {args.probe}", file=sys.stderr)
        return 2
    if args.deals < 1 or args.rounds < 1:
        print("benchmarks.dd_yardstick: --deals and --rounds must be at least 1", file=sys.stderr)
        return 2
    probe = load_probe(args.probe)
    h0, h1 = probe.random_deals(args.deals, args.seed)
    solver = Solver()
    load = [os.getloadavg()[0]]
    start = time.perf_counter()
    probe_tables(probe, h0[:2], h1[:2])
    project_tables(solver, h0[:2], h1[:2])
    warm_s = time.perf_counter() - start
    rounds = []
    for _ in range(args.rounds):
        t = time.perf_counter()
        theirs, probe_nodes = probe_tables(probe, h0, h1)
        probe_s = time.perf_counter() - t
        t = time.perf_counter()
        ours, nodes = project_tables(solver, h0, h1)
        ours_s = time.perf_counter() - t
        if not np.array_equal(ours, theirs):
            bad = int(np.argmax((ours != theirs).any(axis=(1, 2))))
            print(f"benchmarks.dd_yardstick: deal {bad} differs: {ours[bad].tolist()} against {theirs[bad].tolist()}",
                  file=sys.stderr)
            return 1
        rounds.append({"probe_tables_per_s": args.deals / probe_s, "tables_per_s": args.deals / ours_s,
                       "ratio": probe_s / ours_s, "probe_nodes_per_table": probe_nodes / args.deals,
                       "nodes_per_table": nodes / args.deals})
    load.append(os.getloadavg()[0])
    facts = machine_facts()
    result = {"machine": facts, "deals": args.deals, "seed": args.seed, "load_avg_1min": load,
              "warm_up_s": warm_s, "rounds": rounds,
              "median_ratio": statistics.median(r["ratio"] for r in rounds)}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(machine_line(facts))
    print(f"{args.deals} random deals (seed {args.seed}), one thread, every entry agreeing; "
          f"load average {load[0]:.2f} before, {load[1]:.2f} after")
    for k, r in enumerate(rounds):
        print(f"round {k + 1}: project {r['tables_per_s']:.0f} tables/s ({r['nodes_per_table']:.0f} nodes a table), "
              f"probe {r['probe_tables_per_s']:.0f} ({r['probe_nodes_per_table']:.0f} nodes): {r['ratio']:.2f}x")
    print(f"median ratio {result['median_ratio']:.2f}x")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.dd_yardstick")
