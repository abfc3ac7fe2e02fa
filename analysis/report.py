"""python -m analysis.report RUN_DIR [--out DIR]

Writes a self-contained HTML report of a finished run into DIR (default RUN_DIR/report):
index.html, its plots as PNG files beside it, and every table as a CSV file. Records are
read block by block, a few columns at a time, so runs larger than memory are fine; a run
made with --records none gets every section its block aggregates allow, and the report
says which sections need records. A stratified folder (sim.strata) gets the strata's
tables; each stratum's run folder has its own report.
"""

from __future__ import annotations

import csv
import html
import json
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import matplotlib
import numpy as np
from matplotlib.figure import Figure

import sim
from analysis.tables import DealScoreTally, GameTally, Hist, ReportError, RunData, fill
from sim.cli import OneLineParser, claim_folder, exit_with
from sim.games import game_info
from sim.rules import GAMES as RULE_CLASSES, option_table
from sim.summary import percent

matplotlib.use("Agg")  # figures go to PNG files only

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


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
                lo, hi = cell["mean_ci95"]
                out += [_round(cell["mean"]), _round(lo), _round(hi), cell["n"]]
        elif isinstance(cell, (np.integer, np.floating, np.bool_)):
            out.append(cell.item())
        else:
            out.append("" if cell is None else cell)
    return out


def _round(x: float) -> float:
    return round(x, 4) + 0.0  # + 0.0 turns -0.0 into 0.0


def pct(r: dict) -> float:
    return np.nan if not r or r["rate"] is None else 100 * r["rate"]


def pct_err(rates) -> np.ndarray:
    """Wilson interval of each rate as (below, above) distances in percent, for yerr."""
    err = np.zeros((2, len(rates)))
    for k, r in enumerate(rates):
        if r and r["rate"] is not None:
            err[:, k] = 100 * (r["rate"] - r["ci95"][0]), 100 * (r["ci95"][1] - r["rate"])
    return np.maximum(err, 0)  # rounding can put a rate of 0 or 1 a hair outside its interval


def rate_bars(ax, rates, offset=0.0, width=0.8, **kw):
    """Bars of rates in percent with their 95% Wilson intervals."""
    x = np.arange(len(rates)) + offset
    ax.bar(x, [pct(r) for r in rates], width, yerr=pct_err(rates), capsize=3,
           error_kw={"elinewidth": 1, "ecolor": "#333"}, **kw)


def mean_points(ax, descs, x=None, **kw):
    """Means with their 95% intervals, as points with error bars."""
    x = np.arange(len(descs)) if x is None else x
    mean = np.array([d["mean"] if d.get("n") else np.nan for d in descs])
    err = np.array([[d["mean"] - d["mean_ci95"][0], d["mean_ci95"][1] - d["mean"]] if d.get("n") else [0, 0]
                    for d in descs]).T
    ax.errorbar(x, mean, yerr=err, fmt="o", capsize=4, **kw)


