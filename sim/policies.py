"""Policy registry: names, parameters and validation (DESIGN point 5).

A policy is chosen per seat as ``NAME`` or ``NAME:param=value,...``; it becomes an integer
id and a float parameter row for the kernels. Each game offers the parameters its own
decisions read, with its own defaults (``heuristic`` in the game's declaration,
sim/games.py); a parameter of another game is refused. The kernels take the same row in
every game: a column the game does not read keeps its neutral value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from kernels import policies as kp
from sim.games import GAMES, game_info


class PolicyError(ValueError):
    """A policy name or parameter the simulator does not know."""


@dataclass(frozen=True)
class Column:
    """One parameter's column in the kernels' row, the value it holds where the seat's
    game does not read it (and for a policy parsed for no game), and its meaning."""

    index: int
    neutral: float
    meaning: str
    check: Callable | None = None  # value -> what is wrong with it, or None when it is fine


@dataclass(frozen=True)
class PolicySpec:
    """A policy of the registry: its kernel id, what it does, and its parameter columns."""

    name: str
    policy_id: int
    meaning: str
    columns: dict = field(default_factory=dict)  # parameter name -> Column, in column order
    offered: Callable | None = None  # GameInfo -> {parameter: default} that game offers

    def defaults(self, game: str | None) -> dict:
        """The parameters a seat may set in ``game`` with that game's defaults, in column
        order; for no game, every column at its neutral value."""
        if game is None:
            return {name: c.neutral for name, c in self.columns.items()}
        offered = self.offered(game_info(game)) if self.offered else {}
        return {name: float(offered[name]) for name in self.columns if name in offered}


POLICIES = {
    "random": PolicySpec("random", kp.POLICY_RANDOM,
                         "uniform over the legal actions: discards, calls and cards"),
    "heuristic": PolicySpec("heuristic", kp.POLICY_HEURISTIC,
                            "keeps its best 13 cards, bids a trick estimate, doubles overreaching, plays sensibly", {
        "aggression": Column(kp.H_AGGRESSION, 0.0, "tricks added to every bidding estimate"),
        "double_margin": Column(kp.H_DOUBLE_MARGIN, 6.0, "tricks the opponent must look short by before a double"),
        "redouble_margin": Column(kp.H_REDOUBLE_MARGIN, 1.0,
                                  "tricks to spare this seat's estimate needs before a redouble"),
        "keep_colons": Column(kp.H_KEEP_COLONS, 0.5,
                              "exchange (B-3): weight on keeping Colons (0 discards them first)"),
        "use_colons": Column(kp.H_USE_COLONS, 1.0, "1 blocks (B-8) and leads (B-9) with Colons, 0 never by choice"),
        "colon_lead_odds": Column(kp.H_COLON_LEAD_ODDS, 0.5,
                                  "least chance the opponent cannot beat a Colon before leading it (B-9)"),
        "draw_fight": Column(kp.H_DRAW_FIGHT, 13.0, "lowest face-up stock rank (draw.show_stock_top) worth winning "
                                                    "a draw trick for (D-2; 11 jack .. 14 ace; 15 never)"),
        "partner_aware": Column(kp.H_PARTNER_AWARE, 1.0,
                                "1 never overtakes a partner winning with a trump, king or ace (E-6)"),
        "bid_by_score": Column(kp.H_BID_BY_SCORE, 0.0,
                               "1 counts tricks from both hands (D-2 shows the opponent's) and bids beyond them "
                               "only when the expected score pays (D-5, D-6); 0 bids this hand's estimate"),
        "compete_margin": Column(kp.H_COMPETE_MARGIN, 0.0, "points a bid beyond the tricks must be expected to "
                                                           "gain over passing (bid_by_score)"),
    }, offered=lambda info: info.heuristic),
}
# A seat that sees every hand: its card play is double dummy (kernels.dd), an upper bound on
# any real player, not a fair one; its other decisions are the heuristic's, with its parameters.
POLICIES["dd"] = PolicySpec("dd", kp.POLICY_DD,
                            "sees all cards: plays the card that is best double dummy (an upper bound, not a fair "
                            "player); bids, discards and draws as the heuristic", POLICIES["heuristic"].columns,
                            POLICIES["heuristic"].offered)


MAX_WORLDS = 1_000_000


def _worlds_error(value: float) -> str | None:
    """pimc's ``worlds``: a count of deals."""
    if not math.isfinite(value) or value != int(value) or not 1 <= value <= MAX_WORLDS:
        return f"must be a whole number from 1 to {MAX_WORLDS}"
    return None


def _bid_worlds_error(value: float) -> str | None:
    """pimc's ``bid_worlds``: a count of deals, or 0 for the heuristic's calls."""
    return None if value == 0 else _worlds_error(value)


def _keep_error(value: float) -> str | None:
    """pimc's ``keep``: a switch."""
    return None if value in (0.0, 1.0) else "must be 0 or 1"


