"""run_multilevel: the levels of a multilevel estimate played, sized by a pilot or grown
until a half-width is met, kept in a folder that resumes, and estimated."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from sim.cli import plural
from sim.games import game_info
from sim.store import read_sealed
from sim.multilevel.allocation import allocation, sizes_for
from sim.multilevel.estimator import MIN_TARGET_DEALS, Features, MultilevelError, nested_estimate
from sim.multilevel.features import hand_features
from sim.multilevel.levels import Level, LevelPlayer, parse_level


def default_levels(game: str) -> list[str]:
    """``--control auto``: the hierarchy that saved most per second end to end in
    docs/multilevel.md's measurements. In Bridgette the heuristic's contracts valued double
    dummy (one search a deal) before the heuristic's deals with their choices and outcomes:
    2.1-2.6x less variance than plain ``pimc`` deals at equal wall time on five seeds,
    against 1.8-2.3x for the heuristic alone (the hand features added under 1%, and
    ``pimc:worlds=2`` cost more than it saved); the pilot leaves a level out where its deals
    say it is not worth its cost. Draw Bridge has the same levels (its ``pimc`` seat knows
    the deal after the draw phase, and costs about what they do, so the pilot mostly leaves
    them out); Bid Euchre, whose contracts have no double-dummy level, the heuristic's."""
    if game_info(game).dd_solver == "contract":
        return ["dd:all=heuristic", "all=heuristic"]
    return ["all=heuristic"]


# Given with influence only (sweeps, strata, comparisons): kept out of the JSON, which is then the same however made
INFLUENCE_KEYS = ("influence", "segments", "fitted", "target_y", "target_n", "deals_key")
PILOT_DEALS = 200  # the target's deals in the pilot that sizes the levels
PILOT_FILE = "pilot.json"  # the sizes a pilot chose, kept until the estimate is written


def check_controls(game: str, rules, policies, deals: int, controls, control_deals, dealing, until) -> tuple:
    """The levels of ``controls`` (Level or text; "auto": the game's default hierarchy) for
    a target of ``deals`` deals dealt by ``dealing``, each checked before anything is played
    (by run_multilevel, and by a sweep for each of its settings): (levels, the levels that
    play deals, whether the hand features are one); a MultilevelError in one line otherwise."""
    expanded = [(lv, c == "auto") for c in controls for lv in (default_levels(game) if c == "auto" else [c])]
    levels = [c if isinstance(c, Level) else parse_level(c) for c, _ in expanded]
    canon = [_canonical(game, lv) for lv in levels]
    twice = next((k for k in range(len(levels)) if canon[k] in canon[:k]), None)
    if twice is not None:  # it would play the same deals twice and fit one column twice
        auto = expanded[twice][1] or expanded[canon.index(canon[twice])][1]
        raise MultilevelError(f"--control {levels[twice].text} is given twice"
                              + (" (auto holds it)" if auto else "") + ": give each level once")
    if not dealing.deal_run:
        raise MultilevelError("--control plays deal runs: give --deals N")
    if deals < MIN_TARGET_DEALS:  # said before anything is played or kept
        raise MultilevelError(f"--control: the target needs at least {MIN_TARGET_DEALS} deals, got --deals {deals:,}")
    runs = [lv for lv in levels if lv.kind != "hand"]
    hand = any(lv.kind == "hand" for lv in levels)
    if hand and (not game_info(game).hand_features or dealing.conditioned):
        raise MultilevelError("--control hand: the hand features are Bridgette's, of unconditioned deal runs")
    scored = next((lv.kind for lv in levels if lv.kind in ("dd", "par")), None)
    if scored and game_info(game).dd_solver != "contract":
        raise MultilevelError(f"--control {scored}: scoring contracts double dummy or at par is for Bridgette and "
                              f"Draw Bridge")
    reason = sampling_refusal(game, rules, policies, levels)
    if reason:  # before the target's pilot plays (it stopped there, or at the first control)
        raise MultilevelError(reason)
    if control_deals is not None and not runs:
        raise MultilevelError("--control-deals sizes the controls that play deals, and 'hand' plays none: drop "
                              "--control-deals")
    if control_deals is not None and len(control_deals) != len(runs):
        raise MultilevelError(f"--control-deals gives {plural(len(control_deals), 'count')} for "
                              f"{plural(len(runs), 'played control')} ('hand' needs none)")
    if until is not None and control_deals is not None:
        raise MultilevelError("--until sizes the levels from a pilot: drop --control-deals")
    fewer = next((n for n in control_deals or () if n < deals), None)
    if fewer is not None:  # said before the target's deals are played, not after
        raise MultilevelError(f"--control-deals {fewer:,}: a control plays at least the target's {deals:,} deals")
    return levels, runs, hand


