"""python -m sim.sweep --game G --vary TABLE.KEY=V1,V2,... [--vary ...] --games N [options]

Plays a grid of rule settings (the cartesian product of every --vary) on common random
numbers: every setting is a run of the same seed, games, block size and policies, so game
i deals the same cards in every setting until the varied rule makes the games part.
Reports each metric (builtin, or custom: an expression over the records, sim.custom)
per setting with its difference from the first setting, paired game by game
(sim.comparison), and the balance point where a metric crosses its even value over a
numeric grid; draws the plot. Each setting is an ordinary run folder under --out,
so a sweep resumes, and any setting can be studied like any other run.

With --control (deal runs, sim.multilevel) each setting is a multilevel estimate instead:
the --policy players on --deals deals and cheaper levels on the same deals, each setting
with its own levels on the same seed, in a multilevel folder under --out; differences from
the first setting are paired deal by deal through each deal's influence on both estimates,
and balance points are bracketed by the multilevel intervals (the plain intervals of the
target's deals alone beside them).
"""

from __future__ import annotations

import csv
import errno
import io
import itertools
import json
import re
import sys
import tempfile
import textwrap
from contextlib import ExitStack
from pathlib import Path

from sim.cli import INTERRUPTED_STATUS, exit_with, plural
from sim.activity import rare
from sim.comparison import compare_runs
from sim.custom import Custom, split_items
from sim.dealing import from_dict
from sim.games import DEFAULT_GAME, GAME_NAMES
from sim.headline import setting_label, setting_value, sweep_metric
from sim.metrics import METRICS, MetricsError, custom_metric, parse_metrics, resolve_metrics
from sim.multilevel import add_control_flags
from sim.rules import GAMES, option_table, parse_set
from sim.run import USER_ERRORS, OneLineParser, add_cluster_flag, add_dealing_flags, add_rule_flags, \
    block_size_value, count, dealing_of, seed_value
from sim.run_records import open_run
from sim.store import RECORD_MODES, claim, holds_runs, write_atomic, write_json
from sim.until import until_argument


class SweepError(ValueError):
    """A --vary grid that cannot be played."""


def parse_vary(items, set_options=()) -> list[tuple[str, list]]:
    """[(dotted key, [(text, value), ...]), ...] from the --vary flags; values are read as
    --set reads them (TOML literal, else a bare string) and checked by the rules later."""
    grid, fixed = [], {f"{t}.{k}" for t, table in parse_set(set_options).items() for k in table}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key or not raw.strip():
            raise SweepError(f"--vary needs TABLE.KEY=V1,V2,..., got '{item}'")
        texts = split_items(raw)  # commas inside brackets and quotes stay
        if not all(texts):
            raise SweepError(f"--vary {key}: an empty value in '{raw}'")
        values = []
        for text in texts:
            table = parse_set([f"{key}={text}"])  # checks the dotted name as --set does
            (section, options), = table.items()
            value = options[key.split(".")[1]]
            if any(value == v and type(value) is type(v) for _, v in values):
                raise SweepError(f"--vary {key} lists the value {text} twice")
            values.append((text, value))
        if any(key == k for k, _ in grid):
            raise SweepError(f"--vary {key} is given twice; list all its values in one --vary")
        if key in fixed:
            raise SweepError(f"{key} is both --set and --vary; keep one")
        grid.append((key, values))
    if not grid:
        raise SweepError("give at least one --vary TABLE.KEY=V1,V2,...")
    return grid


def settings_of(grid) -> list[dict]:
    """Every setting of the grid, the first --vary changing slowest: [{key: (text, value)}]."""
    keys = [k for k, _ in grid]
    return [dict(zip(keys, combo)) for combo in itertools.product(*(values for _, values in grid))]


def folder_name(index: int, setting: dict) -> str:
    text = ",".join(f"{k}={t}" for k, (t, _) in setting.items())
    return f"{index:02d}-" + re.sub(r"[^A-Za-z0-9._=,+-]", "_", text)


