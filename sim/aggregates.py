"""A block's aggregates and the summary merged from them: what each game tallies, the
dealer's advantage, rule activity, the double-dummy section of a --dd run, a conditioned
deal run's tries, and the decisions the opponent model could not explain. A run (sim.api),
a cluster's workers (sim.cluster) and --until (sim.until) share them."""

from __future__ import annotations

from sim import activity, dd_run
from sim.games import game_info, game_module
from sim.metrics import dealer_advantage_sums, dealer_advantage_summary
from sim.summary import merge


def block_aggregates(game: str, rules, deals, game_rows, plan=None) -> dict:
    """The game's block aggregates plus the dealer's advantage as sim.metrics defines
    it (exact per-game sums, so a --records none run reports it too), in a --dd run the
    double-dummy aggregates (sim.dd_run), in a conditioned deal run the deals dealt and
    the tries they took (``plan``, sim.dealing), and the searched decisions whose worlds the
    opponent model could not explain (kernels.search: the seat decided as the heuristic)."""
    module = game_module(game)
    first = int(game_rows["game"].min()) if len(game_rows) else 0
    groups = module.advantage_groups(deals) if hasattr(module, "advantage_groups") else None
    out = {**module.aggregate(rules, deals, game_rows),
           "dealer_advantage": dealer_advantage_sums(game_info(game), deals, first, len(game_rows), groups,
                                                     len(getattr(module, "ADVANTAGE_GROUPS", ()))),
           "unexplained": int(deals["unexplained"].sum()),
           "activity": activity.aggregate(game, rules, deals, game_rows)}
    if dd_run.has_columns(deals):
        out["double_dummy"] = dd_run.aggregate(game_info(game), module, rules, deals)
    if plan is not None and plan[0]["conditioned"]:
        out["conditioned"] = {"deals": len(deals), "tries": int(deals["tries"].sum())}
    return out


def dealing_summary(dealing, pilot_acceptance, conditioned) -> dict:
    """A deal run's section of summary.json: how it dealt, and for conditions the tries its
    deals took (the acceptance rate of the ranges) beside the pilot's estimate."""
    out = {**dealing.to_dict(), "description": dealing.describe()}
    if conditioned:
        out.update(conditioned, acceptance=conditioned["deals"] / conditioned["tries"],
                   pilot_acceptance=pilot_acceptance)
    return out


def merged_summary(game: str, rules, blocks, policies=None, dealing=None, pilot_acceptance=None) -> dict:
    """summary.json from the blocks' aggregates, merged one block at a time (``policies``
    name the seats in the double-dummy section of a --dd run; a deal run's ``dealing`` and
    its pilot's acceptance rate make its section)."""
    total, advantage, dd, conditioned, active = None, None, None, None, None
    for agg in blocks:
        sums = agg.pop("dealer_advantage", None)  # blocks written before it was kept have none
        dd_sums = agg.pop("double_dummy", None)
        tries = agg.pop("conditioned", None)
        counts = agg.pop("activity", None)  # nor before rule activity was counted
        if total is None:
            total, advantage, dd, conditioned, active = agg, sums, dd_sums, tries, counts
        else:
            total = merge(total, agg)
            advantage = merge(advantage, sums) if advantage and sums else None
            active = merge(active, counts) if active and counts else None
            dd = merge(dd, dd_sums) if dd and dd_sums else None
            conditioned = merge(conditioned, tries) if conditioned and tries else None
    unexplained = total.pop("unexplained", 0)
    summary = {"game": game, **game_module(game).summarize(rules, total), "unexplained_decisions": unexplained}
    names = getattr(game_module(game), "ADVANTAGE_GROUPS", ())
    if advantage is not None:
        summary["dealer_advantage"] = dealer_advantage_summary(advantage, names)
    if active is not None:
        summary["rule_activity"] = activity.summarize(game, active)
    if dealing is not None:
        summary["dealing"] = dealing_summary(dealing, pilot_acceptance, conditioned)
    if dd is not None:
        summary["double_dummy"] = dd_run.summarize(game_info(game), dd, policies, names,
                                                   getattr(game_module(game), "COLON_NAMES", ()))
    return summary
