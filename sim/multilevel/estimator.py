"""The nested multilevel regression estimator from per-deal values of the levels (the
package's docstring has the formula), and its errors."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.ratio import SHARE, interval, spread
from sim.summary import Z95, wilson


class MultilevelError(ValueError):
    """Levels or controls that cannot be used: one line for the user."""


MIN_TARGET_DEALS = 3  # a variance and one fitted coefficient need them


@dataclass
class LevelData:
    """One run's per-deal (per-game) values of a metric: y and n of sum(y) / sum(n), over
    the run's first ``len(y)`` deals, and the seconds it took to play them (None: unknown)."""

    name: str
    y: np.ndarray
    n: np.ndarray
    seconds: float | None = None
    deals_key: tuple | None = None  # what makes deal i the same deal in every level: (seed, dealing)
    extra: np.ndarray | None = None  # more per-deal values of the level (its choices), means unknown

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise MultilevelError(f"a level's name is text, got {self.name!r:.60}")
        self.y, self.n = (_finite(v, f"level {self.name}: {what}") for v, what in ((self.y, "y"), (self.n, "n")))
        if self.y.shape != self.n.shape or self.y.ndim != 1:
            raise MultilevelError(f"level {self.name}: y and n must be two arrays of one length")
        if self.extra is not None:
            self.extra = _finite(self.extra, f"level {self.name}: extra")
            if len(self.extra) != len(self.y) or self.extra.ndim not in (1, 2):
                raise MultilevelError(f"level {self.name}: extra must hold a row of values per deal of y")
            self.extra = self.extra.reshape(len(self.y), -1)
        self.seconds = _seconds(self.seconds, f"level {self.name}")

    @property
    def deals(self) -> int:
        return len(self.y)

    def ratio(self, m: int) -> float:
        """The metric over the first ``m`` deals."""
        total = self.n[:m].sum()
        if total == 0:
            raise MultilevelError(f"level {self.name}: the metric has no value over its first {m:,} deals "
                                  f"(its divisor sums to 0)")
        return float(self.y[:m].sum() / total)

    def linearised(self) -> np.ndarray:
        """Per-deal (y - R n) / nbar over all its deals: a ratio's first-order influence."""
        r, nbar = self.ratio(self.deals), self.n.mean()
        return (self.y - r * self.n) / nbar

    def columns(self, m: int) -> list:
        """The level's control columns over its first ``m`` deals: its linearised metric,
        then its extra values."""
        cols = [self.linearised()[:m]]
        if self.extra is not None:
            cols += list(self.extra[:m].T)
        return cols

    def means(self, m: int) -> list:
        """What ``columns`` estimate over the first ``m`` deals: the metric, the extras' means."""
        out = [self.ratio(m)]
        if self.extra is not None:
            out += list(self.extra[:m].mean(axis=0))
        return out

    def take(self, m: int) -> "LevelData":
        """The level over its first ``m`` deals, its seconds in proportion."""
        return LevelData(self.name, self.y[:m], self.n[:m], None if self.seconds is None else
                         self.seconds * m / max(self.deals, 1), self.deals_key,
                         None if self.extra is None else self.extra[:m])


@dataclass
class Features:
    """Per-deal features (rows: deals 0.., columns: ``names``) with exactly known means."""

    names: tuple
    x: np.ndarray
    means: np.ndarray
    seconds: float | None = None

    def __post_init__(self):
        self.x, self.means = _finite(self.x, "the features' x"), _finite(self.means, "the features' means")
        if self.x.ndim != 2 or self.means.shape != (self.x.shape[1],) or len(self.names) != len(self.means):
            raise MultilevelError("the features: x holds a row per deal and a column per name, means one "
                                  "value per name")
        self.seconds = _seconds(self.seconds, "the features")

    @property
    def deals(self) -> int:
        return len(self.x)


