"""Two runs compared metric by metric: B - A with its 95% interval, paired game by game
(deal by deal) where the runs draw on the same random streams (sim.ratio), unpaired
otherwise, from the summaries where a run kept no records for a metric.
"""

from __future__ import annotations

from sim.custom import Custom, parse_custom
from sim.metrics import Metric, MetricsError, custom_metrics, resolve_metrics
from sim.ratio import PairedMoments, interval, spread, unpaired
from sim.run_records import RunRecords, run_ratio_sums


def pairing(a: RunRecords, b: RunRecords) -> dict:
    """How runs ``a`` and ``b`` compare: {"paired": bool, "why": words}. They pair game by
    game (a deal run: deal by deal) when they play the same number of games (deals) from
    the same seed, whatever their rules, policies or deal-run conditions: game i of both
    runs draws on the same random stream (seed, i), so the pairs are independent of each
    other and the paired interval holds; pairing narrows it as far as that stream keeps
    the two runs' games alike. Otherwise they are compared unpaired. Runs of two games,
    or a game run against a deal run, are a MetricsError."""
    if a.game != b.game:
        raise MetricsError(f"runs {a.path} and {b.path} cannot be compared: different game "
                           f"({a.game} and {b.game})")
    if a.deal_run != b.deal_run:
        raise MetricsError(f"runs {a.path} and {b.path} cannot be paired: one deals "
                           f"{a.describe_dealing()}, the other {b.describe_dealing()}; compare runs that both "
                           f"play whole games or both play --deals")
    unit = a.unit
    if a.seed != b.seed:
        return {"paired": False, "why": f"different seed ({a.seed} and {b.seed}): the runs are independent, so B - A "
                                        f"is the difference of two independent means"}
    if a.games != b.games:
        return {"paired": False, "why": f"different number of {unit} ({a.games} and {b.games}): B - A is taken as the "
                                        f"difference of two independent means, whose interval errs wide (the first "
                                        f"{min(a.games, b.games):,} {unit} of both are drawn from the same random "
                                        f"streams); play B with A's number of {unit} to pair them"}
    why = f"the same seed and number of {unit}: {unit[:-1]} i of both runs is drawn from the same random stream"
    if a.dealing != b.dealing:
        why += (f", under each run's own conditions (A: {a.describe_dealing()}; B: {b.describe_dealing()}), "
                f"so B - A compares the two conditions' means")
    return {"paired": True, "why": why}


def compare_runs(path_a, path_b, names=None, sums=None, empty_ok=False) -> dict:
    """Each metric for runs A and B and the difference B - A, paired game by game (deal by
    deal) where the runs pair (``pairing``) and both kept the records the metric needs,
    unpaired between runs of different seeds or sizes (the difference of two independent
    ratio estimates, its variance the sum of theirs), otherwise from the two summaries
    (unpaired).

    ``names``: builtin metric names and custom definitions (``NAME = mean(EXPR) [where
    COND]``, sim.custom), or a --metrics text; None: every builtin metric (a deal run
    leaves out ``deals_per_game``, always 1). A custom metric needs the records it reads in
    both runs, and a sum of n that is not 0.

    ``sums``, a dict, receives each metric's exact sums read from the records and the range
    of its values: {name: (A's ratio sums, B's, the cross sums of the pairs or None
    unpaired, ``within``)} (``PairedMoments.paired_sums``). ``empty_ok``: a custom metric
    whose divisor sums to 0 in a run has no value there instead of being refused (a
    stratum of a stratified run, whose other strata may have it)."""
    a, b = (p if isinstance(p, RunRecords) else RunRecords(p) for p in (path_a, path_b))
    how = pairing(a, b)
    metrics = [bound for m in resolve_metrics(names, deal_run=a.deal_run)
               for bound in (custom_metrics(m, (a, b)) if isinstance(m, Custom) else [m])]
    kept = [m for m in metrics if a.has(m.records) and b.has(m.records)]
    if how["paired"]:
        moments = {m.name: PairedMoments() for m in kept}
        if kept:
            for va, vb in _aligned(a.per_game(kept), b.per_game(kept)):
                for m in kept:
                    moments[m.name].add(*va[m.name], *vb[m.name])
        estimates = {m.name: moments[m.name].result(m.within) for m in kept}
        totals = {name: (mm.s[1], mm.s[3]) for name, mm in moments.items()}
        if sums is not None:
            sums.update({m.name: (*moments[m.name].paired_sums(), m.within) for m in kept})
    else:
        per_run = [run_ratio_sums(run, kept) for run in (a, b)]
        estimates = {m.name: unpaired(per_run[0][m.name], per_run[1][m.name], m.within) for m in kept}
        totals = {m.name: (per_run[0][m.name]["n"], per_run[1][m.name]["n"]) for m in kept}
        if sums is not None:
            sums.update({m.name: (per_run[0][m.name], per_run[1][m.name], None, m.within) for m in kept})
    results = {}
    for m in metrics:
        base = {"label": m.words(a.game, a.deal_run), "unit": m.unit_for(a.game, a.deal_run), "percent": m.percent}
        if m.definition is not None:
            if m.group is not None:  # a group may be empty in a run: no value there, shown as such
                base.update(by=m.group[0], group=m.group[1])
            elif not empty_ok:
                _check_divisor(m, totals[m.name], a, b)
            base.update(definition=m.definition, balance=m.balance)
        if m.name in estimates:
            results[m.name] = {**base, "source": "records", "paired": how["paired"], **estimates[m.name]}
        else:
            results[m.name] = {**base, **_from_summaries(m, a, b)}
    if how["paired"] and not any(r.get("paired") for r in results.values()):
        how = {"paired": False, "why": "the same seed and size, but no metric asked for has the records it needs in "
                                       "both runs: every figure comes from the two summaries"}
    return {"game": a.game, "unit": a.unit, "paired": how["paired"], "pairing": how["why"],
            "rule_warnings": rule_warnings(a.config.get("rules"), b.config.get("rules"), (a.summary(), b.summary()),
                                           a.config.get("policies") or []),
            "seed": a.seed if a.seed == b.seed else None, "games": a.games if a.games == b.games else None,
            "seeds": [a.seed, b.seed], "sizes": [a.games, b.games], "a": str(a.path), "b": str(b.path),
            "policies": {"a": a.config.get("policies"), "b": b.config.get("policies")},
            "rules": {"a": a.config.get("rules"), "b": b.config.get("rules")}, "metrics": results}


