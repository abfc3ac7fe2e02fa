"""The answers a designer asks of a run, printed first by sim.run, sim.sweep and
analysis.compare: the dealer's advantage, the first dealer's game-win rate and the
contracts (bids) made, each with its 95% interval, and the players who produced them;
then, after the details, the next commands to run.

One place computes them, from what the commands already hold (a run's summary.json, a
sweep's or a comparison's result), with the summaries' own estimators (sim.metrics), so
the headline and the tables below it never disagree. Imports nothing of analysis/.
"""

from __future__ import annotations

import json

from sim.cli import plural, shell_word
from sim.games import game_info
from sim.metrics import METRICS, shown

HEADLINE = ("dealer_advantage", "first_dealer_wins", "contract_made")
WIDTH = 26  # the answers' words column


def _words(name: str, game: str, deal_run: bool) -> str:
    """Short words for an answer: "dealer's advantage", "first dealer wins", "bids made"."""
    info = game_info(game)
    if name == "dealer_advantage":
        return "dealer's advantage"
    if name == "first_dealer_wins":
        if deal_run:
            return "dealer wins the deal" if info.side == "seat" else "dealer's team wins"
        return "first dealer wins" if info.side == "seat" else "first dealer's team wins"
    return METRICS[name].words(game)


def _unit(name: str, game: str, deal_run: bool) -> str:
    info = game_info(game)
    if name == "dealer_advantage":
        return f"points per {info.deal}"
    if name == "first_dealer_wins":
        return f"of {info.deal}s" if deal_run else "of games"
    return f"of {info.contract}s"


def run_answers(game: str, summary: dict) -> dict:
    """{name: {"value", "ci95", "n"}} of the headline metrics from a run's summary.json
    (value None where the run has nothing to measure: no contract played)."""
    info = game_info(game)
    out = {}
    adv = summary.get("dealer_advantage") or {}
    out["dealer_advantage"] = {"value": adv.get("value"), "ci95": adv.get("ci95"), "n": adv.get("deals")}
    for name, key in (("first_dealer_wins", "first_dealer_wins"), ("contract_made", "contracts_made")):
        r = summary.get(info.summary_key(key)) or {}
        out[name] = {"value": r.get("rate"), "ci95": r.get("ci95"), "n": r.get("n")}
    return out


def _show(name: str, value, signed: bool = False) -> str:
    return METRICS[name].format(value, signed)


def _interval(name: str, ci, signed: bool = False) -> str:
    return "" if ci is None else f"[{_show(name, ci[0], signed)}, {_show(name, ci[1], signed)}]"


def players(policies) -> str:
    """The players in words: "heuristic in both seats", "0=pimc, 1=heuristic"."""
    policies = [str(p) for p in policies]
    if len(set(policies)) == 1:
        return f"{policies[0]} in both seats" if len(policies) == 2 else f"{policies[0]} in all {len(policies)} seats"
    return ", ".join(f"{seat}={p}" for seat, p in enumerate(policies))


def run_headline(game: str, summary: dict, policies, seed: int, deal_run: bool = False) -> list[str]:
    """The first lines sim.run prints: what was played, then the answers with their 95%
    intervals, then the players."""
    info = game_info(game)
    lost = summary.get("games", summary["deals"]) - summary["deals"] if deal_run else 0  # passed out to the limit (C-5)
    if deal_run:
        played = plural(summary["deals"], f"independent {info.deal}")
        if lost > 0:
            played += f" (and {lost:,} passed out to the redeal limit, counted as no one's win)"
    else:
        played = f"{plural(summary['games'], 'game')}, {plural(summary['deals'], info.deal)}"
    over = f"{info.deal}s" if deal_run else "games"
    lines = [f"{game}: {played}, seed {seed}",
             f"  answers, 95% intervals over {over} ({info.contract}s made: over {info.contract}s):"]
    for name, a in run_answers(game, summary).items():
        words = _words(name, game, deal_run)
        if a["value"] is None or deal_run and not summary["deals"]:  # no deal played to its end: no rate
            lines.append(f"  {words:{WIDTH}s}-  (nothing to measure)")
            continue
        of = f"of {a['n']:,} {info.contract}s" if name == "contract_made" else _unit(name, game, deal_run)
        lines.append(f"  {words:{WIDTH}s}{_show(name, a['value'], name == 'dealer_advantage'):>9s} {of} "
                     f"{_interval(name, a['ci95'], name == 'dealer_advantage')}")
    lines.append(f"  {'players':{WIDTH}s}{players(policies)}")
    return lines


