"""python -m analysis.compare RUN_A RUN_B [--metrics M1,M2] [--json]

Comparison of two run folders of the same game: the difference B - A of each metric with
its 95% interval. Runs of the same seed and number of games (deals) are paired game by game
(deal by deal), whatever their rules, policies or deal-run conditions: game i of both runs
draws on the same random stream, so the difference is estimated from the per-game terms
and the variance saved by pairing (against two independent runs of the same size; where
a rate's unpaired interval is Newcombe's, against a normal interval as wide) is reported.
Runs of different seeds or sizes are compared unpaired: the difference of two
independent means, with the wider interval of Welch's standard error. Metrics whose
records a run did not keep come from the summaries, unpaired, where they can. A custom
metric is an expression over the deal or game columns, NAME = mean(EXPR) [where COND]
(sim.custom), always read from the records. Two multilevel folders (sim.run --deals N
--control ..., sim.multilevel) of the same seed, deals, players and control levels under
two conditions (dealing or rules) give the multilevel difference paired deal by deal,
beside the plain paired difference of their target deals. Two stratified runs (sim.run
--stratify) give B - A overall, by the stratified estimator, and in each stratum
(sim.strata_comparison).
"""

from __future__ import annotations

import json

from sim.cli import OneLineParser, exit_with, path_text, plural, shell_word
from sim.comparison import compare_runs
from sim.headline import compare_headline, compare_next
from sim.metrics import METRICS, MetricsError, parse_metrics, shown
from sim.run_records import RunRecords


def sizes_words(result: dict, unit: str) -> str:
    """"N deals" of a paired comparison, or "N and M deals" where the two runs differ in size
    and pair only in part (two stratified runs whose strata are the same size in some)."""
    if result["games"] is not None:
        return plural(result["games"], unit[:-1])
    return " and ".join(f"{n:,}" for n in result["sizes"]) + f" {unit}"


def format_report(result: dict) -> str:
    game, unit = result["game"], result.get("unit", "games")
    if result.get("paired", True):
        head = f"{game}: {sizes_words(result, unit)}, seed {result['seed']}, paired {unit[:-1]} by {unit[:-1]}"
        sizes = ["", ""]
    else:
        head = f"{game}: UNPAIRED ({result['pairing']})"
        sizes = [f"  ({plural(n, unit[:-1])}, seed {seed})" for n, seed in zip(result["sizes"], result["seeds"])]
    lines = [head, f"  A = {result['a']}{sizes[0]}", f"  B = {result['b']}{sizes[1]}"]
    if result.get("paired", True) and "conditions" in result.get("pairing", ""):
        lines.append(f"  pairing: {result['pairing']}")
    lines += ["", *compare_headline(result)]
    rows = []  # label, A, B, B - A, then the interval and the variance saved, or the note of no difference
    for name, r in result["metrics"].items():
        m = shown(name, r)
        label = f"{r['label']} ({r['unit']})"
        if r["diff"] is None:  # the value a run has is shown (a group only one run holds)
            note = r.get("note") or ("only A holds it" if r["a"] is not None else "only B holds it"
                                     if r["b"] is not None else "not measurable")
            rows.append((label, m.format(r["a"]), m.format(r["b"]), "-", None, note))
            continue
        ci = "-" if r["ci95"] is None else f"[{m.format(r['ci95'][0], True)}, {m.format(r['ci95'][1], True)}]"
        if r["paired"]:
            saved = "-" if r["variance_reduction"] is None else f"{100 * r['variance_reduction']:z.0f}%"
        else:
            saved = "unpaired"
        rows.append((label, m.format(r["a"]), m.format(r["b"]), m.format(r["diff"], True), ci, saved))
    # Each column as wide as its widest cell needs (large custom metrics run to 13 digits and more).
    widths = [max(len(row[0]) for row in rows) + 2,
              *(max(12, 2 + max(len(row[k]) for row in rows)) for k in (1, 2, 3)),
              max(26, 2 + max(len(row[4] or "") for row in rows)), 16]
    lines += ["", f"{'metric':{widths[0]}s}{'A':>{widths[1]}s}{'B':>{widths[2]}s}{'B - A':>{widths[3]}s}"
                  f"{'95% CI':>{widths[4]}s}{'variance saved':>{widths[5]}s}"]
    for label, a, b, diff, ci, last in rows:
        cells = f"{label:{widths[0]}s}{a:>{widths[1]}s}{b:>{widths[2]}s}{diff:>{widths[3]}s}"
        lines.append(f"{cells}   {last}" if ci is None else f"{cells}{ci:>{widths[4]}s}{last:>{widths[5]}s}")
    if result.get("paired", True):
        lines += ["", f"95% intervals of B - A paired {unit[:-1]} by {unit[:-1]}; variance saved: how much smaller "
                      f"the variance of B - A is than for two independent runs of the same size"]
        if any(not r["paired"] and r["diff"] is not None for r in result["metrics"].values()):
            lines.append("unpaired: from the runs' summaries (the runs kept no records for it)")
    else:
        lines += ["", f"95% intervals of B - A unpaired: the difference of two independent means, its standard "
                      f"error sqrt(SE_A^2 + SE_B^2) over each run's {unit} (Welch); for a rate of a trial a "
                      f"{unit[:-1]}, Newcombe's square-and-add of the two runs' Wilson intervals"]
    lines += compare_next(result)
    return "\n".join(lines)