def run_multilevel(game: str, rules, policies, seed: int, deals: int, controls, control_deals=None,
                   metrics=None, dealing=None, until=None, out=None, notify=None, pilot: int = PILOT_DEALS,
                   influence: bool = False, cluster=None, threads: int | None = None) -> dict:
    """The multilevel estimate of each metric (default: the dealer's advantage) of
    ``policies`` over deal runs of ``seed``: the target on ``deals`` deals, each control
    (Level or its text) on its ``control_deals`` (None: sized by the allocation rule from
    a pilot of ``pilot`` deals, the target keeping ``deals``). With ``until``
    ("METRIC:W" or (metric, W)) the levels are sized from the pilot for a 95% half-width W
    on the first metric and grown until it is met, ``deals`` being the target's cap.
    Writes ``out/multilevel.json`` when ``out`` is given. ``influence``: each metric's
    estimate also holds its per-deal influence (for estimate_difference; not in the JSON).
    ``cluster`` (an address, local:N or a distributed.Client, as sim.cluster.open_cluster
    takes it, with ``threads`` per worker): the levels' chunks are played there, to the
    same per-deal values."""
    from contextlib import ExitStack

    # pyarrow imports pandas on a level's first column read, and a Ctrl-C that falls in that
    # import is lost (the run played on to exit 0): imported here, before anything is played.
    import pandas  # noqa: F401

    from sim.dealing import Dealing, checked_plan
    from sim.metrics import resolve_metrics
    from sim.resolve import check_resolved, resolve_policies

    policies = resolve_policies(game) if policies is None else policies
    seed, deals, threads = check_resolved(game, rules, policies, seed, "deals", deals, out=out, threads=threads,
                                          notify=notify)
    say = notify or (lambda line: None)
    dealing = dealing or Dealing("deals")
    levels, runs, hand = check_controls(game, rules, policies, deals, controls, control_deals, dealing, until)
    specs = resolve_metrics(metrics or ["dealer_advantage"], deal_run=True)
    if until is not None:  # the metric it names is estimated first: a builtin, or one of ``metrics``
        from sim.metrics import MetricsError
        from sim.until import parse_until

        if not isinstance(until, tuple):
            until = parse_until(until, any_metric=True)
            until = (until.metric, until.width)
        metric_name, width = until
        specs = [m for m in specs if m.name == metric_name] + [m for m in specs if m.name != metric_name]
        if specs[0].name != metric_name:
            try:
                specs = resolve_metrics([metric_name], deal_run=True) + specs
            except MetricsError as exc:
                raise MultilevelError(f"--until: {exc}") from None
    if any(getattr(m, "by", None) for m in specs):  # those of --until too
        raise MultilevelError("--control estimates whole metrics: drop 'by COLUMN'")
    plan, _ = checked_plan(game, rules, dealing)
    from sim.resolve import resolve_policies

    target = LevelPlayer(game, rules, list(policies), seed, plan, False, specs,
                         ",".join(f"{s}={p}" for s, p in enumerate(policies)))
    ctrl = [LevelPlayer(game, rules, resolve_policies(game, list(lv.policies)), seed, plan,
                        lv.scored, specs, lv.name) for lv in runs]
    stores = {}
    with ExitStack() as stack:
        if cluster is not None:  # reached first: a bad address leaves no folder
            from sim.cluster import open_cluster

            pool = stack.enter_context(open_cluster(cluster, threads))
            for pl in [target, *ctrl]:
                pl.pool = pool
        if out is not None:  # each level's deals are kept there after each chunk: an interrupted run resumes
            from sim.store import claim

            out = Path(out)
            stack.enter_context(claim(out, _owns, "multilevel run"))
        resumed = []  # said once the folder is known to be this command's: a refusal is its only line
        for i, pl in enumerate([target, *ctrl]):
            if out is None:
                break
            stores[pl.name] = out / ("target.npz" if i == 0 else f"control-{i}.npz")
            if pl.resume(stores[pl.name]):
                resumed.append(f"{pl.name}: resuming from {pl.deals:,} deals kept in {stores[pl.name]}")
        if out is not None:  # each kept level is this command's (resume): now none of another list, no
            _refuse_other_levels(out, game, levels, len(ctrl))  # estimate of another run
            _refuse_another_estimate(out, game, seed, dealing, policies)
        for line in resumed:
            say(line)
        return _play_levels(game, rules, policies, deals, levels, hand, control_deals, specs, until,
                            width if until is not None else None, target, ctrl, stores, out, say, pilot, seed,
                            dealing, influence)


