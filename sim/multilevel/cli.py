"""sim.run's --control and --control-deals: the flags, the run and its report."""

from __future__ import annotations

from pathlib import Path

from sim.cli import whole_number
from sim.multilevel.estimator import MultilevelError
from sim.multilevel.play import run_multilevel
from sim.placement import check_place


def format_report(result: dict) -> str:
    """The estimates for the terminal: estimator, 95% interval, variance saved, plain deals."""
    from sim.metrics import shown

    lines = []
    for name, e in result["metrics"].items():
        m = shown(name, e)
        signed = m.balance == 0
        f = lambda v: m.format(v, signed)  # noqa: E731
        lines += [f"{e['label']} ({e['unit']}):",
                  f"  multilevel  {f(e['value'])} [{f(e['ci95'][0])}, {f(e['ci95'][1])}]  ({e['estimator']})",
                  f"  plain       {f(e['plain_value'])} [{f(e['plain_ci95'][0])}, {f(e['plain_ci95'][1])}]  "
                  f"(the target's {e['levels'][0]['deals']:,} deals alone)"]
        saved = e["variance_saved"]
        if saved:
            words = f"  variance saved {saved:.2f}x: the estimate stands for {e['plain_deals']:,.0f} plain deals"
            if e.get("equal_time_saved"):
                words += f"; {e['equal_time_saved']:.2f}x at equal wall time ({e['seconds']:.1f} s played)"
            lines.append(words)
        for warning in e.get("warnings", []):
            lines.append(f"  warning: {warning}")
        for lv in e["levels"]:
            sec = "" if lv["seconds"] is None else f", {lv['seconds']:.1f} s"
            lines.append(f"    level {lv['name']}: {lv['deals']:,} deals{sec}")
    return "\n".join(lines)


def add_control_flags(p) -> None:
    """sim.run's --control and --control-deals."""
    p.add_argument("--control", action="append", default=[], metavar="LEVEL",
                   help="deal runs: a cheaper level that plays the same deals, for a multilevel estimate of the "
                        "--policy players (sim.multilevel; repeatable): SEAT=POLICY[;SEAT=POLICY] (e.g. "
                        "all=heuristic), dd:SEAT=POLICY (its contracts scored double dummy), par:SEAT=POLICY (its deals "
                        "scored at par) or hand (features of the hands as dealt, Bridgette)")
    p.add_argument("--control-deals", action="append", type=whole_number, default=None, metavar="N",
                   help="with --control: deals of each played control, in order (default: sized from a pilot by "
                        "the multilevel allocation rule)")


def check_control_flags(args, parser) -> None:
    """--control-deals needs --control, and --control keeps each level's per-deal values in
    files of its own, so --block-size and a --records other than deals, which it would pass
    over, are refused."""
    if args.control_deals and not args.control:
        parser.error("--control-deals sizes the levels of --control: give --control too")
    unread = "--records" if args.records != "deals" else "--block-size" if "block_size" in parser.given else None
    if args.control and unread:
        parser.error(f"--control keeps each level's per-deal values in files of its own: drop {unread}")


def play_cli(args, rules, policies, dealing) -> int:
    """sim.run with --control: the multilevel estimate, printed and kept in --out."""
    from sim.cli import say, stopped

    if args.dd:  # --stratify with --control is sim.strata's
        raise MultilevelError("--control does not take --dd: a level scored double dummy is --control "
                              "dd:SEAT=POLICY, one scored at par --control par:SEAT=POLICY")
    if args.control_deals is not None and any(n < 1 for n in args.control_deals):
        raise MultilevelError("--control-deals must be positive whole numbers")
    until = None if args.until is None else (args.until.metric, args.until.width)
    out = args.out or f"runs/{args.game}-{args.seed}-{args.deals}-multilevel"
    check_place(out)
    notify = None if args.quiet else say
    from sim.metrics import parse_metrics

    metrics = None if args.metrics is None else parse_metrics(args.metrics)
    try:
        result = run_multilevel(args.game, rules, policies, args.seed, args.deals, args.control, args.control_deals,
                                metrics, dealing, until, out, notify, cluster=args.cluster, threads=args.threads)
    except KeyboardInterrupt:
        if Path(out).is_dir():
            return stopped(f"rerun the same command to resume the levels kept in {out}")
        return stopped("no level was kept yet; rerun the same command to play it")  # the empty folder went again
    if not args.quiet:
        print(f"{args.game}: multilevel deal runs, seed {args.seed}; target policies "
              f"{', '.join(f'{s}={p}' for s, p in enumerate(policies))}; folder {out}")
        if result["until"] is not None:
            print(f"until {result['until'][0]}:{result['until'][1]:g}: "
                  f"{'reached' if result['reached'] else 'not reached within the cap'}")
        print(format_report(result))
    return 0