def checked_levels(caller: str, target, controls, features) -> list:
    """``controls`` as a list, once the target is a LevelData, each control one and the
    features Features or None; a MultilevelError naming ``caller`` otherwise."""
    if isinstance(controls, (str, LevelData)) or not hasattr(controls, "__iter__"):
        raise MultilevelError(f"{caller} takes a list of control LevelData, got {type(controls).__name__}")
    controls = list(controls)  # a generator is read once
    if not isinstance(target, LevelData) or not all(isinstance(c, LevelData) for c in controls):
        raise MultilevelError(f"{caller} takes a target LevelData and a list of control LevelData")
    if features is not None and not isinstance(features, Features):
        raise MultilevelError(f"features must be Features or None, got {type(features).__name__}")
    return controls


def _finite(values, what: str) -> np.ndarray:
    """``values`` as an array of finite floats, else a MultilevelError naming ``what``."""
    try:
        if np.iscomplexobj(values):
            raise TypeError
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise MultilevelError(f"{what} must be numbers, got {values!r:.60}") from None
    if not np.all(np.isfinite(array)):
        raise MultilevelError(f"{what} holds a value that is no finite number (NaN or infinite)")
    return array


def _seconds(seconds, what: str) -> float | None:
    if seconds is None:
        return None
    if isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, (int, float, np.number)) \
            or not math.isfinite(seconds) or seconds < 0:
        raise MultilevelError(f"{what}: seconds must be a number of 0 or more, or None, got {seconds!r:.60}")
    return float(seconds)


def _regress(u0, v):
    """(coefficients, their sandwich covariance, R^2) of u0 on the columns of v (both
    centred here) by least squares; rank-deficient columns get a minimum-norm fit."""
    m = len(u0)
    uc = u0 - u0.mean()
    vc = v - v.mean(axis=0)
    # A column that does not vary over these deals explains nothing; its rounding noise left
    # in would be fitted with a huge coefficient and variance (an interval of +-1e17%).
    flat = np.abs(vc).max(axis=0, initial=0.0) <= 1e-9 * np.abs(v).max(axis=0, initial=0.0)
    vc[:, flat] = 0.0
    alpha, *_ = np.linalg.lstsq(vc, uc, rcond=None)
    resid = uc - vc @ alpha
    gram = np.linalg.pinv(vc.T @ vc)
    q = np.linalg.matrix_rank(vc) if vc.size else 0
    meat = (vc * resid[:, None] ** 2).T @ vc
    cov = gram @ meat @ gram * (m / max(m - q - 1, 1))
    total = uc @ uc
    r2 = 0.0 if total == 0 else float(1 - resid @ resid / total)
    return alpha, cov, r2, q


DEALS_PER_REGRESSOR = 25  # the target's deals per fitted coefficient, at least (else fewer regressors)


def lean(target: LevelData, controls, features):
    """The controls and features the estimate fits for the target's deals: every column
    while there are DEALS_PER_REGRESSOR target deals per coefficient; else the levels'
    metrics and the features; else the levels' metrics alone (with many coefficients on
    few deals the fit's own noise biases the estimate and narrows its interval: measured
    in docs/multilevel.md)."""
    m0 = target.deals
    nx = 0 if features is None else features.x.shape[1]
    full = sum(len(c.columns(1)) for c in controls) + nx
    if full * DEALS_PER_REGRESSOR <= m0 or not controls and nx * DEALS_PER_REGRESSOR <= m0:
        return list(controls), features, "all"
    bare = [LevelData(c.name, c.y, c.n, c.seconds, c.deals_key) for c in controls]
    if (len(bare) + nx) * DEALS_PER_REGRESSOR <= m0:
        return bare, features, "metrics and features" if features is not None else "metrics"
    return bare, None, "metrics"


