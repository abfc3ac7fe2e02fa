"""The files a command reads (rules and conditions files, in TOML) and the folder it writes:
each problem one line naming the path."""

from __future__ import annotations

import ast
import errno
import json
import os
import re

from sim.files import open_input


def read_toml(path, what: str, error: type) -> dict:
    """The tables of a TOML file; unreadable, non-UTF-8 or invalid TOML is an ``error``
    naming the ``what`` file ("rules", "conditions") in one line."""
    import tomllib

    try:
        with open_input(path) as fh:
            data = fh.read(MAX_TEXT_FILE + 1)  # never more: /dev/zero is a path too
    except OSError as exc:
        raise error(f"cannot read {what} file {path}: {exc.strerror}") from None
    if len(data) > MAX_TEXT_FILE:
        raise error(f"{what} file {path} is larger than {MAX_TEXT_FILE // 2**20} MiB: not a {what} file")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is read past
        return tomllib.loads(text)
    except UnicodeDecodeError:
        raise error(f"{what} file {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} file {path} is not valid TOML: {toml_problem(exc, text)}") from None
    except ValueError:  # Python reads no integer of more than 4,300 digits
        raise error(f"{what} file {path} {TOO_LONG}") from None
    except RecursionError:
        raise error(f"{what} file {path} {TOO_DEEP}") from None


def _table_twice(match) -> str:
    keys = ast.literal_eval(match.group(1))
    name = ".".join(k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k) for k in keys)
    return f"table [{name}] declared a second time"


def toml_problem(exc, text: str) -> str:
    """Python's TOML error in words, with the line it names: "Cannot overwrite a value" is a
    key or table given twice, "Cannot declare ('a', 'b') twice" the table [a.b]."""
    problem = str(exc).replace("Cannot overwrite a value", "a key or table given a second time")
    problem = re.sub(r"Cannot declare (\((?:(?:'[^']*'|\"[^\"]*\"),? ?)+\)) twice", _table_twice, problem)
    at = re.search(r"at line (\d+)", problem)
    lines = text.split("\n")  # TOML's lines: a form feed or U+2028 in a string is no line break
    if at and 1 <= int(at.group(1)) <= len(lines):
        problem += f": {lines[int(at.group(1)) - 1].strip()[:80]!r}"
    return problem


TOO_DEEP = "nests lists or tables too deeply to be read"  # past the recursion of Python's TOML reader
TOO_LONG = "holds a number of more digits than Python reads (4,300)"
MAX_TEXT_FILE = 2**20  # a rules or conditions file is a few kilobytes


def file_in_the_way(path):
    """The file at ``path`` (a Path) or above it, the nearest, that keeps a folder from being
    made there; None where there is none. mkdir would say only "Not a directory", or "File
    exists"."""
    try:
        return next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
    except OSError:  # a name the system cannot take (too long): mkdir says so
        return None


def shell_word(path) -> str:
    """A path as one word of a command to paste into a shell: quoted where it holds a space
    or a character the shell reads (a folder named ``a b;x`` would run ``x``)."""
    import shlex

    return shlex.quote(str(path))


def why_not_made(path, exc: OSError) -> str:
    """Why mkdir failed on ``path`` (a Path), in words: a link there or above it that leads
    nowhere, or round in a loop, is named with its target (mkdir says only "File exists")."""
    try:
        broken = next((p for p in (path, *path.parents) if p.is_symlink() and not p.exists()), None)
        if broken is not None:
            try:
                os.stat(broken)
            except OSError as err:
                if err.errno == errno.ELOOP:
                    return f"{broken} is a link to {os.readlink(broken)}, which leads back to it in a loop of links"
            return f"{broken} is a link to {os.readlink(broken)}, which does not exist"
    except OSError:
        pass
    if exc.errno == errno.EEXIST and os.path.lexists(path) and not path.is_dir():
        return "a file (or a pipe, a device) stands in its place"
    return exc.strerror or str(exc)


def make_folders(path, tries: int = 3) -> list:
    """``path`` made with the folders above it that are missing, as ``Path.mkdir(parents=True,
    exist_ok=True)`` makes them but one after another: pathlib's calls itself once per
    missing folder, a RecursionError a thousand folders deep. Returns the folders made (as
    absolute paths, the outermost first), for ``remove_made``. Where one cannot be made,
    those made before it go again before the OSError is raised; a folder above that another
    command removed meanwhile (its own, made and left empty) is looked for again, ``tries``
    times in all."""
    from pathlib import Path

    made = []
    try:
        for attempt in range(tries):
            missing = []
            folder = Path(path).absolute()
            while not folder.is_dir() and folder != folder.parent:
                missing.append(folder)
                folder = folder.parent
            try:
                for folder in reversed(missing):
                    try:
                        folder.mkdir()
                        made.append(folder)
                    except FileExistsError:
                        if not folder.is_dir():
                            raise
                return made
            except FileNotFoundError:
                if attempt == tries - 1:
                    raise
    except OSError:
        remove_made(made)
        raise


def remove_made(folders) -> None:
    """Remove the ``folders`` a command made (``make_folders``: the outermost first), the
    deepest first, each only while it is empty: one that holds anything, as another
    command's folder or lock file, stays, and so do the folders above it."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue  # removed from outside: the folders above it may still go
        except OSError:
            return


def claim_folder(out, owns, what: str, error: type):
    """``out`` (a Path), made, when a command may write its ``what`` there: new, empty, or
    one ``owns(out)`` recognises as its own; otherwise an ``error`` in one line."""
    in_the_way = file_in_the_way(out)
    if in_the_way == out:
        raise error(f"output folder {out} is a file")
    if in_the_way is not None:
        raise error(f"cannot use output folder {out}: {in_the_way} is a file, not a folder")
    if _is_folder(out) and not owns(out):
        raise error(f"output folder {out} is not empty and holds no {what}; use another --out")
    try:
        make_folders(out)
    except OSError as exc:
        raise error(f"cannot create output folder {out}: {why_not_made(out, exc)}") from None
    return out


def differing(mine: dict, theirs: dict, keys=None) -> list[str]:
    """The keys (``keys``, or every key of either, sorted) whose values differ between two
    identities of a command's output: the fields a refusal names."""
    keys = sorted(set(mine) | set(theirs)) if keys is None else keys
    return [k for k in keys if mine.get(k) != theirs.get(k)]


def refuse_another(out, what: str, mine: dict, theirs: dict, error: type, keys=None) -> None:
    """An ``error`` in one line when the folder ``out`` holds ``what`` (e.g. "a ladder") of
    another identity than ``mine``: its files would be written over or mixed with these."""
    differ = differing(mine, theirs, keys)
    if differ:
        raise error(f"output folder {out} holds {what} of another configuration (differs in: "
                    f"{', '.join(differ)}); use another --out")


def _is_folder(path) -> bool:
    """Whether ``path`` is a folder; not when the system cannot take its name."""
    try:
        return path.is_dir()
    except OSError:  # a name the system cannot take: mkdir says why
        return False


def quiet_matplotlib() -> None:
    """In a command (``python -m ...``), matplotlib says nothing of its own on stderr: where
    it cannot write its cache folder (an unwritable HOME) it uses a temporary one, and said
    so in two lines of warnings. A program that imports the package keeps its warnings."""
    import logging
    import sys

    argv = getattr(sys, "orig_argv", [])
    module = argv[argv.index("-m") + 1] if "-m" in argv[:-1] else ""
    if module.split(".")[0] in ("sim", "analysis", "benchmarks"):
        logging.getLogger("matplotlib").setLevel(logging.ERROR)
