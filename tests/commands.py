"""The project's commands run as a user runs them, or in the test's own process.

``python -m sim.run ...`` in a new process costs about a second before it plays anything
(numpy, numba and the compiled kernels load again), and the suite runs a few hundred such
commands. ``in_process`` calls the same ``main(argv)`` that ``python -m`` calls, in this
process, and gives back what a ``subprocess.run`` would: the status, stdout and stderr. The
tests that need a real process (Ctrl-C, a killed run, a terminal, a cluster, the start-up
itself, the kernels compiling) keep ``as_process``, or ``started`` to act while it runs.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]

# Where each command's main(argv) lives, as `python -m NAME` finds it.
MAINS = {"sim.sweep": "sim.sweep.cli", "analysis.report": "analysis.report"}


def as_process(module: str, *args, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    """``python -m module args`` in a new process, from the repository's root."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def started(module: str, *args) -> subprocess.Popen:
    """``python -m module args`` started in a new process, from the repository's root, its
    stdout and stderr piped as text: for a test that interrupts, kills or races it."""
    return subprocess.Popen([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def catching(proc: subprocess.Popen, signum: int, timeout: float = 60) -> None:
    """Wait until ``proc`` has a handler for ``signum`` (its SigCgt mask in /proc): before
    that, the signal ends the interpreter where it stands, however the command handles it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            caught = next(line for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                          if line.startswith("SigCgt:"))
            if int(caught.split()[1], 16) >> (signum - 1) & 1:
                return
        time.sleep(0.002)
    raise AssertionError(f"the process set no handler for signal {signum} within {timeout} s")


def playing(proc: subprocess.Popen, seconds: float = 2.0, timeout: float = 120) -> None:
    """Wait until ``proc`` handles Ctrl-C and has then spent ``seconds`` more of processor
    time (its threads together, from /proc): with the kernels in the cache, well into its
    first block. A fixed sleep either waited for nothing or, on a loaded machine, not long
    enough."""
    catching(proc, signal.SIGINT, timeout)
    tick = os.sysconf("SC_CLK_TCK")

    def used() -> int:  # utime + stime, fields 14 and 15 of stat, counted after the name's ")"
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    deadline = time.monotonic() + timeout
    with contextlib.suppress(OSError):
        goal = used() + seconds * tick
        while time.monotonic() < deadline and proc.poll() is None and used() < goal:
            time.sleep(0.01)
    if proc.poll() is not None:
        _, err = proc.communicate()
        raise AssertionError(f"the process ended with status {proc.returncode} before it played: {err[-500:]}")
    if time.monotonic() >= deadline:
        raise AssertionError(f"the process did not play {seconds} s within {timeout} s")


@contextlib.contextmanager
def disk_full_at(n: int):
    """The ``n``-th file renamed into place (as ``sim.store`` writes every file) fails as on
    a full disk; yields the list of the renames tried, in order."""
    import errno

    renames, replace = [], os.replace

    def full(src, dst):
        renames.append(dst)
        if len(renames) == n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        replace(src, dst)

    os.replace = full
    try:
        yield renames
    finally:
        os.replace = replace


def in_process(module: str, *args) -> subprocess.CompletedProcess:
    """``python -m module args`` as ``main(argv)`` in this process, from the repository's
    root: its status (a ``SystemExit``'s too, as argparse ends a bad command line), stdout and
    stderr. Anything else it raises is raised here, as a traceback would fail the test. The
    numba thread count a ``--threads`` flag set is put back."""
    main = importlib.import_module(MAINS.get(module, module)).main
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    threads = numba.get_num_threads()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse's exit: an int, or None for --help
                status = exc.code or 0
    finally:
        os.chdir(here)
        numba.set_num_threads(threads)
    return subprocess.CompletedProcess([sys.executable, "-m", module, *argv], status, out.getvalue(), err.getvalue())
