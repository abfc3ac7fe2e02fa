"""python -m benchmarks.dd [--deals N] [--json]

Double-dummy solver speed on one thread, warm (the kernels compile on a first deal that is
not timed), with nodes per solve and what each technique buys (the same deals solved with
that technique switched off; the bridge games' "without" rows use the first tenth of the
deals, beside the full solver on the same tenth):

- Bridgette: the hands as play starts, after the B-3 exchange of games played by the
  heuristic (seed 1), one random strain and declarer per solve (median, p99, worst), and
  whole tables (5 strains x 2 declarers); also hands of 13 drawn uniformly from the
  55-card deck, a harder case (the heuristic discards most Colons; every Colon in play
  multiplies the search);
- Draw Bridge's contract phase: the hands after the 13 draw-phase tricks, the same way;
- Bid Euchre, single deck: whole solves of uniform random deals (the leader's team's
  tricks from the first lead), in the table the game kernels use (``Solver.euchre_table``),
  the best of three passes;
- Bid Euchre's double deck: whole 12-trick solves of uniform random deals of the 48 cards,
  through ``sim.dd.Solver`` (``--double-deck N`` deals; each solved once, cold).
"""

from __future__ import annotations

import json
import random
import statistics
import time

import numpy as np

from benchmarks.throughput import machine_facts, machine_line
from kernels import dd
from sim.cli import OneLineParser, exit_with, whole_number
from sim.dd import Solver, contract_table, euchre_layout

EUCHRE_PASSES = 3  # each deal is solved cold (a new table generation); the best pass counts

TECHNIQUES = {"table": dd.USE_TT, "equivalent cards": dd.USE_EQUIV, "move ordering": dd.USE_ORDER,
              "quick tricks": dd.USE_BOUNDS}


def contract_deals(rng, colons, n):
    deck = list(range(52)) + list(range(52, 52 + colons))
    out = []
    for _ in range(n):
        cards = rng.sample(deck, 26)
        out.append((cards[:13], cards[13:], rng.randint(-1, 3), rng.randint(0, 1)))
    return out


def played_deals(rng, game: str, n: int):
    """``n`` deals' hands as their contract play starts (after the exchange or the draw
    phase), from games the heuristic plays with seed 1, each with a random strain and seat
    to lead: what a ``--dd`` run or a ``dd`` seat solves."""
    from kernels.cards import CARD_IDS
    from sim.api import resolve_policies, resolve_rules
    from sim.games import game_module
    from sim.solve import deal_from_case

    rules = resolve_rules(game, None)
    policies = resolve_policies(game, {"all": "heuristic"})
    out, index = [], 0
    while len(out) < n:
        _, (deals,) = game_module(game).trace_games(rules, policies, 1, [index])
        for case in deals:
            if len(out) < n and case["counted"]:
                hands = deal_from_case({**case, "rules": rules.to_dict()}, None, "benchmark").hands
                h0, h1 = ([CARD_IDS[c] for c in h] for h in hands)
                out.append((h0, h1, rng.randint(-1, 3), rng.randint(0, 1)))
        index += 1
    return out


