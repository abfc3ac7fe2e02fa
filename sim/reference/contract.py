"""What the two contract games, Bridgette and Draw Bridge, share: the 52 suited cards, the
bridge calls (C-2), the auction (C-4), the contract's outcome, and passed-out deals and the
dealer in a game's flow (C-5, C-6).

RULES.md gives C-4 and C-5 to these two games alone; each keeps its own ladder (B-5, D-3),
its own checks of a call, its play and its scoring.
"""

from __future__ import annotations

from typing import Any

from sim.reference.common import PASS, SUITS, Deal, Game, IllegalAction, apply_item, replay_error

# --------------------------------------------------------------------------------------
# Cards (C-1, C-2)
# --------------------------------------------------------------------------------------

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")   # C-1 low..high
RANK_VALUE = {r: i for i, r in enumerate(RANKS)}   # 0 = "2" ... 12 = "A"
SUITED_CARDS = tuple(r + s for s in SUITS for r in RANKS)   # the 52 cards

# --------------------------------------------------------------------------------------
# Calls (C-1, C-2, C-4)
# --------------------------------------------------------------------------------------

STRAINS = ("C", "D", "H", "S", "NT")                # C-1: no-trump ranks above spades
# C-2: the bids of levels 1 to 7, low to high: 1C 1D 1H 1S 1NT, 2C ... 7NT.
LEVEL_BIDS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAINS)
DOUBLE, REDOUBLE = "X", "XX"


def parse_bid(bid: str) -> tuple[int, str]:
    """``"3NT"`` -> ``(3, "NT")``; ``"2D"`` -> ``(2, "D")``."""
    return int(bid[0]), bid[1:]


def check_played(doubled: int, declarer_tricks: int) -> None:
    """What the scoring of a played contract is given: ``doubled`` 0, 1 or 2 and the
    declarer's ``declarer_tricks`` of 13; ``ValueError`` otherwise."""
    if doubled not in (0, 1, 2):
        raise ValueError(f"doubled must be 0, 1 or 2, got {doubled!r}")
    if not 0 <= declarer_tricks <= 13:
        raise ValueError(f"declarer_tricks must be 0..13, got {declarer_tricks!r}")


# --------------------------------------------------------------------------------------
# One deal: the auction (C-4) and the contract's outcome
# --------------------------------------------------------------------------------------

