"""python -m sim.run --games N [--seed S] [--threads T]

Plays N whole Bridgette games (B-15) with the heuristic policy at both seats and prints
a short summary: contracts made, mean score per deal by seat, game wins by seat.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from kernels.calls import BID_LEVEL
from sim.policies import parse_policy
from sim.rules import BridgetteRules

BLOCK_GAMES = 50_000


def count(text: str) -> int:
    """A positive whole number, also written as 1e6."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value.is_integer() or value < 1 or value > 2**53:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of at least 1")
    return int(value)


def seed_value(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer seed") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("the seed must be in 0 .. 2**64-1")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim.run", description=__doc__.splitlines()[2])
    parser.add_argument("--games", type=count, required=True, help="whole games to play (1e6 works)")
    parser.add_argument("--seed", type=seed_value, default=1, help="run seed (default 1)")
    parser.add_argument("--threads", type=count, default=None,
                        help="worker threads (default: all cores); results do not depend on it")
    args = parser.parse_args(argv)

    import numba

    from sim.engine import run_block

    if args.threads is not None:
        if args.threads > numba.config.NUMBA_NUM_THREADS:
            parser.error(f"--threads {args.threads} exceeds the {numba.config.NUMBA_NUM_THREADS} "
                         "threads available")
        numba.set_num_threads(args.threads)
    rules = BridgetteRules()
    policies = [parse_policy("heuristic")] * 2
    start = time.perf_counter()
    made = played = passed = n_deals = 0
    score_sum = np.zeros(2)
    wins = np.zeros(3, dtype=np.int64)  # seat 0, seat 1, drawn or abandoned
    for first in range(0, args.games, BLOCK_GAMES):
        deals, games = run_block(rules, policies, args.seed, first, min(BLOCK_GAMES, args.games - first))
        n_deals += len(deals)
        contracts = deals["contract"]
        bid = contracts >= 0
        played += int(bid.sum())
        passed += int((~bid).sum())
        decl_tricks = np.where(deals["declarer"] == 0, deals["tricks0"], deals["tricks1"])
        made += int((bid & (decl_tricks >= 6 + BID_LEVEL[np.maximum(contracts, 0)])).sum())
        score_sum += [deals["score0"].sum(), deals["score1"].sum()]
        wins += np.bincount(np.where(games["winner"] < 0, 2, games["winner"]), minlength=3)
    elapsed = time.perf_counter() - start
    print(f"Bridgette: {args.games:,} games, {n_deals:,} deals, seed {args.seed}, heuristic vs heuristic")
    print(f"  contracts made       {100 * made / max(played, 1):6.2f}% of {played:,} played "
          f"({100 * passed / n_deals:.2f}% of deals passed out)")
    print(f"  mean score per deal  seat 0 {score_sum[0] / n_deals:8.1f}   seat 1 {score_sum[1] / n_deals:8.1f}")
    print(f"  game wins            seat 0 {100 * wins[0] / args.games:6.2f}%  seat 1 "
          f"{100 * wins[1] / args.games:6.2f}%  drawn/abandoned {100 * wins[2] / args.games:5.2f}%")
    print(f"  {elapsed:.1f} s ({args.games / elapsed:,.0f} games/s, {n_deals / elapsed:,.0f} deals/s, "
          f"{numba.get_num_threads()} threads, compile time included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
