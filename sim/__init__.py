"""Orchestration of the simulator: rules, policies, runs, replays and the reference referee.

``sim.simulate(...)`` plays a run as ``python -m sim.run`` does; ``sim.estimate(...)``
makes a multilevel estimate as ``sim.run --deals N --control LEVEL`` does; ``sim.stratify(...)``
a stratified run as ``sim.run --deals N --stratify NAME`` does; ``sim.load_run(path)``
opens a finished run folder (summary and records as pandas); ``analysis.interval(run,
metric, by=None)`` gives a metric of it with its 95% interval (analysis sits above sim, so
it is not imported here).
"""

from sim.version import RULES_VERSION, __version__  # noqa: F401


def _command_name() -> str:
    """The module ``python -m`` started (``sim.run``), for the lines said before it runs."""
    import sys

    argv = getattr(sys, "orig_argv", [])
    return argv[argv.index("-m") + 1] if "-m" in argv[:-1] else "the command"


def end_quietly_if_interrupted_while_starting():
    """``python -m sim.X`` (and analysis.X, benchmarks.X): Ctrl-C while the command is still
    importing ends it as Ctrl-C ends it later (one line, status 130; nothing is written
    yet), not with a traceback of whatever was being imported; SIGTERM the same way, with
    status 143. ``sim.cli.exit_with`` sets the command's own handlers once it starts (Ctrl-C
    raises KeyboardInterrupt there, as Python's does)."""
    import sys

    if sys.argv[:1] != ["-m"]:  # imported by a program, not started as a command: leave Ctrl-C alone
        return
    import os
    import signal

    name = _command_name()

    def interrupted(signum, frame):
        terminated = signum == signal.SIGTERM
        fresh = "\n" if os.isatty(2) else ""  # past the ^C a terminal echoed; elsewhere the one line
        os.write(2, f"{fresh}python -m {name}: {'terminated' if terminated else 'interrupted'}\n".encode())
        os._exit(143 if terminated else 130)

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)


MAX_THREADS = 4096  # numba keeps its thread count in 32 bits, and no machine has near this many cores


def refuse_a_thread_count_numba_cannot_take():
    """``python -m sim.X``: NUMBA_NUM_THREADS set to anything but a whole number from 1 to
    MAX_THREADS ends the command in one line and status 2 (numba would stop the import with
    a traceback, warn in many lines and use its default, or wrap a large count round to
    another)."""
    import os
    import sys

    value = os.environ.get("NUMBA_NUM_THREADS")
    digits = (value or "").strip()
    whole = digits.isascii() and digits.isdigit() and len(digits.lstrip("0")) <= 5  # int() reads at most 4,300
    if sys.argv[:1] != ["-m"] or value is None or whole and 1 <= int(digits) <= MAX_THREADS:
        return
    print(f"python -m {_command_name()}: NUMBA_NUM_THREADS={value[:40]!r} is not a thread count: set it to a "
          f"whole number from 1 to {MAX_THREADS:,}, or unset it", file=sys.stderr)
    sys.exit(2)


def read_names_in_utf8():
    """``python -m sim.X`` under a C locale with Python's UTF-8 mode and its locale coercion
    both turned off: names reach Python as ASCII with surrogates, which Parquet files and
    the report's pages cannot take, so a folder named 'été' was refused. The command starts
    again in UTF-8 mode (as coercion would have started it), where names are their bytes
    read as UTF-8."""
    import sys

    if sys.argv[:1] != ["-m"] or sys.flags.utf8_mode or sys.getfilesystemencoding() != "ascii":
        return
    import os

    os.execv(sys.executable, [sys.executable, "-X", "utf8", *sys.orig_argv[1:]])


read_names_in_utf8()
end_quietly_if_interrupted_while_starting()
refuse_a_thread_count_numba_cannot_take()


def __getattr__(name):
    # The API pulls in numba and pyarrow; load it only when asked for.
    if name in ("simulate", "estimate", "load_run"):
        from sim import api

        return getattr(api, name)
    if name == "stratify":
        from sim import strata

        return strata.stratify
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
