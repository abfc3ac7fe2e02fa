"""Run folders: manifest, Parquet records one file per block, block aggregates, summary.

    runs/<name>/manifest.json      the configuration, versions and which blocks are done
    runs/<name>/records/deals-000003.parquet, games-000003.parquet
    runs/<name>/blocks/000003.json the block's aggregates and its records' sizes and
                                   checksums (written last: marks it done)
    runs/<name>/summary.json       statistics of the whole run
    runs/<name>/.lock              who writes the folder now (pid, host, start time)

Every file is written to a temporary name and renamed into place, so an interrupted run
(Ctrl-C, kill -9) leaves only whole files; rerunning the same command redoes the blocks
not marked done and ends with the same records as an uninterrupted run.

The folder checks itself: each block file holds the sizes and checksums of its records and
its own, the manifest the summary's, so a resume plays again any block whose files are
missing or damaged (a block is a pure function of the run: it comes out the same), and
readers name a damaged file instead of reading it. One process writes a folder at a time
(``FolderLock``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import socket
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import sim
from sim.cli import file_in_the_way


class RunError(ValueError):
    """A run folder that cannot be used for this run."""


class DamagedError(RunError):
    """A file of a run folder that is missing, cut short or altered: ``why``, in words."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"{path} {why}")
        self.path, self.why = path, why


RECORD_MODES = ("deals", "games", "none")
# The Parquet files each --records mode keeps.
RECORD_KINDS = {"deals": ("deals", "games"), "games": ("games",), "none": ()}
LOCK_NAME = ".lock"
# Keys a block file holds beside its aggregates: its records' {name: {bytes, blake2b}} and
# its own checksum. The manifest has none: any change to its configuration is refused as
# another run's, and the blocks it lists as done are checked by their own files.
RECORD_FILES, CHECKSUM = "record_files", "checksum"


