"""Bounds on every count, flag and rule option: past its range a value ends in one line and
exit status 2 before anything is allocated, played or written; the largest run allowed
starts and streams."""

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.blocks import MAX_BLOCK_ROWS, check_room
from sim.match import BLOCK_GAMES, block_games
from sim.rules import GAMES, RulesError, option_table, parse_set
from sim.store import RunError
from tests.commands import in_process

ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 8 * 2**30  # address space of a child that could try to list 2**53 games' blocks


def command(module: str, *args):
    return in_process(module, *args)


def assert_refused(result, *words) -> None:
    """Exit status 2 with one line on stderr, holding ``words``, and no traceback."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


LARGEST = "2**53 = 9,007,199,254,740,992"
PAST_LARGEST = "9007199254740993"  # 2**53 + 1: a float would read it as 2**53
GAMES_DEALS = "option 'game.deals' must be an integer from 1 to 5,000"
REDEALS = "option 'auction.max_redeals' must be"
NOT_FINITE = "is not a finite number"
MATCH = ["--a", "random", "--b", "random"]

# (module, arguments, words of the one line): every reported case, and nan and inf
# wherever a number is read. ``--out`` is added to those that write.
REFUSED = [
    ("sim.run", ["--games", PAST_LARGEST], [f"more than the largest count accepted, {LARGEST}"]),
    ("sim.run", ["--games", "2**53+1"], ["'2**53+1' is not a number"]),
    ("sim.run", ["--games", "1e20"], [LARGEST]),
    ("sim.run", ["--deals", PAST_LARGEST], [LARGEST]),
    ("sim.run", ["--games", "1e6", "--set", "game.deals=1e12"], [GAMES_DEALS, "got 1000000000000.0"]),
    ("sim.run", ["--games", "10", "--set", "auction.max_redeals=2**63"], [REDEALS, "from 0 to 10,000"]),
    ("sim.run", ["--games", "10", "--set", "auction.max_redeals=9223372036854775808"],
     [REDEALS, "at most 10,000, got 9,223,372,036,854,775,808"]),
    ("sim.run", ["--games", "10", "--set", "game.deals=nan"], [GAMES_DEALS, "got nan"]),
    ("sim.run", ["--games", "10", "--set", "game.deals=inf"], [GAMES_DEALS, "got inf"]),
    ("sim.run", ["--games", "10", "--set", "game.deals=-inf"], [GAMES_DEALS, "got -inf"]),
    ("sim.run", ["--games", "10", "--set", "game.deals=1979-05-27"], [GAMES_DEALS, "got 1979-05-27 (a date or time)"]),
    ("sim.run", ["--games", "10", "--game", "draw-bridge", "--set", "game.target=1e12"],
     ["option 'game.target' must be an integer from 1 to 100,000"]),
    ("sim.run", ["--games", "10", "--game", "bid-euchre", "--set", "game.max_hands=2**63"],
     ["option 'game.max_hands' must be an integer from 1 to 10,000"]),
    ("sim.run", ["--games", "nan"], [f"'nan' {NOT_FINITE}"]),
    ("sim.run", ["--games", "inf"], [f"'inf' {NOT_FINITE}"]),
    ("sim.run", ["--deals=-inf"], [f"'-inf' {NOT_FINITE}"]),
    ("sim.run", ["--games", "10", "--threads", "inf"], [f"'inf' {NOT_FINITE}"]),
    ("sim.run", ["--games", "10", "--block-size", "inf"], [f"'inf' {NOT_FINITE}"]),
    ("sim.run", ["--games", "10", "--block-size", "1000001"], ["largest count accepted, 1,000,000"]),
    ("sim.run", ["--games", "10", "--until", "dealer_advantage:nan"], ["half-width must be a positive number"]),
    ("sim.run", ["--games", "10", "--until", "dealer_advantage:inf"], ["half-width must be a positive number"]),
    # Games of 5,000 deals at least: 50,000 of them need 250,000,000 deal rows, past 2**26.
    ("sim.run", ["--games", "1e5", "--set", "game.deals=5000"],
     ["a block of 50,000 games of at least 5,000 deals each", "use --block-size 13,421 or less"]),
    ("sim.show", ["--seed", "1", "--index", "9007199254740992"], ["a game index must be in 0 .. 2**53-1"]),
    ("sim.show", ["--seed", "1", "--index", "nan"], ["'nan' is not a game index"]),
    ("sim.show", ["--seed", "1", "--index", "0", "--set", "game.deals=1e12"], [GAMES_DEALS]),
    ("sim.show", ["--seed", "1", "--index", "0", "--set", "auction.max_redeals=2**63"], [REDEALS]),
    ("sim.sweep", ["--games", PAST_LARGEST, "--vary", "game.deals=1,2"], [LARGEST]),
    ("sim.sweep", ["--games", "10", "--vary", "game.deals=1,1e12"], ["game.deals=1e12: ", GAMES_DEALS]),
    ("sim.sweep", ["--games", "10", "--vary", "auction.max_redeals=0,2**63"], [REDEALS]),
    ("sim.sweep", ["--games", "10", "--vary", "game.deals=1,nan"], [GAMES_DEALS, "got nan"]),
    ("sim.sweep", ["--games", "inf", "--vary", "game.deals=1,2"], [NOT_FINITE]),
    ("sim.sweep", ["--games", "10", "--block-size", "1e7", "--vary", "game.deals=1,2"],
     ["largest count accepted, 1,000,000"]),
    # Refused before the first setting is played.
    ("sim.sweep", ["--games", "1e5", "--records", "none", "--vary", "game.deals=1,5000"],
     ["game.deals=5000: a block of 50,000 games of at least 5,000 deals each"]),
    ("sim.match", [*MATCH, "--games", PAST_LARGEST], [LARGEST]),
    ("sim.match", [*MATCH, "--games", "nan"], [NOT_FINITE]),
    ("sim.match", [*MATCH, "--games", "10", "--set", "game.deals=1e12"], [GAMES_DEALS]),
    ("sim.match", [*MATCH, "--games", "10", "--set", "auction.max_redeals=2**63"], [REDEALS]),
    ("sim.ladder", ["--games", PAST_LARGEST], [LARGEST]),
    ("sim.ladder", ["--games", "inf"], [NOT_FINITE]),
    ("sim.ladder", ["--games", "10", "--dd-games", "nan"], [NOT_FINITE]),
    ("sim.ladder", ["--games", "10", "--set", "game.deals=1e12"], [GAMES_DEALS]),
]
WRITERS = ("sim.run", "sim.sweep", "sim.ladder")


@pytest.mark.parametrize("module,args,words", REFUSED, ids=[f"{m} {' '.join(a)}" for m, a, _ in REFUSED])
def test_refused_in_one_line_with_nothing_written(module, args, words, tmp_path):
    out = tmp_path / "out"
    result = command(module, *args, *(["--out", str(out)] if module in WRITERS else []))
    assert_refused(result, *words)
    assert not out.exists()


@pytest.mark.parametrize("body,words", [
    ("[auction]\nmax_redeals = 9223372036854775807\n", [REDEALS, "at most 10,000"]),
    ("[auction]\nmax_redeals = 99999999999999999999\n", [REDEALS, "at most 10,000"]),
    ("[game]\ndeals = 1e12\n", [GAMES_DEALS]),
    ("[game]\ndeals = nan\n", [GAMES_DEALS, "got nan"]),
    ("[game]\ndeals = inf\n", [GAMES_DEALS, "got inf"]),
    ("[game]\nmax_tiebreak_deals = 5001\n", ["option 'game.max_tiebreak_deals' must be at most 5,000"]),
])
def test_a_rules_file_past_a_range_is_refused(body, words, tmp_path):
    variant = tmp_path / "variant.toml"
    variant.write_text(body)
    out = tmp_path / "out"
    assert_refused(command("sim.run", "--games", "10", "--rules", str(variant), "--out", str(out)), *words)
    assert not out.exists()
    assert variant.read_text() == body


def test_the_api_refuses_what_the_command_line_refuses(tmp_path):
    import sim

    for kwargs, words in (({"games": float("nan")}, "games: 'nan' is not a finite number"),
                          ({"games": 2**53 + 1}, f"games: '{2**53 + 1}' is more than the largest count accepted"),
                          ({"games": 10, "block_size": float("inf")}, "block_size: 'inf' is not a finite number"),
                          ({"games": 10, "block_size": 1_000_001}, "block_size: '1000001' is more than"),
                          ({"games": 10**5, "set_options": ["game.deals=5000"]}, "use block_size 13,421 or less"),
                          ({"games": 10, "threads": 100_000}, "threads=100000 exceeds the")):
        with pytest.raises(ValueError) as caught:
            sim.simulate(out=tmp_path / "out", **kwargs)
        assert words in str(caught.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(RunError, match="out: an empty path names no folder"):
        sim.simulate(games=10, out="")
    for until, words in ((["dealer_advantage:50"], 'until must be "METRIC:HALF_WIDTH" text'),
                         (b"dealer_advantage:50", 'until must be "METRIC:HALF_WIDTH" text'),
                         ("dealer_advantage:1e-400", "the half-width must lie from 1e-09 to 1e+12")):
        with pytest.raises(ValueError, match=re.escape(words)):  # a list or bytes was read as its text
            sim.simulate(games=10, until=until, out=tmp_path / "out")
    with pytest.raises(ValueError, match="rules: an empty path names no file"):  # not "cannot read rules file ."
        sim.simulate(games=10, rules="", out=tmp_path / "out")
    for kwargs, words in (({"control": []}, "control names no level"), ({"metrics": []}, "metrics names no metric")):
        with pytest.raises(RunError, match=words):  # a plain estimate, or none, without a word
            sim.estimate(deals=20, out=tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_a_runs_records_refuse_a_text_filter_and_no_columns_in_words(tmp_path):
    """A filter given as text, which pyarrow would unpack as tuples ("not enough values to
    unpack"), and an empty list of columns, which read no rows at all, are RunErrors saying
    what to give; a pyarrow expression and a column read as documented."""
    import pyarrow.compute as pc

    import sim

    run = sim.simulate(games=20, out=tmp_path / "run")
    with pytest.raises(RunError, match="an empty path names no run folder"):  # not the folder the program is in
        sim.load_run("")
    with pytest.raises(RunError, match=r"filter must be a pyarrow expression.*not text: 'level > 3'"):
        run.deals(filter="level > 3")
    for none in ([], (c for c in ())):  # an empty generator too, once listed
        with pytest.raises(RunError, match="columns names no column"):
            run.deals(columns=none)
    with pytest.raises(RunError, match=r"^/no\\nwhere does not exist$"):  # the path's line break shown, one line
        sim.load_run("/no\nwhere")
    every = run.deals()
    assert len(run.deals(columns="level")) == len(every)
    assert len(run.deals(filter=pc.field("level") > 3)) == (every["level"] > 3).sum()


def test_a_block_refused_as_it_plays_leaves_no_folder_so_the_advised_size_plays(tmp_path, monkeypatch):
    """A block whose games turn out too long for its records is refused as it plays, naming
    a block size that fits; the run it began, nothing played, goes with it (before: its
    folder stayed, and the advised --block-size was refused as another configuration)."""
    import re

    import sim.blocks

    monkeypatch.setattr(sim.blocks, "MAX_BLOCK_ROWS", 2000)
    out = tmp_path / "run"
    args = ["--games", "400", "--seed", "3", "--quiet", "--out", out]
    refused = in_process("sim.run", *args)
    assert refused.returncode == 2 and "deal records, more than the 2,000 a block may hold" in refused.stderr
    assert not out.exists()
    size = int(re.search(r"use --block-size ([\d,]+) or less", refused.stderr)[1].replace(",", ""))
    # The advice rests on the block's first games; a smaller size leaves room for longer ones.
    assert in_process("sim.run", *args, "--block-size", size // 2).returncode == 0


def test_the_api_takes_a_count_of_any_number_type(tmp_path):
    """numpy's integers, a Decimal or a Fraction that is whole count as the int would
    (before: "'3' is not a number"); one that is not whole is refused as a float is."""
    from decimal import Decimal
    from fractions import Fraction

    import numpy as np

    import sim

    for i, games in enumerate((np.int64(3), Decimal(3), Fraction(3))):
        assert sim.simulate(games=games, out=tmp_path / f"out{i}", threads=1).summary["games"] == 3
    with pytest.raises(ValueError, match="is not a whole number of at least 1"):
        sim.simulate(games=Fraction(7, 2), out=tmp_path / "half")


def test_a_block_fits_its_deal_records_or_is_refused():
    """2**26 = 67,108,864 rows: 13,421 games of 5,000 deals fit (67,105,000), 13,422 do not."""
    check_room(13_421, 5_000, "at least")
    check_room(1_000_000, 67, "up to")
    with pytest.raises(RunError, match="needs room for 67,110,000 deal records, more than the 67,108,864 a block"):
        check_room(13_422, 5_000, "at least")
    with pytest.raises(RunError, match=r"1,000,000 games of up to 68 deals .* use --block-size 986,895 or less"):
        check_room(1_000_000, 68, "up to")  # 67,108,864 // 68 = 986,895


def test_match_blocks_hold_their_longest_games():
    """sim.match sizes its blocks by the longest game the rules allow: 20,000 games, or
    2**26 // 5,001 = 13,419 games of Bridgette's 5,000 deals and a tie-break deal."""
    bridgette = GAMES["bridgette"]
    assert block_games(bridgette()) == BLOCK_GAMES == 20_000
    long_games = bridgette.from_dict(parse_set(["game.deals=5000"]))
    assert long_games.most_deals() == 5_001 and block_games(long_games) == 13_419
    assert 13_419 * 5_001 <= MAX_BLOCK_ROWS < 13_420 * 5_001
    draw_bridge = GAMES["draw-bridge"].from_dict(parse_set(["game.max_deals=10000"]))
    assert block_games(draw_bridge) == 6_710


def test_a_match_pairs_the_deals_of_games_past_4096_deals():
    """Two Draw Bridge games that no side finishes, each abandoned after 10,000 deals: the
    same policy on both sides pairs every one of the 2 x 10,000 deals, each with itself."""
    result = command("sim.match", "--game", "draw-bridge", "--a", "heuristic", "--b", "heuristic", "--games", "2",
                     "--set", "game.target=100000", "--set", "game.max_deals=10000", "--json")
    assert result.returncode == 0, result.stderr
    match = json.loads(result.stdout)
    assert match["deals_played"] == 40_000 and match["deals"] == 20_000
    assert match["mean_diff_per_deal"] == 0.0 and match["drawn_games"] == 4


def test_list_options_shows_every_whole_number_range():
    for game, cls in GAMES.items():
        listing = command("sim.run", "--list-options", "--game", game).stdout.splitlines()
        for row in option_table(cls):
            line = next(line for line in listing if line.split()[:1] == [row["option"]])
            if row["type"] == "int":
                assert line.endswith(f"({row['low']:,} to {row['high']:,})"), line


# Other options an edge needs to be a valid rule set (B-3, B-4: the draws fit the stock of
# 29 and the side receiving the up-card draws; E-4: 12 cards are a double-deck hand).
COMPANIONS = {
    ("bridgette", "exchange.nondealer_draw", 0): ["exchange.upcard_to=dealer"],
    ("bridgette", "exchange.nondealer_draw", 29): [f"exchange.dealer_draw_{c}=0" for c in ("numeral", "face", "ace")],
    **{("bridgette", f"exchange.dealer_draw_{c}", 29): ["exchange.nondealer_draw=0", "exchange.upcard_to=dealer"]
       for c in ("numeral", "face", "ace")},
    ("bid-euchre", "auction.ask_cards", 12): ["variant.double_deck=true"],
}
RANGES = [(game, row["option"], row["low"], row["high"])
          for game, cls in GAMES.items() for row in option_table(cls) if row["type"] == "int"]


@pytest.mark.parametrize("game,option,low,high", RANGES, ids=[f"{g}:{o}" for g, o, _, _ in RANGES])
def test_every_rule_option_range_edge(game, option, low, high):
    """Just past either end is refused naming the end; either end is accepted (with the
    options it needs) and the kernels play a game under it."""
    from sim.api import resolve_policies
    from sim.games import game_module

    cls = GAMES[game]
    with pytest.raises(RulesError, match=f"'{option}' must be at least {low:,}, got {low - 1:,}"):
        cls.from_dict(parse_set([f"{option}={low - 1}"]))
    with pytest.raises(RulesError, match=f"'{option}' must be at most {high:,}, got {high + 1:,}"):
        cls.from_dict(parse_set([f"{option}={high + 1}"]))
    for edge in (low, high):
        rules = cls.from_dict(parse_set([*COMPANIONS.get((game, option, edge), []), f"{option}={edge}"]))
        section, name = option.split(".")
        assert getattr(getattr(rules, section), name) == edge
        deals, games = game_module(game).run_block(rules, resolve_policies(game), 1, 0, 1)
        assert len(games) == 1 and 1 <= len(deals) <= rules.most_deals()


OTHERS = [(game, row["option"], row["type"], row["choices"])
          for game, cls in GAMES.items() for row in option_table(cls) if row["type"] != "int"]
# (accepted, refused) of each kind of option that is not a whole number.
VALUES = {"bool": lambda choices: ([True, False], [1, "true", 0.0]),
          "str": lambda choices: (list(choices), ["nowhere", choices[0].upper(), 0]),
          "tuple": lambda choices: ([list(choices), []], [["nowhere"], [choices[0]] * 2, choices[0]])}
# A score table's row: the default and the top of each entry's range accepted; a number, a
# true, an entry below 0 and a list one entry short refused.
ROWS = {row["option"]: row for cls in GAMES.values() for row in option_table(cls) if row["type"] == "list"}


def _row_values(option):
    row = ROWS[option]
    (fewest, most), default = row["length"], list(row["default"])
    return [default, [row["high"]] * most], [default[0], [True] * fewest, [-1] * fewest, default[:fewest - 1]]


VALUES["list"] = _row_values


@pytest.mark.parametrize("game,option,kind,choices", OTHERS, ids=[f"{g}:{o}" for g, o, _, _ in OTHERS])
def test_every_other_rule_option_takes_only_its_values(game, option, kind, choices):
    """A true/false option takes only true or false, a choice only its choices, a list only
    distinct choices: each allowed value is accepted and anything else refused by name."""
    cls = GAMES[game]
    section, name = option.split(".")
    accepted, refused = VALUES[kind](option if kind == "list" else choices)
    for value in accepted:
        rules = cls.from_dict({section: {name: value}})
        assert getattr(getattr(rules, section), name) == (tuple(value) if kind in ("tuple", "list") else value)
    for value in refused:
        with pytest.raises(RulesError, match=f"option '{option}' (must|lists)"):
            cls.from_dict({section: {name: value}})


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _wait_for(path: Path, proc, seconds: float) -> None:
    began = time.monotonic()
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() - began < seconds, f"no {path.name} after {seconds} s"
        time.sleep(0.05)


def _stop(proc) -> tuple[int, int]:
    """Ctrl-C ``proc``: (exit status, its peak resident memory in bytes)."""
    proc.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024


def test_the_largest_run_starts_and_streams(tmp_path):
    """--games 2**53 (9,007,199,254,741 blocks of 1,000): its first blocks are written within
    seconds in a few hundred MB, Ctrl-C keeps them, and the same command resumes past them."""
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sim.run", "--games", "2**53", "--block-size", "1000", "--records", "none",
            "--quiet", "--out", str(out)]
    for run in range(2):  # then the same command again, up to a block it had not played
        written = sorted(int(f.stem) for f in (out / "blocks").glob("*.json")) if run else [-1]
        target = f"{written[-1] + 1:06d}.json"
        proc = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.PIPE, text=True, preexec_fn=_limited)
        _wait_for(out / "blocks" / target, proc, 120)
        status, peak = _stop(proc)
        assert status == 130 and peak < 2**30
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["config"]["games"] == 2**53 and manifest["blocks"] == 9_007_199_254_741
        assert manifest["blocks_done"][:int(target[:6]) + 1] == list(range(int(target[:6]) + 1))
        if run == 0:
            first = (out / "blocks" / target).read_bytes()
    assert (out / "blocks" / "000000.json").read_bytes() == first  # resumed, not played again


