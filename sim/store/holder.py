"""Who holds a run folder's lock: the flock a writer takes on its ``.lock`` file and the
holder that file names, looked at without waiting (the lock itself is sim.store.lock's)."""

from __future__ import annotations

import fcntl
import os
import stat
import time
from pathlib import Path

from sim.store.config import LOCK_NAME


LOCK_TRIES = 5  # a lock taken 5 ms apart: a reader's look at it (writer_of) lasts less


def locked(fd: int, kind: int, tries: int = 1) -> bool:
    """Whether ``fd``'s flock of ``kind`` was taken, without waiting beyond ``tries``."""
    for attempt in range(tries):
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except OSError:
            if attempt + 1 < tries:
                time.sleep(0.005)
    return False


def holder_of(fd: int) -> str:
    """The holder a lock file names ("run: pid 12 on host, since ..."), as its writer put it."""
    return os.pread(fd, 400, 0).decode("utf-8", "replace").strip() or "a process starting now"


def writer_of(folder: Path) -> str | None:
    """Who holds ``folder``'s lock now ("run: pid 12 on host, since ..."), or None where no
    process does: a reader tells a run still being written from one that stopped. Nothing is
    made or written; the shared lock it takes to look lasts a moment, and a writer starting
    then tries again (LOCK_TRIES)."""
    try:
        fd = os.open(Path(folder) / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        if not locked(fd, fcntl.LOCK_SH):
            return holder_of(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