def _refuse_another_estimate(out: Path, game: str, seed: int, dealing, policies) -> None:
    """A multilevel.json in the folder is this command's run's (its game, seed, dealing and
    players), read whole, before anything plays: another run's, or one edited since, would
    be written over by the estimate of more deals."""
    path = out / "multilevel.json"
    if not path.exists():
        return
    try:
        kept = read_sealed(path)
    except (OSError, ValueError, RecursionError) as exc:
        raise MultilevelError(f"output folder {out} holds a multilevel.json that cannot be read ({exc}): move it "
                              f"away, or use another --out") from None
    ours = {"game": game, "seed": seed, "dealing": dealing.to_dict(), "policies": [str(p) for p in policies]}
    if not isinstance(kept, dict) or not _same_run(kept, json.loads(json.dumps(ours))):
        raise MultilevelError(f"output folder {out} holds the multilevel.json of another run (another game, seed, "
                              f"dealing or players): move it away, or use another --out")


def _same_run(kept: dict, ours: dict) -> bool:
    """Whether a multilevel.json (``kept``) is of the run ``ours`` describes: its game, seed,
    dealing and players, each where the file has it (an older one kept no dealing; the
    dealing's --require terms in the form parse writes them, sim.dealing.from_dict)."""
    from sim.dealing import from_dict

    def dealt(d):
        try:
            return from_dict(d)
        except (KeyError, TypeError, ValueError, AttributeError):  # not a dealing: compared as it stands
            return d

    return all(kept.get(k, ours[k]) == ours[k] for k in ("game", "seed", "policies")) and (
        "dealing" not in kept or dealt(kept["dealing"]) == dealt(ours["dealing"]))


def _kept(folder: Path) -> dict:
    """What a run of the folder kept of its levels' sizes: its multilevel.json once
    finished, else the pilot.json its pilot left (an interrupted run). An OSError or a
    ValueError where it kept neither, or one that cannot be read."""
    finished = folder / "multilevel.json"
    return read_sealed(finished if finished.exists() else folder / PILOT_FILE)


def sampling_refusal(game: str, rules, policies, controls) -> str | None:
    """Why the target (``policies``) or a control level (Level or its text, ``auto`` too)
    cannot play these rules, being a player that samples worlds (sim.dd_run.refusal), or
    None."""
    from sim.dd_run import sampler_refusal
    from sim.resolve import resolve_policies

    levels = [parse_level(c) if isinstance(c, str) else c
              for given in controls for c in (default_levels(game) if given == "auto" else [given])]
    reason = sampler_refusal(game, rules, policies)
    for lv in levels:
        if reason is None and lv.kind != "hand":
            reason = sampler_refusal(game, rules, resolve_policies(game, list(lv.policies)), f"--control {lv.text}")
    return reason


