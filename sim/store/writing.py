"""Whole files or none: every file is written to a temporary name and renamed into place,
and the temporaries a dead writer left are swept away."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import socket
import stat
import uuid
from pathlib import Path

from sim.store.checksums import file_entry
from sim.store.config import RunError

_HOST = socket.gethostname().replace(".", "_")
NAME_MAX = 255  # bytes in a file's name (Linux, macOS)
TEMPORARY = re.compile(r"\..+\.(?P<host>[^.]+)-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")  # names ``temporary`` makes


def temporary(path: Path) -> Path:
    """A temporary name beside ``path`` that names its writer (host and pid) and is unique,
    so a process only ever removes its own temporaries, or those of dead processes."""
    tail = f".{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    room = NAME_MAX - 1 - len(tail.encode())  # a name near the system's limit is cut short in its temporary's
    return path.with_name(f".{path.name.encode()[:room].decode(errors='ignore')}{tail}")


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` into ``path``, whole or not at all; RunError naming the path on any OSError
    (read-only folder, full disk, too long a name), the old file left as it was, and its
    temporary removed however the write ends. A file that already holds ``data`` (a
    command run again over its own output) is left as it is, its time included."""
    if _holds(path, data):
        return
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
    except BaseException:  # Ctrl-C mid-write: the old file stands, and no temporary is left
        _remove(tmp)
        raise


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a file of exactly the bytes ``data``."""
    try:
        found = os.lstat(path)
        if not stat.S_ISREG(found.st_mode) or found.st_size != len(data):
            return False
        with open(path, "rb") as fh:
            return fh.read(len(data) + 1) == data
    except OSError:
        return False


def _remove(tmp: Path) -> None:
    try:
        tmp.unlink(missing_ok=True)
    except OSError:
        pass  # a folder that refuses the write may refuse this too; the name says it is ours


def write_json(path: Path, obj) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def csv_safe(cell):
    """A CSV cell a spreadsheet shows as written: text from a user (a folder's name, a
    metric's) that begins with a formula's first character and is no number gets a leading
    apostrophe, so ``=1+2`` or ``@SUM(1)`` is never run when the table is opened."""
    if not isinstance(cell, str) or not cell.startswith(FORMULA_STARTS):
        return cell
    try:
        float(cell.replace(",", ""))
        return cell  # a signed number, such as +105.27
    except ValueError:
        return "'" + cell


def csv_bytes(header, rows) -> bytes:
    """A CSV table, its cells made safe to open in a spreadsheet (``csv_safe``)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([csv_safe(c) for c in header])
    writer.writerows([csv_safe(c) for c in row] for row in rows)
    return text.getvalue().encode()


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
        except BaseException:
            _remove(tmp)
            raise
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
