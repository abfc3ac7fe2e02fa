"""python -m benchmarks.dealing [--deals N] [--threads T] [--policy random]

Per game: deals/s of the dealing alone and of deal runs, without conditions, with an up-card
class (Bridgette), with predealt cards, and (deal runs) with a range met by rejection;
warm, best of several blocks taken in turn, each rate as a share of the unconditioned
one. A condition also changes what is played (an ace up-card means 12-card draws), so the
dealing alone is the cost of the conditions themselves. The target (issue "Deal studies"): up-card and
predeal conditions cost at most 10% of the unconditioned deal rate. Random play makes the
dealing's share of the work the largest, so it is the default policy.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import draw_bridge as kd
from kernels.cards import bit_nb

from benchmarks.throughput import machine_facts, machine_line
from sim import dealing
from sim.api import resolve_policies, resolve_rules
from sim.cli import OneLineParser, exit_with, thread_count, whole_number
from sim.games import game_module
from sim.policies import PolicyError

CASES = {  # game -> (label, conditions)
    "bridgette": [("none", {}), ("upcard any class (dealing only)", {"upcard": "numeral,face,ace"}),
                  ("upcard ace (plays 12-card draws)", {"upcard": "ace"}), ("predeal 0=CG,AS", {"predeal": ["0=CG,AS"]}),
                  ("require 0:spades>=5", {"require": ["0:spades>=5"]})],
    "draw-bridge": [("none", {}), ("predeal 0=AS,KS", {"predeal": ["0=AS,KS"]}),
                    ("require 0:hcp>=15", {"require": ["0:hcp>=15"]})],
    "bid-euchre": [("none", {}), ("predeal 0=JS,JC", {"predeal": ["0=JS,JC"]}),
                   ("require 0:trumps_spades>=3", {"require": ["0:trumps_spades>=3"]})],
}


@njit(cache=True)
def _deal_bridgette(plan, deck, n):
    rng, hands, order = np.zeros(1, np.uint64), np.zeros(2, np.uint64), np.empty(64, np.int64)
    mask, seen = np.uint64(0), np.uint64(0)
    for c in deck:
        mask |= bit_nb(c)
    for i in range(n):
        kb.deal_cards_nb(rng, plan, deck, mask, i % 2, hands, order)
        seen ^= hands[0]
    return seen


@njit(cache=True)
def _deal_draw_bridge(plan, deck, n):
    rng, hands, order = np.zeros(1, np.uint64), np.zeros(2, np.uint64), np.empty(64, np.int64)
    seen = np.uint64(0)
    for i in range(n):
        kd.deal_cards_nb(rng, plan, i % 2, hands, order)
        seen ^= hands[0]
    return seen


@njit(cache=True)
def _deal_bid_euchre(plan, deck, n):
    rng, hands, order = np.zeros(1, np.uint64), np.zeros(4, np.uint64), np.empty(64, np.int64)
    seen = np.uint64(0)
    for i in range(n):
        ke.deal_cards_nb(rng, plan, deck, deck.shape[0] // 4, i % 4, hands, order)
        seen ^= hands[0]
    return seen


DEAL_LOOPS = {"bridgette": _deal_bridgette, "draw-bridge": _deal_draw_bridge, "bid-euchre": _deal_bid_euchre}


def measure_dealing(game: str, cases, deals: int, repeats: int) -> list[float]:
    """Deals dealt per second by the game's own dealing function alone, nothing played:
    each case's best of ``repeats``, the cases in turn."""
    rules = resolve_rules(game)
    deck = np.asarray(dealing.layout(game, rules).deck, dtype=np.int64)
    plans = [dealing.plan(game, rules, dealing.parse("deals", **conditions))[0] for _, conditions in cases]
    loop = DEAL_LOOPS[game]
    for plan in plans:
        loop(plan, deck, 10)
    best = [0.0] * len(cases)
    for _ in range(repeats):
        for i, plan in enumerate(plans):
            start = time.perf_counter()
            loop(plan, deck, deals)
            best[i] = max(best[i], deals / (time.perf_counter() - start))
    return best


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
    p = OneLineParser(prog="python -m benchmarks.dealing", description=__doc__.split("\n\n")[1])
    p.add_argument("--deals", type=whole_number, default=200_000)
    p.add_argument("--threads", type=thread_count, default=None)
    p.add_argument("--policy", default="random")
    p.add_argument("--repeats", type=whole_number, default=5)
    args = p.parse_args(argv)
    try:
        for game in CASES:
            resolve_policies(game, {"all": args.policy})
    except PolicyError as exc:
        return p.fail(f"--policy {args.policy}: {exc}")
    if args.threads:
        numba.set_num_threads(args.threads)
    print(machine_line(machine_facts()))
    print(f"{numba.get_num_threads()} threads, {args.deals:,} deals per block, policy {args.policy}, warm, "
          f"best of {args.repeats} (cases in turn)")
    print("dealing alone (the game's deal function in a loop, nothing played; ranges left out):")
    for game, cases in CASES.items():
        shown = [(label, c) for label, c in cases if "require" not in c]
        rates = measure_dealing(game, shown, 10 * args.deals, args.repeats)
        for (label, _), rate in zip(shown, rates):
            print(f"  {game:12s} {label:34s} {rate:12,.0f} deals/s  {rate / rates[0]:6.1%} of unconditioned")
    print(f"deal runs (dealt and played by {args.policy} seats):")
    for game, cases in CASES.items():
        results = measure(game, cases, args.deals, args.policy, args.repeats)
        base = results[0][0]
        for (label, _), (rate, accepted) in zip(cases, results):
            print(f"  {game:12s} {label:34s} {rate:12,.0f} deals/s  {rate / base:6.1%} of unconditioned"
                  f"  (met by {accepted:.1%} of deals tried)")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.dealing")