def grouped_rates(ax, labels, series: dict, ylabel="%"):
    """Several series of rates side by side per label, with intervals and a legend."""
    width = 0.8 / len(series)
    for k, (name, rates) in enumerate(series.items()):
        rate_bars(ax, rates, offset=(k - (len(series) - 1) / 2) * width, width=width,
                  color=COLORS[k % len(COLORS)], label=name)
    ax.set_xticks(np.arange(len(labels)), labels)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def hist_panel(ax, hists: list[Hist], labels: list[str], unit: str, what: str):
    """Exact histograms side by side: a bar per value when the values span little, else a
    stepped histogram over 50 bins with a log scale (a few values dominate)."""
    tables = [h.as_dict() for h in hists if h.n]
    if not tables:
        return
    lo = min(t["values"][0] for t in tables)
    hi = max(t["values"][-1] for t in tables)
    for k, (h, label) in enumerate(zip(hists, labels)):
        if not h.n:
            continue
        d = h.describe()
        t = h.as_dict()
        values, share = np.array(t["values"]), 100 * np.array(t["counts"]) / h.n
        name = f"{label}: mean {_num(d['mean'])} [{_num(d['mean_ci95'][0])}, {_num(d['mean_ci95'][1])}]"
        if hi - lo <= 60:
            width = 0.8 / len(hists)
            ax.bar(values + (k - (len(hists) - 1) / 2) * width, share, width, color=COLORS[k], label=name)
        else:
            edges = np.linspace(lo, hi + 1, 51)
            counts, _ = np.histogram(values, bins=edges, weights=share)
            ax.stairs(counts, edges, color=COLORS[k], label=name, linewidth=1.5)
            ax.set_yscale("log")
        ax.axvline(d["p50"], color=COLORS[k], linestyle="--", linewidth=1)
    ax.set_xlabel(f"{what} ({unit})")
    ax.set_ylabel(f"% of {what.split()[-1]}s" if hi - lo <= 60 else "% per bin (log scale)")
    ax.legend(fontsize=8, title="dashed: median; 95% interval of the mean", title_fontsize=8)
    ax.grid(alpha=0.3)


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
"""


class Report:
    """An HTML page under construction, with its PNG and CSV files written as it grows."""

    def __init__(self, data: RunData, out: Path):
        self.data, self.out = data, out
        self.body: list[str] = []
        self.toc: list[tuple[str, str]] = []

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
        with open(self.out / f"{t.name}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(csv_header(t))
            w.writerows(csv_row(t, r) for r in t.rows)
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
        fig.savefig(self.out / f"{name}.png", dpi=100)
        self.body.append(f'<figure><img src="{name}.png" alt="{html.escape(caption)}" '
                         f'width="{int(fig.get_figwidth() * 100)}" height="{int(fig.get_figheight() * 100)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def write(self, title: str) -> Path:
        toc = "".join(f'<li><a href="#{a}">{html.escape(t)}</a></li>' for a, t in self.toc)
        page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
                f"<h1>{html.escape(title)}</h1><nav><ol>{toc}</ol></nav>"
                + "\n".join(self.body) + "</body></html>\n")
        path = self.out / "index.html"
        path.write_text(page, encoding="utf-8")
        return path


def figure(w: float, h: float, title: str, rows: int = 1, cols: int = 1):
    fig = Figure(figsize=(w, h), layout="constrained")
    fig.suptitle(title, fontsize=12, fontweight="bold")
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, axes


# --- Sections ---------------------------------------------------------------------------------

def dealing_rows(dealing: dict | None, games: str) -> list[list[str]]:
    """The configuration rows that say what was dealt: whole games, or a deal run's
    conditions and how many of the deals tried met them (sim.dealing)."""
    if dealing is None:
        return [["games", games]]
    rows = [["independent deals", games], ["dealt", dealing["description"]]]
    if "tries" in dealing:
        rows.append(["deals meeting the conditions", f"{dealing['acceptance']:.2%} of {dealing['tries']:,} tried "
                                                     f"(pilot {dealing['pilot_acceptance']:.2%})"])
    return rows


def run_section(rep: Report) -> None:
    d, m, c = rep.data, rep.data.manifest, rep.data.config
    rep.section("run", "The run")
    timing = m.get("timing") or {}
    info = d.info
    until = m.get("until")
    games = f"{c['games']:,}" if until is None else (
        f"{m['games_played']:,} (--until {c['until']}: {'reached' if until['reached'] else 'not reached'}, "
        f"half-width {until['achieved_half_width']:.4g}; cap {c['games']:,})")
    dealing = d.summary.get("dealing")
    rows = [["game", info.title], *dealing_rows(dealing, games), [f"{info.deal}s", f"{d.summary.get('deals', 0):,}"],
            ["seed", str(c["seed"])], ["block size", f"{c['block_size']:,}"], ["records kept", c["records"]],
            ["tricksim version (run)", m.get("package_version", "?")],
            ["RULES_VERSION (run)", str(c.get("rules_version", "?"))],
            ["tricksim version (report)", sim.__version__]]
    if timing.get("seconds") is not None:
        rows.append(["run time (last session)", f"{timing['seconds']:.1f} s for {timing.get('games_played_now', 0):,} games"])
    rows += [[f"policy of seat {s}" + (f" (team {info.seat_sides[s]})" if info.teams else ""), p]
             for s, p in enumerate(c["policies"])]
    rep.body.append('<div class="row">')
    rep.table(Table("run", "Configuration", ["item", "value"], rows))
    opts = option_table(RULE_CLASSES[d.game])
    rules_rows, marks = [], {}
    for i, o in enumerate(opts):
        table, key = o["option"].split(".")
        value = d.rules.get(table, {}).get(key)
        default = o["default"]
        default = list(default) if isinstance(default, tuple) else default
        rules_rows.append([o["option"], _toml(value), o["rule"], o["meaning"]])
        if default is not None and value != default:
            marks[(i, 1)] = (f'<span class="changed">{html.escape(_toml(value))}</span> '
                             f"(default {html.escape(_toml(default))})")
        elif default is None:
            marks[(i, 1)] = f"{html.escape(_toml(value))} (auto)"
    rep.table(Table("rules", "Resolved rules (red: changed from the default; auto: set by other options)",
                    ["option", "value", "rule", "meaning"], rules_rows), marks)
    rep.body.append("</div>")


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return str(v)


def source_words(from_records: bool, kind: str = "deal") -> str:
    return (f"from the {kind} records, read block by block" if from_records
            else f"from the block aggregates (<code>blocks/*.json</code>): this run kept no {kind} records")


def source_line(from_records: bool, kind: str = "deal") -> str:
    words = source_words(from_records, kind)
    return words[0].upper() + words[1:] + "."


def score_section(rep: Report, deals: DealScoreTally | None, games: GameTally | None,
                  deals_from_records: bool, games_from_records: bool) -> None:
    info = rep.data.info
    side = [side_label(info, k) for k in range(len(info.sides))]
    deal = info.deal
    rep.section("scores", "Scores and game wins",
                f"{deal.capitalize()} scores {source_words(deals_from_records, deal)}; games "
                f"{source_words(games_from_records, 'game')}.")
    fig, ax = figure(11, 4, f"Score distributions by {info.side}", 1, 2)
    hist_panel(ax[0, 0], deals.scores, side, "points", f"score per {deal}")
    ax[0, 0].set_title(f"per {deal}")
    hist_panel(ax[0, 1], games.totals, side, "points", "total per game")
    ax[0, 1].set_title("per game")
    rep.figure(fig, "scores", f"Distribution of each {info.side}'s score per {deal} and "
               "per game (exact histograms; dashed lines mark the medians; the legend gives each mean "
               "with its 95% interval).")
    quant = ["p5", "p25", "p50", "p75", "p95"]
    rows = []
    for what, hists in ((f"per {deal}", deals.scores), ("per game", games.totals)):
        for label, h in zip(side, hists):
            d = h.describe()
            rows.append([what, label, d["n"], d] + [d.get(q) for q in quant] + [d.get("min"), d.get("max"),
                                                                                 d.get("sd")])
    rep.table(Table("score_quantiles", "Scores: mean with 95% interval, quantiles (points)",
                    ["score", "side", "n", "mean"] + quant + ["min", "max", "sd"], rows))
    advantage_table(rep)

    dealers = len(games.wins)
    labels = ["all games"] + [f"seat {d} deals first" for d in range(dealers)]
    cols = [None] + list(range(dealers))
    rows = []
    for label, fd in zip(labels, cols):
        n = int(games.wins.sum() if fd is None else games.wins[fd].sum())
        row = [label, n, games.side_wins(0, fd), games.side_wins(1, fd)]
        if info.draws:
            row.append(games.outcome(2, fd))
        row.append(games.outcome(3, fd))
        rows.append(row)
    names = side + (["drawn"] if info.draws else []) + ["abandoned"]
    rep.table(Table("game_wins", "Game results by first dealer (C-6)", ["games", "n"] + [f"{n} wins" if "seat" in n
              or "team" in n else n for n in names], rows))
    fd = games.first_dealer_wins()
    rep.para(f"The first dealer's {'team' if info.teams else 'side'} wins {inline(fd)} of {games.games:,} games; "
             f"{deal}s per game: mean {_num(games.deals.describe()['mean'])}.")
    fig, ax = figure(9, 3.8, "Game win rate by side and by first dealer")
    ax = ax[0, 0]
    grouped_rates(ax, labels, {f"{s} wins": [games.side_wins(k, f) for f in cols] for k, s in enumerate(side)},
                  "games won (%)")
    rate_bars(ax, [fd], offset=len(labels), width=0.4, color="#777", label="first dealer's side wins")
    ax.set_xticks(range(len(labels) + 1), labels + ["first dealer's side"])
    ax.legend(fontsize=8)
    ax.axhline(50, color="#888", linewidth=1, linestyle=":")
    ax.set_ylim(0, 105)
    rep.figure(fig, "game_wins", "Share of games each side wins, over all games and by who dealt first, and "
               "the first dealer's side's win rate; error bars are 95% Wilson intervals.")


def advantage_table(rep: Report) -> None:
    """The dealer's advantage from summary.json (kept with any --records), overall and by up-card."""
    adv = rep.data.summary.get("dealer_advantage")
    if adv is None:
        rep.note("This run's summary has no dealer's advantage (it was made before runs kept it).")
        return
    info = rep.data.info

    def cell(e):
        return {"n": e["deals"], "mean": e["value"], "mean_ci95": e["ci95"]} if e["value"] is not None else None

    rows = [[f"all {info.deal}s", adv["deals"], cell(adv)]]
    rows += [[f"up-card: {e['upcard']}", e["deals"], cell(e)] for e in adv.get("by_upcard", ())]
    rep.table(Table("dealer_advantage", f"Dealer's advantage: the dealer's {info.side}'s {info.deal} score minus "
                    f"the other's (points per {info.deal}; 95% interval over games, as analysis.compare)",
                    ["deals", "n", "dealer's advantage"], rows))


