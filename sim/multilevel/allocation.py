"""Deals per level from a pilot: the multilevel allocation rule over every hierarchy of
the controls, and the sizes that give a 95% half-width (--until)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from sim.multilevel.estimator import Features, LevelData, MultilevelError, _regress, checked_levels
from sim.summary import Z95


def _r2(u0, cols) -> float:
    """R^2 of u0 on ``cols``, adjusted for the columns fitted (a pilot has few deals); 0
    where the pilot has no deal to spare beyond the fit (it fits any values exactly, and
    tells nothing of what the columns explain)."""
    if not cols:
        return 0.0
    _, _, r2, q = _regress(u0, np.column_stack(cols))
    m = len(u0)
    if m - q - 1 < 1:
        return 0.0
    return max(0.0, 1 - (1 - r2) * (m - 1) / (m - q - 1))


def allocation(target: LevelData, controls=(), features: Features | None = None) -> dict:
    """The best hierarchy among the subsets of ``controls`` (with the features, if given)
    and its deals per level, from a pilot: every level over the same deals (the target's),
    with their seconds. Returns per hierarchy the variance saved at equal wall time,
    w0 / (sum_j sqrt(a_j w_j))^2, and for the best its ratios m_j / m0 and the seconds a
    target deal stands for (``seconds_per_unit_variance``: T * Var / s0^2)."""
    controls = checked_levels("allocation", target, controls, features)
    m0 = target.deals
    if not all(lv.seconds for lv in [target, *controls]):  # a level of no cost would take every deal
        raise MultilevelError("the allocation needs each level's seconds, above 0")
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
