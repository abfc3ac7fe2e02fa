"""What every command shares: one line and exit status 2 for bad input, quiet ends for a
closed pipe and Ctrl-C, and the checks of numbers that the Python API makes too.

Importing this module is cheap (no numba), so the analyses use it as well.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import re
import signal
import sys

from sim.files import open_input

# A run's games (and so a game's index) at most: every whole number up to it is exact as a
# float, which the records' statistics and JSON readers use, and the indices stay far
# inside int64.
LARGEST_COUNT = 2**53
# Games in one block at most: a block is played, tabled and written whole in memory (a
# million games of a few deals each is a few hundred MB; sim.blocks bounds its deal rows).
LARGEST_BLOCK = 1_000_000

BROKEN_PIPE_STATUS = 141  # 128 + SIGPIPE: what a shell reports for `yes | head -1`'s yes
INTERRUPTED_STATUS = 130  # 128 + SIGINT
TERMINATED_STATUS = 143  # 128 + SIGTERM


class _StoreOnce(argparse._StoreAction):
    """A flag that takes one value, refused when given a second time (argparse keeps the
    last and drops the first without a word)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None:
            if self.dest in parser.given:
                parser.error(f"{'/'.join(self.option_strings)} is given twice: give it once")
            parser.given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class OneLineParser(argparse.ArgumentParser):
    """Bad flags end with one line naming the problem and exit status 2; a flag that takes
    one value is given once. A command with --game and --rules plays the game its variant
    is for when --game is not given: the command that adds --rules sets ``game_of_rules``
    (sim.rules.variant_game)."""

    game_of_rules = None  # a --rules value -> the game it is for, or None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.given = set()  # the flags of one value met in this parse
        # A value such as -1e3 or -inf is a number to check, not a flag ("expected one argument").
        self._negative_number_matcher = re.compile(r"^-(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?$"
                                                   r"|^-(?:inf|infinity|nan)$", re.IGNORECASE)

    def _print_message(self, message, file=None):
        """As argparse prints help and usage, but a write that fails (``--help > /dev/full``)
        is raised, for ``exit_with`` to say so: argparse drops it and ends with status 0."""
        if message:
            (file or sys.stderr).write(message)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see --help)\n")

    def parse_known_args(self, args=None, namespace=None):
        self.given = set()
        game = next((a for a in self._actions if a.dest == "game"), None)
        if self.game_of_rules is None or game is None or not any(a.dest == "rules" for a in self._actions):
            return super().parse_known_args(args, namespace)
        default, game.default = game.default, None
        try:
            parsed, rest = super().parse_known_args(args, namespace)
        finally:
            game.default = default
        if parsed.game is None:
            parsed.game = self.game_of_rules(parsed.rules) or default
        return parsed, rest

    def fail(self, problem) -> int:
        """Print a user error as the one line and return the exit status, 2."""
        print(f"{self.prog}: error: {one_line(problem)}", file=sys.stderr)
        return 2


