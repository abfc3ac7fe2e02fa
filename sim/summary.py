"""Aggregates that merge block by block, and the statistics drawn from them.

A block's aggregates are small JSON-ready dicts of counts, sums and exact histograms
(value -> count), so a run of any length needs memory only for one block, and the
summary of a resumed or distributed run equals that of a single pass.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def histogram(values) -> dict:
    """Exact histogram of integer values: {"values": [...], "counts": [...]}, sorted."""
    values = np.asarray(values)
    if values.size and values.dtype.kind in "iu" and np.can_cast(values.dtype, np.int64):
        low = int(values.min())
        if int(values.max()) - low <= max(values.size, 1 << 16):  # a count per value in range, no sort
            counts = np.bincount(values.astype(np.int64) - low)
            present = np.flatnonzero(counts)
            return {"values": (present + low).tolist(), "counts": counts[present].tolist()}
    vals, counts = np.unique(values, return_counts=True)
    return {"values": vals.tolist(), "counts": counts.tolist()}


def _is_histogram(x) -> bool:
    return isinstance(x, dict) and set(x) == {"values", "counts"}


def merge(a, b):
    """Sum two aggregates of the same shape: numbers add, lists add elementwise,
    histograms add per value, dicts merge key by key."""
    if _is_histogram(a):
        table = dict(zip(a["values"], a["counts"]))
        for v, c in zip(b["values"], b["counts"]):
            table[v] = table.get(v, 0) + c
        keys = sorted(table)
        return {"values": keys, "counts": [table[k] for k in keys]}
    if isinstance(a, dict):
        return {k: merge(a[k], b[k]) for k in a}
    if isinstance(a, list):
        return [merge(x, y) for x, y in zip(a, b)]
    return a + b


def wilson(successes: int, n: int) -> list[float] | None:
    """95% Wilson score interval of a proportion, or None when n is 0."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    # At 0 (or 1) the bound is exactly 0 (1): the arithmetic would leave a rounding error there.
    return [0.0 if successes == 0 else max(0.0, centre - half), 1.0 if successes == n else min(1.0, centre + half)]


def rate(successes: int, n: int) -> dict:
    return {"n": int(n), "successes": int(successes),
            "rate": successes / n if n else None, "ci95": wilson(successes, n)}


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def describe(hist: dict, least: float | None = None) -> dict:
    """Count, mean, standard deviation and quantiles (inverse CDF) of a histogram; the mean's
    interval kept at or above ``least``, a value the counted quantity never goes below (the
    normal interval of tricks lost, all 0 or more, could reach below 0)."""
    values = np.asarray(hist["values"], dtype=np.float64)
    counts = np.asarray(hist["counts"], dtype=np.float64)
    n = counts.sum()
    if n == 0:
        return {"n": 0}
    mean = float((values * counts).sum() / n)
    sd = float(math.sqrt(max(0.0, (counts * (values - mean) ** 2).sum() / max(n - 1, 1))))
    cum = np.cumsum(counts)
    out = {"n": int(n), "mean": mean, "sd": sd,
           "mean_ci95": [max(mean - Z95 * sd / math.sqrt(n), -math.inf if least is None else float(least)),
                         mean + Z95 * sd / math.sqrt(n)]}
    for q in QUANTILES:
        out[f"p{int(q * 100)}"] = int(values[np.searchsorted(cum, q * n)])
    return out


def percent(r: dict | None) -> str:
    """'71.2% [70.4, 72.0]' for a rate dict."""
    if not r or r["rate"] is None:
        return "-"
    lo, hi = r["ci95"]
    digits = 1 if hi >= 0.01 else 3  # keep rare events (passed-out deals) readable
    return f"{100 * r['rate']:z5.{digits}f}% [{100 * lo:z4.{digits}f}, {100 * hi:z4.{digits}f}]"
