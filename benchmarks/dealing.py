"""python -m benchmarks.dealing [--deals N] [--threads T] [--policy random]

Deal runs per game: deals/s without conditions, with an up-card class (Bridgette), with
predealt cards, and with a range met by rejection, warm, best of several blocks taken in turn, and each rate
as a share of the unconditioned one. The target (issue "Deal studies"): up-card and
predeal conditions cost at most 10% of the unconditioned deal rate. Random play makes the
dealing's share of the work the largest, so it is the default policy.
"""

from __future__ import annotations

import argparse
import time

import numba

from benchmarks.throughput import machine_facts, machine_line
from sim import dealing
from sim.api import resolve_policies, resolve_rules
from sim.games import game_module

CASES = {  # game -> (label, conditions)
    "bridgette": [("none", {}), ("upcard any class (dealing only)", {"upcard": "numeral,face,ace"}),
                  ("upcard ace (plays 12-card draws)", {"upcard": "ace"}), ("predeal 0=CG,AS", {"predeal": ["0=CG,AS"]}),
                  ("require 0:spades>=5", {"require": ["0:spades>=5"]})],
    "draw-bridge": [("none", {}), ("predeal 0=AS,KS", {"predeal": ["0=AS,KS"]}),
                    ("require 0:hcp>=15", {"require": ["0:hcp>=15"]})],
    "bid-euchre": [("none", {}), ("predeal 0=JS,JC", {"predeal": ["0=JS,JC"]}),
                   ("require 0:trumps_spades>=3", {"require": ["0:trumps_spades>=3"]})],
}


def measure(game: str, cases, deals: int, policy: str, repeats: int) -> list[tuple[float, float]]:
    """Each case's best of ``repeats`` blocks, the cases taking turns so that a machine's
    drift touches them alike: [(deals/s, share of deals tried that met the conditions)]."""
    rules = resolve_rules(game)
    module, policies = game_module(game), resolve_policies(game, {"all": policy})
    plans = [dealing.plan(game, rules, dealing.parse("deals", **conditions)) for _, conditions in cases]
    for plan in plans:
        module.run_block(rules, policies, 0, 0, 10, plan=plan)  # compile or load
    best, accepted = [0.0] * len(cases), [1.0] * len(cases)
    for r in range(repeats):
        for i, plan in enumerate(plans):
            start = time.perf_counter()
            records, _ = module.run_block(rules, policies, r, 0, deals, plan=plan)
            best[i] = max(best[i], deals / (time.perf_counter() - start))
            accepted[i] = len(records) / records["tries"].sum()
    return list(zip(best, accepted))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dealing", description=__doc__.split("\n\n")[1])
    p.add_argument("--deals", type=int, default=200_000)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--policy", default="random")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    if args.threads:
        numba.set_num_threads(args.threads)
    print(machine_line(machine_facts()))
    print(f"{numba.get_num_threads()} threads, {args.deals:,} deals per block, policy {args.policy}, warm, "
          f"best of {args.repeats} (cases in turn)")
    for game, cases in CASES.items():
        results = measure(game, cases, args.deals, args.policy, args.repeats)
        base = results[0][0]
        for (label, _), (rate, accepted) in zip(cases, results):
            print(f"  {game:12s} {label:34s} {rate:12,.0f} deals/s  {rate / base:6.1%} of unconditioned"
                  f"  (met by {accepted:.1%} of deals tried)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
