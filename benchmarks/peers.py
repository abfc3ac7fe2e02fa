"""python -m benchmarks.peers [--quick] [--json] [--probe PATH]

The project's deal rates beside its peers, measured in one process so that the ratios
hold on a shared, noisy machine:

- OpenSpiel's C++ ``euchre`` played by uniform random bots: whole deals/s on one core
  (needs the ``bench`` extra: ``pip install -e .[bench]``; without it the rest is measured);
- the project's Bid Euchre with random policies: deals (hands)/s on one thread and on all
  numba threads, and Bridgette with random policies on one thread, through the game
  modules' ``run_block``;
- the plain numba limit loops of ``benchmarks/limit_loop.py`` (deal and greedy play, no
  rules): two hands of 13 from 55 cards, and four hands of 6 from 24 cards, one thread.

The first call of each kernel (compile, or load from numba's cache) is timed on its own.
Then every figure is measured once per round, the rounds interleaved so that a change in
the machine's load touches all figures alike; each figure is the best of its rounds.
``--probe PATH`` also measures a limit_probe.py script (``full2_par``/``full4_par`` on one
thread) as a cross-check of the limit loops; it is never needed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

import numba
from numba.core import event

from benchmarks import limit_loop
from benchmarks.throughput import machine_facts, machine_line, measure
from sim.api import resolve_policies, resolve_rules
from sim.cli import OneLineParser, exit_with, path_text, whole_number
from sim.games import game_module

SEED = 1
# Blocks of fewer games than this mostly time run_block's fixed costs (its pilot slice of
# games, the record buffers), not the games: the project's figures never use smaller ones.
MIN_GAMES = 2048
INSTALL_HINT = "OpenSpiel not measured: open_spiel is not installed (pip install -e .[bench], or make bench-peers)"

# (key, numerator, denominator, target or None)
RATIOS = [
    ("bid_euchre_vs_openspiel", "bid_euchre_1t", "openspiel_euchre", 20.0),
    ("bridgette_vs_limit_two", "bridgette_1t", "limit_two", 0.4),
    ("bid_euchre_vs_limit_four", "bid_euchre_1t", "limit_four", None),
    ("limit_two_vs_probe", "limit_two", "probe_two", None),
    ("limit_four_vs_probe", "limit_four", "probe_four", None),
]
SHORT = {"openspiel_euchre": "OpenSpiel euchre per core", "bid_euchre_1t": "Bid Euchre random per thread",
         "bridgette_1t": "Bridgette random per thread", "limit_two": "limit loop 2 hands",
         "limit_four": "limit loop 4 hands", "probe_two": "limit_probe 2 hands", "probe_four": "limit_probe 4 hands"}


@dataclass
class Figure:
    key: str
    label: str
    play: object  # play(n) -> (seconds, deals/s)
    start: int  # first and smallest block when sizing the blocks
    unit: str  # what n counts: games or deals
    block: int = 0
    rates: list = field(default_factory=list)


def first_call(fn) -> tuple[float, int]:
    """(seconds, functions numba compiled) of a kernel's first call; 0 compiled = cache load."""
    with event.install_recorder("numba:compile") as rec:
        start = time.perf_counter()
        fn()
        seconds = time.perf_counter() - start
    return seconds, sum(1 for _, e in rec.buffer if e.status is event.EventStatus.START)


def project_figure(key, game, threads, label):
    module = game_module(game)
    rules = resolve_rules(game)
    policies = resolve_policies(game, {"all": "random"})

    def play(n):
        numba.set_num_threads(threads)
        games_s, deals_s = measure(module, rules, policies, n, repeats=1)
        return n / games_s, deals_s

    def warm():
        numba.set_num_threads(threads)
        module.run_block(rules, policies, SEED, 0, 10)

    return Figure(key, label, play, MIN_GAMES, "games"), warm


def loop_figure(key, run, label):
    def play(n):
        numba.set_num_threads(1)
        start = time.perf_counter()
        run(n)
        seconds = time.perf_counter() - start
        return seconds, n / seconds

    return Figure(key, label, play, 20_000, "deals")