def side_label(info, k: int) -> str:
    """A scoring side in tables and legends: "seat 0", or "team 0 (seats 0, 2)"."""
    if not info.teams:
        return f"seat {k}"
    return f"team {k} (seats {', '.join(map(str, info.teams[k]))})"


def blank(ax, text: str) -> None:
    """An empty panel that says why it is empty."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#777")
    ax.set_axis_off()


# --- Building it ------------------------------------------------------------------------------

@dataclass
class Section:
    """A part of the report: how it writes itself, and the tallies it reads from the deal
    records (those of every section are filled in one pass before any is written)."""

    write: Callable[[Report], None]
    tallies: tuple = ()


REPORT_TITLE = re.compile(r"<title>[^<]* run report: [\d,]+ games, seed \d+</title>")


def is_report_folder(out: Path) -> bool:
    """An empty folder, or one whose index.html is a report page: a report may be written
    over it (as sim.run resumes only its own run folders)."""
    if not any(out.iterdir()):
        return True
    try:
        with open(out / "index.html", encoding="utf-8", errors="replace") as fh:
            return bool(REPORT_TITLE.search(fh.read(4096)))
    except OSError:
        return False


def report_folder(out: Path) -> Path:
    """``out``, made, when it can take a report: new, empty, or an earlier report's."""
    return claim_folder(out, is_report_folder, "report", ReportError)


