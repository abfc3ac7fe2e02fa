"""One writer per folder: an flock on its ``.lock`` file, and claiming a folder for a
command (new, empty, or recognised as its own)."""

from __future__ import annotations

import fcntl
import json
import os
import re
import socket
import stat
import time
from pathlib import Path

from sim.cli import file_in_the_way, make_folders, remove_made, why_not_made
from sim.files import read_file
from sim.store.config import LEVEL_FILES, LOCK_NAME, RunError
from sim.store.holder import LOCK_TRIES, holder_of, locked
from sim.store.writing import TEMPORARY, remove_dead_temporaries


def _not_a_lock(path: Path) -> str | None:
    """What stands at a lock's path instead of a file of its own (a link, a folder, a pipe,
    another name of a file), or None."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    mode = found.st_mode
    if stat.S_ISREG(mode) and found.st_nlink == 1:
        return None
    kind = ("a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode)
            else "a named pipe" if stat.S_ISFIFO(mode) else "another name of a file (a hard link)"
            if stat.S_ISREG(mode) else "a device or socket")
    return f"{path} is {kind}, not the lock file a command leaves: remove it, or use another --out"


def _times(folder: Path) -> tuple[int, int] | None:
    """``folder``'s access and modification times (ns), or None where it cannot be read."""
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return found.st_atime_ns, found.st_mtime_ns


def _entries(folder: Path) -> list | None:
    """The names in ``folder`` with their inodes: a file added, removed or renamed into place
    changes them, and with them the folder's own time; a temporary that came and went does
    not."""
    try:
        return sorted((e.name, e.inode()) for e in os.scandir(folder))
    except OSError:
        return None


