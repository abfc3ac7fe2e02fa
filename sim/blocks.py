"""Blocks of games into compact records, whatever the length of each game.

A first slice of the block is played with room for the longest game the rules allow;
the rest is played in parallel with room for a little more than the longest of those
games, and the rare game that needs more is played again with exactly the room its
first pass counted. Games are pure functions of (seed, game index), so replaying one
reproduces it, and the records never depend on how the room was chosen. When every game
fits, the rows are packed down in the array they were played into (no second array, whose
fresh pages the system would zero first). A --dd run's double-dummy rows
(kernels.dd_run) lie beside the deal rows and are packed with them.
"""

from __future__ import annotations

import numpy as np

PILOT_GAMES = 256
# Deal rows a block may make room for (the rest after its pilot slice): 2**26 rows of at most
# 68 bytes is 4.5 GB, before they are packed. Longer games need smaller blocks.
MAX_BLOCK_ROWS = 2**26


def _play(run_games, indices, rooms, deal_dtype, game_dtype, dd_dtype, head=0):
    """Play ``indices`` with ``rooms[i]`` deal rows each, after ``head`` rows left free:
    (deal rows, offsets, game rows, double-dummy rows: None without ``dd_dtype``)."""
    offsets = head + np.concatenate([[0], np.cumsum(rooms)]).astype(np.int64)
    deals = np.empty(int(offsets[-1]), dtype=deal_dtype)  # only rows the games write are read
    games = np.zeros(len(indices), dtype=game_dtype)
    dd = None if dd_dtype is None else np.empty(int(offsets[-1]), dtype=dd_dtype)
    run_games(indices, offsets, deals, games, dd)
    return deals, offsets, games, dd


def _words(records):
    """Records as a 2-D array of words, one row a record (the rows' bytes, copied as such)."""
    word = np.dtype(np.uint64 if records.dtype.itemsize % 8 == 0 else np.uint8)
    return records.view(word).reshape(len(records), records.dtype.itemsize // word.itemsize)


def _copy(out, dst_starts, deals, src_starts, counts):
    """Copy ``counts[i]`` rows from ``deals[src_starts[i]:]`` to ``out[dst_starts[i]:]``
    (``out`` may be ``deals``: rows that only move down, kernels.records.move_rows_nb)."""
    from kernels.records import move_rows_nb

    as_int = [np.ascontiguousarray(a, dtype=np.int64) for a in (dst_starts, src_starts, counts)]
    move_rows_nb(_words(out), as_int[0], _words(deals), as_int[1], as_int[2])


def check_room(games: int, deals: int, how: str) -> None:
    """A RunError when ``games`` games of ``deals`` deals each ("up to", "at least") need
    room for more than MAX_BLOCK_ROWS deal records, naming the block size that fits."""
    if games * deals > MAX_BLOCK_ROWS:
        from sim.store import RunError

        raise RunError(f"a block of {games:,} games of {how} {deals:,} deals each needs room for {games * deals:,} "
                       f"deal records, more than the {MAX_BLOCK_ROWS:,} a block may hold: use --block-size "
                       f"{max(1, MAX_BLOCK_ROWS // deals):,} or less")


def play_block(run_games, first_game: int, count: int, max_deals: int, deal_dtype, game_dtype, dd_dtype=None):
    """Deal and game records of games ``first_game .. first_game+count-1``, in game order, and
    with ``dd_dtype`` each deal's double-dummy row: (deals, games, double-dummy rows or None).

    ``run_games(game_indices, offsets, deal_rows, game_rows, dd_rows)`` plays the games
    (``dd_rows`` None: compute none); no game has more than ``max_deals`` deals.
    """
    indices = np.arange(first_game, first_game + count, dtype=np.int64)
    pilot = min(count, PILOT_GAMES)
    deals_a, offsets_a, games_a, dd_a = _play(run_games, indices[:pilot], np.full(pilot, max_deals),
                                              deal_dtype, game_dtype, dd_dtype)
    room = min(max_deals, int(games_a["deals"].max(initial=1) * 1.25) + 4)
    check_room(count, room, "up to")
    # The rest play after room for the pilot's rows; when every game fits, its rows are
    # packed down in place, each game's below where it was written: no second array.
    head = int(games_a["deals"].sum())
    deals_b, offsets_b, games_b, dd_b = _play(run_games, indices[pilot:], np.full(count - pilot, room),
                                              deal_dtype, game_dtype, dd_dtype, head)
    games = np.concatenate([games_a, games_b])
    counts = games["deals"].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)])
    rest = counts[pilot:]
    fits = rest <= room
    if fits.all():
        out, dd_out = deals_b, dd_b
    else:
        out = np.empty(int(starts[-1]), dtype=deal_dtype)
        dd_out = None if dd_dtype is None else np.empty(int(starts[-1]), dtype=dd_dtype)

    def copy(dst_starts, deals, dd, src_starts, n):
        _copy(out, dst_starts, deals, src_starts, n)
        if dd_out is not None:
            _copy(dd_out, dst_starts, dd, src_starts, n)

    copy(starts[:pilot], deals_a, dd_a, offsets_a[:-1], counts[:pilot])
    kept = np.flatnonzero(fits)
    copy(starts[pilot:][kept], deals_b, dd_b, offsets_b[:-1][kept], rest[kept])
    longer = np.flatnonzero(~fits)
    if longer.size:
        deals_c, offsets_c, _, dd_c = _play(run_games, indices[pilot:][longer], rest[longer], deal_dtype, game_dtype,
                                            dd_dtype)
        copy(starts[pilot:][longer], deals_c, dd_c, offsets_c[:-1], rest[longer])
    total = int(starts[-1])
    if out is deals_b:  # packed in place: the room past the rows goes back (no view of it is left to move)
        out.resize(total, refcheck=False)
        if dd_out is not None:
            dd_out.resize(total, refcheck=False)
    return out, games, dd_out


class Columns:
    """Deal records held column by column, read as the records are (``deals["score0"]``,
    ``len``, ``dtype``). A field of a record array is every row's few bytes, spread over the
    whole array: each of the many columns a block's tables and aggregates read would pass
    over all of its memory. The rows are split into columns once, a slice of rows at a time
    that stays in the processor's cache."""

    ROWS = 8192  # rows split at a time: half a megabyte of the widest records

    def __init__(self, records):
        self.dtype = records.dtype
        self._rows = len(records)
        self._columns = {name: np.empty(len(records), dtype=records.dtype.fields[name][0])
                         for name in records.dtype.names}
        for start in range(0, len(records), self.ROWS):
            rows = records[start:start + self.ROWS]
            for name, column in self._columns.items():
                column[start:start + self.ROWS] = rows[name]

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name]

    def __len__(self) -> int:
        return self._rows
