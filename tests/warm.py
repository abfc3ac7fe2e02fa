"""Compile the kernels the tests need once, before the test workers start.

``make test`` runs ``python -m tests.warm`` in the fresh numba cache that its pytest workers
then share. numba writes a kernel to the cache only when its compile ends, so two workers
that reach the same kernel together each compile it, and a game's kernels with search code
take minutes. Here each game's entry points compile in two processes at a time: first the
kernels with search code (a run with double-dummy values, a run of search seats, a traced
one; one job per game, a few minutes each), then those without (a run, a traced run, a
replayed deal; under a minute each), so that the two processes finish together. The tests
call the same entry points with the same argument types, so they load what this compiled.
"""

import sys
import time
from concurrent.futures import ProcessPoolExecutor

GAMES = ("bridgette", "bid-euchre", "draw-bridge")
JOBS = [(game, True) for game in GAMES] + [(game, False) for game in GAMES]  # the longest first
# Games of one deal: the types are what compile, and a Draw Bridge game of search seats
# played to its target took half a minute.
ONE_DEAL = {"bridgette": {"game": {"deals": 1}}, "draw-bridge": {"game": {"max_deals": 1}},
            "bid-euchre": {"game": {"target": 1}}}


def warm(job) -> str:
    """Play one game's entry points with search code or without on a game or two (the
    numbers do not matter, the types do); what it took."""
    from sim.api import resolve_policies
    from sim.games import game_module
    from sim.replay import replay_case
    from tests.conftest import golden_cases

    game, searching = job
    start = time.perf_counter()
    module = game_module(game)
    rules = module.RULES.from_dict(ONE_DEAL[game])
    plain = resolve_policies(game, {"all": "heuristic"})
    if searching:
        seats = resolve_policies(game, {"all": "search:worlds=1"})
        module.run_block(rules, plain, 1, 0, 2, dd=True)
        module.run_block(rules, seats, 1, 0, 1)
        module.trace_raw(rules, seats, 1, [0])
    else:
        module.run_block(rules, plain, 1, 0, 2)
        module.trace_raw(rules, plain, 1, [0])
        replay_case(golden_cases(game)[0][1], "kernel")
    what = "with search code" if searching else "without search code"
    return f"{game} {what}: {time.perf_counter() - start:.0f} s"


def main() -> int:
    with ProcessPoolExecutor(max_workers=2) as pool:
        for line in pool.map(warm, JOBS):
            print(f"compiled the kernels of {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