def setting_options(setting: dict) -> list[str]:
    return [f"{k}={t}" for k, (t, _) in setting.items()]


def numeric_axis(grid) -> bool:
    """A single key with numbers for values: a numeric grid with a balance point."""
    return len(grid) == 1 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in grid[0][1])


def balance_point(xs, ys, level: float):
    """Where the metric crosses ``level``, by linear interpolation between the neighbouring
    settings in increasing x; the first crossing, or None."""
    points = sorted((x, y) for x, y in zip(xs, ys) if y is not None)
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if y0 == level:
            return float(x0)
        if (y0 - level) * (y1 - level) < 0:
            return float(x0 + (level - y0) * (x1 - x0) / (y1 - y0))
    if points and points[-1][1] == level and len(points) > 1:
        return float(points[-1][0])
    return None


def balance_bracket(xs, metrics, level: float, x: float):
    """[x_low, x_high]: the nearest settings either side of the balance point ``x`` whose own
    95% intervals lie wholly on their side of ``level``, so the rules are even somewhere
    between them; None when no setting on one side is clear of ``level`` (the crossing may
    be noise)."""
    points = sorted((v, m["value"], m["value_ci95"]) for v, m in zip(xs, metrics) if m["value_ci95"])
    below = [p for p in points if p[0] <= x]
    above = [p for p in points if p[0] >= x]
    if not below or not above:
        return None
    rising = above[-1][1] > below[0][1]

    def clear(ci, high):
        return ci[0] > level if high else ci[1] < level

    low = [v for v, _, ci in below if clear(ci, not rising)]
    high = [v for v, _, ci in above if clear(ci, rising)]
    return [max(low), min(high)] if low and high else None


def _play_settings(game, settings, resolved, policies, seed, games, out, records, block_size, log, extra,
                   check=None):
    """Play (or resume) each setting's run folder in turn; the folders, opened for metrics.
    ``check(folder)`` is called on the first folder before the others are played."""
    from sim.api import execute

    folders = []
    for i, (setting, setting_rules) in enumerate(zip(settings, resolved)):
        folder = out / folder_name(i, setting)
        if log:
            log(f"setting {i + 1}/{len(settings)}: {', '.join(setting_options(setting))} -> {folder}")
        progress = None
        if log and sys.stderr.isatty():
            from tqdm import tqdm

            progress = tqdm(total=games, unit=" games", unit_scale=True, smoothing=0.1,
                            desc=f"setting {i + 1}/{len(settings)}", file=sys.stderr)
        try:
            execute(game, setting_rules, policies, seed, games, folder, records, block_size, progress, **extra)
        finally:
            if progress is not None:
                progress.close()
        folders.append(open_run(folder))
        if i == 0 and check is not None:
            check(folders[0])
    return folders


