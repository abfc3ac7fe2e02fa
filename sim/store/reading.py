"""Reading a finished run: its manifest, summary and records, each checked against the
checksums it was written with."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from sim.files import read_file
from sim.store.checksums import file_problem, read_sealed, run_digest
from sim.store.config import RUN, SETTING_FOLDER, STRATUM_FOLDER, DamagedError, RECORD_FILES, RECORD_KINDS, RunError
from sim.store.holder import writer_of


MAX_GAMES = 2**53  # as sim.run counts them (a float holds every whole number up to here)


def _whole(value, low: int, high: int = MAX_GAMES) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _amount(value, nullable: bool = False) -> bool:
    """A finite number of at least 0 (None too where ``nullable``)."""
    if value is None:
        return nullable
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")


def _until_problem(until, games: int, blocks: int) -> bool:
    """Whether ``until`` is not what a run stopped by --until records (sim.until)."""
    return not (isinstance(until, dict) and isinstance(until.get("metric"), str) and _amount(until.get("half_width"))
                and isinstance(until.get("reached"), bool) and _amount(until.get("achieved_half_width"), True)
                and _whole(until.get("games_played"), 1, games) and _whole(until.get("blocks_played"), 1, blocks))


def _timing_problem(timing) -> bool:
    """Whether ``timing`` is not what a run's last session records (sim.api)."""
    return not (isinstance(timing, dict) and _amount(timing.get("seconds"), True)
                and _whole(timing.get("games_played_now", 0), 0) and _amount(timing.get("games_per_second"), True)
                and isinstance(timing.get("compiled", False), bool) and _amount(timing.get("compile_seconds"), True)
                and isinstance(timing.get("cluster", {}), dict))  # the cluster's description (sim.cluster)


def _blocks_done_fit(manifest: dict, blocks: int | None) -> bool:
    """Whether the manifest's ``blocks_done`` lists blocks of the run (below ``blocks``, the
    configuration's count), each once, and, where it is ``complete``, every block its own
    ``blocks`` field counts (a run stopped by --until: those it played). A manifest without
    the list (readers take it as empty) is not held to that."""
    done = manifest.get("blocks_done", [])
    if not isinstance(done, list) or not all(_whole(i, 0, (blocks or 1) - 1) for i in done):
        return False
    if len(set(done)) < len(done):
        return False
    counted = manifest.get("blocks")  # distinct blocks listed below it: all of them, or some are missing
    return not ("blocks_done" in manifest and manifest.get("complete") is True and _whole(counted, 0)
                and sum(i < counted for i in done) < counted)