def format_strata(result: dict) -> str:
    """Two stratified runs: the overall comparison's table (``format_report``), then B - A in
    each stratum."""
    lines = format_report(result).split("\n")
    apart = [s["name"] for s in result["strata"] if not s["paired"]]
    first = lines[0].replace(", paired ", ", partly paired ", 1) if result["paired"] and apart else lines[0]
    head = [first + f", stratified by {result['stratify']}", *lines[1:3]]
    if result["paired"] and apart:
        head.append(f"  pairing: {result['pairing']}")
    body = lines[3:]
    cut = next((i for i, line in enumerate(body) if line.startswith("95% intervals of B - A")), len(body))
    names = list(result["metrics"])
    table = ["B - A in each stratum (probability), 95% intervals:",
             f"{'stratum':24s}" + "".join(f"{n[:26]:>30s}" for n in names)]
    for k, s in enumerate(result["strata"]):
        cells = []
        for name in names:
            r = result["metrics"][name]["by_stratum"][k]
            m = shown(name, result["metrics"][name])
            low, high = r["ci95"] or (None, None)
            cells.append("-" if r["diff"] is None or low is None else
                         f"{m.format(r['diff'], True)} [{m.format(low, True)}, {m.format(high, True)}]")
        table.append(f"{s['name'] + ' (' + s['probability'] + ')':24s}" + "".join(f"{c:>30s}" for c in cells))
    notes = body[cut:]
    if notes and result["paired"]:
        notes[0] = (f"95% intervals of B - A by the stratified estimator, {'the strata' if not apart else 'the others'}"
                    f" paired deal by deal; variance saved: against two independent stratified runs of the same size")
    return "\n".join(head + body[:cut] + table + [""] + notes)


def format_multilevel(result: dict) -> str:
    """Two multilevel folders compared: B - A multilevel and plain, per metric."""
    from sim.metrics import shown

    deals = "; ".join(side + " " + ", ".join(f"{level if i else 'target'} {n:,}"  # the target first, then each control
                                             for i, (level, n) in enumerate(levels.items()))
                      for side, levels in zip("AB", result["sizes"]))
    lines = [f"{result['game']}: {plural(result['deals'], 'target deal')}, seed {result['seed']}, multilevel "
             f"estimates paired deal by deal",
             f"  A = {result['a']}", f"  B = {result['b']}", f"  pairing: {result['pairing']}",
             f"  target {', '.join(result['policies'])}; controls {', '.join(result['controls'])}",
             f"  deals by level (a control its pilot left out plays none): {deals}"]
    for name, r in result["metrics"].items():
        m = shown(name, r)

        def f(v, ci=None):
            text = m.format(v, True)
            return text if ci is None else f"{text} [{m.format(ci[0], True)}, {m.format(ci[1], True)}]"

        lines += ["", f"{r['label']} ({r['unit']}):",
                  f"  multilevel  B - A {f(r['diff'], r['ci95'])}   (A {f(r['a'], r['a_ci95'])}, "
                  f"B {f(r['b'], r['b_ci95'])})",
                  f"  plain       B - A {f(r['plain_diff'], r['plain_ci95'])}   (the target's deals alone, "
                  f"paired)"]
        if r["variance_saved"]:
            words = f"  variance saved {r['variance_saved']:.2f}x against the plain paired difference"
            if r["equal_time_saved"]:
                words += f"; {r['equal_time_saved']:.2f}x at equal wall time ({r['seconds']:.1f} s played)"
            if r["pairing_saved"] is not None:
                words += f"; pairing saved {100 * r['pairing_saved']:z.0f}%"
            lines.append(words)
    lines += ["", "95% intervals of B - A paired deal by deal: each estimate is a sum of its deals' influences "
                  "(sim.multilevel.estimate_difference)", "", "next:",
              f"  python -m analysis.report {shell_word(result['a'])} {shell_word(result['b'])}",
              "      this comparison as a report, with its plots and CSV files"]
    return "\n".join(lines)