def sweep(game: str, grid, games: int, seed: int = 1, rules=None, set_options=(), policies=None,
          out=None, metrics=None, records: str = "deals", block_size: int | None = None,
          cluster=None, threads: int | None = None, log=None, plot_path=None, dealing=None, controls=(),
          control_deals=None, until=None) -> dict:
    """Play every setting of ``grid`` (from parse_vary) and compare each with the first.

    ``dealing``: a deal run's sim.dealing.Dealing; ``games`` then counts deals, and its
    conditions are checked under every setting's rules before any deal is played.

    ``metrics``: builtin names and custom definitions (``NAME = mean(EXPR) [where COND]``,
    sim.custom), or a --metrics text; None: every builtin metric. A custom metric's
    grammar is checked before any game is played, its columns on the first setting's
    records before the other settings are played.

    Returns the JSON-ready result: ``settings`` (values, run folder, metrics),
    ``custom_metrics`` ({name: definition, label, unit, percent, balance}) and
    ``balance_point`` ({metric: value}) where a metric crosses its even value.
    ``plot_path``, where the caller will draw the plot, is checked before any game is played.

    ``controls`` (sim.multilevel levels, with ``control_deals`` or sized by a pilot): each
    setting a multilevel estimate of ``metrics`` (default the dealer's advantage) over a
    deal run (``_multilevel_result``); with ``until`` ("METRIC:W", any deal metric) each
    setting's levels grow until that metric's 95% half-width is at most W, ``games`` being
    each setting's cap.
    """
    from sim.api import DEFAULT_BLOCK_SIZE, check_block_room, resolve_policies, resolve_rules

    if until is not None and not controls:
        raise SweepError("--until needs --control: a plain sweep plays the same games in every setting")
    if controls:
        if dealing is None:
            raise SweepError("--control plays deal runs: give --deals N")
        metrics = metrics or ["dealer_advantage"]
    specs = resolve_metrics(metrics, deal_run=True) if controls else resolve_metrics(metrics)
    names = [m.name for m in specs]
    customs = [m for m in specs if isinstance(m, Custom)]
    if customs and records == "none" and not controls:
        raise MetricsError(f"metric '{customs[0].name}' reads the records, which --records none does not keep")
    grouped = next((c for c in customs if c.by), None)
    if grouped is not None:
        raise MetricsError(f"metric '{grouped.name}': a sweep takes no 'by {grouped.by}' (its settings could hold "
                           f"other groups); write one metric per group with where {grouped.by} == VALUE")
    chosen = resolve_policies(game, policies)
    settings = settings_of(grid)
    if len(settings) < 2:
        raise SweepError("a sweep needs at least two settings to compare")
    resolved = []
    for setting in settings:  # every setting is checked before any game is played
        try:
            resolved.append(resolve_rules(game, rules, list(set_options) + setting_options(setting)))
            check_block_room(resolved[-1], games, block_size or DEFAULT_BLOCK_SIZE, dealing is not None)
        except ValueError as exc:  # a RulesError, or a RunError from the block's room
            raise type(exc)(f"{', '.join(setting_options(setting))}: {exc}") from None
    if dealing is not None:
        from sim.dealing import checked_plan

        for setting, setting_rules in zip(settings, resolved):
            try:
                checked_plan(game, setting_rules, dealing)
            except ValueError as exc:
                raise type(exc)(f"{', '.join(setting_options(setting))}: {exc}") from None
    out = Path(out) if out is not None else default_sweep_out(game, grid, seed, games, dealing is not None)
    block_size = block_size or DEFAULT_BLOCK_SIZE
    if cluster is None and threads is not None:
        import numba

        numba.set_num_threads(threads)
    with ExitStack() as stack:
        # This sweep's alone while its settings play (the tables are written whole, after).
        stack.callback(claim(out, is_sweep_folder, "sweep").release)
        if plot_path is not None:  # inside the claim: a folder the sweep makes goes again if it ends here
            check_plot_path(Path(plot_path))
        extra = {} if dealing is None else {"dealing": dealing}
        if cluster is not None:  # one cluster (and its workers' warm kernels) for every setting
            from sim.cluster import open_cluster

            pool = stack.enter_context(open_cluster(cluster, threads))
            extra.update(cluster=pool.client, threads=pool.threads)
        if controls:
            from sim.multilevel import run_multilevel

            played = []
            for i, (setting, setting_rules) in enumerate(zip(settings, resolved)):
                folder = out / folder_name(i, setting)
                if log:
                    log(f"setting {i + 1}/{len(settings)}: {', '.join(setting_options(setting))} -> {folder}")
                played.append(run_multilevel(game, setting_rules, chosen, seed, games, list(controls), control_deals,
                                             metrics, dealing, until, out=folder, notify=log, influence=True,
                                             cluster=extra.get("cluster"), threads=extra.get("threads", threads)))
        else:
            folders = _play_settings(game, settings, resolved, chosen, seed, games, out, records, block_size,
                                     log, extra, check=lambda first: [custom_metric(c, (first,)) for c in customs])
    if controls:
        return _multilevel_result(game, grid, settings, played, out, seed, games, chosen, dealing)
    rows, custom = [], {}
    for i, (setting, folder) in enumerate(zip(settings, folders)):
        compared = compare_runs(folders[0], folder, specs)["metrics"]
        if i == 0:
            custom = {name: {k: r[k] for k in ("definition", "label", "unit", "percent", "balance")}
                      for name, r in compared.items() if "definition" in r}
        row = {"values": {k: v for k, (_, v) in setting.items()}, "run": str(folder.path), "metrics": {}}
        for name, r in compared.items():
            row["metrics"][name] = {"value": r["b"], "value_ci95": r["b_ci95"], "diff": r["diff"],
                                    "ci95": r["ci95"], "paired": r["paired"],
                                    "variance_reduction": None if i == 0 else r["variance_reduction"]}
            if i == 0 and r["diff"] is not None:
                row["metrics"][name]["ci95"] = [0.0, 0.0]  # itself, also where read from the summary
            if "note" in r:
                row["metrics"][name]["note"] = r["note"]
        rows.append(row)
    result = {"game": game, "seed": seed, "games": games, "vary": [k for k, _ in grid], "out": str(out),
              "policies": [str(p) for p in chosen], "metrics": names, "custom_metrics": custom, "settings": rows,
              "unit": "game" if dealing is None else "deal"}
    summaries = [folder.summary() for folder in folders]
    result["rule_warnings"] = [w for w in (rare(k, summaries, result["policies"]) for k, _ in grid) if w]
    if dealing is not None:
        result["dealing"] = dealing.to_dict()
    if numeric_axis(grid):
        key = grid[0][0]
        found, brackets = {}, {}
        xs = [r["values"][key] for r in rows]
        for name in names:
            level = sweep_metric(result, name).balance
            if level is None:
                continue
            x = balance_point(xs, [r["metrics"][name]["value"] for r in rows], level)
            if x is not None:
                found[name] = x
                brackets[name] = balance_bracket(xs, [r["metrics"][name] for r in rows], level, x)
        if found:
            result["balance_point"] = found
            result["balance_bracket"] = brackets
    return result


