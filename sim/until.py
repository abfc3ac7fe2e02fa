"""--until METRIC:WIDTH: play blocks until a metric's 95% interval is narrow enough.

The decision is taken after each block, in block order, on the summary of the blocks
done so far, so the same seed and block size stop at the same block on any thread count.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from sim.cli import decimal_text
from sim.games import game_info
from sim.store import RunError

# The metrics (sim/metrics.py names) whose 95% interval every summary carries, and
# where: (summary statistic, the interval's key).
INTERVALS = {
    "dealer_advantage": ("dealer_advantage", "ci95"),
    "first_dealer_wins": ("first_dealer_wins", "ci95"),
    "contract_made": ("contracts_made", "ci95"),
    "deals_per_game": ("deals_per_game", "mean_ci95"),
}


@dataclass(frozen=True)
class Until:
    """Stop once ``metric``'s 95% half-width is at most ``width`` (a rate's as a proportion)."""

    metric: str
    width: float

    def __str__(self) -> str:
        return f"{self.metric}:{self.width:g}"

    def half_width(self, game: str, summary: dict) -> float | None:
        """Half the width of the summary's 95% interval of the metric; None while it has none."""
        statistic, key = INTERVALS[self.metric]
        entry = summary.get(game_info(game).summary_key(statistic)) or {}
        ci = entry.get(key)
        return None if ci is None else (ci[1] - ci[0]) / 2


SMALLEST_WIDTH, LARGEST_WIDTH = 1e-9, 1e12  # a half-width a run can be sized for


def parse_until(text, any_metric: bool = False) -> Until:
    """``METRIC:WIDTH`` (an Until passes through); a RunError in one line otherwise. A plain
    run stops on a metric whose interval every summary carries (``INTERVALS``);
    ``any_metric`` leaves the name to the caller: a multilevel run (``--control``) estimates
    any deal metric, builtin or named in ``--metrics``, with its interval."""
    if isinstance(text, Until):
        until = text
    elif not isinstance(text, str):  # str() of a list or bytes would read as a metric and a width
        raise RunError(f'until must be "METRIC:HALF_WIDTH" text, e.g. "dealer_advantage:0.5", got {text!r:.60}')
    else:
        metric, colon, width = str(text).partition(":")
        if not colon or not metric.strip():
            raise RunError(f"--until needs METRIC:HALF_WIDTH, e.g. dealer_advantage:0.5, got '{text}'")
        exact = decimal_text(width)
        value = math.nan if exact is None else float(exact)
        if not (math.isfinite(value) and value > 0 or exact is not None and exact.is_finite() and exact > 0):
            raise RunError(f"--until: the half-width must be a positive number, got '{width.strip()}'")
        if not SMALLEST_WIDTH <= value <= LARGEST_WIDTH:  # beyond, the deals it asks for are no number
            raise RunError(f"--until: the half-width must lie from {SMALLEST_WIDTH:g} to {LARGEST_WIDTH:g}, "
                           f"got '{width.strip()}'")
        until = Until(metric.strip(), value)
    from sim.metrics import METRICS

    if until.metric in METRICS and METRICS[until.metric].within is not None and until.width >= 1:
        raise RunError(f"--until: {until.metric} is a share from 0 to 1, which a half-width of {until.width:g} "
                       f"spans whole: give one below 1 (0.01 is one percentage point)")
    if not any_metric and until.metric not in INTERVALS:
        import difflib

        close = difflib.get_close_matches(until.metric, list(INTERVALS), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise RunError(f"--until: unknown metric '{until.metric}'{hint} (metrics with an interval: "
                       f"{', '.join(INTERVALS)}; with --control, any deal metric or one named in --metrics)")
    return until


def until_argument(text: str) -> Until:
    """argparse's type for ``--until``: the syntax checked here, the metric where the run
    knows which it can stop on (a plain run: ``INTERVALS``; with ``--control``: any deal
    metric)."""
    import argparse

    try:
        return parse_until(text, any_metric=True)
    except RunError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--until: ").removeprefix("--until ")) from None


class Stopping:
    """Feeds block aggregates in block order; says when the target is reached."""

    def __init__(self, until: Until, game: str, rules):
        self.until, self.game, self.rules = until, game, rules
        self.total, self.blocks, self.games, self.achieved, self.reached = None, 0, 0, None, False

    def add(self, aggregates: dict, games: int) -> bool:
        from sim.aggregates import merged_summary
        from sim.summary import merge

        aggregates = json.loads(json.dumps(aggregates))  # as read back from the block's file on resume
        self.total = aggregates if self.total is None else merge(self.total, aggregates)
        self.blocks += 1
        self.games += games
        self.achieved = self.until.half_width(self.game, merged_summary(self.game, self.rules, [dict(self.total)]))
        self.reached = self.achieved is not None and self.achieved <= self.until.width
        return self.reached

    def record(self) -> dict:
        """What the manifest keeps of it."""
        return {"metric": self.until.metric, "half_width": self.until.width, "reached": self.reached,
                "achieved_half_width": self.achieved, "games_played": self.games, "blocks_played": self.blocks}
