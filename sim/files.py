"""Reading the files a user names and those a command wrote, so that no path can make a
command wait forever or read without end: a named pipe nothing writes to, a device, a
folder where a file belongs. Importing this module is cheap (no numba)."""

from __future__ import annotations

import errno
import io
import os
import stat
import time


class _Prefixed(io.RawIOBase):
    """A pipe's first bytes, read already, then the rest of it."""

    def __init__(self, head: bytes, fd: int):
        self._head, self._fd = head, fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        return os.readv(self._fd, [buffer])

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


PIPE_WAIT = 1.0  # seconds a named pipe is given for a writer to open it


def open_input(path, encoding: str | None = None):
    """A file a user names, open for reading (text with ``encoding``, else bytes). A named
    pipe is read as a pipe, so ``--rules <(...)`` works; one that no program writes to
    is an OSError saying so, where a plain open() would wait for a writer forever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.set_blocking(fd, True)
            return open(fd, "r" if encoding else "rb", encoding=encoding)
        deadline = time.monotonic() + PIPE_WAIT
        while True:
            try:
                head = os.read(fd, 1 << 16)
            except BlockingIOError:  # a writer, nothing written yet
                head = None
            if head != b"":
                break
            if time.monotonic() > deadline:  # no writer came
                raise OSError(errno.ENXIO, "a named pipe that no program writes to")
            time.sleep(0.02)  # a writer opening it now finds this reader and comes in
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    stream = io.BufferedReader(_Prefixed(head or b"", fd))
    return io.TextIOWrapper(stream, encoding=encoding) if encoding else stream


def is_pipe(path) -> bool:
    """Whether ``path`` is a pipe (``<(...)``, a named pipe): it can be read only once."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_file(path) -> bytes:
    """The bytes of a file a command wrote (a run's JSON files): a FIFO, a device or a
    folder in its place is an OSError, never waited on or read without end."""
    with open(path, "rb", opener=_regular_only) as fh:
        return fh.read()


def _regular_only(path, flags):
    fd = os.open(path, flags | os.O_NONBLOCK)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        raise OSError(errno.EINVAL, "not a file (a pipe, a device or a socket)", str(path))
    os.set_blocking(fd, True)
    return fd
