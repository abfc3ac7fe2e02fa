"""python -m analysis.compare RUN_A RUN_B [--metrics M1,M2] [--json]

Comparison of two run folders of the same game: the difference B - A of each metric with
its 95% interval. Runs of the same seed and number of games (deals) are paired game by game
(deal by deal), whatever their rules, policies or deal-run conditions: game i of both runs
draws on the same random stream, so the difference is estimated from the per-game terms
and the variance saved by pairing (against two independent runs of the same size) is
reported. Runs of different seeds or sizes are compared unpaired: the difference of two
independent means, with the wider interval of Welch's standard error. Metrics whose
records a run did not keep come from the summaries, unpaired, where they can. A custom
metric is an expression over the deal or game columns, NAME = mean(EXPR) [where COND]
(sim.custom), always read from the records.
"""

from __future__ import annotations

import json

from sim.cli import OneLineParser, exit_with, plural
from sim.comparison import compare_runs
from sim.headline import compare_headline, compare_next
from sim.metrics import METRICS, MetricsError, parse_metrics, shown


def format_report(result: dict) -> str:
    game, unit = result["game"], result.get("unit", "games")
    if result.get("paired", True):
        head = f"{game}: {plural(result['games'], unit[:-1])}, seed {result['seed']}, paired {unit[:-1]} by {unit[:-1]}"
        sizes = ["", ""]
    else:
        head = f"{game}: UNPAIRED ({result['pairing']})"
        sizes = [f"  ({plural(n, unit[:-1])}, seed {seed})" for n, seed in zip(result["sizes"], result["seeds"])]
    lines = [head, f"  A = {result['a']}{sizes[0]}", f"  B = {result['b']}{sizes[1]}"]
    if result.get("paired", True) and "conditions" in result.get("pairing", ""):
        lines.append(f"  pairing: {result['pairing']}")
    lines += ["", *compare_headline(result)]
    labels = {name: f"{r['label']} ({r['unit']})" for name, r in result["metrics"].items()}
    width = max(len(label) for label in labels.values()) + 2
    lines += ["", f"{'metric':{width}s}{'A':>12s}{'B':>12s}{'B - A':>12s}{'95% CI':>26s}{'variance saved':>16s}"]
    for name, r in result["metrics"].items():
        m = shown(name, r)
        label = labels[name]
        if r["diff"] is None:
            lines.append(f"{label:{width}s}{'-':>12s}{'-':>12s}{'-':>12s}   {r.get('note', 'not measurable')}")
            continue
        ci = "-" if r["ci95"] is None else f"[{m.format(r['ci95'][0], True)}, {m.format(r['ci95'][1], True)}]"
        if r["paired"]:
            saved = "-" if r["variance_reduction"] is None else f"{100 * r['variance_reduction']:z.0f}%"
        else:
            saved = "unpaired"
        lines.append(f"{label:{width}s}{m.format(r['a']):>12s}{m.format(r['b']):>12s}{m.format(r['diff'], True):>12s}"
                     f"{ci:>26s}{saved:>16s}")
    if result.get("paired", True):
        lines += ["", f"95% intervals of B - A paired {unit[:-1]} by {unit[:-1]}; variance saved: how much smaller "
                      f"the variance of B - A is than for two independent runs of the same size"]
        if any(not r["paired"] and r["diff"] is not None for r in result["metrics"].values()):
            lines.append("unpaired: from the runs' summaries (the runs kept no records for it)")
    else:
        lines += ["", f"95% intervals of B - A unpaired: the difference of two independent means, its standard "
                      f"error sqrt(SE_A^2 + SE_B^2) over each run's {unit} (Welch)"]
    lines += compare_next(result)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m analysis.compare", description=__doc__.split("\n\n")[1])
    parser.add_argument("run_a", metavar="RUN_A", help="run folder A (the baseline)")
    parser.add_argument("run_b", metavar="RUN_B", help="run folder B of the same game; paired with A when it has "
                                                       "the same seed and number of games (deals)")
    parser.add_argument("--metrics", action="append", metavar="M1,M2,...",
                        help=f"metrics, comma-separated, repeatable (default all: {', '.join(METRICS)}; a deal "
                             "run leaves out deals_per_game); a custom one is NAME = mean(EXPR) [where COND] [by "
                             "COLUMN] or NAME = sum(EXPR) / sum(EXPR) [where COND] [by COLUMN] over the deal or "
                             "game columns (commas inside parentheses or quotes do not separate)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    try:
        names = None if args.metrics is None else parse_metrics(args.metrics)
        result = compare_runs(args.run_a, args.run_b, names)
    except MetricsError as exc:
        return parser.fail(exc)
    print(json.dumps(result) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m analysis.compare")
