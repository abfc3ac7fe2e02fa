"""Policy registry: names, parameters and validation (DESIGN point 5).

A policy is chosen per seat as ``NAME`` or ``NAME:param=value,...``; it becomes an integer
id and a ``kernels.policies.POLICY_PARAMS`` record for the kernels, a named record per
policy (``heuristic``, ``pimc``, ``search``) whose fields are the parameters. Each game offers the
parameters its own decisions read, with its own defaults (``heuristic`` in the game's
declaration, sim/games.py); a parameter of another game is refused. The kernels take the
same record in every game: a field the game does not read keeps its neutral value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from kernels import policies as kp
from sim.cli import decimal_text, quoted
from sim.games import GAMES, game_info


class PolicyError(ValueError):
    """A policy name or parameter the simulator does not know."""


@dataclass(frozen=True)
class Parameter:
    """One parameter: the policy record of ``kernels.policies.POLICY_PARAMS`` that holds
    it (its field is the parameter's name), the value it holds where the seat's game does
    not read it (and for a policy parsed for no game), and its meaning."""

    record: str
    neutral: float
    meaning: str
    check: Callable | None = None  # value -> what is wrong with it, or None when it is fine


@dataclass(frozen=True)
class PolicySpec:
    """A policy of the registry: its kernel id, what it does, and its parameters."""

    name: str
    policy_id: int
    meaning: str
    parameters: dict = field(default_factory=dict)  # name -> Parameter, in record order
    offered: Callable | None = None  # GameInfo -> {parameter: default} that game offers

    def defaults(self, game: str | None) -> dict:
        """The parameters a seat may set in ``game`` with that game's defaults, in record
        order; for no game, every parameter at its neutral value."""
        if game is None:
            return {name: c.neutral for name, c in self.parameters.items()}
        offered = self.offered(game_info(game)) if self.offered else {}
        return {name: float(offered[name]) for name in self.parameters if name in offered}


MAX_WORLDS = 1_000_000


def _value_text(value: float) -> str:
    """A parameter's value as a policy's name shows it: whole numbers without a point, the
    rest in full (the shortest text that reads back as the same number)."""
    return f"{value:g}" if value == int(value) and abs(value) < 1e16 else repr(value)


def _worlds_error(value: float) -> str | None:
    """pimc's ``worlds``: a count of deals."""
    if not math.isfinite(value) or value != int(value) or not 1 <= value <= MAX_WORLDS:
        return f"must be a whole number from 1 to {MAX_WORLDS}"
    return None


def _worlds_or_none_error(value: float) -> str | None:
    """pimc's ``bid_worlds``, search's ``exchange_worlds``, ``call_worlds`` and
    ``draw_worlds``: a count of deals, or 0 for the heuristic's choice."""
    if value == 0 or _worlds_error(value) is None:
        return None
    return f"must be 0 (the heuristic's choice) or a whole number from 1 to {MAX_WORLDS}"


def _objective_error(value: float) -> str | None:
    """search's ``objective``: kernels.policies.OBJECTIVE_POINTS or OBJECTIVE_GAMES."""
    return None if value in (kp.OBJECTIVE_POINTS, kp.OBJECTIVE_GAMES) else "must be 0 (points) or 1 (games)"


def _within(lo: float, hi: float, unit: str = ""):
    """A check for a parameter that reads as a quantity from ``lo`` to ``hi`` (the bounds
    keep every kernel's arithmetic exact: a trick estimate is taken to a whole number)."""
    def check(value: float) -> str | None:
        return None if lo <= value <= hi else f"must be from {lo:,} to {hi:,}{unit}"
    return check


TRICKS = _within(-100, 100, " tricks")  # well past a deal's 13 either way (99: never)


def _rank_error(value: float) -> str | None:
    """The heuristic's ``draw_fight``: a card's rank, 2 .. 14, or 15 for none."""
    return None if 2 <= value <= 15 and value == int(value) else "must be a whole rank from 2 to 15 (15: never)"


def _switch_error(value: float) -> str | None:
    """A switch: the heuristic's ``use_colons``, ``partner_aware`` and ``bid_by_score``,
    pimc's ``keep``, search's ``call_model``."""
    return None if value in (0.0, 1.0) else "must be 0 or 1"


POLICIES = {
    "random": PolicySpec("random", kp.POLICY_RANDOM,
                         "uniform over the legal actions: discards, calls and cards"),
    "heuristic": PolicySpec("heuristic", kp.POLICY_HEURISTIC,
                            "keeps its best 13 cards, bids a trick estimate, doubles overreaching, plays sensibly", {
        "aggression": Parameter("heuristic", 0.0, "tricks added to every bidding estimate", TRICKS),
        "double_margin": Parameter("heuristic", 6.0, "tricks the opponent must look short by before a double",
                                   TRICKS),
        "redouble_margin": Parameter("heuristic", 1.0,
                                  "tricks to spare this seat's estimate needs before a redouble", TRICKS),
        "keep_colons": Parameter("heuristic", 0.5,
                              "exchange (B-3): weight on keeping Colons (0 discards them first)",
                              _within(-100, 100)),
        "use_colons": Parameter("heuristic", 1.0, "1 blocks (B-8) and leads (B-9) with Colons, 0 never by choice",
                                _switch_error),
        "colon_lead_odds": Parameter("heuristic", 0.5,
                                  "least chance the opponent cannot beat a Colon before leading it (B-9)",
                                  _within(0, 1)),
        "draw_fight": Parameter("heuristic", 13.0, "lowest face-up stock rank (draw.show_stock_top) worth winning "
                                                    "a draw trick for (D-2; 11 jack .. 14 ace; 15 never)",
                                _rank_error),
        "partner_aware": Parameter("heuristic", 1.0,
                                "1 never overtakes a partner winning with a trump, king or ace (E-6)", _switch_error),
        "bid_by_score": Parameter("heuristic", 0.0,
                               "1 counts tricks from both hands (D-2 shows the opponent's) and bids beyond them "
                               "only when the expected score pays (D-5, D-6); 0 bids this hand's estimate",
                               _switch_error),
        "compete_margin": Parameter("heuristic", 0.0, "points a bid beyond the tricks must be expected to "
                                                           "gain over passing (bid_by_score)",
                                    _within(-1_000_000, 1_000_000, " points")),
    }, offered=lambda info: info.heuristic),
}
# A seat that sees every hand: its card play is double dummy (kernels.dd), an upper bound on
# any real player, not a fair one; its other decisions are the heuristic's, with its parameters.
POLICIES["dd"] = PolicySpec("dd", kp.POLICY_DD,
                            "sees all cards: plays the card that is best double dummy (an upper bound, not a fair "
                            "player); bids, discards and draws as the heuristic", POLICIES["heuristic"].parameters,
                            POLICIES["heuristic"].offered)

# A seat that searches what it may know: its card play samples the cards it cannot see
# (kernels.pimc) and plays the card best double dummy on average; its other decisions are
# the heuristic's, with the heuristic's parameters.
POLICIES["pimc"] = PolicySpec("pimc", kp.POLICY_PIMC,
                              "plays the card best double dummy on average over worlds sampled from what its seat "
                              "knows; calls (bid_worlds > 0: by the expected score over sampled worlds; Bid "
                              "Euchre's trump too), discards, draws and exchanges as the heuristic", {
    **POLICIES["heuristic"].parameters,
    "worlds": Parameter("pimc", 16.0, "deals of the unseen cards sampled per card played", _worlds_error),
    "bid_worlds": Parameter("pimc", 0.0, "deals of the unseen cards sampled for each call (and Bid Euchre's "
                                               "trump), each solved in the strains the call needs (0: calls as the "
                                               "heuristic)",
                         _worlds_or_none_error),
    "keep": Parameter("pimc", 0.0, "1 keeps the worlds of the seat's last card that are still consistent and samples "
                                   "only the rest; 0 samples every card's worlds afresh", _switch_error),
}, offered=lambda info: {**info.heuristic, **info.pimc})

# A seat that searches beyond its card play: ``pimc``'s card play, with pimc's parameters,
# and Bridgette's exchange, the bridge games' calls and Bid Euchre's bids, trump and E-4
# exchange chosen by rolling out the auction and valuing its contract double dummy over
# sampled worlds (kernels.search).
POLICIES["search"] = PolicySpec("search", kp.POLICY_SEARCH,
                                "plays its cards as pimc, reading the opponent's calls; chooses Bridgette's discards, "
                                "the bridge games' calls, Draw Bridge's draw-phase cards and Bid Euchre's bids, trump "
                                "and exchange among a few candidates by the expected score of the deal the players "
                                "would then play, the contract valued double dummy, over sampled worlds", {
    **POLICIES["heuristic"].parameters,
    "worlds": Parameter("pimc", 16.0, "deals of the unseen cards sampled per card played (0: cards as the "
                                      "heuristic)", _worlds_or_none_error),
    "keep": POLICIES["pimc"].parameters["keep"],
    "exchange_worlds": Parameter("search", 0.0, "deals of the unseen cards sampled to value each candidate "
                                                "exchange (B-3's discards, E-4's gives and returns; 0: as the "
                                                "heuristic)", _worlds_or_none_error),
    "call_worlds": Parameter("search", 0.0, "deals of the unseen cards sampled to value each candidate call by "
                                            "rolling out the auction (C-4; E-3's bids and trump; 0: calls as the "
                                            "heuristic)",
                             _worlds_or_none_error),
    "draw_worlds": Parameter("search", 0.0, "arrangements of the unseen cards (the opponent's hand, the stock's "
                                            "order) sampled to value each candidate draw-phase card by rolling out "
                                            "the draw phase, auction and play (D-2; 0: draws as the heuristic)",
                             _worlds_or_none_error),
    "objective": Parameter("search", 0.0, "what searched choices maximize: 0 the mean deal score, 1 the mean "
                                          "chance of winning the game from the current totals",
                           _objective_error),
    "call_model": Parameter("search", 0.0, "how this seat reads a searching opponent's calls: 1 by a softmax over "
                                           "the calls search values (docs/search.md), 0 as the heuristic's",
                            _switch_error),
}, offered=lambda info: {**info.heuristic, **info.pimc, **info.search})

def defaults(name: str, game: str | None = None) -> dict:
    """A policy's parameter defaults in ``game``, in record order (None: every parameter, neutral)."""
    return POLICIES[name].defaults(game)


def parameters(name: str, game: str | None = None) -> list[tuple[str, float, str]]:
    """(parameter, default, meaning) of each parameter a policy offers in ``game``."""
    spec = POLICIES[name]
    return [(key, value, spec.parameters[key].meaning) for key, value in spec.defaults(game).items()]


@dataclass(frozen=True)
class Policy:
    """One seat's policy: registry name and resolved parameter values."""

    name: str
    params: tuple  # ((name, value), ...): the parameters of ``game``, in record order
    game: str | None = None  # whose parameters and defaults apply

    def __str__(self) -> str:
        """The name and the parameters that differ from the game's defaults, as a run
        manifest and the records name the policy."""
        base = defaults(self.name, self.game)
        changed = [f"{k}={_value_text(v)}" for k, v in self.params if v != base[k]]
        return self.name + (":" + ",".join(changed) if changed else "")

    @property
    def policy_id(self) -> int:
        return POLICIES[self.name].policy_id

    def kernel_params(self) -> dict:
        """Every parameter of the policy by name, the game's own and the neutral rest: what
        a run manifest records, and part of the run's identity."""
        values = dict(self.params)
        return {key: values.get(key, c.neutral) for key, c in POLICIES[self.name].parameters.items()}

    def row(self) -> np.record:
        """The seat's ``POLICY_PARAMS`` record for the kernels; fields of records the policy
        does not read stay 0, but for a policy with no heuristic parameters (``random``) the
        heuristic record is the game's heuristic: what the searching seats' models read it
        as (each player is read with its own heuristic parameters, kernels.search)."""
        row = np.zeros(1, dtype=kp.POLICY_PARAMS)[0]
        parameters = POLICIES[self.name].parameters
        if not any(c.record == "heuristic" for c in parameters.values()):
            for key, value in parse_policy("heuristic", self.game).kernel_params().items():
                row["heuristic"][key] = value
        for key, value in self.kernel_params().items():
            row[parameters[key].record][key] = value
        return row


def parse_policy(text: str, game: str | None = None) -> Policy:
    """``NAME`` or ``NAME:param=value,...`` into a validated Policy, unset parameters taking
    ``game``'s defaults. Only the parameters ``game``'s decisions read are accepted; with no
    game (tests and benchmarks that play one policy in every game), every parameter is,
    starting from its neutral value."""
    if not isinstance(text, str):
        raise PolicyError(f"a policy is text, NAME or NAME:param=value,..., got {text!r:.60}")
    if game is not None and not (isinstance(game, str) and game in GAMES):
        raise PolicyError(f"unknown game {game!r:.60} (games: {', '.join(GAMES)})")
    name, colon, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise PolicyError(f"unknown policy '{name}' (known: {', '.join(POLICIES)})")
    items = [p.strip() for p in rest.split(",")] if colon else []
    if "" in items:
        raise PolicyError(f"policy {text.strip()} has an empty parameter: {name}:param=value,... "
                          f"(or {name} alone for its defaults)")
    spec = POLICIES[name]
    values = spec.defaults(game)
    given = set()
    for item in items:
        key, eq, raw = (part.strip() for part in item.partition("="))
        if key not in values:
            raise PolicyError(_no_parameter(spec, key, game, values))
        if key in given:
            raise PolicyError(f"policy {text.strip()} gives {key} twice")
        given.add(key)
        if not eq or not raw:
            raise PolicyError(f"policy parameter {name}:{key} needs a value: {name}:{key}=NUMBER")
        exact = decimal_text(raw)  # checked as written: 0.99999999999999999 is no switch's 1
        if exact is None:
            raise PolicyError(f"policy parameter {name}:{key} must be a number, got {quoted(raw)}")
        if not exact.is_finite():
            raise PolicyError(f"policy parameter {name}:{key} must be a finite number, got {quoted(raw)}")
        check = spec.parameters[key].check
        if check and check(exact):
            raise PolicyError(f"policy parameter {name}:{key} {check(exact)}, got {quoted(raw)}")
        values[key] = float(exact) + 0.0  # -0 is 0: one player, one name
        if values[key] == 0 and exact != 0:
            raise PolicyError(f"policy parameter {name}:{key} must be 0 or at least 1e-300 in size, got {quoted(raw)}")
    return Policy(name, tuple(values.items()), game)


def _no_parameter(spec: PolicySpec, key: str, game: str | None, values: dict) -> str:
    known = ", ".join(values) or "none"
    elsewhere = [g for g in GAMES if key in spec.defaults(g)] if key in spec.parameters else []
    if elsewhere:
        return (f"policy '{spec.name}' has no parameter '{key}' in {game}: only {' and '.join(elsewhere)} "
                f"decisions read it (parameters in {game}: {known})")
    return f"policy '{spec.name}' has no parameter '{key}' (parameters{f' in {game}' if game else ''}: {known})"


def searches(policies) -> bool:
    """Whether a seat plays by search (``dd``, ``pimc`` or ``search``), so its run needs a search context."""
    return any(p.policy_id in (kp.POLICY_DD, kp.POLICY_PIMC, kp.POLICY_SEARCH) for p in policies)


def samples_worlds(policy) -> bool:
    """Whether ``policy`` plays from sampled worlds (``pimc``, ``search``), solving one deal
    per world for each decision it searches."""
    return policy.policy_id in (kp.POLICY_PIMC, kp.POLICY_SEARCH)


def kernel_policies(policies) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and ``POLICY_PARAMS`` records, one per seat, for the kernels."""
    ids = np.array([p.policy_id for p in policies], dtype=np.int64)
    rows = np.stack([p.row() for p in policies])
    return ids, rows
