"""Playing a sweep: every setting a run (or a multilevel estimate) of the same seed, in its
folder under the sweep's, resumed where one was left; the result, paired against the
first setting."""

from __future__ import annotations

import re
import sys
from contextlib import ExitStack
from pathlib import Path

from sim.activity import rare
from sim.cli import DEFAULT_BLOCK_SIZE
from sim.comparison import compare_runs
from sim.custom import Custom
from sim.headline import sweep_metric
from sim.metrics import MetricsError, custom_metric, resolve_metrics
from sim.placement import check_place, is_sweep_folder
from sim.resolve import in_argument_words
from sim.run_records import open_run
from sim.store import SETTING_FOLDER, RunError, claim
from sim.sweep.balance import balance_bracket, balance_point
from sim.sweep.grid import SweepError, folder_name, numeric_axis, setting_options, settings_of
from sim.sweep.output import check_plot_name, check_plot_path


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


@in_argument_words
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
    from sim.api import check_block_room, resolve_policies, resolve_rules
    from sim.cli import block_size as block_size_count, seed_number, whole_count
    from sim.dealing import Dealing
    from sim.multilevel.play import check_controls, sampling_refusal
    from sim.resolve import check_kind, check_path, checked, texts, use_threads

    # The arguments checked as sim.simulate checks its own, before anything is played.
    games, seed = checked("games", whole_count, games), checked("seed", seed_number, seed)
    if block_size is not None:
        block_size = checked("block_size", block_size_count, block_size)
    if threads is not None:
        threads = checked("threads", whole_count, threads)
    check_path("out", out)
    check_path("plot_path", plot_path, "a PNG file's path or None", "file")
    if plot_path is not None:
        check_plot_name(Path(plot_path))
    if log is not None and not callable(log):
        raise TypeError(f"log must be a function of one line of text, or None, got {log!r:.60}")
    check_kind("dealing", dealing, Dealing, 'a sim.dealing.Dealing (sim.dealing.parse("deals", ...)) or None')
    if not isinstance(grid, (list, tuple)) or not grid or not all(
            isinstance(axis, (list, tuple)) and len(axis) == 2 and isinstance(axis[0], str)
            and isinstance(axis[1], (list, tuple)) and axis[1]
            and all(isinstance(v, (list, tuple)) and len(v) == 2 and isinstance(v[0], str) for v in axis[1])
            for axis in grid):
        raise TypeError(f"grid must be parse_vary's list of (KEY, values), e.g. "
                        f"parse_vary(['exchange.nondealer_draw=2,6']), got {grid!r:.80}")
    if until is not None and not controls:
        raise SweepError("--until needs --control: a plain sweep plays the same games in every setting")
    if controls:
        if dealing is None:
            raise SweepError("--control plays deal runs: give --deals N")
        metrics = ["dealer_advantage"] if metrics is None else metrics
    specs = resolve_metrics(metrics, deal_run=dealing is not None)  # a deal run has no deals_per_game
    if not specs:
        raise MetricsError("--metrics names no metric: give one or a list (None: every builtin metric, or with "
                           "--control the dealer's advantage)")
    names = [m.name for m in specs]
    customs = [m for m in specs if isinstance(m, Custom)]
    if customs and records == "none" and not controls:
        raise MetricsError(f"metric '{customs[0].name}' reads the records, which --records none does not keep")
    grouped = next((c for c in customs if c.by), None)
    if grouped is not None:
        raise MetricsError(f"metric '{grouped.name}': a sweep takes no 'by {grouped.by}' (its settings could hold "
                           f"other groups); write one metric per group with where {grouped.by} == VALUE")
    chosen = resolve_policies(game, policies)
    given = texts("set_options", set_options, "'TABLE.KEY=VALUE'")  # one text, or a list, as simulate takes it
    settings = settings_of(grid)
    if len(settings) < 2:
        shown = "; ".join(", ".join(setting_options(setting)) for setting in settings)
        raise SweepError(f"a sweep needs at least two settings to compare, got {len(settings)} ({shown}): list the "
                         f"values apart by commas, --vary KEY=V1,V2,...")
    resolved, setting_of = [], {}  # rules (frozen, hashable) -> the first setting that gave them
    for setting in settings:  # every setting is checked before any game is played
        try:
            resolved.append(resolve_rules(game, rules, given + setting_options(setting)))
            check_block_room(resolved[-1], games, block_size or DEFAULT_BLOCK_SIZE, dealing is not None)
            reason = sampling_refusal(game, resolved[-1], chosen, controls)
            if reason:  # a player that cannot play this setting's rules (the double deck)
                raise RunError(reason)
            if controls:  # its levels as its run_multilevel checks them, before any setting plays
                check_controls(game, resolved[-1], chosen, games, controls, control_deals, dealing, until)
        except ValueError as exc:  # a RulesError, or a RunError from the block's room
            raise type(exc)(f"{', '.join(setting_options(setting))}: {exc}") from None
        same = setting_of.setdefault(resolved[-1], setting)
        if same is not setting:  # another spelling of one value, such as a set of Colons in another order
            raise SweepError(f"{', '.join(setting_options(same))} and {', '.join(setting_options(setting))} are the "
                             f"same rules: list each setting once")
    if dealing is not None:
        from sim.dealing import checked_plan

        for setting, setting_rules in zip(settings, resolved):
            try:
                checked_plan(game, setting_rules, dealing)
            except ValueError as exc:
                raise type(exc)(f"{', '.join(setting_options(setting))}: {exc}") from None
    out = Path(out) if out is not None else default_sweep_out(game, grid, seed, games, dealing is not None)
    check_place(out, SweepError)
    block_size = block_size or DEFAULT_BLOCK_SIZE
    if cluster is None and threads is not None:
        use_threads(threads)
    with ExitStack() as stack:
        # This sweep's alone while its settings play (the tables are written whole, after).
        stack.callback(claim(out, is_sweep_folder, "sweep").release)
        refuse_another_sweep(out, {folder_name(i, setting) for i, setting in enumerate(settings)})
        if plot_path is not None:  # inside the claim: a folder the sweep makes goes again if it ends here
            check_plot_path(Path(plot_path), out)
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


def refuse_another_sweep(out: Path, names: set) -> None:
    """Refuse a sweep folder that holds settings of another sweep (other keys, values or
    game): its tables would be overwritten by this sweep's and its runs mixed with them. The
    same sweep, rerun to resume or to read its tables again, holds only its own."""
    other = sorted(p.name for p in out.iterdir() if re.fullmatch(SETTING_FOLDER, p.name) and p.name not in names)
    if other:
        raise SweepError(f"output folder {out} holds another sweep's setting {other[0]}; use another --out")


