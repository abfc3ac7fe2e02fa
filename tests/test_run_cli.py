"""python -m sim.run flags, and the kernels run as plain Python."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "sim.run", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "not a whole number of at least 1"),
    (["--games", "lots"], "'lots' is not a number"),
    (["--games", "10", "--seed", "-1"], "seed must be in"),
    (["--games", "10", "--threads", "999"], "exceeds the"),
    (["--games", "10", "--colour", "red"], "unrecognized arguments"),
])
def test_bad_flags_exit_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_kernels_run_as_python_with_jit_disabled():
    """NUMBA_DISABLE_JIT=1 (for debugging) plays exactly the same games as the compiled kernels."""
    code = ("from sim.bridgette import run_block; from sim.rules import BridgetteRules; "
            "from sim.policies import parse_policy; "
            "d, g = run_block(BridgetteRules(), [parse_policy('heuristic'), parse_policy('random')], 3, 10, 2); "
            "print(d.tolist(), g.tolist())")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    jit = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert plain.returncode == jit.returncode == 0, plain.stderr + jit.stderr
    assert plain.stdout == jit.stdout and plain.stdout.count("(") > 12


@pytest.mark.parametrize("command, args", [
    ("sim.run", ["--game", "bridgette", "--games", "10", "--policy", "0=heuristic:draw_fight=11"]),
    ("sim.show", ["--game", "bid-euchre", "--seed", "1", "--index", "0", "--policy", "all=heuristic:keep_colons=0"]),
    ("sim.match", ["--game", "draw-bridge", "--a", "heuristic:partner_aware=0", "--b", "random", "--games", "10"]),
    ("sim.sweep", ["--game", "bid-euchre", "--vary", "game.target=20,32", "--games", "10",
                   "--policy", "1=heuristic:double_margin=2"]),
])
def test_a_parameter_of_another_game_is_one_line_and_exit_2(command, args, tmp_path):
    """A heuristic parameter that the game's decisions do not read is refused before anything is played."""
    result = subprocess.run([sys.executable, "-m", command, *args, *(["--out", str(tmp_path / "out")]
                                                                     if command in ("sim.run", "sim.sweep") else [])],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "has no parameter" in result.stderr
    assert "decisions read it" in result.stderr and not (tmp_path / "out").exists()
