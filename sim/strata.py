"""Stratified deal runs: each stratum a conditioned deal run, reweighted by exact probabilities.

    python -m sim.run --deals 1e5 --stratify upcard_class --allocation equal

A stratification splits every deal by something fixed when the cards are dealt (the
up-card's class, B-3; who holds a Colon as dealt) into strata of exactly known probability
w_h (37/55, 13/55 and 5/55 for the up-card classes of the full deck). Each stratum is a
deal run under its condition (sim.dealing), in ``<out>/stratum-<name>``, with its own seed,
so the strata are independent and each one resumes as any run does. The deals are shared
out by ``--allocation``: proportional (n_h ~ w_h: never worse than plain sampling),
equal, neyman (n_h ~ w_h s_h, s_h from a pilot of the dealer's advantage), or explicit
shares (``ace=0.5,face=0.25,numeral=0.25``).

Every deal metric of sim.metrics is then a ratio R = sum(y) / sum(n) estimated per
stratum, and overall as R = sum_h w_h ybar_h / sum_h w_h nbar_h with the variance of the
stratified ratio estimator, Var(R) = sum_h w_h^2 s_h^2(d) / (G_h Nbar^2), d = y - R n. The
report gives beside it the variance the same number of deals would have had by plain
sampling, sum_h w_h (s_h^2(d) + dbar_h^2) / (G Nbar^2), and the share of it saved.
"""

from __future__ import annotations

import difflib
import json
import math
from contextlib import ExitStack
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from sim.cli import DEFAULT_BLOCK_SIZE, quoted, refuse_another
from sim.dealing import Dealing, DealingError, layout, upcard_mask
from sim.placement import check_place, is_strata_folder
from sim.resolve import in_argument_words
from sim.store import claim, read_sealed, sealed, stratum_folder, write_atomic

ALLOCATIONS = ("proportional", "equal", "neyman")
PILOT_DEALS = 400  # per stratum, for the neyman allocation
_STRATUM_SEED_STEP = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class Stratum:
    """A stratum: ``cards`` of the deck's ``of`` cards put a deal in it (its probability), and
    the conditions that deal only its deals."""

    name: str
    cards: int
    of: int
    dealing: Dealing

    @property
    def weight(self) -> Fraction:
        return Fraction(self.cards, self.of)


def stratifications(game: str, rules) -> dict:
    """{name: (its strata, in words)} of ``game`` under ``rules``: the up-card's class where
    the game turns one (B-3), and the holder as dealt of each Colon in its deck."""
    lay = layout(game, rules)
    n = len(lay.deck)
    out = {}
    if lay.up_pos >= 0:
        out["upcard_class"] = ([Stratum(c, bin(upcard_mask(lay, [c])).count("1"), n, Dealing("deals", upcard=(c,)))
                                for c in ("numeral", "face", "ace")], "the up-card's class (B-3): numeral, face, ace")
    for colon, name in (("little", "CL"), ("royal", "CR"), ("grand", "CG")):
        if colon not in lay.features:
            continue
        strata = [Stratum(f"seat{s}", lay.hand, n, Dealing("deals", predeal={s: (name,)})) for s in (0, 1)]
        strata.append(Stratum("stock", n - lay.dealt, n,
                              Dealing("deals", require={0: (f"{colon}=0",), 1: (f"{colon}=0",)})))
        out[f"{colon}_holder"] = (strata, f"who holds the {colon.title()} Colon as dealt: seat 0, seat 1 or the stock")
    return out


def strata_of(game: str, rules, name: str) -> list[Stratum]:
    known = stratifications(game, rules)
    if name not in known:
        offered = ", ".join(known) or "none"
        raise DealingError(f"--stratify: '{name}' is not a stratification of {game} (offered: {offered})")
    return known[name][0]


PLAYED_WITH = ("rules", "seed", "games", "policies", "dealing")  # what a run folder's manifest says it played


