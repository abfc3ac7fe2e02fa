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
        "keep_colons": (kp.H_KEEP_COLONS, 0.5,
                        "Bridgette exchange: weight on keeping Colons (0 discards them first)"),
        "use_colons": (kp.H_USE_COLONS, 1.0,
                       "Bridgette play: 1 blocks (B-8) and leads (B-9) with Colons, 0 never by choice"),
        "colon_lead_odds": (kp.H_COLON_LEAD_ODDS, 0.5,
                            "Bridgette: least chance the opponent cannot beat a Colon before leading it"),
        "draw_fight": (kp.H_DRAW_FIGHT, 13.0,
                       "Draw Bridge: lowest face-up stock rank worth winning a draw trick for "
                       "(11 jack .. 14 ace; 15 never)"),
        "partner_aware": (kp.H_PARTNER_AWARE, 1.0,
                          "Bid Euchre: 1 never overtakes a partner winning with a trump, king or ace"),
    }, "keeps its best 13 cards, bids a trick estimate, doubles overreaching, plays sensibly"),
}

# Defaults that differ by game, found by duplicate matches (README, "Tuning"). Draw Bridge's
# default D-6 scoring makes a failed contract cost nothing, so its heuristic bids boldly and,
# since a double can then only double the declarer's score, never doubles.
GAME_DEFAULTS = {
    "bridgette": {"heuristic": {"aggression": 1.0}},
    "draw-bridge": {"heuristic": {"aggression": 4.0, "double_margin": 99.0}},
    "bid-euchre": {"heuristic": {"aggression": -0.3}},
}


def defaults(name: str, game: str | None = None) -> dict:
    """A policy's parameter defaults, in registry order, for ``game`` (None: the registry's)."""
    values = {k: default for k, (_, default, _) in POLICIES[name].params.items()}
    values.update(GAME_DEFAULTS.get(game, {}).get(name, {}))
    return values


@dataclass(frozen=True)
class Policy:
    """One seat's policy: registry name and resolved parameter values."""

    name: str
    params: tuple  # ((name, value), ...) in registry order
    game: str | None = None  # whose defaults apply

    def __str__(self) -> str:
        base = defaults(self.name, self.game)
        changed = [f"{k}={v:g}" for k, v in self.params if v != base[k]]
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


def parse_policy(text: str, game: str | None = None) -> Policy:
    """``NAME`` or ``NAME:param=value,...`` into a validated Policy, unset parameters taking
    ``game``'s defaults."""
    name, _, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise PolicyError(f"unknown policy '{name}' (known: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    values = defaults(name, game)
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or key not in spec.params:
            known = ", ".join(spec.params) or "none"
            raise PolicyError(f"policy '{name}' has no parameter '{key}' (parameters: {known})")
        try:
            values[key] = float(raw)
        except ValueError:
            raise PolicyError(f"policy parameter {name}:{key} must be a number, got '{raw}'") from None
    return Policy(name, tuple(values.items()), game)


def kernel_policies(policies) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and parameter rows, one per seat, for the kernels."""
    ids = np.array([p.policy_id for p in policies], dtype=np.int64)
    rows = np.stack([p.row() for p in policies])
    return ids, rows
