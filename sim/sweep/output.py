"""What a sweep writes and prints: its tables (JSON and CSV), its report and its plot."""

from __future__ import annotations

import errno
import io
import os
import textwrap
from pathlib import Path

from sim.cli import file_in_the_way, make_folders, plural, quiet_matplotlib, remove_made, why_not_made
from sim.dealing import from_dict
from sim.headline import setting_label, setting_value, sweep_metric
from sim.rules import GAMES, option_table
from sim.placement import check_place, is_sweep_folder, is_sweep_plot, plot_mark
from sim.store import RunError, csv_bytes, listing, sealed, temporary, write_atomic, write_json
from sim.sweep.grid import SweepError

def check_plot_name(path: Path) -> None:
    """Refuse a plot file whose name does not end in .png (the plot is a PNG image): said
    before the sweep claims its folder, as the arguments' other checks are."""
    if path.suffix.lower() != ".png":
        raise SweepError(f"--plot {path}: the plot is a PNG image; give a path ending in .png")


def check_plot_path(path: Path, out) -> None:
    """Refuse a plot file that could not be written or should not be: a name not ending in
    .png (the plot is a PNG image), a link, a folder, a path under a file, one whose folder
    cannot be made or takes no new file (tried with an empty temporary file, in folders
    made for the try and removed after it), or a file there already that is not this
    sweep's plot (``out``: its folder; a plot is drawn over only by the sweep that drew
    it)."""
    check_plot_name(path)
    if out is not None:
        inside, where = Path(os.path.abspath(path.parent)), Path(os.path.abspath(out))
        if inside != where and where in inside.parents:  # made before any setting, it would stop that setting
            raise SweepError(f"--plot {path}: within the sweep's folder the plot goes in {out} itself; the folders "
                             f"in it are the settings' run folders")
    try:
        if path.is_symlink():  # the plot would replace the link, never reach what it names
            raise FileExistsError(errno.EEXIST, f"it is a link to {os.readlink(path)}, so it is kept; give the "
                                                "plot's own path")
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder")
        under_file = file_in_the_way(path.parent)
        if under_file is not None:  # mkdir would say only "File exists" or "Not a directory"
            raise NotADirectoryError(errno.ENOTDIR, f"{under_file} is a file, not a folder")
        if path.is_file() and not is_sweep_plot(path, out):
            raise FileExistsError(errno.EEXIST, "it exists and is not this sweep's plot, so it is kept; "
                                                "choose another --plot")
        if out is not None and os.path.realpath(path.parent) != os.path.realpath(out):
            check_place(path, SweepError, flag="--plot")  # in no other command's folder either
        try:
            made = make_folders(path.parent)
        except OSError as exc:
            raise OSError(exc.errno, why_not_made(path.parent, exc)) from None
        try:
            probe = temporary(path)  # the name the plot is written under first
            open(probe, "x").close()
            probe.unlink()
        finally:
            remove_made(made)  # made again when the plot is drawn: a refused sweep leaves none
    except OSError as exc:
        raise SweepError(f"cannot write the plot {path}: {exc.strerror or exc}") from None


TABLE_COLUMNS = ("metric", "unit", "value", "value_lo95", "value_hi95", "minus_first", "minus_first_lo95",
                 "minus_first_hi95", "paired", "variance_saved", "run")


def save_tables(result: dict) -> tuple[Path, Path]:
    """The result as ``sweep.json`` (what --json prints) and ``sweep.csv`` (one row per
    setting and metric, fractions as fractions) in the sweep's folder: a SweepError where
    ``result["out"]`` is no sweep's folder (a run's, a user's), whose files it would replace."""
    out = Path(result["out"])
    names = listing(out)
    if names is None or not is_sweep_folder(out, names):
        raise SweepError(f"{out} is not a sweep's folder (its settings' runs, tables and plot): the tables are "
                         f"written there only")
    rows = []
    for row in result["settings"]:
        for name, v in row["metrics"].items():
            numbers = (v["value"], *(v["value_ci95"] or [None, None]), v["diff"], *(v["ci95"] or [None, None]))
            rows.append([*map(setting_value, row["values"].values()), name,
                         sweep_metric(result, name).unit_for(result["game"], result.get("unit") == "deal"),
                         *map(_number, numbers), v["paired"], _number(v["variance_reduction"]), row["run"]])
    paths = out / "sweep.json", out / "sweep.csv"
    write_json(paths[0], sealed(result))  # it checks itself (a reader names it edited); a RunError names a
    # file that cannot be written
    write_atomic(paths[1], csv_bytes([*result["vary"], *TABLE_COLUMNS], rows))
    return paths


def _number(x):
    return "" if x is None else x + 0.0  # never -0.0


def format_report(result: dict) -> str:
    """The table printed by the command: per metric, one line per setting."""
    game, rows, unit = result["game"], result["settings"], result.get("unit", "game")
    deal_run = unit == "deal"
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
        lines += ["", f"{m.words(game, deal_run)} ({m.unit_for(game, deal_run)}):",
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
                     f"{setting_value(bracket[1])}" if bracket
                     else f"not resolved: the settings on one side are within their 95% intervals of {level}")
            lines.append(f"  balance point: {m.words(game, deal_run)} crosses {level} at {result['vary'][0]} = "
                         f"{x:z.2f} "
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
    analysis.report SWEEP), and the balance point only where its bracket is resolved. The
    path is checked first (check_plot_path): a file there that is not this sweep's plot is kept."""
    check_plot_path(Path(path), result["out"])
    deal_run = result.get("unit") == "deal"
    quiet_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False  # a user's metric may hold a $: drawn as written
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
            ax.text(0.5, 0.5, f"{m.words(game, deal_run)}: not measurable in these runs", ha="center",
                    transform=ax.transAxes)
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
        unit = m.unit_for(game, deal_run).replace("share of ", "% of ")
        words = "\n".join(textwrap.wrap(m.words(game, deal_run), 36))  # a custom metric's expression can be long
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
    image = io.BytesIO()
    try:
        fig.savefig(image, dpi=110, format="png", metadata={"Software": plot_mark(result["out"])})
    finally:
        plt.close(fig)
    try:
        make_folders(path.parent)
        write_atomic(path, image.getvalue())  # whole or not at all: a kill mid-write leaves the old plot
    except OSError as exc:
        raise SweepError(f"cannot write the plot {path}: {exc.strerror or exc}") from None
    except RunError as exc:  # its line names the plot's path and why
        raise SweepError(str(exc)) from None
    return path
