"""The report's double-dummy section of a --dd run (sim.dd_run), drawn from summary.json's
``double_dummy`` (so a run with any --records has it): tricks lost against double dummy by
seat and role, contracts made against makeable, the score against par, and Bridgette's
up-card classes and Colon holders by double-dummy value. Never imports numba."""

from __future__ import annotations

from analysis.report.page import Report, Table, figure, inline
from analysis.report.plots import COLORS, mean_points
from sim.dd_run import roles

INTRO = (
    "Every deal of this run was also valued <b>double dummy</b>: every hand seen, perfect play by both sides "
    "from the start of the card play (after Bridgette's exchange, Draw Bridge's draw phase, Bid Euchre's "
    "exchange), with the solver of docs/dd.md. A card <b>loses</b> tricks when the position's double-dummy value "
    "for its side before the card exceeds what the side got from it (the trick, if the card completed one the "
    "side won, plus the value after); a seat's tricks lost in a deal are the sum over its cards. A seat that "
    "plays double dummy (<code>--policy SEAT=dd</code>) loses none. It measures play against an opponent who "
    "sees every card, not a fair judge of a seat that cannot. Intervals: 95% intervals of a mean over deals.")


def dd_section(rep: Report) -> None:
    """The section, or nothing for a run without --dd."""
    dd = rep.data.summary.get("double_dummy")
    if dd is None:
        return
    info = rep.data.info
    rep.section("double-dummy", "Double dummy", "From summary.json's double_dummy section (block aggregates).")
    rep.para(INTRO)
    policies = rep.data.config.get("policies", [])
    role_names = roles(info)
    rows = []
    for seat, e in dd["tricks_lost"].items():
        k = int(seat.removeprefix("seat"))
        rows.append([f"seat {k}", e.get("policy") or (policies[k] if k < len(policies) else "?")]
                    + [e[r] for r in role_names] + [e["all"]])
    rep.table(Table("dd_tricks_lost", f"Tricks lost per {info.deal} against double dummy, by seat and role "
                    "(mean over the deals in which the seat played in that role)",
                    ["seat", "policy"] + [f"as {r}" for r in role_names] + ["all"], rows))
    m = dd["made_vs_makeable"]
    words = "bids" if info.dd_solver == "euchre" else "contracts"
    side = "bidding team" if info.dd_solver == "euchre" else "declarer"
    rep.para(f"Of {dd['played']:,} {words} played, <b>{inline(m['makeable'])}</b> were makeable double dummy (the "
             f"{side} takes enough tricks with perfect play from the start of play) and {inline(m['made'])} were "
             f"made: {inline(m['made_when_makeable'])} of the makeable ones and {inline(m['made_when_not_makeable'])} "
             "of the others (made only through the defence's losses).")
    c = m["counts"]
    rep.table(Table("dd_made_vs_makeable", f"{words.capitalize()} made against makeable (counts)",
                    ["", "made", "failed"], [["makeable", c["makeable_made"], c["makeable_failed"]],
                                             ["not makeable", c["unmakeable_made"], c["unmakeable_failed"]]]))
    if "score_minus_par" in dd:
        rep.table(Table("dd_score_minus_par", f"Each seat's {info.deal} score minus its par score (points; par as "
                        "sim.par defines it: the auction played with every card seen, docs/dd.md)",
                        ["seat", "policy", "score minus par"],
                        [[s.replace("seat", "seat "), dd["tricks_lost"][s].get("policy") or "", d]
                         for s, d in dd["score_minus_par"].items()]))
    groups = [e for e in dd.get("by_upcard", ()) if e["dealer_par"].get("n")]
    if groups:
        rep.table(Table("dd_upcard", "By up-card class (B-3): the dealer's par score minus the non-dealer's, and its "
                        "best-strain double-dummy tricks minus the non-dealer's",
                        ["up-card", "deals", "dealer's par minus non-dealer's (points)",
                         "dealer's best-strain tricks minus non-dealer's"],
                        [[e["upcard"], e["dealer_par"]["n"], e["dealer_par"], e["dealer_best"]] for e in groups]))
    colons = {c["colon"]: c for c in dd.get("colons", ()) if c["holder_best"].get("n")}
    if colons:
        rep.table(Table("dd_colons", "Each Colon's holder after the exchange (B-3) against the other seat: "
                        "double-dummy tricks in each seat's best strain (as declarer, the opponent leading) and "
                        "the holder's par score minus the other's",
                        ["Colon", "deals", "holder's tricks", "other's tricks", "difference (tricks)",
                         "holder's par minus other's (points)"],
                        [[name, c["holder_best"]["n"], c["holder_best"], c["other_best"], c["best_difference"],
                          c["holder_par"]] for name, c in colons.items()]))
    panels = 1 + bool(groups) + bool(colons)
    fig, ax = figure(4.5 * panels + 1, 4, "Double dummy", 1, panels)
    seats = list(dd["tricks_lost"])
    for k, r in enumerate(role_names):
        mean_points(ax[0, 0], [dd["tricks_lost"][s][r] for s in seats],
                    x=[i + (k - (len(role_names) - 1) / 2) * 0.2 for i in range(len(seats))],
                    color=COLORS[k], label=f"as {r}")
    ax[0, 0].set_xticks(range(len(seats)), [s.replace("seat", "seat ") for s in seats])
    ax[0, 0].set_ylabel(f"tricks lost per {info.deal}")
    ax[0, 0].set_title("tricks lost against double dummy")
    ax[0, 0].legend()
    ax[0, 0].grid(axis="y", alpha=0.3)
    panel = 1
    if groups:
        a = ax[0, panel]
        mean_points(a, [e["dealer_par"] for e in groups], color=COLORS[0])
        a.axhline(0, color="#888", linewidth=1, linestyle=":")
        a.set_xticks(range(len(groups)), [e["upcard"] for e in groups], rotation=30, ha="right")
        a.set_ylabel("dealer's par minus non-dealer's (points)")
        a.set_title("par by up-card class")
        a.grid(axis="y", alpha=0.3)
        panel += 1
    if colons:
        a = ax[0, panel]
        mean_points(a, [c["best_difference"] for c in colons.values()], color=COLORS[1])
        a.axhline(0, color="#888", linewidth=1, linestyle=":")
        a.set_xticks(range(len(colons)), list(colons))
        a.set_ylabel("holder's best-strain tricks minus other's")
        a.set_title("what a Colon is worth double dummy")
        a.grid(axis="y", alpha=0.3)
    rep.figure(fig, "double_dummy", "Tricks lost against double dummy per seat and role; where the game has them, the "
               "dealer's par advantage by up-card class and each Colon holder's double-dummy tricks over the other "
               "seat's (means with 95% intervals).")
