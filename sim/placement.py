"""Where a command may write: not inside a folder whose own command resumes it only while
it holds that command's files (a multilevel folder, a sweep's folder, a stratified run's
folder), which a run, a sweep, a ladder or a report put there would make unresumable and
unreadable. Shared by every entry that writes (the commands ``sim.run``, ``sim.sweep``,
``sim.ladder`` and ``analysis.report``; ``sim.simulate``, ``sim.estimate``, ``sim.stratify``
and ``sim.sweep.sweep``), with how each command's folders, and a sweep's plots, are told:
here, below every module that asks."""

from __future__ import annotations

import errno
import hashlib
import os
import re
from pathlib import Path

from sim.store import SETTING_FOLDER, STRATUM_FOLDER, RunError, holds_levels, holds_runs, listing, refuse_foreign

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PLOT_MARK = "tricksim sim.sweep"  # in each plot's PNG text (its Software entry), before the image data


def plot_mark(out) -> str:
    """What a sweep's plot carries in its PNG text: PLOT_MARK and a digest of the sweep's
    folder (not the path itself, which a shared image would give away), so a sweep draws
    over its own plot and no other sweep's."""
    return f"{PLOT_MARK} {hashlib.blake2b(str(Path(out).resolve()).encode(), digest_size=8).hexdigest()}"


def is_sweep_plot(path: Path, out) -> bool:
    """Whether ``path`` is a PNG image the sweep of folder ``out`` drew: its Software text
    (the chunks before the image data) is ``plot_mark(out)``, so it may draw over it again.
    The sweep's own ``sweep.png`` is its own with any sweep's mark (a folder moved since, or
    an older release's plot)."""
    own_place = Path(path).resolve() == (Path(out) / "sweep.png").resolve()
    with open(path, "rb") as fh:
        if fh.read(len(PNG_SIGNATURE)) != PNG_SIGNATURE:
            return False
        while True:
            head = fh.read(8)  # a chunk: its length, its type, its data, a CRC
            if len(head) < 8 or head[4:] in (b"IDAT", b"IEND"):
                return False
            data = fh.read(int.from_bytes(head[:4], "big"))
            fh.read(4)
            text = _png_text(head[4:], data)
            if text is not None and text[0] == "Software" and (
                    text[1] == plot_mark(out) or own_place and text[1].startswith(PLOT_MARK)):
                return True


def _png_text(kind: bytes, data: bytes):
    """(keyword, text) of a PNG text chunk: tEXt in Latin-1, or iTXt uncompressed in UTF-8
    (matplotlib's choice for text that Latin-1 cannot hold); None for any other chunk."""
    try:
        if kind == b"tEXt":
            key, text = data.split(b"\x00", 1)
            return key.decode("latin-1"), text.decode("latin-1")
        if kind == b"iTXt":
            key, rest = data.split(b"\x00", 1)
            _, _, text = rest[2:].split(b"\x00", 2)  # after the compression bytes: language, keyword
            return (key.decode("latin-1"), text.decode("utf-8")) if rest[0] == 0 else None
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    return None


def is_sweep_folder(out: Path, names) -> bool:
    """A folder a sweep made: setting run folders (or multilevel folders), its tables and its
    plots (``sweep.png``, or another PNG this sweep drew there with --plot)."""
    settings = [n for n in names if re.fullmatch(SETTING_FOLDER, n)]
    if not settings and "sweep.json" not in names:
        return False  # before reading any PNG: a folder of pictures is no sweep's
    plots = {n for n in names if n.lower().endswith(".png") and _is_file(out / n) and is_sweep_plot(out / n, out)}
    levels = holds_levels([out / n for n in settings])
    if levels is not None:  # a sweep with --control: multilevel folders (sim.multilevel), finished or begun
        if levels:  # a stranger's file beside them is named, as beside run folders
            refuse_foreign(out, set(names) - set(settings) - plots - {"sweep.json", "sweep.csv", "sweep.png"})
        return levels
    return holds_runs(out, names, SETTING_FOLDER, "sweep.json", ("sweep.csv", "sweep.png", *plots))


def _is_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def is_multilevel_folder(path) -> bool:
    """A folder ``sim.run --control`` made (finished or not); False for a path the system
    cannot look at (a name too long, say), which the run folder's reader then names."""
    path = Path(path)
    try:
        return (path / "multilevel.json").is_file() or (path / "target.npz").is_file()
    except OSError:
        return False


def is_strata_folder(out: Path, names) -> bool:
    """A folder a stratified run made: its strata's run folders (or multilevel folders),
    strata.json and its report."""
    strata = [n for n in names if re.fullmatch(STRATUM_FOLDER, n)]
    levels = holds_levels([out / n for n in strata])
    if levels is not None:  # --control: each stratum a multilevel folder (sim.multilevel), finished or begun
        if levels:
            refuse_foreign(out, set(names) - set(strata) - {"strata.json", "report"})
        return levels
    return holds_runs(out, names, STRATUM_FOLDER, "strata.json", ("report",))


def holder(folder: Path) -> str | None:
    """What ``folder`` is when its command resumes it only while it holds that command's
    own files, finished or not: "a multilevel folder", "a sweep's folder" or "a stratified
    run's folder", as each command tells its own; None for any other (a run folder takes a
    report inside it; a folder whose command would refuse it already, for files of
    another's, is left to that command)."""
    if is_multilevel_folder(folder):
        return "a multilevel folder"
    try:
        names = listing(folder)
        return next((what for owns, what in ((is_sweep_folder, "a sweep's folder"),
                                             (is_strata_folder, "a stratified run's folder"))
                     if names and owns(folder, names)), None)
    except RunError:
        return None


def resolved(out, error: type = RunError, flag: str = "--out") -> Path:
    """``out`` with its links followed, as the folders made there would be; an ``error``
    in one line where its links make a loop (told by the system, as pathlib tells it in
    some Python versions and not in others)."""
    try:
        os.stat(out)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise error(f"{flag} {out}: its symbolic links make a loop") from None
    try:
        return Path(out).resolve()
    except (RuntimeError, RecursionError):  # pathlib's "Symlink loop from ..."
        raise error(f"{flag} {out}: its symbolic links make a loop") from None
    except OSError as exc:
        raise error(f"{flag} {out}: {exc.strerror or exc}") from None


def check_place(out, error: type = RunError, report: bool = False, flag: str = "--out") -> None:
    """An ``error`` where ``out`` lies in a folder whose command would then refuse it: in a
    multilevel folder, or in a sweep's or a stratified run's folder, unless inside one of
    its run folders or, for a run, one of its own run or multilevel folders (its own
    configuration's check decides); a ``report`` may also be a stratified run's own
    ``report``.
    Looked for up through run folders and folders still to be made: an ordinary folder
    above ends the search, and so does one the system cannot look at (the folder's making
    then names why)."""
    out = resolved(out, error, flag)
    child, above = out, out.parent
    try:
        while (what := holder(above)) is None:
            if above == above.parent or above.is_dir() and not (above / "manifest.json").is_file():
                return
            child, above = above, above.parent
        own = child == out and ((out / "manifest.json").is_file() or is_multilevel_folder(out))
    except OSError:
        return
    inside_run = child != out and (child / "manifest.json").is_file()
    own_report = report and child == out and what == "a stratified run's folder" and out.name == "report"
    if what == "a multilevel folder" or not (inside_run or own_report or own and not report):
        raise error(f"{flag} {out}: it lies in {above}, {what}, whose command resumes it only while it holds that "
                    "command's files: give a folder outside it")
