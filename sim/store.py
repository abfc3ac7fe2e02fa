"""Run folders: manifest, Parquet records one file per block, block aggregates, summary.

    runs/<name>/manifest.json      the configuration, versions and which blocks are done
    runs/<name>/records/deals-000003.parquet, games-000003.parquet
    runs/<name>/blocks/000003.json the block's aggregates (written last: marks it done)
    runs/<name>/summary.json       statistics of the whole run

Every file is written to a temporary name and renamed into place, so an interrupted run
(Ctrl-C, kill -9) leaves only whole files; rerunning the same command redoes the blocks
not marked done and ends with the same records as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import sim


class RunError(ValueError):
    """A run folder that cannot be used for this run."""


RECORD_MODES = ("deals", "games", "none")
# The Parquet files each --records mode keeps.
RECORD_KINDS = {"deals": ("deals", "games"), "games": ("games",), "none": ()}


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a run's records; two runs with equal configs are equal."""

    game: str
    rules: dict
    policies: list
    seed: int
    games: int
    block_size: int
    records: str
    policy_params: list = field(default_factory=list)  # each seat's kernel parameter row, by name
    until: str | None = None  # --until METRIC:WIDTH; ``games`` is then the cap
    dd: bool = False  # --dd: the deal records hold double-dummy values (sim.dd_run)
    dealing: dict | None = None  # a deal run's sim.dealing.Dealing; ``games`` then counts deals

    def blocks(self) -> list[tuple[int, int, int]]:
        """(block index, first game, number of games) of every block."""
        return [(i, first, min(self.block_size, self.games - first))
                for i, first in enumerate(range(0, self.games, self.block_size))]

    def identity(self) -> dict:
        """The configuration plus what else decides the records: the rules version and the
        kernels' source hash (a changed policy default or heuristic makes another run)."""
        import kernels

        config = asdict(self)
        if config["until"] is None:
            del config["until"]  # runs without --until keep the identity they always had
        if not config["dd"]:
            del config["dd"]  # and runs without --dd
        if config["dealing"] is None:
            del config["dealing"]  # and game runs
        return dict(config, rules_version=sim.RULES_VERSION, kernels=kernels.SOURCE_DIGEST)


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_json(path: Path, obj) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def write_records(path: Path, index: int, tables: dict) -> None:
    """A block's Parquet files ({kind: table}), each written under a temporary name and
    renamed into place. Any process may call this: the temporary names are unique, so two
    processes writing the same (identical) block never mix their bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for kind, table in tables.items():
        target = Path(path) / "records" / f"{kind}-{index:06d}.parquet"
        tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        # Min/max statistics for the numeric columns only: a categorical column's names span
        # nearly the same range in every block, so their bounds would skip next to nothing,
        # and they cost a sixth of the write.
        numeric = [f.name for f in table.schema if not pa.types.is_dictionary(f.type)]
        pq.write_table(table, tmp, compression="zstd", write_statistics=numeric)
        os.replace(tmp, target)


class RunFolder:
    """A run folder opened for one configuration: created, or checked and resumed."""

    def __init__(self, path: str | Path, config: RunConfig):
        self.path = Path(path)
        self.config = config
        self.manifest_path = self.path / "manifest.json"
        self._done: set[int] | None = None  # blocks marked done, read from disk once
        try:
            str(self.path).encode("utf-8")
        except UnicodeEncodeError:
            raise RunError(f"output folder name {str(self.path)!a} is not UTF-8 (Parquet files need one)") from None
        if self.path.exists() and not self.path.is_dir():
            raise RunError(f"output folder {self.path} is a file")
        if self.manifest_path.exists():
            self.manifest = self._read_manifest()
            mine, theirs = config.identity(), self.manifest.get("config", {})
            if mine != theirs:
                differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
                raise RunError(f"output folder {self.path} holds a run with another configuration "
                               f"(differs in: {', '.join(differ)}); use another --out")
        elif self.path.exists() and any(self.path.iterdir()):
            raise RunError(f"output folder {self.path} is not empty and is not a run folder")
        else:
            try:
                (self.path / "records").mkdir(parents=True, exist_ok=True)
                (self.path / "blocks").mkdir(exist_ok=True)
            except OSError as exc:
                raise RunError(f"cannot create output folder {self.path}: {exc.strerror}") from None
            self.manifest = {"config": config.identity(), "package_version": sim.__version__,
                             "blocks": len(config.blocks()), "blocks_done": [], "complete": False}
            write_json(self.manifest_path, self.manifest)

    def _read_manifest(self) -> dict:
        try:
            manifest = json.loads(self.manifest_path.read_text())
            manifest["config"], manifest["blocks_done"]  # noqa: B018 - required keys
            return manifest
        except (OSError, ValueError, KeyError, TypeError):
            raise RunError(f"{self.manifest_path} is unreadable or not a run manifest") from None

    def block_file(self, index: int) -> Path:
        return self.path / "blocks" / f"{index:06d}.json"

    def done(self) -> set[int]:
        """Blocks whose aggregates are on disk (records are written before them)."""
        return {i for i, _, _ in self.config.blocks() if self.block_file(i).exists()}

    def write_block(self, index: int, deal_table, game_table, aggregates: dict) -> None:
        tables = {"deals": deal_table, "games": game_table}
        write_records(self.path, index, {kind: tables[kind] for kind in RECORD_KINDS[self.config.records]})
        self.mark_done(index, aggregates)

    def mark_done(self, index: int, aggregates: dict, manifest: bool = True) -> None:
        """Write a block's aggregates (its records are already in place), which marks it
        done, then the manifest unless ``manifest`` is false (it may lag behind the
        aggregates files, which resuming reads, but never runs ahead of them)."""
        write_json(self.block_file(index), aggregates)
        if self._done is None:
            self._done = self.done()
        self._done.add(index)
        if manifest:
            self.write_manifest()

    def write_manifest(self) -> None:
        self.manifest["blocks_done"] = sorted(self._done if self._done is not None else self.done())
        write_json(self.manifest_path, self.manifest)

    def aggregates(self, blocks: int | None = None):
        """Each block's aggregates in block order (the first ``blocks`` only), read one at a time."""
        for i, _, _ in self.config.blocks()[:blocks]:
            yield json.loads(self.block_file(i).read_text())

    def finish(self, summary: dict, timing: dict, until: dict | None = None) -> None:
        """Write the summary and mark the run complete; a run stopped by --until (``until``,
        see sim.until.Stopping.record) reads as a run of the blocks it played."""
        # Temporary files of writers stopped mid-write (Ctrl-C, kill -9, a lost worker) hold nothing.
        for folder in (self.path, self.path / "records", self.path / "blocks"):
            for stray in folder.glob(".*.tmp"):
                stray.unlink(missing_ok=True)
        write_json(self.path / "summary.json", summary)
        self.manifest.update(complete=True, timing=timing, blocks_done=sorted(self.done()))
        if until is not None:
            self.manifest.update(until=until, games_played=until["games_played"], blocks=until["blocks_played"])
        write_json(self.manifest_path, self.manifest)


