"""The page a report is written as: tables (with a CSV file each), figures (PNG files),
notes and the headline box, in one self-contained index.html, and the folder it goes in."""

from __future__ import annotations

import contextlib
import functools
import html
import io
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from analysis.tables import ReportError
from sim.cli import claim_folder
from sim.placement import check_place, holder
from sim.store import LOCK_NAME, FolderLock, RunError, csv_bytes, listing, remove_dead_temporaries, write_atomic
from sim.summary import percent

matplotlib.use("Agg")  # figures go to PNG files only
# Legible at the page's scale (100 pixels per inch): no text under 9 points. Text is drawn as
# written: a user's metric may hold a $, which mathtext would read as maths (or fail on).
matplotlib.rcParams.update({"text.parse_math": False,
                            "font.size": 10.5, "axes.titlesize": 11.5, "axes.labelsize": 10.5,
                            "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 9.5,
                            "legend.title_fontsize": 9.5, "figure.titlesize": 12.5})

# --- Tables and figures -----------------------------------------------------------------------

@dataclass
class Table:
    """A report table; a cell is text, a number, a rate dict (sim.summary.rate) or a
    description dict (Hist.describe), shown with its 95% interval."""

    name: str
    title: str
    columns: list[str]
    rows: list[list]


def _is_rate(cell) -> bool:
    return isinstance(cell, dict) and "successes" in cell


def _is_mean(cell) -> bool:
    return isinstance(cell, dict) and not _is_rate(cell) and "n" in cell


def cell_html(cell) -> str:
    if cell is None:
        return "&ndash;"
    if _is_rate(cell):
        if not cell["n"]:
            return "&ndash;"
        value, _, interval = percent(cell).strip().partition(" ")
        return f'{value} <span class="ci">{interval}</span>'
    if _is_mean(cell):
        if not cell["n"]:
            return "&ndash;"
        if cell["mean_ci95"] is None:  # a single value has no interval
            return _num(cell["mean"])
        lo, hi = cell["mean_ci95"]
        return f'{_num(cell["mean"])} <span class="ci">[{_num(lo)}, {_num(hi)}]</span>'
    if isinstance(cell, (bool, np.bool_)):
        return "yes" if cell else "no"
    if isinstance(cell, (int, np.integer)):
        return f"{int(cell):,}"
    if isinstance(cell, (float, np.floating)):
        return _num(float(cell))
    return html.escape(str(cell))


def inline(r: dict) -> str:
    """A rate with its interval, for running text: '71.2% [70.4, 72.0]'."""
    return html.escape(percent(r).strip())


def _num(x: float) -> str:
    return f"{x:z,.0f}" if abs(x) >= 1000 else f"{x:z,.1f}" if abs(x) >= 10 else f"{x:z,.2f}"


def csv_header(table: Table) -> list[str]:
    header = []
    for j, name in enumerate(table.columns):
        col = [row[j] for row in table.rows]
        if any(_is_rate(c) for c in col):
            header += [f"{name} %", f"{name} % lo95", f"{name} % hi95", f"{name} n"]
        elif any(_is_mean(c) for c in col):
            base = name.replace(" (mean)", "")  # "mean" and "tricks (mean)": no "mean mean"
            header += [base if "mean" in base.split() else f"{base} mean", f"{base} lo95", f"{base} hi95", f"{base} n"]
        else:
            header.append(name)
    return header


def csv_row(table: Table, row: list) -> list:
    out = []
    for j, cell in enumerate(row):
        col = [r[j] for r in table.rows]
        if any(_is_rate(c) for c in col):
            if cell is None or not cell["n"]:
                out += ["", "", "", 0 if cell is None else cell["n"]]
            else:
                lo, hi = cell["ci95"]
                out += [_round(100 * cell["rate"]), _round(100 * lo), _round(100 * hi), cell["n"]]
        elif any(_is_mean(c) for c in col):
            if cell is None or not cell["n"]:
                out += ["", "", "", 0]
            else:
                interval = cell["mean_ci95"]  # none from a single value
                out += [_round(cell["mean"]), *(map(_round, interval) if interval else ("", "")), cell["n"]]
        elif isinstance(cell, (np.integer, np.floating, np.bool_)):
            out.append(cell.item())
        else:
            out.append("" if cell is None else cell)
    return out


