"""python -m sim.run end to end: summary, thread-count independence, bad flags."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "sim.run", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)


def test_same_summary_on_one_and_two_threads():
    one = run("--games", "2e3", "--seed", "9", "--threads", "1")
    two = run("--games", "2e3", "--seed", "9", "--threads", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert "Bridgette: 2,000 games" in one.stdout
    assert "contracts made" in one.stdout and "game wins" in one.stdout
    # Everything but the timing line is identical.
    assert one.stdout.splitlines()[:-1] == two.stdout.splitlines()[:-1]


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
    assert message in result.stderr and "Traceback" not in result.stderr


def test_kernels_run_as_python_with_jit_disabled():
    """NUMBA_DISABLE_JIT=1 (for debugging) plays exactly the same games as the compiled kernels."""
    code = ("from sim.engine import run_block; from sim.rules import BridgetteRules; "
            "from sim.policies import parse_policy; "
            "d, g = run_block(BridgetteRules(), [parse_policy('heuristic'), parse_policy('random')], 3, 10, 2); "
            "print(d.tolist(), g.tolist())")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    jit = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert plain.returncode == jit.returncode == 0, plain.stderr + jit.stderr
    assert plain.stdout == jit.stdout and plain.stdout.count("(") > 12
