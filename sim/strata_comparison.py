"""Two stratified runs compared metric by metric: B - A in each stratum (sim.comparison:
paired deal by deal where the two strata's runs have the same seed and deals, as they do
when both runs share the seed, deals and allocation) and overall by the stratified
estimator of the difference.

Each run's overall value is the combined ratio R = sum_h w_h ybar_h / sum_h w_h nbar_h
(sim.strata.stratified_estimate), w_h a stratum's probability. Linearised, deal i of
stratum h adds u_i = (y_i - R n_i) / nbar to R, so B - A adds z_i = v_i - u_i where the
strata pair, and Var(B - A) = sum_h w_h^2 Var_h(z) / g_h; where a stratum's runs do not
pair, its term is A's and B's own, w_h^2 (Var_h(u) / g_A + Var_h(v) / g_B), and the runs
are paired where some strata pair. The unpaired variance, A's stratified variance plus
B's, gives the variance saved by pairing.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from sim.comparison import compare_runs, rule_warnings
from sim.custom import Custom
from sim.metrics import MetricsError, resolve_metrics
from sim.ratio import at_bound, games_alike, interval, spread, square_and_add
from sim.run_records import RunRecords
from sim.store import read_sealed, stratum_folder
from sim.strata import PLAYED_WITH, deal_metrics, stratified_estimate, stratum_mismatch


def is_strata_run(path) -> bool:
    """Whether ``path`` holds a finished stratified run (its strata.json); not a path the
    system cannot look at (too long a name: the reader of a run folder names it)."""
    try:
        return (Path(path) / "strata.json").is_file()
    except OSError:
        return False


def _strata(path: Path) -> dict:
    """A stratified run's strata.json, refused where its strata are multilevel folders."""
    try:
        result = read_sealed(path / "strata.json", "is unreadable or not a stratified run's strata.json")
    except OSError as exc:
        raise MetricsError(f"cannot read {path / 'strata.json'}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise MetricsError(str(exc)) from None
    try:
        for s in result["strata"]:
            Fraction(s["probability"])
        ok = isinstance(result["strata"], list) and result["strata"] and all(isinstance(s["name"], str)
                                                                            for s in result["strata"])
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        ok = False
    if not ok:
        raise MetricsError(f"{path / 'strata.json'} is not a stratified run's strata.json")
    if "controls" in result:
        raise MetricsError(f"{path} is a stratified run with --control (each stratum a multilevel folder): compare "
                           f"two such strata with python -m analysis.compare STRATUM_A STRATUM_B, one pair at a time")
    return result


def _stratum_term(w, sums_a, sums_b, cross, r, nbar):
    """(stratum h's term of Var(B - A), of Var(A) + Var(B)), each None under two deals; ``r``,
    ``nbar``: A's and B's overall ratio and weighted mean divisor."""
    def moments(s, rr, nb):  # sum u, sum u^2 of u = (y - R n) / nbar
        return (s["y"] - rr * s["n"]) / nb, (s["yy"] - 2 * rr * s["yn"] + rr * rr * s["nn"]) / (nb * nb)

    def variance(total, squares, g):
        return max(squares - total * total / g, 0.0) / (g - 1)

    ga, gb = sums_a["games"], sums_b["games"]
    if ga < 2 or gb < 2:
        return None, None
    (su, suu), (sv, svv) = moments(sums_a, r[0], nbar[0]), moments(sums_b, r[1], nbar[1])
    apart = w * w * (variance(su, suu, ga) / ga + variance(sv, svv, gb) / gb)
    if cross is None:
        return apart, apart
    suv = (cross["yy"] - r[1] * cross["yn"] - r[0] * cross["ny"] + r[0] * r[1] * cross["nn"]) / (nbar[0] * nbar[1])
    return w * w * variance(sv - su, svv - 2 * suv + suu, ga) / ga, apart


def _overall(weights, per_stratum, within) -> dict:
    """A's, B's and B - A's stratified estimates of one metric from each stratum's sums. A
    rate at 0 or 1 in every stratum has Wilson's interval over its trials (``stratified_
    estimate``), and a difference with one such side Newcombe's square-and-add of the two
    sides' intervals (sim.ratio.square_and_add), as for two plain runs."""
    runs = [stratified_estimate(weights, [s[k] for s in per_stratum], within) for k in (0, 1)]
    out = {"a": runs[0]["value"], "a_ci95": runs[0]["ci95"], "b": runs[1]["value"], "b_ci95": runs[1]["ci95"],
           "diff": None, "ci95": None, "unpaired_ci95": None, "variance_reduction": None}
    if runs[0]["value"] is None or runs[1]["value"] is None:
        return out
    r = [x["value"] for x in runs]
    nbar = [sum(w * s[k]["n"] / s[k]["games"] for w, s in zip(weights, per_stratum)) for k in (0, 1)]
    terms = [_stratum_term(w, *s, r, nbar) for w, s in zip(weights, per_stratum)]
    paired, apart = sum(t[0] for t in terms), sum(t[1] for t in terms)
    diff = r[1] - r[0]
    ci, apart_ci = interval(diff, paired, spread(within)), interval(diff, apart, spread(within))
    if any(at_bound(x["value"], x["variance"], within) for x in runs):
        apart_ci, apart = square_and_add(r[0], runs[0]["ci95"], r[1], runs[1]["ci95"], within)
        # A side at its bound has no spread to pair away; only deals the same in A and B give 0.
        if not all(games_alike(*s) for s in per_stratum):
            ci, paired = apart_ci, apart
    out.update(diff=diff, ci95=ci, unpaired_ci95=apart_ci, variance_reduction=1 - paired / apart if apart > 0 else None)
    return out


def compare_strata(path_a, path_b, names=None) -> dict:
    """Each metric for the stratified runs A and B, overall and per stratum, and B - A:
    the result of ``sim.comparison.compare_runs`` with its overall figures from the
    stratified estimator (the module's docstring) and ``by_stratum``, each stratum's
    comparison. Both runs must stratify one game in the same way (the same strata and
    probabilities). ``names`` as for ``compare_runs``, without 'by' groups."""
    a, b = Path(path_a), Path(path_b)
    sa, sb = _strata(a), _strata(b)
    if (sa.get("game"), sa.get("stratify")) != (sb.get("game"), sb.get("stratify")):
        raise MetricsError(f"stratified runs {a} and {b} cannot be compared: {sa.get('game')} stratified by "
                           f"{sa.get('stratify')} against {sb.get('game')} stratified by {sb.get('stratify')}")
    strata = [(s.get("name"), s.get("probability")) for s in sa["strata"]]
    if strata != [(s.get("name"), s.get("probability")) for s in sb["strata"]]:
        raise MetricsError(f"stratified runs {a} and {b} cannot be compared: their strata differ")
    metrics = resolve_metrics(names, deal_run=True) if names is not None else deal_metrics()
    grouped = next((m for m in metrics if isinstance(m, Custom) and m.by), None)
    if grouped is not None:
        raise MetricsError(f"metric '{grouped.name}': a comparison of stratified runs takes no 'by {grouped.by}' (a "
                           f"stratum may hold other groups); write one metric per group with where "
                           f"{grouped.by} == VALUE")
    texts = [m.text if isinstance(m, Custom) else m.name for m in metrics]
    weights = [Fraction(p) for _, p in strata]
    for path, kept in ((a, sa), (b, sb)):
        _check_strata(path, kept)
    rows, sums = [], []
    for name, _ in strata:
        got = {}
        rows.append(compare_runs(a / stratum_folder(name), b / stratum_folder(name), texts, sums=got, empty_ok=True))
        sums.append(got)
    first = rows[0]
    result = {k: first[k] for k in ("game", "unit", "policies", "rules")}
    summaries = [RunRecords(x / stratum_folder(n)).summary() for n, _ in strata for x in (a, b)]
    apart = [n for (n, _), row in zip(strata, rows) if not row["paired"]]
    result.update(a=str(a), b=str(b), stratify=sa["stratify"], paired=len(apart) < len(strata), seed=sa.get("seed"),
                  games=sa.get("deals") if sa.get("deals") == sb.get("deals") else None,
                  seeds=[sa.get("seed"), sb.get("seed")], sizes=[sa.get("deals"), sb.get("deals")],
                  rule_warnings=rule_warnings(first["rules"]["a"], first["rules"]["b"], summaries,
                                              first["policies"]["a"] or []),
                  pairing=_pairing_words(sa, sb, apart, len(strata)),
                  strata=[{"name": n, "probability": p, "paired": row["paired"]} for (n, p), row in zip(strata, rows)],
                  metrics={})
    for name, entry in first["metrics"].items():
        if not all(name in got for got in sums):
            raise MetricsError(f"metric '{name}': a stratum's runs do not both hold its records")
        for k, path in enumerate((a, b)):
            if all(got[name][k]["n"] == 0 for got in sums):
                raise MetricsError(f"metric '{name}' divides by a sum of 0 in every stratum of {path}")
        overall = _overall(weights, [got[name][:3] for got in sums], sums[0][name][3])
        result["metrics"][name] = {
            **{k: entry[k] for k in ("label", "unit", "percent", "definition", "balance") if k in entry},
            "source": "records", "paired": result["paired"], "games": result["games"], **overall,
            "by_stratum": [{k: row["metrics"][name][k] for k in ("a", "b", "diff", "ci95", "paired")} for row in rows]}
    return result


def _pairing_words(sa: dict, sb: dict, apart: list, strata: int) -> str:
    """How the two stratified runs pair: every stratum, some (``apart`` names the others), or
    none, with what parts them (their seeds, sizes or allocations)."""
    if not apart:
        return ("each stratum's runs the same seed and number of deals: deal i of a stratum is drawn from the same "
                "random stream in both")
    parted = next((f"different {what} ({sa.get(k)} and {sb.get(k)})" for k, what in (
        ("seed", "seed"), ("deals", "number of deals"), ("allocation", "allocation")) if sa.get(k) != sb.get(k)),
        "other deals")
    if len(apart) == strata:
        if sa.get("seed") == sb.get("seed"):  # each stratum's runs draw their first deals from the same streams
            return (f"{parted}: B - A is taken as the difference of two independent estimates, whose interval errs "
                    f"wide (each stratum's runs share the random streams of their first deals)")
        return f"{parted}: the strata's runs are independent, so B - A is the difference of two independent estimates"
    return f"{parted}: {', '.join(apart)} with other deals in A and B, unpaired there"


def _check_strata(path: Path, kept: dict) -> None:
    """Each stratum's run folder is the one its stratified run played there
    (sim.strata.stratum_mismatch)."""
    configs = [RunRecords(path / stratum_folder(s["name"])).config for s in kept["strata"]]
    played = [{k: config.get(k) for k in PLAYED_WITH} for config in configs]
    wrong = stratum_mismatch(kept, played)
    if wrong is not None:
        i, what = wrong
        raise MetricsError(f"{path / stratum_folder(kept['strata'][i]['name'])}, a stratum of {path}, was played "
                           f"with {what}: a folder of another stratum or run was put in its place")