def load_records(path: str | Path, kind: str = "deals", columns=None, filter=None):
    """A run's deal or game records as one pandas DataFrame, in game order.

    Block file by block file, only ``columns`` (all when None) are read, and only the rows
    that ``filter`` keeps: a pyarrow filter as ``pyarrow.parquet.read_table`` takes it, an
    expression such as ``pc.field("level") >= 3`` (``import pyarrow.compute as pc``) or a
    list of tuples such as ``[("contract", "!=", "pass")]``; it may name columns not read.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted((Path(path) / "records").glob(f"{kind}-*.parquet"))
    if not files:
        raise RunError(f"{path} has no {kind} records (was it run with --records {kind}?)")
    schemas = [pq.read_schema(f).names for f in files]
    if columns is not None:
        columns = [columns] if isinstance(columns, str) else list(columns)
        known = list(dict.fromkeys(name for names in reversed(schemas) for name in names))
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise RunError(f"no column '{unknown[0]}' in the {kind} records (columns: {', '.join(known)})")
    try:
        tables = [pq.read_table(f, columns=None if columns is None else [c for c in columns if c in names],
                                filters=filter) for f, names in zip(files, schemas)]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError) as exc:
        raise RunError(f"filter {filter!r} cannot be applied to the {kind} records: "
                       f"{str(exc).splitlines()[0]}") from None
    # A run resumed across a release that added a column: its older blocks read it as null.
    return pa.concat_tables(tables, promote_options="default").to_pandas()