# A seat that searches what it may know: its card play samples the cards it cannot see
# (kernels.pimc) and plays the card best double dummy on average; its other decisions are
# the heuristic's, with the heuristic's parameters.
POLICIES["pimc"] = PolicySpec("pimc", kp.POLICY_PIMC,
                              "plays the card best double dummy on average over worlds sampled from what its seat "
                              "knows; calls (bid_worlds > 0: by the expected score over sampled worlds; Bid "
                              "Euchre's trump too), discards, draws and exchanges as the heuristic", {
    **POLICIES["heuristic"].columns,
    "worlds": Column(kp.P_WORLDS, 16.0, "deals of the unseen cards sampled per card played", _worlds_error),
    "bid_worlds": Column(kp.P_BID_WORLDS, 0.0, "deals of the unseen cards sampled for each call (and Bid Euchre's "
                                               "trump), each solved in the strains the call needs (0: calls as the "
                                               "heuristic)",
                         _bid_worlds_error),
    "keep": Column(kp.P_KEEP, 0.0, "1 keeps the worlds of the seat's last card that are still consistent and samples "
                                   "only the rest; 0 samples every card's worlds afresh", _keep_error),
}, offered=lambda info: {**info.heuristic, **info.pimc})


def defaults(name: str, game: str | None = None) -> dict:
    """A policy's parameter defaults in ``game``, in column order (None: every column, neutral)."""
    return POLICIES[name].defaults(game)


def parameters(name: str, game: str | None = None) -> list[tuple[str, float, str]]:
    """(parameter, default, meaning) of each parameter a policy offers in ``game``."""
    spec = POLICIES[name]
    return [(key, value, spec.columns[key].meaning) for key, value in spec.defaults(game).items()]


@dataclass(frozen=True)
class Policy:
    """One seat's policy: registry name and resolved parameter values."""

    name: str
    params: tuple  # ((name, value), ...): the parameters of ``game``, in column order
    game: str | None = None  # whose parameters and defaults apply

    def __str__(self) -> str:
        """The name and the parameters that differ from the game's defaults, as a run
        manifest and the records name the policy."""
        base = defaults(self.name, self.game)
        changed = [f"{k}={v:g}" for k, v in self.params if v != base[k]]
        return self.name + (":" + ",".join(changed) if changed else "")

    @property
    def policy_id(self) -> int:
        return POLICIES[self.name].policy_id

    def kernel_params(self) -> dict:
        """Every column of the kernels' row by parameter name, the game's own and the
        neutral rest: what a run manifest records, and part of the run's identity."""
        values = dict(self.params)
        return {key: values.get(key, c.neutral) for key, c in POLICIES[self.name].columns.items()}

    def row(self) -> np.ndarray:
        row = np.zeros(kp.N_POLICY_PARAMS, dtype=np.float64)
        columns = POLICIES[self.name].columns
        for key, value in self.kernel_params().items():
            row[columns[key].index] = value
        return row


def parse_policy(text: str, game: str | None = None) -> Policy:
    """``NAME`` or ``NAME:param=value,...`` into a validated Policy, unset parameters taking
    ``game``'s defaults. Only the parameters ``game``'s decisions read are accepted; with no
    game (tests and benchmarks that play one policy in every game), every parameter is,
    starting from its neutral value."""
    name, _, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise PolicyError(f"unknown policy '{name}' (known: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    values = spec.defaults(game)
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or key not in values:
            raise PolicyError(_no_parameter(spec, key, game, values))
        try:
            values[key] = float(raw)
        except ValueError:
            raise PolicyError(f"policy parameter {name}:{key} must be a number, got '{raw}'") from None
        check = spec.columns[key].check
        if check and check(values[key]):
            raise PolicyError(f"policy parameter {name}:{key} {check(values[key])}, got '{raw}'")
    return Policy(name, tuple(values.items()), game)


def _no_parameter(spec: PolicySpec, key: str, game: str | None, values: dict) -> str:
    known = ", ".join(values) or "none"
    elsewhere = [g for g in GAMES if key in spec.defaults(g)] if key in spec.columns else []
    if elsewhere:
        return (f"policy '{spec.name}' has no parameter '{key}' in {game}: only {' and '.join(elsewhere)} "
                f"decisions read it (parameters in {game}: {known})")
    return f"policy '{spec.name}' has no parameter '{key}' (parameters{f' in {game}' if game else ''}: {known})"


def searches(policies) -> bool:
    """Whether a seat plays by search (``dd`` or ``pimc``), so its run needs a search context."""
    return any(p.policy_id in (kp.POLICY_DD, kp.POLICY_PIMC) for p in policies)


def kernel_policies(policies) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and parameter rows, one per seat, for the kernels."""
    ids = np.array([p.policy_id for p in policies], dtype=np.int64)
    rows = np.stack([p.row() for p in policies])
    return ids, rows