def nested_estimate(target: LevelData, controls=(), features: Features | None = None,
                    influence: bool = False, within=None) -> dict:
    """The multilevel estimate of the target's metric (the module's docstring) from
    ``controls`` (LevelData of the same deals, each over at least as many deals as the
    target) and known-mean ``features`` (over at least the largest control's deals).

    Returns value, variance, ci95, the plain estimate over the target's deals with its
    variance, ``variance_saved`` (plain variance over the target's deals / this
    variance), ``plain_deals`` (the target deals a plain run would need for this
    variance), each step's sizes, coefficients and R^2, and the estimator's name. With
    ``influence``: also each deal's influence on the estimate and the segments' bounds, for
    estimate_difference (numpy arrays: not for JSON). ``within``: the range of the metric's
    values (a rate's 0 to 1), which its intervals are cut to (sim.ratio.interval)."""
    controls = sorted(checked_levels("nested_estimate", target, controls, features), key=lambda c: c.deals)
    m0 = target.deals
    controls, features, regressors = lean(target, controls, features)
    for c in controls:
        if None not in (c.deals_key, target.deals_key) and c.deals_key != target.deals_key:
            raise MultilevelError(f"levels {target.name} and {c.name} do not play the same deals (their seed or "
                                  f"dealing differ): a multilevel estimate pairs deal i of every level")
    if m0 < MIN_TARGET_DEALS:
        raise MultilevelError(f"the target level needs at least {MIN_TARGET_DEALS} deals")
    for c in controls:
        if c.deals < m0:
            raise MultilevelError(f"control {c.name} plays {c.deals:,} deals, fewer than the target's {m0:,}")
    sizes = [m0] + [c.deals for c in controls]
    biggest = sizes[-1]
    if features is not None and features.deals < biggest:
        raise MultilevelError(f"the hand features cover {features.deals:,} deals, fewer than {biggest:,}")
    u0 = target.linearised()
    us = [c.linearised() for c in controls]
    value = target.ratio(m0)
    psi = np.zeros(biggest)
    psi[:m0] += u0 / m0
    coefficient_var = 0.0
    steps = []
    fitted = 0
    for k in range(1, len(sizes) + (features is not None)):
        last = k == len(sizes)  # the features' step: their known means
        lo = sizes[k - 1]
        hi = None if last else sizes[k]
        if not last and hi == lo:
            continue
        # The step's controls: every level observed on its deals, then the features.
        cols = [] if last else [col for j in range(k, len(sizes)) for col in controls[j - 1].columns(hi)]
        if features is not None:
            cols += list(features.x[:(lo if last else hi)].T)
        v = np.column_stack(cols)
        alpha, cov, r2, q = _regress(u0, v[:m0])
        fitted = max(fitted, q)
        if last:
            step_means = [float(x) for x in features.x[:lo].mean(axis=0)]
            diff = np.asarray(step_means) - features.means
            d_lin = diff
        else:
            ratios_lo = [x for j in range(k, len(sizes)) for x in controls[j - 1].means(lo)]
            ratios_hi = [x for j in range(k, len(sizes)) for x in controls[j - 1].means(hi)]
            if features is not None:
                ratios_lo += list(features.x[:lo].mean(axis=0))
                ratios_hi += list(features.x[:hi].mean(axis=0))
            diff = np.asarray(ratios_lo) - np.asarray(ratios_hi)
            d_lin = v[:lo].mean(axis=0) - v.mean(axis=0)
        value -= float(alpha @ diff)
        term = v @ alpha
        psi[:lo] -= term[:lo] / lo
        if not last:
            psi[:hi] += term / hi
        coefficient_var += float(d_lin @ cov @ d_lin)
        names = ([] if last else [f"{controls[j - 1].name}{'' if i == 0 else f' choice {i}'}"
                                  for j in range(k, len(sizes)) for i in range(len(controls[j - 1].columns(1)))]) \
            + (list(features.names) if features is not None else [])
        steps.append({"deals": [lo, hi], "controls": names, "coefficients": [float(a) for a in alpha],
                      "r2": r2})
    warnings = []
    if controls and u0.std() == 0:
        warnings.append(f"the target's values are the same on all its {m0:,} deals: no control can narrow an "
                        "interval of no width")
    else:
        for c, u in zip(controls, us):
            r = float(np.corrcoef(u0, u[:m0])[0, 1]) if u[:m0].std() > 0 else 0.0
            z = math.atanh(min(abs(r), 0.999999)) * math.sqrt(max(m0 - 3, 1))
            if z < 3:
                warnings.append(f"{c.name} hardly correlates with the target on their {m0:,} shared deals "
                                f"(r = {r:+.3f}): it saves nothing; are its deals the target's?")
    bounds = sorted(set(sizes))
    variance = _segment_variance(psi, bounds, fitted) + coefficient_var
    plain_var = float(u0.var(ddof=1) / m0)
    plain_value = target.ratio(m0)
    half = Z95 * math.sqrt(max(variance, 0.0))  # uncut, as --until reads it: the interval below may be cut
    trials = float(target.n[:m0].sum())
    out = {"estimator": estimator_name(controls, features), "value": value, "variance": variance,
           "ci95": _rate_interval(value, variance, within, trials), "half_width": half,
           "plain_value": plain_value, "plain_variance": plain_var,
           "plain_ci95": _rate_interval(plain_value, plain_var, within, trials), "within": within,
           "variance_saved": plain_var / variance if variance > 0 else None,
           "plain_deals": m0 * plain_var / variance if variance > 0 else None,
           "coefficient_variance": coefficient_var,
           "levels": [{"name": target.name, "deals": m0, "seconds": target.seconds, "value": target.ratio(m0)}]
           + [{"name": c.name, "deals": c.deals, "seconds": c.seconds, "value": c.ratio(c.deals)} for c in controls]
           + ([{"name": "hand features: " + ", ".join(features.names), "deals": features.deals,
                "seconds": features.seconds, "value": None}] if features is not None else []),
           "steps": steps, "warnings": warnings, "regressors": regressors}
    seconds = [lv["seconds"] for lv in out["levels"]]
    if all(s is not None for s in seconds) and target.seconds:
        total = sum(seconds)
        plain_at_equal_time = float(u0.var(ddof=1)) * (target.seconds / m0) / total
        out.update(seconds=total, equal_time_saved=plain_at_equal_time / variance if variance > 0 else None)
    if influence:
        out.update(influence=psi, segments=bounds, fitted=fitted, target_y=target.y, target_n=target.n,
                   deals_key=target.deals_key)
    return out