def stratum_mismatch(kept: dict, played: list[dict]) -> tuple[int, str] | None:
    """The first stratum whose folder its stratified run did not play there, and what tells
    it, or None. ``kept``: the run's strata.json; ``played``: each stratum folder's
    ``PLAYED_WITH`` (its manifest's, or its multilevel folder's; dealing None where an older
    multilevel folder did not keep it). A stratum's folder has the stratum's own seed and
    deals, its conditions, and the rules, players and dealer of most strata; a folder
    swapped or copied in from another stratum or run would lend its deals to this one."""
    from collections import Counter

    from sim.dealing import from_dict
    from sim.resolve import resolve_rules

    def shared(run):  # what every stratum of one run plays alike
        dealer = run["dealing"].get("dealer") if isinstance(run["dealing"], dict) else None
        return json.dumps([run["rules"], run["policies"], dealer], sort_keys=True)
    most = Counter(shared(run) for run in played).most_common(1)[0][0]
    for i, (s, run) in enumerate(zip(kept["strata"], played)):
        if run["seed"] != stratum_seed(kept["seed"], i):
            return i, "another seed than its stratum's"
        if run["games"] != s.get("deals"):
            return i, f"{run['games']} deals where the stratified run gave it {s.get('deals')}"
        if shared(run) != most:
            return i, "other rules, players or dealer than the other strata"
        try:
            stratum = strata_of(kept["game"], resolve_rules(kept["game"], run["rules"]), kept["stratify"])[i]
        except (ValueError, TypeError, KeyError, IndexError):
            return None  # a strata.json of no game's stratification: its reader names it
        if run["dealing"] is None:
            continue
        try:
            dealt = from_dict(run["dealing"])
            same = (dealt.upcard, dealt.predeal, dealt.require) == (stratum.dealing.upcard, stratum.dealing.predeal,
                                                                    stratum.dealing.require)
        except (ValueError, TypeError, KeyError, AttributeError):
            same = False
        if not same:
            return i, f"conditions other than stratum {s['name']}'s"
    return None


def stratum_seed(seed: int, index: int) -> int:
    """Stratum ``index``'s own seed, so the strata's deals are independent of each other."""
    return (seed + (index + 1) * _STRATUM_SEED_STEP) % 2**64


def allocate(strata: list[Stratum], deals: int, allocation: str, sigmas=None) -> list[int]:
    """Deals per stratum (each at least 2) summing to ``deals``, by largest remainders."""
    if allocation == "proportional":
        shares = [float(s.weight) for s in strata]
    elif allocation == "equal":
        shares = [1.0] * len(strata)
    elif allocation == "neyman":
        shares = [float(s.weight) * sig for s, sig in zip(strata, sigmas)]
    else:
        shares = explicit_shares(strata, allocation, given=False)
    if deals < 2 * len(strata):
        raise DealingError(f"--stratify needs at least {2 * len(strata)} deals for its {len(strata)} strata")
    total = sum(shares) or 1.0
    raw = [deals * s / total for s in shares]
    counts = [math.floor(r) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: counts[i] - raw[i])[:deals - sum(counts)]:
        counts[i] += 1
    for i in range(len(counts)):  # two deals at least, for a variance
        while counts[i] < 2:
            counts[i] += 1
            counts[counts.index(max(counts))] -= 1
    return counts


def canonical_allocation(strata: list[Stratum], text: str, given: bool = True) -> str:
    """An explicit allocation (checked, ``explicit_shares``) in one form, whatever order,
    spelling or scale it was given in: ``numeral=1, face=1,ace=2``, ``ace=0.5,face=0.25,
    numeral=0.25`` and ``ace=4,face=2,numeral=2`` are one allocation, ``ace=1/2,face=1/4,
    numeral=1/4``: each share over their sum, exactly."""
    shares = explicit_shares(strata, text, given)
    total = sum(shares)
    return ",".join(f"{s.name}={share / total}" for s, share in zip(strata, shares))