# What str.splitlines breaks a line at, each shown as Python writes it in a string: "\\n".
LINE_BREAKS = {ord(c): ascii(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(problem) -> str:
    """An error's text on one line: a line break in a value it quotes (an argument, a
    string in a file) is shown as ``\\n``."""
    return str(problem).translate(LINE_BREAKS)


def quoted(value, width: int = 40) -> str:
    """A value as an error quotes it: in quotes, cut short past ``width`` characters (a number
    of thousands of digits is named, not printed)."""
    text = str(value)
    return f"'{text}'" if len(text) <= width else f"'{text[:width]}...' ({len(text):,} characters)"


def whole_count(value, largest: int = LARGEST_COUNT) -> int:
    """A whole number from 1 to ``largest``, given as an int, a float such as 1000.0, or text
    such as "1e6", "2**20" or all its digits, read exactly (never rounded through a float);
    anything else, and anything past ``largest``, is a ValueError naming the value."""
    number = exact_number(value)
    if number is None:
        raise ValueError(f"{quoted(value)} is not a number")
    if not number.is_finite():
        raise ValueError(f"{quoted(value)} is not a finite number")
    if number > largest:
        raise ValueError(f"{quoted(value)} is more than the largest count accepted, {shown_count(largest)}")
    if number != number.to_integral_value() or number < 1:
        raise ValueError(f"{quoted(value)} is not a whole number of at least 1")
    return int(number)


def block_size(value) -> int:
    """Games per block: a whole number from 1 to LARGEST_BLOCK, read as ``whole_count`` reads it."""
    return whole_count(value, LARGEST_BLOCK)


# A number as text: ASCII digits (never another script's, which Python's own readers take),
# underscores between digits as Python writes them (1_000_000), a point, an exponent; or
# inf and nan, which the callers name as not finite.
NUMBER_TEXT = re.compile(r"[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?"
                         r"|[+-]?(?:inf|infinity|nan)", re.ASCII | re.IGNORECASE)
POWER_TEXT = re.compile(r"\s*(\d+)\s*\*\*\s*(\d+)\s*", re.ASCII)


def decimal_text(text: str):
    """``text`` as an exact Decimal when it is a number as ``NUMBER_TEXT`` writes one, else None."""
    from decimal import Decimal

    text = text.strip()
    return Decimal(text.replace("_", "")) if NUMBER_TEXT.fullmatch(text) else None


def exact_number(value):
    """``value`` (a number of any kind: int, float, numpy's, Decimal, Fraction; or text) as an
    exact Decimal, or None when it is no number. Text may be a power such as ``2**53``, the
    way the largest count is written."""
    import numbers
    from decimal import Decimal

    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return Decimal(int(value))
    if isinstance(value, (float, Decimal)):
        return Decimal(value)
    if isinstance(value, numbers.Rational):  # a Fraction
        return Decimal(value.numerator) / Decimal(value.denominator)
    if isinstance(value, numbers.Real):  # numpy's floats
        return Decimal(float(value))
    if not isinstance(value, str):
        return None
    power = POWER_TEXT.fullmatch(value)
    if power:
        base, exponent = int(power[1]), int(power[2])
        if base > 1 and exponent * math.log2(base) > 1024:  # far past any limit: not worth its digits
            return Decimal(2) ** 1025
        return Decimal(base**exponent)
    return decimal_text(value)


def shown_count(n: int) -> str:
    """A limit as the README writes it: '2**53 = 9,007,199,254,740,992', '1,000,000'."""
    if n > 2**20 and n & (n - 1) == 0:
        return f"2**{n.bit_length() - 1} = {n:,}"
    return f"{n:,}"


def seed_number(value) -> int:
    """A seed: a whole number in 0 .. 2**64-1, as an int or its digits."""
    number = _integer(value, "an integer seed")
    if not 0 <= number < 2**64:
        raise ValueError("the seed must be in 0 .. 2**64-1")
    return number


def game_index(value) -> int:
    """A game's index in a run: a whole number in 0 .. 2**53-1 (a run has at most
    LARGEST_COUNT games), as an int or its digits."""
    number = _integer(value, "a game index")
    if not 0 <= number < LARGEST_COUNT:
        raise ValueError(f"a game index must be in 0 .. 2**53-1 (runs have at most {shown_count(LARGEST_COUNT)} "
                         f"games), got {number:,}")
    return number


def _integer(value, what: str) -> int:
    """A whole number, read as ``exact_number`` reads it (never truncated: 5.5 is no seed);
    one past 2**64 either way stands for any larger, which every caller's range refuses."""
    number = exact_number(value)
    if number is None or not number.is_finite() or number != number.to_integral_value():
        raise ValueError(f"{quoted(value)} is not {what}")
    return int(max(min(number, 2**64), -(2**64)))


class Terminated(KeyboardInterrupt):
    """SIGTERM (kill, a batch scheduler's stop), taken as Ctrl-C is: the command stops where
    it stands, keeps what it finished (a run resumes from it) and ends with one line; its
    status is 143."""


_terminated = []  # set once SIGTERM has come


def _on_sigterm(signum, frame):
    _terminated.append(signum)
    raise Terminated


_command = []  # set by exit_with: this process is a command, which ends once it is stopped
_left_running = []  # kernel threads a signal left playing
_dropped = []  # a signal's KeyboardInterrupt raised where Python could only print and drop it


def _unraisable(info) -> None:
    """Python's hook for an exception it cannot raise (one in a ctypes callback while numba
    loads a kernel, or in a weakref's): a signal's lands there when it comes at that moment,
    and was printed as a traceback and lost (the run played on to status 0). It is kept,
    and raised at the next kernel (``interruptible``) or when the command ends."""
    if isinstance(info.exc_value, KeyboardInterrupt):
        _dropped.append(info.exc_value)
    else:
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


def stopped(what: str) -> int:
    """A command stopped by Ctrl-C or SIGTERM: one line saying which, and what to do next
    (``what``: what was kept and how to go on); its status (130, or 143 after SIGTERM)."""
    print(f"\n{'terminated' if _terminated else 'interrupted'}; {what}", file=sys.stderr)
    return INTERRUPTED_STATUS


def exit_with(main, prog: str):
    """Run a command's ``main()`` and exit with its status.

    Output into a reader that has gone (``| head -1``) ends quietly with status 141, as a
    Unix tool stopped by SIGPIPE does; output that cannot be written (``> /dev/full``, a
    full disk, a closed stdout) ends with one line and status 2; Ctrl-C that the command does not handle itself ends
    with one line and status 130, SIGTERM the same way with status 143. None prints a
    traceback.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as the package set it while starting
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
            os.write(2, f"{prog}: {where}: {exc.strerror or exc}\n".encode())
        status = 2
    except KeyboardInterrupt:
        _ignore_signals()
        print(f"\n{prog}: {'terminated' if _terminated else 'interrupted'}", file=sys.stderr)
        status = INTERRUPTED_STATUS
    if _dropped and status == 0:  # its work was done, but the signal came (and was dropped) before
        say(f"\n{prog}: {'terminated' if _terminated else 'interrupted'} (its work was done)")
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


def path_text(text: str) -> str:
    """A file or folder argument: an empty one names nothing (it would read as ``.``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return text


def whole_number(text: str) -> int:
    """A command's count (games, deals, worlds, rounds...): a positive whole number, also
    written as 1e6."""
    try:
        return whole_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def thread_count(text: str) -> int:
    """--threads: a whole number from 1 to the threads numba may use on this machine."""
    import numba

    n = whole_number(text)
    if n > numba.config.NUMBA_NUM_THREADS:
        raise argparse.ArgumentTypeError(f"{n} exceeds the {numba.config.NUMBA_NUM_THREADS} threads available")
    return n


def plural(n: int, one: str, many: str | None = None) -> str:
    """'1 thread', '2 threads'."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def read_toml(path, what: str, error: type) -> dict:
    """The tables of a TOML file; unreadable, non-UTF-8 or invalid TOML is an ``error``
    naming the ``what`` file ("rules", "conditions") in one line."""
    import tomllib

    try:
        with open_input(path) as fh:
            data = fh.read(MAX_TEXT_FILE + 1)  # never more: /dev/zero is a path too
        if len(data) > MAX_TEXT_FILE:
            raise error(f"{what} file {path} is larger than {MAX_TEXT_FILE // 2**20} MiB: not a {what} file")
        text = data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is read past
        return tomllib.loads(text)
    except OSError as exc:
        raise error(f"cannot read {what} file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{what} file {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} file {path} is not valid TOML: {toml_problem(exc, text)}") from None
    except ValueError:  # Python reads no integer of more than 4,300 digits
        raise error(f"{what} file {path} {TOO_LONG}") from None
    except RecursionError:
        raise error(f"{what} file {path} {TOO_DEEP}") from None


def toml_problem(exc, text: str) -> str:
    """Python's TOML error in words, with the line it names: "Cannot overwrite a value" is a
    key or table given twice."""
    problem = str(exc).replace("Cannot overwrite a value", "a key or table given a second time")
    at = re.search(r"at line (\d+)", problem)
    lines = text.split("\n")  # TOML's lines: a form feed or U+2028 in a string is no line break
    if at and 1 <= int(at.group(1)) <= len(lines):
        problem += f": {lines[int(at.group(1)) - 1].strip()[:80]!r}"
    return problem


TOO_DEEP = "nests lists or tables too deeply to be read"  # past the recursion of Python's TOML reader
TOO_LONG = "holds a number of more digits than Python reads (4,300)"
MAX_TEXT_FILE = 2**20  # a rules or conditions file is a few kilobytes


def file_in_the_way(path):
    """The file at ``path`` (a Path) or above it, the nearest, that keeps a folder from being
    made there; None where there is none. mkdir would say only "Not a directory", or "File
    exists"."""
    try:
        return next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
    except OSError:  # a name the system cannot take (too long): mkdir says so
        return None


def shell_word(path) -> str:
    """A path as one word of a command to paste into a shell: quoted where it holds a space
    or a character the shell reads (a folder named ``a b;x`` would run ``x``)."""
    import shlex

    return shlex.quote(str(path))


def why_not_made(path, exc: OSError) -> str:
    """Why mkdir failed on ``path`` (a Path), in words: a link there or above it that leads
    nowhere, or round in a loop, is named with its target (mkdir says only "File exists")."""
    try:
        broken = next((p for p in (path, *path.parents) if p.is_symlink() and not p.exists()), None)
        if broken is not None:
            try:
                os.stat(broken)
            except OSError as err:
                if err.errno == errno.ELOOP:
                    return f"{broken} is a link to {os.readlink(broken)}, which leads back to it in a loop of links"
            return f"{broken} is a link to {os.readlink(broken)}, which does not exist"
    except OSError:
        pass
    return exc.strerror or str(exc)


def claim_folder(out, owns, what: str, error: type):
    """``out`` (a Path), made, when a command may write its ``what`` there: new, empty, or
    one ``owns(out)`` recognises as its own; otherwise an ``error`` in one line."""
    in_the_way = file_in_the_way(out)
    if in_the_way == out:
        raise error(f"output folder {out} is a file")
    if in_the_way is not None:
        raise error(f"cannot use output folder {out}: {in_the_way} is a file, not a folder")
    if _is_folder(out) and not owns(out):
        raise error(f"output folder {out} is not empty and holds no {what}; use another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create output folder {out}: {why_not_made(out, exc)}") from None
    return out


def differing(mine: dict, theirs: dict, keys=None) -> list[str]:
    """The keys (``keys``, or every key of either, sorted) whose values differ between two
    identities of a command's output: the fields a refusal names."""
    keys = sorted(set(mine) | set(theirs)) if keys is None else keys
    return [k for k in keys if mine.get(k) != theirs.get(k)]


def refuse_another(out, what: str, mine: dict, theirs: dict, error: type, keys=None) -> None:
    """An ``error`` in one line when the folder ``out`` holds ``what`` (e.g. "a ladder") of
    another identity than ``mine``: its files would be written over or mixed with these."""
    differ = differing(mine, theirs, keys)
    if differ:
        raise error(f"output folder {out} holds {what} of another configuration (differs in: "
                    f"{', '.join(differ)}); use another --out")


def _is_folder(path) -> bool:
    """Whether ``path`` is a folder; not when the system cannot take its name."""
    try:
        return path.is_dir()
    except OSError:  # a name the system cannot take: mkdir says why
        return False
