"""python -m analysis.report RUN_DIR [--out DIR]

Writes a self-contained HTML report of a finished run into DIR (default RUN_DIR/report):
index.html, its plots as PNG files beside it, and every table as a CSV file. Records are
read block by block, a few columns at a time, so runs larger than memory are fine; a run
made with --records none gets every section its block aggregates allow, and the report
says which sections need records.
"""

from __future__ import annotations

import argparse
import csv
import html
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

import sim
from analysis.tables import (
    COLON_WORDS,
    COLONS,
    LEVELS,
    STRAINS,
    UPCARD_GROUPS,
    ColonTally,
    ContractTally,
    DealScoreTally,
    DrawTrickTally,
    EuchreTally,
    GameTally,
    Hist,
    ReportError,
    RunData,
    UpcardTally,
    euchre_bids,
    fill,
)
from sim.rules import GAMES, option_table
from sim.summary import percent, rate

matplotlib.use("Agg")  # figures go to PNG files only

GAME_TITLES = {"bridgette": "Bridgette", "draw-bridge": "Draw Bridge", "bid-euchre": "Bid Euchre"}
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
EUCHRE_SEATS = ("dealer", "dealer's left", "dealer's partner", "dealer's right")  # seat - dealer mod 4


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
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:,.1f}" if abs(x) >= 10 else f"{x:,.2f}"


def csv_header(table: Table) -> list[str]:
    header = []
    for j, name in enumerate(table.columns):
        col = [row[j] for row in table.rows]
        if any(_is_rate(c) for c in col):
            header += [f"{name} %", f"{name} % lo95", f"{name} % hi95", f"{name} n"]
        elif any(_is_mean(c) for c in col):
            header += [f"{name} mean", f"{name} lo95", f"{name} hi95", f"{name} n"]
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
                out += [round(100 * cell["rate"], 4), round(100 * lo, 4), round(100 * hi, 4), cell["n"]]
        elif any(_is_mean(c) for c in col):
            if cell is None or not cell["n"]:
                out += ["", "", "", 0]
            else:
                lo, hi = cell["mean_ci95"]
                out += [round(cell["mean"], 4), round(lo, 4), round(hi, 4), cell["n"]]
        elif isinstance(cell, (np.integer, np.floating, np.bool_)):
            out.append(cell.item())
        else:
            out.append("" if cell is None else cell)
    return out


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

def run_section(rep: Report) -> None:
    d, m, c = rep.data, rep.data.manifest, rep.data.config
    rep.section("run", "The run")
    timing = m.get("timing") or {}
    sides = "team" if d.game == "bid-euchre" else "seat"
    rows = [["game", GAME_TITLES[d.game]], ["games", f"{c['games']:,}"],
            ["deals" if d.game != "bid-euchre" else "hands", f"{d.summary.get('deals', 0):,}"],
            ["seed", str(c["seed"])], ["block size", f"{c['block_size']:,}"], ["records kept", c["records"]],
            ["tricksim version (run)", m.get("package_version", "?")],
            ["RULES_VERSION (run)", str(c.get("rules_version", "?"))],
            ["tricksim version (report)", sim.__version__]]
    if timing.get("seconds") is not None:
        rows.append(["run time (last session)", f"{timing['seconds']:.1f} s for {timing.get('games_played_now', 0):,} games"])
    rows += [[f"policy of seat {s}" + (f" (team {s % 2})" if sides == "team" else ""), p]
             for s, p in enumerate(c["policies"])]
    rep.body.append('<div class="row">')
    rep.table(Table("run", "Configuration", ["item", "value"], rows))
    opts = option_table(GAMES[d.game])
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


