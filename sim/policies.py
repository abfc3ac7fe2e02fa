"""Policy registry: names, parameters and validation (DESIGN point 5).

A policy is chosen per seat as ``NAME`` or ``NAME:param=value,...``; it becomes an integer
id and a float parameter row for the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels import policies as kp


class PolicyError(ValueError):
    """A policy name or parameter the simulator does not know."""


@dataclass(frozen=True)
class PolicySpec:
    name: str
    policy_id: int
    params: dict  # name -> (column, default, meaning)
    meaning: str


POLICIES = {
    "random": PolicySpec("random", kp.POLICY_RANDOM, {},
                         "uniform over the legal actions: discards, calls and cards"),
    "heuristic": PolicySpec("heuristic", kp.POLICY_HEURISTIC, {
        "aggression": (kp.H_AGGRESSION, 0.0, "tricks added to every bidding estimate"),
        "double_margin": (kp.H_DOUBLE_MARGIN, 6.0,
                          "tricks the opponent must look short by before a double"),
        "redouble_margin": (kp.H_REDOUBLE_MARGIN, 1.0,
                            "tricks to spare this seat's estimate needs before a redouble"),
    }, "keeps its best 13 cards, bids a trick estimate, doubles overreaching, plays sensibly"),
}


@dataclass(frozen=True)
class Policy:
    """One seat's policy: registry name and resolved parameter values."""

    name: str
    params: tuple  # ((name, value), ...) in registry order

    def __str__(self) -> str:
        spec = POLICIES[self.name]
        changed = [f"{k}={v:g}" for k, v in self.params if v != spec.params[k][1]]
        return self.name + (":" + ",".join(changed) if changed else "")

    @property
    def policy_id(self) -> int:
        return POLICIES[self.name].policy_id

    def row(self) -> np.ndarray:
        row = np.zeros(kp.N_POLICY_PARAMS, dtype=np.float64)
        spec = POLICIES[self.name]
        for key, value in self.params:
            row[spec.params[key][0]] = value
        return row


def parse_policy(text: str) -> Policy:
    """``NAME`` or ``NAME:param=value,...`` into a validated Policy."""
    name, _, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise PolicyError(f"unknown policy '{name}' (known: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    values = {k: default for k, (_, default, _) in spec.params.items()}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or key not in spec.params:
            known = ", ".join(spec.params) or "none"
            raise PolicyError(f"policy '{name}' has no parameter '{key}' (parameters: {known})")
        try:
            values[key] = float(raw)
        except ValueError:
            raise PolicyError(f"policy parameter {name}:{key} must be a number, got '{raw}'") from None
    return Policy(name, tuple(values.items()))


def kernel_policies(policies) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and parameter rows, one per seat, for the kernels."""
    ids = np.array([p.policy_id for p in policies], dtype=np.int64)
    rows = np.stack([p.row() for p in policies])
    return ids, rows
