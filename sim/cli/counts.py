"""How every number a user gives is read, by the commands and the Python API alike: ASCII
digits, underscores between digits as Python writes them, exactly (never rounded or
truncated into a value allowed), and a number of thousands of digits named, not printed."""

from __future__ import annotations

import math
import re

# A run's games (and so a game's index) at most: every whole number up to it is exact as a
# float, which the records' statistics and JSON readers use, and the indices stay far
# inside int64.
LARGEST_COUNT = 2**53
# Games in one block at most: a block is played, tabled and written whole in memory (a
# million games of a few deals each is a few hundred MB; sim.blocks bounds its deal rows).
LARGEST_BLOCK = 1_000_000
# Games in one block when none is given: enough for the threads to share, small enough to
# be written while the next plays.
DEFAULT_BLOCK_SIZE = 50_000


def quoted(value, width: int = 40) -> str:
    """A value as an error quotes it: in quotes, cut short past ``width`` characters (a number
    of thousands of digits is named, not printed)."""
    try:
        text = str(value)
    except ValueError:  # an int past the 4,300 digits Python writes
        return "a number of more than 4,300 digits"
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
    from decimal import Decimal, InvalidOperation

    text = text.strip()
    if not NUMBER_TEXT.fullmatch(text):
        return None
    try:
        return Decimal(text.replace("_", ""))
    except InvalidOperation:  # an exponent past 10**18: no number anything here can take
        return None


def exact_number(value):
    """``value`` (a number of any kind: int, float, numpy's, Decimal, Fraction; or text) as an
    exact Decimal, or None when it is no number. Text may be a power such as ``2**53``, the
    way the largest count is written."""
    import numbers
    from decimal import Decimal, localcontext

    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return Decimal(int(value))
    if isinstance(value, (float, Decimal)):
        return Decimal(value)
    if isinstance(value, numbers.Rational):  # a Fraction: digits enough that no fraction reads as whole
        num, den = Decimal(value.numerator), Decimal(value.denominator)
        with localcontext() as ctx:
            ctx.prec = 2 * (len(num.as_tuple().digits) + 4 * len(den.as_tuple().digits)) + 10
            return num / den
    if isinstance(value, numbers.Real):  # numpy's floats
        return Decimal(float(value))
    if not isinstance(value, str):
        return None
    power = POWER_TEXT.fullmatch(value)
    if power:
        base_digits, exponent_digits = power[1].lstrip("0") or "0", power[2].lstrip("0") or "0"
        if exponent_digits == "0":
            return Decimal(1)
        if base_digits in ("0", "1"):
            return Decimal(int(base_digits))
        base_long, exponent_long = len(base_digits) > 310, len(exponent_digits) > 4
        if base_long or exponent_long or int(exponent_digits) * math.log2(int(base_digits)) > 1024:
            return Decimal(2) ** 1025  # far past any limit (2**1024 passes the largest float): not worth its digits
        return Decimal(int(base_digits) ** int(exponent_digits))
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
                         f"games), got {quoted(value)}")
    return number


def deal_index(value) -> int:
    """A deal's place in its game (0-based; sim.show --deal): a whole number of at least 0,
    read as every count is (the game's own deals bound it)."""
    number = _integer(value, "a deal's index")
    if number < 0:
        raise ValueError(f"a deal's index is 0 or more, got {quoted(value)}")
    if number >= 2**63:  # read as one past 2**64 (_integer): named as given, never as that stand-in
        raise ValueError(f"{quoted(value)} is beyond the deals of any game")
    return number


def _integer(value, what: str) -> int:
    """A whole number, read as ``exact_number`` reads it (never truncated: 5.5 is no seed);
    one past 2**64 either way stands for any larger, which every caller's range refuses."""
    number = exact_number(value)
    if number is None or not number.is_finite() or number != number.to_integral_value():
        raise ValueError(f"{quoted(value)} is not {what}")
    return int(max(min(number, 2**64), -(2**64)))
