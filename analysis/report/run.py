"""The report of one finished run: the headline box, the run and its rules, then each
game's sections (analysis.games) and the scores; or a stratified folder's strata.

Records are read block by block, a few columns at a time, so runs larger than memory are
fine; a run made with --records none gets every section its block aggregates allow, and
the report says which sections need records.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import sim
from analysis.report import page
from analysis.report.page import Report, Table, figure, inline, _num
from analysis.report.plots import hist_panel
from analysis.tables import DealScoreTally, GameTally, ReportError, RunData, fill
from sim.cli import shell_word
from sim.games import game_info
from sim.headline import players as headline_players, run_answers
from sim.run import until_words
from sim.rules import GAMES as RULE_CLASSES, option_table
from sim.store import DamagedError, read_sealed
from sim.summary import rate


# --- Sections ---------------------------------------------------------------------------------

def dealing_rows(dealing: dict | None, games: str) -> list[list[str]]:
    """The configuration rows that say what was dealt: whole games, or a deal run's
    conditions and how many of the deals tried met them (sim.dealing)."""
    if dealing is None:
        return [["games", games]]
    rows = [["independent deals", games], ["dealt", dealing["description"]]]
    if "tries" in dealing:
        rows.append(["deals meeting the conditions", f"{dealing['acceptance']:.2%} of {dealing['tries']:,} tried "
                                                     f"(pilot {dealing['pilot_acceptance']:.2%})"])
    return rows


def players(policies) -> str:
    """The policies that played, in the words sim.run prints (sim.headline.players), for HTML."""
    return html.escape(headline_players(policies))


def changed_rules(game: str, rules: dict) -> list[tuple[str, object, object]]:
    """(option, value, default) of every rule option the run set away from its default."""
    out = []
    for o in option_table(RULE_CLASSES[game]):
        table, key = o["option"].split(".")
        default = list(o["default"]) if isinstance(o["default"], tuple) else o["default"]
        value = rules.get(table, {}).get(key)
        if default is not None and value != default:
            out.append((o["option"], value, default))
    return out


def rules_words(game: str, rules: dict) -> str:
    changed = changed_rules(game, rules)
    if not changed:
        return "the defaults"
    return "defaults but " + "; ".join(f"<code>{o} = {html.escape(_toml(v))}</code>" for o, v, _ in changed)


def rate_value(r: dict) -> tuple[str, str]:
    """A rate of sim.headline.run_answers as the headline shows it: the per cent, and its interval."""
    if r["value"] is None:
        return "&ndash;", ""
    value, _, interval = page.percent({"rate": r["value"], "ci95": r["ci95"]}).strip().partition(" ")
    return value, f'<span class="ci">{interval}</span>'


def headline_box(rep: Report) -> None:
    """The answers first: the dealer's advantage, the first dealer's game-win rate and the
    contracts (bids) made, each with its 95% interval, and who played; from summary.json,
    which every run keeps whatever its --records."""
    from sim.metrics import METRICS

    d = rep.data
    info, deal_run = d.info, bool(d.config.get("dealing"))
    answers = run_answers(d.game, d.summary)  # the numbers sim.run prints first
    metric = METRICS["dealer_advantage"]
    rows = []
    adv = answers["dealer_advantage"]
    if adv["value"] is not None:
        lo, hi = adv["ci95"] or (None, None)
        side = "team" if info.teams else "side"
        rows.append(("dealer's advantage", f"{metric.format(adv['value'], True)} points"
                     + (f'<span class="ci">[{metric.format(lo, True)}, {metric.format(hi, True)}]</span>'
                        if lo is not None else ""),
                     f"per {info.deal}: the dealer's {side}'s {info.deal} score minus the other's "
                     f"(95% interval over {'deals' if deal_run else 'games'})"))
    else:
        rows.append(("dealer's advantage", "&ndash;", "this run's summary has none (made before runs kept it)"))
    wins = answers["first_dealer_wins"]
    value, ci = rate_value(wins)
    words = METRICS["first_dealer_wins"].words(d.game, deal_run)
    rows.append((words, value + ci, f"of {wins['n']:,} {info.deal + 's' if deal_run else 'games'}; 50% is even"
                 if wins["n"] is not None else ""))
    made = answers["contract_made"]
    value, ci = rate_value(made)
    rows.append((f"{info.contract}s made", value + ci,
                 f"of {made['n']:,} {info.contract}s played" if made["n"] is not None else ""))
    rows.append(("players", players(d.config["policies"]), f"rules: {rules_words(d.game, d.rules)}"))
    size = "--deals" if deal_run else "--games"
    nxt = (f"<p>Next, a variant against this run, paired {info.deal if deal_run else 'game'} by "
           f"{info.deal if deal_run else 'game'}: play it with the same seed and size, <code>python -m sim.run "
           f"--game {d.game} {size} {d.config['games']} --seed {d.config['seed']} --set TABLE.KEY=VALUE --out "
           f"VARIANT</code> (and this run's other flags), then <code>python -m analysis.report "
           f"{html.escape(shell_word(d.path))} VARIANT</code>.</p>")
    rep.headline(rows, nxt + '<p class="source">95% intervals: Wilson for rates; for the dealer\'s advantage, the ratio '
                       f"estimator over independent {'deals' if deal_run else 'games'}, as analysis.compare.</p>")


def run_section(rep: Report) -> None:
    d, m, c = rep.data, rep.data.manifest, rep.data.config
    rep.section("run", "The run")
    timing = m.get("timing") or {}
    info = d.info
    until = m.get("until")
    games = f"{c['games']:,}" if until is None else (
        f"{m['games_played']:,} (--until {c['until']}: {'reached' if until['reached'] else 'not reached'}, "
        f"{until_words(until)}; cap {c['games']:,})")
    dealing = d.summary.get("dealing")
    rows = [["game", info.title], *dealing_rows(dealing, games), [f"{info.deal}s", d.summary.get("deals", 0)],
            ["seed", str(c["seed"])], ["block size", c["block_size"]], ["records kept", c["records"]],
            ["tricksim version (run)", m.get("package_version", "?")],
            ["RULES_VERSION (run)", str(c.get("rules_version", "?"))],
            ["tricksim version (report)", sim.__version__]]
    if timing.get("seconds") is not None:
        rows.append(["run time (last session)", f"{timing['seconds']:.1f} s for {timing.get('games_played_now', 0):,} games"])
    rows += [[f"policy of seat {s}" + (f" (team {info.seat_sides[s]})" if info.teams else ""), p]
             for s, p in enumerate(c["policies"])]
    rep.body.append('<div class="row">')
    rep.table(Table("run", "Configuration", ["item", "value"], rows))
    opts = option_table(RULE_CLASSES[d.game])
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


def activity_section(rep: Report) -> None:
    """Rule activity (sim.activity): per rule option, the deals where it decided something."""
    rows = rep.data.summary.get("rule_activity")
    rep.section("activity", "Rule activity")
    if rows is None:
        rep.note("This run's summary has no rule activity (it was made before runs counted it).")
        return
    table = [[r["rule"], r["option"] or "(no option)", r["what"], rate(r["deals"], r["of"])] for r in rows]
    rep.table(Table("rule_activity", f"Deals of {rows[0]['of']:,} dealt where each rule decided something (what was "
                    "legal or scored; docs/rules.md, Rule activity; 95% Wilson intervals)",
                    ["rule", "option", "counted", "deals"], table))


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


def score_section(rep: Report, deals: DealScoreTally | None, games: GameTally | None,
                  deals_from_records: bool, games_from_records: bool) -> None:
    """Score distributions, dealer against non-dealer where the records say who dealt (by
    seat from the aggregates), the dealer's advantage and the game results by first dealer.
    The game results have no chart: their rates sit near 50% and the table says it all."""
    info = rep.data.info
    side = [side_label(info, k) for k in range(len(info.sides))]
    deal, who = info.deal, "team" if info.teams else "side"
    rep.section("scores", "Scores and game wins",
                f"{deal.capitalize()} scores {source_words(deals_from_records, deal)}; games "
                f"{source_words(games_from_records, 'game')}.")
    per_deal = (deals.by_dealer, [f"dealer's {who}", f"non-dealer's {who}"]) if deals.by_dealer is not None \
        else (deals.scores, side)
    per_game = (games.by_first_dealer, [f"first dealer's {who}", f"other {who}"]) \
        if games.by_first_dealer is not None else (games.totals, side)
    fig, ax = figure(11, 4.4, f"Score distributions: {per_deal[1][0]} against {per_deal[1][1]}", 1, 2)
    hist_panel(ax[0, 0], per_deal[0], per_deal[1], "points", f"score per {deal}")
    ax[0, 0].set_title(f"per {deal}")
    hist_panel(ax[0, 1], per_game[0], per_game[1], "points", "total per game")
    ax[0, 1].set_title("per game")
    rep.figure(fig, "scores", f"Distribution of the score per {deal} ({' against '.join(per_deal[1])}) and "
               f"per game ({' against '.join(per_game[1])}); exact histograms, dashed lines at the medians, "
               "the legend gives each mean with its 95% interval.")
    if deals.by_dealer is None or games.by_first_dealer is None:
        rep.note(f"Scores by {info.side}, not dealer against non-dealer, where this run kept no records "
                 f"(<code>--records {rep.data.records}</code>): the block aggregates keep scores by {info.side} "
                 f"only, and the {info.side}s alternate as dealer.")
    quant = ["p5", "p25", "p50", "p75", "p95"]
    rows = []
    for what, (hists, labels) in ((f"per {deal}", per_deal), ("per game", per_game)):
        for label, h in zip(labels, hists):
            d = h.describe()
            rows.append([what, label, d["n"], d] + [d.get(q) for q in quant] + [d.get("min"), d.get("max"),
                                                                                 d.get("sd")])
    rep.table(Table("score_quantiles", "Scores: mean with 95% interval, quantiles (points)",
                    ["score", "side", "n", "mean"] + quant + ["min", "max", "sd"], rows))
    advantage_table(rep)

    dealers = len(games.wins)
    draws = info.draws or bool(rep.data.config.get("dealing"))  # a deal run's hand of equal scores: neither wins
    labels = ["all games"] + [f"seat {d} deals first" for d in range(dealers)]
    cols = [None] + list(range(dealers))
    rows = []
    for label, fd in zip(labels, cols):
        n = int(games.wins.sum() if fd is None else games.wins[fd].sum())
        row = [label, n, games.side_wins(0, fd), games.side_wins(1, fd)]
        if draws:
            row.append(games.outcome(2, fd))
        row.append(games.outcome(3, fd))
        rows.append(row)
    names = side + (["drawn"] if draws else []) + ["abandoned"]
    rep.table(Table("game_wins", "Game results by first dealer (C-6)", ["games", "n"] + [f"{n} wins" if "seat" in n
              or "team" in n else n for n in names], rows))
    fd = games.first_dealer_wins()
    rep.para(f"The first dealer's {who} wins {inline(fd)} of {games.games:,} games; "
             f"{deal}s per game: mean {_num(games.deals.describe()['mean'])}.")


def advantage_table(rep: Report) -> None:
    """The dealer's advantage from summary.json (kept with any --records), overall and by up-card."""
    adv = rep.data.summary.get("dealer_advantage")
    if adv is None:
        rep.note("This run's summary has no dealer's advantage (it was made before runs kept it).")
        return
    info = rep.data.info

    def cell(e):
        return {"n": e["deals"], "mean": e["value"], "mean_ci95": e["ci95"]} if e["value"] is not None else None

    rows = [[f"all {info.deal}s", adv["deals"], cell(adv)]]
    rows += [[f"up-card: {e['upcard']}", e["deals"], cell(e)] for e in adv.get("by_upcard", ())]
    rep.table(Table("dealer_advantage", f"Dealer's advantage: the dealer's {info.side}'s {info.deal} score minus "
                    f"the other's (points per {info.deal}; 95% interval over games, as analysis.compare)",
                    ["deals", "n", "dealer's advantage"], rows))


