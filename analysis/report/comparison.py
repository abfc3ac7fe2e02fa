"""The comparison report of two runs of one game: each metric's B - A with its 95% interval,
paired game by game (deal by deal) where the runs pair, unpaired (labelled so, with the
wider interval of two independent means) where they cannot; the numbers are those of
analysis.compare (sim.comparison.compare_runs)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np

from analysis.report import page
from analysis.report.page import figure
from analysis.report.plots import COLORS
from analysis.report.run import _toml, changed_rules, players
from analysis.tables import ReportError, RunData
from sim.games import GAMES
from sim.metrics import MetricsError, shown

HEADLINE = ("dealer_advantage", "first_dealer_wins", "contract_made")


def interval_html(m, value, ci, signed: bool = False) -> str:
    """A metric's value and its interval as a table cell."""
    if value is None:
        return "&ndash;"
    text = html.escape(m.format(value, signed))
    if ci is None:
        return text
    return f'{text} <span class="ci">[{html.escape(m.format(ci[0], signed))}, {html.escape(m.format(ci[1], signed))}]</span>'


def how_measured(r: dict) -> str:
    """How B - A's interval was found, in words, for its row."""
    if r["diff"] is None:
        return html.escape(r.get("note", "not measurable"))
    if r["paired"]:
        saved = r.get("variance_reduction")
        return "paired" + ("" if saved is None else f"; variance saved {100 * saved:z.0f}%")
    if r.get("source") == "summaries":
        return '<span class="warn">unpaired</span>, from the runs\' summaries (no records for it): a wider interval'
    return '<span class="warn">unpaired</span> (Welch): the difference of two independent means, a wider interval'


def headline_row(name: str, r: dict) -> tuple[str, str, str]:
    """A metric's row of a comparison's headline box: B - A with its interval, A and B beside."""
    m = shown(name, r)
    return (f"{html.escape(r['label'])}, B &minus; A", interval_html(m, r["diff"], r["ci95"], True),
            f"A {interval_html(m, r['a'], r['a_ci95'])}; B {interval_html(m, r['b'], r['b_ci95'])} "
            f"({html.escape(r['unit'])})")


def differences(a: RunData, b: RunData) -> list[list[str]]:
    """[what, A, B] for everything that differs between the two runs' configurations."""
    rows = []
    for what, key in (("seed", "seed"), ("games (deals)", "games"), ("records kept", "records")):
        if a.config.get(key) != b.config.get(key):
            rows.append([what, str(a.config.get(key)), str(b.config.get(key))])
    da, db = a.summary.get("dealing"), b.summary.get("dealing")
    if (da or {}).get("description") != (db or {}).get("description"):
        rows.append(["dealt", html.escape((da or {}).get("description", "whole games")),
                     html.escape((db or {}).get("description", "whole games"))])
    return rows + setup_differences(a.game, (a.config["policies"], b.config["policies"]), (a.rules, b.rules))


def setup_differences(game: str, policies, rules) -> list[list[str]]:
    """[what, A, B] for the players and each rule option that differ between A and B."""
    rows = []
    pa, pb = ([str(p) for p in side] for side in policies)
    if pa != pb:
        rows.append(["players", players(pa), players(pb)])
    defaults = {o: d for o, _, d in changed_rules(game, rules[0]) + changed_rules(game, rules[1])}
    for option in sorted(defaults):
        table, key = option.split(".")
        va, vb = (r.get(table, {}).get(key) for r in rules)
        if va != vb:
            rows.append([f"<code>{option}</code>", html.escape(_toml(va)), html.escape(_toml(vb))])
    return rows


def rule_warnings_html(result: dict) -> str:
    """sim.activity's warnings of a comparison or sweep: a varied rule that rarely applied."""
    return "".join(f'<p><span class="warn">rarely applied</span>: {html.escape(w.removeprefix("warning: "))}</p>'
                   for w in result.get("rule_warnings", ()))


def default_out(path_a, path_b, inside: bool = True) -> Path:
    """RUN_B/report-vs-<A's name>; beside B (B-report-vs-<A's name>) where B is a folder that
    holds its own files only (a stratified run or a multilevel folder: its command would not
    resume with the report inside). A folder within such folders is named by them all
    (page.outside: scA/stratum-ace is scA-stratum-ace), so that two comparisons of strata of
    other runs go to two folders."""
    name = page.outside(path_a)[1]
    return Path(path_b).resolve() / f"report-vs-{name}" if inside else page.beside(path_b, f"-report-vs-{name}")


