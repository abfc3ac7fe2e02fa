"""python -m sim.run flags, and the kernels run as plain Python."""

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.commands import as_process, in_process, playing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = Path(ROOT, "tests", "golden", "cases.jsonl")


def run(*args, env=None):
    """sim.run in this process, or in a new one where ``env`` sets its environment."""
    return in_process("sim.run", *args) if env is None else as_process("sim.run", *args, env=env)


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "not a whole number of at least 1"),
    (["--games", "lots"], "'lots' is not a number"),
    (["--games", "10", "--seed", "-1"], "seed must be in"),
    (["--games", "10", "--threads", "999"], "exceeds the"),
    (["--games", "10", "--colour", "red"], "unrecognized arguments"),
    (["--games", "1.5"], "'1.5' is not a whole number of at least 1"),
    (["--games", "1e20"], "'1e20' is more than the largest count accepted, 2**53 = 9,007,199,254,740,992"),
])
def test_bad_flags_exit_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def _printed_with_and_without_jit(code: str) -> tuple[str, str]:
    """What ``code`` prints with NUMBA_DISABLE_JIT=1 (each kernel run as its Python body,
    for debugging) and compiled."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    jit = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert plain.returncode == jit.returncode == 0, plain.stderr[-2000:] + jit.stderr[-2000:]
    return plain.stdout, jit.stdout


def test_kernels_run_as_python_with_jit_disabled():
    """NUMBA_DISABLE_JIT=1 plays exactly the same games as the compiled kernels."""
    plain, jit = _printed_with_and_without_jit(
        "from sim.bridgette import run_block; from sim.rules import BridgetteRules; "
        "from sim.policies import parse_policy; "
        "d, g = run_block(BridgetteRules(), [parse_policy('heuristic'), parse_policy('random')], 3, 10, 2); "
        "print(d.tolist(), g.tolist())")
    assert plain == jit and plain.count("(") > 12


def test_double_dummy_runs_as_python_with_jit_disabled():
    """The solvers, in both families, give the same values with NUMBA_DISABLE_JIT=1 as compiled."""
    plain, jit = _printed_with_and_without_jit(
        "from sim.dd import Solver; s = Solver(); "
        "print(s.contract_tricks([[0, 1, 2, 13, 14, 52], [3, 4, 15, 16, 26, 53]], 1, 0), "
        "s.contract_card_values([[0, 12, 25], [5, 6, 7, 44]], -1, 1, lead=30), "
        "s.euchre_tricks([[0, 1], [2, 3, 10], [4, 5, 11], [6, 7, 12]], 0, 1, trick=[(0, 9)]), "
        "s.euchre_card_values([[0, 1, 9], [2, 3, 10], [4, 5, 11], [6, 7, 12]], 2, 0))")
    assert plain == jit and plain.count(":") == 7  # seven cards valued


@pytest.mark.parametrize("command, args", [
    ("sim.run", ["--game", "bridgette", "--games", "10", "--policy", "0=heuristic:draw_fight=11"]),
    ("sim.show", ["--game", "bid-euchre", "--seed", "1", "--index", "0", "--policy", "all=heuristic:keep_colons=0"]),
    ("sim.match", ["--game", "draw-bridge", "--a", "heuristic:partner_aware=0", "--b", "random", "--games", "10"]),
    ("sim.sweep", ["--game", "bid-euchre", "--vary", "game.target=20,32", "--games", "10",
                   "--policy", "1=heuristic:double_margin=2"]),
])
def test_a_parameter_of_another_game_is_one_line_and_exit_2(command, args, tmp_path):
    """A heuristic parameter that the game's decisions do not read is refused before anything is played."""
    result = in_process(command, *args, *(["--out", tmp_path / "out"] if command in ("sim.run", "sim.sweep") else []))
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "has no parameter" in result.stderr
    assert "decisions read it" in result.stderr and not (tmp_path / "out").exists()


def one_line(stderr: str) -> bool:
    return len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr


