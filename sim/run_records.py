"""A finished run folder's records, read block by block for the metrics (sim.metrics):
only the columns a metric needs, one block file at a time, reduced to exact integer sums
per game, so a run larger than memory is fine. Reads Parquet with pyarrow, checked
against the block checksums of sim.store.
"""

from __future__ import annotations

from pathlib import Path

from sim.custom import Column, column_kind
from sim.games import GAMES
from sim.metrics import Metric, MetricsError
from sim.ratio import ratio_sums
from sim.store import RunError, check_records, finished_manifest, read_summary, run_digest, run_path


class RunRecords:
    """A finished run folder, read block by block."""

    def __init__(self, path):
        try:
            self.path = run_path(path)
            manifest = finished_manifest(self.path)
        except RunError as exc:
            raise MetricsError(str(exc)) from None
        self.config = manifest["config"]
        self.game, self.seed, self.games = self.config["game"], self.config["seed"], self.config["games"]
        self.block_size, self.records = self.config["block_size"], self.config["records"]
        self.games = manifest.get("games_played", self.games)  # a run stopped by --until
        self.dealing = self.config.get("dealing")  # a deal run's dealing (sim.dealing); None: games
        self.info = GAMES[self.game]
        self.unit = "deals" if self.deal_run else "games"
        self._schema = None  # the records' columns, read once (schema())
        self._manifest = manifest
        self._run = run_digest(manifest["config"])  # each block file's, checked as it is read

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
            check_records(self.path, [file], self._run)
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


def open_run(path) -> RunRecords:
    return RunRecords(path)


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