def explicit_shares(strata: list[Stratum], text: str, given: bool = True) -> list[Fraction]:
    """``ace=0.5,face=0.25,numeral=0.25`` (or ``1/2``...): a share for every stratum, exact.
    ``given``: the user's text, each share from 1e-9 to 1e9; else one this module wrote
    (``canonical_allocation``: each share over their sum, which may lie below 1e-9, never
    below 1e-24)."""
    names = [s.name for s in strata]
    shares = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        name = name.strip()
        if eq and name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise DealingError(f"--allocation: no stratum is named {quoted(name)} (the strata: "
                               f"{', '.join(names)}){hint}")
        try:  # ASCII digits, as every number of the command line (Fraction reads other scripts' too)
            share = Fraction(value.strip()) if value.isascii() else Fraction(-1)
        except (ValueError, ZeroDivisionError):
            share = Fraction(-1)
        # Shares in proportion; from 1e-9, so that each one's exact share of their sum stays short.
        if not eq or not Fraction(1, 10**(9 if given else 24)) <= share <= 10**9:
            raise DealingError(f"--allocation must be {', '.join(ALLOCATIONS)} or shares from 1e-9 to 1e9 (a "
                               f"number or a fraction such as 1/3) of every stratum "
                               f"({', '.join(n + '=...' for n in names)}), got '{text}'")
        if name in shares:
            raise DealingError(f"--allocation '{text}' gives {name} twice")
        shares[name] = share
    if set(shares) != set(names):
        raise DealingError(f"--allocation: give a share to every stratum ({', '.join(names)})")
    return [shares[n] for n in names]


# --- Estimates -------------------------------------------------------------------------------

def stratified_estimate(weights, sums, within=None) -> dict:
    """The stratified ratio estimate from each stratum's exact sums (sim.ratio.ratio_sums:
    games, y, n, yy, yn, nn): value, 95% interval, the plain-sampling variance at the same
    number of deals, and the share of it saved; no value where a stratum has fewer than two
    deals or no stratum has the metric's divisor. The interval is cut to ``within``, the
    range of the metric's values; a rate at 0 or 1 in every stratum takes Wilson's interval
    over all the strata's trials."""
    from sim.ratio import at_bound, interval
    from sim.summary import wilson

    weights = [float(w) for w in weights]
    none = {"value": None, "ci95": None, "variance": None, "plain_variance": None, "variance_saved": None}
    if any(s["games"] < 2 for s in sums):
        return none
    # A stratum whose deals hold none of the metric's divisor (a 'where' it never meets)
    # adds nothing to either sum: the ratio is that of the others, as plain sampling's is.
    ybar = sum(w * s["y"] / s["games"] for w, s in zip(weights, sums))
    nbar = sum(w * s["n"] / s["games"] for w, s in zip(weights, sums))
    if nbar == 0:
        return none
    r = ybar / nbar
    strat = plain = 0.0
    total = sum(s["games"] for s in sums)
    for w, s in zip(weights, sums):
        g = s["games"]
        d_sum = s["y"] - r * s["n"]
        d_sq = s["yy"] - 2 * r * s["yn"] + r * r * s["nn"]
        var_d = max(d_sq - d_sum * d_sum / g, 0.0) / (g - 1)
        strat += w * w * var_d / g
        plain += w * (var_d + (d_sum / g) ** 2)
    strat /= nbar * nbar
    plain /= total * nbar * nbar
    if at_bound(r, strat, within):
        # A rate at its bound in every stratum has no width, which so few trials can never
        # show: Wilson's interval over all of them stands in.
        trials = sum(s["n"] for s in sums)
        ci = wilson(r * trials, trials)
    else:
        ci = interval(r, strat, within)
    return {"value": r, "ci95": ci, "variance": strat, "plain_variance": plain,
            "variance_saved": 1 - strat / plain if plain > 0 else None}


def deal_metrics():
    """The builtin metrics a deal run answers (those read from deal records)."""
    from sim.metrics import METRICS

    return [m for m in METRICS.values() if m.records == "deals"]


def stratum_sums(folder: Path, metrics) -> dict:
    """{metric name: exact ratio sums} over a finished stratum run."""
    from sim.ratio import ratio_sums
    from sim.run_records import open_run
    from sim.summary import merge

    out = {}
    for _, _, values in open_run(folder).per_game(metrics):
        for name, (y, n) in values.items():
            sums = ratio_sums(y, n)
            out[name] = merge(out[name], sums) if name in out else sums
    return out