def test_the_largest_run_stops_by_until(tmp_path):
    """--games 2**53 with a --until width reached after the first block: one block played
    and the run complete, in memory independent of its 2**53 cap."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "sim.run", "--games", "2**53", "--block-size", "1000",
                             "--records", "none", "--until", "dealer_advantage:1000", "--quiet", "--out", str(out)],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True, preexec_fn=_limited)
    began = time.monotonic()
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, proc.stderr.read()
    assert time.monotonic() - began < 120 and usage.ru_maxrss * 1024 < 2**30
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["config"]["games"] == 2**53
    assert manifest["games_played"] == 1000 and manifest["blocks"] == 1


def test_cluster_jobs_are_taken_as_workers_finish():
    """A cluster reads its jobs a few per worker ahead of the results, so the blocks of a run
    of 2**53 games (or an endless generator) reach it without being listed; in order when
    asked (sim.match merges its blocks in order)."""
    import itertools

    from sim.cluster import IN_FLIGHT_PER_WORKER, open_cluster

    taken = []

    def jobs():
        for n in itertools.count():
            assert n < 1000, "jobs taken far ahead of their results"
            taken.append(n)
            yield (-n,)

    with open_cluster("local:1", threads=1) as pool:
        ordered = pool.map(abs, jobs(), ordered=True)
        assert [next(ordered) for _ in range(5)] == [0, 1, 2, 3, 4]
        assert len(taken) <= IN_FLIGHT_PER_WORKER + 5
        ordered.close()
        taken.clear()
        finished = pool.map(abs, jobs())
        assert next(finished) in range(IN_FLIGHT_PER_WORKER) and len(taken) <= IN_FLIGHT_PER_WORKER + 1
        finished.close()