def _multilevel_result(game, grid, settings, played, out, seed, deals, chosen, dealing) -> dict:
    """A sweep's result from each setting's multilevel estimates (run_multilevel with
    influence): each setting's value and 95% interval are the multilevel ones, its
    difference from the first paired deal by deal (estimate_difference); beside them the
    plain figures of the target's deals alone, and balance points bracketed both ways."""
    from sim.multilevel import estimate_difference

    first = played[0]["metrics"]
    names = list(first)
    rows = []
    for i, (setting, res) in enumerate(zip(settings, played)):
        row = {"values": {k: v for k, (_, v) in setting.items()}, "run": str(out / folder_name(i, setting)),
               "sizes": res["sizes"], "wall_seconds": res["wall_seconds"], "reached": res["reached"], "metrics": {}}
        for name, e in res["metrics"].items():
            d = estimate_difference(first[name], e)
            row["metrics"][name] = {
                "value": e["value"], "value_ci95": e["ci95"], "diff": d["diff"],
                "ci95": [0.0, 0.0] if i == 0 else d["ci95"], "paired": True,
                "variance_reduction": None if i == 0 or not d["unpaired_variance"]
                else 1 - d["variance"] / d["unpaired_variance"],
                "estimator": e["estimator"], "plain_value": e["plain_value"], "plain_ci95": e["plain_ci95"],
                "variance_saved": e["variance_saved"], "equal_time_saved": e.get("equal_time_saved"),
                "plain_deals": e["plain_deals"]}
        rows.append(row)
    custom = {name: {k: e[k] for k in ("definition", "label", "unit", "percent", "balance")}
              for name, e in first.items() if e.get("definition") is not None}
    result = {"game": game, "seed": seed, "games": deals, "vary": [k for k, _ in grid], "out": str(out),
              "policies": [str(p) for p in chosen], "metrics": names, "custom_metrics": custom, "settings": rows,
              "unit": "deal", "dealing": dealing.to_dict(), "controls": played[0]["controls"],
              "until": played[0]["until"]}
    if numeric_axis(grid):
        key = grid[0][0]
        xs = [r["values"][key] for r in rows]
        found, brackets, plain_found, plain_brackets = {}, {}, {}, {}
        for name in names:
            level = first[name]["balance"]
            if level is None:
                continue
            own = [r["metrics"][name] for r in rows]
            x = balance_point(xs, [m["value"] for m in own], level)
            if x is not None:
                found[name], brackets[name] = x, balance_bracket(xs, own, level, x)
            plain = [{"value": m["plain_value"], "value_ci95": m["plain_ci95"]} for m in own]
            x = balance_point(xs, [m["value"] for m in plain], level)
            if x is not None:
                plain_found[name], plain_brackets[name] = x, balance_bracket(xs, plain, level, x)
        if found:
            result.update(balance_point=found, balance_bracket=brackets)
        if plain_found:
            result.update(plain_balance_point=plain_found, plain_balance_bracket=plain_brackets)
    return result


