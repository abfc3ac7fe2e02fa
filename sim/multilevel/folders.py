"""Multilevel folders read back: each metric's estimate made again from the levels' files,
with each deal's influence, and two folders of the same deals compared deal by deal
(``python -m analysis.compare`` of two multilevel folders)."""

from __future__ import annotations

import json
from pathlib import Path

from sim.cli import differing
from sim.custom import same_definition
from sim.placement import is_multilevel_folder
from sim.store import read_sealed
from sim.ratio import SHARE
from sim.multilevel.estimator import (
    MIN_TARGET_DEALS, Features, LevelData, MultilevelError, estimate_difference, nested_estimate,
)
from sim.games import GAME_NAMES, game_info
from sim.multilevel.levels import UNREADABLE, level_values, load_level

SHOWN = ("label", "unit", "percent", "balance", "definition")  # a metric's words, from multilevel.json


def read_folder(path) -> dict:
    """A finished multilevel folder: what its multilevel.json and its levels' keys say
    (game, seed, rules, dealing, players, controls, sizes) and each metric's estimate made
    again from the levels' files, with each deal's influence (``metrics``), beside the
    plain estimate of the target's deals alone (``plain``, also with its influence). A
    file damaged or edited, or a level of another run, is a MultilevelError naming it."""
    if not isinstance(path, (str, Path)):
        raise MultilevelError(f"a multilevel folder is a path, not {type(path).__name__} {path!r}")
    path = Path(path)
    if not is_multilevel_folder(path):  # one the system cannot look at (too long a name) too
        raise MultilevelError(f"{path} holds no multilevel folder (sim.run --deals N --control LEVEL)")
    if not (path / "multilevel.json").exists():
        raise MultilevelError(f"{path} holds no multilevel.json: the run is not finished (rerun its sim.run "
                              f"--control command to finish it)")
    try:  # sealed: a figure edited by hand is named (an older release's file, unsealed, is read as it is)
        kept = read_sealed(path / "multilevel.json")
    except (OSError, ValueError, RecursionError) as exc:
        raise MultilevelError(f"cannot read {path / 'multilevel.json'}: {exc}") from None
    names, files, sizes = _described(path, kept)
    _check_files(path, kept)
    levels, key = [], None
    for name, file in zip(names, files):
        try:
            arrays = load_level(path / file)
            theirs = json.loads(str(arrays["key"]))
            if not isinstance(theirs, dict):
                raise ValueError("its key is not a level's")
            key = key or theirs
            differ = differing(theirs, key, ("game", "seed", "plan", "rules", "metrics"))
            if differ and any(k in kept and key.get(k) != kept[k] for k in ("game", "seed")):
                # multilevel.json and this level agree: the target is the other run's
                raise MultilevelError(f"cannot read {path / files[0]}: a level of another run (its game or seed "
                                      f"not multilevel.json's)")
            if differ:
                raise ValueError(f"a level of another run than {files[0]} (they differ in: {', '.join(differ)})")
            if key.get("game") not in GAME_NAMES:
                raise ValueError(f"its key names no game of this release ({key.get('game')!r})")
            if _level_played(theirs) != _level_named(key["game"], kept["policies"], name, not levels, path):
                raise ValueError(f"it holds the deals of another level than {name}")
            values, choices, use_choices, seconds = level_values(arrays, len(kept["metrics"]),
                                                                 game_info(key["game"]).dd_solver == "contract")
        except MultilevelError:
            raise
        except FileNotFoundError:
            raise MultilevelError(f"cannot read {path / file}: it is missing (the run's command run again plays "
                                  f"it again)") from None
        except (*UNREADABLE, KeyError, TypeError) as exc:
            raise MultilevelError(f"cannot read {path / file}: {exc}") from None
        if len(values[0][0]) < sizes[len(levels)]:
            raise MultilevelError(f"cannot read {path / file}: it holds fewer deals than multilevel.json says")
        levels.append((name, values, choices if use_choices else None, seconds[0]))
    _check_dealing(path, kept, key)
    deals_key = (key["seed"], bytes.fromhex(key["plan"]))
    features = None
    if "hand" in kept["controls"]:
        from sim.resolve import resolve_rules
        from sim.multilevel.features import hand_features

        f = hand_features(resolve_rules(key["game"], key["rules"]), key["seed"], max(sizes))
        features = Features(f.names, f.x, f.means, f.seconds)
    metrics, plain = {}, {}
    for k, name in enumerate(kept["metrics"]):
        data = [LevelData(level, values[k][0][:m], values[k][1][:m], seconds * m / max(len(values[k][0]), 1),
                          deals_key, None if choices is None else choices[:m])
                for (level, values, choices, seconds), m in zip(levels, sizes)]
        shown = {w: kept["metrics"][name].get(w) for w in SHOWN}
        within = SHARE if kept["metrics"][name].get("within") == list(SHARE) else None  # a rate's (older: none)
        metrics[name] = {**nested_estimate(data[0], data[1:], features, influence=True, within=within), **shown}
        plain[name] = nested_estimate(data[0], influence=True, within=within)
    return {"path": str(path), "game": key["game"], "seed": key["seed"], "rules": key["rules"],
            "dealing": kept.get("dealing"), "plan": key["plan"], "policies": kept["policies"],
            "controls": kept["controls"], "sizes": kept["sizes"], "metrics": metrics, "plain": plain}


