"""The commands' argument parser: one line and exit status 2 for a bad flag, a flag of one
value given once, and the flags' readers of paths, counts and thread counts."""

from __future__ import annotations

import argparse
import re
import sys

from sim.cli.counts import deal_index, whole_count


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
        # A value such as -1e3 or -inf is a number to check, not a flag ("expected one argument"),
        # and so is a seat's setting such as --policy -1=random.
        self._negative_number_matcher = re.compile(r"-(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?\Z"
                                                   r"|-(?:inf|infinity|nan)\Z|-\d+=", re.IGNORECASE | re.ASCII)

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


# What str.splitlines breaks a line at, every other control character (an escape sequence
# would move the terminal's cursor, a NUL cut the line for some readers) and the marks that
# turn the text's direction (a quoted value could reorder the rest of the line), each shown
# as Python writes it in a string: "\\n", "\\x1b", "\\u202e". A tab stays a tab.
CONTROLS = {c: ascii(chr(c))[1:-1] for c in [*range(0x20), 0x7f, *range(0x80, 0xa0), 0x200e, 0x200f,
                                             *range(0x2028, 0x202f), *range(0x2066, 0x206a)] if c != 0x09}


LONGEST_LINE = 2_000  # characters of an error line; a value quoted whole could fill a screen or a log


def one_line(problem) -> str:
    """An error's text on one line: a line break or another control character in a value
    it quotes (an argument, a string in a file) is shown escaped, as ``\\n`` or ``\\x1b``,
    and a line past LONGEST_LINE keeps its start and its end, saying what it left out."""
    text = str(problem).translate(CONTROLS)
    if len(text) <= LONGEST_LINE:
        return text
    head, tail = LONGEST_LINE * 3 // 4, LONGEST_LINE // 5
    return f"{text[:head]} ... ({len(text) - head - tail:,} characters left out) ... {text[-tail:]}"


def path_text(text: str) -> str:
    """A file or folder argument: an empty one names nothing (it would read as ``.``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return text


def flag_type(read):
    """A flag's type from a reader of ``sim.cli.counts``: its ValueError is argparse's one
    line naming the flag."""
    def parse(text: str):
        try:
            return read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__, parse.__doc__ = read.__name__, read.__doc__
    return parse


whole_number = flag_type(whole_count)  # a command's count (games, deals, worlds, rounds...), also written as 1e6
deal_number = flag_type(deal_index)  # --deal: a deal's place in its game, from 0


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