def _round(x: float) -> float:
    return round(x, 4) + 0.0  # + 0.0 turns -0.0 into 0.0


def pct(r: dict) -> float:
    return np.nan if not r or r["rate"] is None else 100 * r["rate"]




# --- The report -------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #1f77b4; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef3f8; } td.n { text-align: right; white-space: nowrap; }
.row { display: flex; gap: 2em; align-items: flex-start; }
.row table { font-size: 85%; } .row table:last-child { flex: 1; }
table.rules td:nth-child(3) { white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: .3em 0; }
caption a { font-weight: normal; font-size: 85%; margin-left: .6em; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
.ci { display: block; font-size: 78%; color: #666; }
figcaption { font-size: 90%; color: #555; }
.note { background: #fff6e0; border-left: 4px solid #f0a020; padding: .5em 1em; }
.source { color: #666; font-size: 90%; }
.changed { font-weight: 700; color: #b03000; }
nav ol { columns: 2; }
code { background: #f3f3f3; padding: 0 .2em; }
.headline { border: 2px solid #1f77b4; border-radius: 6px; background: #f4f8fc; padding: .6em 1.2em;
            margin: 1em 0 1.5em; }
.headline table { margin: .2em 0; font-size: 100%; border: none; }
.headline th, .headline td { border: none; background: none !important; padding: .2em 1em .2em 0; }
.headline th { font-weight: 600; white-space: nowrap; }
.headline .value { font-size: 125%; font-weight: 700; white-space: nowrap; }
.headline .ci { display: inline; font-size: 85%; margin-left: .4em; }
.headline p { margin: .3em 0; }
.warn { color: #b03000; font-weight: 600; }
"""


LONGEST_STEM = 120  # a file name's stem, well inside the 255 bytes a name may have


def file_stem(name: str) -> str:
    """``name`` as the stem of a report file: a long one (a custom metric's name can be
    hundreds of characters) cut short, with a digest of the whole to keep it apart."""
    if len(name.encode()) <= LONGEST_STEM:
        return name
    import hashlib

    return name.encode()[:LONGEST_STEM - 9].decode(errors="ignore") + "-" + hashlib.blake2b(
        name.encode(), digest_size=4).hexdigest()


def save(path: Path, data: bytes) -> None:
    """A file of the report, whole or not at all (``sim.store.write_atomic``); a write that
    fails names the file. Never through a link a user left in the folder: it is replaced."""
    try:
        write_atomic(path, data)
    except RunError as exc:
        raise ReportError(str(exc)) from None


def being_written(files) -> bytes:
    """The page of a report folder while a report is written: what a report that stopped
    half-way (a full disk, kill -9) leaves. It links ``files`` (the earlier report's, and
    this one's), which the next report then removes where it has none of its own."""
    links = "".join(f'<a href="{html.escape(name)}"></a>' for name in sorted(files))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">{GENERATOR}<title>report being '
            f"written</title></head><body><p>This report was being written when its command stopped: run it "
            f"again.</p>{links}</body></html>\n").encode()


class Report:
    """An HTML page under construction, with its PNG and CSV files, kept in memory until
    ``write`` puts them all in the folder: a report that fails while it is built leaves an
    earlier one as it was."""

    def __init__(self, data, out: Path):
        self.data, self.out = data, out
        self.body: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.top = ""
        self.files: dict[str, bytes] = {}  # the CSV and PNG files beside the page

    def headline(self, rows: list[tuple[str, str, str]], after: str = "") -> None:
        """The box at the top of the page, before any detail: (what, value, remark) rows of
        HTML (the value in large type), then ``after``, a paragraph of HTML."""
        cells = "".join(f'<tr><th>{what}</th><td class="value">{value}</td><td>{remark}</td></tr>'
                        for what, value, remark in rows)
        self.top = f'<div class="headline"><table>{cells}</table>{after}</div>'

    def csv(self, name: str, header: list[str], rows: list[list]) -> None:
        """``<name>.csv`` beside the page: numbers as numbers, in full, no value as an empty cell."""
        name = file_stem(name)
        self.files[f"{name}.csv"] = csv_bytes(header, [["" if c is None else c + 0.0 if isinstance(c, float) else c
                                                         for c in r] for r in rows])

    def html_table(self, name: str, title: str, columns: list[str], rows: list[list[str]]) -> None:
        """A table whose cells are HTML already, its CSV written apart (``csv``)."""
        name = file_stem(name)
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
        self.body.append(f'<table class="{name}"><caption>{html.escape(title)} <a href="{name}.csv">CSV</a>'
                         f"</caption><tr>{head}</tr>{body}</table>")

    def section(self, anchor: str, title: str, source: str | None = None) -> None:
        self.toc.append((anchor, title))
        self.body.append(f'<h2 id="{anchor}">{html.escape(title)}</h2>')
        if source:
            self.body.append(f'<p class="source">{source}</p>')

    def para(self, text: str) -> None:
        self.body.append(f"<p>{text}</p>")

    def note(self, text: str) -> None:
        self.body.append(f'<p class="note">{text}</p>')

    def needs_records(self, what: str) -> None:
        self.note(f"{what} needs the per-deal records, and this run kept "
                  f"{'only per-game records' if self.data.records == 'games' else 'none'} "
                  f"(<code>--records {self.data.records}</code>); rerun with <code>--records deals</code>.")

    def table(self, t: Table, raw_html: dict | None = None) -> None:
        """The table in the page, and in ``<name>.csv`` beside it (intervals as columns)."""
        t = Table(file_stem(t.name), t.title, t.columns, t.rows)
        self.files[f"{t.name}.csv"] = csv_bytes(csv_header(t), (csv_row(t, r) for r in t.rows))
        head = "".join(f"<th>{html.escape(c)}</th>" for c in t.columns)
        rows = []
        for i, r in enumerate(t.rows):
            cells = [(raw_html or {}).get((i, j)) or cell_html(c) for j, c in enumerate(r)]
            kinds = ["" if isinstance(c, (str, type(None))) and (i, j) not in (raw_html or {}) else ' class="n"'
                     for j, c in enumerate(r)]
            rows.append("<tr>" + "".join(f"<td{k}>{c}</td>" for c, k in zip(cells, kinds)) + "</tr>")
        self.body.append(f'<table class="{t.name}"><caption>{html.escape(t.title)} <a href="{t.name}.csv">CSV</a></caption>'
                         f"<tr>{head}</tr>{''.join(rows)}</table>")

    def figure(self, fig: Figure, name: str, caption: str) -> None:
        name = file_stem(name)
        png = io.BytesIO()
        fig.savefig(png, format="png", dpi=100)
        self.files[f"{name}.png"] = png.getvalue()
        self.body.append(f'<figure><img src="{name}.png" alt="{html.escape(caption)}" '
                         f'width="{int(fig.get_figwidth() * 100)}" height="{int(fig.get_figheight() * 100)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def write(self, title: str) -> Path:
        toc = "".join(f'<li><a href="#{a}">{html.escape(t)}</a></li>' for a, t in self.toc)
        page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"{GENERATOR}<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
                f"<h1>{html.escape(title)}</h1>{self.top}<nav><ol>{toc}</ol></nav>"
                + "\n".join(self.body) + "</body></html>\n")
        path = self.out / "index.html"
        for name in self.files:  # found before any file changes: the earlier report stays whole
            if (self.out / name).is_dir():
                raise ReportError(f"cannot write {self.out / name}: a folder stands in its place")
        earlier = earlier_files(path)
        if not half_written(path):  # a file the finished report there never linked is a user's: kept
            theirs = sorted(n for n in self.files if n not in earlier and os.path.lexists(self.out / n))
            if theirs:
                raise ReportError(f"{self.out / theirs[0]} is not a file of the report there, and this report "
                                  f"would write over it: move it away, or give another --out")
        save(path, being_written(earlier | set(self.files)))  # until the last file is in place
        for name, data in self.files.items():
            save(self.out / name, data)
        for name in earlier - set(self.files):  # an earlier report's, which this one does not have
            (self.out / name).unlink(missing_ok=True)
        save(path, page.encode())
        return path


def figure(w: float, h: float, title: str, rows: int = 1, cols: int = 1):
    fig = Figure(figsize=(w, h), layout="constrained")
    fig.suptitle(title, fontweight="bold")
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, axes



# A page this package wrote: the mark in its head, or (reports written before the mark)
# the run report's title.
GENERATOR = '<meta name="generator" content="tricksim analysis.report">'
REPORT_TITLE = re.compile(r"<title>[^<]* run report: [\d,]+ games, seed \d+</title>")


EARLIER_FILE = re.compile(r'(?:href|src)="([^"/\\]+\.(?:csv|png))"')


def earlier_files(page: Path) -> set[str]:
    """The CSV and PNG files the report page at ``page`` links to, beside it (none when
    there is no page): what an earlier report wrote in its folder."""
    try:
        return set(EARLIER_FILE.findall(page.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return set()


def half_written(page: Path) -> bool:
    """Whether the page at ``page`` is the one a report leaves while it is written
    (``being_written``): the files beside it may be that report's, linked or not yet."""
    try:
        with open(page, encoding="utf-8", errors="replace") as fh:
            return "<title>report being written</title>" in fh.read(4096)
    except OSError:
        return False


def is_report_folder(out: Path) -> bool:
    """An empty folder (but for the lock and temporaries of a report that was killed as it
    began), or one whose index.html is a report page: a report may be written over it (as
    sim.run resumes only its own run folders)."""
    if not listing(out):
        return True
    try:
        with open(out / "index.html", encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return GENERATOR in head or bool(REPORT_TITLE.search(head))


# The report folders being written (releases_folders): each lock, and whether the folder was
# new or empty ("new", "empty"; None: it held a report), so that a report that fails takes
# away what it wrote there.
_HELD: list[tuple[FolderLock, str | None]] = []


def outside(path) -> tuple[Path, str]:
    """The folder a report of ``path`` goes beside, and the name it is known by there: its
    own parent and name, or, where it lies in folders that hold a command's own files only
    (``holder``), the outermost of them's parent and the names from it joined
    (scB/stratum-ace: scB's parent, "scB-stratum-ace")."""
    path = Path(path).resolve()
    parts, above = [path.name], path.parent
    while above != above.parent and holder(above) is not None:
        parts.insert(0, above.name)
        above = above.parent
    return above, "-".join(parts)


def beside(path, suffix: str) -> Path:
    """A report's folder beside ``path``, outside the folders above it that hold a
    command's own files only (``outside``): a report of scB/stratum-ace goes to
    scB-stratum-ace-report beside scB, as its command would not resume scB with it inside."""
    folder, name = outside(path)
    return folder / f"{name}{suffix}"


def report_folder(out: Path) -> Path:
    """``out``, made and locked, when it can take a report: new, empty, or an earlier
    report's, and no other report being written there, nor in a folder whose command
    would then refuse it (``check_place``). The builder that asks for it
    (``releases_folders``) releases the lock when it ends."""
    check_place(out, ReportError, report=True)
    fresh = "new" if not out.is_dir() else "empty" if not listing(out) else None

    def lock(folder):
        try:
            _HELD.append((FolderLock(folder, "report"), fresh))
        except RunError as exc:
            if fresh == "new":  # made by claim_folder just now, and empty, it goes again (another's lock keeps it)
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise ReportError(str(exc)) from None

    locked = (out / LOCK_NAME).is_file()  # another report may be writing there: say that first
    if locked:
        lock(out)
    folder = claim_folder(out, is_report_folder, "report", ReportError)
    if not locked:
        lock(folder)
    remove_dead_temporaries(folder)  # of a report killed mid-write
    if fresh:  # marked as a report's from the start: one killed (kill -9) half-way is written over
        save(folder / "index.html", being_written(()))
    return folder


def as_written(file: Path, maker: str, build):
    """``build()`` of a report from ``file``, whose fields the page reads as ``maker`` wrote
    them: where one was edited by hand (a number as text, a key gone), a ReportError naming
    the file in one line, not a failure deep in the page. The project's own errors name
    their own files."""
    try:
        return build()
    except (ReportError, RunError):
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ReportError(f"{file} is not as {maker} wrote it ({type(exc).__name__}: {exc})") from None


def check_parts(folder: Path, parts, what: str, command: str) -> list[dict]:
    """Each run folder (``parts``: their paths as a sweep or a stratified run kept them)
    still in ``folder`` and whole: a finished run, its block and record files what its
    blocks wrote, or a multilevel folder with its estimate and its levels. A ReportError
    naming the first that is not, as ``what`` of the folder: its figures would be reported
    with nothing behind them. ``command`` plays it again. Returns what each part was played
    with: its rules, seed, size (games, deals or the target's deals), players and dealing."""
    from sim.multilevel import read_folder
    from sim.strata import PLAYED_WITH
    from sim.store import (
        RECORD_KINDS, check_records, finished_manifest, lost_manifest, read_block, read_summary, run_digest,
    )

    rules = []
    for part in parts:
        run = folder / Path(str(part)).name  # its own name, wherever the folder has been moved
        try:
            if (run / "multilevel.json").is_file() or (run / "target.npz").is_file():
                levels = read_folder(run)
                rules.append({"rules": levels["rules"], "seed": levels["seed"], "policies": levels["policies"],
                              "games": next(iter(levels["sizes"].values())), "dealing": levels["dealing"]})
            else:
                manifest = finished_manifest(run)
                rules.append({k: manifest["config"].get(k) for k in PLAYED_WITH})
                read_summary(run, manifest)
                digest, kinds = run_digest(manifest["config"]), RECORD_KINDS[manifest["config"]["records"]]
                for i in range(int(manifest["blocks"])):  # each block file, read with its records or alone
                    if kinds:
                        check_records(run, [run / "records" / f"{kind}-{i:06d}.parquet" for kind in kinds], digest)
                    else:
                        read_block(run, i, digest)
        except (OSError, ValueError) as exc:
            if (run.exists() or run.is_symlink()) and not run.is_dir():  # the rerun will not write over it
                advice = f"move it away, then rerun {command}, which plays it again"
            elif lost_manifest(run):  # it cannot resume
                advice = f"remove that folder, then rerun {command}"
            else:
                advice = f"rerun {command}, which plays it again"
            raise ReportError(f"{run}, {what} of {folder}, cannot be read ({exc}): {advice}") from None
    return rules


def releases_folders(build):
    """A report builder that releases the locks of the folders it wrote in, however it ends;
    one that fails leaves a folder that was new or empty as it found it (a half-written
    report would hold up the next one)."""
    @functools.wraps(build)
    def building(*args, **kwargs):
        held = len(_HELD)
        done = False
        try:
            result = build(*args, **kwargs)
            done = True
            return result
        finally:
            while len(_HELD) > held:
                lock, fresh = _HELD.pop()
                lock.release()
                if fresh and not done:
                    folder = lock.path.parent
                    if fresh == "new":
                        shutil.rmtree(folder, ignore_errors=True)
                        continue
                    for path in folder.iterdir():
                        if path.is_dir():
                            shutil.rmtree(path)
                        else:
                            path.unlink()
    return building
