"""Run folders read for analysis: record batches streamed block by block, and tallies.

A tally is a small set of counts and exact histograms filled one record batch at a time,
so a run of any size needs memory for one batch only, never for the whole run. Tallies
that the per-block aggregates (``blocks/*.json``) also allow can be filled from those
instead (``from_aggregates``), which is how runs made with ``--records none`` are read.
The tallies every game has (scores, game results) are here; each game's own tallies are
in its module of ``analysis.games``. Nothing here imports numba.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.games import GAMES, GameInfo
from sim.store import (
    RunError, block_aggregates, check_records, finished_manifest, read_block, read_summary, run_digest,
)
from sim.summary import describe, merge, rate

OUTCOMES = ("side 0 wins", "side 1 wins", "drawn", "abandoned")


class ReportError(ValueError):
    """A run folder that cannot be analysed: one line for the user."""


# --- Reading a run ----------------------------------------------------------------------------

def first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class Batch:
    """One Arrow record batch, read as numpy arrays column by column."""

    def __init__(self, batch):
        self._batch = batch
        self.n = batch.num_rows

    def __getitem__(self, name: str) -> np.ndarray:
        return self._batch.column(name).to_numpy(zero_copy_only=False)

    def flag(self, name: str) -> np.ndarray:
        """A boolean column with null (a void hand's ``made``) as False."""
        return self._batch.column(name).fill_null(False).to_numpy(zero_copy_only=False)

    def codes(self, name: str, names) -> np.ndarray:
        """A dictionary column as positions in ``names``; -1 for null or a name not listed."""
        col = self._batch.column(name)
        dictionary = col.dictionary.to_pylist()
        lookup = np.array([names.index(d) if d in names else -1 for d in dictionary] + [-1])
        return lookup[col.indices.fill_null(len(dictionary)).to_numpy(zero_copy_only=False)]


class RunData:
    """A finished run folder: manifest, summary, merged aggregates and record batches."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.manifest = finished_manifest(self.path)
        except RunError as exc:
            raise ReportError(str(exc)) from None
        self.config = self.manifest["config"]
        self.game, self.records = self.config["game"], self.config["records"]
        try:
            self.n_blocks = int(self.manifest["blocks"])
        except (KeyError, TypeError, ValueError):
            raise ReportError(f"{self.path}/manifest.json is unreadable or not a run manifest") from None
        try:
            self.summary = read_summary(self.path, self.manifest)
        except RunError as exc:
            raise ReportError(str(exc)) from None
        self._checked = set()  # the kinds whose record files matched their checksums

    @property
    def rules(self) -> dict:
        return self.config["rules"]

    @property
    def info(self) -> GameInfo:
        """The declaration of the run's game."""
        return GAMES[self.game]

    def files(self, kind: str) -> list[Path]:
        """The record files of ``kind`` ("deals" or "games"), one per block; [] if not kept."""
        kept = {"deals": ("deals", "games"), "games": ("games",), "none": ()}.get(self.records, ())
        if kind not in kept:
            return []
        files = [self.path / "records" / f"{kind}-{i:06d}.parquet" for i in range(self.n_blocks)]
        for f in files:
            if f.parent.exists() and not f.parent.is_dir():
                raise ReportError(f"{f.parent} is not a folder (a file in its place)")
            if not f.exists():
                raise ReportError(f"{f} is missing (the run keeps {self.records} records)")
        if kind not in self._checked:  # once: a damaged file is named, never read
            try:
                check_records(self.path, files, run_digest(self.config))
            except RunError as exc:
                raise ReportError(str(exc)) from None
            self._checked.add(kind)
        return files

    def has(self, kind: str) -> bool:
        return bool(self.files(kind))

    def columns(self, kind: str) -> set[str]:
        """Column names of the ``kind`` records (those of the first block)."""
        import pyarrow.parquet as pq

        files = self.files(kind)
        if not files:
            return set()
        try:
            return set(pq.read_schema(files[0]).names)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is one user error
            raise ReportError(f"{files[0]} is not readable Parquet ({first_line(exc)})") from None

    def batches(self, kind: str, columns, batch_rows: int = 1 << 20):
        """Record batches of ``kind`` with only ``columns``, block after block."""
        import pyarrow.parquet as pq

        for f in self.files(kind):
            try:
                reader = pq.ParquetFile(f)
                missing = set(columns) - set(reader.schema_arrow.names)
                if missing:
                    raise ReportError(f"{f} lacks the column(s) {', '.join(sorted(missing))}")
                for batch in reader.iter_batches(batch_size=batch_rows, columns=list(columns)):
                    yield Batch(batch)
            except ReportError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise ReportError(f"{f} is not readable Parquet ({first_line(exc)})") from None

    def aggregates(self) -> dict:
        """The blocks' aggregates merged, read one block file at a time."""
        total, run = None, run_digest(self.config)
        for i in range(self.n_blocks):
            try:
                agg = block_aggregates(read_block(self.path, i, run))
            except RunError as exc:
                raise ReportError(str(exc)) from None
            total = agg if total is None else merge(total, agg)
        return total


def fill(data: RunData, kind: str, tallies) -> None:
    """Feed every ``kind`` record batch once to each tally, reading only the columns needed."""
    tallies = [t for t in tallies if t is not None]
    if not tallies:
        return
    columns = sorted(set().union(*(t.columns for t in tallies)))
    for batch in data.batches(kind, columns):
        for t in tallies:
            t.add(batch)


# --- Building blocks --------------------------------------------------------------------------

class Hist:
    """Exact histogram of integer values, filled batch by batch."""

    def __init__(self, hist: dict | None = None):
        self.table = dict(zip(hist["values"], hist["counts"])) if hist else {}

    def add(self, values) -> None:
        vals, counts = np.unique(np.asarray(values), return_counts=True)
        for v, c in zip(vals.tolist(), counts.tolist()):
            self.table[v] = self.table.get(v, 0) + c

    @property
    def n(self) -> int:
        return sum(self.table.values())

    def as_dict(self) -> dict:
        keys = sorted(self.table)
        return {"values": keys, "counts": [self.table[k] for k in keys]}

    def describe(self) -> dict:
        """n, mean with 95% interval, sd and quantiles (sim.summary.describe), plus min, max."""
        if not self.table:
            return {"n": 0}
        return {**describe(self.as_dict()), "min": min(self.table), "max": max(self.table)}


def count(shape, *index) -> np.ndarray:
    """Counts of index tuples in an array of ``shape`` (a fast np.add.at of ones)."""
    flat = np.ravel_multi_index([np.asarray(i, dtype=np.int64) for i in index], shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape)


def seat_value(seat, value0, value1) -> np.ndarray:
    """Per row, ``value0`` where ``seat`` is 0 and ``value1`` where it is 1."""
    return np.where(seat == 0, value0, value1).astype(np.int64)


class DealScoreTally:
    """Each side's score per deal (per hand in Bid Euchre, by team), as exact histograms:
    by seat (team) in ``scores``, and in ``by_dealer`` the dealer's side's score and the
    other side's (None when read from the block aggregates, which keep scores by seat)."""

    kind = "deals"
    columns = ("dealer", "score0", "score1")

    def __init__(self):
        self.scores = [Hist(), Hist()]
        self.by_dealer: list[Hist] | None = [Hist(), Hist()]

    def add(self, b: Batch) -> None:
        s0, s1 = b["score0"], b["score1"]
        for side in (0, 1):
            self.scores[side].add(b[f"score{side}"])
        dealer_side = b["dealer"].astype(np.int64) % 2  # seats alternate sides in every game (C-2, E-1)
        self.by_dealer[0].add(np.where(dealer_side == 0, s0, s1))
        self.by_dealer[1].add(np.where(dealer_side == 0, s1, s0))

    @classmethod
    def from_aggregates(cls, agg: dict, info: GameInfo) -> DealScoreTally:
        t = cls()
        t.scores = [Hist(h) for h in agg[info.summary_key("deal_score")]]
        t.by_dealer = None
        return t


class GameTally:
    """Game totals per side, deals per game, and game results by first dealer (B-15, D-7,
    E-9): ``wins[first dealer, outcome]`` with outcomes as in OUTCOMES."""

    kind = "games"
    columns = ("first_dealer", "deals", "total0", "total1", "winner", "abandoned")

    def __init__(self, info: GameInfo):
        self.seat_sides = info.seat_sides
        self.totals = [Hist(), Hist()]
        self.by_first_dealer: list[Hist] | None = [Hist(), Hist()]  # the first dealer's side's total, the other's
        self.deals = Hist()
        self.wins = np.zeros((info.seats, 4), dtype=np.int64)

    def add(self, b: Batch) -> None:
        for side in (0, 1):
            self.totals[side].add(b[f"total{side}"])
        first_side = np.asarray(self.seat_sides)[b["first_dealer"].astype(np.int64)]
        t0, t1 = b["total0"], b["total1"]
        self.by_first_dealer[0].add(np.where(first_side == 0, t0, t1))
        self.by_first_dealer[1].add(np.where(first_side == 0, t1, t0))
        self.deals.add(b["deals"])
        winner = b["winner"].astype(np.int64)
        outcome = np.where(b["abandoned"] != 0, 3, np.where(winner < 0, 2, winner))
        self.wins += count(self.wins.shape, b["first_dealer"], outcome)

    @classmethod
    def from_aggregates(cls, agg: dict, info: GameInfo) -> GameTally:
        t = cls(info)
        t.totals = [Hist(h) for h in agg["game_total"]]
        t.by_first_dealer = None
        t.deals = Hist(agg["deals_per_game"])
        wins = np.array(agg["wins"], dtype=np.int64)
        if wins.shape[1] == 3:  # an older Bid Euchre run's aggregates: no column for a drawn hand
            wins = np.insert(wins, 2, 0, axis=1)
        t.wins = wins
        return t

    @property
    def games(self) -> int:
        return int(self.wins.sum())

    def side_wins(self, side: int, first_dealer: int | None = None) -> dict:
        """Games won by a seat (team) of all games, or of those ``first_dealer`` dealt first."""
        rows = self.wins if first_dealer is None else self.wins[first_dealer:first_dealer + 1]
        return rate(rows[:, side].sum(), rows.sum())

    def outcome(self, k: int, first_dealer: int | None = None) -> dict:
        rows = self.wins if first_dealer is None else self.wins[first_dealer:first_dealer + 1]
        return rate(rows[:, k].sum(), rows.sum())

    def first_dealer_wins(self) -> dict:
        """Games won by the side of the first dealer (C-6); in Bid Euchre the dealer's team."""
        won = sum(self.wins[dealer, side] for dealer, side in enumerate(self.seat_sides))
        return rate(won, self.games)


