"""Compile the kernels the tests need once, before the test workers start.

``make test`` runs ``python -m tests.warm`` in the fresh numba cache that its pytest workers
then share. numba writes a kernel to the cache only when its compile ends, so two workers
that reach the same kernel together each compile it, and a game's kernels with search code
take minutes. Here each game's entry points (a run without and with search code, a run with
double-dummy values, a traced run, a replayed deal) compile in a process of its own, two
at a time: Bridgette and Bid Euchre first, then Draw Bridge, which loads the contract
search Bridgette compiled. The tests call the same entry points with the same argument
types, so they load what this compiled.
"""

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden" / "cases.jsonl"
GAMES = ("bridgette", "bid-euchre", "draw-bridge")  # in this order, two at a time


def warm_game(game: str) -> None:
    """Play a game's entry points on a game or two (the numbers do not matter, the types do)."""
    from sim.api import resolve_policies
    from sim.games import game_module
    from sim.replay import replay_case

    module = game_module(game)
    rules = module.RULES()
    plain = resolve_policies(game, {"all": "heuristic"})
    searching = resolve_policies(game, {"all": "search:worlds=1"})
    module.run_block(rules, plain, 1, 0, 2)
    module.run_block(rules, plain, 1, 0, 2, dd=True)
    module.run_block(rules, searching, 1, 0, 1)
    module.trace_raw(rules, plain, 1, [0])
    module.trace_raw(rules, searching, 1, [0])
    case = next(c for c in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines()) if c.get("game") == game)
    replay_case(case, "kernel")


def warmed(game: str) -> str:
    start = time.perf_counter()
    warm_game(game)
    return f"{game}: {time.perf_counter() - start:.0f} s"


def main() -> int:
    with ProcessPoolExecutor(max_workers=2) as pool:
        for line in pool.map(warmed, GAMES):
            print(f"compiled the kernels of {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