def _rate_interval(value, variance, within, trials) -> list[float]:
    """The 95% interval of ``value`` (sim.ratio.interval); a rate at 0 or 1 with no spread
    at all (no contract failed among the target's deals) takes the Wilson interval of its
    ``trials`` instead, as a plain run's rate does: no width is what so few cannot show."""
    if variance == 0 and within == SHARE and value in (0.0, 1.0) and trials > 0:
        return wilson(value * trials, trials)
    return interval(value, variance, within)


def estimate_difference(a: dict, b: dict) -> dict:
    """b - a for two estimates of nested_estimate(influence=True) over the same deals (the
    same seed and dealing, as the settings of a sweep), paired deal by deal: a deal's
    influence on b minus its influence on a, whose variance is summed over the segments of
    deals both estimates treat alike, plus both estimates' coefficient variances. Returns
    diff, variance, ci95 and ``unpaired_variance`` (a's variance plus b's). A
    MultilevelError where the two cannot be paired: an estimate without its deals'
    influences, or estimates of other seeds' deals (dealing conditions may differ: deal i
    of a seed shares its shuffle under any of them)."""
    for name, e in (("a", a), ("b", b)):
        if not isinstance(e, dict) or not {"influence", "segments", "fitted", "value", "variance",
                                           "coefficient_variance"} <= set(e):
            what = "made without it" if isinstance(e, dict) else f"{type(e).__name__}"
            raise MultilevelError(f"estimate_difference pairs estimates of nested_estimate(..., influence=True), "
                                  f"which hold each deal's influence; {name} is {what}")
    if None not in (a.get("deals_key"), b.get("deals_key")) and a["deals_key"][0] != b["deals_key"][0]:
        raise MultilevelError("the two estimates are of other deals (their seeds differ): a paired difference "
                              "needs deal i to be dealt from the same shuffle in both")
    size = max(len(a["influence"]), len(b["influence"]))
    d = np.zeros(size)
    d[:len(b["influence"])] += b["influence"]
    d[:len(a["influence"])] -= a["influence"]
    variance = _segment_variance(d, set(a["segments"]) | set(b["segments"]), max(a["fitted"], b["fitted"]))
    diff = b["value"] - a["value"]
    if diff != 0 or d.any():  # one estimate twice (a folder with itself): the same fit's errors cancel whole
        variance += a["coefficient_variance"] + b["coefficient_variance"]
    return {"diff": diff, "variance": variance, "ci95": interval(diff, variance, spread(a.get("within"))),
            "unpaired_variance": a["variance"] + b["variance"]}


