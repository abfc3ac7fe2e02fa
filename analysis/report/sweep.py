"""The sweep report of a sim.sweep folder: for each metric, every setting's value with its own
95% interval and, apart, its paired difference from the first setting, against the swept
value; a balance point is drawn only where it is resolved (sim.sweep.balance_bracket: the
settings either side are clear of the even value by their own intervals). The numbers are
the sweep's own (sweep.json)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np

from analysis.report import page
from analysis.report.comparison import interval_html, rule_warnings_html
from analysis.report.page import figure
from analysis.report.plots import COLORS
from analysis.report.run import players
from sim.store import DamagedError, read_sealed
from analysis.tables import ReportError
from sim.games import GAMES, game_info
from sim.metrics import shown
from sim.rules import GAMES as RULE_CLASSES, option_table

HEADLINE = ("dealer_advantage", "first_dealer_wins", "contract_made")


def safe_name(name: str) -> str:
    """A metric's name as an anchor and file stem: its letters, digits, _ and - as they are,
    each other character as _, and where any was replaced a digest of the whole name, so
    that two names differing only there (é and è) keep apart."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    if safe == name:
        return name
    import hashlib

    return f"{safe}_{hashlib.blake2b(name.encode(), digest_size=4).hexdigest()}"


def is_sweep(path: Path) -> bool:
    return (path / "sweep.json").is_file()


def _number(x) -> bool:
    """A number the page can print (None: no value)."""
    return x is None or isinstance(x, (int, float)) and not isinstance(x, bool)


def _pair(x) -> bool:
    return isinstance(x, list) and len(x) == 2 and all(_number(v) for v in x)


def _entry_ok(entry) -> bool:
    """A setting's metric entry as sim.sweep writes it: its value, difference and variance
    saved numbers, its intervals pairs of them."""
    return (isinstance(entry, dict) and all(_number(entry.get(k)) for k in ("value", "diff", "variance_reduction"))
            and all(entry.get(k) is None or _pair(entry[k]) for k in ("ci95", "value_ci95")))