def _played(kept: dict) -> list[str]:
    """The controls multilevel.json names that play deals, in the order of their files
    (``control-1.npz``, ...): all but the hand's features."""
    return [c for c in kept["controls"] if c != "hand"]


def _check_files(path: Path, kept: dict) -> None:
    """Nothing in the folder but what its run wrote: multilevel.json, its pilot's sizes and
    a file for the target and for each control it played, those its pilot left out
    included (a level file of no control, or a file put beside the levels, would be taken
    for the run's own by its rerun, which refuses them the same way)."""
    from sim.store import listing

    files = ["target.npz"] + [f"control-{i}.npz" for i in range(1, len(_played(kept)) + 1)]
    others = sorted((listing(path) or set()) - {"multilevel.json", "pilot.json", *files})
    if others:
        raise MultilevelError(f"{path} holds files its run did not write beside its levels "
                              f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}): move them away")


def _check_dealing(path: Path, kept: dict, key: dict) -> None:
    """multilevel.json's game, seed and dealing conditions are those its levels were dealt
    under (the levels' keys and deal plan): another run's multilevel.json put in would
    describe the figures otherwise."""
    if (kept.get("game", key["game"]), kept.get("seed", key["seed"])) != (key["game"], key["seed"]):
        raise MultilevelError(f"cannot read {path / 'multilevel.json'}: it names another game or seed than its "
                              f"levels were played with (another run's file?)")
    if not kept.get("dealing"):
        return
    from sim.dealing import from_dict, plan
    from sim.resolve import resolve_rules

    try:
        dealt = plan(key["game"], resolve_rules(key["game"], key["rules"]), from_dict(kept["dealing"]))
    except (ValueError, TypeError, KeyError):
        dealt = None
    if dealt is None or dealt.tobytes().hex() != key["plan"]:
        raise MultilevelError(f"cannot read {path / 'multilevel.json'}: it names other dealing conditions than its "
                              f"levels were dealt under (another run's file?)")


def _level_played(key: dict) -> tuple:
    """(players, scored on double-dummy tricks, at par) of a level file's key (LevelPlayer.key)."""
    return key.get("policies"), key.get("dd"), key.get("par", False)