def report(game: str, strata: list[Stratum], folders, metrics) -> dict:
    """Per stratum and overall, each metric's estimate with its interval (a custom metric
    with its label, unit and definition, as sim.metrics.shown reads them)."""
    from sim.ratio import ratio_estimate

    sums = [stratum_sums(f, metrics) for f in folders]
    out = {"strata": [{"name": s.name, "probability": f"{s.cards}/{s.of}", "deals": sums[i][metrics[0].name]["games"],
                       "folder": str(folders[i])} for i, s in enumerate(strata)],
           "metrics": {}}
    for m in metrics:
        per = [ratio_estimate(sums[i][m.name], m.within) for i in range(len(strata))]
        out["metrics"][m.name] = {"label": m.words(game), "unit": m.unit_for(game), "percent": m.percent,
                                  "balance": m.balance, "definition": m.definition,
                                  "by_stratum": [{"value": p["value"], "ci95": p["ci95"]} for p in per],
                                  "overall": stratified_estimate([s.weight for s in strata],
                                                                 [x[m.name] for x in sums], m.within)}
    return out


# --- Playing ---------------------------------------------------------------------------------

def neyman_sigmas(game, rules, policies, seed, strata) -> list[float]:
    """Each stratum's standard deviation of the dealer's advantage per deal, from a pilot of
    PILOT_DEALS deals played in memory (the same first deals its run plays)."""
    from sim.dealing import checked_plan
    from sim.games import game_info, game_module
    from sim.metrics import METRICS

    metric, info = METRICS["dealer_advantage"], game_info(game)
    sigmas = []
    for i, s in enumerate(strata):
        plan, _ = checked_plan(game, rules, s.dealing)
        deals, _ = game_module(game).run_block(rules, policies, stratum_seed(seed, i), 0, PILOT_DEALS, plan=plan)
        y, n = metric.per_game(info, deals, None, 0, PILOT_DEALS)
        sigmas.append(float(np.std(np.asarray(y, float) / np.maximum(n, 1), ddof=1)))
    return sigmas


def default_out(game: str, seed: int, deals: int, stratification: str) -> Path:
    """runs/<game>-<seed>-<deals>-<stratification>: a stratified run's folder by default."""
    return Path("runs") / f"{game}-{seed}-{deals}-{stratification}"


@in_argument_words
def stratify(game: str | None = None, deals: int = 2_000, stratification: str = "upcard_class",
             allocation: str = "proportional", policies=None, rules=None, seed: int = 1, set_options=(),
             dealer=None, metrics=None, control=(), control_deals=None, out=None, threads: int | None = None,
             cluster=None, block_size: int | None = None) -> dict:
    """A stratified run as ``python -m sim.run --deals N --stratify NAME`` plays it
    (sim.strata): ``deals`` independent deals shared out among the strata of
    ``stratification`` by ``allocation`` ("proportional", "equal", "neyman" or
    "NAME=SHARE,..."), each stratum a deal run in its folder under ``out`` (None:
    runs/<game>-<seed>-<deals>-<stratification>); returns what ``strata.json`` holds.
    ``dealer``: "alternate" (None) or a seat; ``metrics``: as ``--metrics`` takes them;
    ``control``: levels as ``--control`` takes them, each stratum then a multilevel
    estimate (``control_deals`` each played control's deals). ``game``, ``rules``,
    ``policies``, ``set_options``, ``seed``, ``threads``, ``cluster`` and ``block_size``
    (None: sim.cli.DEFAULT_BLOCK_SIZE) as for ``simulate`` (the records are the deal
    records a stratum's estimate needs)."""
    from sim.api import checked_control_deals, common_arguments, rules_players_threads
    from sim.cli import block_size as block_size_count, seed_number, whole_count
    from sim.dealing import parse
    from sim.metrics import parse_metrics
    from sim.resolve import check_text, checked, texts

    deals, seed = checked("deals", whole_count, deals), checked("seed", seed_number, seed)
    block_size = DEFAULT_BLOCK_SIZE if block_size is None else checked("block_size", block_size_count, block_size)
    game = common_arguments(game, rules, out, None)
    for name, value in (("stratification", stratification), ("allocation", allocation)):
        check_text(name, value)
    controls = texts("control", control, "level")
    control_deals = checked_control_deals(control_deals)
    if control_deals is not None and not controls:
        raise DealingError("--control-deals sizes the levels of --control: give --control too")
    dealer = parse("deals", dealer=dealer).dealer
    resolved, chosen, threads = rules_players_threads(game, rules, set_options, policies, threads, cluster)
    path = Path(out) if out is not None else default_out(game, seed, deals, stratification)
    check_place(path)
    return run_stratified(game, resolved, chosen, seed, deals, path, stratification, allocation,
                          block_size=block_size, cluster=cluster, threads=threads, dealer=dealer,
                          metrics=None if metrics is None else parse_metrics(texts("metrics", metrics, "metric")),
                          controls=controls, control_deals=control_deals)