def compared(path_a, path_b, out, metrics, inside: bool) -> tuple[dict, Path]:
    """analysis.compare's result for A and B (its faults a ReportError) and the report's
    folder: ``out``, else ``default_out`` (``inside`` B where B is a run folder)."""
    from analysis.compare import compare
    from sim.multilevel import MultilevelError

    try:
        result = compare(path_a, path_b, metrics)
    except (MetricsError, MultilevelError) as exc:
        raise ReportError(str(exc)) from None
    return result, page.report_folder(Path(out) if out is not None else default_out(path_a, path_b, inside))


@page.releases_folders
def build_comparison_report(path_a, path_b, out=None, metrics=None) -> Path:
    """Compare B with A (the baseline) and write the report; the path of index.html. A and B
    are two runs or two stratified runs (B - A overall and in each stratum), as
    analysis.compare takes them (two multilevel folders: analysis.report.multilevel);
    ``metrics``: its --metrics texts."""
    from analysis.compare import sizes_words
    from sim.multilevel import is_multilevel_folder
    from sim.strata_comparison import is_strata_run

    run_data = [None if is_multilevel_folder(p) or is_strata_run(p) else RunData(p) for p in (path_a, path_b)]
    result, out = compared(path_a, path_b, out, metrics, run_data[1] is not None)
    rep = page.Report(None, out)
    info, unit = GAMES[result["game"]], result["unit"]
    one = unit[:-1]
    paired = result["paired"]
    rows = []
    for name in [n for n in HEADLINE if n in result["metrics"]] or list(result["metrics"])[:3]:
        rows.append(headline_row(name, result["metrics"][name]))
    stratified = "stratify" in result
    partly = stratified and not all(s["paired"] for s in result["strata"])
    sides = [(result["policies"][k], result["rules"][k]) for k in "ab"]  # (players, rules) of A and of B
    if stratified:
        diffs = [[what, *map(str, pair)] for what, pair in (("seed", result["seeds"]), ("deals", result["sizes"]))
                 if pair[0] != pair[1]] + setup_differences(result["game"], *zip(*sides))
    else:
        diffs = differences(*run_data)
    rows.append(("B differs from A in", "" if diffs else "nothing",
                 "; ".join(f"{w}: {x} &rarr; {y}" for w, x, y in diffs)))
    how = " by the stratified estimator" if stratified else ""
    pairing = (f"Paired {one} by {one}{how}: {html.escape(result['pairing'])}." if paired else
               f'<span class="warn">UNPAIRED</span>: {html.escape(result["pairing"])}; each interval of B &minus; A '
               f"is the wider one of two independent runs{'' if stratified else ' (Welch)'}. Play B with A's seed "
               f"and number of {unit} to pair them.")
    rep.headline(rows, f"<p>A = <code>{html.escape(str(path_a))}</code>, B = <code>{html.escape(str(path_b))}"
                       f"</code>. {pairing}</p>" + rule_warnings_html(result))

    rep.section("metrics", "Each metric: A, B and B \u2212 A")
    rep.para("Each value with its 95% interval; B &minus; A with the interval of the difference, paired where the "
             "runs pair and both kept the records the metric reads. Variance saved: how much smaller the variance "
             "of B &minus; A is than for two independent runs of the same size (analysis.compare)."
             + (" Overall figures are the stratified estimates: each stratum's ratio weighted by its probability."
                if stratified else ""))
    table, csv_rows = [], []
    for name, r in result["metrics"].items():
        m = shown(name, r)
        table.append([f"{html.escape(r['label'])} ({html.escape(r['unit'])})", interval_html(m, r["a"], r["a_ci95"]),
                      interval_html(m, r["b"], r["b_ci95"]), interval_html(m, r["diff"], r["ci95"], True),
                      how_measured(r)])
        csv_rows.append([name, r["unit"], r["a"], *(r["a_ci95"] or [None, None]), r["b"], *(r["b_ci95"] or [None, None]),
                         r["diff"], *(r["ci95"] or [None, None]), r["paired"], r.get("variance_reduction"),
                         r.get("source")])
    rep.csv("comparison", ["metric", "unit", "a", "a_lo95", "a_hi95", "b", "b_lo95", "b_hi95", "b_minus_a",
                           "b_minus_a_lo95", "b_minus_a_hi95", "paired", "variance_saved", "source"], csv_rows)
    rep.html_table("comparison", "Metrics of A and B, and B \u2212 A (95% intervals)",
                   ["metric", "A", "B", "B \u2212 A", "interval of B \u2212 A"], table)
    shown_metrics = [(name, r) for name, r in result["metrics"].items() if r["diff"] is not None]
    if shown_metrics:
        fig = comparison_figure(shown_metrics, paired)
        rep.figure(fig, "comparison", "Left: each run's value with its own 95% interval. Right, apart: B \u2212 A "
                   f"with its {'paired' if paired else 'unpaired (wider)'} 95% interval; the dashed line is no "
                   "difference.")
    if stratified:
        stratum_section(rep, result)

    rep.section("runs", "The two runs")
    items = [["game", info.title, info.title], [unit, *(f"{n:,}" for n in result["sizes"])],
             ["seed", *map(str, result["seeds"])],
             ["records kept", *(["deals, in each stratum's run folder"] * 2 if stratified
                                else [d.records for d in run_data])],
             ["players", *(players(p) for p, _ in sides)],
             ["rules changed from the defaults",
              *["; ".join(f"<code>{o} = {html.escape(_toml(v))}</code>" for o, v, _ in changed_rules(result["game"],
                                                                                                  rules))
                or "none" for _, rules in sides]]]
    if stratified:
        items.insert(1, ["stratified by", *[html.escape(result["stratify"])] * 2])
    rep.csv("runs", ["item", "A", "B"], [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in r] for r in items])
    rep.html_table("runs", "The runs compared", ["", "A", "B"], items)
    return rep.write(f"{info.title} comparison report: B against A, "
                     + (f"{sizes_words(result, unit)}, seed {result['seed']}, {'partly ' if partly else ''}paired"
                        if paired else "unpaired")
                     + (f", stratified by {result['stratify']}" if stratified else ""))


