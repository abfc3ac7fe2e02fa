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
from dataclasses import asdict, dataclass
from pathlib import Path

import sim


class RunError(ValueError):
    """A run folder that cannot be used for this run."""


RECORD_MODES = ("deals", "games", "none")


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

    def blocks(self) -> list[tuple[int, int, int]]:
        """(block index, first game, number of games) of every block."""
        return [(i, first, min(self.block_size, self.games - first))
                for i, first in enumerate(range(0, self.games, self.block_size))]

    def identity(self) -> dict:
        return dict(asdict(self), rules_version=sim.RULES_VERSION)


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_json(path: Path, obj) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


class RunFolder:
    """A run folder opened for one configuration: created, or checked and resumed."""

    def __init__(self, path: str | Path, config: RunConfig):
        self.path = Path(path)
        self.config = config
        self.manifest_path = self.path / "manifest.json"
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
        import pyarrow.parquet as pq

        tables = {"deals": deal_table, "games": game_table}
        wanted = {"deals": ("deals", "games"), "games": ("games",), "none": ()}[self.config.records]
        for kind in wanted:
            target = self.path / "records" / f"{kind}-{index:06d}.parquet"
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            pq.write_table(tables[kind], tmp, compression="zstd")
            os.replace(tmp, target)
        write_json(self.block_file(index), aggregates)
        self.manifest["blocks_done"] = sorted(self.done())
        write_json(self.manifest_path, self.manifest)

    def aggregates(self):
        """Each block's aggregates in block order, read one at a time."""
        for i, _, _ in self.config.blocks():
            yield json.loads(self.block_file(i).read_text())

    def finish(self, summary: dict, timing: dict) -> None:
        write_json(self.path / "summary.json", summary)
        self.manifest.update(complete=True, timing=timing)
        write_json(self.manifest_path, self.manifest)


def load_records(path: str | Path, kind: str = "deals"):
    """A run's deal or game records as one pandas DataFrame, in game order."""
    import pyarrow.parquet as pq
    import pyarrow as pa

    files = sorted((Path(path) / "records").glob(f"{kind}-*.parquet"))
    if not files:
        raise RunError(f"{path} has no {kind} records (was it run with --records {kind}?)")
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pandas()