def _finished(out, target, ctrl, deals, until):
    """What a run of this command left in ``out`` (the same target deals, or the same
    ``until``; sizes a pilot chose for the target and some of ``ctrl``): its multilevel.json,
    or its pilot.json when it was interrupted; None where it left neither. A rerun keeps
    its pilot's sizes, so a folder's estimate does not move with the timing of a new pilot,
    finished or resumed."""
    if out is None:
        return None
    try:
        kept = _kept(Path(out))
        chosen = kept["sizes"]
        names = [target.name, *(pl.name for pl in ctrl)]
        fits = (kept["until"] == until and kept["allocation"] is not None and set(chosen) <= set(names)
                and target.name in chosen
                and all(isinstance(m, int) and not isinstance(m, bool) and m >= 1 for m in chosen.values())
                and (chosen[target.name] == deals if until is None else chosen[target.name] <= deals))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return kept if fits else None


def _canonical(game: str, level: Level) -> tuple:
    """A level as what it plays (``all=heuristic`` and ``0=heuristic;1=heuristic`` are one):
    its kind and each seat's policy."""
    if level.kind == "hand":
        return ("hand",)
    from sim.resolve import resolve_policies

    return (level.kind, tuple(str(p) for p in resolve_policies(game, list(level.policies))))


def _refuse_other_levels(folder: Path, game: str, levels, played: int) -> None:
    """A folder kept by another --control list is another run's: a level file this command
    does not play would lie there unused (or, in a later run, be read as another level), and
    its multilevel.json would be replaced by an estimate over other levels."""
    extra = sorted((p.name for p in folder.glob("control-*.npz") if int(p.stem.split("-")[1]) > played),
                   key=lambda name: int(name[8:-4]))
    if extra:
        raise MultilevelError(f"output folder {folder} holds {extra[0]}, a level this command does not play "
                              f"(another --control list): use another --out")
    try:
        kept = _kept(folder)["controls"]
    except (OSError, ValueError, TypeError, KeyError):  # none yet; a damaged one is replaced by this run's
        return
    try:
        same = [_canonical(game, parse_level(t)) for t in kept] == [_canonical(game, lv) for lv in levels]
    except (ValueError, TypeError, AttributeError):  # no list of levels: not this run's
        same = False
    if not same:
        raise MultilevelError(f"output folder {folder} holds the estimate of another --control list "
                              f"({', '.join(map(str, kept)) if isinstance(kept, list) else kept}): use another --out")


def _owns(folder: Path, names) -> bool:
    """A folder a multilevel run made: its levels' files and multilevel.json, and nothing
    else (a RunError names what else it holds)."""
    import re

    from sim.store import LEVEL_FILES, refuse_foreign

    ours = {n for n in names if re.fullmatch(LEVEL_FILES, n)}
    if ours:
        refuse_foreign(folder, set(names) - ours)
    return bool(ours)


def wanted_sizes(best: dict, controls: int, deals: int, until=None) -> list[int]:
    """The deals of the target and its ``controls`` chosen levels by the allocation ``best``:
    the target's ``deals`` and each control its ratio of them; with ``until`` (the target's
    standard deviation, the half-width wanted) the sizes that width needs, unless the target
    would pass its cap, which then sizes the controls as without it (a width far below
    what the cap can give would ask the controls for deals no run plays)."""
    if until is not None:
        wanted = sizes_for(best, *until)
        if wanted[0] <= deals:
            return wanted
    return [deals] + [math.ceil(deals * r) for r in best["ratios"][1:controls + 1]]


