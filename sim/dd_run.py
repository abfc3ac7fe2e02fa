"""Double-dummy columns of ``--dd`` runs in the records, the block aggregates and the summary.

The kernels (kernels/dd_run.py) give each deal row its double-dummy values; this module
turns them into Arrow columns (``deal_columns``), into block aggregates that merge block
by block (``aggregate``, exact histograms as in sim.summary) and into summary.json's
``double_dummy`` section and its lines in the terminal summary (``summarize``,
``format_lines``). What a game has (a declarer and par in the contract games, a bidding
team in Bid Euchre, Bridgette's up-card and Colons) comes from its declaration and its
engine module, never from its name.

Definitions (docs/dd.md): a seat's tricks *lost* in a deal are the sum, over the cards it
played, of the double-dummy value of the position for its side before the card minus
what the side got from it (the trick, if the card completed one the side won, plus the
value after); a contract (Bid Euchre: a bid) is *makeable* when the declarer (the bidding
team) takes enough tricks double dummy at the start of play; *par* is sim.par's.
Intervals are 95% intervals of a mean over deals (sim.summary.describe), as the summary's
deal scores have them.
"""

from __future__ import annotations

import numpy as np

from sim.summary import describe, histogram, merge, percent, rate

# Roles of a seat in a deal: in the contract games (B-7, D-4), and in Bid Euchre (E-3, E-6).
CONTRACT_ROLES = ("declarer", "defender")
EUCHRE_ROLES = ("bidder", "partner", "defender")


class DDError(ValueError):
    """A --dd run of rules the solver does not cover (one line for the user)."""


def has_columns(deals) -> bool:
    """Whether deal rows (a record array) hold double-dummy values: a --dd run's."""
    return deals.dtype.names is not None and "dd_tricks" in deals.dtype.names


def samplers_refused(info, rules) -> bool:
    """Whether players that sample worlds cannot play these rules (``refusal``)."""
    return info.dd_solver == "euchre" and bool(getattr(getattr(rules, "variant", None), "double_deck", False))


def refusal(info, rules, asked: str) -> str | None:
    """Why a player that samples worlds (``pimc``, ``search``; ``asked``: the player as the
    user gave it) cannot play these rules, or None. Bid Euchre's double deck (E-10): the
    solver values a 12-trick hand in a tenth of a second to a few seconds (docs/dd.md),
    enough for --dd runs and ``dd`` seats, but such a player would solve one in each of
    its worlds for every card it plays."""
    if samplers_refused(info, rules):
        return (f"{asked}: Bid Euchre's double deck (variant.double_deck = true) is beyond the players that sample "
                "worlds (pimc, search): each of their cards would solve a 12-trick hand in every world "
                "(dd seats and --dd runs play it)")
    return None


def sampler_refusal(game: str, rules, policies, asked: str | None = None) -> str | None:
    """``refusal`` for the first of ``policies`` that samples worlds, or None; ``asked``
    names it (default ``--policy`` and the policy)."""
    from sim.games import game_info
    from sim.policies import samples_worlds

    sampler = next((p for p in policies if samples_worlds(p)), None)
    if sampler is None:
        return None
    reason = refusal(game_info(game), rules, asked or f"--policy {sampler}")
    if reason and not any(value for key, value in sampler.params if key.endswith("worlds")):
        reason += "; with every worlds parameter at 0 it makes each decision as the heuristic does: play heuristic"
    return reason


def roles(info) -> tuple:
    return EUCHRE_ROLES if info.dd_solver == "euchre" else CONTRACT_ROLES


def _played(info, deals) -> np.ndarray:
    """Deals whose card play was valued: a contract played (a bid, not a void hand)."""
    return np.asarray(deals["dd_tricks"]) >= 0


def _role(info, deals, seat: int) -> np.ndarray:
    """Per deal, the index in ``roles(info)`` of ``seat``'s role; -1 where it played no card."""
    lost = np.asarray(deals[f"dd_lost{seat}"])
    if info.dd_solver == "euchre":
        bidder = deals["bidder"].astype(np.int64)
        role = np.where(seat == bidder, 0, np.where(seat % 2 == bidder % 2, 1, 2))
    else:
        role = np.where(deals["declarer"] == seat, 0, 1)
    return np.where(lost >= 0, role, -1)


# --- Records --------------------------------------------------------------------------------