def rule_warnings(rules_a, rules_b, summaries, policies) -> list[str]:
    """sim.activity's warning for each option B sets otherwise than A that applied in under
    1% of the deals of both runs."""
    from sim.activity import rare

    if rules_a is None or rules_b is None:
        return []
    flat = [{f"{t}.{k}": v for t, table in r.items() for k, v in table.items()} for r in (rules_a, rules_b)]
    changed = sorted(k for k in flat[0].keys() | flat[1].keys() if flat[0].get(k) != flat[1].get(k))
    return [w for w in (rare(k, summaries, policies) for k in changed) if w]


def _aligned(stream_a, stream_b):
    """Pair two per-game streams that cut the same games into different blocks."""
    buf_a = buf_b = None
    while True:
        if buf_a is None:
            buf_a = next(stream_a, None)
        if buf_b is None:
            buf_b = next(stream_b, None)
        if buf_a is None or buf_b is None:
            if buf_a is not None or buf_b is not None:
                raise MetricsError("the two runs hold different numbers of games")
            return
        (fa, ca, va), (fb, cb, vb) = buf_a, buf_b
        if fa != fb:
            raise MetricsError("the two runs' records do not cover the same games")
        k = min(ca, cb)
        yield ({name: (y[:k], n[:k]) for name, (y, n) in va.items()},
               {name: (y[:k], n[:k]) for name, (y, n) in vb.items()})
        buf_a = None if k == ca else (fa + k, ca - k, {m: (y[k:], n[k:]) for m, (y, n) in va.items()})
        buf_b = None if k == cb else (fb + k, cb - k, {m: (y[k:], n[k:]) for m, (y, n) in vb.items()})


def _check_divisor(m: Metric, totals, a: RunRecords, b: RunRecords) -> None:
    """A custom metric whose n sums to 0 over a run's games has no value there: say why."""
    for run, total in zip((a, b), totals):
        if total == 0:
            custom = parse_custom(f"{m.name} = {m.definition}")
            if custom.denominator is not None:
                why = f"sum({custom.denominator_text}) is 0"
            elif custom.where is not None:
                why = f"no {run.info.deal if m.records == 'deals' else 'game'} has {custom.where_text}"
            else:
                why = "no row has a value for every column it reads"
            raise MetricsError(f"metric '{m.name}' divides by a sum of 0 in {run.path}: {why}")


def _from_summaries(m: Metric, a: RunRecords, b: RunRecords) -> dict:
    out = {"source": None, "paired": False, "games": a.games, "a": None, "a_ci95": None, "b": None,
           "b_ci95": None, "diff": None, "ci95": None, "unpaired_ci95": None, "variance_reduction": None}
    if m.from_summary is None:
        out["note"] = f"needs {m.records} records, which {a.path if not a.has(m.records) else b.path} did not keep"
        return out
    ra, rb = m.from_summary(a.info, a.summary()), m.from_summary(b.info, b.summary())
    if ra is None or rb is None:
        bare = [r for r, v in ((a, ra), (b, rb)) if v is None and not r.has(m.records)]
        out["note"] = (f"needs {m.records} records, which {bare[0].path} did not keep (nor its summary)" if bare
                       else "nothing to measure in one of the runs")
        return out
    (va, sa), (vb, sb) = ra, rb
    both = interval(vb - va, sa * sa + sb * sb, spread(m.within))
    out.update(source="summaries", a=va, a_ci95=interval(va, sa * sa, m.within), b=vb,
               b_ci95=interval(vb, sb * sb, m.within), diff=vb - va, ci95=both, unpaired_ci95=both,
               note="from the runs' summaries, unpaired (the runs kept no records for it)")
    return out