class FolderLock:
    """An exclusive lock on ``folder`` for one writer, held until ``release()``: an flock on
    its ``.lock`` file, which the OS releases when the process ends in any way (kill -9
    leaves no stale lock, only a file the next writer takes over). The file names the
    holder, for the one line a second writer ends with, and is removed on release; so are
    the folders the lock's command made for it (``made``: the folder and those above it
    that were missing), each while it is still empty: a command that ends before writing
    anything leaves nothing behind, and an existing folder its times as they were."""

    def __init__(self, folder: Path, what: str, made=()):
        self.path, self._made = folder / LOCK_NAME, list(made)
        # Read before the lock file is made: what the folder held, then its times (a file added
        # between the two shows as a change), to restore at release where nothing else came or
        # went meanwhile, another writer's lock before this one included.
        fresh = not os.path.lexists(self.path)
        self._entries = _entries(folder) if fresh else None
        self._times = _times(folder) if fresh else None
        while True:
            try:  # never through a link, nor into a pipe or device: it would write on what it names
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
            except OSError as exc:
                where = f"cannot write {self.path}" if os.path.lexists(self.path) else f"cannot write in {folder}"
                raise RunError(_not_a_lock(self.path) or f"{where}: {exc.strerror}") from None
            opened = os.fstat(self._fd)
            if not stat.S_ISREG(opened.st_mode) or opened.st_nlink > 1:
                os.close(self._fd)
                raise RunError(_not_a_lock(self.path))
            if not locked(self._fd, fcntl.LOCK_EX, tries=LOCK_TRIES):
                holder = holder_of(self._fd)
                os.close(self._fd)
                kind, named, since = holder.partition(": ")  # "run: pid 12 on host, since ...", as written below
                if not named:
                    kind, since = "command", holder
                raise RunError(f"{folder} is being written by another {kind} ({since}); "
                               "wait for it to end, or use another --out") from None
            if self._is_current():
                break
            os.close(self._fd)  # its holder removed that file as we opened it: take the one now there
        stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{what}: pid {os.getpid()} on {socket.gethostname()}, since {stamp}\n".encode(), 0)
        except OSError as exc:
            self.release()
            raise RunError(f"cannot write in {folder}: {exc.strerror}") from None
        if self._entries is not None:
            held = _entries(folder)  # the lock file among them, as at release
            if held is None or [e for e in held if e[0] != LOCK_NAME] != self._entries:
                held = None  # another writer came and went before this lock was taken: its time stands
            self._entries = held

    def _is_current(self) -> bool:
        """Whether the file locked is still the one at the lock's path."""
        try:
            return os.stat(self.path).st_ino == os.fstat(self._fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is not None:
            folder = self.path.parent
            untouched = None not in (self._entries, self._times) and _entries(folder) == self._entries
            try:
                self.path.unlink()  # while still locked, so no one takes a file about to go
                if untouched:  # the lock file was all that came and went: the folder's times as before
                    os.utime(folder, ns=self._times)
            except OSError:
                pass  # a read-only folder keeps it; the next writer takes it over
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None
            remove_made(self._made)  # only while empty: another writer's lock keeps them

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
    line otherwise, the folder left as it was. Temporaries of writers gone mid-write (kill
    -9) are swept away."""
    names = listing(folder)
    if names and not owns(folder, names):
        raise RunError(f"output folder {folder} is not empty and holds no {what}; use another --out")
    lock = made_and_locked(folder, what)
    try:
        remove_dead_temporaries(folder)
    except BaseException:
        lock.release()  # and with it the folders made
        raise
    return lock


def made_and_locked(folder: Path, what: str) -> FolderLock:
    """``folder`` made (with the folders above it that are missing) and locked for a command
    that writes its ``what`` there; the folders made go again where the lock is not taken."""
    made = make_folder(folder)
    try:
        return FolderLock(folder, what, made)
    except BaseException:
        remove_made(made)
        raise


def lost_manifest(folder: Path) -> bool:
    """Whether ``folder`` holds a run's blocks or records but not its manifest.json (removed,
    or lost with a disk): a run that cannot say its configuration, so cannot be resumed. A
    ``blocks`` or ``records`` folder of other files (a user's) is no run's."""
    try:
        if (folder / "manifest.json").exists():
            return False
        return any(RUN_FILE.fullmatch(f"{sub}/{name}") for sub in ("blocks", "records") if (folder / sub).is_dir()
                   for name in os.listdir(folder / sub))
    except OSError:
        return False


# The files a run keeps in its blocks and records folders (a block's aggregates, its records).
RUN_FILE = re.compile(r"blocks/\d{6,}\.json|records/(deals|games)-\d{6,}\.parquet")


def holds_runs(folder: Path, names, pattern: str, result: str, files: tuple[str, ...] = ()) -> bool:
    """Whether ``folder``'s ``names`` are only run folders named as ``pattern`` (a regex; an
    empty one is a run killed as it began), the command's ``result`` (JSON) and other
    ``files``, with at least one run folder, a readable result or only begun runs: a folder
    that command made. Such a folder holding other files too is a RunError naming them."""
    runs = [name for name in names if re.fullmatch(pattern, name) and (folder / name / "manifest.json").is_file()]
    for name in sorted(names):
        if name not in runs and re.fullmatch(pattern, name) and lost_manifest(folder / name):
            raise RunError(f"{folder / name} holds a run's blocks but no manifest.json, so it cannot be resumed: "
                           f"remove that folder to play it again, or use another --out")
    try:
        ours = bool(runs) or isinstance(json.loads(read_file(folder / result)), dict)
    except (OSError, ValueError):
        ours = False
    begun = [name for name in names if re.fullmatch(pattern, name) and (folder / name).is_dir()
             and listing(folder / name) == set()]
    # Killed as its first run began (kill -9): nothing but that run's empty folder.
    ours = ours or bool(begun) and set(names) <= {*begun, result, *files}
    if ours:
        refuse_foreign(folder, set(names) - set(runs) - set(begun) - {result, *files})
    return ours


def holds_levels(folders: list[Path]) -> bool | None:
    """Whether ``folders`` (a sweep's settings, a stratified run's strata) are multilevel
    runs' folders, finished or begun: None where none holds a multilevel run's file
    (LEVEL_FILES: run folders, say); else whether each is a folder (an empty one: a run
    killed as it began, kill -9 leaving its lock). A stranger's file beside a level's is
    named by the run that resumes there."""
    held = [listing(f) if f.is_dir() else None for f in folders]
    if not any(re.fullmatch(LEVEL_FILES, n) for names in held for n in names or ()):
        return None
    return all(names is not None for names in held)


def refuse_foreign(folder: Path, others) -> None:
    """A RunError naming ``others``, files someone put in a command's own ``folder`` (it
    would resume there, and its readers take every file for its own)."""
    others = sorted(others)
    if others:
        raise RunError(f"output folder {folder} holds files this command did not write beside its own "
                       f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}): move them away, "
                       f"or use another --out")


def make_folder(folder: Path) -> list:
    """``folder`` and the folders above it that are missing, made: those made, the outermost
    first (``make_folders``), or a RunError naming why not."""
    try:
        return make_folders(folder)
    except OSError as exc:
        raise RunError(f"cannot create output folder {folder}: {why_not_made(folder, exc)}") from None