def build_strata_report(path: Path, out=None) -> Path:
    """The report of a stratified run (sim.strata): its strata, and each metric per stratum
    and overall with the variance saved against plain sampling; every stratum's own run
    folder has its full report."""
    from sim.metrics import shown
    from sim.summary import Z95

    try:
        result = json.loads((path / "strata.json").read_text())
    except (OSError, ValueError):
        raise ReportError(f"{path}/strata.json is unreadable") from None
    out = report_folder(Path(out) if out is not None else path / "report")
    game, rep = result["game"], Report(None, out)
    rep.section("strata", "Strata")
    rep.para(f"{result['deals']:,} independent deals, seed {result['seed']}, stratified by "
             f"<code>{html.escape(result['stratify'])}</code> with the <code>{html.escape(result['allocation'])}"
             f"</code> allocation; each stratum is a conditioned deal run in its own folder, and the overall "
             f"estimates weight the strata by their exact probabilities.")
    rep.table(Table("strata", "Strata", ["stratum", "probability", "deals", "run folder"],
                    [[s["name"], s["probability"], f"{s['deals']:,}", s["folder"]] for s in result["strata"]]))
    for name, entry in result["metrics"].items():
        m = shown(name, entry)
        signed = m.balance == 0
        rep.section(name, f"{m.words(game)} ({m.unit_for(game)})")

        def row(label, e):
            ci = e["ci95"] or [None, None]
            return [label, m.format(e["value"], signed), m.format(ci[0], signed), m.format(ci[1], signed)]

        o = entry["overall"]
        rows = [row(s["name"], e) for s, e in zip(result["strata"], entry["by_stratum"])] + [row("overall", o)]
        rep.table(Table(f"strata_{name}", "Per stratum and overall (95% intervals)",
                        ["stratum", "value", "low", "high"], rows))
        if o["variance_saved"] is not None:
            rep.para(f"Plain sampling of as many deals would have given +-"
                     f"{m.format(Z95 * o['plain_variance'] ** 0.5)}; the strata saved "
                     f"{o['variance_saved']:.0%} of its variance (negative: the allocation cost precision overall).")
    return rep.write(f"{game_info(game).title} stratified deal run: {result['deals']:,} deals, seed {result['seed']}")