def deal_columns(info, deals) -> dict:
    """The double-dummy Arrow columns of deal rows ({} for a run without them)."""
    if not has_columns(deals):
        return {}
    from sim import arrow

    played = _played(info, deals)
    columns = {
        "dd_tricks": arrow.array(deals["dd_tricks"], mask=~played),
        "dd_makeable": arrow.array(deals["dd_makeable"] == 1, mask=~played),
    }
    if "par_contract" in deals.dtype.names:
        from sim.contract import CONTRACT_NAMES, categorical

        par = deals["par_contract"].astype(np.int64)
        columns.update({
            "dd_best0": deals["dd_best0"], "dd_best1": deals["dd_best1"],
            "par_contract": categorical(np.where(par >= 0, par, len(CONTRACT_NAMES) - 1), CONTRACT_NAMES),
            "par_declarer": deals["par_declarer"], "par_doubled": deals["par_doubled"],
            "par_score0": deals["par_score0"], "par_score1": deals["par_score1"],
        })
    for seat in range(info.seats):
        lost = deals[f"dd_lost{seat}"]
        columns[f"dd_lost{seat}"] = arrow.array(lost, mask=lost < 0)
    return columns


# --- Block aggregates ---------------------------------------------------------------------------

def aggregate(info, module, rules, deals) -> dict:
    """A block's double-dummy aggregates: tricks lost per seat and role, contracts made
    against makeable, and in the contract games each seat's score minus its par, and what
    the game groups its deals by (``module.advantage_groups``: Bridgette's up-card classes)
    and its Colons (``module.COLON_NAMES``)."""
    played = _played(info, deals)
    made_flags = np.asarray(module.made_flags(rules, deals), dtype=bool)
    makeable = played & (np.asarray(deals["dd_makeable"]) == 1)
    counts = np.zeros((2, 2), dtype=np.int64)
    np.add.at(counts, (makeable[played].astype(np.int64), made_flags[played].astype(np.int64)), 1)
    out = {
        "deals": int(len(deals)), "played": int(played.sum()),
        "lost": [[histogram(np.asarray(deals[f"dd_lost{seat}"])[_role(info, deals, seat) == r])
                  for r in range(len(roles(info)))] for seat in range(info.seats)],
        "makeable_made": counts.tolist(),
    }
    if "par_contract" not in deals.dtype.names:
        return out
    score = [deals["score0"].astype(np.int64), deals["score1"].astype(np.int64)]
    par = [deals["par_score0"].astype(np.int64), deals["par_score1"].astype(np.int64)]
    best = [deals["dd_best0"].astype(np.int64), deals["dd_best1"].astype(np.int64)]
    out["score_minus_par"] = [histogram(score[s] - par[s]) for s in (0, 1)]
    dealer = deals["dealer"].astype(np.int64)
    dealer_par = np.where(dealer == 0, par[0] - par[1], par[1] - par[0])
    dealer_best = np.where(dealer == 0, best[0] - best[1], best[1] - best[0])
    if hasattr(module, "advantage_groups"):
        group = module.advantage_groups(deals)
        out["by_upcard"] = [{"dealer_par": histogram(dealer_par[group == k]),
                             "dealer_best": histogram(dealer_best[group == k])}
                            for k in range(len(module.ADVANTAGE_GROUPS))]
    colons = {}
    for name in getattr(module, "COLON_NAMES", ()):
        holder = deals[f"colon_{name}"].astype(np.int64)
        held = holder >= 0
        h = np.where(held, holder, 0)
        mine = np.where(h == 0, best[0], best[1])
        theirs = np.where(h == 0, best[1], best[0])
        my_par = np.where(h == 0, par[0] - par[1], par[1] - par[0])
        colons[name] = {"holder_best": histogram(mine[held]), "other_best": histogram(theirs[held]),
                        "best_difference": histogram((mine - theirs)[held]), "holder_par": histogram(my_par[held])}
    if colons:
        out["colons"] = colons
    return out


# --- Summary --------------------------------------------------------------------------------------