def _play_levels(game, rules, policies, deals, levels, hand, control_deals, specs, until, width, target, ctrl,
                 stores, out, say, pilot, seed, dealing, influence=False) -> dict:
    """run_multilevel's levels played and estimated (its folder claimed)."""
    first = specs[0]
    features_cache = {}

    def features(m):
        if not hand:
            return None
        if features_cache.get("deals", 0) < m:
            features_cache.update(deals=m, value=hand_features(rules, seed, m))
        f = features_cache["value"]
        return Features(f.names, f.x[:m], f.means, f.seconds)

    began = time.perf_counter()
    resumed = {pl.name: pl.deals for pl in [target, *ctrl]}  # what the folder kept: none played yet
    sizes = [deals] + (list(control_deals) if control_deals is not None else [])
    alloc = None
    kept = _finished(out, target, ctrl, deals, None if until is None else [first.name, width]) \
        if control_deals is None and (ctrl or until is not None) else None
    if kept is not None:  # the same command again: the sizes its pilot chose, not a new pilot's
        alloc, chosen = kept["allocation"], kept["sizes"]
        by_name = {pl.name: pl for pl in ctrl}
        ctrl = [by_name[name] for name in chosen if name != target.name]  # in the order the pilot chose
        sizes = [chosen[target.name]] + [chosen[pl.name] for pl in ctrl]
    elif control_deals is None and ctrl or until is not None:
        p = min(pilot, deals)
        say(f"pilot: every level on the first {p:,} deals, to size them")
        for pl in [target, *ctrl]:
            pl.play_to(p, chunk=p, store=stores.get(pl.name))
        if target.seconds < 2.0 and target.largest[0] < 20_000 and deals > p:  # a cheap target too
            # A target of a millisecond a deal or more (a faster one's time on the pilot's deals
            # is mostly the call's own) plays on for about a second: the deals played count,
            # and played on to its cap it would leave --until nothing to size.
            more = min(100 * p, 20_000)
            if target.per_deal() >= 1e-3:
                more = min(more, math.ceil(1.0 / target.per_deal()))
            target.play_to(min(deals, p + more), chunk=more, store=stores.get(target.name))
        for pl in ctrl:  # a cheap level's time per deal is seen on a chunk of many deals
            if pl.per_deal() * 20 < target.per_deal() and pl.largest[0] < 20_000:
                more = min(100 * p, 20_000)
                pl.play_to(max(pl.deals, p) + more, chunk=more, store=stores.get(pl.name))

        def timed(pl):
            d = pl.data(p)
            d.seconds = pl.per_deal() * p
            return d

        alloc = allocation(timed(target), [timed(c) for c in ctrl], features(p))
        best = alloc["best"]
        chain = best["chain"]
        wanted = wanted_sizes(best, len(chain), deals, None if until is None else (alloc["target_sd"], width))
        sizes = [wanted[0]] + [0] * len(ctrl)
        for k, j in enumerate(chain):
            sizes[1 + j] = max(wanted[1 + k], wanted[0])
        unused = [ctrl[j].name for j in range(len(ctrl)) if j not in chain]
        if unused:
            say(f"allocation: {', '.join(unused)} not worth its cost here; left out")
        ctrl = [ctrl[j] for j in chain]
        sizes = [sizes[0]] + [sizes[1 + j] for j in chain]
        # Deals the pilot already played count (the target's up to its cap): more, never fewer.
        sizes[0] = max(sizes[0], min(target.deals, deals))
        sizes = [sizes[0]] + [max(m, pl.deals, sizes[0]) for m, pl in zip(sizes[1:], ctrl)]
        if out is not None:  # an interrupted run resumes with these sizes, not a new pilot's
            _write_sealed(out / PILOT_FILE, {
                "controls": [lv.text for lv in levels], "until": None if until is None else [first.name, width],
                "allocation": _plain(alloc), "sizes": dict(zip([target.name] + [c.name for c in ctrl], sizes))})
    rounds = 0
    while True:
        rounds += 1
        for pl, m in zip([target, *ctrl], sizes):
            say(f"{pl.name}: {m:,} deals")
            pl.play_to(m, store=stores.get(pl.name))
        result = _estimates(specs, target, ctrl, sizes, features(max(sizes)), game, influence)
        if until is None or rounds >= 4:
            break
        half = result[first.name]["half_width"]
        if half <= width or sizes[0] >= deals:
            break
        grow = min((half / width) ** 2 * 1.1, deals / sizes[0])
        sizes = [max(s + 1, math.ceil(s * grow)) for s in sizes]
        sizes[0] = min(sizes[0], deals)
        say(f"half-width {half:.4g} > {width:g}: growing the levels {grow:.2f}x")
    out_dict = {"game": game, "seed": seed, "dealing": dealing.to_dict(), "policies": [str(p) for p in policies],
                "controls": [lv.text for lv in levels], "sizes": dict(zip([target.name] + [c.name for c in ctrl],
                                                                            sizes)),
                "allocation": _plain(alloc), "until": None if until is None else [first.name, width],
                "reached": None if until is None else result[first.name]["half_width"] <= width,
                "wall_seconds": time.perf_counter() - began, "metrics": result}
    if out is not None:
        content = dict(out_dict, metrics={name: {k: v for k, v in e.items() if k not in INFLUENCE_KEYS}
                                          for name, e in result.items()})
        if all(pl.deals == resumed.get(pl.name) for pl in [target, *ctrl]) and (out / "multilevel.json").exists():
            wall = _kept_as_it_is(out, content)
            if wall is not None:
                return dict(out_dict, wall_seconds=wall)
        _write_sealed(out / "multilevel.json", content)
        (out / PILOT_FILE).unlink(missing_ok=True)  # multilevel.json keeps its sizes now
    return out_dict