class ContractDeal(Deal):
    """The auction and the contract of a Bridgette or Draw Bridge deal.

    A game's deal sets ``rules``, ``dealer``, ``_phase`` and its hands, calls
    ``_new_auction`` in its constructor, checks each call (``_call_problem``: its ladder,
    ``_ladder_index``, then C-4's refusals, ``_auction_problem``, then Bridgette's B-6) and
    scores the contract (``_score``). The contract play keeps ``_trick``, ``_leader``,
    ``_tricks_won`` and ``_history``."""

    def _new_auction(self) -> None:
        """C-4: the auction before the first call."""
        self._calls: list[str] = []
        self._bid: str | None = None             # the current (highest) bid
        self._bidder: int | None = None
        self._doubled = 0
        self._auction_over = False
        self._passed_out = False

    # ---- read-only views --------------------------------------------------------------

    @property
    def contract(self) -> str | None:
        """The contract once the auction has ended with one (``None`` before, or if passed out)."""
        return self._bid if self._auction_over and not self._passed_out else None

    @property
    def declarer(self) -> int | None:
        return self._bidder if self._auction_over and not self._passed_out else None

    @property
    def doubled(self) -> int:
        """0, 1 (doubled) or 2 (redoubled): the current bid's state during the auction, the
        contract's afterwards (0 when passed out)."""
        return self._doubled

    @property
    def trump(self) -> str | None:
        """The contract's trump suit; ``None`` in no-trump or without a contract."""
        if self.contract is None:
            return None
        strain = parse_bid(self.contract)[1]
        return None if strain == "NT" else strain

    @property
    def passed_out(self) -> bool:
        return self._passed_out

    @property
    def tricks_won(self) -> list[int]:
        """Contract-play tricks per seat."""
        return list(self._tricks_won)

    @property
    def trick_history(self) -> list[tuple[int, list[str], int]]:
        """Contract-play tricks: ``(leader, [lead, follow], winner)``."""
        return [(leader, list(cards), winner) for leader, cards, winner in self._history]

    # ---- C-4: the auction -------------------------------------------------------------

    def _call_problem(self, seat: int, call: Any) -> tuple[str, str] | None:
        """``(rule, message)`` if ``call`` is illegal for ``seat`` now, else ``None``."""
        raise NotImplementedError(f"{type(self).__name__} must check a call against its own ladder (B-5, D-3)")

    def _auction_problem(self, seat: int, call: str) -> tuple[str, str] | None:
        """C-4's refusal of ``call`` (a call of the game's ladder) by ``seat`` now, if any: a
        call after the auction has ended, a double of no bid, of one's own bid or of a bid
        already doubled or redoubled, a redouble but of one's own doubled bid, or a bid that
        does not outrank the current one."""
        if self._auction_over:
            return "C-4", f"{call} after the auction has ended"
        if call == PASS:
            return None
        if call == DOUBLE:
            if self._bid is None:
                return "C-4", "no bid to double"
            if self._bidder == seat:
                return "C-4", f"seat {seat} may not double its own bid {self._bid}"
            if self._doubled:
                return "C-4", f"{self._bid} is already {'doubled' if self._doubled == 1 else 'redoubled'}"
            return None
        if call == REDOUBLE:
            if self._bid is None:
                return "C-4", "no bid to redouble"
            if self._doubled != 1:
                return "C-4", f"{self._bid} is not doubled" if self._doubled == 0 else \
                    f"{self._bid} is already redoubled"
            if self._bidder != seat:
                return "C-4", f"only the doubled bidder (seat {self._bidder}) may redouble"
            return None
        if self._bid is not None and self._ladder_index[call] <= self._ladder_index[self._bid]:
            return "C-4", f"{call} does not outrank the current bid {self._bid}"
        return None

    def _apply_call(self, call: Any) -> None:
        seat = self.to_move
        problem = self._call_problem(seat, call)
        if problem:
            raise IllegalAction(*problem)
        first_call = not self._calls
        self._calls.append(call)
        if call == PASS:
            if self._bid is not None:
                # C-4: a pass after a bid, double or redouble ends the auction; the bidder
                # is the declarer, doubled or redoubled as it stands.
                self._end_auction(passed_out=False)
            elif first_call and self.rules.auction.opening_pass == "ends":
                self._end_auction(passed_out=True)       # C-4 option "ends"
            elif not first_call:
                self._end_auction(passed_out=True)       # C-4: the second call also a pass
            # else C-4 default: an opening pass continues; the passer may call again.
        elif call == DOUBLE:
            self._doubled = 1
        elif call == REDOUBLE:
            self._doubled = 2
        else:
            # C-4: a new bid cancels any double and redouble.
            self._bid, self._bidder, self._doubled = call, seat, 0

    def _end_auction(self, passed_out: bool) -> None:
        self._auction_over = True
        if passed_out:
            self._passed_out = True
            self._doubled = 0
            self._phase = "done"
        else:
            self._phase = "play"
            self._leader = 1 - self._bidder          # B-7, D-4: the declarer's opponent leads

    # ---- outcome ------------------------------------------------------------------------

    def _score(self, level: int, strain: str, doubled: int, declarer_tricks: int) -> tuple[int, int]:
        """The game's scoring of a played contract: ``(declarer's gain, opponent's gain)``."""
        raise NotImplementedError(f"{type(self).__name__} must score a contract by its own rules (B-11..B-14, "
                                  f"D-5, D-6)")

    def outcome(self) -> dict[str, Any]:
        """The replay format's ``expect`` object for the finished deal."""
        if self._phase != "done":
            raise RuntimeError(f"the deal is not finished (phase {self._phase!r})")
        if self._passed_out:
            return {"contract": "pass", "declarer": None, "doubled": 0,
                    "tricks": [0, 0], "score": [0, 0]}
        level, strain = parse_bid(self._bid)
        declarer = self._bidder
        decl_gain, opp_gain = self._score(level, strain, self._doubled, self._tricks_won[declarer])
        score = [0, 0]
        score[declarer] = decl_gain
        score[1 - declarer] = opp_gain
        return {"contract": self._bid, "declarer": declarer, "doubled": self._doubled,
                "tricks": list(self._tricks_won), "score": score}


def replay_auction(deal: ContractDeal, calls: list) -> dict[str, str] | None:
    """C-4: replay the ``calls``, dealer first; the replay's error at the first illegal one,
    or when the auction has not ended after them, else ``None``."""
    for i, call in enumerate(calls):
        if deal.phase != "auction":
            return replay_error("C-4", f"calls[{i}]", f"{call!r} after the auction has ended")
        if error := apply_item(deal, call, f"calls[{i}]"):
            return error
    if deal.phase == "auction":
        return replay_error("C-4", f"calls[{len(calls)}]", "the auction has not ended")
    return None


# --------------------------------------------------------------------------------------
# The game (C-5, C-6)
# --------------------------------------------------------------------------------------

class ContractGame(Game):
    """A Bridgette or Draw Bridge game's flow: C-5 passed-out deals and C-6 dealer; each
    game's ``record`` adds its own end (B-15, D-7)."""

    def __init__(self, rules, first_dealer: int):
        super().__init__(rules, first_dealer)
        self._deals_counted = 0
        self._redeals = 0

    @property
    def deals_counted(self) -> int:
        """The counted deals: a C-5 "next_deal" passed-out deal counts, a "redeal" one does not."""
        return self._deals_counted

    @property
    def redeals(self) -> int:
        """The C-5 redeals made."""
        return self._redeals

    def _redeal(self, outcome: dict) -> bool:
        """C-5 "redeal": a passed-out deal does not count and the same dealer deals again. A
        game may make ``auction.max_redeals`` redeals in all; a passed-out deal after that
        abandons it. True if ``outcome`` was such a deal."""
        if outcome.get("contract") != "pass" or self.rules.auction.passed_out != "redeal":
            return False
        if self._redeals >= self.rules.auction.max_redeals:
            self._abandoned = True
            self._finished = True
        else:
            self._redeals += 1
        return True

    def _count_deal(self, outcome: dict) -> None:
        """A counted deal (C-5 "next_deal": a passed-out deal scores nothing but counts):
        its score is added and the deal alternates (C-6)."""
        self._add_score(outcome)
        self._deals_counted += 1
        self._dealer = 1 - self._dealer