def _level_named(game: str, target_policies: list, name: str, target: bool, path: Path) -> tuple:
    """What ``_level_played`` reads in the file of the level multilevel.json names ``name``:
    the target (its ``policies``) or a control (``--control`` text)."""
    if target:
        return target_policies, False, False
    from sim.multilevel.levels import parse_level
    from sim.policies import PolicyError
    from sim.resolve import resolve_policies

    level = parse_level(name)
    try:
        players = [str(p) for p in resolve_policies(game, list(level.policies))]
    except PolicyError as exc:
        raise MultilevelError(f"cannot read {path / 'multilevel.json'}: its control {name} names players this "
                              f"release does not know ({exc})") from None
    return players, bool(level.scored), level.scored == "par"


def _described(path: Path, kept) -> tuple[list, list, list]:
    """The levels multilevel.json names (the target, then each control played), their files
    and sizes, once its fields are checked to be what a run wrote."""
    def texts(value):
        return isinstance(value, list) and all(isinstance(t, str) for t in value)

    try:
        sizes = kept["sizes"]
        names = list(sizes)
        played = _played(kept)
        files = ["target.npz"] + [f"control-{played.index(n) + 1}.npz" for n in names[1:]]
        counts = [sizes[n] for n in names]
        dealing = kept.get("dealing")
        if dealing:
            from sim.dealing import from_dict

            from_dict(dealing).describe()
        if not (names and texts(kept["controls"]) and texts(kept["policies"])
                and all(isinstance(m, int) and not isinstance(m, bool) for m in counts)
                and MIN_TARGET_DEALS <= counts[0] <= min(counts)  # each control plays the target's deals
                and isinstance(kept["metrics"], dict) and kept["metrics"]
                and all(isinstance(e, dict) for e in kept["metrics"].values())):
            raise TypeError
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        raise MultilevelError(f"cannot read {path / 'multilevel.json'}: not a multilevel.json this release "
                              "wrote") from None
    return names, files, counts


def compare_folders(path_a, path_b, names=None) -> dict:
    """B - A of each metric (``names``, default every one both folders hold) for two
    multilevel folders of the same deals: the same game, seed, target deals, target
    players and control levels, differing in their dealing conditions or their rules (not
    both). Each estimate is, to first order, a sum of its deals' influences, so the
    difference is paired deal by deal (estimate_difference). Beside it: the plain paired
    difference of the targets' deals alone, the variance saved against it (also at equal
    wall time, every level's seconds counted), and what pairing saved against two
    independent multilevel estimates."""
    if isinstance(names, str):
        names = [names]
    if names is not None and not (isinstance(names, (list, tuple)) and all(
            isinstance(n, str) or hasattr(n, "name") for n in names)):
        raise MultilevelError(f"names: a metric's name or a list of them, not {names!r}")
    a, b = read_folder(path_a), read_folder(path_b)
    _check_pairable(a, b)
    wanted = [n for n in a["metrics"] if n in b["metrics"]] if names is None else [
        n if isinstance(n, str) else n.name for n in names]
    for given in names or ():  # a metric written out must be the one the folders answer
        definition = getattr(given, "definition", None)
        held = a["metrics"].get(given.name, {}).get("definition") if definition is not None else None
        if held is not None and not same_definition(given.name, held, definition):
            raise MultilevelError(f"metric '{given.name}' is {given.name} = {held} in {a['path']}, not "
                                  f"{given.name} = {definition}: a multilevel folder answers the metrics it was "
                                  f"played with (name it alone, or play both again into new folders with --metrics)")
    for name in wanted:
        for side in (a, b):
            if name not in side["metrics"]:
                raise MultilevelError(f"metric '{name}' is not in {side['path']} (it holds "
                                      f"{', '.join(side['metrics'])}): a multilevel folder keeps the metrics "
                                      f"it was played with, so play both again into new folders with --metrics")
        held = a["metrics"][name]["definition"], b["metrics"][name]["definition"]
        if held[0] != held[1] and (None in held or not same_definition(name, *held)):
            raise MultilevelError(f"metric '{name}' is defined otherwise in the two folders")
    if not wanted:
        raise MultilevelError("the two folders hold no metric in common")
    out = {}
    for name in wanted:
        ea, eb = a["metrics"][name], b["metrics"][name]
        d = estimate_difference(ea, eb)
        p = estimate_difference(a["plain"][name], b["plain"][name])
        r = {w: ea[w] for w in SHOWN}
        r.update(a=ea["value"], a_ci95=ea["ci95"], b=eb["value"], b_ci95=eb["ci95"], diff=d["diff"],
                 ci95=d["ci95"], variance=d["variance"], plain_diff=p["diff"], plain_ci95=p["ci95"],
                 plain_variance=p["variance"], estimators=[ea["estimator"], eb["estimator"]],
                 variance_saved=p["variance"] / d["variance"] if d["variance"] > 0 else None,
                 pairing_saved=1 - d["variance"] / d["unpaired_variance"] if d["unpaired_variance"] > 0 else None,
                 seconds=None, equal_time_saved=None)
        if ea.get("seconds") and eb.get("seconds") and d["variance"] > 0:
            target = ea["levels"][0]["seconds"] + eb["levels"][0]["seconds"]
            r["seconds"] = ea["seconds"] + eb["seconds"]
            r["equal_time_saved"] = p["variance"] * target / r["seconds"] / d["variance"]
        out[name] = r
    return {"game": a["game"], "seed": a["seed"], "deals": a["sizes"][next(iter(a["sizes"]))], "a": a["path"],
            "b": b["path"], "pairing": _pairing_words(a, b), "policies": a["policies"], "controls": a["controls"],
            "sizes": [a["sizes"], b["sizes"]], "multilevel": True, "metrics": out}