def _segment_variance(d, segments, fitted) -> float:
    """The variance of a sum over deals of ``d``, independent and alike within each segment
    (bounds ``segments``), the first corrected for ``fitted`` coefficients."""
    variance, start = 0.0, 0
    for end in sorted(segments):
        seg = d[start:end]
        if len(seg) >= 2:
            var = seg.var(ddof=1) * len(seg)
            if start == 0 and fitted:
                var *= (len(seg) - 1) / max(len(seg) - 1 - fitted, 1)
            variance += var
        start = end
    return variance


def stratified_estimate(weights, estimates) -> dict:
    """A stratified ratio R = sum_h w_h Y_h / sum_h w_h N_h from each stratum's estimate of
    nested_estimate(influence=True) (independent strata, each its own seed): stratum h's
    ratio R_h by its multilevel estimate, its mean divisor N_h by the target's deals. To
    first order R - R_true = sum_h w_h (N_h dR_h + (R_h - R) dN_h) / N, N = sum_h w_h N_h,
    so each deal's influence is w_h (N_h psi_h + (R_h - R)(n - N_h)/m0) / N, its variance
    summed over each stratum's segments, plus the coefficients' variances weighted by
    (w_h N_h / N)^2. With a divisor of 1 per deal this is sum_h w_h R_h with variance
    sum_h w_h^2 Var(R_h). Returns value, variance, ci95."""
    weights = [float(w) for w in weights]
    nbar = [float(np.mean(e["target_n"])) for e in estimates]
    total = sum(w * nb for w, nb in zip(weights, nbar))
    if total == 0:
        raise MultilevelError("the metric has no value in any stratum (its divisor sums to 0)")
    value = sum(w * nb * e["value"] for w, nb, e in zip(weights, nbar, estimates)) / total
    variance = 0.0
    for w, nb, e in zip(weights, nbar, estimates):
        n = np.asarray(e["target_n"], dtype=np.float64)
        d = nb * np.asarray(e["influence"], dtype=np.float64)
        d[:len(n)] += (e["value"] - value) * (n - nb) / len(n)
        variance += (w / total) ** 2 * (_segment_variance(d, e["segments"], e["fitted"])
                                        + nb * nb * e["coefficient_variance"])
    return {"value": value, "variance": variance, "ci95": interval(value, variance, estimates[0].get("within"))}

def estimator_name(controls, features) -> str:
    if not controls and features is None:
        return "plain mean"
    parts = []
    if controls:
        parts.append("multilevel over " + " < ".join(f"{c.name} ({c.deals:,})" for c in controls))
    if features is not None:
        parts.append("hand-feature control variates")
    return " with ".join(parts) + ", fitted coefficients"
