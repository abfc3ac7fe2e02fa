"""Strong-player answers at cheap-player cost: multilevel estimates with control variates.

    python -m sim.run --deals 2000 --policy all=pimc --control all=heuristic --control-deals 200000
    python -m sim.run --deals 2000 --policy all=pimc --control all=heuristic --control hand

Deal i of a seed is the same deal for every policy, so a strong policy's deal run and a
cheap policy's deal run of the same seed pair deal by deal, and the cheap run's first
deals are the strong run's deals. A *level* is one such run of the same seed and dealing:
the target (the strong policies, ``--policy``) on m0 deals and controls on m1 <= m2 <= ...
deals (``--control``: other policies; ``dd:`` a run valued double dummy, its contracts
scored by the game's rules on the double-dummy tricks; ``hand``: features of the hands as
dealt whose means follow exactly from the deck, no run at all).

The estimator (a nested multilevel regression estimator, "multifidelity Monte Carlo" with
fitted coefficients; Peherstorfer, Willcox and Gunzburger 2016) of a metric's value R0:

    R0_hat = R0(m0) - sum_k alpha_k' (V_k(m_{k-1}) - V_k(m_k)) - alpha_x' (x(m_K) - mu)

V_k(m) is the vector of the metric's value over the first m deals for every control level
k..K and the mean of the hand features x; mu the features' exact means. Each step compares
two nested prefixes of the same deals, so the steps are uncorrelated and each coefficient
vector alpha_k is the regression of the target's per-deal value on the step's controls,
fitted on the m0 deals the target played. With alpha = 1 and one control this is the
textbook two-level estimate E[cheap] over m1 deals + E[strong - cheap] over m0 paired
deals; the fitted alpha is never worse. The variance is the sum over the segments of deals
[m_{j-1}, m_j), independent of each other, of their per-deal influence terms' variance
(heteroskedasticity-robust, with a degrees-of-freedom correction for the coefficients),
plus the fitted coefficients' own variance (a sandwich estimate) times the observed step
differences. A ratio metric (sum y / sum n) is linearised as sim.ratio does it. A played
control of a contract game brings its choices and outcomes as more columns
(choice_columns); with fewer than DEALS_PER_REGRESSOR target deals per coefficient the
estimate fits fewer columns (``lean``).

With R_k^2 the squared multiple correlation of the target with step k's controls and w_k
a level's seconds per deal, the variance is s0^2 [(1 - R_1^2)/m0 + sum_j (R_j^2 -
R_{j+1}^2)/m_j], which a budget of T seconds minimises at m_j proportional to
sqrt(a_j / w_j), a_j the bracket's coefficients (levels that would break the nesting
pooled): the variance is then s0^2 (sum_j sqrt(a_j w_j))^2 / T, against s0^2 w0 / T for
plain target deals (``allocation``). docs/multilevel.md has the measurements.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.summary import Z95


class MultilevelError(ValueError):
    """Levels or controls that cannot be used: one line for the user."""


# --- The estimator -------------------------------------------------------------------------------

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
        self.y = np.asarray(self.y, dtype=np.float64)
        self.n = np.asarray(self.n, dtype=np.float64)
        if self.extra is not None:
            self.extra = np.asarray(self.extra, dtype=np.float64).reshape(len(self.y), -1)
        if self.y.shape != self.n.shape or self.y.ndim != 1:
            raise MultilevelError(f"level {self.name}: y and n must be two arrays of one length")

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

    @property
    def deals(self) -> int:
        return len(self.x)


def _regress(u0, v):
    """(coefficients, their sandwich covariance, R^2) of u0 on the columns of v (both
    centred here) by least squares; rank-deficient columns get a minimum-norm fit."""
    m = len(u0)
    uc = u0 - u0.mean()
    vc = v - v.mean(axis=0)
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
        return bare, features, "metrics and features"
    return bare, None, "metrics"


def nested_estimate(target: LevelData, controls=(), features: Features | None = None) -> dict:
    """The multilevel estimate of the target's metric (the module's docstring) from
    ``controls`` (LevelData of the same deals, each over at least as many deals as the
    target) and known-mean ``features`` (over at least the largest control's deals).

    Returns value, variance, ci95, the plain estimate over the target's deals with its
    variance, ``variance_saved`` (plain variance over the target's deals / this
    variance), ``plain_deals`` (the target deals a plain run would need for this
    variance), each step's sizes, coefficients and R^2, and the estimator's name."""
    controls = sorted(controls, key=lambda c: c.deals)
    m0 = target.deals
    controls, features, regressors = lean(target, controls, features)
    for c in controls:
        if None not in (c.deals_key, target.deals_key) and c.deals_key != target.deals_key:
            raise MultilevelError(f"levels {target.name} and {c.name} do not play the same deals (their seed or "
                                  f"dealing differ): a multilevel estimate pairs deal i of every level")
    if m0 < 3:
        raise MultilevelError("the target level needs at least 3 deals")
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
    for c, u in zip(controls, us):
        r = float(np.corrcoef(u0, u[:m0])[0, 1]) if u0.std() > 0 and u[:m0].std() > 0 else 0.0
        z = math.atanh(min(abs(r), 0.999999)) * math.sqrt(max(m0 - 3, 1))
        if z < 3:
            warnings.append(f"{c.name} hardly correlates with the target on their {m0:,} shared deals "
                            f"(r = {r:+.3f}): it saves nothing; are its deals the target's?")
    variance = 0.0
    bounds = sorted(set(sizes))
    start = 0
    for end in bounds:
        seg = psi[start:end]
        if len(seg) >= 2:
            var = seg.var(ddof=1) * len(seg)
            if start == 0 and fitted:
                var *= (len(seg) - 1) / max(len(seg) - 1 - fitted, 1)
            variance += var
        start = end
    variance += coefficient_var
    plain_var = float(u0.var(ddof=1) / m0)
    plain_value = target.ratio(m0)
    half = Z95 * math.sqrt(max(variance, 0.0))
    out = {"estimator": estimator_name(controls, features), "value": value, "variance": variance,
           "ci95": [value - half, value + half], "half_width": half,
           "plain_value": plain_value, "plain_variance": plain_var,
           "plain_ci95": [plain_value - Z95 * math.sqrt(plain_var), plain_value + Z95 * math.sqrt(plain_var)],
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
    return out


def estimator_name(controls, features) -> str:
    if not controls and features is None:
        return "plain mean"
    parts = []
    if controls:
        parts.append("multilevel over " + " < ".join(f"{c.name} ({c.deals:,})" for c in controls))
    if features is not None:
        parts.append("hand-feature control variates")
    return " with ".join(parts) + ", fitted coefficients"


# --- Allocation --------------------------------------------------------------------------------

def _r2(u0, cols) -> float:
    """R^2 of u0 on ``cols``, adjusted for the columns fitted (a pilot has few deals)."""
    if not cols:
        return 0.0
    _, _, r2, q = _regress(u0, np.column_stack(cols))
    m = len(u0)
    return max(0.0, 1 - (1 - r2) * (m - 1) / max(m - q - 1, 1))


def allocation(target: LevelData, controls=(), features: Features | None = None) -> dict:
    """The best hierarchy among the subsets of ``controls`` (with the features, if given)
    and its deals per level, from a pilot: every level over the same deals (the target's),
    with their seconds. Returns per hierarchy the variance saved at equal wall time,
    w0 / (sum_j sqrt(a_j w_j))^2, and for the best its ratios m_j / m0 and the seconds a
    target deal stands for (``seconds_per_unit_variance``: T * Var / s0^2)."""
    m0 = target.deals
    if target.seconds is None or any(c.seconds is None for c in controls):
        raise MultilevelError("the allocation needs each level's seconds")
    u0 = target.linearised()
    s0 = float(u0.var(ddof=1))
    w0 = target.seconds / m0
    us = [c.columns(m0) for c in controls]
    ws = [c.seconds / c.deals for c in controls]
    fx = [] if features is None else list(features.x[:m0].T)
    wx = 0.0 if features is None or features.seconds is None else features.seconds / features.deals
    options = []
    for size in range(len(controls) + 1):
        for subset in itertools.combinations(range(len(controls)), size):
            # Cheapest last: the hierarchy nests the dearer levels' deals in the cheaper ones'.
            chain = sorted(subset, key=lambda j: -ws[j])
            r2 = [_r2(u0, [col for j in chain[k:] for col in us[j]] + fx) for k in range(len(chain))]
            r2x = _r2(u0, fx)
            r2_all = r2 + [r2x]
            a = [1 - (r2_all[0] if chain else r2x)] + [r2_all[k] - r2_all[k + 1] for k in range(len(chain))]
            w = [w0] + [ws[j] + (wx if k == len(chain) - 1 else 0.0) for k, j in enumerate(chain)]
            if not chain:
                w[0] += wx
            a = [max(x, 0.0) for x in a]
            ratios, cost = _pooled(a, w)
            if ratios is None:
                continue
            options.append({"levels": [target.name] + [controls[j].name for j in chain]
                            + (["hand features"] if features is not None else []),
                            "ratios": ratios, "r2": r2_all if chain else [r2x],
                            "seconds_per_deal": w, "equal_time_saved": w0 / cost if cost > 0 else math.inf,
                            "seconds_per_unit_variance": cost, "chain": list(chain)})
    options.sort(key=lambda o: -o["equal_time_saved"])
    return {"target_sd": math.sqrt(s0), "target_seconds_per_deal": w0, "options": options, "best": options[0]}


def _pooled(a, w):
    """Deals per level relative to the target's, m_j / m0, minimising sum_j a_j / m_j at a
    cost sum_j w_j m_j, under m0 <= m1 <= ...: sqrt(a_j / w_j) up to a factor, with adjacent
    levels that would break the order pooled to play the same deals (their a and w
    added). Returns (ratios, (sum over pools of sqrt(a w))^2), or (None, None) when the
    target's own term is 0."""
    pools = []  # [a, w, members]
    for k, (ak, wk) in enumerate(zip(a, w)):
        pools.append([ak, wk, [k]])
        while len(pools) > 1 and pools[-1][0] * pools[-2][1] < pools[-2][0] * pools[-1][1]:
            last = pools.pop()
            pools[-1] = [pools[-1][0] + last[0], pools[-1][1] + last[1], pools[-1][2] + last[2]]
    if pools[0][0] <= 0:
        return None, None
    base = math.sqrt(pools[0][0] / pools[0][1])
    ratios = [0.0] * len(a)
    for pa, pw, members in pools:
        for k in members:
            ratios[k] = math.sqrt(pa / pw) / base
    return ratios, sum(math.sqrt(pa * pw) for pa, pw, _ in pools) ** 2


def sizes_for(best: dict, target_sd: float, half_width: float) -> list[int]:
    """Deals per level of an allocation option (``allocation``) whose 95% half-width is
    ``half_width``: T = s0^2 cost / (W / 1.96)^2 seconds, m_j = sqrt(a_j / w_j) T / S."""
    var = (half_width / Z95) ** 2
    seconds = target_sd ** 2 * best["seconds_per_unit_variance"] / var
    # m0 = T sqrt(a0/w0) / S with S = sum sqrt(a_j w_j); here from the ratios: sum_j w_j m_j = T.
    m0 = seconds / sum(r * w for r, w in zip(best["ratios"], best["seconds_per_deal"]))
    return [max(3, math.ceil(m0 * r)) for r in best["ratios"]]


# --- Hand features with known means ------------------------------------------------------------

def _mix64(z):
    from kernels.rng import _M1, _M2

    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def dealt_orders(seed: int, first: int, count: int) -> np.ndarray:
    """The 55-card order of the first shuffle of deals ``first .. first+count-1`` of a
    Bridgette run of ``seed`` (kernels.rng's streams, kernels.bridgette.deal_cards_nb's
    Fisher-Yates, after the first dealer's draw), in numpy, many deals at once."""
    from kernels.rng import _GAMMA, _STREAM_KEY

    with np.errstate(over="ignore"):
        key = _mix64(np.asarray([seed], dtype=np.uint64) ^ _STREAM_KEY)
        state = _mix64(key + np.arange(first, first + count, dtype=np.uint64) * _GAMMA)

        def below(n):
            nonlocal state
            state = state + _GAMMA
            hi = _mix64(state) >> np.uint64(32)
            return ((hi * np.uint64(n)) >> np.uint64(32)).astype(np.int64)

        below(2)  # the first dealer's draw, made in a deal run too
        order = np.tile(np.arange(55, dtype=np.int8), (count, 1))
        rows = np.arange(count)
        for i in range(54, 0, -1):
            j = below(i + 1)
            held = order[rows, i].copy()
            order[rows, i] = order[rows, j]
            order[rows, j] = held
    return order


HAND_FEATURES = ("hcp", "aces", "little", "royal", "grand", "longest", "up_face", "up_ace", "up_colon",
                 "hcp_x_face", "hcp_x_ace")


def hand_features(rules, seed: int, count: int) -> Features:
    """Features of the first ``count`` deals of an unconditioned Bridgette deal run of
    ``seed`` as dealt, from the dealer's side (B-2: the non-dealer is dealt first, so the
    dealer holds the even places' neighbours): high-card points, aces, each Colon (+1 the
    dealer holds it, -1 the non-dealer) and the longest suit, each the dealer's minus the
    non-dealer's, whose mean is exactly 0 because the two hands are exchangeable, also
    given the up-card; the up-card's class (B-3: face, ace, a Colon), whose mean is its
    share of the deck; and points times the up-card's class, mean 0 again."""
    from kernels.cards import CARD_CLASS, HCP

    began = time.perf_counter()
    deck = [int(c) for c in rules.to_kernel().deck]
    order = dealt_orders(seed, 0, count).astype(np.int64)
    if len(deck) < 55:  # the kernel keeps the deck's cards of the 55 shuffled, in order
        keep = np.isin(order, deck)
        order = order[keep].reshape(count, len(deck))
    nondealer, dealer = order[:, 0:26:2], order[:, 1:26:2]
    up = order[:, 26]
    points = np.array([HCP[c % 13] if c < 52 else 0 for c in range(55)], dtype=np.int64)
    ace = np.array([c < 52 and c % 13 == 12 for c in range(55)])

    def diff(table):
        return table[dealer].sum(axis=1) - table[nondealer].sum(axis=1)

    cols = {"hcp": diff(points).astype(float), "aces": diff(ace.astype(np.int64)).astype(float)}
    for name, card in (("little", 52), ("royal", 53), ("grand", 54)):
        cols[name] = diff((np.arange(55) == card).astype(np.int64)).astype(float)

    def longest(hand):
        suits = np.where(hand < 52, hand // 13, 4)
        return np.stack([(suits == s).sum(axis=1) for s in range(4)]).max(axis=0)

    cols["longest"] = (longest(dealer) - longest(nondealer)).astype(float)
    up_class = np.where(up < 52, CARD_CLASS[np.minimum(up, 54)], -1)
    colon_class = CARD_CLASS[np.clip(up, 52, 54)]
    klass = np.where(up < 52, up_class, colon_class)  # B-3: a Colon draws as its range's class
    cols["up_face"] = (klass == 1).astype(float)
    cols["up_ace"] = (klass == 2).astype(float)
    cols["up_colon"] = (up >= 52).astype(float)
    cols["hcp_x_face"] = cols["hcp"] * cols["up_face"]
    cols["hcp_x_ace"] = cols["hcp"] * cols["up_ace"]
    n_deck = len(deck)
    share = {k: sum(1 for c in deck if int(CARD_CLASS[c]) == k) / n_deck for k in (1, 2)}
    means = {"up_face": share[1], "up_ace": share[2], "up_colon": sum(1 for c in deck if c >= 52) / n_deck}
    names = tuple(n for n in HAND_FEATURES if not (n in ("little", "royal", "grand", "up_colon")
                                                   and not any(c >= 52 for c in deck)
                                                   or n in ("little", "royal", "grand")
                                                   and {"little": 52, "royal": 53, "grand": 54}[n] not in deck))
    x = np.column_stack([cols[n] for n in names])
    mu = np.array([means.get(n, 0.0) for n in names])
    return Features(names, x, mu, time.perf_counter() - began)


# --- Levels and their runs ---------------------------------------------------------------------

@dataclass(frozen=True)
class Level:
    """A control level: ``policies`` (seat specs as --policy takes them) on the same deals,
    ``dd`` its contracts scored on their double-dummy tricks, or the ``hand`` features."""

    text: str
    kind: str  # "policies", "dd" or "hand"
    policies: tuple = ()

    @property
    def name(self) -> str:
        return self.text


def parse_level(text: str) -> Level:
    """``all=heuristic``, ``0=pimc:worlds=2;1=heuristic`` (seats apart by ';'),
    ``dd:all=heuristic`` (``dd`` alone: the heuristic's) or ``hand``."""
    text = str(text).strip()
    if text == "hand":
        return Level("hand", "hand")
    kind = "policies"
    body = text
    if text == "dd" or text.startswith("dd:"):
        kind, body = "dd", text[3:] or "all=heuristic"
    seats = tuple(s.strip() for s in body.split(";") if s.strip())
    if not seats or not all("=" in s for s in seats):
        raise MultilevelError(f"--control needs SEAT=POLICY[;SEAT=POLICY...], dd:SEAT=POLICY or hand, got '{text}'")
    return Level(text, kind, seats)


def dd_scored(game: str, rules, deals):
    """Deal rows of a --dd run as if each contract reached had been played double dummy:
    the declarer takes the contract's double-dummy tricks, and both scores follow from the
    game's scoring (the referee's score_deal, tied to the kernels' score tables by the
    differential tests); passed-out deals are unchanged."""
    from kernels.calls import BID_LEVEL, BID_STRAIN
    from sim.par import STRAINS, _game

    score_deal = _game(rules)[0]
    out = deals.copy()
    contract = out["contract"].astype(np.int64)
    tricks = out["dd_tricks"].astype(np.int64)
    played = (contract >= 0) & (tricks >= 0)
    cache = {}
    for i in np.flatnonzero(played):
        key = (int(contract[i]), int(out["doubled"][i]), int(tricks[i]))
        if key not in cache:
            cache[key] = score_deal(rules, int(BID_LEVEL[key[0]]), STRAINS[int(BID_STRAIN[key[0]])], key[1], key[2])
        gain, loss = cache[key]
        declarer = int(out["declarer"][i])
        out[f"score{declarer}"][i], out[f"score{1 - declarer}"][i] = gain, loss
        out[f"tricks{declarer}"][i], out[f"tricks{1 - declarer}"][i] = tricks[i], 13 - tricks[i]
    return out


def score_table(rules) -> np.ndarray:
    """(declarer's score, the other's) of every contract and trick count under ``rules``:
    an array [level 0..7, strain C D H S NT, doubled 0..2, declarer tricks 0..13, 2] from the
    referee's score_deal (sim.par's choice of it for the game); bids the game has not are 0."""
    from sim.par import STRAINS, _game

    score_deal = _game(rules)[0]
    out = np.zeros((8, 5, 3, 14, 2), dtype=np.int64)
    for level in range(8):
        for s, strain in enumerate(STRAINS):
            for doubled in range(3):
                for tricks in range(14):
                    try:
                        out[level, s, doubled, tricks] = score_deal(rules, level, strain, doubled, tricks)
                    except ValueError:  # a bid the game does not have (0C, Draw Bridge's 0NT)
                        pass
    return out


TRICK_SHIFTS = (-2, -1, 1, 2)  # the level's tricks moved by these, in its outcome columns
CONTRACT_SHIFTS = (-2, -1, 0, 1)  # the contract's tricks needed, moved by these


def choice_columns(dealer, declarer, level, doubled, declarer_tricks, strain=None, scores=None) -> np.ndarray:
    """A contract game's per-deal choices and outcomes of a level, from the dealer's side
    (one row per deal): whether the dealer declared (+1), the other did (-1) or the deal
    was passed out (0), and that sign times the contract's level, its being made, its
    doubling and the declarer's tricks above the contract; with ``strain`` (0..4) and
    ``scores`` (score_table), the dealer's advantage had the declarer taken the level's
    tricks moved by each of TRICK_SHIFTS, and the contract's tricks needed moved by each of
    CONTRACT_SHIFTS. They say what the level's players did on the cards and how much a
    trick more or less was worth there, so they help predict a stronger player's result on
    the same cards; being a level's values, their means are estimated as its metric's."""
    level = np.asarray(level, dtype=np.int64)
    played = level >= 0
    declarer = np.asarray(declarer, dtype=np.int64)
    dealer = np.asarray(dealer, dtype=np.int64)
    doubled = np.asarray(doubled, dtype=np.int64)
    tricks = np.asarray(declarer_tricks, dtype=np.int64)
    sign = np.where(played, np.where(declarer == dealer, 1.0, -1.0), 0.0)
    over = np.where(played, tricks - 6 - level, 0)
    made = played & (over >= 0)
    cols = [sign, sign * np.maximum(level, 0), sign * made, sign * doubled, sign * over, played.astype(float)]
    if scores is not None:
        lv, st = np.maximum(level, 0), np.maximum(np.asarray(strain, dtype=np.int64), 0)
        dbl = np.clip(doubled, 0, 2)

        def advantage(t):
            pair = scores[lv, st, dbl, np.clip(t, 0, 13)]
            return np.where(played, sign * (pair[:, 0] - pair[:, 1]), 0.0)

        cols += [advantage(tricks + k) for k in TRICK_SHIFTS]
        cols += [advantage(6 + lv + k) for k in CONTRACT_SHIFTS]
    return np.column_stack(cols)


def _row_choices(deals, scores) -> np.ndarray | None:
    """choice_columns of kernel deal rows; None for a game without a declarer (Bid Euchre)."""
    names = deals.dtype.names
    if "contract" not in names or "declarer" not in names:
        return None
    from kernels.calls import BID_LEVEL, BID_STRAIN

    contract = deals["contract"].astype(np.int64)
    level = np.where(contract >= 0, BID_LEVEL[np.maximum(contract, 0)], -1)
    strain = np.where(contract >= 0, BID_STRAIN[np.maximum(contract, 0)], 0)
    tricks = np.where(deals["declarer"] == 0, deals["tricks0"], deals["tricks1"])
    return choice_columns(deals["dealer"], deals["declarer"], level, deals["doubled"], tricks, strain, scores)


class _TableSchema:
    """A chunk's Arrow tables seen as a run for sim.metrics.custom_metric (its columns)."""

    def __init__(self, deals, games):
        from sim.run_records import table_columns

        import pyarrow as pa

        def columns(table):
            texts = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
            return table_columns(table.schema, table.select(texts) if texts else None)

        self._schema = {"deals": columns(deals), "games": columns(games)}
        self.records, self.path = "deals", "the level's deals"

    def schema(self):
        return self._schema

    def has(self, kind):
        return True


class LevelPlayer:
    """Plays deals of one level in chunks and keeps each metric's per-deal y and n."""

    def __init__(self, game, rules, policies, seed, plan, dd, metrics, name):
        from sim.games import game_info, game_module

        self.game, self.rules, self.policies, self.seed, self.plan = game, rules, policies, seed, plan
        self.dd, self.metrics, self.name = dd, list(metrics), name
        self.module, self.info = game_module(game), game_info(game)
        self.bound = [None if _is_custom(m) else m for m in self.metrics]
        self.values = [(np.zeros(0), np.zeros(0)) for _ in self.metrics]
        self.choices = None  # choice_columns of the deals played, for contract games
        self.use_choices = True
        self.scores = None
        self.seconds = 0.0
        self.largest = (0, 0.0)  # (deals, seconds) of the largest chunk played: the cost per deal
        self.warm = False

    @property
    def deals(self) -> int:
        return len(self.values[0][0])

    def _values(self, first, count):
        deals, games = self.module.run_block(self.rules, self.policies, self.seed, first, count, bool(self.dd),
                                             self.plan)
        if self.dd:
            deals = dd_scored(self.game, self.rules, deals)
        if self.scores is None and self.game != "bid-euchre":
            self.scores = score_table(self.rules)
        rows = _row_choices(deals, self.scores)
        if rows is not None and len(rows) != count:
            self.use_choices, rows = False, None
        if rows is not None:
            order = np.argsort(deals["game"], kind="stable")  # one counted deal per game in a deal run
            self.choices = rows[order] if self.choices is None else np.concatenate([self.choices, rows[order]])
        tables = (self.module.deal_table(self.rules, deals, self.policies), self.module.game_table(games))
        out = []
        for k, metric in enumerate(self.metrics):
            if self.bound[k] is None:
                from sim.metrics import custom_metric

                self.bound[k] = custom_metric(metric, [_TableSchema(*tables)])
            m = self.bound[k]
            if m.definition is not None:
                out.append(m.per_game(self.info, *tables, first, count))
            else:  # as sim.run_records reads a builtin metric's columns
                kind = 0 if m.records == "deals" else 1
                cols = {c: tables[kind].column(c).to_numpy(zero_copy_only=False)
                        for c in ["game", *m.columns_for(self.game)]}
                out.append(m.per_game(self.info, cols if kind == 0 else None, cols if kind == 1 else games,
                                      first, count))
        return out

    def key(self) -> str:
        """What the level's deals are a pure function of: a saved level is resumed only
        when this is the same."""
        return json.dumps({"game": self.game, "rules": self.rules.to_dict(), "policies": [str(p) for p in self.policies],
                           "seed": self.seed, "plan": self.plan.tobytes().hex(), "dd": bool(self.dd),
                           "metrics": [getattr(m, "text", None) or m.name for m in self.metrics]}, sort_keys=True)

    def save(self, path: Path) -> None:
        """The deals played so far, their values and time, into ``path`` (whole or not at all)."""
        import io

        from sim.store import write_atomic

        arrays = {f"y{k}": y for k, (y, _) in enumerate(self.values)}
        arrays.update({f"n{k}": n for k, (_, n) in enumerate(self.values)})
        if self.choices is not None:
            arrays["choices"] = self.choices
        buffer = io.BytesIO()
        np.savez(buffer, key=np.array(self.key()), seconds=np.array([self.seconds, *self.largest]),
                 use_choices=np.array(self.use_choices), **arrays)
        write_atomic(path, buffer.getvalue())

    def resume(self, path: Path) -> bool:
        """Take the deals ``path`` holds when it was saved by this same level."""
        try:
            with np.load(path) as held:
                if str(held["key"]) != self.key():
                    return False
                self.values = [(held[f"y{k}"], held[f"n{k}"]) for k in range(len(self.metrics))]
                self.choices = held["choices"] if "choices" in held.files else None
                self.use_choices = bool(held["use_choices"])
                self.seconds, count, spent = (float(x) for x in held["seconds"])
                self.largest = (int(count), spent)
        except (OSError, ValueError, KeyError):
            return False
        return True

    def play_to(self, deals: int, chunk: int = 20_000, store: Path | None = None) -> None:
        """Play on until the first ``deals`` deals are held, in chunks of at most ``chunk``
        deals and about a minute each, saved to ``store`` after each one."""
        if not self.warm:  # compile (or load) the kernels outside the timing
            self.module.run_block(self.rules, self.policies, self.seed, 0, 1, bool(self.dd), self.plan)
            self.warm = True
        while self.deals < deals:
            first = self.deals
            per = self.per_deal()
            count = min(chunk, deals - first, max(100, int(60 / per)) if per > 0 else chunk)
            began = time.perf_counter()
            got = self._values(first, count)
            spent = time.perf_counter() - began
            self.seconds += spent
            if count >= self.largest[0]:
                self.largest = (count, spent)
            self.values = [(np.concatenate([y0, np.asarray(y, float)]), np.concatenate([n0, np.asarray(n, float)]))
                           for (y0, n0), (y, n) in zip(self.values, got)]
            if store is not None:
                self.save(store)

    def per_deal(self) -> float:
        """Seconds per deal of the largest chunk played (a small chunk's are mostly the
        call's own cost)."""
        return self.largest[1] / max(self.largest[0], 1)

    def data(self, deals: int | None = None, metric: int = 0) -> LevelData:
        m = self.deals if deals is None else deals
        y, n = self.values[metric]
        extra = None if self.choices is None or not self.use_choices else self.choices[:m]
        return LevelData(self.name, y[:m], n[:m], self.seconds * m / max(self.deals, 1),
                         (self.seed, self.plan.tobytes()), extra)


def _is_custom(metric) -> bool:
    from sim.custom import Custom

    return isinstance(metric, Custom)


def default_levels(game: str) -> list[str]:
    """``--control auto``: the hierarchy that saved most per second in docs/multilevel.md's
    measurements: the heuristic's deals, with its choices and outcomes (the hand features
    added under 1% there, the double-dummy and pimc:worlds=2 levels cost more than they
    saved)."""
    return ["all=heuristic"]


PILOT_DEALS = 200  # the target's deals in the pilot that sizes the levels


def run_multilevel(game: str, rules, policies, seed: int, deals: int, controls, control_deals=None,
                   metrics=None, dealing=None, until=None, out=None, notify=None, pilot: int = PILOT_DEALS) -> dict:
    """The multilevel estimate of each metric (default: the dealer's advantage) of
    ``policies`` over deal runs of ``seed``: the target on ``deals`` deals, each control
    (Level or its text) on its ``control_deals`` (None: sized by the allocation rule from
    a pilot of ``pilot`` deals, the target keeping ``deals``). With ``until``
    ("METRIC:W" or (metric, W)) the levels are sized from the pilot for a 95% half-width W
    on the first metric and grown until it is met, ``deals`` being the target's cap.
    Writes ``out/multilevel.json`` when ``out`` is given."""
    from sim.dealing import Dealing, checked_plan
    from sim.metrics import resolve_metrics

    say = notify or (lambda line: None)
    controls = [lv for c in controls for lv in (default_levels(game) if c == "auto" else [c])]
    levels = [c if isinstance(c, Level) else parse_level(c) for c in controls]
    dealing = dealing or Dealing("deals")
    if not dealing.deal_run:
        raise MultilevelError("--control plays deal runs: give --deals N")
    specs = resolve_metrics(metrics or ["dealer_advantage"], deal_run=True)
    if any(getattr(m, "by", None) for m in specs):
        raise MultilevelError("--control estimates whole metrics: drop 'by COLUMN'")
    runs = [lv for lv in levels if lv.kind != "hand"]
    hand = any(lv.kind == "hand" for lv in levels)
    if hand and (game != "bridgette" or dealing.conditioned):
        raise MultilevelError("--control hand: the hand features are Bridgette's, of unconditioned deal runs")
    if any(lv.kind == "dd" for lv in levels) and game == "bid-euchre":
        raise MultilevelError("--control dd: scoring contracts double dummy is for Bridgette and Draw Bridge")
    if control_deals is not None and len(control_deals) != len(runs):
        raise MultilevelError(f"--control-deals gives {len(control_deals)} counts for {len(runs)} played "
                              f"controls ('hand' needs none)")
    if until is not None and control_deals is not None:
        raise MultilevelError("--until sizes the levels from a pilot: drop --control-deals")
    if until is not None:
        metric_name, width = until if isinstance(until, tuple) else _parse_until(until)
        if metric_name != (specs[0].name):
            specs = [m for m in specs if m.name == metric_name] + [m for m in specs if m.name != metric_name]
            if specs[0].name != metric_name:
                specs = resolve_metrics([metric_name], deal_run=True) + specs
    plan, _ = checked_plan(game, rules, dealing)
    from sim.api import resolve_policies

    target = LevelPlayer(game, rules, list(policies), seed, plan, False, specs,
                         ",".join(f"{s}={p}" for s, p in enumerate(policies)))
    ctrl = [LevelPlayer(game, rules, resolve_policies(game, list(lv.policies)), seed, plan, lv.kind == "dd", specs,
                        lv.name) for lv in runs]
    stores = {}
    if out is None:
        from contextlib import nullcontext

        folder = nullcontext()
    else:  # each level's deals are kept there after each chunk: an interrupted run resumes
        from sim.store import claim

        out = Path(out)
        folder = claim(out, _owns, "multilevel run")
    with folder:
        for i, pl in enumerate([target, *ctrl]):
            if out is None:
                break
            stores[pl.name] = out / ("target.npz" if i == 0 else f"control-{i}.npz")
            if stores[pl.name].exists() and pl.resume(stores[pl.name]):
                say(f"{pl.name}: resuming from {pl.deals:,} deals kept in {stores[pl.name]}")
        return _play_levels(game, rules, policies, deals, levels, hand, control_deals, specs, until,
                            width if until is not None else None, target, ctrl, stores, out, say, pilot, seed)


def _owns(folder: Path, names) -> bool:
    """A folder a multilevel run made: its levels' files and multilevel.json."""
    import re

    return all(re.fullmatch(r"(target|control-\d+)\.npz|multilevel\.json", n) for n in names)


def _play_levels(game, rules, policies, deals, levels, hand, control_deals, specs, until, width, target, ctrl,
                 stores, out, say, pilot, seed) -> dict:
    """run_multilevel's levels played and estimated (its folder claimed)."""
    first = specs[0]
    features_cache = {}

    def features(m):
        if not hand:
            return None
        if features_cache.get("deals", 0) < m:
            features_cache.update(deals=m, value=hand_features(rules, seed, m))
        f = features_cache["value"]
        return Features(f.names, f.x[:m], f.means, f.seconds)

    began = time.perf_counter()
    sizes = [deals] + (list(control_deals) if control_deals is not None else [])
    alloc = None
    if control_deals is None and ctrl or until is not None:
        p = min(pilot, deals)
        say(f"pilot: every level on the first {p:,} deals, to size them")
        for pl in [target, *ctrl]:
            pl.play_to(p, chunk=p, store=stores.get(pl.name))
        if target.seconds < 2.0 and target.largest[0] < 20_000 and deals > p:  # a cheap target too
            target.play_to(min(deals, p + min(100 * p, 20_000)), chunk=20_000, store=stores.get(target.name))
        for pl in ctrl:  # a cheap level's time per deal is seen on a chunk of many deals
            if pl.per_deal() * 20 < target.per_deal() and pl.largest[0] < 20_000:
                more = min(100 * p, 20_000)
                pl.play_to(max(pl.deals, p) + more, chunk=more, store=stores.get(pl.name))

        def timed(pl):
            d = pl.data(p)
            d.seconds = pl.per_deal() * p
            return d

        alloc = allocation(timed(target), [timed(c) for c in ctrl], features(p))
        best = alloc["best"]
        chain = best["chain"]
        if until is not None:
            wanted = sizes_for(best, alloc["target_sd"], width)
            wanted[0] = min(wanted[0], deals)
        else:
            wanted = [deals] + [math.ceil(deals * r) for r in best["ratios"][1:len(chain) + 1]]
        sizes = [wanted[0]] + [0] * len(ctrl)
        for k, j in enumerate(chain):
            sizes[1 + j] = max(wanted[1 + k], wanted[0])
        unused = [ctrl[j].name for j in range(len(ctrl)) if j not in chain]
        if unused:
            say(f"allocation: {', '.join(unused)} not worth its cost here; left out")
        ctrl = [ctrl[j] for j in chain]
        sizes = [sizes[0]] + [sizes[1 + j] for j in chain]
        # Deals the pilot already played count (the target's up to its cap): more, never fewer.
        sizes[0] = max(sizes[0], min(target.deals, deals))
        sizes = [sizes[0]] + [max(m, pl.deals, sizes[0]) for m, pl in zip(sizes[1:], ctrl)]
    rounds = 0
    while True:
        rounds += 1
        for pl, m in zip([target, *ctrl], sizes):
            say(f"{pl.name}: {m:,} deals")
            pl.play_to(m, store=stores.get(pl.name))
        result = _estimates(specs, target, ctrl, sizes, features(max(sizes)), game)
        if until is None or rounds >= 4:
            break
        half = result[first.name]["half_width"]
        if half <= width or sizes[0] >= deals:
            break
        grow = min((half / width) ** 2 * 1.1, deals / sizes[0])
        sizes = [max(s + 1, math.ceil(s * grow)) for s in sizes]
        sizes[0] = min(sizes[0], deals)
        say(f"half-width {half:.4g} > {width:g}: growing the levels {grow:.2f}x")
    out_dict = {"game": game, "seed": seed, "policies": [str(p) for p in policies],
                "controls": [lv.text for lv in levels], "sizes": dict(zip([target.name] + [c.name for c in ctrl],
                                                                            sizes)),
                "allocation": _plain(alloc), "until": None if until is None else [first.name, width],
                "reached": None if until is None else result[first.name]["half_width"] <= width,
                "wall_seconds": time.perf_counter() - began, "metrics": result}
    if out is not None:
        from sim.store import write_atomic

        write_atomic(out / "multilevel.json", json.dumps(_plain(out_dict), indent=1).encode())
    return out_dict


def _estimates(specs, target, ctrl, sizes, feats, game) -> dict:
    """Each metric's estimate from the levels' deals."""
    out = {}
    for k, metric in enumerate(specs):
        est = nested_estimate(target.data(sizes[0], k), [c.data(m, k) for c, m in zip(ctrl, sizes[1:])], feats)
        bound = target.bound[k]
        est.update(label=bound.words(game, True), unit=bound.unit_for(game, True), percent=bound.percent,
                   balance=bound.balance, definition=bound.definition)
        out[metric.name] = est
    return out


def _parse_until(text):
    metric, colon, width = str(text).partition(":")
    try:
        value = float(width)
    except ValueError:
        value = math.nan
    if not colon or not metric.strip() or not (math.isfinite(value) and value > 0):
        raise MultilevelError(f"--until needs METRIC:HALF_WIDTH with a positive width, got '{text}'")
    return metric.strip(), value


def _plain(obj):
    """JSON-ready: numpy numbers as floats, infinities as None."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def format_report(result: dict) -> str:
    """The estimates for the terminal: estimator, 95% interval, variance saved, plain deals."""
    from sim.metrics import shown

    lines = []
    for name, e in result["metrics"].items():
        m = shown(name, e)
        signed = m.balance == 0
        f = lambda v: m.format(v, signed)  # noqa: E731
        lines += [f"{e['label']} ({e['unit']}):",
                  f"  multilevel  {f(e['value'])} [{f(e['ci95'][0])}, {f(e['ci95'][1])}]  ({e['estimator']})",
                  f"  plain       {f(e['plain_value'])} [{f(e['plain_ci95'][0])}, {f(e['plain_ci95'][1])}]  "
                  f"(the target's {e['levels'][0]['deals']:,} deals alone)"]
        saved = e["variance_saved"]
        if saved:
            words = f"  variance saved {saved:.2f}x: the estimate stands for {e['plain_deals']:,.0f} plain deals"
            if e.get("equal_time_saved"):
                words += f"; {e['equal_time_saved']:.2f}x at equal wall time ({e['seconds']:.1f} s played)"
            lines.append(words)
        for warning in e.get("warnings", []):
            lines.append(f"  warning: {warning}")
        for lv in e["levels"]:
            sec = "" if lv["seconds"] is None else f", {lv['seconds']:.1f} s"
            lines.append(f"    level {lv['name']}: {lv['deals']:,} deals{sec}")
    return "\n".join(lines)


def _count(text: str) -> int:
    """A positive whole number, also written as 1e6 (sim.cli.whole_count)."""
    import argparse

    from sim.cli import whole_count

    try:
        return whole_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_control_flags(p) -> None:
    """sim.run's --control and --control-deals."""
    p.add_argument("--control", action="append", default=[], metavar="LEVEL",
                   help="deal runs: a cheaper level that plays the same deals, for a multilevel estimate of the "
                        "--policy players (sim.multilevel; repeatable): SEAT=POLICY[;SEAT=POLICY] (e.g. "
                        "all=heuristic), dd:SEAT=POLICY (its contracts scored double dummy) or hand (features of "
                        "the hands as dealt, Bridgette)")
    p.add_argument("--control-deals", action="append", type=_count, default=None, metavar="N",
                   help="with --control: deals of each played control, in order (default: sized from a pilot by "
                        "the multilevel allocation rule)")


def play_cli(args, rules, policies, dealing) -> int:
    """sim.run with --control: the multilevel estimate, printed and kept in --out."""
    import sys

    if args.dd or args.stratify or args.cluster:
        flag = "--dd" if args.dd else "--stratify" if args.stratify else "--cluster"
        raise MultilevelError(f"--control does not take {flag} (a double-dummy level is --control dd:SEAT=POLICY)")
    if args.control_deals is not None and any(n < 1 for n in args.control_deals):
        raise MultilevelError("--control-deals must be positive whole numbers")
    until = None if args.until is None else (args.until.metric, args.until.width)
    out = args.out or f"runs/{args.game}-{args.seed}-{args.deals}-multilevel"
    notify = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    from sim.metrics import parse_metrics

    metrics = None if args.metrics is None else parse_metrics(args.metrics)
    try:
        result = run_multilevel(args.game, rules, policies, args.seed, args.deals, args.control, args.control_deals,
                                metrics, dealing, until, out, notify)
    except KeyboardInterrupt:
        from sim.cli import INTERRUPTED_STATUS

        print(f"\ninterrupted; rerun the same command to resume the levels kept in {out}", file=sys.stderr)
        return INTERRUPTED_STATUS
    if not args.quiet:
        print(f"{args.game}: multilevel deal runs, seed {args.seed}; target policies "
              f"{', '.join(f'{s}={p}' for s, p in enumerate(policies))}; folder {out}")
        if result["until"] is not None:
            print(f"until {result['until'][0]}:{result['until'][1]:g}: "
                  f"{'reached' if result['reached'] else 'not reached within the cap'}")
        print(format_report(result))
    return 0


# --- From run folders ------------------------------------------------------------------------------

def _dd_scored_columns(rules, table) -> dict:
    """score0, score1, tricks0 and tricks1 of a --dd run's deal records (an Arrow table) as
    if each contract reached had been played double dummy (dd_scored's rule)."""
    from sim.par import _game

    score_deal = _game(rules)[0]
    level = table.column("level").to_numpy(zero_copy_only=False).astype(np.int64)
    strain = table.column("strain").to_pylist()
    declarer = table.column("declarer").to_numpy().astype(np.int64)
    doubled = table.column("doubled").to_numpy().astype(np.int64)
    tricks = table.column("dd_tricks").fill_null(-1).to_numpy().astype(np.int64)
    cols = {c: table.column(c).to_numpy().astype(np.int64).copy() for c in ("score0", "score1", "tricks0", "tricks1")}
    cache = {}
    for i in np.flatnonzero((level >= 0) & (tricks >= 0)):
        key = (int(level[i]), strain[i], int(doubled[i]), int(tricks[i]))
        if key not in cache:
            cache[key] = score_deal(rules, *key)
        d = int(declarer[i])
        cols[f"score{d}"][i], cols[f"score{1 - d}"][i] = cache[key]
        cols[f"tricks{d}"][i], cols[f"tricks{1 - d}"][i] = tricks[i], 13 - tricks[i]
    return cols


def level_from_run(path, metric="dealer_advantage", dd: bool = False, name: str | None = None,
                   choices: bool = True) -> LevelData:
    """A finished deal run's per-deal values of ``metric`` (a builtin name or a custom
    definition) as a level; ``dd``: its contracts scored double dummy (a --dd run's);
    ``choices``: with its choice_columns (contract games)."""
    import pyarrow as pa

    from sim.api import resolve_rules
    from sim.metrics import custom_metric, resolve_metrics
    from sim.run_records import RunRecords

    run = RunRecords(path)
    if not run.deal_run:
        raise MultilevelError(f"{path} plays whole games; a level is a deal run (--deals)")
    spec = resolve_metrics([metric] if isinstance(metric, str) else metric, deal_run=True)[0]
    bound = custom_metric(spec, [run]) if _is_custom(spec) else spec
    ys, ns = [], []
    if not dd:
        for _, _, values in run.per_game([bound]):
            ys.append(values[bound.name][0])
            ns.append(values[bound.name][1])
    else:
        if bound.records != "deals" or bound.game_columns:
            raise MultilevelError("a double-dummy level reads deal metrics only")
        rules = resolve_rules(run.game, run.config["rules"])
        needed = sorted(set(bound.columns_for(run.game)) | {"level", "strain", "declarer", "doubled", "dd_tricks",
                                                             "score0", "score1", "tricks0", "tricks1"})
        for index, first, count in run.blocks():
            table = run.read_table("deals", index, needed)
            for col, values in _dd_scored_columns(rules, table).items():
                table = table.set_column(table.column_names.index(col), col, pa.array(values))
            source = table if bound.definition is not None else {c: table.column(c).to_numpy(zero_copy_only=False)
                                                                  for c in table.column_names}
            y, n = bound.per_game(run.info, source, None, first, count)
            ys.append(y)
            ns.append(n)
    seconds = (run._manifest.get("timing") or {}).get("seconds")
    key = (run.seed, json.dumps(run.dealing, sort_keys=True))
    extra = None
    needed = ["level", "declarer", "dealer", "doubled", "tricks0", "tricks1"]
    if choices and all(c in run.schema().get("deals", {}) for c in needed):
        parts = []
        rules = resolve_rules(run.game, run.config["rules"])
        scores = score_table(rules)
        for index, first, count in run.blocks():
            table = run.read_table("deals", index, needed + ["strain"] + (["dd_tricks", "score0", "score1"] if dd
                                                                            else []))
            cols = {c: table.column(c).to_numpy(zero_copy_only=False) for c in ["game", *needed]}
            if dd:
                cols.update(_dd_scored_columns(rules, table))
            if len(cols["game"]) != count:
                parts = None
                break
            order = np.argsort(cols["game"], kind="stable")
            d = np.asarray(cols["declarer"])
            tricks = np.where(d == 0, cols["tricks0"], cols["tricks1"])
            from sim.par import STRAINS

            strain = np.array([-1 if v is None else STRAINS.index(v) for v in table.column("strain").to_pylist()])
            parts.append(choice_columns(cols["dealer"], d, cols["level"], cols["doubled"], tricks, strain,
                                        scores)[order])
        extra = None if not parts else np.concatenate(parts)
    return LevelData(name or str(path), np.concatenate(ys), np.concatenate(ns), seconds, key, extra)