def read_sweep(path: Path) -> dict:
    """sweep.json, checked for what the report reads; a ReportError in one line otherwise."""
    try:
        result = read_sealed(path / "sweep.json", "is unreadable or not a sweep's (python -m sim.sweep)")
    except DamagedError as exc:  # edited, cut short: named, never reported
        raise ReportError(str(exc)) from None
    try:
        vary = result["vary"]
        ok = (isinstance(result, dict) and result.get("game") in GAMES and len(result["settings"]) >= 2
              and isinstance(vary, list) and vary and all(isinstance(k, str) for k in vary)
              and all(k in s["values"] for s in result["settings"] for k in vary)
              and all(name in s["metrics"] for s in result["settings"] for name in result["metrics"])
              and all(_entry_ok(s["metrics"][name]) for s in result["settings"] for name in result["metrics"])
              and all(_number(x) for x in (result.get("balance_point") or {}).values())
              and all(b is None or _pair(b) for b in (result.get("balance_bracket") or {}).values()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        ok = False
    if not ok:
        raise ReportError(f"{path}/sweep.json is unreadable or not a sweep's (python -m sim.sweep)")
    command = "the sweep's command (python -m sim.sweep)"
    played = page.check_parts(path, [s.get("run", "") for s in result["settings"]], "a setting", command)
    for s, run in zip(result["settings"], played):
        _check_setting(result, s, run, path, command)
    for s in result["settings"]:  # where they are now, wherever the sweep was played
        s["run"] = str(path / Path(str(s["run"])).name)
    return result


def _check_setting(result: dict, setting: dict, played: dict, folder: Path, command: str) -> None:
    """A setting's run folder was played as the sweep played it (a folder renamed or
    swapped by hand would lend its figures to another setting): with the sweep's seed,
    size, players and dealing, and its rules with the setting's values put in stay as they
    are."""
    from sim.resolve import resolve_rules

    game, rules = result["game"], played["rules"]
    run = folder / Path(str(setting["run"])).name
    sweep = {"seed": result["seed"], "games": result["games"], "policies": result["policies"],
             "dealing": result.get("dealing")}
    if result.get("until"):  # --until sizes each setting's target itself
        del sweep["games"]
    words = {"seed": "seed", "games": "size", "policies": "players", "dealing": "dealing conditions"}
    differ = [words[k] for k, v in sweep.items() if played[k] != v]
    if differ:
        raise ReportError(f"{run}, a setting of {folder}, was played with another {', '.join(differ)} than the "
                          f"sweep: a folder of another sweep was put in its place; rerun {command} into a new folder")
    try:
        played = resolve_rules(game, rules).to_dict()
    except (TypeError, ValueError) as exc:  # an older release's rules, say: unreadable, not moved
        raise ReportError(f"{run}, a setting of {folder}, cannot be read (its rules: {exc}): rerun {command} into "
                          "a new folder") from None
    try:
        put = json.loads(json.dumps(rules))
        for key, value in setting["values"].items():
            table, _, name = key.partition(".")
            put[table][name] = value
        same = resolve_rules(game, put).to_dict() == played
    except (KeyError, TypeError, ValueError):
        same = False
    if not same:
        values = ", ".join(f"{k}={show(v)}" for k, v in setting["values"].items())
        raise ReportError(f"{run}, a setting of {folder}, was not played with {values}: its folders were renamed or "
                          f"moved by hand; rerun {command} into a new folder")


def metric_of(result: dict, name: str):
    return shown(name, result.get("custom_metrics", {}).get(name))


def show(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def setting_label(result: dict, row: dict) -> str:
    return ", ".join(show(row["values"][k]) for k in result["vary"])


def numeric(result: dict) -> bool:
    """One swept option with numbers for values: the x axis is that number (as sim.sweep)."""
    key = result["vary"][0]
    return len(result["vary"]) == 1 and all(isinstance(r["values"][key], (int, float))
                                            and not isinstance(r["values"][key], bool) for r in result["settings"])


def balance(result: dict, name: str) -> tuple[float | None, list | None]:
    """(the interpolated balance point, its bracket) of a metric; the bracket is None where
    the crossing is not resolved, and both None where the metric never crosses."""
    x = result.get("balance_point", {}).get(name)
    return x, None if x is None else (result.get("balance_bracket") or {}).get(name)


def balance_words(result: dict, name: str) -> str | None:
    m = metric_of(result, name)
    x, bracket = balance(result, name)
    if m.balance is None:
        return None
    level, key = m.format(m.balance), result["vary"][0]
    words = html.escape(m.words(result["game"], result.get("unit") == "deal"))
    if x is None:
        return f"{words} does not cross {level} over these settings."
    if bracket is None:
        return (f"<b>Balance point not resolved</b>: {words} crosses {level} near "
                f"<code>{key}</code> = {x:z.2f} by linear interpolation, but the settings on one side are within "
                f"their 95% intervals of {level}, so the crossing may be noise; it is not drawn. Play more "
                f"{result.get('unit', 'game')}s, or a wider grid.")
    return (f"<b>Balance point</b>: {words} crosses {level} at <code>{key}</code> "
            f"= {x:z.2f} (linear interpolation); the settings' own 95% intervals put it between "
            f"{show(bracket[0])} and {show(bracket[1])}.")


def default_out(path: Path) -> Path:
    """Beside the sweep (or multilevel) folder, and outside any folder it lies in that holds a
    command's own files only (page.beside): a report inside would stop those commands from
    resuming."""
    return page.beside(path, "-report")


@page.releases_folders
def build_sweep_report(path, out=None) -> Path:
    """Read a sweep folder's sweep.json and write its report; the path of index.html."""
    path = Path(path)
    result = read_sweep(path)
    out = page.report_folder(Path(out) if out is not None else default_out(path))
    rep = page.Report(None, out)
    game, rows, unit = result["game"], result["settings"], result.get("unit", "game")
    deal_run = unit == "deal"
    info = game_info(game)
    first = setting_label(result, rows[0])
    keys = ", ".join(result["vary"])

    top = [("swept", f"<code>{html.escape(keys)}</code>",
            f"{len(rows)} settings: {html.escape('; '.join(setting_label(result, r) for r in rows))}; "
            f"{result['games']:,} {unit}s each, seed {result['seed']}, paired {unit} by {unit}")]
    for name in [n for n in HEADLINE if n in result["metrics"]]:
        m = metric_of(result, name)
        last = rows[-1]["metrics"][name]
        top.append((f"{html.escape(m.words(game, deal_run))}, last &minus; first",
                    interval_html(m, last["diff"], last["ci95"], True),
                    f"{html.escape(first)}: {interval_html(m, rows[0]['metrics'][name]['value'], rows[0]['metrics'][name]['value_ci95'])}; "
                    f"{html.escape(setting_label(result, rows[-1]))}: {interval_html(m, last['value'], last['value_ci95'])} "
                    f"({html.escape(m.unit_for(game, deal_run))})"))
    top.append(("players", players(result["policies"]), ""))
    notes = [w for w in (balance_words(result, n) for n in result["metrics"]) if w] if numeric(result) else []
    rep.headline(top, "".join(f"<p>{w}</p>" for w in notes) + rule_warnings_html(result))

    for name in result["metrics"]:
        m = metric_of(result, name)
        anchor = "metric-" + safe_name(name)
        rep.section(anchor, f"{m.words(game, deal_run)} ({m.unit_for(game, deal_run)})")
        table, csv_rows = [], []
        for i, r in enumerate(rows):
            v = r["metrics"][name]
            how = ("the reference" if i == 0 else html.escape(v.get("note", "")) if v["diff"] is None else
                   "paired" + ("" if v["variance_reduction"] is None else
                               f"; variance saved {100 * v['variance_reduction']:z.0f}%") if v["paired"]
                   else '<span class="warn">unpaired</span> (from the summaries): a wider interval')
            table.append([html.escape(setting_label(result, r)), interval_html(m, v["value"], v["value_ci95"]),
                          "&ndash;" if i == 0 else interval_html(m, v["diff"], v["ci95"], True), how,
                          f"<code>{html.escape(Path(r['run']).name)}</code>"])
            csv_rows.append([*(show(r["values"][k]) for k in result["vary"]), v["value"],
                             *(v["value_ci95"] or [None, None]), v["diff"], *(v["ci95"] or [None, None]),
                             v["paired"], v["variance_reduction"], r["run"]])
        file = anchor.replace("-", "_")
        rep.csv(file, [*result["vary"], "value", "value_lo95", "value_hi95", "minus_first", "minus_first_lo95",
                       "minus_first_hi95", "paired", "variance_saved", "run"], csv_rows)
        rep.html_table(file, f"Each setting, and its difference from the first ({first}); 95% intervals",
                       ["setting", "value", "minus the first", "interval of the difference", "run folder"], table)
        words = balance_words(result, name) if numeric(result) else None
        if words:
            rep.para(words)
        if any(r["metrics"][name]["value"] is not None for r in rows):
            rep.figure(sweep_figure(result, name), file,
                       "Left: each setting's value with its own 95% interval"
                       + (", the dashed line at the even value, and the balance point where it is resolved"
                          if m.balance is not None else "")
                       + f". Right, apart: each setting minus the first ({first}), with the paired 95% interval "
                         "of the difference.")

    rep.section("settings", "Settings and their run folders")
    meanings = {o["option"]: o["meaning"] for o in option_table(RULE_CLASSES[game])}
    rep.para("Swept: " + "; ".join(f"<code>{html.escape(k)}</code> ({html.escape(meanings.get(k, ''))})"
                                   for k in result["vary"])
             + ". Every setting is an ordinary run folder: <code>python -m analysis.report RUN</code> gives its "
               "own report, and <code>python -m analysis.report RUN_A RUN_B</code> compares two of them, paired.")
    settings = [[str(i + 1), html.escape(setting_label(result, r)), f"<code>{html.escape(r['run'])}</code>"]
                for i, r in enumerate(rows)]
    rep.csv("settings", ["setting", *result["vary"], "run"],
            [[i + 1, *(show(r["values"][k]) for k in result["vary"]), r["run"]] for i, r in enumerate(rows)])
    rep.html_table("settings", "Settings", ["#", keys, "run folder"], settings)
    return rep.write(f"{info.title} sweep report: {keys}, {len(rows)} settings of {result['games']:,} {unit}s, "
                     f"seed {result['seed']}")


def sweep_figure(result: dict, name: str):
    """Two panels against the swept value: each setting's value with its own interval (and
    the balance point, drawn only when resolved, gid "balance"), and apart the paired
    differences from the first setting."""
    rows, game, deal_run = result["settings"], result["game"], result.get("unit") == "deal"
    m = metric_of(result, name)
    scale = 100 if m.percent else 1
    is_numeric = numeric(result)
    xs = [r["values"][result["vary"][0]] for r in rows] if is_numeric else list(range(len(rows)))
    fig, axes = figure(11, 4.2, f"{m.words(game, deal_run)} against {', '.join(result['vary'])}", 1, 2)
    left, right = axes[0]
    unit = m.unit_for(game, deal_run).replace("share of ", "% of ")

    def points(key, ci_key):
        out = [(x, r["metrics"][name][key], r["metrics"][name][ci_key]) for x, r in zip(xs, rows)
               if r["metrics"][name][key] is not None]
        x = [p[0] for p in out]
        y = np.array([scale * p[1] for p in out])
        err = np.array([[0, 0] if ci is None else [scale * (v - ci[0]), scale * (ci[1] - v)] for _, v, ci in out]).T
        return x, y, np.maximum(err.reshape(2, -1), 0)

    x, y, err = points("value", "value_ci95")
    left.errorbar(x, y, yerr=err, fmt="o-", capsize=4, color=COLORS[0])
    left.set_title("each setting, its own 95% interval")
    left.set_ylabel(f"{m.words(game, deal_run)}\n({unit})")
    if m.balance is not None:
        left.axhline(scale * m.balance, color="#888", linestyle="--", linewidth=1)
        bx, bracket = balance(result, name) if is_numeric else (None, None)
        if bx is not None and bracket is not None:
            left.axvspan(bracket[0], bracket[1], color="tab:red", alpha=0.08)
            left.axvline(bx, color="tab:red", linestyle=":", linewidth=1.5, gid="balance")
            left.annotate(f"balance {bx:z.1f}\n(between {show(bracket[0])} and {show(bracket[1])})",
                          (bx, scale * m.balance), textcoords="offset points", xytext=(5, 6), color="tab:red")
        elif bx is not None:
            left.text(0.02, 0.04, "balance point not resolved (not drawn)", transform=left.transAxes, color="#777")
    x, y, err = points("diff", "ci95")
    right.errorbar(x[1:], y[1:], yerr=err[:, 1:], fmt="s", capsize=4, color="#333")
    if x:
        right.plot(x[:1], y[:1], "o", mfc="white", color="#333")
        right.annotate("first (reference)", (x[0], y[0]), textcoords="offset points", xytext=(5, 6), color="#555")
    right.axhline(0, color="#888", linestyle="--", linewidth=1)
    right.set_title("minus the first setting, paired 95% interval")
    right.set_ylabel(f"difference ({unit})")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        if is_numeric:
            ax.set_xticks(xs)
            ax.set_xlabel(result["vary"][0])
        else:
            ax.set_xticks(xs, [setting_label(result, r) for r in rows], rotation=20, ha="right")
            ax.set_xlabel(", ".join(result["vary"]))
    return fig
