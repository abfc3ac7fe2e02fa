"""Metrics of a run, read block by block and paired game by game between two runs.

Every metric is a ratio of per-game sums over the games g of a run, R = sum(y_g) / sum(n_g):

    dealer_advantage   y = the dealer's deal score minus the non-dealer's, summed over the
                       game's deals (Bid Euchre: the dealer's team minus the other team);
                       n = deals (passed-out and void deals included, scoring 0 - 0)
    first_dealer_wins  y = 1 when the first dealer (Bid Euchre: the first dealer's team)
                       wins the game; a drawn or abandoned game counts 0; n = 1
    contract_made      y = contracts made (Bid Euchre: bids made); n = contracts played
                       (passed-out deals and void hands are not contracts)
    mean_score         y = both seats' (teams') deal scores summed; n = 2 x deals, so R is
                       the mean deal score of one seat
    deals_per_game     y = deals counted in the game (B-15, D-7, E-9); n = 1

Games are the independent units (a game's deals share its course), so intervals use the
ratio estimator's linearisation over games: Var(R) = sum((y_g - R n_g)^2) / (nbar^2 G (G-1))
with nbar = sum(n_g) / G. Two runs of the same seed play game g from the same cards up to
where their rules part, so the difference R_B - R_A is estimated from the paired per-game
terms; comparing its variance with Var(R_A) + Var(R_B) (independent runs) gives the
variance saved by pairing, as in sim.match.

Records are read one block file at a time, only the columns a metric needs, and reduced
to exact integer moment sums, so a run larger than memory is fine and the arithmetic is
exact until the final division: two runs with identical games give a difference of
exactly 0 with a zero-width interval. Runs without the needed records (``--records
none`` or ``games``) fall back to summary.json where the metric allows, unpaired.

Beside the builtin METRICS, a metric can be written as an expression over the deal or game
columns (analysis.custom: ``made4 = mean(made) where level == 4``); it reduces to the same
per-game sums y and n, so it gets the same intervals and the same pairing, but only from
records (a summary cannot answer it), and a zero sum of n is an error, not a blank.

What differs between games (which column says a contract was played, the summary's
names, the words) comes from the game's declaration (sim/games.py). This module reads
Parquet with pyarrow and never imports numba (DESIGN: analysis/).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np

from analysis.custom import Column, Custom, CustomError, bind, column_kind, decode, group, parse_custom, short, \
    split_items
from sim.games import GAMES, GameInfo, game_info
from sim.summary import Z95
from sim.store import RunError, check_records, read_manifest, read_summary


class MetricsError(ValueError):
    """A run folder or metric request the analyses cannot use (one line for the user)."""


def _sum_exact(local, values, count: int):
    """Per-game sums of whole numbers in int64, exact whatever their size (custom metrics)."""
    out = np.zeros(count, dtype=np.int64)
    np.add.at(out, local, np.asarray(values, dtype=np.int64))
    return out


# --- Per-game values from one block's records ---------------------------------------------

def _local(cols, first: int, count: int):
    local = np.asarray(cols["game"], dtype=np.int64) - first
    if len(local) and (local.min() < 0 or local.max() >= count):
        raise MetricsError("records hold games outside their block; the run folder is corrupt")
    return local


def _sum_by_game(local, values, count: int):
    # Integer values: float64 bincount is exact far beyond any block's sums.
    return np.rint(np.bincount(local, weights=np.asarray(values, dtype=np.float64), minlength=count)).astype(np.int64)


def _dealer_advantage(info, deals, games, first, count):
    local = _local(deals, first, count)
    s0, s1 = deals["score0"].astype(np.int64), deals["score1"].astype(np.int64)
    dealer_side = np.asarray(info.seat_sides)[deals["dealer"].astype(np.int64)]
    diff = np.where(dealer_side == 0, s0 - s1, s1 - s0)
    return _sum_by_game(local, diff, count), np.bincount(local, minlength=count).astype(np.int64)


def _contract_made(info, deals, games, first, count):
    local = _local(deals, first, count)
    played = np.asarray(deals[info.contract_column]) >= 0
    made = played & np.asarray(deals["made"], dtype=bool)  # Bid Euchre's void hands: null, None
    return _sum_by_game(local, made, count), _sum_by_game(local, played, count)


def _mean_score(info, deals, games, first, count):
    local = _local(deals, first, count)
    points = deals["score0"].astype(np.int64) + deals["score1"]
    return _sum_by_game(local, points, count), 2 * np.bincount(local, minlength=count).astype(np.int64)


def _by_game(games, first, count, values):
    local = _local(games, first, count)
    if len(local) != count or len(np.unique(local)) != count:
        raise MetricsError("a block's game records do not hold each of its games once; the run folder is corrupt")
    out = np.zeros(count, dtype=np.int64)
    out[local] = values
    return out


def _first_dealer_wins(info, deals, games, first, count):
    first_side = np.asarray(info.seat_sides)[np.asarray(games["first_dealer"], dtype=np.int64)]
    won = np.asarray(games["winner"], dtype=np.int64) == first_side
    return _by_game(games, first, count, won), np.ones(count, dtype=np.int64)


def _deals_per_game(info, deals, games, first, count):
    return _by_game(games, first, count, games["deals"]), np.ones(count, dtype=np.int64)


# --- The same metrics from summary.json (runs kept without the records) ---------------------

def _rate_from(statistic):
    """A rate the summary holds under ``statistic`` (the game's own name for it)."""
    def read(info, summary):
        r = summary[info.summary_key(statistic)]
        if not r["n"] or r["rate"] is None:
            return None
        p, n = r["rate"], r["n"]
        return p, math.sqrt(p * (1 - p) / n)
    return read


def _mean_score_summary(info, summary):
    # The two sides' scores per deal are not independent and their covariance is not in
    # the summary: the standard error assumes perfect correlation, which bounds it above.
    sides = list(summary[info.summary_key("deal_score")].values())
    if not all(s.get("n") for s in sides):
        return None
    n = sides[0]["n"]
    return sum(s["mean"] for s in sides) / 2, sum(s["sd"] for s in sides) / 2 / math.sqrt(n)


def _dealer_advantage_summary(info, summary):
    adv = summary.get("dealer_advantage")  # summaries of runs made before it was kept have none
    if not adv or adv["value"] is None or adv["ci95"] is None:
        return None
    return adv["value"], (adv["ci95"][1] - adv["value"]) / Z95


def _deals_per_game_summary(info, summary):
    d = summary["deals_per_game"]
    return (d["mean"], d["sd"] / math.sqrt(d["n"])) if d.get("n") else None


@dataclass(frozen=True)
class Metric:
    """One metric: how to read it per game from records and, if it can be, from a summary.

    ``label`` and ``unit`` are in the game's words: ``{deal}``, ``{side}`` and ``{contract}``
    are filled from its declaration ("hand", "team" and "bid" in Bid Euchre); a column
    written ``{contract_column}`` is the game's column that marks a contract played."""

    name: str
    label: str                      # words for tables and plots
    unit: str                       # axis label's unit
    records: str                    # "deals" or "games": the Parquet records it needs
    columns: tuple                  # columns read (beside ``game``)
    per_game: Callable              # (GameInfo, deals, games, first, count) -> (y, n) per game
    from_summary: Callable | None   # (GameInfo, summary) -> (value, standard error) or None
    balance: float | None = None    # the value at which the rules are even between the sides
    percent: bool = False           # a rate, shown in per cent
    digits: int = 2                 # decimals shown (of the per cent for rates)
    definition: str | None = None   # a custom metric's expression (analysis.custom); None: builtin
    game_columns: tuple = ()        # game columns a custom metric reads onto its deal rows
    deal_label: str | None = None   # the words in a deal run, whose games are single deals
    group: tuple | None = None      # (column, value): one group of a custom metric's ``by COLUMN``

    def words(self, game: str, deal_run: bool = False) -> str:
        return _in_words(self.deal_label if deal_run and self.deal_label else self.label, game_info(game))

    def unit_for(self, game: str, deal_run: bool = False) -> str:
        """The unit; a deal run's games are its deals, and are called so."""
        unit = self.unit.replace("games", "{deal}s").replace("game", "{deal}") if deal_run else self.unit
        return _in_words(unit, game_info(game))

    def columns_for(self, game: str) -> tuple:
        info = game_info(game)
        return tuple(c.format(contract_column=info.contract_column) for c in self.columns)

    def format(self, value, signed: bool = False) -> str:
        if value is None:
            return "-"
        spec = f"{'+' if signed else ''}z.{self.digits}f"  # z: a value that rounds to zero prints 0, never -0
        return f"{100 * value:{spec}}%" if self.percent else f"{value:{spec}}"


def _in_words(text: str, info: GameInfo) -> str:
    return text.format(deal=info.deal, side=info.side, contract=info.contract)


METRICS = {m.name: m for m in (
    Metric("dealer_advantage", "dealer's advantage per deal", "points per {deal}", "deals",
           ("dealer", "score0", "score1"), _dealer_advantage, _dealer_advantage_summary, balance=0.0),
    Metric("first_dealer_wins", "first dealer's game win rate", "share of games", "games",
           ("first_dealer", "winner"), _first_dealer_wins, _rate_from("first_dealer_wins"),
           balance=0.5, percent=True, digits=2, deal_label="dealer's {deal} win rate"),
    Metric("contract_made", "{contract}s made", "share of {contract}s", "deals", ("{contract_column}", "made"),
           _contract_made, _rate_from("contracts_made"), percent=True, digits=2),
    Metric("mean_score", "mean {deal} score per {side}", "points per {deal}", "deals",
           ("score0", "score1"), _mean_score, _mean_score_summary),
    Metric("deals_per_game", "deals per game", "{deal}s", "games", ("deals",), _deals_per_game,
           _deals_per_game_summary, digits=3),
)}


def parse_metrics(text) -> list[str]:
    """The metrics of a --metrics list (None: every builtin metric), each a builtin name or
    a custom metric ``NAME = mean(EXPR) [where COND]`` (analysis.custom), separated by the
    commas outside parentheses, brackets and quotes; a list of such texts (a repeated
    flag) is joined. Returns the items, checked: builtin names and custom definitions."""
    if text is None:
        return list(METRICS)
    texts = [text] if isinstance(text, str) else list(text)
    items = [item for t in texts for item in split_items(t)]
    if not all(items):
        raise MetricsError(f"--metrics needs comma-separated metric names or NAME = EXPRESSION, got "
                           f"'{', '.join(texts)}'")
    return [m.text if isinstance(m, Custom) else m.name for m in resolve_metrics(items)]


def resolve_metrics(metrics=None, deal_run: bool = False) -> list:
    """Builtin Metrics and parsed custom metrics (analysis.custom.Custom) from names,
    definitions, a --metrics text, or those objects themselves (None: every builtin, less
    ``deals_per_game`` for a deal run, where it is always 1)."""
    if metrics is None:
        return [m for m in METRICS.values() if not (deal_run and m.name == "deals_per_game")]
    if isinstance(metrics, str):
        metrics = split_items(metrics)
    out = []
    for item in metrics:
        if isinstance(item, (Metric, Custom)):
            out.append(item)
        elif not isinstance(item, str) or not item.strip():
            raise MetricsError(f"a metric is a builtin name or NAME = EXPRESSION, got {short(repr(item))}")
        elif item.strip() in METRICS:
            out.append(METRICS[item.strip()])
        elif item.strip().isidentifier():
            import difflib

            close = difflib.get_close_matches(item.strip(), list(METRICS), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise MetricsError(f"unknown metric '{item.strip()}'{hint} (metrics: {', '.join(METRICS)}, "
                               f"or NAME = mean(EXPR) [where COND])")
        elif "=" not in item.replace("==", "").replace("!=", "").replace("<=", "").replace(">=", ""):
            raise MetricsError(f"a custom metric needs a name: NAME = {short(item.strip())}")
        else:
            try:
                custom = parse_custom(item)
            except CustomError as exc:
                raise MetricsError(str(exc)) from None
            if custom.name in METRICS:
                raise MetricsError(f"custom metric '{custom.name}' has a builtin metric's name; give it another")
            out.append(custom)
    names = [m.name for m in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise MetricsError(f"--metrics lists the metric '{twice}' twice")
    return out


def custom_metric(custom: Custom, runs) -> Metric:
    """``custom`` bound to the columns of ``runs`` (RunRecords): a Metric like the builtin
    ones. A column no run has, a type that does not fit, or records a run did not keep is a
    MetricsError."""
    bare = [r for r in runs if r.records == "none"]
    if bare:
        raise MetricsError(f"metric '{custom.name}' reads the records, which {bare[0].path} did not keep "
                           f"(--records none)")
    schema = {}
    for run in runs:
        for kind, columns in run.schema().items():
            mine = schema.setdefault(kind, {})
            for name, column in columns.items():
                old = mine.get(name)
                if old is None:
                    mine[name] = column
                elif old.values is not None and column.values is not None:
                    mine[name] = Column(old.kind, tuple(dict.fromkeys(old.values + column.values)))
                else:
                    mine[name] = Column(old.kind, None)
    dealless = [r for r in runs if not r.has("deals")]
    note = (f"{dealless[0].path} kept no deal records (--records {dealless[0].records}), and deal columns "
            f"need --records deals" if dealless else "")
    try:
        bound = bind(custom, schema, note)
    except CustomError as exc:
        raise MetricsError(str(exc)) from None
    for run in runs:
        for kind in (bound.records, *(["games"] if bound.game_columns else [])):
            if not run.has(kind):
                raise MetricsError(f"metric '{custom.name}' needs {kind[:-1]} records, which {run.path} did "
                                   f"not keep (--records {run.records})")
    what = "{deal}s" if bound.records == "deals" else "games"
    if custom.denominator is not None:
        unit = "ratio of counts" if bound.percent else "ratio"
    else:
        unit = f"share of {what}" if bound.percent else f"per {what[:-1]}"
    return Metric(custom.name, _escape(custom.label), unit, bound.records, bound.row_columns,
                  lambda info, deals, games, first, count: _custom_per_game(bound, deals, games, first, count),
                  None, balance=custom.balance, percent=bound.percent, definition=custom.definition,
                  game_columns=bound.game_columns)


MAX_GROUPS = 60  # values a by COLUMN may take: a table per group beyond that is no longer read


def custom_metrics(custom: Custom, runs) -> list[Metric]:
    """``custom`` bound to the columns of ``runs`` (custom_metric); with ``by COLUMN``, one
    Metric per value COLUMN holds in the runs' records (null aside), in the column's order
    (a text column's names as its dictionary lists them, the rest ascending), each over
    the rows of its value."""
    whole = custom_metric(custom, runs)
    if custom.by is None:
        return [whole]
    kind = "deals" if all(custom.by in run.schema().get("deals", {}) for run in runs) else "games"
    column = next(run.schema()[kind][custom.by] for run in runs)
    found = set()
    for run in runs:
        for index, _, _ in run.blocks():
            found.update(v for v in run.read_table(kind, index, [custom.by]).column(custom.by).unique().to_pylist()
                         if v is not None)
            if len(found) > MAX_GROUPS:
                raise MetricsError(f"metric '{custom.name}': '{custom.by}' takes more than {MAX_GROUPS} values in "
                                   f"{run.path}; group by a column with fewer (a class, a level, a seat)")
    order = [v for v in column.values or () if v in found]
    order += sorted(found - set(order))
    return [replace(custom_metric(group(custom, value, column.kind), runs), group=(custom.by, value))
            for value in order]


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _custom_per_game(bound, deals, games, first: int, count: int):
    """(y, n) per game of a bound custom metric from one block's Arrow tables."""
    table = deals if bound.records == "deals" else games
    local = _local({"game": table.column("game").to_numpy()}, first, count)
    env, null = {}, np.zeros(table.num_rows, dtype=bool)
    for name in bound.row_columns:
        env[name], missing = decode(table.column(name), bound.columns[name].kind)
        null |= missing
    if bound.game_columns:
        at = _local({"game": games.column("game").to_numpy()}, first, count)
        if len(at) != count or len(np.unique(at)) != count:
            raise MetricsError("a block's game records do not hold each of its games once; the run folder is corrupt")
        where = np.empty(count, dtype=np.int64)
        where[at] = np.arange(count)
        rows = where[local]  # each deal row's game row
        for name in bound.game_columns:
            value, missing = decode(games.column(name), bound.columns[name].kind)
            env[name] = value[rows]
            null |= missing[rows]
    try:
        keep, y, n = bound.rows(env, null)
    except CustomError as exc:  # a zero divisor in the records
        raise MetricsError(str(exc)) from None
    return _sum_exact(local[keep], y, count), _sum_exact(local[keep], n, count)


def shown(name: str, entry: dict | None = None) -> Metric:
    """The metric ``name`` for tables and plots: a builtin, or a custom one as a result
    describes it (``entry``: its label, unit, percent and balance)."""
    if name in METRICS:
        return METRICS[name]
    entry = entry or {}
    return Metric(name, _escape(entry.get("label", name)), _escape(entry.get("unit", "")), "deals", (), None, None,
                  balance=entry.get("balance"), percent=bool(entry.get("percent")),
                  definition=entry.get("definition"))


# --- Run folders -----------------------------------------------------------------------------

class RunRecords:
    """A finished run folder, read block by block."""

    def __init__(self, path):
        self.path = Path(path)
        if not (self.path / "manifest.json").exists():
            raise MetricsError(f"{self.path} is not a run folder (no manifest.json)")
        try:
            manifest = read_manifest(self.path)
            self.config = manifest["config"]
            self.game, self.seed, self.games = self.config["game"], self.config["seed"], self.config["games"]
            self.block_size, self.records = self.config["block_size"], self.config["records"]
            self.games = manifest.get("games_played", self.games)  # a run stopped by --until
            self.dealing = self.config.get("dealing")  # a deal run's dealing (sim.dealing); None: games
        except RunError as exc:
            raise MetricsError(str(exc)) from None
        except (OSError, ValueError, KeyError, TypeError):
            raise MetricsError(f"{self.path}/manifest.json is unreadable or not a run manifest") from None
        if self.game not in GAMES:
            raise MetricsError(f"{self.path}/manifest.json names an unknown game '{self.game}'")
        self.info = GAMES[self.game]
        self.unit = "deals" if self.deal_run else "games"
        self._schema = None  # the records' columns, read once (schema())
        if not manifest.get("complete") or not (self.path / "summary.json").exists():
            raise MetricsError(f"{self.path} is not a finished run (rerun its command to complete it)")
        self._manifest = manifest

    @property
    def deal_run(self) -> bool:
        """A run of independent deals (sim.dealing): each of its games is one deal."""
        return bool(self.dealing) and self.dealing.get("unit") == "deals"

    def describe_dealing(self) -> str:
        from sim.dealing import from_dict

        return from_dict(self.dealing).describe()

    def summary(self) -> dict:
        try:
            return read_summary(self.path, self._manifest)
        except RunError as exc:
            raise MetricsError(str(exc)) from None

    def _checked(self, file: Path) -> Path:
        """``file``, when it is the record file its block wrote (sim.store checksums)."""
        try:
            check_records(self.path, [file])
        except RunError as exc:
            raise MetricsError(str(exc)) from None
        return file

    def has(self, kind: str) -> bool:
        return kind == "games" and self.records in ("deals", "games") or kind == "deals" and self.records == "deals"

    def blocks(self):
        """(block index, first game, games) of every block."""
        return [(i, first, min(self.block_size, self.games - first))
                for i, first in enumerate(range(0, self.games, self.block_size))]

    def read_table(self, kind: str, index: int, columns):
        """Only ``columns`` (and ``game``) of one block's records, as an Arrow table."""
        import pyarrow.parquet as pq

        file = self._checked(self.path / "records" / f"{kind}-{index:06d}.parquet")
        wanted = ["game", *dict.fromkeys(c for c in columns if c != "game")]
        try:
            return pq.read_table(file, columns=wanted)
        except FileNotFoundError:
            raise MetricsError(f"{file} is missing; the run folder is incomplete") from None
        except Exception as exc:  # pyarrow raises several types for bad files and missing columns
            raise MetricsError(f"cannot read {file}: {str(exc).splitlines()[0]}") from None

    def schema(self) -> dict:
        """{"deals"/"games": {column: Column}} of the records the run kept, from its first
        block's files (a text column's values from its dictionary)."""
        if self._schema is None:
            import pyarrow as pa
            import pyarrow.parquet as pq

            schema = {}
            for kind in ("deals", "games"):
                if not self.has(kind) or not self.games:
                    continue
                file = self._checked(self.path / "records" / f"{kind}-000000.parquet")
                try:
                    fields = pq.read_schema(file)
                    texts = [f.name for f in fields if pa.types.is_dictionary(f.type)]
                    table = pq.read_table(file, columns=texts) if texts else None
                except FileNotFoundError:
                    raise MetricsError(f"{file} is missing; the run folder is incomplete") from None
                except Exception as exc:
                    raise MetricsError(f"cannot read {file}: {str(exc).splitlines()[0]}") from None
                schema[kind] = table_columns(fields, table)
            self._schema = schema
        return self._schema

    def per_game(self, metrics: list[Metric]):
        """For each block: (first game, games, {metric name: (y, n) int64 arrays per game})."""
        need = {"deals": set(), "games": set()}
        plain = {"deals": set(), "games": set()}  # builtin metrics' columns, read into numpy
        for m in metrics:
            need[m.records].update(m.columns_for(self.game))
            need["games"].update(m.game_columns)
            if m.definition is None:
                plain[m.records].update(m.columns_for(self.game))
        kinds = [kind for kind in ("deals", "games")
                 if any(m.records == kind or kind == "games" and m.game_columns for m in metrics)]
        for index, first, count in self.blocks():
            tables = {kind: self.read_table(kind, index, sorted(need[kind])) for kind in kinds}
            arrays = {kind: {c: t.column(c).to_numpy() for c in ["game", *sorted(plain[kind])]}
                      for kind, t in tables.items() if any(m.definition is None and m.records == kind
                                                           for m in metrics)}
            values = {}
            for m in metrics:
                source = tables if m.definition is not None else arrays
                values[m.name] = m.per_game(self.info, source.get("deals"), source.get("games"), first, count)
            yield first, count, values


def table_columns(fields, texts) -> dict:
    """{column: Column} of an Arrow schema's ``fields``, a text column's values from its
    dictionary in the Arrow table ``texts``."""
    import pyarrow as pa

    columns = {}
    for f in fields:
        values = None
        if pa.types.is_dictionary(f.type) and texts is not None and f.name in texts.column_names \
                and texts.column(f.name).num_chunks:
            values = tuple(texts.column(f.name).unify_dictionaries().chunk(0).dictionary.to_pylist())
        columns[f.name] = Column(column_kind(f.type), values)
    return columns


class FrameRecords(RunRecords):
    """A pandas DataFrame of deal or game records (with a ``game`` column) read as a run of
    one block: its games, renumbered 0.. in order, are the units of the intervals."""

    def __init__(self, frame, game: str | None = None):
        import pyarrow as pa

        if "game" not in frame.columns:
            raise MetricsError("the DataFrame has no 'game' column: intervals are over games, so keep it "
                               "(run.deals() and run.games() have it)")
        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise MetricsError(f"cannot read the DataFrame: {str(exc).splitlines()[0]}") from None
        ids, local = np.unique(table.column("game").to_numpy(), return_inverse=True)
        self.table = table.set_column(table.column_names.index("game"), "game", pa.array(local, pa.int64()))
        self.path, self.records, self.dealing, self._schema = "the DataFrame", "deals", None, None
        self.game, self.games, self.block_size, self.seed = game, len(ids), max(len(ids), 1), None
        self.info = GAMES.get(game) if game is not None else None

    def has(self, kind: str) -> bool:
        return True  # deal and game metrics alike read the frame's rows

    def schema(self) -> dict:
        if self._schema is None:
            self._schema = {"deals": table_columns(self.table.schema, self.table)}
        return self._schema

    def read_table(self, kind: str, index: int, columns):
        missing = [c for c in columns if c not in self.table.column_names]
        if missing:
            raise MetricsError(f"the DataFrame has no column '{missing[0]}'")
        return self.table.select(["game", *dict.fromkeys(c for c in columns if c != "game")])


def metric_interval(source, metric: str, by: str | None = None, game: str | None = None) -> dict:
    """A metric's value with its 95% interval, by the estimator of the summaries and
    analysis.compare: R = sum(y) / sum(n) over games, linearised over games (module docstring).

    ``source``: a run folder (its path, or the Run of sim.simulate / sim.load_run), or a
    pandas DataFrame of its deal or game records with their ``game`` column (e.g.
    ``run.deals()`` filtered), whose games are the units. ``metric``: a builtin name
    (METRICS; over a DataFrame it needs ``game``, whose seats and columns it reads) or an
    expression ``mean(EXPR) [where COND]`` / ``sum(A) / sum(B) [where COND]`` over the
    columns (analysis.custom; ``NAME =`` may lead). ``by``: a column; then one result per
    value it holds, {value: result}. A result is {"value", "ci95", "games", "n"} (n: the
    sum of the denominator, e.g. the rows counted); a builtin metric of a run that kept no
    records comes from its summary (``n`` None). Bad input is a MetricsError in one line."""
    if isinstance(metric, str) and metric.strip() in METRICS:
        if by is not None:
            raise MetricsError(f"by groups an expression, not the builtin '{metric.strip()}' (the dealer's "
                               f"advantage is mean(score_dealer - score_nondealer), contract_made mean(made))")
        chosen = METRICS[metric.strip()]
    else:
        text = str(metric)
        if not re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", text):
            text = f"value = {text}"
        try:
            chosen = parse_custom(text if by is None else f"{text} by {by}")
        except CustomError as exc:
            raise MetricsError(str(exc)) from None
    frame = not isinstance(source, (str, Path)) and hasattr(source, "columns")
    if frame and isinstance(chosen, Metric) and game not in GAMES:
        raise MetricsError(f"the builtin metric '{chosen.name}' over a DataFrame needs game= one of "
                           f"{', '.join(GAMES)}, whose seats it reads")
    run = FrameRecords(source, game or next(iter(GAMES))) if frame else RunRecords(getattr(source, "path", source))
    if isinstance(chosen, Metric) and not run.has(chosen.records):
        read = chosen.from_summary(run.info, run.summary()) if chosen.from_summary else None
        if read is None:
            raise MetricsError(f"{run.path} kept no {chosen.records[:-1]} records for '{chosen.name}', nor its summary")
        value, se = read
        return {"value": value, "ci95": interval(value, se * se), "games": run.games, "n": None}
    metrics = custom_metrics(chosen, [run]) if isinstance(chosen, Custom) else [chosen]
    sums = run_ratio_sums(run, metrics)
    results = {}
    for m in metrics:
        estimate = ratio_estimate(sums[m.name])
        results[m.name] = {"value": estimate["value"], "ci95": estimate["ci95"], "games": estimate["games"],
                           "n": estimate["deals"]}
    if by is None and getattr(chosen, "by", None) is None:
        return results[metrics[0].name]
    return {m.group[1]: results[m.name] for m in metrics}


def _aligned(stream_a, stream_b):
    """Pair two per-game streams that cut the same games into different blocks."""
    buf_a = buf_b = None
    while True:
        if buf_a is None:
            buf_a = next(stream_a, None)
        if buf_b is None:
            buf_b = next(stream_b, None)
        if buf_a is None or buf_b is None:
            if buf_a is not None or buf_b is not None:
                raise MetricsError("the two runs hold different numbers of games")
            return
        (fa, ca, va), (fb, cb, vb) = buf_a, buf_b
        if fa != fb:
            raise MetricsError("the two runs' records do not cover the same games")
        k = min(ca, cb)
        yield ({name: (y[:k], n[:k]) for name, (y, n) in va.items()},
               {name: (y[:k], n[:k]) for name, (y, n) in vb.items()})
        buf_a = None if k == ca else (fa + k, ca - k, {m: (y[k:], n[k:]) for m, (y, n) in va.items()})
        buf_b = None if k == cb else (fb + k, cb - k, {m: (y[k:], n[k:]) for m, (y, n) in vb.items()})


# --- Exact moment sums and the paired ratio estimator --------------------------------------

class PairedMoments:
    """Integer sums of v = (y_A, n_A, y_B, n_B) and of v v^T over games, exact in Python ints."""

    CHUNK = 100_000  # rows per int64 product, far from overflow for any game's scores

    def __init__(self):
        self.games = 0
        self.s = [0] * 4
        self.ss = [[0] * 4 for _ in range(4)]

    def add(self, ya, na, yb, nb) -> None:
        v = np.stack([np.asarray(x, dtype=np.int64) for x in (ya, na, yb, nb)])
        self.games += v.shape[1]
        big = int(np.abs(v).max(initial=0))
        chunk = self.CHUNK
        if big * big * chunk >= 2 ** 62:  # large values (custom metrics): fewer rows per int64 product
            chunk = max(1, 2 ** 62 // (big * big))
            if big * big >= 2 ** 62:
                v = v.astype(object)  # Python ints: exact at any size
                chunk = v.shape[1] or 1
        for start in range(0, v.shape[1], chunk):
            part = v[:, start:start + chunk]
            sums, products = part.sum(axis=1), part @ part.T
            for i in range(4):
                self.s[i] += int(sums[i])
                for j in range(4):
                    self.ss[i][j] += int(products[i, j])

    def result(self) -> dict:
        """A's and B's ratios with their intervals, B - A with its paired and unpaired intervals."""
        G, s, ss = self.games, self.s, self.ss
        out = {"games": G, "a": None, "a_ci95": None, "b": None, "b_ci95": None, "diff": None,
               "ci95": None, "unpaired_ci95": None, "variance_reduction": None}
        if s[1] == 0 or s[3] == 0:  # nothing to pair: the run that has rows keeps its own value
            for side, i in (("a", 0), ("b", 2)):
                r, var = ratio_variance({"games": G, "y": s[i], "n": s[i + 1], "yy": ss[i][i],
                                         "yn": ss[i][i + 1], "nn": ss[i + 1][i + 1]})
                if r is not None:
                    out.update({side: float(r), f"{side}_ci95": None if var is None else interval(r, var)})
            return out
        r = [Fraction(s[0], s[1]), Fraction(s[2], s[3])]
        nbar = [Fraction(s[1], G), Fraction(s[3], G)]
        diff = r[1] - r[0]
        out.update(a=float(r[0]), b=float(r[1]), diff=float(diff))
        if G < 2:
            return out

        def cross(i, j):
            """sum over games of (y_i - R_i n_i)(y_j - R_j n_j), i, j in (0: A, 1: B)."""
            yi, ni, yj, nj = 2 * i, 2 * i + 1, 2 * j, 2 * j + 1
            return ss[yi][yj] - r[j] * ss[yi][nj] - r[i] * ss[ni][yj] + r[i] * r[j] * ss[ni][nj]

        scale = G * (G - 1)
        var_a = cross(0, 0) / (nbar[0] ** 2 * scale)
        var_b = cross(1, 1) / (nbar[1] ** 2 * scale)
        var_d = var_a + var_b - 2 * cross(0, 1) / (nbar[0] * nbar[1] * scale)
        out.update(a_ci95=interval(r[0], var_a), b_ci95=interval(r[1], var_b), ci95=interval(diff, var_d),
                   unpaired_ci95=interval(diff, var_a + var_b),
                   variance_reduction=float(1 - var_d / (var_a + var_b)) if var_a + var_b > 0 else None)
        return out


# --- One run's ratio from block aggregates (summary.json, --records none) --------------------

def ratio_sums(y, n) -> dict:
    """Exact sums over games of y, n, y^2, y n and n^2: the block aggregate of one ratio
    metric, merged by adding (sim.summary.merge)."""
    y, n = np.asarray(y, dtype=np.int64), np.asarray(n, dtype=np.int64)
    return {"games": len(y), "y": int(y.sum()), "n": int(n.sum()), "yy": int(y @ y), "yn": int(y @ n),
            "nn": int(n @ n)}


def ratio_estimate(sums: dict) -> dict:
    """R = sum(y) / sum(n) with its 95% interval over games, as compare_runs computes it."""
    r, var = ratio_variance(sums)
    return {"value": None if r is None else float(r), "ci95": None if var is None else interval(r, var),
            "deals": sums["n"], "games": sums["games"]}


def dealer_advantage_sums(info: GameInfo, deals, first: int, count: int, groups=()) -> dict:
    """A block's aggregate of the dealer's advantage (METRICS["dealer_advantage"]) from its
    deal rows: over all deals and, in ``by_upcard``, over the deals of each mask in ``groups``."""
    metric = METRICS["dealer_advantage"]
    out = {"all": ratio_sums(*metric.per_game(info, deals, None, first, count))}
    if len(groups):
        # Only the columns the metric reads are masked, not the whole wide record.
        columns = {name: deals[name] for name in ("game", *metric.columns)}
        out["by_upcard"] = [ratio_sums(*metric.per_game(info, {name: col[mask] for name, col in columns.items()},
                                                         None, first, count)) for mask in groups]
    return out


def dealer_advantage_summary(sums: dict, names=()) -> dict:
    """summary.json's dealer_advantage: the overall estimate, and ``by_upcard`` (a list in
    the order of ``names``) where the game groups its deals (Bridgette: the up-card's class,
    the Colons apart)."""
    out = ratio_estimate(sums["all"])
    if "by_upcard" in sums:
        out["by_upcard"] = [{"upcard": name, **ratio_estimate(s)} for name, s in zip(names, sums["by_upcard"])]
    return out


def interval(centre, variance) -> list[float]:
    """centre +- 1.96 standard errors; a variance of exactly 0 gives a zero-width interval."""
    half = Z95 * math.sqrt(max(float(variance), 0.0))
    return [float(centre) - half, float(centre) + half]


# --- Comparisons ---------------------------------------------------------------------------

def open_run(path) -> RunRecords:
    return RunRecords(path)


def pairing(a: RunRecords, b: RunRecords) -> dict:
    """How runs ``a`` and ``b`` compare: {"paired": bool, "why": words}. They pair game by
    game (a deal run: deal by deal) when they play the same number of games (deals) from
    the same seed, whatever their rules, policies or deal-run conditions: game i of both
    runs draws on the same random stream (seed, i), so the pairs are independent of each
    other and the paired interval holds; pairing narrows it as far as that stream keeps
    the two runs' games alike. Otherwise they are compared unpaired. Runs of two games,
    or a game run against a deal run, are a MetricsError."""
    if a.game != b.game:
        raise MetricsError(f"runs {a.path} and {b.path} cannot be compared: different game "
                           f"({a.game} and {b.game})")
    if a.deal_run != b.deal_run:
        raise MetricsError(f"runs {a.path} and {b.path} cannot be paired: one deals "
                           f"{a.describe_dealing()}, the other {b.describe_dealing()}; compare runs that both "
                           f"play whole games or both play --deals")
    unit = a.unit
    for what, mine, theirs in (("seed", a.seed, b.seed), (f"number of {unit}", a.games, b.games)):
        if mine != theirs:
            return {"paired": False, "why": f"different {what} ({mine} and {theirs}): the runs are independent, "
                                            f"so B - A is the difference of two independent means"}
    why = f"the same seed and number of {unit}: {unit[:-1]} i of both runs is drawn from the same random stream"
    if a.dealing != b.dealing:
        why += (f", under each run's own conditions (A: {a.describe_dealing()}; B: {b.describe_dealing()}), "
                f"so B - A compares the two conditions' means")
    return {"paired": True, "why": why}


def compare_runs(path_a, path_b, names=None) -> dict:
    """Each metric for runs A and B and the difference B - A, paired game by game (deal by
    deal) where the runs pair (``pairing``) and both kept the records the metric needs,
    unpaired between runs of different seeds or sizes (the difference of two independent
    ratio estimates, its variance the sum of theirs), otherwise from the two summaries
    (unpaired).

    ``names``: builtin metric names and custom definitions (``NAME = mean(EXPR) [where
    COND]``, analysis.custom), or a --metrics text; None: every builtin metric (a deal run
    leaves out ``deals_per_game``, always 1). A custom metric needs the records it reads in
    both runs, and a sum of n that is not 0."""
    a, b = (p if isinstance(p, RunRecords) else RunRecords(p) for p in (path_a, path_b))
    how = pairing(a, b)
    metrics = [bound for m in resolve_metrics(names, deal_run=a.deal_run)
               for bound in (custom_metrics(m, (a, b)) if isinstance(m, Custom) else [m])]
    kept = [m for m in metrics if a.has(m.records) and b.has(m.records)]
    if how["paired"]:
        moments = {m.name: PairedMoments() for m in kept}
        if kept:
            for va, vb in _aligned(a.per_game(kept), b.per_game(kept)):
                for m in kept:
                    moments[m.name].add(*va[m.name], *vb[m.name])
        estimates = {name: mm.result() for name, mm in moments.items()}
        totals = {name: (mm.s[1], mm.s[3]) for name, mm in moments.items()}
    else:
        per_run = [run_ratio_sums(run, kept) for run in (a, b)]
        estimates = {m.name: unpaired(per_run[0][m.name], per_run[1][m.name]) for m in kept}
        totals = {m.name: (per_run[0][m.name]["n"], per_run[1][m.name]["n"]) for m in kept}
    results = {}
    for m in metrics:
        base = {"label": m.words(a.game, a.deal_run), "unit": m.unit_for(a.game, a.deal_run), "percent": m.percent}
        if m.definition is not None:
            if m.group is None:  # a group may be empty in a run: no value there, shown as such
                _check_divisor(m, totals[m.name], a, b)
            else:
                base.update(by=m.group[0], group=m.group[1])
            base.update(definition=m.definition, balance=m.balance)
        if m.name in estimates:
            results[m.name] = {**base, "source": "records", "paired": how["paired"], **estimates[m.name]}
        else:
            results[m.name] = {**base, **_from_summaries(m, a, b)}
    return {"game": a.game, "unit": a.unit, "paired": how["paired"], "pairing": how["why"],
            "seed": a.seed if a.seed == b.seed else None, "games": a.games if a.games == b.games else None,
            "seeds": [a.seed, b.seed], "sizes": [a.games, b.games], "a": str(a.path), "b": str(b.path),
            "metrics": results}


def run_ratio_sums(run: RunRecords, metrics: list[Metric]) -> dict:
    """{metric name: exact sums over the run's games of y, n, y^2, y n and n^2} (ratio_sums),
    read block by block."""
    out = {m.name: None for m in metrics}
    if not metrics:
        return out
    for _, _, values in run.per_game(metrics):
        for name, (y, n) in values.items():
            block = ratio_sums(y, n)
            out[name] = block if out[name] is None else {k: out[name][k] + block[k] for k in block}
    return out


def ratio_variance(sums: dict):
    """(R, Var(R)) of a ratio of per-game sums, exact Fractions (Var None under 2 games;
    R None when sum(n) is 0): the linearisation over games of the module's docstring."""
    G, y, n = sums["games"], sums["y"], sums["n"]
    if n == 0:
        return None, None
    r = Fraction(y, n)
    if G < 2:
        return r, None
    residuals = sums["yy"] - 2 * r * sums["yn"] + r * r * sums["nn"]
    return r, residuals / (Fraction(n, G) ** 2 * G * (G - 1))


def unpaired(sums_a: dict, sums_b: dict) -> dict:
    """B - A of two independent runs' ratios: Welch's standard error, the square root of
    Var(R_A) + Var(R_B), each over its own run's games (normal 95% quantile)."""
    (ra, var_a), (rb, var_b) = ratio_variance(sums_a), ratio_variance(sums_b)
    out = {"games": None, "a": None, "a_ci95": None, "b": None, "b_ci95": None, "diff": None, "ci95": None,
           "unpaired_ci95": None, "variance_reduction": None}
    if ra is None or rb is None:
        return out
    out.update(a=float(ra), b=float(rb), diff=float(rb - ra))
    if var_a is not None:
        out["a_ci95"] = interval(ra, var_a)
    if var_b is not None:
        out["b_ci95"] = interval(rb, var_b)
    if var_a is not None and var_b is not None:
        out["ci95"] = out["unpaired_ci95"] = interval(rb - ra, var_a + var_b)
    return out


def _check_divisor(m: Metric, totals, a: RunRecords, b: RunRecords) -> None:
    """A custom metric whose n sums to 0 over a run's games has no value there: say why."""
    for run, total in zip((a, b), totals):
        if total == 0:
            custom = parse_custom(f"{m.name} = {m.definition}")
            if custom.denominator is not None:
                why = f"sum({custom.denominator_text}) is 0"
            elif custom.where is not None:
                why = f"no {run.info.deal if m.records == 'deals' else 'game'} has {custom.where_text}"
            else:
                why = "no row has a value for every column it reads"
            raise MetricsError(f"metric '{m.name}' divides by a sum of 0 in {run.path}: {why}")


def _from_summaries(m: Metric, a: RunRecords, b: RunRecords) -> dict:
    out = {"source": None, "paired": False, "games": a.games, "a": None, "a_ci95": None, "b": None,
           "b_ci95": None, "diff": None, "ci95": None, "unpaired_ci95": None, "variance_reduction": None}
    if m.from_summary is None:
        out["note"] = f"needs {m.records} records, which {a.path if not a.has(m.records) else b.path} did not keep"
        return out
    ra, rb = m.from_summary(a.info, a.summary()), m.from_summary(b.info, b.summary())
    if ra is None or rb is None:
        bare = [r for r, v in ((a, ra), (b, rb)) if v is None and not r.has(m.records)]
        out["note"] = (f"needs {m.records} records, which {bare[0].path} did not keep (nor its summary)" if bare
                       else "nothing to measure in one of the runs")
        return out
    (va, sa), (vb, sb) = ra, rb
    out.update(source="summaries", a=va, a_ci95=interval(va, sa * sa), b=vb, b_ci95=interval(vb, sb * sb),
               diff=vb - va, ci95=interval(vb - va, sa * sa + sb * sb),
               unpaired_ci95=interval(vb - va, sa * sa + sb * sb),
               note="from the runs' summaries, unpaired (the runs kept no records for it)")
    return out