class Blocks(Sequence):
    """(block index, first game, number of games) of a run's blocks, made only when asked
    for, as ``range`` makes its numbers: a run of 2**53 games has too many blocks to list.
    Slices are Blocks too."""

    def __init__(self, games: int, block_size: int, indices: range | None = None):
        self.games, self.block_size = games, block_size
        self.indices = range(-(-games // block_size)) if indices is None else indices

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return Blocks(self.games, self.block_size, self.indices[k])
        index = self.indices[k]
        first = index * self.block_size
        return index, first, min(self.block_size, self.games - first)


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

    def blocks(self) -> Blocks:
        """(block index, first game, number of games) of every block, as a lazy sequence."""
        return Blocks(self.games, self.block_size)

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


# --- Checksums ---------------------------------------------------------------------------------

def digest(data) -> str:
    """The checksum of some bytes. BLAKE2b: a cryptographic hash, so no damage slips through
    by chance, and on these machines faster than SHA-256 (about 1 GB/s against 0.75)."""
    hasher = _hasher()
    hasher.update(data)
    return hasher.hexdigest()


def _hasher():
    return hashlib.blake2b(digest_size=32)


def file_entry(data) -> dict:
    return {"bytes": len(data), "blake2b": digest(data)}


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def sealed(obj: dict) -> dict:
    """``obj`` with the checksum of its own content, so a JSON file checks itself."""
    body = {k: v for k, v in obj.items() if k != CHECKSUM}
    return dict(body, **{CHECKSUM: digest(_canonical(body))})


def read_sealed(path: Path, unreadable: str = "is unreadable") -> dict:
    """A JSON object written ``sealed`` (or by an older release, without a checksum), its
    checksum checked and removed; DamagedError naming the file and what is wrong, in the
    words ``unreadable`` where it cannot be read as an object."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DamagedError(path, "is missing") from None
    except OSError as exc:
        raise DamagedError(path, f"cannot be read ({exc.strerror})") from None
    if not data:
        raise DamagedError(path, f"{unreadable} (empty)")
    try:
        obj = json.loads(data)
    except ValueError:
        raise DamagedError(path, f"{unreadable} (not whole JSON: cut short or altered)") from None
    if not isinstance(obj, dict):
        raise DamagedError(path, f"{unreadable} (not a JSON object)")
    if CHECKSUM in obj:
        expected = obj.pop(CHECKSUM)
        if digest(_canonical(obj)) != expected:
            raise DamagedError(path, "is damaged (its checksum does not match its content)")
    return obj


def file_problem(path: Path, entry: dict | None) -> DamagedError | None:
    """Why ``path`` is not the file ``entry`` ({bytes, blake2b}) records (None: a file of
    a release before the checksums, which need only exist), or None when it is."""
    try:
        size = path.stat().st_size
        if entry is None:
            return None
        if size != entry["bytes"]:
            return DamagedError(path, f"is {'empty' if size == 0 else 'damaged'} ({size:,} bytes, "
                                      f"{entry['bytes']:,} written)")
        with open(path, "rb") as fh:
            actual = hashlib.file_digest(fh, _hasher).hexdigest()
    except FileNotFoundError:
        return DamagedError(path, "is missing")
    except OSError as exc:
        return DamagedError(path, f"cannot be read ({exc.strerror})")
    return None if actual == entry["blake2b"] else DamagedError(path, "is damaged (its checksum does not match)")


# --- Writing -----------------------------------------------------------------------------------

_HOST = socket.gethostname().replace(".", "_")
TEMPORARY = re.compile(r"\..+\.(?P<host>[^.]+)-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")  # names ``temporary`` makes


def temporary(path: Path) -> Path:
    """A temporary name beside ``path`` that names its writer (host and pid) and is unique,
    so a process only ever removes its own temporaries, or those of dead processes."""
    return path.with_name(f".{path.name}.{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` into ``path``, whole or not at all; RunError naming the path on any OSError
    (read-only folder, full disk, too long a name), the old file left as it was."""
    tmp = temporary(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise RunError(f"cannot write {path}: {exc.strerror or exc}") from None


def _remove(tmp: Path) -> None:
    try:
        tmp.unlink(missing_ok=True)
    except OSError:
        pass  # a folder that refuses the write may refuse this too; the name says it is ours


def write_json(path: Path, obj) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def write_records(path: Path, index: int, tables: dict) -> dict:
    """A block's Parquet files ({kind: table}), each written whole under a temporary name
    and renamed into place; their {file name: {bytes, blake2b}}. Any process may call this:
    two processes writing the same (identical) block never mix their bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    entries = {}
    for kind, table in tables.items():
        target = Path(path) / "records" / f"{kind}-{index:06d}.parquet"
        sink = pa.BufferOutputStream()
        # Min/max statistics for the numeric columns only: a categorical column's names span
        # nearly the same range in every block, so their bounds would skip next to nothing,
        # and they cost a sixth of the write.
        numeric = [f.name for f in table.schema if not pa.types.is_dictionary(f.type)]
        # Where a row lies, without dictionaries: ``game`` counts up row by row, stored as
        # differences (a fortieth of its dictionary's bytes); ``deal`` and ``dealer`` count
        # and cycle, plain and compressed (no more bytes). Each in half the time or less.
        plain = ("game", "deal", "dealer")
        pq.write_table(table, sink, compression="zstd", write_statistics=numeric,
                       use_dictionary=[name for name in table.column_names if name not in plain],
                       column_encoding={"game": "DELTA_BINARY_PACKED"} if "game" in table.column_names else None)
        data = memoryview(sink.getvalue())
        entries[target.name] = file_entry(data)
        tmp = temporary(target)
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except OSError as exc:
            _remove(tmp)
            raise RunError(f"cannot write {target}: {exc.strerror or exc}") from None
    return entries


def remove_dead_temporaries(folder: Path) -> None:
    """Remove the temporaries of writers on this host that are gone (kill -9, a lost
    worker); a living process's are left alone, whoever it is."""
    for stray in folder.glob(".*.tmp"):
        writer = TEMPORARY.fullmatch(stray.name)
        if writer and writer["host"] == _HOST and not _alive(int(writer["pid"])):
            _remove(stray)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


# --- One writer per folder ---------------------------------------------------------------------

class FolderLock:
    """An exclusive lock on ``folder`` for one writer, held until ``release()``: an flock on
    its ``.lock`` file, which the OS releases when the process ends in any way (kill -9
    leaves no stale lock, only a file the next writer takes over). The file names the
    holder, for the one line a second writer ends with, and is removed on release; so is the
    folder, when ``made`` says the lock's command made it and it is still empty (a command
    that ends before writing anything leaves nothing behind)."""

    def __init__(self, folder: Path, what: str, made: bool = False):
        self.path, self._made = folder / LOCK_NAME, made
        while True:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise RunError(f"cannot write in {folder}: {exc.strerror}") from None
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(self._fd, 400, 0).decode("utf-8", "replace").strip() or "a process starting now"
                os.close(self._fd)
                raise RunError(f"{folder} is being written by another {what} ({holder}); "
                               "wait for it to end, or use another --out") from None
            if self._is_current():
                break
            os.close(self._fd)  # its holder removed that file as we opened it: take the one now there
        stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"pid {os.getpid()} on {socket.gethostname()}, since {stamp}\n".encode(), 0)
        except OSError as exc:
            self.release()
            raise RunError(f"cannot write in {folder}: {exc.strerror}") from None

    def _is_current(self) -> bool:
        """Whether the file locked is still the one at the lock's path."""
        try:
            return os.stat(self.path).st_ino == os.fstat(self._fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is not None:
            try:
                self.path.unlink()  # while still locked, so no one takes a file about to go
            except OSError:
                pass  # a read-only folder keeps it; the next writer takes it over
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None
            if self._made:
                try:
                    self.path.parent.rmdir()  # only while empty: another writer's lock keeps it
                except OSError:
                    pass

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def listing(folder: Path) -> set[str] | None:
    """The names in ``folder`` but its lock file and the temporaries of writers stopped
    mid-write; None when it does not exist. RunError on a path that cannot be a folder (a
    file, too long a name)."""
    try:
        return {name for name in os.listdir(folder) if name != LOCK_NAME and not TEMPORARY.fullmatch(name)}
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        in_the_way = file_in_the_way(folder)
        if in_the_way == folder:
            raise RunError(f"output folder {folder} is a file") from None
        raise RunError(f"cannot use output folder {folder}: {in_the_way or 'a folder above it'} is a file, "
                       f"not a folder") from None
    except OSError as exc:
        raise RunError(f"cannot use output folder {folder}: {exc.strerror}") from None


def claim(folder: Path, owns, what: str) -> FolderLock:
    """``folder``, made and locked for a command that writes its ``what`` there: when it is
    new, empty, or ``owns(folder, names)`` recognises it as its own; a RunError in one
    line otherwise, the folder left as it was."""
    names = listing(folder)
    if names and not owns(folder, names):
        raise RunError(f"output folder {folder} is not empty and holds no {what}; use another --out")
    made = not folder.exists()
    make_folder(folder)
    return FolderLock(folder, what, made)


def holds_runs(folder: Path, names, pattern: str, result: str, files: tuple[str, ...] = ()) -> bool:
    """Whether ``folder``'s ``names`` are only run folders named as ``pattern`` (a regex),
    the command's ``result`` (JSON) and other ``files``, with at least one run folder or a
    readable result: a folder that command made."""
    runs = [name for name in names if re.fullmatch(pattern, name) and (folder / name / "manifest.json").is_file()]
    if set(names) - set(runs) - {result, *files}:
        return False
    try:
        return bool(runs) or isinstance(json.loads((folder / result).read_text()), dict)
    except (OSError, ValueError):
        return False


def make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create output folder {folder}: {exc.strerror}") from None


# --- A run folder ------------------------------------------------------------------------------

def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


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
        self._notify = notify or _say
        try:
            str(self.path).encode("utf-8")
        except UnicodeEncodeError:
            raise RunError(f"output folder name {str(self.path)!a} is not UTF-8 (Parquet files need one)") from None
        # Checked before the lock file is made in the folder, and again once it is locked.
        names = listing(self.path)
        if names and "manifest.json" not in names:
            raise RunError(f"output folder {self.path} is not empty and is not a run folder")
        if names:
            self._read_manifest(config.identity())
        make_folder(self.path)
        self._lock = FolderLock(self.path, "run")
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
            self.manifest = {"config": identity, "package_version": sim.__version__,
                             "blocks": len(self.config.blocks()), "blocks_done": [], "complete": False}
            self._write_manifest()
        for sub in ("records", "blocks"):  # made after the manifest: a folder with them is a run's
            make_folder(self.path / sub)
        self._done = self._verified()
        if self.manifest.get("complete") and len(self._done) < len(self.manifest["blocks_done"]):
            self.manifest["complete"] = False  # until the blocks played again are back
            self.write_manifest()

    def _read_manifest(self, identity: dict) -> dict:
        try:
            manifest = read_manifest(self.path)
            theirs = manifest["config"]
            manifest["blocks_done"]  # noqa: B018 - a required key
        except KeyError:
            raise RunError(f"{self.manifest_path} is unreadable or not a run manifest (no blocks_done)") from None
        if identity != theirs:
            differ = sorted(k for k in set(identity) | set(theirs) if identity.get(k) != theirs.get(k))
            raise RunError(f"output folder {self.path} holds a run with another configuration "
                           f"(differs in: {', '.join(differ)}); use another --out")
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
            else:
                self._notify(f"block {index} is played again: {problem}")
        return done

    def block_problem(self, index: int) -> DamagedError | None:
        """What is missing or damaged in block ``index``, or None."""
        try:
            entries = record_entries(read_sealed(self.block_file(index)), index, self.config.records)
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
        write_json(self.block_file(index), sealed({**aggregates, RECORD_FILES: files}))
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
        reads as a run of the blocks it played."""
        for folder in (self.path, self.path / "records", self.path / "blocks"):
            remove_dead_temporaries(folder)
        text = (json.dumps(summary, indent=1, sort_keys=True) + "\n").encode()
        write_atomic(self.path / "summary.json", text)
        self.manifest.update(complete=True, timing=timing, blocks_done=sorted(self._done), summary=file_entry(text))
        if until is not None:
            self.manifest.update(until=until, games_played=until["games_played"], blocks=until["blocks_played"])
        self._write_manifest()

    def close(self) -> None:
        """Let another process write the folder."""
        self._lock.release()

    def __enter__(self) -> RunFolder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def block_aggregates(block: dict) -> dict:
    """A block file's aggregates, without its records' sizes and checksums."""
    return {k: v for k, v in block.items() if k != RECORD_FILES}


def record_entries(block: dict, index: int, records: str) -> dict:
    """{record file name: {bytes, blake2b}} of a block file; a block file of a release before
    the checksums names its files (``records``: the run's mode) with None."""
    if RECORD_FILES in block:
        return block[RECORD_FILES]
    return {f"{kind}-{index:06d}.parquet": None for kind in RECORD_KINDS[records]}


# --- Reading a finished run --------------------------------------------------------------------

def read_manifest(path: Path) -> dict:
    """A run folder's manifest, checked; RunError in one line naming what is wrong."""
    file = Path(path) / "manifest.json"
    manifest = read_sealed(file, "is unreadable or not a run manifest")
    if not isinstance(manifest.get("config"), dict):
        raise RunError(f"{file} is unreadable or not a run manifest (no config)")
    return manifest


def finished_manifest(path: Path) -> dict:
    """The manifest of a finished run folder, checked as the commands that read runs need it
    (game, seed, games, block size, records, blocks): a RunError in one line naming what is
    wrong, from a folder that is missing or none to a run not yet finished."""
    from sim.games import GAMES

    path = Path(path)
    try:
        if not path.exists():
            raise RunError(f"{path} does not exist")
        if not path.is_dir():
            raise RunError(f"{path} is not a folder")
        found = (path / "manifest.json").is_file()
    except OSError as exc:  # a name the system cannot take, say
        raise RunError(f"{path} cannot be read as a run folder: {exc.strerror}") from None
    if not found:
        raise RunError(f"{path} is not a run folder (no manifest.json)")
    manifest = read_manifest(path)
    try:
        config = manifest["config"]
        game = config["game"]
        config["seed"], config["games"], config["block_size"], config["records"]
    except (KeyError, TypeError):
        raise RunError(f"{path}/manifest.json is unreadable or not a run manifest") from None
    if not isinstance(game, str) or game not in GAMES:
        raise RunError(f"{path}/manifest.json names an unknown game '{game}'")
    if not manifest.get("complete"):
        done = len(manifest.get("blocks_done") or ())
        raise RunError(f"{path} holds an unfinished run ({done} of {manifest.get('blocks', '?')} blocks done); "
                       "rerun its command to finish it")
    problem = file_problem(path / "summary.json", manifest.get("summary"))
    if problem:  # finished, then damaged: name the file
        raise problem
    return manifest


def read_summary(path: Path, manifest: dict) -> dict:
    """A finished run's summary, checked against the manifest's record of it."""
    file = Path(path) / "summary.json"
    problem = file_problem(file, manifest.get("summary"))
    if problem:
        raise problem
    try:
        return json.loads(file.read_text())
    except (OSError, ValueError):
        raise DamagedError(file, "is unreadable") from None


def check_records(path: Path, files) -> None:
    """DamagedError naming the first of a finished run's record ``files`` that is missing
    or is not what its block file records."""
    path = Path(path)
    for file in map(Path, files):
        kind, index = file.stem.rsplit("-", 1)
        block = read_sealed(path / "blocks" / f"{index}.json")
        problem = file_problem(file, block.get(RECORD_FILES, {}).get(file.name))
        if problem:
            raise problem


def load_records(path: str | Path, kind: str = "deals", columns=None, filter=None):
    """A run's deal or game records as one pandas DataFrame, in game order.

    Block file by block file, only ``columns`` (all when None) are read, and only the rows
    that ``filter`` keeps: a pyarrow filter as ``pyarrow.parquet.read_table`` takes it, an
    expression such as ``pc.field("level") >= 3`` (``import pyarrow.compute as pc``) or a
    list of tuples such as ``[("contract", "!=", "pass")]``; it may name columns not read.
    Every file is checked against its block's checksum first (DamagedError names it).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest = read_manifest(Path(path))
    if kind not in RECORD_KINDS.get(manifest["config"].get("records"), ()):
        raise RunError(f"{path} has no {kind} records (was it run with --records {kind}?)")
    # Every block's file, so a missing one is named, never silently left out.
    files = [Path(path) / "records" / f"{kind}-{i:06d}.parquet" for i in range(int(manifest.get("blocks", 0)))]
    check_records(path, files)
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
