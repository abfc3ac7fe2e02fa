"""What every referee shares: the common rules' vocabulary (RULES.md section C), the error a
forbidden action raises, the replay format's scaffolding and the state of a game's flow.

The rule book says these once for all three games, so they are written once here; each
game's module keeps its own rules. Like the referees, this module is written from RULES.md
alone and never imports the kernels.
"""

from __future__ import annotations

from typing import Any

SUITS = ("C", "D", "H", "S")                       # C-1: clubs < diamonds < hearts < spades
PASS = "P"                                         # C-2


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

class IllegalAction(Exception):
    """An action (or a deal) the rules forbid.

    ``rule`` is the RULES.md id the replay format prescribes for it (e.g. ``"C-3"``),
    ``message`` says what is wrong, ``at`` optionally names the replay key (``"hands"``,
    ``"stock"``, ``"dealer"``) for deal-level problems found by the constructor."""

    def __init__(self, rule: str, message: str, at: str | None = None):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.at = at


# --------------------------------------------------------------------------------------
# Replay (RULES.md "Replay format")
# --------------------------------------------------------------------------------------

def replay_error(rule: str, at: str, message: str) -> dict[str, str]:
    """The replay format's answer to an illegal item: the rule, the item (``"calls[3]"``)
    and what is wrong."""
    return {"error": rule, "at": at, "message": message}


def replay_rules(case: dict, game: str, title: str, rules_class):
    """The rules of a replay case of ``game`` (its ``rules`` overrides on the defaults);
    ``ValueError`` for a case of another game. Invalid overrides raise
    ``sim.rules.RulesError``."""
    if case.get("game") != game:
        raise ValueError(f"not a {title} case: game {case.get('game')!r}")
    return rules_class.from_dict(case.get("rules") or {})


def apply_item(deal, action: Any, at: str) -> dict[str, str] | None:
    """Apply one replay item to ``deal``; the replay's error for it (at item ``at``) if the
    rules forbid it, else ``None``."""
    try:
        deal.apply(action)
    except IllegalAction as exc:
        return replay_error(exc.rule, at, exc.message)
    return None


# --------------------------------------------------------------------------------------
# One deal's read-only views
# --------------------------------------------------------------------------------------

class Deal:
    """The views every referee's deal offers over the state it keeps: its ``_phase``, the
    ``_hands`` held now and as ``_dealt``, the ``_calls`` made and the ``_trick`` on the
    table. Copies, so that a caller cannot change the deal."""

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def hands(self) -> list[list[str]]:
        return [list(h) for h in self._hands]

    @property
    def dealt_hands(self) -> list[list[str]]:
        return [list(h) for h in self._dealt]

    @property
    def calls(self) -> list[str]:
        return list(self._calls)

    @property
    def current_trick(self) -> list:
        return list(self._trick)


# --------------------------------------------------------------------------------------
# The game (C-6)
# --------------------------------------------------------------------------------------

class Game:
    """What every game's flow keeps: who deals next (C-6), the two sides' totals (seats, or
    Bid Euchre's teams) and how the game ended. Each game's ``record`` applies its own rules
    for the end (B-15, D-7, E-9)."""

    def __init__(self, rules, first_dealer: int):
        self.rules = rules
        self._dealer = first_dealer
        self._totals = [0, 0]
        self._finished = False
        self._abandoned = False
        self._winner: int | None = None

    @property
    def dealer(self) -> int:
        """Who deals next (C-6)."""
        return self._dealer

    @property
    def totals(self) -> list[int]:
        return list(self._totals)

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def abandoned(self) -> bool:
        return self._abandoned

    @property
    def winner(self) -> int | None:
        """The side that won (0 or 1); ``None`` while playing, for a draw or for an
        abandoned game."""
        return self._winner

    def _add_score(self, outcome: dict) -> None:
        """Add a counted deal's ``score`` to the totals."""
        score = outcome.get("score", [0, 0])
        self._totals[0] += score[0]
        self._totals[1] += score[1]

    def _end_at_target(self, target: int, played: int, bound: int) -> None:
        """D-7 / E-9, at the end of a deal: a side whose total has reached ``target`` wins;
        if both have, the higher total wins and equal totals play on. A game without a
        winner after ``bound`` deals is abandoned."""
        reached = [side for side in (0, 1) if self._totals[side] >= target]
        if len(reached) == 1:
            self._winner = reached[0]
        elif len(reached) == 2 and self._totals[0] != self._totals[1]:
            self._winner = 0 if self._totals[0] > self._totals[1] else 1
        if self._winner is not None:
            self._finished = True
        elif played >= bound:
            self._finished = True
            self._abandoned = True