def openspiel_figure():
    """OpenSpiel's euchre with uniform random bots, or None if open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None, None
    from importlib.metadata import PackageNotFoundError, version
    try:
        release = version("open_spiel")
    except PackageNotFoundError:
        release = "unknown"
    game = pyspiel.load_game("euchre")
    bots = [pyspiel.make_uniform_random_bot(p, SEED + p) for p in range(game.num_players())]
    seeds = random.Random(SEED)

    def play(n):
        start = time.perf_counter()
        for _ in range(n):  # one call plays a whole deal in C++: deal, auction, tricks
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seeds.randrange(1 << 30))
        seconds = time.perf_counter() - start
        return seconds, n / seconds

    return Figure("openspiel_euchre", "OpenSpiel euchre, uniform random bots, 1 core", play, 500, "deals"), release


def _checked_probe(parser, path):
    """--probe's script, loaded before anything is timed: exit status 2 with one line where
    it is no file or no limit_probe.py (its loader is given the file whatever it holds)."""
    if not os.path.isfile(path):
        parser.error(f"--probe {path}: no such file")
    try:
        probe = load_probe(path)
    except Exception as exc:  # noqa: BLE001 - the user's script: whatever it raises is named in one line
        parser.error(f"--probe {path}: cannot be loaded as a Python script ({type(exc).__name__}: {exc})")
    if not all(callable(getattr(probe, name, None)) for name in ("full2_par", "full4_par")):
        parser.error(f"--probe {path}: holds no full2_par and full4_par (not a limit_probe.py)")
    return probe


def load_probe(path):
    """Import a limit_probe.py script; it reads its own command line and sets NUMBA_CACHE_DIR
    when imported, so both are put back afterwards (a changed variable would make numba
    reload its configuration, dropping the kernels' cache folder). It is registered as a
    module so that numba's cache can rebuild its functions' environment."""
    spec = importlib.util.spec_from_file_location("limit_probe", path,  # read as Python whatever its name
                                                  loader=importlib.machinery.SourceFileLoader("limit_probe", path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    argv, cache = sys.argv, os.environ.get("NUMBA_CACHE_DIR")
    sys.argv = [path]
    try:
        spec.loader.exec_module(module)
    finally:
        sys.argv = argv
        if cache is None:
            os.environ.pop("NUMBA_CACHE_DIR", None)
        else:
            os.environ["NUMBA_CACHE_DIR"] = cache
    return module


def size_block(figure: Figure, target: float) -> int:
    """Grow the block until it takes a tenth of ``target``, then scale it to ``target`` s
    (never below the figure's smallest block)."""
    n = figure.start
    while True:
        seconds, _ = figure.play(n)
        if seconds >= target / 10 or n >= 1 << 30:
            return max(figure.start, int(n * target / seconds))
        n *= 10


def busy_cpu_s() -> float:
    """CPU-seconds the whole machine has been busy (all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as fh:
            ticks = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.peers", description="Deals/s of OpenSpiel's euchre, the project's Bid Euchre and Bridgette "
                                     "(random policies) and the plain numba limit loops, side by side in one process.")
    parser.add_argument("--quick", action="store_true", help="short run: 2 rounds of 0.25 s blocks")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--rounds", type=whole_number, help="timed rounds (default 5, --quick 2)")
    parser.add_argument("--seconds", type=float, help="seconds per timed block (default 1, --quick 0.25)")
    parser.add_argument("--probe", type=path_text, metavar="PATH",
                        help="also measure this limit_probe.py (optional cross-check)")
    args = parser.parse_args(argv)
    probe = args.probe and _checked_probe(parser, args.probe)
    if args.seconds is not None and not 0 < args.seconds <= 3600:
        parser.error(f"--seconds {args.seconds:g}: a timed block takes more than 0 and at most 3600 seconds")
    rounds = args.rounds or (2 if args.quick else 5)
    target = args.seconds or (0.25 if args.quick else 1.0)
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if args.json else (lambda *a: print(*a, flush=True))

    threads = numba.config.NUMBA_NUM_THREADS
    facts = machine_facts()
    say(f"{machine_line(facts)}; numba threads {threads}")

    figures, compile_s = [], {}
    openspiel, release = openspiel_figure()
    facts["open_spiel"] = release
    if openspiel is None:
        say(INSTALL_HINT)
    else:
        say(f"open_spiel {release}")
        figures.append(openspiel)

    bid_1t, warm_bid = project_figure("bid_euchre_1t", "bid-euchre", 1, "Bid Euchre random, 1 thread")
    figures.append(bid_1t)
    if threads > 1:
        figures.append(project_figure("bid_euchre_all", "bid-euchre", threads,
                                      f"Bid Euchre random, {threads} threads")[0])
    bridgette_1t, warm_bridgette = project_figure("bridgette_1t", "bridgette", 1, "Bridgette random, 1 thread")
    figures.append(bridgette_1t)
    figures.append(loop_figure("limit_two", lambda n: limit_loop.run("two", SEED, 0, n),
                               "limit loop: 2 hands of 13 from 55 cards, 13 tricks, 1 thread"))
    figures.append(loop_figure("limit_four", lambda n: limit_loop.run("four", SEED, 0, n),
                               "limit loop: 4 hands of 6 from 24 cards, 6 tricks, 1 thread"))
    warms = [("bid-euchre random", warm_bid), ("bridgette random", warm_bridgette),
             ("limit loops", lambda: (limit_loop.run("two", SEED, 0, 10), limit_loop.run("four", SEED, 0, 10)))]

    if probe:
        chunks = 256
        figures.append(loop_figure("probe_two", lambda n: probe.full2_par(n, SEED, chunks),
                                   "limit_probe.py full2_par, 1 thread"))
        figures.append(loop_figure("probe_four", lambda n: probe.full4_par(n, SEED, chunks),
                                   "limit_probe.py full4_par, 1 thread"))
        warms.append(("limit_probe.py", lambda: (probe.full2_par(10, SEED, chunks),
                                                 probe.full4_par(10, SEED, chunks))))

    for name, warm in warms:
        seconds, compiled = first_call(warm)
        compile_s[name] = {"seconds": round(seconds, 3), "functions_compiled": compiled}
        how = f"compiled {compiled} functions" if compiled else "loaded from numba's cache"
        say(f"first call, {name}: {seconds:.1f} s ({how})")

    for figure in figures:
        figure.block = size_block(figure, target)
    say(f"timing {len(figures)} figures, {rounds} rounds of about {target:g} s blocks each...")
    busy0, own0, wall0 = busy_cpu_s(), time.process_time(), time.perf_counter()
    for _ in range(rounds):
        for figure in figures:
            figure.rates.append(figure.play(figure.block)[1])
    wall = time.perf_counter() - wall0
    other_cores = max(0.0, busy_cpu_s() - busy0 - (time.process_time() - own0)) / wall
    numba.set_num_threads(threads)

    best = {f.key: max(f.rates) for f in figures}
    ratios = {}
    for key, num, den, goal in RATIOS:
        if num in best and den in best:
            ratios[key] = {"label": f"{SHORT[num]} / {SHORT[den]}", "value": best[num] / best[den],
                           "numerator": num, "denominator": den, "target": goal}

    if args.json:
        out = {
            "machine": facts, "quick": args.quick, "rounds": rounds, "block_seconds": target,
            "other_processes_cores": round(other_cores, 2), "first_call": compile_s,
            "figures": {f.key: {"label": f.label, "deals_per_s": best[f.key],
                                "median_deals_per_s": statistics.median(f.rates),
                                "rates": f.rates, "block": f.block, "block_unit": f.unit} for f in figures},
            "ratios": ratios,
        }
        print(json.dumps(out, indent=2))
        return 0

    print(f"\nbest of {rounds} interleaved rounds; other processes used {other_cores:.2f} of "
          f"{facts['cores']} cores meanwhile")
    width = max(len(f.label) for f in figures)
    print(f"{'figure':{width}s} {'deals/s':>12s} {'median':>12s}")
    for f in figures:
        print(f"{f.label:{width}s} {best[f.key]:12,.0f} {statistics.median(f.rates):12,.0f}")
    width = max(len(r["label"]) for r in ratios.values())
    print(f"\n{'ratio':{width}s} {'measured':>9s}  target")
    for r in ratios.values():
        goal = "" if r["target"] is None else (
            f">= {r['target']:g}x ({'met' if r['value'] >= r['target'] else 'not met'})")
        print(f"{r['label']:{width}s} {r['value']:8.2f}x  {goal}".rstrip())
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.peers")