def _check_pairable(a: dict, b: dict) -> None:
    """Refuse two folders whose deal i is not the same deal under two conditions."""
    def refuse(why):
        raise MultilevelError(f"multilevel folders {a['path']} and {b['path']} cannot be paired: {why}")

    if a["game"] != b["game"]:
        refuse(f"different game ({a['game']} and {b['game']})")
    if a["seed"] != b["seed"]:
        refuse(f"different seed ({a['seed']} and {b['seed']}): deal i is another deal in each")
    da, db = (next(iter(s["sizes"].values())) for s in (a, b))
    if da != db:
        refuse(f"the target plays {da:,} deals in one and {db:,} in the other (grow the smaller with the same "
               f"command and a larger --deals)")
    if a["policies"] != b["policies"]:
        refuse(f"different target players ({', '.join(a['policies'])}; {', '.join(b['policies'])})")
    if a["controls"] != b["controls"]:
        refuse(f"different control levels ({', '.join(a['controls'])}; {', '.join(b['controls'])})")
    if a["rules"] != b["rules"] and not _same_dealing(a, b):
        refuse("they differ both in their rules and in their dealing conditions: B - A would mix two changes")


def _pairing_words(a: dict, b: dict) -> str:
    """What B changes against A, for the report."""
    if not _same_dealing(a, b):
        from sim.dealing import from_dict

        if a["dealing"] is None or b["dealing"] is None:
            return "the same seed and deals, under each folder's own dealing conditions"
        return (f"the same seed and deals, under each folder's own conditions (A: "
                f"{from_dict(a['dealing']).describe()}; B: {from_dict(b['dealing']).describe()})")
    if a["rules"] != b["rules"]:
        from sim.headline import rule_changes

        return "the same seed and deals; B changes " + ", ".join(rule_changes(a["rules"], b["rules"]))
    return "the same seed, deals and conditions"


def _same_dealing(a: dict, b: dict) -> bool:
    """The same dealing conditions (the same deal plan where a multilevel.json does not say them)."""
    if a["dealing"] is None or b["dealing"] is None:
        return a["plan"] == b["plan"]
    return a["dealing"] == b["dealing"]