@pytest.mark.parametrize("command", ["sim.show", "sim.run", "sim.replay", "analysis.compare"])
def test_output_into_a_closed_pipe_ends_quietly_with_141(command, tmp_path):
    """As `... | head -1` once head has gone: no traceback, status 141 (128 + SIGPIPE), and a
    run folder finished before its summary was printed."""
    from tests.test_metrics import DEALS_A, GAMES_A, fake_run

    args = {"sim.show": ["--seed", "7", "--index", "42"],
            "sim.run": ["--games", "20", "--out", str(tmp_path / "run")],
            "sim.replay": [str(GOLDEN)],
            "analysis.compare": [str(fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2))] * 2}[command]
    proc = subprocess.Popen([sys.executable, "-m", command, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read()
    assert proc.wait(timeout=600) == 141 and err == ""
    if command == "sim.run":
        assert json.loads((tmp_path / "run" / "manifest.json").read_text())["complete"]
        assert json.loads((tmp_path / "run" / "summary.json").read_text())["games"] == 20


@pytest.mark.parametrize("command, args", [
    ("sim.run", ["--games", "10"]),
    ("sim.show", ["--seed", "1", "--index", "0"]),
    ("sim.match", ["--a", "random", "--b", "random", "--games", "10"]),
    ("sim.sweep", ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "10"]),
])
def test_a_rules_file_that_is_not_utf8_is_one_line_and_exit_2(command, args, tmp_path):
    rules = tmp_path / "latin1.toml"
    rules.write_bytes('[exchange]\nupcard_to = "d\u00e9ad"\n'.encode("latin-1"))
    out = ["--out", str(tmp_path / "out")] if command in ("sim.run", "sim.sweep") else []
    result = in_process(command, *args, "--rules", rules, *out)
    assert result.returncode == 2 and one_line(result.stderr), result.stderr
    assert f"rules file {rules} is not UTF-8 text" in result.stderr and not (tmp_path / "out").exists()


def test_ctrl_c_during_a_match_is_one_line_and_exit_130():
    proc = subprocess.Popen([sys.executable, "-m", "sim.match", "--a", "heuristic", "--b", "random",
                             "--games", "1e8"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        playing(proc)  # into the match
        assert proc.poll() is None, "the match ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()  # a match of 1e8 games left behind would hold the cores for hours
    assert proc.returncode == 130 and out == ""
    assert err == "interrupted; a match keeps nothing, so rerun the command to play it\n"  # one line, none blank


@pytest.mark.parametrize("module", ["sim.run", "analysis.compare", "benchmarks.throughput"])
def test_ctrl_c_while_a_command_still_imports_is_one_line_and_exit_130(module, tmp_path):
    """Ctrl-C as soon as numpy is loaded (the command's modules still importing) ends it as
    Ctrl-C ends it later: one line, status 130, no traceback, nothing written."""
    args = {"sim.run": ["--games", "1e6", "--out", str(tmp_path / "never")],
            "analysis.compare": [str(tmp_path), str(tmp_path)], "benchmarks.throughput": []}[module]
    proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        maps = Path(f"/proc/{proc.pid}/maps")
        began = time.monotonic()
        while "_multiarray_umath" not in maps.read_text() and time.monotonic() - began < 60:
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and one_line(err) and "Traceback" not in err, err
    assert err == f"python -m {module}: interrupted\n" and not (tmp_path / "never").exists()


@pytest.mark.parametrize("module,argv,problem", [
    ("throughput", ["--games", "-1"], "argument --games: '-1' is not a whole number of at least 1"),
    ("throughput", ["--threads", "0"], "argument --threads: '0' is not a whole number of at least 1"),
    ("dealing", ["--policy", "foo"], "--policy foo: unknown policy 'foo'"),
    ("pimc", ["--worlds", "0"], "argument --worlds: '0' is not a whole number of at least 1"),
    ("dd", ["--deals", "0"], "argument --deals: '0' is not a whole number of at least 1"),
    ("search", ["--threads", "100000"], "argument --threads: 100000 exceeds the"),
    ("peers", ["--seconds", "-1"], "--seconds -1: a timed block takes more than 0"),
    ("call_model", ["--refit", "-1"], "--refit must be 0 or more, not -1"),
    ("dd_run", ["--games", "bridgette=x"], "argument --games: 'x' is not a number"),  # a traceback before
    ("dd_run", ["--games", "bridge=3"], "argument --games: 'bridge=3' is not GAME=N with GAME one of bridgette"),
    ("throughput", ["--memory", "-1"], "argument --memory: '-1' is not a whole number"),  # taken before
    ("run_path", ["--vs", ""], "argument --vs: an empty path names no file"),  # ran without --vs before
    ("peers", ["--probe", str(GOLDEN)], f"--probe {GOLDEN}: cannot be loaded as a Python script"),
    ("peers", ["--probe", "nosuch.py"], "--probe nosuch.py: no such file"),  # measured the rest before
])
def test_benchmarks_refuse_bad_flags_in_one_line(module, argv, problem, capsys):
    main = importlib.import_module(f"benchmarks.{module}").main
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own checks
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and one_line(err) and err.startswith(f"python -m benchmarks.{module}: error: "), err
    assert problem in err


@pytest.mark.parametrize("module,argv,name", [
    ("sim.run", ["--games", "5", "--rules", ""], "argument --rules"),
    ("sim.run", ["--games", "5", "--out", " "], "argument --out"),
    ("analysis.compare", ["", "runs"], "argument RUN_A"),
    ("analysis.report", ["runs", "--out", ""], "argument --out"),
    ("sim.replay", [""], "argument file"),
])
def test_an_empty_path_is_one_line_naming_the_argument(module, argv, name, capsys):
    """An empty path would read as the current folder: it is refused, named by its argument."""
    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and one_line(err), err
    assert f"error: {name}: an empty path names no file or folder" in err


def test_one_game_on_one_thread_is_said_in_the_singular(tmp_path):
    result = run("--games", "1", "--threads", "1", "--out", str(tmp_path / "one"))
    assert result.returncode == 0, result.stderr
    assert "bridgette: 1 game, " in result.stdout and "1 game played now in" in result.stdout
    timing = next(line for line in result.stdout.splitlines() if " played now in " in line)
    assert timing.endswith(" games/s, 1 thread)")


def test_the_api_checks_numbers_as_the_command_line_does(tmp_path):
    import sim

    for games, words in (("1.5", "'1.5' is not a whole number of at least 1"), ("lots", "'lots' is not a number"),
                         ("1e20", "'1e20' is more than the largest count accepted, 2**53")):
        line = run("--games", games, "--out", str(tmp_path / "cli")).stderr
        with pytest.raises(ValueError) as refused:
            sim.simulate(games=float(games) if games == "1.5" else games, out=tmp_path / "api")
        assert str(refused.value).startswith(f"games: {words}")
        assert line == f"python -m sim.run: error: argument --{refused.value} (see --help)\n"  # the same words
    with pytest.raises(ValueError, match="^block_size: '0' is not a whole number of at least 1$"):
        sim.simulate(games=10, block_size=0, out=tmp_path / "api")
    with pytest.raises(ValueError, match="^seed: the seed must be in 0 .. 2\\*\\*64-1$"):
        sim.simulate(games=10, seed=-1, out=tmp_path / "api")
    assert not (tmp_path / "api").exists() and not (tmp_path / "cli").exists()
    played = sim.simulate(games="3e2", block_size=100.0, seed="4", out=tmp_path / "api")
    config = played.manifest["config"]
    assert (played.summary["games"], config["games"], config["block_size"], config["seed"]) == (300, 300, 100, 4)


@pytest.mark.parametrize("policy,dd,searching", [("heuristic", False, False), ("pimc:worlds=2", False, True),
                                                 ("dd", False, True), ("heuristic", True, True)])
def test_the_compile_notice_names_the_kernels_a_run_needs(tmp_path, monkeypatch, policy, dd, searching):
    """A run with a searching seat or --dd asks for, and announces, the kernels with search
    code; other runs the plain ones (stopped at the notice, before anything compiles)."""
    import sim.api
    from sim.policies import parse_policy
    from sim.rules import rules_for

    class Stop(Exception):
        pass

    asked, told = [], []
    monkeypatch.setattr(sim.api, "kernels_cached", lambda module, search=False: asked.append(search) or False)

    def notify(line):
        told.append(line)
        raise Stop

    with pytest.raises(Stop):
        sim.api.execute("draw-bridge", rules_for("draw-bridge"), [parse_policy(policy, "draw-bridge")] * 2, 1, 10,
                        tmp_path / "run", notify=notify, dd=dd)
    assert asked == [searching]
    assert told == [sim.api.COMPILING_SEARCH if searching else sim.api.COMPILING]


@pytest.mark.slow
def test_first_compile_is_announced_and_kept_out_of_the_throughput(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))  # numba has compiled nothing here
    args = ["--game", "draw-bridge", "--games", "100", "--seed", "3"]
    began = time.perf_counter()
    cold = run(*args, "--out", str(tmp_path / "cold"), env=env)
    wall = time.perf_counter() - began
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.splitlines() == ["compiling kernels, once per machine (about 20 s)..."]
    timing = json.loads((tmp_path / "cold" / "manifest.json").read_text())["timing"]
    assert timing["compiled"] and timing["compile_seconds"] > 2  # a first compile takes seconds
    # The blocks' time excludes the compile: both fit in the process's wall time, apart.
    assert timing["seconds"] + timing["compile_seconds"] < wall
    assert timing["seconds"] < timing["compile_seconds"]
    assert (f"100 games played now in {timing['seconds']:.1f} s ({100 / timing['seconds']:,.0f} games/s"
            in cold.stdout)
    assert f"compiling the kernels took {timing['compile_seconds']:.1f} s more, not counted" in cold.stdout
    warm = run(*args, "--out", str(tmp_path / "warm"), env=env)
    assert warm.returncode == 0 and warm.stderr == "" and "compiling" not in warm.stdout
    assert not json.loads((tmp_path / "warm" / "manifest.json").read_text())["timing"]["compiled"]


@pytest.mark.parametrize("args, shown", [
    (["sim.run", "--games", "10", "--policy", "0=heur\x1b[2Jistic"], "heur\\x1b[2Jistic"),
    (["sim.run", "--games", "1\x1b[2J0"], "1\\x1b[2J0"),
    (["sim.run", "--games", "10", "--set", "exch\x07\x7f\x9bange.nondealer_draw=1"], "exch\\x07\\x7f\\x9bange"),
    (["sim.run", "--games", "10", "--policy", "0=heur\u202eistic"], "heur\\u202eistic"),
])
def test_a_control_character_in_a_value_is_shown_escaped(args, shown):
    """An error line quotes what it was given with every control character escaped (an
    escape sequence would clear or move the user's terminal, a direction mark reorder the
    line), as it shows a line break."""
    result = in_process(*args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or 0x2028 <= ord(c) <= 0x202e
                   for c in result.stderr.rstrip("\n")), result.stderr
    assert shown in result.stderr, result.stderr