def run_stratified(game: str, rules, policies, seed: int, deals: int, out, stratification: str,
                   allocation: str = "proportional", records: str = "deals", block_size: int = DEFAULT_BLOCK_SIZE,
                   cluster=None, threads=None, notify=None, dealer: str = "alternate", metrics=None,
                   controls=(), control_deals=None) -> dict:
    """Play (or resume) every stratum's deal run under ``out`` and write ``out/strata.json``:
    the allocation, the strata and each metric per stratum and overall. ``metrics``: names
    and custom definitions as analysis.compare takes them (None: every deal metric).
    ``controls`` (sim.multilevel levels): each stratum a multilevel estimate instead
    (``_multilevel_strata``)."""
    from dataclasses import replace

    from sim.api import execute, resolve_policies
    from sim.custom import Custom
    from sim.metrics import custom_metric, custom_metrics, resolve_metrics
    from sim.run_records import open_run

    from sim.resolve import check_resolved, check_text

    policies = resolve_policies(game) if policies is None else policies
    seed, deals, threads = check_resolved(game, rules, policies, seed, "deals", deals, out=out, threads=threads,
                                          notify=notify)
    if out is None:
        raise TypeError("out must be the folder to keep the strata in, got None")
    for name, value in (("stratification", stratification), ("allocation", allocation), ("records", records),
                        ("dealer", dealer)):
        check_text(name, value)
    if controls and metrics is None:
        metrics = ["dealer_advantage"]
    specs = deal_metrics() if metrics is None else resolve_metrics(metrics, deal_run=True)  # before any deal
    if not specs:
        raise DealingError("--metrics names no metric: give one or a list (None: every deal metric, or with "
                           "--control the dealer's advantage)")
    if records != "deals":
        raise DealingError("--stratify needs the deal records (--records deals) to estimate per stratum")
    strata = [replace(s, dealing=replace(s.dealing, dealer=dealer)) for s in strata_of(game, rules, stratification)]
    if allocation not in ALLOCATIONS:  # checked before anything is played, and kept in one form
        allocation = canonical_allocation(strata, allocation)
    least = 0  # each stratum's target deals, with --control
    if controls:
        from sim.multilevel import MIN_TARGET_DEALS as least
        from sim.multilevel import Level, parse_level

        if any((c if isinstance(c, Level) else parse_level(c)).kind == "hand" for c in controls):
            raise DealingError("--control hand: the hand features are Bridgette's, of unconditioned deal runs, and "
                               "each stratum's deals are conditioned")  # said before any stratum is played
    if deals < least * len(strata):  # said before a Neyman allocation's pilot too
        raise DealingError(f"--control: each stratum's target needs at least {least} deals; --deals {deals:,} "
                           f"cannot give them to {len(strata)} strata")
    sigmas = neyman_sigmas(game, rules, policies, seed, strata) if allocation == "neyman" else None
    counts = allocate(strata, deals, allocation, sigmas)
    few = next(((s, n) for s, n in zip(strata, counts) if n < least), None)
    if few is not None:  # said before any stratum is played or kept
        raise DealingError(f"--control: each stratum's target needs at least {least} deals; "
                           f"{few[0].name} gets {few[1]:,} of --deals {deals:,}")
    fewer = next((c for c in control_deals or () if c < max(counts)), None)
    if fewer is not None:  # said before any stratum is played, as a plain multilevel run says it
        raise DealingError(f"--control-deals {fewer:,}: a control plays at least its stratum's target deals, and "
                           f"{strata[counts.index(max(counts))].name} gets {max(counts):,}")
    out = Path(out)
    refuse_another_stratified_run(out, {"game": game, "stratify": stratification, "allocation": allocation,
                                        "deals": deals, "seed": seed, "controls": bool(controls)},
                                  [stratum_folder(s.name) for s in strata], strata)
    if controls:
        return _multilevel_strata(game, rules, policies, seed, deals, out, stratification, allocation, strata, counts,
                                  sigmas, metrics, list(controls), control_deals, notify, cluster, threads)
    with claim(out, is_strata_folder, "stratified run"):  # this process's alone until strata.json is written
        folders = []
        for i, (s, n) in enumerate(zip(strata, counts)):
            folder = out / stratum_folder(s.name)
            if notify is not None:
                notify(f"stratum {s.name} (probability {s.cards}/{s.of}): {n:,} deals -> {folder}")
            execute(game, rules, policies, stratum_seed(seed, i), n, folder, records, block_size, cluster=cluster,
                    threads=threads, dealing=s.dealing)
            folders.append(folder)
            if i == 0:  # a custom metric's columns, checked before the other strata are played
                for m in specs:
                    if isinstance(m, Custom):
                        custom_metric(m, [open_run(folder)])
        runs = [open_run(f) for f in folders]
        # by: a group each
        bound = [b for m in specs for b in (custom_metrics(m, runs) if isinstance(m, Custom) else [m])]
        result = {"game": game, "stratify": stratification, "allocation": allocation, "deals": deals, "seed": seed,
                  "neyman_sigmas": sigmas, **report(game, strata, folders, bound)}
        write_atomic(out / "strata.json", json.dumps(sealed(result), indent=1).encode())
    return result


