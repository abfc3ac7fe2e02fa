"""The report of a multilevel folder (``sim.run --deals N --control LEVEL``): each metric's
multilevel estimate with its estimator and 95% interval, beside the plain estimate of the
target's own deals, the variance saved (also at equal wall time) and the plain deals the
estimate stands for; then each level's deals and seconds, and each step's fitted
coefficients. The numbers are the folder's own, made again from its levels' files by
sim.multilevel.read_folder, which checks every file first."""

from __future__ import annotations

import html
from pathlib import Path

from analysis.report import page
from analysis.report.comparison import compared, comparison_figure, headline_row, interval_html
from analysis.report.sweep import default_out
from analysis.report.page import Table
from analysis.tables import ReportError
from sim.games import game_info
from sim.metrics import shown
from sim.multilevel import MultilevelError, read_folder


def _times(x) -> str:
    """A factor of variance saved, as the tables show it."""
    return "&ndash;" if x is None else f"{x:.2f}x"


@page.releases_folders
def build_multilevel_report(path, out=None) -> Path:
    """Read a finished multilevel folder and write its report; the path of index.html."""
    path = Path(path)
    try:
        folder = read_folder(path)
    except MultilevelError as exc:
        raise ReportError(str(exc)) from None
    kept = folder["metrics"]
    out = page.report_folder(Path(out) if out is not None else default_out(path))
    game, rep = folder["game"], page.Report(None, out)
    info = game_info(game)
    target = next(iter(folder["sizes"]))
    top = []
    for name, entry in kept.items():
        m = shown(name, entry)
        signed = m.balance == 0
        top.append((html.escape(m.words(game, True)), interval_html(m, entry["value"], entry["ci95"], signed),
                    f"{html.escape(m.unit_for(game, True))}; {html.escape(entry['estimator'])}"))
    rep.headline(top, f"<p>{folder['sizes'][target]:,} {info.deal}s of the target "
                      f"(<code>{html.escape(', '.join(folder['policies']))}</code>), seed {folder['seed']}, with "
                      f"{len(folder['sizes']) - 1} played control level(s); 95% intervals.</p>")
    rep.section("estimates", "Estimates")
    rep.para("Each metric of the target, estimated from its own deals and from cheaper levels that played the "
             "same deals (deal <i>i</i> of a seed is the same deal for every policy): the interval counts both "
             "samples' variance and the fitted coefficients'. <i>Plain</i> is the target's deals alone; "
             "<i>saved</i> is how much less variance the estimate has, also at equal wall time (every level's "
             "seconds counted), and <i>stands for</i> the plain target deals it is worth.")
    rows, cells = [], []
    for name, entry in kept.items():
        m = shown(name, entry)
        signed = m.balance == 0
        cells.append([html.escape(m.words(game, True)), interval_html(m, entry["value"], entry["ci95"], signed),
                      interval_html(m, entry["plain_value"], entry["plain_ci95"], signed),
                      _times(entry.get("variance_saved")), _times(entry.get("equal_time_saved")),
                      "&ndash;" if entry.get("plain_deals") is None else f"{entry['plain_deals']:,.0f}",
                      html.escape(entry["estimator"])])
        ci, plain = entry["ci95"] or [None, None], entry["plain_ci95"] or [None, None]
        rows.append([name, m.unit_for(game, True), entry["value"], *ci, entry["plain_value"], *plain,
                     entry.get("variance_saved"), entry.get("equal_time_saved"), entry.get("plain_deals"),
                     entry["estimator"]])
    rep.csv("estimates", ["metric", "unit", "value", "lo95", "hi95", "plain_value", "plain_lo95", "plain_hi95",
                          "variance_saved", "equal_time_saved", "plain_deals", "estimator"], rows)
    rep.html_table("estimates", "Multilevel and plain estimates (95% intervals)",
                   ["metric", "multilevel", "plain (target's deals)", "saved", "at equal time", "stands for",
                    "estimator"], cells)
    for name, entry in kept.items():  # as sim.run printed them: a control that saves nothing, say
        for warning in entry.get("warnings", ()):
            rep.para(f'<span class="warn">warning</span> ({html.escape(name)}): {html.escape(warning)}')
    rep.section("levels", "Levels")
    first = next(iter(kept.values()))
    levels = [[lv["name"], lv["deals"], lv["seconds"]] for lv in first["levels"]]
    rep.table(Table("levels", "The levels: the target first, then each control played", ["level", "deals",
                                                                                           "seconds"], levels))
    if folder["controls"]:
        rep.para("Controls asked for: " + ", ".join(f"<code>{html.escape(c)}</code>" for c in folder["controls"])
                 + " (a control the allocation found not worth its cost is left out of the levels).")
    # A step's deals: those it fits on and those whose means it takes (none: the hand
    # features' step, whose means the deck gives).
    steps = [[name, ", ".join("the deck's means" if n is None else f"{n:,}" for n in step["deals"]),
              ", ".join(step["controls"]),
              ", ".join(f"{c:.3g}" for c in step["coefficients"]), step["r2"]]
             for name, entry in kept.items() for step in entry.get("steps", [])]
    if steps:
        rep.table(Table("steps", "Each step's regression: its deals, controls, coefficients and R\u00b2",
                        ["metric", "deals", "controls", "coefficients", "R\u00b2"], steps))
    return rep.write(f"{info.title} multilevel estimate: {folder['sizes'][target]:,} {info.deal}s, "
                     f"seed {folder['seed']}")