def contract_section(rep: Report, t: ContractTally, from_records: bool) -> None:
    rep.section("contracts", "Bid success", source_line(from_records))
    lowest = 0 if rep.data.game == "bridgette" else 1
    levels = [lv for lv in LEVELS if lv >= lowest]
    rep.para(f"Contracts made: <b>{inline(t.overall())}</b> of {t.played.sum():,} played; "
             f"passed out {inline(t.passed_out())} of {t.deals:,} deals. Intervals are 95% Wilson "
             "score intervals. A contract is made when the declarer takes 6 + level tricks.")
    fig, ax = figure(8.5, 6.2, "Contracts made by level and strain")
    ax = ax[0, 0]
    grid = np.full((len(levels), 5), np.nan)
    for i, lv in enumerate(levels):
        for s in range(5):
            if t.played[lv, s]:
                grid[i, s] = 100 * t.made[lv, s] / t.played[lv, s]
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    for i, lv in enumerate(levels):
        for s in range(5):
            r = t.cell(lv, s)
            if r["n"]:
                lo, hi = r["ci95"]
                ax.text(s, i, f"{pct(r):.0f}%\n[{100 * lo:.0f}, {100 * hi:.0f}]\nn={r['n']:,}",
                        ha="center", va="center", fontsize=7)
            elif lv or s == 4:
                ax.text(s, i, "never bid", ha="center", va="center", fontsize=7, color="#777")
    ax.set_xticks(range(5), STRAINS)
    ax.set_yticks(range(len(levels)), [str(lv) for lv in levels])
    ax.set_xlabel("strain")
    ax.set_ylabel("level (tricks over six)")
    fig.colorbar(im, ax=ax, label="contracts made (%)")
    rep.figure(fig, "contracts_heatmap", "Contracts made (%) by level and strain; each cell shows the rate, "
               "its 95% Wilson interval and the number of contracts played.")
    rows = []
    for lv in levels:
        rows.append([str(lv)] + [t.cell(lv, s) if (lv or s == 4) else None for s in range(5)] + [t.by_level(lv)])
    rows.append(["all"] + [t.by_strain(s) for s in range(5)] + [t.overall()])
    rep.table(Table("contracts_made", "Contracts made by level (rows) and strain (columns), 95% intervals",
                    ["level"] + list(STRAINS) + ["all"], rows))

    rows = [["dealer", t.by_declarer[0, 0], t.declarer(True)],
            ["non-dealer", t.by_declarer[1, 0], t.declarer(False)]]
    rep.table(Table("made_by_declarer", "Contracts made by declarer", ["declarer", "contracts", "made"], rows))
    fig, ax = figure(9, 3.6, "Contracts made by level and by declarer", 1, 2)
    rate_bars(ax[0, 0], [t.by_level(lv) for lv in levels], color=COLORS[0])
    ax[0, 0].set_xticks(range(len(levels)), [str(lv) for lv in levels])
    ax[0, 0].set_xlabel("level (tricks over six)")
    ax[0, 0].set_ylabel("contracts made (%)")
    ax[0, 0].set_ylim(0, 105)
    ax[0, 0].grid(axis="y", alpha=0.3)
    rate_bars(ax[0, 1], [t.declarer(True), t.declarer(False)], color=[COLORS[0], COLORS[1]], width=0.5)
    ax[0, 1].set_xticks([0, 1], ["dealer declares", "non-dealer declares"])
    ax[0, 1].set_ylabel("contracts made (%)")
    ax[0, 1].set_ylim(0, 105)
    ax[0, 1].grid(axis="y", alpha=0.3)
    rep.figure(fig, "made_by_level_declarer", "Contracts made (%) by level, all strains together, and by "
               "whether the dealer declares; error bars are 95% Wilson intervals.")

    if t.result is None:
        rep.needs_records("The over- and undertrick distribution")
        return
    res = t.result.as_dict()
    n = t.result.n
    if not n:
        return
    values = list(range(min(res["values"]), max(res["values"]) + 1))
    table = dict(zip(res["values"], res["counts"]))
    rates = [rate(table.get(v, 0), n) for v in values]
    fig, ax = figure(9, 3.8, "Declarer's tricks against the contract")
    ax = ax[0, 0]
    rate_bars(ax, rates, color=[COLORS[2] if v >= 0 else COLORS[1] for v in values])
    ax.set_xticks(range(len(values)), [f"{v:+d}" if v else "0" for v in values])
    ax.set_xlabel("tricks over (+) or under (-) the contract; 0 = made exactly")
    ax.set_ylabel("% of contracts played")
    ax.grid(axis="y", alpha=0.3)
    rep.figure(fig, "over_under", "Overtricks (green) and undertricks (red) as a share of contracts played, "
               "with 95% Wilson intervals.")
    rep.table(Table("over_under", "Over- and undertricks", ["tricks against the contract", "contracts", "share"],
                    [[f"{v:+d}" if v else "0 (exactly)", table.get(v, 0), r] for v, r in zip(values, rates)]))