def _multilevel_strata(game, rules, policies, seed, deals, out, stratification, allocation, strata, counts, sigmas,
                       metrics, controls, control_deals, notify, cluster=None, threads=None) -> dict:
    """Each stratum a multilevel estimate (sim.multilevel.run_multilevel on the stratum's
    seed and conditions, its target on the stratum's deals, its controls sized by its own
    pilot or ``control_deals``) in ``out/stratum-NAME``, combined by
    sim.multilevel.stratified_estimate; beside it the plain stratified estimate of the
    targets' deals alone (stratified_estimate of their sums)."""
    from sim.multilevel import run_multilevel
    from sim.multilevel import stratified_estimate as combined
    from sim.ratio import ratio_sums

    with ExitStack() as stack:
        stack.enter_context(claim(out, is_strata_folder, "stratified run"))
        if cluster is not None:  # one cluster (and its workers' warm kernels) for every stratum
            from sim.cluster import open_cluster

            cluster = stack.enter_context(open_cluster(cluster, threads)).client
        played = []
        for i, (s, n) in enumerate(zip(strata, counts)):
            folder = out / stratum_folder(s.name)
            if notify is not None:
                notify(f"stratum {s.name} (probability {s.cards}/{s.of}): {n:,} target deals -> {folder}")
            played.append(run_multilevel(game, rules, policies, stratum_seed(seed, i), n, controls, control_deals,
                                         metrics, s.dealing, out=folder, notify=notify, influence=True,
                                         cluster=cluster, threads=threads))
        weights = [s.weight for s in strata]
        result = {"game": game, "stratify": stratification, "allocation": allocation, "deals": deals, "seed": seed,
                  "neyman_sigmas": sigmas, "controls": played[0]["controls"],
                  "strata": [{"name": s.name, "probability": f"{s.cards}/{s.of}", "deals": n,
                              "folder": str(out / stratum_folder(s.name)), "sizes": r["sizes"]}
                             for s, n, r in zip(strata, counts, played)], "metrics": {}}
        for name, first in played[0]["metrics"].items():
            per = [r["metrics"][name] for r in played]
            plain = stratified_estimate(weights, [ratio_sums(e["target_y"], e["target_n"]) for e in per],
                                        per[0].get("within"))
            overall = combined(weights, per)
            overall.update(plain_variance=None, variance_saved=None, target_alone=plain["value"],
                           target_alone_ci95=plain["ci95"],
                           target_alone_saved=plain["variance"] / overall["variance"] if overall["variance"] else None)
            result["metrics"][name] = {
                **{k: first[k] for k in ("label", "unit", "percent", "balance", "definition")},
                "by_stratum": [{"value": e["value"], "ci95": e["ci95"], "plain_value": e["plain_value"],
                                "plain_ci95": e["plain_ci95"], "variance_saved": e["variance_saved"],
                                "estimator": e["estimator"]} for e in per],
                "overall": overall}
        write_atomic(out / "strata.json", json.dumps(sealed(result), indent=1).encode())
    return result