def default_sweep_out(game: str, grid, seed: int, games: int, deals: bool = False) -> Path:
    keys = "+".join(k for k, _ in grid)
    return Path("runs") / (f"sweep-{game}-{keys}-{seed}-{games}" + ("-deals" if deals else ""))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def is_sweep_folder(out: Path, names) -> bool:
    """A folder a sweep made: setting run folders (or multilevel folders), its tables and its plot."""
    settings = [n for n in names if re.fullmatch(r"\d{2,}-.+", n) and (out / n / "target.npz").is_file()]
    if settings:  # a sweep with --control: multilevel folders (sim.multilevel)
        return not set(names) - set(settings) - {"sweep.json", "sweep.csv", "sweep.png"}
    return holds_runs(out, names, r"\d{2,}-.+", "sweep.json", ("sweep.csv", "sweep.png"))


def check_plot_path(path: Path) -> None:
    """Refuse a plot file that could not be written: a folder, a path under a file, or one
    whose folder cannot be made or takes no new file (tried with an empty temporary file),
    or a file there already that is not a PNG image (a plot is drawn over only a plot)."""
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder")
        under_file = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if under_file is not None:  # mkdir would say only "File exists" or "Not a directory"
            raise NotADirectoryError(errno.ENOTDIR, f"{under_file} is a file, not a folder")
        if path.is_file() and _first_bytes(path) != PNG_SIGNATURE:
            raise FileExistsError(errno.EEXIST, "it exists and is not a PNG image, so it is kept; "
                                                "choose another --plot")
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"):
            pass
    except OSError as exc:
        raise SweepError(f"cannot write the plot {path}: {exc.strerror or exc}") from None