def same_question(rules_file, set_options, dealing, rules, game: str) -> tuple[str, bool]:
    """The flags that ask a run's or a sweep's own question again (its --rules, --set and
    deal conditions), as shell words for the stronger players' command, and whether a
    player that samples worlds (the ``pimc`` it suggests) can play its rules (not Bid
    Euchre's double deck)."""
    from sim.dd_run import samplers_refused
    from sim.games import game_info

    words = [*(["--rules", rules_file] if rules_file else []), *(w for s in set_options for w in ("--set", s)),
             *dealing.flags()]
    return "".join(f" {shell_word(word)}" for word in words), not samplers_refused(game_info(game), rules)


def run_next(game: str, folder, deal_run: bool, size: int, policies, same=("", True)) -> list[str]:
    """The next commands after a run: its report, a sweep, a comparison, stronger players
    (``same``: ``same_question``'s flags, which that command keeps, and whether a searching
    player can play the rules)."""
    from sim.policies import searches  # here: analysis imports this module and never loads the kernels

    unit = "--deals" if deal_run else "--games"
    kept, can_search = same
    searching = not can_search or searches(policies)
    lines = ["", "next:",
             f"  python -m analysis.report {shell_word(folder)}",
             "      the report: every table with its plots, in HTML",
             f"  python -m sim.sweep --game {game} --vary TABLE.KEY=V1,V2,... {unit} {size}",
             f"      a rule's balance point (options: python -m sim.run --game {game} --list-options)",
             f"  python -m analysis.compare {shell_word(folder)} OTHER_RUN",
             "      a variant against this run (the same seed and size, with --rules or --set, pairs them)"]
    if not searching:
        small = 200 if not deal_run else 1000
        lines += [f"  python -m sim.run --game {game} {unit} {small}{kept} --policy all=pimc --records none",
                  "      the same question with stronger players (pimc searches every card: far slower)"]
    return lines


def strata_headline(result: dict, policies, deals: int, seed: int) -> list[str]:
    """The first lines of a stratified run: each headline metric overall, by the stratified
    estimator with its 95% interval, and per stratum; then the players."""
    game = result["game"]
    names = [n for n in HEADLINE if n in result["metrics"]] or list(result["metrics"])[:3]
    lines = [f"{game}: {plural(deals, 'independent deal')}, seed {seed}, stratified by {result['stratify']}",
             "  answers, 95% intervals (the stratified estimator):"]
    for name in names:
        entry = result["metrics"][name]
        m = shown(name, entry)
        signed = m.balance == 0
        words = _words(name, game, True) if name in METRICS else name
        o = entry["overall"]
        if o["value"] is None:
            lines.append(f"  {words:{WIDTH}s}-")
            continue
        ci = _cells_interval(m, o["ci95"], signed)
        each = ", ".join(f"{s['name']} {m.format(e['value'], signed)}"
                         for s, e in zip(result["strata"], entry["by_stratum"]) if e["value"] is not None)
        unit = f" points per {game_info(game).deal}" if name == "dealer_advantage" else ""
        lines.append(f"  {words:{WIDTH}s}{m.format(o['value'], signed):>9s}{unit} {ci}; {each}")
    lines.append(f"  {'players':{WIDTH}s}{players(policies)}")
    return lines


def sweep_metric(result: dict, name: str):
    """A metric of a sweep's result, builtin or custom, for its words, units and balance."""
    return shown(name, result.get("custom_metrics", {}).get(name))


def setting_value(value) -> str:
    """A varied option's value as --vary writes it."""
    return json.dumps(value) if not isinstance(value, str) else value


def setting_label(row) -> str:
    """A sweep setting's values, as its rows are labelled."""
    return ", ".join(setting_value(v) for v in row["values"].values())