def score_section(rep: Report, deals: DealScoreTally | None, games: GameTally | None,
                  deals_from_records: bool, games_from_records: bool) -> None:
    euchre = rep.data.game == "bid-euchre"
    side = ["team 0 (seats 0, 2)", "team 1 (seats 1, 3)"] if euchre else ["seat 0", "seat 1"]
    deal = "hand" if euchre else "deal"
    rep.section("scores", "Scores and game wins",
                f"{deal.capitalize()} scores {source_words(deals_from_records, deal)}; games "
                f"{source_words(games_from_records, 'game')}.")
    fig, ax = figure(11, 4, f"Score distributions by {'team' if euchre else 'seat'}", 1, 2)
    hist_panel(ax[0, 0], deals.scores, side, "points", f"score per {deal}")
    ax[0, 0].set_title(f"per {deal}")
    hist_panel(ax[0, 1], games.totals, side, "points", "total per game")
    ax[0, 1].set_title("per game")
    rep.figure(fig, "scores", f"Distribution of each {'team' if euchre else 'seat'}'s score per {deal} and "
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

    dealers = len(games.wins)
    labels = ["all games"] + [f"seat {d} deals first" for d in range(dealers)]
    cols = [None] + list(range(dealers))
    rows = []
    for label, fd in zip(labels, cols):
        n = int(games.wins.sum() if fd is None else games.wins[fd].sum())
        row = [label, n, games.side_wins(0, fd), games.side_wins(1, fd)]
        if not euchre:
            row.append(games.outcome(2, fd))
        row.append(games.outcome(3, fd))
        rows.append(row)
    names = side + ([] if euchre else ["drawn"]) + ["abandoned"]
    rep.table(Table("game_wins", "Game results by first dealer (C-6)", ["games", "n"] + [f"{n} wins" if "seat" in n
              or "team" in n else n for n in names], rows))
    fd = games.first_dealer_wins()
    rep.para(f"The first dealer's {'team' if euchre else 'side'} wins {inline(fd)} of {games.games:,} games; "
             f"{'hands' if euchre else 'deals'} per game: mean {_num(games.deals.describe()['mean'])}.")
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


PLAY_WORDS = ("follow (B-8)", "lead (B-9)", "discard")


def colon_section(rep: Report, t: ColonTally | None, from_records: bool) -> None:
    rep.section("colons", "Colons (Bridgette)", source_line(from_records))
    if not rep.data.rules["deck"]["colons"]:
        rep.note("This run's deck has no Colons (<code>deck.colons = []</code>, B-4).")
        return
    if t is None:
        rep.needs_records("The Colon section (this run's aggregates have no Colon counts)")
        return
    rep.para("Kept: the Colon is in a hand after the exchange (B-3). Held by the declarer or the defender: of "
             "contracts played. A Colon is played as a <b>follow</b> when it answers a suited lead of its own "
             "range (B-8: it loses the trick and bars the leader's suit), as a <b>lead</b> (B-9: it wins unless "
             "the follower trumps or plays a card of its range), or as a <b>discard</b>: to a lead outside its "
             "range (B-10) or on a led Colon; a follow and a discard always lose.")
    words = [COLON_WORDS[COLONS.index(c)] for c in t.colons]
    idx = range(len(words))
    holders = t.held is not None
    if holders:
        rows = [[w, t.kept_rate(i), t.holder_share(i, 0), t.holder_share(i, 1), t.made_when(i, True),
                 t.made_when(i, False), t.score_with[i].describe(), t.score_without[i].describe()]
                for i, w in enumerate(words)]
        rep.table(Table("colons", "Each Colon: kept, held, contracts made and a seat's mean deal score (points) "
                        "with and without it", ["Colon", "kept", "declarer holds", "defender holds",
                                                "made, declarer holds", "made, declarer lacks",
                                                "deal score, seat holds", "deal score, seat lacks"], rows))
    else:
        rep.table(Table("colons", "Each Colon: kept after the exchange", ["Colon", "kept"],
                        [[w, t.kept_rate(i)] for i, w in enumerate(words)]))
    fig, ax = figure(11, 7.5, "Colons: who keeps them, what they do to contracts, how they are played", 2, 2)
    kept = {"kept (of deals)": [t.kept_rate(i) for i in idx]}
    if holders:
        kept["declarer holds (of contracts)"] = [t.holder_share(i, 0) for i in idx]
        kept["defender holds (of contracts)"] = [t.holder_share(i, 1) for i in idx]
        grouped_rates(ax[0, 1], words, {"declarer holds it": [t.made_when(i, True) for i in idx],
                                        "declarer lacks it": [t.made_when(i, False) for i in idx]},
                      "contracts made (%)")
        ax[0, 1].set_title("contracts made with and without it")
        ax[0, 1].set_ylim(0, 105)
    else:
        _blank(ax[0, 1], "holders and contracts need the deal records")
    grouped_rates(ax[0, 0], words, kept, "% of deals / contracts")
    ax[0, 0].set_title("kept after the exchange" + (", and by whom" if holders else ""))
    if t.plays_known:
        grouped_rates(ax[1, 0], words, {p: [t.play_share(i, k) for i in idx] for k, p in enumerate(PLAY_WORDS)},
                      "% of deals where it is kept")
        ax[1, 0].set_title("how it is played")
        grouped_rates(ax[1, 1], words, {p: [t.win_rate(i, k) for i in idx] for k, p in enumerate(PLAY_WORDS)},
                      "tricks won (%)")
        ax[1, 1].set_title("tricks won when played so")
        ax[1, 1].set_ylim(0, 105)
    else:
        _blank(ax[1, 0], "no Colon play columns in these records")
        _blank(ax[1, 1], "no Colon play columns in these records")
    rep.figure(fig, "colons", "Each Colon: kept after the exchange and held by declarer or defender; contracts "
               "made when the declarer holds it or not; how it is played and how often that trick is won. Error "
               "bars are 95% Wilson intervals.")
    if not holders:
        rep.needs_records("Who holds each Colon, contracts made and deal scores with and without it")
    if not t.plays_known:
        rep.note("These records have no <code>colon_*_play</code> / <code>colon_*_won</code> columns (a run made "
                 "before they were recorded): rerun to see how the Colons are played.")
        return
    rows = [[w, PLAY_WORDS[k], t.played[i, k], t.play_share(i, k), t.win_rate(i, k)]
            for i, w in enumerate(words) for k in range(3)]
    rep.table(Table("colon_plays", "How each Colon is played (share of deals where it is kept) and how often it "
                    "wins that trick", ["Colon", "played as", "deals", "share", "trick won"], rows))


def _blank(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#777")
    ax.set_axis_off()


def upcard_section(rep: Report, t: UpcardTally | None) -> None:
    rep.section("upcard", "Up-card (Bridgette)", source_line(t is not None) if t else None)
    if t is None:
        rep.needs_records("The up-card section")
        return
    rep.para("The up-card's class sets the dealer's draw (B-3: a numeral or the Little Colon 4 cards, a face "
             "card or the Royal Colon 8, an ace or the Grand Colon 12). The dealer's advantage is the dealer's "
             "deal score minus the non-dealer's.")
    groups = [k for k in range(len(UPCARD_GROUPS)) if t.deals[k]]
    labels = [UPCARD_GROUPS[k] for k in groups]
    adv = [t.advantage[k].describe() for k in groups]
    share = [rate(t.dealer_declares[k], t.played[k]) for k in groups]
    made = [rate(t.made[k], t.played[k]) for k in groups]
    dealer_made = [rate(t.dealer_made[k], t.dealer_declares[k]) for k in groups]
    rows = [[lab, int(t.deals[k]), rate(t.deals[k], t.deals.sum()), a, s, m, dm]
            for lab, k, a, s, m, dm in zip(labels, groups, adv, share, made, dealer_made)]
    rep.table(Table("upcard", "By up-card class", ["up-card", "deals", "share of deals", "dealer's advantage (points)",
                                                   "dealer declares", "contracts made", "dealer's contracts made"],
                    rows))
    fig, ax = figure(12, 4, "Up-card class: the dealer's advantage, declarer and success", 1, 3)
    mean_points(ax[0, 0], adv, color=COLORS[0])
    ax[0, 0].axhline(0, color="#888", linewidth=1, linestyle=":")
    ax[0, 0].set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax[0, 0].set_ylabel("dealer minus non-dealer (points per deal)")
    ax[0, 0].set_title("dealer's mean score advantage")
    ax[0, 0].grid(axis="y", alpha=0.3)
    rate_bars(ax[0, 1], share, color=COLORS[1])
    ax[0, 1].set_ylabel("contracts the dealer declares (%)")
    ax[0, 1].set_title("dealer declares")
    grouped_rates(ax[0, 2], labels, {"all contracts": made, "dealer's contracts": dealer_made}, "contracts made (%)")
    ax[0, 2].set_title("contracts made")
    for a in (ax[0, 1], ax[0, 2]):
        a.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        a.set_ylim(0, 105)
        a.grid(axis="y", alpha=0.3)
    rep.figure(fig, "upcard", "By up-card class: the dealer's mean deal score minus the non-dealer's (points, "
               "95% interval of the mean), the share of contracts the dealer declares, and contracts made "
               "(95% Wilson intervals).")


def draw_section(rep: Report, t: DrawTrickTally, from_records: bool) -> None:
    rep.section("draw", "Draw phase (Draw Bridge)", source_line(from_records))
    rep.para("Each seat in each deal counts once: the tricks it won in the draw phase (D-2), whether it then "
             "became declarer (D-3), and whether it made its contract (D-4, D-5).")
    ks = [k for k in range(14) if t.table[k, 0]]
    declares = [rate(t.table[k, 1], t.table[k, 0]) for k in ks]
    makes = [rate(t.table[k, 2], t.table[k, 1]) for k in ks]
    both = [rate(t.table[k, 2], t.table[k, 0]) for k in ks]
    rep.table(Table("draw_tricks", "Draw-phase tricks won against the contract",
                    ["draw tricks won", "seat-deals", "declares", "makes (of declared)", "declares and makes"],
                    [[k, int(t.table[k, 0]), d, m, b] for k, d, m, b in zip(ks, declares, makes, both)]))
    fig, ax = figure(9, 4, "Draw-phase tricks won vs contract obtained and made")
    ax = ax[0, 0]
    for k, (name, rates) in enumerate((("declares", declares), ("makes, of contracts declared", makes),
                                       ("declares and makes", both))):
        ax.errorbar(ks, [pct(r) for r in rates], yerr=pct_err(rates), fmt="o-", capsize=3, color=COLORS[k],
                    label=name)
    ax.set_xticks(ks)
    ax.set_xlabel("tricks the seat won in the draw phase (of 13)")
    ax.set_ylabel("% of seat-deals / contracts")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    rep.figure(fig, "draw_tricks", "How often a seat that won k draw-phase tricks then declares, makes its "
               "contract, and both; 95% Wilson intervals.")


def euchre_sections(rep: Report, t: EuchreTally, from_records: bool) -> None:
    rep.section("bids", "Bids (Bid Euchre)", source_line(from_records, "hand"))
    ask, moon = t.bids[-2], t.bids[-1]
    rep.para(f"Bids made: <b>{inline(rate(t.made.sum(), t.played.sum()))}</b> of {t.played.sum():,} bids in "
             f"{t.hands:,} hands. A bid of 3-5 is made with that many tricks; {ask} (asking for help, E-4) and "
             f"{moon} (shooting the moon, E-5) need every trick (E-7).")
    labels = list(t.bids) + ["void: all passed", "void: ace no face"]
    shares = [t.share(k) for k in range(len(t.bids))] + [rate(t.voids[1], t.hands), rate(t.voids[2], t.hands)]
    success = [t.success(k) for k in range(len(t.bids))] + [None, None]
    rep.table(Table("bids", "Bids: share of hands and bids made", ["bid", "hands", "share of hands", "made"],
                    [[lab, int(s["successes"]), s, m] for lab, s, m in zip(labels, shares, success)]))
    fig, ax = figure(11, 3.8, "Bid distribution and success by bid", 1, 2)
    rate_bars(ax[0, 0], shares, color=[COLORS[0]] * len(t.bids) + ["#999", "#999"])
    ax[0, 0].set_xticks(range(len(labels)), [lab.replace(": ", "\n") for lab in labels], fontsize=8)
    ax[0, 0].set_xlabel("winning bid")
    ax[0, 0].set_ylabel("% of hands")
    ax[0, 0].set_title("bid distribution")
    ax[0, 0].grid(axis="y", alpha=0.3)
    rate_bars(ax[0, 1], success[:len(t.bids)], color=COLORS[2])
    ax[0, 1].set_xticks(range(len(t.bids)), t.bids)
    ax[0, 1].set_xlabel("winning bid")
    ax[0, 1].set_ylabel("bids made (%)")
    ax[0, 1].set_ylim(0, 105)
    ax[0, 1].set_title("success by bid")
    ax[0, 1].grid(axis="y", alpha=0.3)
    rep.figure(fig, "bids", "Share of hands won by each bid (grey: void hands) and the share of each bid made; "
               "95% Wilson intervals.")

    rep.section("six", f"{ask} and {moon} outcomes (Bid Euchre)", source_line(from_records, "hand"))
    if t.six_tricks is None:
        rep.para(f"{ask} made {inline(t.success(len(t.bids) - 2))}; {moon} made "
                 f"{inline(t.success(len(t.bids) - 1))}.")
        rep.needs_records(f"The distribution of tricks and points of {ask} and {moon}")
    else:
        tricks = 12 if ask.startswith("12") else 6
        rows, dist = [], {}
        for k, name in enumerate((ask, moon)):
            h = t.six_tricks[k]
            tab = h.table
            dist[name] = [rate(tab.get(x, 0), h.n) for x in range(tricks + 1)]
            rows.append([name, h.n, t.success(len(t.bids) - 2 + k), h.describe(), t.six_points[k].describe()])
        rep.table(Table("six_bids", f"{ask} and {moon}: made (every trick), the bidding team's tricks and points",
                        ["bid", "hands", "made", "tricks (mean)", "points (mean)"], rows))
        rep.table(Table("six_tricks", f"Tricks the bidding team takes on {ask} and {moon}",
                        ["tricks"] + [f"{n} share" for n in dist],
                        [[x] + [dist[n][x] for n in dist] for x in range(tricks + 1)]))
        fig, ax = figure(9, 3.8, f"{ask} and {moon}: tricks taken by the bidding team")
        grouped_rates(ax[0, 0], [str(x) for x in range(tricks + 1)], dist, f"% of {ask} / {moon} bids")
        ax[0, 0].set_xlabel(f"tricks taken (of {tricks}; all {tricks} = made)")
        rep.figure(fig, "six_tricks", f"Tricks the bidding team takes after {ask} and {moon}; 95% Wilson "
                   "intervals.")

    rep.section("seats", "Seats from the dealer (Bid Euchre)", source_line(from_records, "hand"))
    rep.para("Seats are counted to the dealer's left (E-3: the auction starts at the dealer's left and ends with "
             "the dealer). A seat's points per hand are its team's, so the dealer and the dealer's partner share "
             "them, as do the other two.")
    rows = []
    for k in range(4):
        row = [EUCHRE_SEATS[k], t.seat_share(k), t.seat_success(k)]
        if t.team_points is not None:
            row += [t.team_points[k].describe(), t.bidder_points[k].describe()]
        rows.append(row)
    cols = ["seat", "bids (of hands)", "bids made"]
    if t.team_points is not None:
        cols += ["team points per hand", "team points on hands it bid"]
    rep.table(Table("seats", "By seat from the dealer", cols, rows))
    fig, ax = figure(11, 3.8, "By seat relative to the dealer", 1, 2)
    grouped_rates(ax[0, 0], EUCHRE_SEATS, {"bids (of hands)": [t.seat_share(k) for k in range(4)],
                                           "bids made": [t.seat_success(k) for k in range(4)]}, "%")
    ax[0, 0].set_ylim(0, 105)
    ax[0, 0].set_title("who bids, and with what success")
    if t.team_points is not None:
        mean_points(ax[0, 1], [t.team_points[k].describe() for k in range(4)], np.arange(4) - 0.1,
                    color=COLORS[0], label="every hand")
        mean_points(ax[0, 1], [t.bidder_points[k].describe() for k in range(4)], np.arange(4) + 0.1,
                    color=COLORS[1], label="hands this seat bid")
        ax[0, 1].set_xticks(range(4), EUCHRE_SEATS)
        ax[0, 1].set_ylabel("team points per hand")
        ax[0, 1].set_title("points per hand of the seat's team")
        ax[0, 1].legend(fontsize=8)
        ax[0, 1].grid(axis="y", alpha=0.3)
    else:
        _blank(ax[0, 1], "points by seat need the per-hand records")
        rep.needs_records("Points per hand by seat relative to the dealer")
    rep.figure(fig, "seats", "By seat from the dealer: share of hands it bids and bids made (95% Wilson "
               "intervals); its team's mean points per hand, over all hands and over the hands it bid (95% "
               "intervals of the mean).")


# --- Building it ------------------------------------------------------------------------------

def build_report(run_dir, out=None) -> Path:
    """Read a run folder and write its report; returns the path of index.html."""
    data = RunData(run_dir)
    out = Path(out) if out is not None else data.path / "report"
    if out.exists() and not out.is_dir():
        raise ReportError(f"output folder {out} is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot create output folder {out}: {exc.strerror}") from None
    deals_rec, games_rec = data.has("deals"), data.has("games")
    agg = data.aggregates() if not (deals_rec and games_rec) else None
    game = data.game
    dealers = 4 if game == "bid-euchre" else 2
    games = GameTally(dealers) if games_rec else GameTally.from_aggregates(agg, dealers)
    if games_rec:
        fill(data, "games", [games])
    scores = DealScoreTally() if deals_rec else DealScoreTally.from_aggregates(agg)
    rep = Report(data, out)
    run_section(rep)
    if game == "bid-euchre":
        bids = euchre_bids(data.rules)
        euchre = EuchreTally(bids) if deals_rec else EuchreTally.from_aggregates(agg, bids)
        if deals_rec:
            fill(data, "deals", [euchre, scores])
        euchre_sections(rep, euchre, deals_rec)
        score_section(rep, scores, games, deals_rec, games_rec)
    else:
        contracts = ContractTally() if deals_rec else ContractTally.from_aggregates(agg)
        tallies = [contracts, scores]
        colons = upcard = draw = None
        in_deck = [c for c in COLONS if c in data.rules.get("deck", {}).get("colons", ())]
        if game == "bridgette" and deals_rec:
            columns = data.columns("deals")
            plays = all(f"colon_{c}_{k}" in columns for c in in_deck for k in ("play", "won"))
            colons, upcard = ColonTally(in_deck, plays), UpcardTally()
            tallies += [colons, upcard]
        elif game == "bridgette":
            colons = ColonTally.from_aggregates(agg, in_deck)
        if game == "draw-bridge":
            draw = DrawTrickTally() if deals_rec else DrawTrickTally.from_aggregates(agg)
            tallies.append(draw)
        if deals_rec:
            fill(data, "deals", tallies)
        contract_section(rep, contracts, deals_rec)
        score_section(rep, scores, games, deals_rec, games_rec)
        if game == "bridgette":
            colon_section(rep, colons, deals_rec)
            upcard_section(rep, upcard)
        else:
            draw_section(rep, draw, deals_rec)
    c = data.config
    return rep.write(f"{GAME_TITLES[game]} run report: {c['games']:,} games, seed {c['seed']}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m analysis.report", description=__doc__.split("\n\n")[1])
    p.error = lambda message: p.exit(2, f"{p.prog}: error: {message} (see --help)\n")  # one line, status 2
    p.add_argument("run_dir", metavar="RUN_DIR", help="a finished run folder (made by python -m sim.run)")
    p.add_argument("--out", metavar="DIR", help="folder for index.html, PNG and CSV files (default RUN_DIR/report)")
    args = p.parse_args(argv)
    try:
        path = build_report(args.run_dir, args.out)
    except ReportError as exc:
        print(f"python -m analysis.report: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