def bench_contract(deals, flags):
    """Per single solve: seconds and nodes; and whole tables per second."""
    solver = Solver(flags=flags)
    solver.contract_tricks(deals[0][:2], 0, 0)
    contract_table(solver, deals[0][:2])  # compiled or loaded from the cache outside the timing
    seconds, nodes = [], []
    for h0, h1, trump, to_move in deals:
        before = int(solver.stats[dd.ST_NODES])
        start = time.perf_counter()
        solver.contract_tricks((h0, h1), trump, to_move)
        seconds.append(time.perf_counter() - start)
        nodes.append(int(solver.stats[dd.ST_NODES]) - before)
    tables = deals[: max(1, len(deals) // 5)]
    start = time.perf_counter()
    for h0, h1, _, _ in tables:
        contract_table(solver, (h0, h1))
    table_rate = len(tables) / (time.perf_counter() - start)
    seconds.sort()
    return {"median_ms": 1e3 * statistics.median(seconds), "p99_ms": 1e3 * seconds[int(0.99 * (len(seconds) - 1))],
            "max_ms": 1e3 * seconds[-1], "nodes_median": statistics.median(nodes), "tables_per_s": table_rate}


def bench_euchre(rng, n, flags):
    layouts = [euchre_layout(t, False, False) for t in range(4)]
    hands = np.zeros((n, 4), dtype=np.uint64)
    trumps = np.array([rng.randint(0, 3) for _ in range(n)], dtype=np.int64)
    leaders = np.array([rng.randint(0, 3) for _ in range(n)], dtype=np.int64)
    for i in range(n):
        deck = rng.sample(range(24), 24)
        to_layout = layouts[trumps[i]][0]
        for s in range(4):
            hands[i, s] = sum(1 << int(to_layout[c]) for c in deck[6 * s:6 * s + 6])
    tables = [np.array([lay[k] for lay in layouts]) for k in (2, 3, 4, 5)]
    solver = Solver(flags=flags)
    out = np.zeros(n, dtype=np.int64)
    dd.euchre_batch_nb(solver.euchre_table, solver.ctx, hands[:1], trumps, leaders, *tables, out)
    seconds = []
    for _ in range(EUCHRE_PASSES):
        before = int(solver.stats[dd.ST_NODES])
        start = time.perf_counter()
        dd.euchre_batch_nb(solver.euchre_table, solver.ctx, hands, trumps, leaders, *tables, out)
        seconds.append(time.perf_counter() - start)
    return {"solves_per_s": n / min(seconds), "nodes_per_solve": (int(solver.stats[dd.ST_NODES]) - before) / n}


def bench_double_deck(rng, n):
    solver = Solver()
    solver.euchre_tricks([[0, 1], [2, 3], [4, 5], [6, 7]], 0, 0, double_deck=True)  # compiled or loaded
    seconds, nodes = [], []
    for _ in range(n):
        deck = rng.sample(range(48), 48)
        hands = [deck[12 * s:12 * s + 12] for s in range(4)]
        trump, leader = rng.randint(0, 3), rng.randint(0, 3)
        before = int(solver.stats[dd.ST_NODES])
        start = time.perf_counter()
        solver.euchre_tricks(hands, trump, leader, double_deck=True)
        seconds.append(time.perf_counter() - start)
        nodes.append(int(solver.stats[dd.ST_NODES]) - before)
    return {"solves_per_s": n / sum(seconds), "median_ms": 1e3 * statistics.median(seconds),
            "max_ms": 1e3 * max(seconds), "nodes_per_solve": sum(nodes) / n}


def main(argv=None) -> int:
    ap = OneLineParser(prog="python -m benchmarks.dd", description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=whole_number, default=200, help="deals per bridge figure (default 200)")
    ap.add_argument("--euchre", type=whole_number, default=5000, help="Bid Euchre deals (default 5000)")
    ap.add_argument("--double-deck", type=whole_number, default=20,
                    help="Bid Euchre double-deck deals, 12 tricks each (default 20)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(1)
    results = {"machine": machine_line(machine_facts())}
    for name, game in (("bridgette", "bridgette"), ("draw_bridge", "draw-bridge")):
        deals = played_deals(rng, game, args.deals)
        few = deals[: max(10, args.deals // 10)]  # switched off, a technique can cost 100x
        results[name] = {"as played": bench_contract(deals, dd.ALL_TECHNIQUES),
                         "as played, first tenth": bench_contract(few, dd.ALL_TECHNIQUES)}
        for label, bit in TECHNIQUES.items():
            results[name][f"without {label}"] = bench_contract(few, dd.ALL_TECHNIQUES & ~bit)
    results["bridgette"]["uniform 13 of 55"] = bench_contract(contract_deals(rng, 3, args.deals),
                                                              dd.ALL_TECHNIQUES)
    results["bid_euchre"] = {"all": bench_euchre(random.Random(2), args.euchre, dd.ALL_TECHNIQUES)}
    for label, bit in TECHNIQUES.items():
        results["bid_euchre"][f"without {label}"] = bench_euchre(random.Random(2), args.euchre,
                                                                 dd.ALL_TECHNIQUES & ~bit)
    results["bid_euchre_double_deck"] = bench_double_deck(random.Random(3), args.double_deck)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(results["machine"])
    for name in ("bridgette", "draw_bridge"):
        for label, r in results[name].items():
            print(f"{name:12s} {label:26s} single solve median {r['median_ms']:8.3f} ms  p99 {r['p99_ms']:8.2f} ms  "
                  f"max {r['max_ms']:8.1f} ms  nodes {r['nodes_median']:8.0f}  tables {r['tables_per_s']:7.1f}/s")
    for label, r in results["bid_euchre"].items():
        print(f"{'bid_euchre':12s} {label:26s} {r['solves_per_s']:9.0f} solves/s  nodes {r['nodes_per_solve']:7.0f}")
    r = results["bid_euchre_double_deck"]
    print(f"{'bid_euchre':12s} {'double deck, 12 tricks':26s} {r['solves_per_s']:9.1f} solves/s  nodes "
          f"{r['nodes_per_solve']:9.0f}  median {r['median_ms']:.0f} ms  max {r['max_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.dd")