def stratum_section(rep, result: dict) -> None:
    """B - A in each stratum of two stratified runs, a row per stratum and metric."""
    rep.section("strata", "B \u2212 A in each stratum")
    rep.para("Each stratum's own comparison: its runs' values and B &minus; A with its 95% interval, paired deal by "
             "deal where the stratum's runs share their seed and number of deals. The overall figures above weight "
             "these by each stratum's probability.")
    cells, rows = [], []
    for name, r in result["metrics"].items():
        m = shown(name, r)
        for s, x in zip(result["strata"], r["by_stratum"]):
            cells.append([f"{html.escape(r['label'])}", f"{html.escape(s['name'])} ({s['probability']})",
                          interval_html(m, x["a"], None), interval_html(m, x["b"], None),
                          interval_html(m, x["diff"], x["ci95"], True),
                          "paired" if x["paired"] else '<span class="warn">unpaired</span>'])
            rows.append([name, s["name"], s["probability"], x["a"], x["b"], x["diff"], *(x["ci95"] or [None, None]),
                         x["paired"]])
    rep.csv("strata", ["metric", "stratum", "probability", "a", "b", "b_minus_a", "b_minus_a_lo95", "b_minus_a_hi95",
                       "paired"], rows)
    rep.html_table("strata", "B \u2212 A in each stratum (95% intervals)",
                   ["metric", "stratum (probability)", "A", "B", "B \u2212 A", "how"], cells)


def comparison_figure(metrics: list[tuple[str, dict]], paired: bool):
    """A row per metric: A and B with their own intervals, and B - A apart with its interval."""
    fig = figure(9, 0.6 + 1.9 * len(metrics), "Runs A and B, and B \u2212 A", len(metrics), 2)[0]
    axes = np.array(fig.axes).reshape(len(metrics), 2)
    for (name, r), (left, right) in zip(metrics, axes):
        m = shown(name, r)
        scale = 100 if m.percent else 1
        for k, (side, value, ci) in enumerate((("A", r["a"], r["a_ci95"]), ("B", r["b"], r["b_ci95"]))):
            err = [[0], [0]] if ci is None else [[scale * (value - ci[0])], [scale * (ci[1] - value)]]
            left.errorbar([scale * value], [k], xerr=err, fmt="o", capsize=4, color=COLORS[k])
        left.set_yticks([0, 1], ["A", "B"])
        left.set_ylim(-0.6, 1.6)
        left.set_xlabel(f"{r['label']} ({r['unit'].replace('share of ', '% of ')})")
        left.grid(axis="x", alpha=0.3)
        ci = r["ci95"]
        err = [[0], [0]] if ci is None else [[scale * (r["diff"] - ci[0])], [scale * (ci[1] - r["diff"])]]
        right.errorbar([scale * r["diff"]], [0], xerr=err, fmt="s", capsize=4, color="#333")
        right.axvline(0, color="#888", linestyle="--", linewidth=1)
        right.set_yticks([0], ["B \u2212 A"])
        right.set_ylim(-1, 1)
        right.set_xlabel(f"B \u2212 A, {'paired' if paired and r['paired'] else 'unpaired'}")
        right.grid(axis="x", alpha=0.3)
    return fig