def manifest_problem(manifest: dict) -> str | None:
    """What makes ``manifest`` no run manifest this release wrote (a field missing, of the
    wrong type or out of range: one edited by hand, say), or None. The fields every reader
    trusts are checked here once, so none of them meets a value it cannot use."""
    config = manifest.get("config")
    if not isinstance(config, dict):
        return "no config"
    games, size = config.get("games"), config.get("block_size")
    blocks = -(-games // size) if _whole(games, 1) and _whole(size, 1) else None  # what the config plays
    checks = {"game": isinstance(config.get("game"), str),
              "seed": _whole(config.get("seed"), 0, 2**64 - 1),
              "games": _whole(games, 1),
              "block_size": _whole(size, 1),
              "records": isinstance(config.get("records"), str) and config["records"] in RECORD_KINDS,
              "rules_version": _whole(config.get("rules_version", 1), 1),
              "rules": isinstance(config.get("rules", {}), dict),
              "policies": isinstance(config.get("policies", []), list)
              and all(isinstance(name, str) for name in config.get("policies", [])),
              # a run stopped by --until reads as one of the blocks it played
              "blocks": blocks is not None and _whole(manifest.get("blocks"),
                                                      0 if "until" in manifest else blocks, blocks),
              "blocks_done": _blocks_done_fit(manifest, blocks),
              "complete": isinstance(manifest.get("complete", False), bool),
              "summary": manifest.get("summary") is None or (
                  isinstance(manifest["summary"], dict) and _whole(manifest["summary"].get("bytes"), 0, 2**63)
                  and isinstance(manifest["summary"].get("blake2b"), str)),
              "games_played": blocks is not None and _whole(manifest.get("games_played", games), 1, games),
              "until": blocks is None or "until" not in manifest or not _until_problem(manifest["until"], games, blocks),
              "timing": not _timing_problem(manifest.get("timing", {}))}
    wrong = [name for name, ok in checks.items() if not ok]
    if wrong[:1] == ["blocks"] and blocks is not None:  # a count of its games' blocks, which do not agree
        return f"blocks is missing or does not fit games ({games}) in blocks of block_size ({size})"
    return f"{wrong[0]} is missing or out of range" if wrong else None


def check_utf8_name(path, what: str) -> None:
    """A RunError where ``path`` is not UTF-8: pyarrow fails on every record file of such a
    folder, deep inside (a name in Latin-1 bytes, say)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise RunError(f"{what} name {str(path)!a} is not UTF-8 (Parquet files need one)") from None


def read_manifest(path: Path, played_by: bool = True) -> dict:
    """A run folder's manifest, checked (``manifest_problem``) and, for its readers
    (``played_by``), held against its first block (``check_played_by``); RunError in one line
    naming what is wrong. A run resumed leaves the blocks to its own checks: it names a
    configuration of another run, and plays again a block of another."""
    check_utf8_name(path, "run folder")
    file = Path(path) / "manifest.json"
    manifest = read_sealed(file, "is unreadable or not a run manifest")
    problem = manifest_problem(manifest)
    if problem:
        raise RunError(f"{file} is unreadable or not a run manifest ({problem})")
    if played_by:
        check_played_by(Path(path), manifest)
    return manifest


# The folders other commands make, by the file that marks each: what to say of one given
# where a run folder is due.
OTHER_FOLDERS = (("sweep.json", "a sweep's folder: the run folder of each setting is inside it"),
                 ("strata.json", "a stratified run's folder: the run folder of each stratum is inside it"),
                 ("multilevel.json", "a multilevel folder: it keeps each level's values per deal, no records"),
                 ("target.npz", "a multilevel folder: it keeps each level's values per deal, no records"),
                 ("ladder.json", "a ladder's folder: its figures are in ladder.json and ladder.csv"))


# How a sweep's or a stratified run's folder not yet finished, without its sweep.json or
# strata.json, is known: by the names of its run folders.
UNFINISHED = ((SETTING_FOLDER, "sweep", "sweep.json"), (STRATUM_FOLDER, "stratified run", "strata.json"))


def not_a_run_folder(path: Path) -> str:
    """Why the folder ``path`` (without a manifest.json) is no run folder, naming the kind of
    folder it is where another command made it, finished or not; a file of these in the
    folder that is no file (a pipe, a device, a folder) is named as such."""
    for marker in dict.fromkeys(("manifest.json", *(m for m, _ in OTHER_FOLDERS), *(m for _, _, m in UNFINISHED))):
        if os.path.lexists(path / marker) and not (path / marker).is_file():
            return f"{path / marker} is not a file (a pipe, a device or a folder in its place)"
    for marker, what in OTHER_FOLDERS:
        try:
            if (path / marker).is_file():
                return f"{path} is not a run folder but {what}"
        except OSError:
            break
    try:
        inside = [p for p in path.iterdir() if (p / "manifest.json").is_file() or (p / "target.npz").is_file()]
    except OSError:
        inside = []
    for pattern, what, marker in UNFINISHED:
        if inside and all(re.fullmatch(pattern, p.name) for p in inside):
            return (f"{path} is not a run folder but an unfinished {what}'s folder (no {marker} yet: it is still "
                    f"playing or was stopped; rerun its command to finish it, or name one of its run folders, such "
                    f"as {sorted(inside)[0]})")
    return f"{path} is not a run folder (no manifest.json)"


def check_run_folder(path: Path) -> None:
    """A RunError unless ``path`` is a folder holding a manifest.json: one that does not
    exist, a file, a name the system cannot take, or another command's folder, in words."""
    try:
        if not path.exists():
            raise RunError(f"{path} does not exist")
        if not path.is_dir():
            raise RunError(f"{path} is not a folder")
        found = (path / "manifest.json").is_file()
    except OSError as exc:  # a name the system cannot take, say
        raise RunError(f"{path} cannot be read as a run folder: {exc.strerror}") from None
    if not found:
        raise RunError(not_a_run_folder(path))


def finished_manifest(path: Path) -> dict:
    """The manifest of a finished run folder, checked as the commands that read runs need it
    (game, seed, games, block size, records, blocks): a RunError in one line naming what is
    wrong, from a folder that is missing or none to a run not yet finished."""
    from sim.games import GAMES

    path = Path(path)
    check_run_folder(path)
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
        writer = writer_of(path)
        if writer:
            raise RunError(f"{path} holds a run still being written ({done} of {manifest.get('blocks', '?')} "
                           f"blocks done; {writer}): wait for it to end")
        raise RunError(f"{path} holds an unfinished run ({done} of {manifest.get('blocks', '?')} blocks done); "
                       "rerun its command to finish it")
    problem = file_problem(path / "summary.json", manifest.get("summary"))
    if problem:  # finished, then damaged: name the file
        raise problem
    return manifest


def check_played_by(path: Path, manifest: dict, blocks: int = 1) -> None:
    """A RunError where the manifest's configuration is not the one its first ``blocks``
    blocks done were all played by (the digest each block file of this release carries): a
    configuration edited by hand, which the readers would otherwise take as the run's rules,
    policies and dealing. Readers look at the first block; a resumed run at the first three,
    refusing where at least two agree against the manifest, so that one block of another
    run copied in is played again rather than the whole folder refused. A block file
    missing or damaged is left to the reader that needs it to name."""
    done = sorted(i for i in manifest.get("blocks_done") or () if isinstance(i, int))[:blocks]
    played = set()
    for index in done:
        try:
            played.add(read_sealed(path / "blocks" / f"{index:06d}.json").get(RUN))
        except DamagedError:
            return
    if len(done) >= min(blocks, 2) and len(played) == 1 and None not in played \
            and played != {run_digest(manifest["config"])}:
        raise RunError(f"{path}/manifest.json does not hold the configuration its run was played by "
                       f"({path / 'blocks' / f'{done[0]:06d}.json'} holds another): one of them was edited or "
                       f"copied in")


def read_summary(path: Path, manifest: dict) -> dict:
    """A finished run's summary, checked against the manifest's record of it."""
    file = Path(path) / "summary.json"
    problem = file_problem(file, manifest.get("summary"))
    if problem:
        raise problem
    try:
        return json.loads(read_file(file))
    except (OSError, ValueError):
        raise DamagedError(file, "is unreadable") from None


def block_files(block: dict, index: int, path: Path, run: str | None = None) -> dict | None:
    """The record files block file ``path`` (block ``index``) names, {name: {bytes,
    blake2b}}; None for a block file of a release before the checksums. A DamagedError
    where it is another block's file, copied over this one, or another run's (``run``:
    this run's digest, which the block files of this release carry), or holds no block's
    aggregates (emptied: every release's block file held them)."""
    if run is not None and block.get(RUN, run) != run:
        raise DamagedError(path, "is another run's block (its configuration differs): not this run's file")
    if RECORD_FILES not in block:
        if "dealer_advantage" not in block:
            raise DamagedError(path, "holds no block's aggregates")
        return None
    names = block[RECORD_FILES]
    if not isinstance(names, dict) or any(not str(n).endswith(f"-{index:06d}.parquet") for n in names):
        raise DamagedError(path, "names the records of another block: it is not this block's file")
    return names


def read_block(path: Path, index: int, run: str) -> dict:
    """Block ``index``'s file of the run folder ``path``, checked: whole by its own checksum,
    one block's, and this run's (``run``: the digest of its configuration, ``run_digest``)."""
    block_path = path / "blocks" / f"{index:06d}.json"
    block = read_sealed(block_path)
    block_files(block, index, block_path, run)
    return block


def check_records(path: Path, files, run: str | None = None) -> None:
    """DamagedError naming the first of a finished run's record ``files`` that is missing,
    is not what its block file records, or whose block file is another run's (``run``:
    this run's digest; None: read from its manifest)."""
    path = Path(path)
    files = list(map(Path, files))
    if run is None and files:
        run = run_digest(read_manifest(path)["config"])
    for file in files:
        index = int(file.stem.rsplit("-", 1)[1])
        block_path = path / "blocks" / f"{index:06d}.json"
        entries = block_files(read_sealed(block_path), index, block_path, run) or {}
        problem = file_problem(file, entries.get(file.name))
        if problem:
            raise problem
        if entries.get(file.name) is None:  # a release before the checksums: the file is read to be sure
            _readable_parquet(file)


def _readable_parquet(file: Path) -> None:
    """A DamagedError where ``file`` is not Parquet that can be read (cut short, written over)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(file)
    except (pa.ArrowException, OSError) as exc:
        raise DamagedError(file, f"is not readable Parquet ({str(exc).splitlines()[0] if str(exc) else exc})") \
            from None


def run_path(path) -> Path:
    """``path`` as a Path: a RunError naming what was given when it is no path at all."""
    if not isinstance(path, (str, os.PathLike)):
        raise RunError(f"a run folder is a path (str or pathlib.Path), got {path!r:.80}")
    if isinstance(path, str) and not path.strip():  # Path("") is "." itself: whatever folder the program is in
        raise RunError("an empty path names no run folder")
    return Path(path)


FILTER_OPERATORS = ("=", "==", "!=", "<", ">", "<=", ">=", "in", "not in")  # those pyarrow's filters take


def _filter_problem(filter, schema) -> str | None:
    """What is wrong with a list-of-tuples ``filter`` over the records of ``schema``, in the
    project's words (pyarrow's name its own insides: "not enough values to unpack", "no
    kernel matching input types (int8, string)"); None for a good one or an expression,
    which pyarrow checks."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if filter is None or isinstance(filter, pc.Expression):
        return None
    form = "a pyarrow expression or a list of (column, op, value) tuples (a list of such lists: any of them)"
    sequence = (list, tuple)  # lists and tuples alike, as pyarrow takes them (a JSON filter's are lists)
    if not isinstance(filter, sequence) or not filter:
        return f"a filter is {form}"
    groups = filter if all(isinstance(g, sequence) and all(isinstance(t, sequence) for t in g) for g in filter) \
        else [filter]
    for term in (term for group in groups for term in (group or [None])):
        if not isinstance(term, sequence) or len(term) != 3:
            return f"{term!r:.80} is no (column, op, value) tuple: a filter is {form}"
        column, op, value = term
        if not isinstance(column, str) or column not in schema.names:
            return f"no column {column!r:.80} in the records"
        if op not in FILTER_OPERATORS:
            return f"{op!r:.40} is no operator of a filter ({', '.join(FILTER_OPERATORS)})"
        if op in ("in", "not in") and (isinstance(value, (str, bytes)) or not hasattr(value, "__iter__")):
            return f"'{op}' takes a list of values, got {value!r:.80}"
        values = list(value) if op in ("in", "not in") else [value]
        kind = schema.field(column).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        holds, takes = (("true or false", (bool, np.bool_)) if pa.types.is_boolean(kind) else
                        ("text", str) if pa.types.is_string(kind) else ("numbers", (int, float, np.number)))
        if any(not isinstance(v, takes) or isinstance(v, bool) and holds != "true or false" for v in values):
            return f"column '{column}' holds {holds}, compared with {value!r:.80}"
        if any(isinstance(v, int) and not -2**63 <= v < 2**63 for v in values):  # pyarrow's "too large"
            return f"{value!r:.80} is beyond every value of column '{column}' (64-bit whole numbers)"
    return None


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

    if isinstance(filter, str):  # pyarrow would unpack the text as tuples: a message of its own insides
        raise RunError(f"filter must be a pyarrow expression, e.g. pc.field(\"level\") >= 3, or a list of "
                       f"(column, op, value) tuples, not text: {filter!r}")
    if columns is not None:
        given = columns
        columns = [columns] if isinstance(columns, str) or not hasattr(columns, "__iter__") else list(columns)
        if not all(isinstance(c, str) for c in columns):
            raise RunError(f"columns must be a column's name or a list of names, got {given!r:.80}")
        if not columns:  # no column read, and pandas then gives no rows
            raise RunError("columns names no column: give a name or a list of names (None reads them all)")
    path = run_path(path)
    manifest = read_manifest(path)
    if kind not in RECORD_KINDS.get(manifest["config"].get("records"), ()):
        raise RunError(f"{path} has no {kind} records (was it run with --records {kind}?)")
    # Every block's file, so a missing one is named, never silently left out.
    files = [Path(path) / "records" / f"{kind}-{i:06d}.parquet" for i in range(int(manifest.get("blocks", 0)))]
    check_records(path, files, run_digest(manifest["config"]))
    schemas = [pq.read_schema(f).names for f in files]
    problem = _filter_problem(filter, pq.read_schema(files[-1]) if files else pa.schema([]))
    if problem:
        raise RunError(f"filter {filter!r:.200}: {problem}")
    if columns is not None:
        twice = next((c for i, c in enumerate(columns) if c in columns[:i]), None)
        if twice is not None:
            raise RunError(f"columns names '{twice}' twice")
        known = list(dict.fromkeys(name for names in reversed(schemas) for name in names))
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise RunError(f"no column '{unknown[0]}' in the {kind} records (columns: {', '.join(known)})")
    try:
        tables = [pq.read_table(f, columns=None if columns is None else [c for c in columns if c in names],
                                filters=filter) for f, names in zip(files, schemas)]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError, KeyError, IndexError,
            OverflowError) as exc:
        raise RunError(f"filter {filter!r} cannot be applied to the {kind} records: "
                       f"{str(exc).splitlines()[0]}") from None
    # A run resumed across a release that added a column: its older blocks read it as null.
    return pa.concat_tables(tables, promote_options="default").to_pandas()