def level_rows(a: dict, b: dict) -> list[list]:
    """[level, A's deals, B's deals] for every level of either folder (the pilot may leave a
    control out of one), "\u2013" where one did not play it."""
    return [[level, a.get(level, "\u2013"), b.get(level, "\u2013")] for level in dict.fromkeys([*a, *b])]


@page.releases_folders
def build_multilevel_comparison(path_a, path_b, out=None, metrics=None) -> Path:
    """The report of two multilevel folders compared (analysis.compare's result, sim.
    multilevel.compare_folders): B - A multilevel, paired deal by deal, beside the plain
    paired difference of the targets' deals alone, with the variance saved; written beside
    B by default (its command resumes only a folder of its own files); the path of
    index.html."""
    result, out = compared(path_a, path_b, out, metrics, inside=False)
    game, rep = result["game"], page.Report(None, out)
    info = game_info(game)
    metrics = result["metrics"]
    rep.headline([headline_row(name, r) for name, r in metrics.items()],
                 f"<p>A = <code>{html.escape(str(result['a']))}</code>, B = <code>{html.escape(str(result['b']))}"
                 f"</code>: {result['deals']:,} {info.deal}s of the target (<code>"
                 f"{html.escape(', '.join(result['policies']))}</code>), seed {result['seed']}, multilevel estimates "
                 f"paired deal by deal: {html.escape(result['pairing'])}; 95% intervals.</p>")
    rep.section("metrics", "Each metric: A, B and B \u2212 A")
    rep.para("Each estimate is, to first order, a sum of its deals' influences, so B &minus; A is paired deal by "
             "deal over every level. <i>Plain</i> is the paired difference of the targets' deals alone; "
             "<i>saved</i> is how much less variance the multilevel difference has than the plain one, also at "
             "equal wall time (every level's seconds of both folders counted); <i>pairing saved</i> is against two "
             "independent multilevel estimates.")
    cells, rows = [], []
    for name, r in metrics.items():
        m = shown(name, r)
        cells.append([f"{html.escape(r['label'])} ({html.escape(r['unit'])})", interval_html(m, r["a"], r["a_ci95"]),
                      interval_html(m, r["b"], r["b_ci95"]), interval_html(m, r["diff"], r["ci95"], True),
                      interval_html(m, r["plain_diff"], r["plain_ci95"], True), _times(r["variance_saved"]),
                      _times(r["equal_time_saved"]),
                      "&ndash;" if r["pairing_saved"] is None else f"{100 * r['pairing_saved']:z.0f}%"])
        rows.append([name, r["unit"], r["a"], *(r["a_ci95"] or [None, None]), r["b"], *(r["b_ci95"] or [None, None]),
                     r["diff"], *(r["ci95"] or [None, None]), r["plain_diff"], *(r["plain_ci95"] or [None, None]),
                     r["variance_saved"], r["equal_time_saved"], r["pairing_saved"]])
    rep.csv("comparison", ["metric", "unit", "a", "a_lo95", "a_hi95", "b", "b_lo95", "b_hi95", "b_minus_a",
                           "b_minus_a_lo95", "b_minus_a_hi95", "plain_b_minus_a", "plain_lo95", "plain_hi95",
                           "variance_saved", "equal_time_saved", "pairing_saved"], rows)
    rep.html_table("comparison", "Multilevel estimates of A and B, and B \u2212 A (95% intervals)",
                   ["metric", "A", "B", "B \u2212 A", "plain B \u2212 A (targets' deals)", "saved", "at equal time",
                    "pairing saved"], cells)
    shown_metrics = [(name, r) for name, r in metrics.items() if r["diff"] is not None]
    if shown_metrics:
        rep.figure(comparison_figure([(n, {**r, "paired": True}) for n, r in shown_metrics], True), "comparison",
                   "Left: each folder's multilevel estimate with its 95% interval. Right, apart: B \u2212 A with its "
                   "paired 95% interval; the dashed line is no difference.")
    rep.section("levels", "Levels")
    levels = level_rows(*result["sizes"])
    rep.table(Table("levels", "Each level's deals in A and in B: the target first, then each control played",
                    ["level", "A", "B"], levels))
    if result["controls"]:
        rep.para("Controls asked for: " + ", ".join(f"<code>{html.escape(c)}</code>" for c in result["controls"]))
    return rep.write(f"{info.title} multilevel comparison: B against A, {result['deals']:,} {info.deal}s, "
                     f"seed {result['seed']}")
