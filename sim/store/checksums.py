"""Checksums: each file's size and blake2b, a sealed JSON object that carries its own, and
what is wrong with a file that does not match them."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

from sim.files import read_file
from sim.store.config import CHECKSUM, RUN, DamagedError


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


def run_digest(config: dict) -> str:
    """The digest of a run's configuration (its manifest's ``config``), which each of its
    block files carries."""
    return digest(_canonical(config))


def sealed(obj: dict) -> dict:
    """``obj`` with the checksum of its own content, so a JSON file checks itself."""
    body = {k: v for k, v in obj.items() if k != CHECKSUM}
    return dict(body, **{CHECKSUM: digest(_canonical(body))})


def read_sealed(path: Path, unreadable: str = "is unreadable") -> dict:
    """A JSON object written ``sealed`` (or by an older release, without a checksum), its
    checksum checked and removed; DamagedError naming the file and what is wrong, in the
    words ``unreadable`` where it cannot be read as an object."""
    try:
        data = read_file(path)
    except FileNotFoundError:
        raise DamagedError(path, "is missing") from None
    except OSError as exc:
        raise DamagedError(path, f"cannot be read ({exc.strerror})") from None
    if not data:
        raise DamagedError(path, f"{unreadable} (empty)")
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to be one of ours
        raise DamagedError(path, f"{unreadable} (not whole JSON: cut short or altered)") from None
    if not isinstance(obj, dict):
        raise DamagedError(path, f"{unreadable} (not a JSON object)")
    if CHECKSUM in obj:
        expected = obj.pop(CHECKSUM)
        if digest(_canonical(obj)) != expected:
            raise DamagedError(path, "is damaged (its checksum does not match its content)")
    elif RUN in obj:  # the run's digest came after the checksums: this release wrote it, with one
        raise DamagedError(path, "is damaged (it has lost its checksum)")
    return obj


def file_problem(path: Path, entry: dict | None) -> DamagedError | None:
    """Why ``path`` is not the file ``entry`` ({bytes, blake2b}) records (None: a file of
    a release before the checksums, which need only exist), or None when it is."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            return DamagedError(path, "is not a file (a folder, a pipe or a device in its place)")
        size = status.st_size
        if entry is None:
            return None
        if size != entry["bytes"]:
            return DamagedError(path, f"is {'empty' if size == 0 else 'damaged'} ({size:,} bytes, "
                                      f"{entry['bytes']:,} written)")
        with open(path, "rb") as fh:
            actual = hashlib.file_digest(fh, _hasher).hexdigest()
    except FileNotFoundError:
        return DamagedError(path, "is missing")
    except NotADirectoryError:  # a file where the run's records or blocks folder goes
        return DamagedError(path.parent, "is not a folder (a file in its place)")
    except OSError as exc:
        return DamagedError(path, f"cannot be read ({exc.strerror})")
    return None if actual == entry["blake2b"] else DamagedError(path, "is damaged (its checksum does not match)")