def sweep_headline(result: dict) -> list[str]:
    """The first lines sim.sweep prints: per setting, the headline metrics it measured with
    their own 95% intervals, each metric's balance point, and the players."""
    game, rows = result["game"], result["settings"]
    unit = result.get("unit", "game")
    deal_run = unit == "deal"
    names = [n for n in HEADLINE if n in result["metrics"]] or list(result["metrics"])[:3]
    key = ", ".join(result["vary"])
    cap = "up to " if result.get("until") else ""  # --until: each setting played to its half-width
    lines = [f"{game}: {len(rows)} settings of {key}, {cap}{plural(result['games'], unit)} each, seed {result['seed']}",
             f"  answers per setting, 95% intervals over {unit}s:"]
    width = max([len(key)] + [len(setting_label(r)) for r in rows]) + 2
    cells = {}
    for name in names:
        m = sweep_metric(result, name)
        words = _words(name, game, deal_run) if name in METRICS else name
        texts = []
        for r in rows:
            v = r["metrics"][name]
            signed = name == "dealer_advantage"
            texts.append("-" if v["value"] is None else
                         f"{m.format(v['value'], signed)} {_cells_interval(m, v['value_ci95'], signed)}")
        cells[name] = (words, texts, max(len(words), *map(len, texts)) + 3)
    lines.append(f"  {key:{width}s}" + "".join(f"{w:>{n}s}" for w, _, n in cells.values()))
    for i, r in enumerate(rows):
        lines.append(f"  {setting_label(r):{width}s}" + "".join(f"{t[i]:>{n}s}" for _, t, n in cells.values()))
    for name, x in result.get("balance_point", {}).items():
        m = sweep_metric(result, name)
        words = _words(name, game, deal_run) if name in METRICS else name
        bracket = result["balance_bracket"][name]
        where = (f"between {bracket[0]} and {bracket[1]} by the settings' intervals" if bracket
                 else "not resolved: the settings' intervals do not separate it")
        lines.append(f"  balance: {words} crosses {m.format(m.balance)} at {result['vary'][0]} = {x:z.2f} ({where})")
    lines.append(f"  {'players':{width}s}{players(result['policies'])}")
    lines += [f"  {w}" for w in result.get("rule_warnings", ())]
    return lines


def _cells_interval(m, ci, signed) -> str:
    return "" if ci is None else f"[{m.format(ci[0], signed)}, {m.format(ci[1], signed)}]"


def sweep_next(result: dict, records: bool = True, same=("", True)) -> list[str]:
    """The next commands after a sweep: a setting's report, a comparison of two settings on
    a metric of one's own (where the settings kept ``records``), a finer sweep, stronger
    players (``same``: as for ``run_next``)."""
    from sim.policies import parse_policy, searches  # as in run_next

    kept, can_search = same
    rows, game = result["settings"], result["game"]
    unit = "--deals" if result.get("unit") == "deal" else "--games"
    if result.get("controls"):  # multilevel settings: folders of per-deal values, no records
        lines = ["", "next:", f"  cat {shell_word(str(rows[-1]['run']) + '/multilevel.json')}",
                 "      one setting's levels, sizes, coefficients and estimates"]
    else:
        lines = ["", "next:",
                 f"  python -m analysis.report {shell_word(rows[-1]['run'])}",
                 "      one setting's report (every setting is a run folder)"]
        if records:
            lines += [f"  python -m analysis.compare {shell_word(rows[0]['run'])} {shell_word(rows[-1]['run'])} "
                      f"--metrics 'NAME = mean(EXPR) where COND'",
                      "      two settings on a metric of your own"]
    if result.get("balance_point") and len(result["vary"]) == 1:
        key, (name, _) = result["vary"][0], next(iter(result["balance_point"].items()))
        bracket = result["balance_bracket"][name]
        if bracket:
            low, high = bracket
            values = (",".join(str(v) for v in range(low, high + 1))
                      if all(isinstance(v, int) for v in bracket) and 0 < high - low <= 12 else "V1,V2,...")
            more = "" if not result.get("controls") else " --policy ... --control " + " --control ".join(
                result["controls"])
            lines += [f"  python -m sim.sweep --game {game} --vary {key}={values} {unit} {result['games'] * 4}{more}",
                      f"      the settings between {low} and {high} with more {unit[2:]}, to narrow the balance point"]
    if can_search and not searches([parse_policy(p, game) for p in result["policies"]]):
        lines += [f"  python -m sim.sweep --game {game} --vary {', '.join(result['vary'])}=... --deals 2000{kept} "
                  f"--policy all=pimc --records none",
                  "      the same sweep with stronger players, on single deals (pimc searches every card: far slower)"]
    return lines