def build_report(run_dir, out=None) -> Path:
    """Read a run folder and write its report; returns the path of index.html.

    The run's game decides the sections (``report_sections`` of its module in
    ``analysis.games``); the run and the scores and game wins are the same in every game,
    and a --dd run ends with its double-dummy section (analysis.dd)."""
    from analysis.games import analysis_module

    if (Path(run_dir) / "strata.json").is_file():
        try:
            return build_strata_report(Path(run_dir), out)
        except (KeyError, TypeError, AttributeError):
            raise ReportError(f"{run_dir}/strata.json is not a stratified run's (sim.strata)") from None
    data = RunData(run_dir)
    out = report_folder(Path(out) if out is not None else data.path / "report")
    deals_rec, games_rec = data.has("deals"), data.has("games")
    agg = data.aggregates() if not (deals_rec and games_rec) else None
    info = data.info
    games = GameTally(info) if games_rec else GameTally.from_aggregates(agg, info)
    if games_rec:
        fill(data, "games", [games])
    scores = DealScoreTally() if deals_rec else DealScoreTally.from_aggregates(agg, info)
    shared = Section(partial(score_section, deals=scores, games=games, deals_from_records=deals_rec,
                             games_from_records=games_rec), (scores,))
    sections = analysis_module(info).report_sections(data, agg, shared)
    if "double_dummy" in data.summary:  # a --dd run (sim.dd_run)
        from analysis.dd import dd_section

        sections.append(Section(dd_section))
    if deals_rec:
        fill(data, "deals", list(dict.fromkeys(t for s in sections for t in s.tallies)))
    rep = Report(data, out)
    run_section(rep)
    for section in sections:
        section.write(rep)
    c = data.config
    unit = "independent deals" if c.get("dealing") else "games"
    return rep.write(f"{info.title} run report: {c['games']:,} {unit}, seed {c['seed']}")


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m analysis.report", description=__doc__.split("\n\n")[1])
    p.add_argument("run_dir", metavar="RUN_DIR", help="a finished run folder (made by python -m sim.run), or a "
                                                      "stratified run's folder")
    p.add_argument("--out", metavar="DIR", help="folder for index.html, PNG and CSV files (default RUN_DIR/report)")
    args = p.parse_args(argv)
    try:
        path = build_report(args.run_dir, args.out)
    except ReportError as exc:
        return p.fail(exc)
    except OSError as exc:  # a report folder that takes no file: read-only, full, too long a name
        return p.fail(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}")
    print(path)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m analysis.report")
