"""How a command ends: its status, Ctrl-C and SIGTERM heard at once (even while a kernel
plays), output that cannot be written, and notices on stderr."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from sim.cli.parser import one_line

BROKEN_PIPE_STATUS = 141  # 128 + SIGPIPE: what a shell reports for `yes | head -1`'s yes
INTERRUPTED_STATUS = 130  # 128 + SIGINT
TERMINATED_STATUS = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (kill, a batch scheduler's stop), taken as Ctrl-C is: the command stops where
    it stands, keeps what it finished (a run resumes from it) and ends with one line; its
    status is 143."""


_terminated = []  # set once SIGTERM has come
_stopped = []  # set once Ctrl-C or SIGTERM has come


def _on_sigterm(signum, frame):
    _terminated.append(signum)
    _stopped.append(signum)
    raise Terminated


def _on_sigint(signum, frame):
    _stopped.append(signum)
    raise KeyboardInterrupt


_command = []  # set by exit_with: this process is a command, which ends once it is stopped
_left_running = []  # kernel threads a signal left playing
_dropped = []  # a signal's KeyboardInterrupt raised where Python could only print and drop it


def _unraisable(info) -> None:
    """Python's hook for an exception it cannot raise (one in a ctypes callback while numba
    loads a kernel, or in a weakref's): a signal's lands there when it comes at that moment,
    and was printed as a traceback and lost (the run played on to status 0). It is kept,
    and raised at the next kernel (``interruptible``) or when the command ends. Once the
    command is stopped, what an object left half made by the stop raises as it goes (an
    llvmlite pass builder's ``__del__``) says nothing after the command's one line."""
    if isinstance(info.exc_value, KeyboardInterrupt):
        _dropped.append(info.exc_value)
    elif not _stopped:
        sys.__unraisablehook__(info)


def _forget_python_interrupt() -> None:
    """CPython ends the process by SIGINT at exit once a KeyboardInterrupt has passed out of
    an exec() of a string (numba and dataclasses make their code so), even one the command
    caught and answered: a parent then saw -2, not the status the command gave. Each exec()
    of a string clears that mark as it begins."""
    exec("None")


def interruptible(call):
    """``call()``, a numba kernel that releases the interpreter (``nogil``), run in a thread
    of its own while the main thread waits, so that Ctrl-C and SIGTERM reach the command at
    once: a kernel holds the main thread until it returns, and a block of searching seats
    can take minutes. The kernel cannot be stopped; a command that ends leaves it behind
    (exit_with ends the process without waiting). A program that imported the package (a
    notebook) calls the kernel directly: its Ctrl-C waits for the block, and no kernel goes
    on beside its next call."""
    import threading

    import numba

    if _dropped:  # a signal came while a kernel loaded, and Python dropped it: heard now
        raise _dropped.pop()
    if not _command or threading.current_thread() is not threading.main_thread():
        return call()
    threads = numba.get_num_threads()  # numba's thread count is the calling thread's own
    outcome = {}

    def work():
        try:
            numba.set_num_threads(threads)
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - given back to the main thread as it was
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="kernel", daemon=True)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    except BaseException:
        _left_running.append(worker)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def say(line: str) -> None:
    """A notice on stderr (progress, a block played again). One that cannot be written
    (stderr closed, or a file on a full disk) is dropped: a notice is no reason to stop."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass


def _fresh_line() -> str:
    """What starts a stop's line on a line of its own: on a terminal a line break (past the
    ^C it echoed, or a progress bar); in a file or a pipe nothing, so the line is the one
    line there."""
    try:
        return "\n" if sys.stderr.isatty() else ""
    except (AttributeError, ValueError, OSError):  # replaced, or closed
        return ""


def stopped(what: str) -> int:
    """A command stopped by Ctrl-C or SIGTERM: one line saying which, and what to do next
    (``what``: what was kept and how to go on); its status (130, or 143 after SIGTERM)."""
    print(f"{_fresh_line()}{'terminated' if _terminated else 'interrupted'}; {what}", file=sys.stderr)
    return INTERRUPTED_STATUS


def exit_with(main, prog: str):
    """Run a command's ``main()`` and exit with its status.

    Output into a reader that has gone (``| head -1``) ends quietly with status 141, as a
    Unix tool stopped by SIGPIPE does; output that cannot be written (``> /dev/full``, a
    full disk, a closed stdout) ends with one line and status 2; Ctrl-C that the command does not handle itself ends
    with one line and status 130, SIGTERM the same way with status 143. None prints a
    traceback.
    """
    signal.signal(signal.SIGINT, _on_sigint)  # Python's own, noting the stop
    signal.signal(signal.SIGTERM, _on_sigterm)
    sys.unraisablehook = _unraisable
    _command.append(prog)
    if sys.stderr is None:  # closed (2>&-): the command's notices and lines go nowhere, its work goes on
        sys.stderr = open(os.devnull, "w")
    if sys.stdout is None:  # closed (>&-): said before any work, since what it prints would be lost
        print(f"{prog}: cannot write its output: standard output is closed", file=sys.stderr)
        sys.exit(2)
    try:
        try:
            status = main()
        finally:  # a closed reader or a full disk shows here, not in the interpreter's last flush (--help too)
            sys.stdout.flush()
        _ignore_signals()
    except BrokenPipeError:
        _drop_output()
        status = BROKEN_PIPE_STATUS
    except OSError as exc:  # the command's own files give their own lines: this is its output
        _drop_output()
        where = f"cannot use {exc.filename}" if exc.filename else "cannot write its output"
        with contextlib.suppress(OSError):
            os.write(2, one_line(f"{prog}: {where}: {exc.strerror or exc}").encode() + b"\n")
        status = 2
    except KeyboardInterrupt:
        _ignore_signals()
        print(f"{_fresh_line()}{prog}: {'terminated' if _terminated else 'interrupted'}", file=sys.stderr)
        status = INTERRUPTED_STATUS
    if _dropped and status == 0:  # its work was done, but the signal came (and was dropped) before
        say(f"{_fresh_line()}{prog}: {'terminated' if _terminated else 'interrupted'} (its work was done)")
        status = INTERRUPTED_STATUS
    if _terminated and status == INTERRUPTED_STATUS:  # the command said so in its own words
        status = TERMINATED_STATUS
    # Its status is decided: a Ctrl-C now, or one a library noted and raises again while the
    # interpreter shuts down, would end it by the signal with no word said.
    _ignore_signals()
    _forget_python_interrupt()
    if any(worker.is_alive() for worker in _left_running):  # never waited for, nor shut down under it
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(status)
    sys.exit(status)


def _drop_output() -> None:
    """Send what is left of stdout nowhere, so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _ignore_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
