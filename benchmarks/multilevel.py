"""Variance saved per second by each level hierarchy for a strong player's metric.

    python benchmarks/multilevel.py TARGET [--control NAME=FOLDER ...] [--dd NAME=FOLDER]
                                    [--hand] [--metric dealer_advantage]

Every folder is a finished deal run of the same seed and dealing (python -m sim.run
--deals N --seed S --policy ...); TARGET's policy is the strong one, a --control folder a
cheaper policy's run, a --dd folder a --dd run whose contracts are scored double dummy.
The first deals shared by all levels are the pilot: each level's seconds per deal (from
its run's manifest, compile time excluded) and its correlation with the target give, for
every hierarchy (subset of the levels, cheapest deals outermost), the variance saved at
equal total wall time against plain target deals (sim.multilevel.allocation). Then the
multilevel estimate itself from the deals the folders hold, beside the plain one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sim import multilevel as ml  # noqa: E402
from sim.cli import OneLineParser, exit_with  # noqa: E402
from sim.store import RunError, write_json  # noqa: E402


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m benchmarks.multilevel", description=__doc__.split("\n\n")[0])
    p.add_argument("target")
    p.add_argument("--control", action="append", default=[], metavar="NAME=FOLDER")
    p.add_argument("--dd", action="append", default=[], metavar="NAME=FOLDER")
    p.add_argument("--hand", action="store_true", help="the hand features as a control (Bridgette)")
    p.add_argument("--metric", default="dealer_advantage")
    p.add_argument("--json", help="write the results here (a new file)")
    p.add_argument("--no-choices", action="store_true", help="the controls' metric alone, without their choices")
    args = p.parse_args(argv)
    if args.json and os.path.lexists(args.json):  # found now, not after the levels are read and fitted
        p.error(f"{args.json} exists already: give --json a new file")
    target = ml.level_from_run(args.target, args.metric, name="target")
    choices = not args.no_choices
    levels = [ml.level_from_run(f, args.metric, name=n, choices=choices)
              for n, f in (c.split("=", 1) for c in args.control)]
    levels += [ml.level_from_run(f, args.metric, dd=True, name=n, choices=choices)
               for n, f in (c.split("=", 1) for c in args.dd)]
    pilot = min([target.deals] + [lv.deals for lv in levels])
    feats = None
    if args.hand:
        from sim.api import resolve_rules
        from sim.run_records import RunRecords

        run = RunRecords(args.target)
        feats = ml.hand_features(resolve_rules(run.game, run.config["rules"]), run.seed,
                                 max([target.deals] + [lv.deals for lv in levels]))

    def cut(lv, m):
        return lv.take(m)

    alloc = ml.allocation(cut(target, pilot), [cut(lv, pilot) for lv in levels],
                          None if feats is None else ml.Features(feats.names, feats.x[:pilot], feats.means,
                                                                 feats.seconds * pilot / feats.deals))
    print(f"pilot: {pilot:,} deals shared by every level; target sd {alloc['target_sd']:.1f}, "
          f"{1 / alloc['target_seconds_per_deal']:.1f} target deals/s")
    for lv in [target, *levels]:
        print(f"  {lv.name:24s} {lv.deals:>9,} deals  {lv.deals / lv.seconds:>11,.1f} deals/s")
    if feats is not None:
        print(f"  {'hand features':24s} {feats.deals:>9,} deals  {feats.deals / feats.seconds:>11,.1f} deals/s")
    print("hierarchy (dearest first)                         R^2 per step           m_j/m0           "
          "variance saved at equal time")
    for o in alloc["options"]:
        print(f"  {' > '.join(o['levels']):48s} {' '.join(f'{r:.3f}' for r in o['r2']):22s} "
              f"{' '.join(f'{r:.1f}' for r in o['ratios']):16s} {o['equal_time_saved']:.2f}x")
    est = ml.nested_estimate(target, levels, feats)
    print(f"estimate from the folders' deals: {est['value']:+.2f} [{est['ci95'][0]:+.2f}, {est['ci95'][1]:+.2f}] "
          f"({est['estimator']}); plain {est['plain_value']:+.2f} [{est['plain_ci95'][0]:+.2f}, "
          f"{est['plain_ci95'][1]:+.2f}]; variance saved {est['variance_saved']:.2f}x, stands for "
          f"{est['plain_deals']:,.0f} plain deals" + (f"; {est['equal_time_saved']:.2f}x at equal wall time"
                                                    if est.get("equal_time_saved") else ""))
    for w in est["warnings"]:
        print("warning:", w)
    if args.json:
        try:
            write_json(Path(args.json), ml._plain({"allocation": alloc, "estimate": est}))
        except RunError as exc:
            return p.fail(exc)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.multilevel")