def compare_headline(result: dict) -> list[str]:
    """The answer of a comparison, after its first line: B - A of the headline metrics with
    their 95% intervals, and the players of both runs."""
    game = result["game"]
    deal_run = result.get("unit") == "deals"
    names = [n for n in HEADLINE if n in result["metrics"]] or list(result["metrics"])[:3]
    how = "paired" if result.get("paired", True) else "unpaired"
    lines = [f"  answers, B - A with its 95% interval ({how}):"]
    for name in names:
        r = result["metrics"][name]
        m = shown(name, r)
        words = _words(name, game, deal_run) if name in METRICS else name
        if r["diff"] is None:
            lines.append(f"  {words:{WIDTH}s}-  ({r.get('note', 'not measurable')})")
            continue
        ci = _cells_interval(m, r["ci95"], True)
        verdict = ("" if r["ci95"] is None else "  no difference shown" if r["ci95"][0] <= 0 <= r["ci95"][1]
                   else "  B higher" if r["ci95"][0] > 0 else "  B lower")
        unit = f" {r['unit']}" if name == "dealer_advantage" else ""
        lines.append(f"  {words:{WIDTH}s}{m.format(r['diff'], True):>9s}{unit} {ci}  "
                     f"(A {m.format(r['a'])}, B {m.format(r['b'])}){verdict}")
    rules = result.get("rules")
    if rules and rules["a"] is not None and rules["b"] is not None:
        changes = rule_changes(rules["a"], rules["b"])
        lines.append(f"  {'rules':{WIDTH}s}" + ("the same in both runs" if not changes else
                                                 "B changes " + ", ".join(changes)))
        lines += [f"  {w}" for w in result.get("rule_warnings", ())]
    pol = result.get("policies")
    if pol:
        same = pol["a"] == pol["b"]
        lines.append(f"  {'players':{WIDTH}s}" + (players(pol["a"]) + " in both runs" if same else
                                                   f"A {players(pol['a'])}; B {players(pol['b'])}"))
    return lines


def rule_changes(a: dict, b: dict) -> list[str]:
    """The options B sets otherwise than A, as "TABLE.KEY A -> B" (a deck's Colons too)."""
    import json

    def flat(rules):
        return {f"{t}.{k}": v for t, table in rules.items() for k, v in table.items()}

    fa, fb = flat(a), flat(b)
    shown = lambda v: json.dumps(v) if not isinstance(v, str) else v  # noqa: E731
    return [f"{k} {shown(fa.get(k))} -> {shown(fb.get(k))}" for k in sorted(fa.keys() | fb.keys())
            if fa.get(k) != fb.get(k)]


def compare_next(result: dict) -> list[str]:
    """The next commands after a comparison: the two reports, a sweep, a metric of one's own."""
    grouped = "stratify" not in result  # two stratified runs take no 'by' groups
    return ["", "next:",
            f"  python -m analysis.report {shell_word(result['a'])} {shell_word(result['b'])}",
            "      this comparison as a report, with its plots and CSV files",
            f"  python -m analysis.report {shell_word(result['b'])}",
            "      B's report, every table with its plots (and A's the same way)",
            f"  python -m analysis.compare {shell_word(result['a'])} {shell_word(result['b'])} "
            f"--metrics 'NAME = mean(EXPR) where COND{' by COLUMN' if grouped else ''}'",
            f"      a metric of your own{', by group' if grouped else ''} (columns: docs/columns.md)"]