def _first_bytes(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(len(PNG_SIGNATURE))


TABLE_COLUMNS = ("metric", "unit", "value", "value_lo95", "value_hi95", "minus_first", "minus_first_lo95",
                 "minus_first_hi95", "paired", "variance_saved", "run")


def save_tables(result: dict) -> tuple[Path, Path]:
    """The result as ``sweep.json`` (what --json prints) and ``sweep.csv`` (one row per
    setting and metric, fractions as fractions) in the sweep's folder."""
    out = Path(result["out"])
    rows = []
    for row in result["settings"]:
        for name, v in row["metrics"].items():
            numbers = (v["value"], *(v["value_ci95"] or [None, None]), v["diff"], *(v["ci95"] or [None, None]))
            rows.append([*map(setting_value, row["values"].values()), name,
                         sweep_metric(result, name).unit_for(result["game"]),
                         *map(_number, numbers), v["paired"], _number(v["variance_reduction"]), row["run"]])
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([*result["vary"], *TABLE_COLUMNS])
    writer.writerows(rows)
    paths = out / "sweep.json", out / "sweep.csv"
    write_json(paths[0], result)  # a RunError names the file that cannot be written
    write_atomic(paths[1], text.getvalue().encode())
    return paths


def _number(x):
    return "" if x is None else x + 0.0  # never -0.0


# --- Report --------------------------------------------------------------------------------

def format_report(result: dict) -> str:
    """The table printed by the command: per metric, one line per setting."""
    game, rows, unit = result["game"], result["settings"], result.get("unit", "game")
    first = ", ".join(f"{k}={setting_value(v)}" for k, v in rows[0]["values"].items())
    dealt = "" if "dealing" not in result else f" ({from_dict(result['dealing']).describe()})"
    levels = "" if not result.get("controls") else f"; multilevel over {', '.join(result['controls'])}"
    lines = [f"{game}: {len(rows)} settings of {', '.join(result['vary'])}, "
             f"{'up to ' if result.get('until') else ''}{plural(result['games'], unit)} each{dealt}, "
             f"seed {result['seed']}, "
             f"policies {', '.join(result['policies'])}{levels}; runs in {result['out']}",
             f"differences are against the first setting ({first}), paired {unit} by {unit} where the "
             f"records allow (95% intervals)"]
    if result.get("until"):
        missed = [setting_label(r) for r in rows if not r["reached"]]
        lines.append(f"until {result['until'][0]}:{result['until'][1]:g}: reached in every setting" if not missed
                     else f"until {result['until'][0]}:{result['until'][1]:g}: not reached within the cap in "
                          f"{', '.join(missed)}")
    width = max(len(setting_label(r)) for r in rows) + 2
    for name in result["metrics"]:
        m = sweep_metric(result, name)
        lines += ["", f"{m.words(game)} ({m.unit_for(game)}):",
                  f"  {'setting':{width}s}{'value':>12s}{'95% CI':>24s}{'minus first':>14s}"
                  f"{'95% CI':>26s}{'variance saved':>16s}"]
        for r in rows:
            v = r["metrics"][name]
            if v["value"] is None:
                lines.append(f"  {setting_label(r):{width}s}{'-':>12s}   {v.get('note', '')}")
                continue
            own = _interval(m, v["value_ci95"], signed=False)
            diff = m.format(v["diff"], signed=True)
            paired = _interval(m, v["ci95"], signed=True)
            saved = ("unpaired" if not v["paired"] else "-" if v["variance_reduction"] is None
                     else f"{100 * v['variance_reduction']:z.0f}%")
            lines.append(f"  {setting_label(r):{width}s}{m.format(v['value']):>12s}{own:>24s}{diff:>14s}"
                         f"{paired:>26s}{saved:>16s}")
        x = result.get("balance_point", {}).get(name)
        if x is not None:
            level = m.format(m.balance)
            bracket = result["balance_bracket"][name]
            where = (f"the settings' 95% intervals put it between {setting_value(bracket[0])} and "
                     f"{setting_value(bracket[1])}" if bracket else f"not resolved: the settings on one side are within their 95% "
                                     f"intervals of {level}")
            lines.append(f"  balance point: {m.words(game)} crosses {level} at {result['vary'][0]} = {x:z.2f} "
                         f"(linear interpolation; {where})")
        if result.get("controls"):
            lines += _plain_lines(result, name, m, width)
    return "\n".join(lines)


def _plain_lines(result: dict, name: str, m, width: int) -> list[str]:
    """A multilevel sweep's plain figures beside its estimates: each setting's target deals
    alone, the variance the estimate saved, and the balance point those deals alone give."""
    lines = [f"  {'plain: the target alone':{width}s}{'value':>12s}{'95% CI':>24s}{'variance saved':>16s}"
             f"{'at equal time':>15s}"]
    for r in result["settings"]:
        v = r["metrics"][name]
        saved, timed = (("-" if x is None else f"{x:.2f}x")
                        for x in (v.get("variance_saved"), v.get("equal_time_saved")))
        lines.append(f"  {setting_label(r):{width}s}{m.format(v['plain_value']):>12s}"
                     f"{_interval(m, v['plain_ci95'], signed=False):>24s}{saved:>16s}{timed:>15s}")
    x = result.get("plain_balance_point", {}).get(name)
    if x is not None:
        bracket = result["plain_balance_bracket"][name]
        where = (f"between {setting_value(bracket[0])} and {setting_value(bracket[1])} by their 95% intervals"
                 if bracket else "not resolved by their 95% intervals")
        lines.append(f"  balance point of the target's deals alone: {result['vary'][0]} = {x:z.2f} ({where})")
    return lines


def _interval(m, ci, signed: bool) -> str:
    return "-" if ci is None else f"[{m.format(ci[0], signed)}, {m.format(ci[1], signed)}]"


def plot(result: dict, path) -> Path:
    """Each metric against the varied setting, one panel per metric, with each setting's
    own 95% interval (the paired differences are in the sweep's report, apart: python -m
    analysis.report SWEEP), and the balance point only where its bracket is resolved."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, names, game = result["settings"], result["metrics"], result["game"]
    numeric = len(result["vary"]) == 1 and all(
        isinstance(r["values"][result["vary"][0]], (int, float)) and not isinstance(r["values"][result["vary"][0]], bool)
        for r in rows)
    xs = [r["values"][result["vary"][0]] for r in rows] if numeric else list(range(len(rows)))
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 2.6 * len(names) + 0.8), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        m = sweep_metric(result, name)
        scale = 100 if m.percent else 1
        pts = [(x, r["metrics"][name]) for x, r in zip(xs, rows) if r["metrics"][name]["value"] is not None]
        if not pts:
            ax.text(0.5, 0.5, f"{m.words(game)}: not measurable in these runs", ha="center", transform=ax.transAxes)
            continue
        values = [scale * v["value"] for _, v in pts]
        bars = []
        for _, v in pts:
            ci = v["value_ci95"] or [v["value"], v["value"]]
            bars.append([scale * v["value"] - scale * ci[0], scale * ci[1] - scale * v["value"]])
        ax.errorbar([x for x, _ in pts], values, yerr=list(zip(*bars)), fmt="o-", capsize=4, color="tab:blue")
        if m.balance is not None:
            ax.axhline(scale * m.balance, color="grey", lw=0.8, ls="--")
            x = result.get("balance_point", {}).get(name)
            if x is not None and result.get("balance_bracket", {}).get(name):
                ax.axvline(x, color="tab:red", lw=0.8, ls=":")
                ax.annotate(f"balance {x:z.1f}", (x, scale * m.balance), textcoords="offset points",
                            xytext=(4, 4), color="tab:red", fontsize=8)
        unit = m.unit_for(game).replace("share of ", "% of ")
        words = "\n".join(textwrap.wrap(m.words(game), 36))  # a custom metric's expression can be long
        ax.set_ylabel(f"{words}\n({unit})", fontsize=8)
        ax.grid(alpha=0.3)
    bottom = axes[-1, 0]
    if numeric:
        bottom.set_xticks(xs)
        meaning = {row["option"]: row["meaning"] for row in option_table(GAMES[game])}.get(result["vary"][0], "")
        bottom.set_xlabel(f"{result['vary'][0]}: {meaning}", fontsize=9)
    else:
        bottom.set_xticks(xs, [setting_label(r) for r in rows], rotation=20, fontsize=8)
        bottom.set_xlabel(", ".join(result["vary"]))
    how = ("" if not result.get("controls") else
           f", multilevel estimates over {', '.join(result['controls'])} (sim.multilevel)")
    fig.suptitle(f"{game}: {result['games']:,} {result.get('unit', 'game')}s per setting, seed {result['seed']}{how}\n"
                 "error bars: each setting's own 95% interval",
                 fontsize=9)
    fig.tight_layout()
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise SweepError(f"cannot write the plot {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return path


# --- Command line --------------------------------------------------------------------------

def build_parser():
    p = OneLineParser(prog="python -m sim.sweep", description=__doc__.split("\n\n")[1])
    p.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME, help=f"game to play (default {DEFAULT_GAME})")
    p.add_argument("--vary", action="append", default=[], metavar="TABLE.KEY=V1,V2,...",
                   help="an option and its values (repeatable; the grid is every combination); "
                        "values are read as --set reads them")
    p.add_argument("--games", type=count, help="whole games per setting; 1e5 works")
    p.add_argument("--deals", type=count, help="instead of --games: independent deals per setting (sim.dealing), "
                                               "paired deal by deal")
    add_dealing_flags(p)
    p.add_argument("--seed", type=seed_value, default=1, help="seed shared by every setting (default 1)")
    p.add_argument("--threads", type=count, help="worker threads (default: all cores)")
    add_rule_flags(p)
    p.add_argument("--out", help="sweep folder, one run folder per setting inside "
                                 "(default runs/sweep-<game>-<keys>-<seed>-<games>); an existing one resumes")
    p.add_argument("--metrics", action="append", metavar="M1,M2,...",
                   help=f"metrics to report, comma-separated, repeatable (default all: {', '.join(METRICS)}); "
                        "a custom one is NAME = mean(EXPR) [where COND] [balance V] or NAME = sum(EXPR) / "
                        "sum(EXPR) ... over the deal or game columns (commas inside parentheses or quotes "
                        "do not separate)")
    p.add_argument("--records", choices=RECORD_MODES, default="deals",
                   help="records each setting keeps (default deals; without them metrics come from the "
                        "summaries, unpaired, where they can)")
    p.add_argument("--block-size", type=block_size_value, default=None,
                   help="games per block (default 50000, at most 1,000,000)")
    p.add_argument("--plot", metavar="PATH", help="where to draw the plot (default <out>/sweep.png)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors and the result")
    add_control_flags(p)
    p.add_argument("--until", type=until_argument, metavar="METRIC:HALF_WIDTH",
                   help="with --control: grow each setting's levels until the metric's 95%% half-width is at most "
                        "HALF_WIDTH (any deal metric, or one named in --metrics), --deals being each setting's cap")
    add_cluster_flag(p, "; --out must then be a folder every worker shares")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        # with --control the default is the dealer's advantage alone (a strong player is dear)
        metrics = None if args.metrics is None and args.control else parse_metrics(args.metrics)
        grid = parse_vary(args.vary, args.set_options)
        if args.threads is not None and args.cluster is None:
            import numba

            if args.threads > numba.config.NUMBA_NUM_THREADS:
                parser.error(f"--threads {args.threads} exceeds the {numba.config.NUMBA_NUM_THREADS} "
                             "threads available")
        log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
        dealing = dealing_of(args, parser)
        n = args.deals if dealing.deal_run else args.games
        out = Path(args.out) if args.out else default_sweep_out(args.game, grid, args.seed, n, dealing.deal_run)
        plot_path = Path(args.plot) if args.plot else out / "sweep.png"
        result = sweep(args.game, grid, n, args.seed, args.rules, args.set_options, args.policy,
                       out, metrics, args.records, args.block_size, args.cluster, args.threads, log, plot_path,
                       dealing if dealing.deal_run else None, args.control, args.control_deals, args.until)
        try:  # checked before playing, but a disk can still fill up: the tables are kept all the same
            result["plot"], problem = str(plot(result, plot_path)), None
        except SweepError as exc:
            result["plot"], problem = None, exc
        tables = save_tables(result)
    except (*USER_ERRORS, SweepError, MetricsError) as exc:
        return parser.fail(exc)
    except KeyboardInterrupt:
        print("\ninterrupted; rerun the same command to resume the sweep", file=sys.stderr)
        return INTERRUPTED_STATUS
    if args.json:
        print(json.dumps(result))
    else:
        from sim.headline import sweep_headline, sweep_next

        print("\n".join(sweep_headline(result)))
        print()
        print(format_report(result))
        print(f"\ntables: {tables[0]}, {tables[1]}")
        if result["plot"]:
            print(f"plot: {result['plot']}")
        print("\n".join(sweep_next(result)))
    return parser.fail(f"{problem}; the tables are saved in {out}") if problem else 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.sweep")
