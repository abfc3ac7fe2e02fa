"""The settings a sweep plays: the grid of --vary values, each setting's options and
folder name, and the sweep's one-line error."""

from __future__ import annotations

import itertools
import math

from sim.custom import split_items
from sim.rules import parse_set
from sim.store import setting_folder


class SweepError(ValueError):
    """A --vary grid that cannot be played."""


# Settings in one sweep at most: each is a run folder of its own, and the grid is built,
# checked and listed whole before the first plays.
MAX_SETTINGS = 10_000


def parse_vary(items, set_options=()) -> list[tuple[str, list]]:
    """[(dotted key, [(text, value), ...]), ...] from the --vary flags; values are read as
    --set reads them (TOML literal, else a bare string) and checked by the rules later.
    ``items``: one "TABLE.KEY=V1,V2,..." text or a list of them."""
    items = [items] if isinstance(items, str) else items
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise SweepError(f"--vary takes TABLE.KEY=V1,V2,... texts, one or a list, got {items!r:.80}")
    grid, fixed = [], {f"{t}.{k}" for t, table in parse_set(set_options).items() for k in table}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key or not raw.strip():
            raise SweepError(f"--vary needs TABLE.KEY=V1,V2,..., got '{item}'")
        texts = split_items(raw)  # commas inside brackets and quotes stay
        if not all(texts):
            raise SweepError(f"--vary {key}: an empty value in '{raw}'")
        if len(texts) > MAX_SETTINGS:
            raise SweepError(f"--vary {key} lists {len(texts):,} values: a sweep plays at most {MAX_SETTINGS:,} settings")
        values, seen = [], set()
        for text in texts:
            table = parse_set([f"{key}={text}"])  # checks the dotted name as --set does
            (section, options), = table.items()
            value = options[key.split(".")[1]]
            if (type(value), repr(value)) in seen:  # 2 and 2.0 are two settings, 2 and 0x2 one
                raise SweepError(f"--vary {key} lists the value {text} twice")
            seen.add((type(value), repr(value)))
            values.append((text, value))
        if any(key == k for k, _ in grid):
            raise SweepError(f"--vary {key} is given twice; list all its values in one --vary")
        if key in fixed:
            raise SweepError(f"{key} is both --set and --vary; keep one")
        grid.append((key, values))
    if not grid:
        raise SweepError("give at least one --vary TABLE.KEY=V1,V2,...")
    settings = math.prod(len(values) for _, values in grid)
    if settings > MAX_SETTINGS:
        raise SweepError(f"the --vary values make {settings:,} settings: a sweep plays at most {MAX_SETTINGS:,}")
    return grid


def settings_of(grid) -> list[dict]:
    """Every setting of the grid, the first --vary changing slowest: [{key: (text, value)}]."""
    keys = [k for k, _ in grid]
    return [dict(zip(keys, combo)) for combo in itertools.product(*(values for _, values in grid))]


def folder_name(index: int, setting: dict) -> str:
    return setting_folder(index, setting_options(setting))


def setting_options(setting: dict) -> list[str]:
    return [f"{k}={t}" for k, (t, _) in setting.items()]


def numeric_axis(grid) -> bool:
    """A single key with numbers for values: a numeric grid with a balance point."""
    return len(grid) == 1 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in grid[0][1])