def side_label(info, k: int) -> str:
    """A scoring side in tables and legends: "seat 0", or "team 0 (seats 0, 2)"."""
    if not info.teams:
        return f"seat {k}"
    return f"team {k} (seats {', '.join(map(str, info.teams[k]))})"


# --- Building it ------------------------------------------------------------------------------

@dataclass
class Section:
    """A part of the report: how it writes itself, and the tallies it reads from the deal
    records (those of every section are filled in one pass before any is written)."""

    write: Callable[[Report], None]
    tallies: tuple = ()


@page.releases_folders
def build_strata_report(path: Path, out=None) -> Path:
    """The report of a stratified run (sim.strata): its strata, and each metric per stratum
    and overall with the variance saved against plain sampling; every stratum's own run
    folder has its full report."""
    from sim.metrics import shown
    from sim.strata import stratum_mismatch
    from sim.summary import Z95

    try:
        result = read_sealed(path / "strata.json")
    except DamagedError as exc:  # edited, cut short: named, never reported
        raise ReportError(str(exc)) from None
    command = "the stratified run's command"
    played = page.check_parts(path, [s["folder"] for s in result["strata"]], "a stratum", command)
    wrong = stratum_mismatch(result, played)  # each its own stratum's, not another's
    if wrong is not None:
        i, what = wrong
        raise ReportError(f"{path / Path(result['strata'][i]['folder']).name}, a stratum of {path}, was played with "
                          f"{what}: a folder of another stratum or run was put in its place; rerun {command} into a "
                          f"new folder")
    for s in result["strata"]:  # where they are now, wherever the run was played
        s["folder"] = str(path / Path(s["folder"]).name)
    out = page.report_folder(Path(out) if out is not None else path / "report")
    game, rep = result["game"], page.Report(None, out)
    top = []
    for name, entry in result["metrics"].items():  # the overall estimates first
        m, o = shown(name, entry), entry["overall"]
        signed = m.balance == 0
        ci = o["ci95"]
        top.append((html.escape(m.words(game)), html.escape(m.format(o["value"], signed)) + (
            "" if not ci else f'<span class="ci">[{m.format(ci[0], signed)}, {m.format(ci[1], signed)}]</span>'),
            f"{html.escape(m.unit_for(game))}, over all strata (95% interval)"))
    rep.headline(top, f"<p>{len(result['strata'])} strata by <code>{html.escape(result['stratify'])}</code>, "
                      f"{result['deals']:,} deals in all, seed {result['seed']}.</p>")
    rep.section("strata", "Strata")
    rep.para(f"{result['deals']:,} independent deals, seed {result['seed']}, stratified by "
             f"<code>{html.escape(result['stratify'])}</code> with the <code>{html.escape(result['allocation'])}"
             f"</code> allocation; each stratum is a conditioned deal run in its own folder, and the overall "
             f"estimates weight the strata by their exact probabilities.")
    rep.table(Table("strata", "Strata", ["stratum", "probability", "deals", "run folder"],
                    [[s["name"], s["probability"], s["deals"], s["folder"]] for s in result["strata"]]))
    for name, entry in result["metrics"].items():
        m = shown(name, entry)
        signed = m.balance == 0
        rep.section(name, f"{m.words(game)} ({m.unit_for(game)})")

        def row(label, e):
            ci = e["ci95"] or [None, None]
            return [label, m.format(e["value"], signed), m.format(ci[0], signed), m.format(ci[1], signed)]

        o = entry["overall"]
        estimates = [(s["name"], e) for s, e in zip(result["strata"], entry["by_stratum"])] + [("overall", o)]
        rep.csv(f"strata_{name}", ["stratum", "value", "lo95", "hi95"],  # numbers in full, rates as fractions
                [[label, e["value"], *(e["ci95"] or [None, None])] for label, e in estimates])
        rep.html_table(f"strata_{name}", "Per stratum and overall (95% intervals)", ["stratum", "value", "low", "high"],
                       [[html.escape(cell) for cell in row(label, e)] for label, e in estimates])
        if o["variance_saved"] is not None:
            rep.para(f"Plain sampling of as many deals would have given +-"
                     f"{m.format(Z95 * o['plain_variance'] ** 0.5)}; the strata saved "
                     f"{o['variance_saved']:.0%} of its variance (negative: the allocation cost precision overall).")
    return rep.write(f"{game_info(game).title} stratified deal run: {result['deals']:,} deals, seed {result['seed']}")


