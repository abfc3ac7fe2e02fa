"""The ratio estimator of every metric: R = sum(y_g) / sum(n_g) over the games g of a run.

Games are the independent units (a game's deals share its course), so intervals use the
ratio estimator's linearisation over games: Var(R) = sum((y_g - R n_g)^2) / (nbar^2 G (G-1))
with nbar = sum(n_g) / G. Two runs of the same seed play game g from the same cards up to
where their rules part, so the difference R_B - R_A is estimated from the paired per-game
terms; comparing its variance with Var(R_A) + Var(R_B) (independent runs) gives the
variance saved by pairing, as in sim.match.

The sums are exact integers (Python ints where int64 could overflow) and the arithmetic
exact Fractions until the final division: two runs with identical games give a difference
of exactly 0 with a zero-width interval.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from sim.summary import Z95, wilson


SHARE = (0.0, 1.0)  # the range of a rate: a metric's ``within``


def interval(centre, variance, within=None) -> list[float]:
    """centre +- 1.96 standard errors; a variance of exactly 0 gives a zero-width interval.
    ``within`` (lo, hi), the range the value cannot leave (a rate's 0 to 1), cuts the
    interval to it: the cut part holds no possible value, so the coverage is the same."""
    half = Z95 * math.sqrt(max(float(variance), 0.0))
    lo, hi = float(centre) - half, float(centre) + half
    if within is None:
        return [lo, hi]
    bottom, top = within  # each end held inside: a regression's centre may itself lie beyond
    return [min(max(lo, bottom), top), max(min(hi, top), bottom)]


def spread(within):
    """The range of a difference of two values each in ``within`` (None: unbounded)."""
    return None if within is None else (within[0] - within[1], within[1] - within[0])


def ratio_sums(y, n) -> dict:
    """Exact sums over games of y, n, y^2, y n and n^2: the block aggregate of one ratio
    metric, merged by adding (sim.summary.merge)."""
    y, n = np.asarray(y, dtype=np.int64), np.asarray(n, dtype=np.int64)
    ones = np.ones(len(y), np.int64)
    return {"games": len(y), "y": _exact_dot(y, ones), "n": _exact_dot(n, ones), "yy": _exact_dot(y, y),
            "yn": _exact_dot(y, n), "nn": _exact_dot(n, n)}


def _exact_dot(a: np.ndarray, b: np.ndarray) -> int:
    """sum(a * b) of two int64 arrays, exactly: numpy's own where no product or partial sum
    can pass int64 (every run's scores), else in Python's integers (a metric's values near
    its 2**40 bound: squared, they pass 2**63 and numpy would wrap them in silence)."""
    most = int(np.abs(a).max(initial=0)) * int(np.abs(b).max(initial=0)) * len(a)
    if most < 2**63:
        return int(a @ b)
    return sum(x * y for x, y in zip(a.tolist(), b.tolist()))


def ratio_variance(sums: dict):
    """(R, Var(R)) of a ratio of per-game sums, exact Fractions (Var None under 2 games;
    R None when sum(n) is 0): the linearisation over games of the module's docstring."""
    G, y, n = sums["games"], sums["y"], sums["n"]
    if n == 0:
        return None, None
    r = Fraction(y, n)
    if G < 2:
        return r, None
    residuals = sums["yy"] - 2 * r * sums["yn"] + r * r * sums["nn"]
    return r, residuals / (Fraction(n, G) ** 2 * G * (G - 1))


def ratio_estimate(sums: dict, within=None) -> dict:
    """R = sum(y) / sum(n) with its 95% interval over games (``ratio_interval``)."""
    r, var = ratio_variance(sums)
    ci = None if var is None else ratio_interval(r, var, within, sums)
    return {"value": None if r is None else float(r), "ci95": ci, "deals": sums["n"], "games": sums["games"]}


def ratio_interval(r, var, within, sums) -> list:
    """R's 95% interval, cut to ``within``, the range of the metric's values; a rate's the
    Wilson interval over its trials where ``wilsons`` says so, as a plain run's summary
    gives it."""
    if wilsons(r, var, within, sums):
        return wilson(float(r * sums["n"]), float(sums["n"]))
    return interval(r, var, within)


def at_bound(r, var, within) -> bool:
    """Whether a rate lies at 0 or 1 on every game: its normal interval has no width, which
    so few trials can never show, and it has no spread that pairing could take away."""
    return within == SHARE and var == 0 and r in (0, 1)


def wilsons(r, var, within, sums) -> bool:
    """Whether a rate takes Wilson's interval over its trials (``sums``: its ratio sums)
    rather than the normal one over games: where each game holds at most one trial (a
    deal run's contracts), the trials are independent, as Wilson's interval has them; and
    at its bound (``at_bound``)."""
    return within == SHARE and sums["nn"] == sums["n"] or at_bound(r, var, within)


def games_alike(sums_a, sums_b, cross) -> bool:
    """Whether two paired runs hold the same values game by game (``PairedMoments.paired_
    sums``: sum (y_A - y_B)^2 and sum (n_A - n_B)^2 both 0); None ``cross``: unpaired."""
    return (cross is not None and sums_a["yy"] - 2 * cross["yy"] + sums_b["yy"] == 0
            and sums_a["nn"] - 2 * cross["nn"] + sums_b["nn"] == 0)


def square_and_add(ra, ci_a, rb, ci_b, within) -> tuple:
    """Newcombe's interval of B - A from each side's own interval (its reach below and above
    its value, added in squares), cut to the difference's range: the interval of a
    difference of two proportions from their Wilson intervals. With it the variance of a
    normal interval as wide before the cut, which the variance saved by pairing is
    measured against."""
    d = float(rb - ra)
    below = math.hypot(float(rb) - ci_b[0], ci_a[1] - float(ra))
    above = math.hypot(ci_b[1] - float(rb), float(ra) - ci_a[0])
    bottom, top = spread(within)
    return [max(d - below, bottom), min(d + above, top)], ((below + above) / (2 * Z95)) ** 2


def rates_difference(ra, var_a, sums_a, rb, var_b, sums_b, within) -> tuple:
    """B - A's 95% interval of two independent runs where a rate takes Wilson's interval
    (``wilsons``), and the variance it stands for: ``square_and_add`` of the two rates' own
    intervals (Wilson's, else the normal one, not cut). At a bound the normal interval has
    no width (both contracts made in A and in B: [0, 0]), which so few trials can never
    show; with normal intervals alone this is the normal interval of the difference."""
    def own(r, var, sums):
        if wilsons(r, var, within, sums):
            return wilson(float(r * sums["n"]), float(sums["n"]))
        return interval(r, var)
    return square_and_add(ra, own(ra, var_a, sums_a), rb, own(rb, var_b, sums_b), within)


def unpaired(sums_a: dict, sums_b: dict, within=None) -> dict:
    """B - A of two independent runs' ratios: Welch's standard error, the square root of
    Var(R_A) + Var(R_B), each over its own run's games (normal 95% quantile), or where a
    rate takes Wilson's interval Newcombe's (``rates_difference``); intervals cut to
    ``within``, the range of the metric's values, and the difference's to its spread."""
    (ra, var_a), (rb, var_b) = ratio_variance(sums_a), ratio_variance(sums_b)
    out = {"games": None, "a": None, "a_ci95": None, "b": None, "b_ci95": None, "diff": None, "ci95": None,
           "unpaired_ci95": None, "variance_reduction": None}
    for side, r, var, sums in (("a", ra, var_a, sums_a), ("b", rb, var_b, sums_b)):  # each its own, if it has one
        if r is not None:
            out[side] = float(r)
            out[f"{side}_ci95"] = None if var is None else ratio_interval(r, var, within, sums)
    if ra is None or rb is None:
        return out
    out["diff"] = float(rb - ra)
    if var_a is not None and var_b is not None:
        if wilsons(ra, var_a, within, sums_a) or wilsons(rb, var_b, within, sums_b):
            ci = rates_difference(ra, var_a, sums_a, rb, var_b, sums_b, within)[0]
        else:
            ci = interval(rb - ra, var_a + var_b, spread(within))
        out["ci95"] = out["unpaired_ci95"] = ci
    return out


class PairedMoments:
    """Integer sums of v = (y_A, n_A, y_B, n_B) and of v v^T over games, exact in Python ints."""

    CHUNK = 100_000  # rows per int64 product, far from overflow for any game's scores

    def __init__(self):
        self.games = 0
        self.s = [0] * 4
        self.ss = [[0] * 4 for _ in range(4)]

    def add(self, ya, na, yb, nb) -> None:
        v = np.stack([np.asarray(x, dtype=np.int64) for x in (ya, na, yb, nb)])
        self.games += v.shape[1]
        big = int(np.abs(v).max(initial=0))
        chunk = self.CHUNK
        if big * big * chunk >= 2 ** 62:  # large values (custom metrics): fewer rows per int64 product
            chunk = max(1, 2 ** 62 // (big * big))
            if big * big >= 2 ** 62:
                v = v.astype(object)  # Python ints: exact at any size
                chunk = v.shape[1] or 1
        for start in range(0, v.shape[1], chunk):
            part = v[:, start:start + chunk]
            sums, products = part.sum(axis=1), part @ part.T
            for i in range(4):
                self.s[i] += int(sums[i])
                for j in range(4):
                    self.ss[i][j] += int(products[i, j])

    def paired_sums(self) -> tuple:
        """(A's ratio sums, B's, the cross sums of y_A y_B, y_A n_B, n_A y_B, n_A n_B)."""
        G, s, ss = self.games, self.s, self.ss

        def run(i):
            return {"games": G, "y": s[i], "n": s[i + 1], "yy": ss[i][i], "yn": ss[i][i + 1], "nn": ss[i + 1][i + 1]}
        return run(0), run(2), {"yy": ss[0][2], "yn": ss[0][3], "ny": ss[1][2], "nn": ss[1][3]}

    def result(self, within=None) -> dict:
        """A's and B's ratios with their intervals, B - A with its paired and unpaired
        intervals (cut to ``within``, the range of the metric's values, and its spread)."""
        G, s, ss = self.games, self.s, self.ss
        out = {"games": G, "a": None, "a_ci95": None, "b": None, "b_ci95": None, "diff": None,
               "ci95": None, "unpaired_ci95": None, "variance_reduction": None}
        if s[1] == 0 or s[3] == 0:  # nothing to pair: the run that has rows keeps its own value
            for side, run in zip("ab", self.paired_sums()):
                r, var = ratio_variance(run)
                if r is not None:
                    out.update({side: float(r), f"{side}_ci95": None if var is None else
                                ratio_interval(r, var, within, run)})
            return out
        r = [Fraction(s[0], s[1]), Fraction(s[2], s[3])]
        nbar = [Fraction(s[1], G), Fraction(s[3], G)]
        diff = r[1] - r[0]
        out.update(a=float(r[0]), b=float(r[1]), diff=float(diff))
        if G < 2:
            return out

        def cross(i, j):
            """sum over games of (y_i - R_i n_i)(y_j - R_j n_j), i, j in (0: A, 1: B)."""
            yi, ni, yj, nj = 2 * i, 2 * i + 1, 2 * j, 2 * j + 1
            return ss[yi][yj] - r[j] * ss[yi][nj] - r[i] * ss[ni][yj] + r[i] * r[j] * ss[ni][nj]

        scale = G * (G - 1)
        var_a = cross(0, 0) / (nbar[0] ** 2 * scale)
        var_b = cross(1, 1) / (nbar[1] ** 2 * scale)
        var_d = var_a + var_b - 2 * cross(0, 1) / (nbar[0] * nbar[1] * scale)
        apart = var_a + var_b
        paired, unpaired_ci = interval(diff, var_d, spread(within)), interval(diff, apart, spread(within))
        runs = self.paired_sums()
        if wilsons(r[0], var_a, within, runs[0]) or wilsons(r[1], var_b, within, runs[1]):
            unpaired_ci, apart = rates_difference(r[0], var_a, runs[0], r[1], var_b, runs[1], within)
            # A rate at its bound has no spread to pair away, so pairing saves nothing: the paired
            # interval would leave out its Wilson reach. Only games the same in A and B give 0.
            if not games_alike(*runs) and (at_bound(r[0], var_a, within) or at_bound(r[1], var_b, within)):
                paired, var_d = unpaired_ci, apart
        out.update(a_ci95=ratio_interval(r[0], var_a, within, runs[0]),
                   b_ci95=ratio_interval(r[1], var_b, within, runs[1]), ci95=paired, unpaired_ci95=unpaired_ci,
                   variance_reduction=float(1 - var_d / apart) if apart > 0 else None)
        return out