def summarize(info, agg: dict, policies=None, upcard_names=(), colon_names=()) -> dict:
    """summary.json's ``double_dummy`` from the merged aggregates; ``policies`` names each
    seat's policy (None: not known here), ``upcard_names`` the groups of ``by_upcard`` and
    ``colon_names`` the order of the Colons (lists keep their order in summary.json, whose
    keys are sorted)."""
    (n0, m0), (n1, m1) = agg["makeable_made"][0], agg["makeable_made"][1]  # [makeable][made]
    played = agg["played"]
    out = {
        "deals": agg["deals"], "played": played,
        "tricks_lost": {},
        "made_vs_makeable": {"makeable": rate(n1 + m1, played), "made": rate(m0 + m1, played),
                             "made_when_makeable": rate(m1, n1 + m1), "made_when_not_makeable": rate(m0, n0 + m0),
                             "counts": {"makeable_made": m1, "makeable_failed": n1, "unmakeable_made": m0,
                                        "unmakeable_failed": n0}},
    }
    for seat, by_role in enumerate(agg["lost"]):
        every = by_role[0]
        for h in by_role[1:]:
            every = merge(every, h)
        entry = {"policy": None if policies is None else str(policies[seat]),
                 **{role: describe(h, 0) for role, h in zip(roles(info), by_role)}, "all": describe(every, 0)}
        out["tricks_lost"][f"seat{seat}"] = entry
    if "score_minus_par" in agg:
        out["score_minus_par"] = {f"seat{s}": describe(h) for s, h in enumerate(agg["score_minus_par"])}
    if "by_upcard" in agg:
        out["by_upcard"] = [{"upcard": name, "dealer_par": describe(e["dealer_par"]),
                             "dealer_best": describe(e["dealer_best"])}
                            for name, e in zip(upcard_names, agg["by_upcard"])]
    if "colons" in agg:
        order = [c for c in colon_names if c in agg["colons"]] + sorted(set(agg["colons"]) - set(colon_names))
        out["colons"] = [{"colon": name, **{k: describe(h) for k, h in agg["colons"][name].items()}}
                         for name in order]
    return out


def mean_text(d: dict, digits: int = 2) -> str:
    """'0.52 [0.48, 0.56]' for a describe() dict, '-' when empty."""
    if not d.get("n"):
        return "-"
    lo, hi = d["mean_ci95"]
    return f"{d['mean']:z.{digits}f} [{lo:z.{digits}f}, {hi:z.{digits}f}]"


def format_lines(info, dd: dict) -> list[str]:
    """The double-dummy section of the terminal summary."""
    words = "bids" if info.dd_solver == "euchre" else "contracts"
    side = "bidding team" if info.dd_solver == "euchre" else "declarer"
    lines = ["", f"double dummy (every hand seen, perfect play; 95% intervals over {info.deal}s):",
             f"  tricks lost per {info.deal} against double dummy, by seat and role (mean [95% interval]):"]
    for seat, e in dd["tricks_lost"].items():
        policy = f" ({e['policy']})" if e.get("policy") else ""
        cells = "; ".join(f"as {role} {mean_text(e[role])}" for role in roles(info))
        lines.append(f"    {seat.replace('seat', 'seat ')}{policy}: {cells}; all {mean_text(e['all'])}")
    m = dd["made_vs_makeable"]
    lines.append(f"  {words} makeable double dummy (the {side}'s tricks at the start of play) "
                 f"{percent(m['makeable']).strip()}, made {percent(m['made']).strip()}; made when makeable "
                 f"{percent(m['made_when_makeable']).strip()}, when not {percent(m['made_when_not_makeable']).strip()}")
    if "score_minus_par" in dd:
        lines.append(f"  score minus par per {info.deal}: "
                     + "; ".join(f"{s.replace('seat', 'seat ')} {mean_text(d, 1)}"
                                 for s, d in dd["score_minus_par"].items()))
    if "by_upcard" in dd:
        lines.append("  by up-card, the dealer's par score minus the non-dealer's (points) and best-strain "
                     "tricks minus the non-dealer's:")
        for e in dd["by_upcard"]:
            if e["dealer_par"].get("n"):
                lines.append(f"    {e['upcard']:13s} par {mean_text(e['dealer_par'], 1)}; tricks "
                             f"{mean_text(e['dealer_best'])}  ({e['dealer_par']['n']:,} deals)")
    if "colons" in dd:
        lines.append("  each Colon's holder after the exchange against the other seat: best-strain tricks "
                     "(holder, other, difference) and par score minus the other's:")
        for c in dd["colons"]:
            if c["holder_best"].get("n"):
                lines.append(f"    {c['colon']:6s} tricks {mean_text(c['holder_best'])} vs "
                             f"{mean_text(c['other_best'])}: {mean_text(c['best_difference'])}; "
                             f"par {mean_text(c['holder_par'], 1)}  ({c['holder_best']['n']:,} deals)")
    return lines