def held_metrics(texts) -> list:
    """--metrics for two multilevel folders: builtin and custom metrics as for runs, and
    also a custom metric's bare name, which the folders hold with its definition."""
    from sim.custom import split_items
    from sim.metrics import resolve_metrics

    texts = [texts] if isinstance(texts, str) else texts  # one text, or a list of them (a repeated flag)
    items = [item for text in texts for item in split_items(text)]
    if not all(items):
        parse_metrics(texts)  # its words for an empty item
    return [item if item.isidentifier() and item not in METRICS else resolve_metrics([item])[0] for item in items]


def compare(path_a, path_b, metrics=None) -> dict:
    """B against A for two folders of a kind: two runs (sim.comparison.compare_runs), two
    stratified runs (sim.strata_comparison.compare_strata) or two multilevel folders
    (sim.multilevel.compare_folders); ``metrics``: --metrics texts (None: every metric).
    Two folders of different kinds are refused (MultilevelError), naming both."""
    from sim.multilevel import MultilevelError, compare_folders, is_multilevel_folder
    from sim.strata_comparison import compare_strata, is_strata_run

    given = metrics is not None
    for kind, test in (("a multilevel folder", is_multilevel_folder), ("a stratified run's folder", is_strata_run)):
        which = [test(p) for p in (path_a, path_b)]
        if which[0] != which[1]:
            one, other = (path_a, path_b) if which[0] else (path_b, path_a)
            if not (is_multilevel_folder(other) or is_strata_run(other)):
                RunRecords(other)  # one that is no run folder at all is named as such
            raise MultilevelError(f"{one} is {kind} and {other} is not: compare two of a kind, or two run folders")
    if is_multilevel_folder(path_a):
        return compare_folders(path_a, path_b, held_metrics(metrics) if given else None)
    if is_strata_run(path_a):
        return compare_strata(path_a, path_b, parse_metrics(metrics) if given else None)
    return compare_runs(path_a, path_b, parse_metrics(metrics) if given else None)


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m analysis.compare", description=__doc__.split("\n\n")[1])
    parser.add_argument("run_a", type=path_text, metavar="RUN_A", help="run folder A (the baseline)")
    parser.add_argument("run_b", type=path_text, metavar="RUN_B",
                        help="run folder B of the same game; paired with A when it has the same seed and "
                             "number of games (deals)")
    parser.add_argument("--metrics", action="append", metavar="M1,M2,...",
                        help=f"metrics, comma-separated, repeatable (default all: {', '.join(METRICS)}; a deal "
                             "run leaves out deals_per_game); a custom one is NAME = mean(EXPR) [where COND] [by "
                             "COLUMN] or NAME = sum(EXPR) / sum(EXPR) [where COND] [by COLUMN] over the deal or "
                             "game columns (commas inside parentheses or quotes do not separate)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    from sim.multilevel import MultilevelError

    try:
        result = compare(args.run_a, args.run_b, args.metrics)
    except (MetricsError, MultilevelError) as exc:
        return parser.fail(exc)
    if args.json:
        print(json.dumps(result))
    else:
        print(format_multilevel(result) if result.get("multilevel") else format_strata(result)
              if "stratify" in result else format_report(result))
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m analysis.compare")