@page.releases_folders
def build_report(run_dir, out=None) -> Path:
    """Read a run folder and write its report; returns the path of index.html.

    The run's game decides the sections (``report_sections`` of its module in
    ``analysis.games``); the run and the scores and game wins are the same in every game,
    and a --dd run ends with its double-dummy section (analysis.dd)."""
    from analysis.games import analysis_module

    if (Path(run_dir) / "strata.json").is_file():
        return page.as_written(Path(run_dir) / "strata.json", "a stratified run (sim.strata)",
                               lambda: build_strata_report(Path(run_dir), out))
    data = RunData(run_dir)
    out = page.report_folder(Path(out) if out is not None else data.path / "report")
    deals_rec, games_rec = data.has("deals"), data.has("games")
    agg = data.aggregates() if not (deals_rec and games_rec) else None
    info = data.info
    games = GameTally(info) if games_rec else GameTally.from_aggregates(agg, info)
    if games_rec:
        fill(data, "games", [games])
    scores = DealScoreTally() if deals_rec else DealScoreTally.from_aggregates(agg, info)
    shared = Section(partial(score_section, deals=scores, games=games, deals_from_records=deals_rec,
                             games_from_records=games_rec), (scores,))
    sections = analysis_module(info).report_sections(data, agg, shared)
    if "double_dummy" in data.summary:  # a --dd run (sim.dd_run)
        from analysis.dd import dd_section

        sections.append(Section(dd_section))
    if deals_rec:
        fill(data, "deals", list(dict.fromkeys(t for s in sections for t in s.tallies)))
    rep = page.Report(data, out)
    headline_box(rep)
    run_section(rep)
    for section in sections:
        section.write(rep)
    activity_section(rep)
    c = data.config
    unit = "independent deals" if c.get("dealing") else "games"
    return rep.write(f"{info.title} run report: {c['games']:,} {unit}, seed {c['seed']}")
