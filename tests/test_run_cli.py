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