def _kept_as_it_is(out: Path, content: dict) -> float | None:
    """A finished folder run again, nothing played: its multilevel.json stays as it is (its
    wall time that of the run that played it) where the command asks for the sizes it
    holds, and must then hold what its levels give; at other sizes (fewer deals, another
    --until) the estimate is written anew (None). One of another run (another game, seed,
    dealing, players or metrics), or edited, is refused. Returns the kept wall time."""
    try:
        kept = read_sealed(out / "multilevel.json")
        fresh = json.loads(json.dumps(_plain(content)))
        ours = isinstance(kept, dict) and _same_run(kept, fresh) and set(kept["metrics"]) == set(fresh["metrics"])
        if ours and (list(kept["sizes"].values()) != list(fresh["sizes"].values()) or kept["until"] != fresh["until"]):
            return None
        figures = ("value", "variance", "plain_value", "plain_variance")
        same = ours and all(kept["metrics"][m].get(f) == e[f] for m, e in fresh["metrics"].items() for f in figures)
        wall = kept.get("wall_seconds")
    except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
        same = False
    if not same:
        raise MultilevelError(f"output folder {out} holds a multilevel.json its levels do not give (another run's, or "
                              f"edited): move it away, or use another --out")
    return wall if isinstance(wall, (int, float)) and not isinstance(wall, bool) else None


def _write_sealed(path: Path, content: dict) -> None:
    from sim.store import sealed, write_atomic

    write_atomic(path, json.dumps(sealed(_plain(content)), indent=1).encode())  # checks itself


def _estimates(specs, target, ctrl, sizes, feats, game, influence=False) -> dict:
    """Each metric's estimate from the levels' deals."""
    out = {}
    target.bind()
    for k, metric in enumerate(specs):
        bound = target.bound[k]
        try:
            est = nested_estimate(target.data(sizes[0], k), [c.data(m, k) for c, m in zip(ctrl, sizes[1:])], feats,
                                  influence, bound.within)
        except MultilevelError as exc:  # one of several metrics: say which
            raise MultilevelError(f"metric '{metric.name}': {exc}") from None
        est.update(label=bound.words(game, True), unit=bound.unit_for(game, True), percent=bound.percent,
                   balance=bound.balance, definition=bound.definition)
        out[metric.name] = est
    return out


def _plain(obj):
    """JSON-ready: numpy numbers as floats, infinities as None."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    return obj