def refuse_another_stratified_run(out: Path, identity: dict, folders, strata=None) -> None:
    """Refuse, before anything is played, a folder whose strata.json is another stratified
    run's (``identity``: another game, stratification, allocation, deals or seed, or
    control levels where it had none or the other way round): its strata would be played
    again or mixed with this run's. A run stopped before its strata.json holds strata
    folders only: one that is not among this run's ``folders`` is another stratification's
    (the same strata of another size, seed or allocation are refused by each stratum's own
    folder). Other metrics of the same run are read again from its strata, as a sweep's
    tables are; other control levels are refused by the levels' own files."""
    try:
        stranger = sorted(p.name for p in out.glob(stratum_folder("*")) if p.name not in folders)
    except OSError:
        stranger = []
    try:
        theirs = read_sealed(out / "strata.json")
    except (OSError, ValueError):  # a DamagedError too
        if stranger:
            raise DealingError(f"output folder {out} holds the strata of another stratified run, not finished "
                               f"({stranger[0]} is no stratum of --stratify {identity['stratify']}); rerun that run's "
                               f"command to finish it, or use another --out")
        return  # none yet (or unreadable: the claim and the strata's own checks say so)
    if not isinstance(theirs, dict):
        return
    kept = theirs.get("allocation")
    if strata is not None and isinstance(kept, str) and kept not in ALLOCATIONS:  # an older run's own spelling
        try:
            theirs = dict(theirs, allocation=canonical_allocation(strata, kept, given=False))
        except DealingError:  # another stratification's strata: refused below as it stands
            pass
    refuse_another(out, "a stratified run", identity, dict(theirs, controls="controls" in theirs), DealingError,
                   list(identity))
    if stranger:  # this run's own folder: a stratum folder none of its strata plays was put there
        raise DealingError(f"output folder {out} holds {stranger[0]}, no stratum of --stratify "
                           f"{identity['stratify']}: move it away, or use another --out")


def format_report(result: dict) -> str:
    """The stratified run's tables."""
    from sim.metrics import shown as metric_shown
    from sim.summary import Z95

    game = result["game"]
    lines = [f"stratified by {result['stratify']}, allocation {result['allocation']}: "
             + "; ".join(f"{s['name']} p={s['probability']} {s['deals']:,} deals" for s in result["strata"])]
    for name, entry in result["metrics"].items():
        m = metric_shown(name, entry)

        signed = m.balance == 0  # a difference between the sides

        def shown(value, ci):
            if value is None:
                return "-"
            return m.format(value, signed) + ("" if ci is None else
                                              f" [{m.format(ci[0], signed)}, {m.format(ci[1], signed)}]")

        lines += ["", f"{m.words(game)} ({m.unit_for(game)}):"]
        for s, e in zip(result["strata"], entry["by_stratum"]):
            lines.append(f"  {s['name']:10s} {shown(e['value'], e['ci95'])}")
        o = entry["overall"]
        saved = "" if o["variance_saved"] is None else (
            f"; plain sampling of as many deals: +-{m.format(Z95 * math.sqrt(o['plain_variance']))}, "
            f"variance saved {o['variance_saved']:.0%}")
        lines.append(f"  {'overall':10s} {shown(o['value'], o['ci95'])}{saved}")
        if "target_alone" in o:  # --control: the multilevel strata beside the targets' deals alone
            each = "; ".join(f"{s['name']} {shown(e['plain_value'], e['plain_ci95'])}"
                             for s, e in zip(result["strata"], entry["by_stratum"]))
            lines += [f"  the target's deals alone: overall {shown(o['target_alone'], o['target_alone_ci95'])}; "
                      f"{each}",
                      f"  multilevel over {', '.join(result['controls'])}: the variance saved "
                      + ("-" if o["target_alone_saved"] is None else f"{o['target_alone_saved']:.2f}x")]
    return "\n".join(lines)
