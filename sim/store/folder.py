"""A run folder being written: its manifest, blocks, records and summary, resumed where
an earlier process left it."""

from __future__ import annotations

import json
from pathlib import Path

from sim.version import __version__
from sim.cli import refuse_another, say
from sim.store.checksums import file_entry, file_problem, read_sealed, run_digest, sealed
from sim.store.config import RUN, DamagedError, RECORD_FILES, RECORD_KINDS, RunConfig, RunError
from sim.store.lock import listing, lost_manifest, made_and_locked, make_folder
from sim.store.reading import block_files, check_played_by, check_utf8_name, read_manifest
from sim.store.writing import remove_dead_temporaries, write_atomic, write_json, write_records


class RunFolder:
    """A run folder opened for one configuration: created, or checked and resumed, and
    locked for this process until ``close()`` (it is a context manager).

    Opening it checks every block marked done: a block whose aggregates or records are
    missing or damaged is not done, and ``notify`` (default: stderr) gets one line saying
    which and why; such blocks are played again."""

    def __init__(self, path: str | Path, config: RunConfig, notify=None):
        self.path = Path(path)
        self.config = config
        self.manifest_path = self.path / "manifest.json"
        self._notify = notify or say
        check_utf8_name(self.path, "output folder")
        # Checked before the lock file is made in the folder, and again once it is locked.
        names = listing(self.path)
        if names and "manifest.json" not in names:
            if lost_manifest(self.path):
                raise RunError(f"output folder {self.path} holds a run's blocks but no manifest.json, so it cannot be "
                               "resumed; use another --out")
            raise RunError(f"output folder {self.path} is not empty and is not a run folder")
        if names:
            self._read_manifest(config.identity())
        self._lock = made_and_locked(self.path, "run")
        self._begun = False  # whether this process made the run's manifest
        try:
            self._open()
        except BaseException:
            self._lock.release()
            raise

    def _open(self) -> None:
        identity = self.config.identity()
        if self.manifest_path.exists():
            self.manifest = self._read_manifest(identity)
        else:
            self.manifest = {"config": identity, "package_version": __version__,
                             "blocks": len(self.config.blocks()), "blocks_done": [], "complete": False}
            self._write_manifest()
            self._begun = True
        for sub in ("records", "blocks"):  # made after the manifest: a folder with them is a run's
            make_folder(self.path / sub)
        self._run = run_digest(self.manifest["config"])  # what each of its block files carries
        self._done = self._verified()
        if self.manifest.get("complete") and len(self._done) < len(self.manifest["blocks_done"]):
            self.manifest["complete"] = False  # until the blocks played again are back
            self.write_manifest()

    def _read_manifest(self, identity: dict) -> dict:
        try:
            manifest = read_manifest(self.path, played_by=False)
            theirs = manifest["config"]
            manifest["blocks_done"]  # noqa: B018 - a required key
        except KeyError:
            raise RunError(f"{self.manifest_path} is unreadable or not a run manifest (no blocks_done)") from None
        check_played_by(self.path, manifest, blocks=3)  # an edited manifest is named, its blocks never played over
        refuse_another(self.path, "a run", identity, theirs, RunError)
        return manifest

    def block_file(self, index: int) -> Path:
        return self.path / "blocks" / f"{index:06d}.json"

    def _verified(self) -> set[int]:
        """The blocks whose aggregates and records are whole, by their checksums; one line
        to ``notify`` for each block that a block file marks done but is damaged."""
        # The files and the manifest's list, not every index: a run can have very many blocks.
        written = {int(f.stem) for f in (self.path / "blocks").glob("*.json") if f.stem.isdigit()}
        done, blocks = set(), len(self.config.blocks())
        listed = {i for i in self.manifest["blocks_done"] if isinstance(i, int)}
        for index in sorted(i for i in written | listed if i < blocks):
            problem = self.block_problem(index)
            if problem is None:
                done.add(index)
            elif problem.path.is_dir():  # a file cannot be written in its place
                raise RunError(f"{problem.path} is a folder where the run's file belongs: remove it, or use "
                               f"another --out")
            else:
                self._notify(f"block {index} is played again: {problem}")
        return done

    def block_problem(self, index: int) -> DamagedError | None:
        """What is missing or damaged in block ``index``, or None."""
        try:
            entries = record_entries(read_sealed(self.block_file(index)), index, self.config.records,
                                     self.block_file(index), self._run)
        except DamagedError as exc:
            return exc
        for name, entry in entries.items():
            problem = file_problem(self.path / "records" / name, entry)
            if problem:
                return problem
        return None

    def done(self) -> set[int]:
        """Blocks whose aggregates and records are on disk and whole."""
        return set(self._done)

    def write_block(self, index: int, deal_table, game_table, aggregates: dict) -> None:
        tables = {"deals": deal_table, "games": game_table}
        files = write_records(self.path, index, {kind: tables[kind] for kind in RECORD_KINDS[self.config.records]})
        self.mark_done(index, aggregates, files=files)

    def mark_done(self, index: int, aggregates: dict, manifest: bool = True, files: dict | None = None) -> None:
        """Write a block's aggregates with its records' sizes and checksums (``files``; None:
        read from the records a worker wrote), which marks it done, then the manifest unless
        ``manifest`` is false (it may lag behind the block files, which resuming reads, but
        never runs ahead of them)."""
        if files is None:
            files = {}
            for kind in RECORD_KINDS[self.config.records]:
                path = self.path / "records" / f"{kind}-{index:06d}.parquet"
                try:
                    files[path.name] = file_entry(path.read_bytes())
                except OSError as exc:
                    raise RunError(f"cannot read {path}: {exc.strerror}") from None
        write_json(self.block_file(index), sealed({**aggregates, RECORD_FILES: files, RUN: self._run}))
        self._done.add(index)
        if manifest:
            self.write_manifest()

    def write_manifest(self) -> None:
        self.manifest["blocks_done"] = sorted(self._done)
        self._write_manifest()

    def _write_manifest(self) -> None:
        write_json(self.manifest_path, self.manifest)

    def read_block(self, index: int) -> dict:
        """Block ``index``'s aggregates."""
        return block_aggregates(read_sealed(self.block_file(index)))

    def aggregates(self, blocks: int | None = None):
        """Each block's aggregates in block order (the first ``blocks`` only), read one at a time."""
        for i, _, _ in self.config.blocks()[:blocks]:
            yield self.read_block(i)

    def finish(self, summary: dict, timing: dict, until: dict | None = None) -> None:
        """Write the summary and mark the run complete (the manifest records the summary's
        size and checksum); a run stopped by --until (``until``, see sim.until.Stopping.record)
        reads as a run of the blocks it played. A finished run rerun plays nothing and keeps
        the timing of the play that finished it."""
        if self.manifest.get("complete") and not timing.get("games_played_now") and "timing" in self.manifest:
            timing = self.manifest["timing"]
        for folder in (self.path, self.path / "records", self.path / "blocks"):
            remove_dead_temporaries(folder)
        text = (json.dumps(summary, indent=1, sort_keys=True) + "\n").encode()
        path = self.path / "summary.json"
        # A finished run again: its summary, if damaged since, is said to be mended, once it is.
        problem = file_problem(path, self.manifest.get("summary")) if self.manifest.get("complete") else None
        write_atomic(path, text)
        if problem is not None:
            self._notify(f"{path} is written again from the blocks: {problem.why}")
        self.manifest.update(complete=True, timing=timing, blocks_done=sorted(self._done), summary=file_entry(text))
        if until is not None:
            self.manifest.update(until=until, games_played=until["games_played"], blocks=until["blocks_played"])
        self._write_manifest()

    def close(self) -> None:
        """Let another process write the folder."""
        self._lock.release()

    def __enter__(self) -> RunFolder:
        return self

    def __exit__(self, failed, *exc) -> None:
        if failed is not None and self._begun and not self._done:
            self._unmake()
        self.close()

    def _unmake(self) -> None:
        """Take away the run this process began and played nothing of (a block refused as
        too long, Ctrl-C while the first one played): its rerun, with other flags as the
        line may advise, then finds no other configuration's folder."""
        try:
            for sub in ("blocks", "records"):
                (self.path / sub).rmdir()  # only while empty: a block's file keeps the run as it is
            self.manifest_path.unlink()
        except OSError:
            pass


def block_aggregates(block: dict) -> dict:
    """A block file's aggregates, without its records' sizes and checksums."""
    return {k: v for k, v in block.items() if k not in (RECORD_FILES, RUN)}


def record_entries(block: dict, index: int, records: str, path: Path, run: str | None = None) -> dict:
    """{record file name: {bytes, blake2b}} of block file ``path``; a block file of a
    release before the checksums names its files (``records``: the run's mode) with None.
    A DamagedError where it holds no block's aggregates, which a resumed run would sum, or
    is another run's (``run``: this run's digest)."""
    entries = block_files(block, index, path, run)
    if entries is not None:
        return entries
    return {f"{kind}-{index:06d}.parquet": None for kind in RECORD_KINDS[records]}
