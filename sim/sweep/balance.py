"""Balance points: where a metric crosses its even value between the settings of a numeric
grid, and the settings whose intervals bracket it."""

from __future__ import annotations


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
