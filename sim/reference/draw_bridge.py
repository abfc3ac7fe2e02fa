"""Reference referee for Draw Bridge (RULES.md sections C and D), written from RULES.md alone.

Readability and fidelity to RULES.md come first; speed does not matter here. Every rule is
cited by its id (D-2, C-4, ...). This module is independent of the numba kernels (it never
imports them); what RULES.md says once for every game, and for both contract games, it
shares with the other referees (``sim.reference.common``, ``sim.reference.contract``). The
public API:

* ``IllegalAction(rule, message, at=None)`` -- raised for any action the rules forbid.
* ``DrawBridgeDeal(rules, dealer, hands, stock)`` -- one deal with explicit phases
  ``"draw" -> "auction" -> "play" -> "done"``; ``legal_actions()`` / ``apply(action)``.
* ``score_deal(rules, level, strain, doubled, declarer_tricks)`` -- D-5 and D-6.
* ``replay(case)`` -- replays one line of the RULES.md replay format (game ``"draw-bridge"``).
* ``DrawBridgeGame(rules, first_dealer)`` -- the game flow of D-7 with C-5 and C-6.

Cards and calls are strings in C-2 notation: ``"AS"``, ``"TH"``, ``"9C"``; calls ``"1C"`` ...
``"7NT"`` (D-3: no level 0), ``"P"``, ``"X"``, ``"XX"``. Seats are 0 and 1.

Decisions taken where RULES.md leaves room (each is repeated where it is implemented):

* ``draw.show_stock_top`` changes what the players see, never what is legal or who wins;
  the referee exposes the face-up card as ``visible_stock_top``.
* During the draw phase an action that is not a card in the mover's hand (a call included)
  is reported under D-2; during the auction a card or unknown string is "not on the ladder"
  (D-3); during the contract play a call is "a call after the auction" (C-4) and anything
  else not in hand is D-4. ``"2C"`` .. ``"7S"`` are both cards and bids (C-2): in a card
  phase they are read as cards, in the auction as bids.
* D-7: with only one seat scoring per deal (D-5/D-6) nobody can reach the target together
  with the other seat; should an outcome ever give both seats points that take both to the
  target, the higher total wins and equal totals play on.
"""

from __future__ import annotations

from typing import Any

from sim.reference.common import PASS, SUITS, IllegalAction, apply_item, replay_error, replay_rules
from sim.reference.contract import (  # noqa: F401 (re-exported: the game's vocabulary)
    DOUBLE, LEVEL_BIDS, RANK_VALUE, RANKS, REDOUBLE, STRAINS, SUITED_CARDS, ContractDeal, ContractGame, check_played,
    parse_bid, replay_auction,
)

# --------------------------------------------------------------------------------------
# Cards (C-1, C-2, D-1)
# --------------------------------------------------------------------------------------

DECK = SUITED_CARDS                                # D-1: the 52 cards
DECK_SET = frozenset(DECK)


def deck_for(rules) -> list[str]:
    """D-1: the 52 cards, whatever the rules."""
    return list(DECK)


def is_card(x: Any) -> bool:
    """True for one of the 52 cards in C-2 notation."""
    return isinstance(x, str) and x in DECK_SET


def suit_of(card: str) -> str:
    return card[1]


def rank_value(card: str) -> int:
    return RANK_VALUE[card[0]]


# --------------------------------------------------------------------------------------
# Calls (C-2, C-4, D-3)
# --------------------------------------------------------------------------------------

# D-3: the 35-bid ladder, low to high: 1C 1D 1H 1S 1NT, 2C ... 7NT (no level 0).
LADDER = LEVEL_BIDS
LADDER_INDEX = {bid: i for i, bid in enumerate(LADDER)}
CALLS = frozenset(LADDER) | {PASS, DOUBLE, REDOUBLE}


def is_call(x: Any) -> bool:
    """True for a call on the Draw Bridge ladder (D-3) or P / X / XX (C-4)."""
    return isinstance(x, str) and x in CALLS


def is_call_only(x: Any) -> bool:
    """A call that is not also a card: ``"2C"`` .. ``"7S"`` name both a bid and a card (C-2),
    so during a card phase they are cards; ``"1C"``, the no-trump bids, P, X, XX are not."""
    return is_call(x) and not is_card(x)


# --------------------------------------------------------------------------------------
# Scoring (D-5, D-6)
# --------------------------------------------------------------------------------------

def made_value(rules, strain: str, tricks_over_six: int) -> int:
    """D-5, undoubled: each trick over six (overtricks included) scores
    ``scoring.major_trick`` (30) in spades or hearts, ``scoring.minor_trick`` (20) in clubs
    or diamonds; in no-trump ``scoring.nt_first_trick`` (40) for the first and
    ``scoring.nt_trick`` (30) for each further."""
    sc = rules.scoring
    if tricks_over_six <= 0:
        return 0
    if strain in ("S", "H"):
        return sc.major_trick * tricks_over_six
    if strain in ("C", "D"):
        return sc.minor_trick * tricks_over_six
    if strain == "NT":
        return sc.nt_first_trick + sc.nt_trick * (tricks_over_six - 1)
    raise ValueError(f"unknown strain {strain!r}")


def bridge_undertricks(rules, short: int, doubled: int) -> int:
    """D-6 ``"bridge"``: the n-th undertrick scores entry n of ``scoring.undertricks_undoubled``,
    ``_doubled`` or ``_redoubled``, the last entry for each after it.

    Defaults, non-vulnerable contract-bridge undertricks: undoubled 50 each; doubled 100 for
    the first, 200 for the second and third, 300 for each after; redoubled twice the
    doubled values."""
    sc = rules.scoring
    row = (sc.undertricks_undoubled, sc.undertricks_doubled, sc.undertricks_redoubled)[doubled]
    total = 0
    for n in range(1, short + 1):          # the n-th undertrick
        total += row[n - 1] if n <= len(row) else row[-1]
    return total


def score_deal(rules, level: int, strain: str, doubled: int, declarer_tricks: int) -> tuple[int, int]:
    """Score one played contract: ``(declarer's gain, opponent's gain)`` (D-5, D-6).

    ``level`` 1..7 (D-3), ``strain`` ``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``;
    ``doubled`` 0, 1 or 2; ``declarer_tricks`` 0..13 taken in the contract play."""
    if f"{level}{strain}" not in LADDER_INDEX:
        raise ValueError(f"{level}{strain} is not a Draw Bridge contract (D-3)")
    check_played(doubled, declarer_tricks)
    needed = 6 + level
    if declarer_tricks >= needed:
        # D-5: every trick over six counts (the contracted ones and the overtricks);
        # doubled x2, redoubled x4 (scoring.double_factor, redouble_factor). The declarer's
        # opponent scores nothing.
        sc = rules.scoring
        factor = {0: 1, 1: sc.double_factor, 2: sc.redouble_factor}[doubled]
        return made_value(rules, strain, declarer_tricks - 6) * factor, 0
    # D-6: a failed contract; the declarer never scores.
    short = needed - declarer_tricks
    mode = rules.scoring.undertricks
    if mode == "none":
        return 0, 0
    if mode == "bridge":
        return 0, bridge_undertricks(rules, short, doubled)
    raise ValueError(f"unknown scoring.undertricks {mode!r}")


# --------------------------------------------------------------------------------------
# One deal
# --------------------------------------------------------------------------------------

class DrawBridgeDeal(ContractDeal):
    """One Draw Bridge deal from the dealt hands and stock to the score.

    The constructor validates the deal (D-1). The phases are ``"draw"`` (D-2: 13 tricks,
    each followed by the winner's and then the loser's draw from the stock), ``"auction"``
    (C-4 with the D-3 ladder, dealer first), ``"play"`` (D-4 with C-3: 13 tricks, the
    declarer's opponent leads) and ``"done"`` (also straight after a passed-out auction)."""

    _ladder_index = LADDER_INDEX  # the game's bids, lowest first (C-4's outranking)

    def __init__(self, rules=None, dealer: int = 0, hands: list[list[str]] | None = None,
                 stock: list[str] | None = None):
        if rules is None:
            from sim.rules import DrawBridgeRules
            rules = DrawBridgeRules()
        self.rules = rules
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise IllegalAction("D-1", f"dealer must be seat 0 or 1, got {dealer!r}", at="dealer")
        self.dealer = dealer
        self.nondealer = 1 - dealer
        self._validate_deal(hands, stock)
        self._dealt = [list(h) for h in hands]
        self._hands = [list(h) for h in hands]
        self._stock = list(stock)                # top first; drawn cards are popped off the front
        self._phase = "draw"
        # D-2 draw-phase state: the non-dealer leads the first trick.
        self._leader: int | None = self.nondealer
        self._trick: list[str] = []
        self._draw_tricks_won = [0, 0]
        self._draw_history: list[tuple[int, list[str], int, str, str]] = []
        self._new_auction()                      # C-4
        # D-4 contract-play state.
        self._tricks_won = [0, 0]
        self._history: list[tuple[int, list[str], int]] = []

    # ---- D-1: the deal must match the deck ------------------------------------------

    @staticmethod
    def _validate_deal(hands, stock) -> None:
        """D-1: 13 cards to each seat, the other 26 cards of the 52-card deck in the stock."""
        if not isinstance(hands, (list, tuple)) or len(hands) != 2:
            raise IllegalAction("D-1", "a Draw Bridge deal has two hands", at="hands")
        seen: set[str] = set()
        for seat, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)) or len(hand) != 13:
                n = len(hand) if isinstance(hand, (list, tuple)) else hand
                raise IllegalAction("D-1", f"seat {seat} must be dealt 13 cards, got {n!r}",
                                    at="hands")
            for card in hand:
                if not is_card(card):
                    raise IllegalAction("D-1", f"seat {seat} holds {card!r}, not one of the 52 cards",
                                        at="hands")
                if card in seen:
                    raise IllegalAction("D-1", f"{card} is dealt twice", at="hands")
                seen.add(card)
        if not isinstance(stock, (list, tuple)):
            raise IllegalAction("D-1", "the stock must be a list of cards", at="stock")
        for card in stock:
            if not is_card(card):
                raise IllegalAction("D-1", f"the stock holds {card!r}, not one of the 52 cards",
                                    at="stock")
            if card in seen:
                raise IllegalAction("D-1", f"{card} appears twice in the deal", at="stock")
            seen.add(card)
        if len(stock) != 26:
            missing = [c for c in DECK if c not in seen]
            raise IllegalAction("D-1", f"the stock must hold the other 26 cards of the deck, got "
                                f"{len(stock)} (missing: {' '.join(missing)})", at="stock")

    # ---- read-only views (and those of ContractDeal) ---------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat to act: D-2 / D-4 / C-3 the leader then the other seat; C-4 calls dealer
        first and then alternately; ``None`` when done."""
        if self._phase in ("draw", "play"):
            return (self._leader + len(self._trick)) % 2
        if self._phase == "auction":
            return (self.dealer + len(self._calls)) % 2
        return None

    @property
    def stock(self) -> list[str]:
        """The cards still in the stock, top first."""
        return list(self._stock)

    @property
    def stock_top(self) -> str | None:
        """The card on top of the stock now (``None`` once the stock is empty)."""
        return self._stock[0] if self._stock else None

    @property
    def visible_stock_top(self) -> str | None:
        """D-2 ``draw.show_stock_top``: the stock's top card, face up during the draw phase;
        ``None`` when the option is off or outside the draw phase. Information only: it
        changes nothing about legality or trick winners."""
        if self.rules.draw.show_stock_top and self._phase == "draw":
            return self.stock_top
        return None

    @property
    def leader(self) -> int | None:
        """The seat leading (or that led) the current trick of the draw or contract play."""
        return self._leader if self._phase in ("draw", "play") else None

    @property
    def draw_tricks_won(self) -> list[int]:
        """D-2: draw-phase tricks per seat (they score nothing)."""
        return list(self._draw_tricks_won)

    @property
    def draw_history(self) -> list[tuple[int, list[str], int, str, str]]:
        """D-2 tricks: ``(leader, [lead, follow], winner, drawn_by_winner, drawn_by_loser)``."""
        return [(ld, list(cs), w, dw, dl) for ld, cs, w, dw, dl in self._draw_history]

    # ---- legal actions ---------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """The legal cards (draw / play) or calls (auction) for ``to_move``; ``[]`` when done."""
        if self._phase == "draw":
            seat = self.to_move
            return [c for c in self._hands[seat] if self._draw_play_problem(seat, c) is None]
        if self._phase == "auction":
            seat = self.to_move
            return [c for c in list(LADDER) + [PASS, DOUBLE, REDOUBLE]
                    if self._call_problem(seat, c) is None]
        if self._phase == "play":
            seat = self.to_move
            return [c for c in self._hands[seat] if self._contract_play_problem(seat, c) is None]
        return []

    # ---- D-2: the draw phase ------------------------------------------------------------

    def _draw_play_problem(self, seat: int, card: Any) -> tuple[str, str] | None:
        """``(rule, message)`` if ``seat`` may not play ``card`` in the draw phase, else None."""
        if not is_card(card) or card not in self._hands[seat]:
            what = f"the call {card}" if is_call_only(card) else repr(card)
            return "D-2", f"{what} is not a card in seat {seat}'s hand (draw phase)"
        if self._trick and self.rules.draw.must_follow:
            # D-2 draw.must_follow: a player holding the suit led must play one.
            led_suit = suit_of(self._trick[0])
            if suit_of(card) != led_suit and any(suit_of(c) == led_suit for c in self._hands[seat]):
                return "D-2", (f"seat {seat} holds {led_suit} and must follow {self._trick[0]} "
                               f"(draw.must_follow), not play {card}")
        return None

    def draw_trick_winner(self, leader: int, led: str, follow: str) -> int:
        """D-2: the winner of a draw-phase trick (no trumps).

        ``"highest_rank"``: the higher rank wins whatever the suit; equal ranks: the leader.
        ``"led_suit"``: the highest card of the suit led; a card of another suit never wins."""
        follower = 1 - leader
        mode = self.rules.draw.trick_winner
        if mode == "highest_rank":
            return follower if rank_value(follow) > rank_value(led) else leader
        if mode == "led_suit":
            if suit_of(follow) == suit_of(led) and rank_value(follow) > rank_value(led):
                return follower
            return leader
        raise ValueError(f"unknown draw.trick_winner {mode!r}")

    def _apply_draw_play(self, card: Any) -> None:
        seat = self.to_move
        problem = self._draw_play_problem(seat, card)
        if problem:
            raise IllegalAction(*problem)
        self._hands[seat].remove(card)
        self._trick.append(card)
        if len(self._trick) < 2:
            return
        leader = self._leader
        winner = self.draw_trick_winner(leader, self._trick[0], self._trick[1])
        loser = 1 - winner
        # D-2: the winner draws the top card of the stock, then the loser the next
        # (compulsory: both hands are back to 13).
        drawn_by_winner = self._stock.pop(0)
        self._hands[winner].append(drawn_by_winner)
        drawn_by_loser = self._stock.pop(0)
        self._hands[loser].append(drawn_by_loser)
        self._draw_history.append((leader, list(self._trick), winner, drawn_by_winner, drawn_by_loser))
        self._draw_tricks_won[winner] += 1
        self._trick = []
        self._leader = winner                    # D-2: the winner leads the next trick
        if len(self._draw_history) == 13:
            # D-3: after the draw phase (both hold 13 cards again) the auction, dealer first.
            assert not self._stock and all(len(h) == 13 for h in self._hands)
            self._leader = None
            self._phase = "auction"

    # ---- C-4 / D-3: the auction ---------------------------------------------------------

    def _call_problem(self, seat: int, call: Any) -> tuple[str, str] | None:
        """``(rule, message)`` if ``call`` is illegal for ``seat`` now, else ``None``."""
        if not is_call(call):
            return "D-3", f"{call!r} is not a call on the Draw Bridge ladder (1C .. 7NT, P, X, XX)"
        return self._auction_problem(seat, call)  # D-3: no holding restrictions

    # ---- D-4 / C-3: the contract play ---------------------------------------------------

    def _contract_play_problem(self, seat: int, card: Any) -> tuple[str, str] | None:
        """``(rule, message)`` if ``seat`` may not play ``card`` in the contract play."""
        if not is_card(card) or card not in self._hands[seat]:
            return "D-4", f"{card!r} is not in seat {seat}'s hand"
        if self._trick:
            # C-3: a player holding a card of the suit led must play one.
            led_suit = suit_of(self._trick[0])
            if suit_of(card) != led_suit and any(suit_of(c) == led_suit for c in self._hands[seat]):
                return "C-3", f"seat {seat} holds {led_suit} and must follow {self._trick[0]}, not play {card}"
        return None

    def contract_trick_winner(self, leader: int, led: str, follow: str) -> int:
        """C-3: the highest trump played wins, else the highest card of the suit led."""
        follower = 1 - leader
        trump = self.trump
        if suit_of(follow) == suit_of(led):
            return follower if rank_value(follow) > rank_value(led) else leader
        if trump is not None and suit_of(follow) == trump:
            return follower                       # a trump on a non-trump lead
        return leader                             # an off-suit discard loses

    def _apply_contract_play(self, card: Any) -> None:
        seat = self.to_move
        problem = self._contract_play_problem(seat, card)
        if problem:
            raise IllegalAction(*problem)
        self._hands[seat].remove(card)
        self._trick.append(card)
        if len(self._trick) < 2:
            return
        leader = self._leader
        winner = self.contract_trick_winner(leader, self._trick[0], self._trick[1])
        self._history.append((leader, list(self._trick), winner))
        self._tricks_won[winner] += 1
        self._trick = []
        self._leader = winner                     # C-3: the winner leads the next trick
        if len(self._history) == 13:
            self._leader = None
            self._phase = "done"

    # ---- apply ----------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        """Perform one action of the current phase; raise ``IllegalAction`` if forbidden."""
        if self._phase == "draw":
            self._apply_draw_play(action)
        elif self._phase == "auction":
            self._apply_call(action)
        elif self._phase == "play":
            if is_call_only(action):
                raise IllegalAction("C-4", f"the call {action} after the auction has ended")
            self._apply_contract_play(action)
        else:  # done
            if self._passed_out:
                raise IllegalAction("C-4", f"{action!r} after a passed-out deal")
            if is_call_only(action):
                raise IllegalAction("C-4", f"the call {action} after the auction has ended")
            raise IllegalAction("D-4", f"{action!r}: all 13 contract tricks have been played")

    # ---- outcome (ContractDeal.outcome) ----------------------------------------------

    def _score(self, level: int, strain: str, doubled: int, declarer_tricks: int) -> tuple[int, int]:
        return score_deal(self.rules, level, strain, doubled, declarer_tricks)   # D-5, D-6


# --------------------------------------------------------------------------------------
# Replay (RULES.md "Replay format")
# --------------------------------------------------------------------------------------

DRAW_CARDS = 26          # D-2: 13 tricks of 2 cards, play[0..25]
CONTRACT_CARDS = 26      # D-4: 13 tricks of 2 cards, play[26..51]


def replay(case: dict) -> dict:
    """Replay one parsed replay-format line of game ``"draw-bridge"`` in time order:
    the draw-phase cards ``play[0..25]``, the ``calls``, the contract cards ``play[26..]``.

    Returns the outcome (``contract``, ``declarer``, ``doubled``, ``tricks``, ``score``), or on
    the first illegal item ``{"error": rule_id, "at": "<key>[<i>]", "message": ...}`` where
    ``i`` indexes the flat ``calls`` / ``play`` lists. Invalid rule overrides raise
    ``sim.rules.RulesError``."""
    from sim.rules import DrawBridgeRules

    rules = replay_rules(case, "draw-bridge", "Draw Bridge", DrawBridgeRules)
    try:
        deal = DrawBridgeDeal(rules, case.get("dealer"), case.get("hands"), case.get("stock"))
    except IllegalAction as exc:
        return replay_error(exc.rule, exc.at or "hands", exc.message)

    play = list(case.get("play") or [])
    calls = list(case.get("calls") or [])

    # D-2: the draw phase, play[0..25].
    for i in range(min(DRAW_CARDS, len(play))):
        if error := apply_item(deal, play[i], f"play[{i}]"):
            return error
    if deal.phase == "draw":
        return replay_error("D-2", f"play[{len(play)}]",
                            f"only {len(play)} cards played; the 13 draw-phase tricks need {DRAW_CARDS}")

    # C-4 / D-3: calls, dealer first.
    if error := replay_auction(deal, calls):
        return error

    # D-4 / C-3: the contract play, play[26..].
    if deal.passed_out:
        if len(play) > DRAW_CARDS:
            return replay_error("C-4", f"play[{DRAW_CARDS}]", "cards played after a passed-out deal")
        return deal.outcome()
    for i in range(DRAW_CARDS, len(play)):
        if deal.phase != "play":
            return replay_error("D-4", f"play[{i}]", f"{play[i]!r}: all 13 contract tricks have been played")
        if error := apply_item(deal, play[i], f"play[{i}]"):
            return error
    if deal.phase != "done":
        return replay_error("D-4", f"play[{len(play)}]",
                            f"only {len(play) - DRAW_CARDS} contract cards played; 13 tricks need "
                            f"{CONTRACT_CARDS}")
    return deal.outcome()


# --------------------------------------------------------------------------------------
# The game (D-7, C-5, C-6)
# --------------------------------------------------------------------------------------

class DrawBridgeGame(ContractGame):
    """The flow of one game: D-7 target and bound, C-5 passed-out deals, C-6 dealer.

    Feed each finished deal's outcome to ``record``; ``dealer`` says who deals next.
    ``deals_counted`` counts the counted deals (a C-5 "next_deal" passed-out deal counts, a
    "redeal" one does not); ``redeals`` counts the redeals actually made. A finished game has
    a ``winner`` (seat) or is ``abandoned`` (D-7 ``game.max_deals`` counted deals without a
    winner, or a passed-out deal after C-5's ``auction.max_redeals`` redeals)."""

    def __init__(self, rules=None, first_dealer: int = 0):
        if rules is None:
            from sim.rules import DrawBridgeRules
            rules = DrawBridgeRules()
        if first_dealer not in (0, 1) or isinstance(first_dealer, bool):
            raise ValueError(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        super().__init__(rules, first_dealer)

    def record(self, outcome: dict) -> None:
        """Record one finished deal (an ``outcome()`` / replay-format ``expect`` dict)."""
        if self._finished:
            raise IllegalAction("D-7", "the game is over; no more deals")
        if self._redeal(outcome):                       # C-5 "redeal"
            return
        self._count_deal(outcome)                       # C-6: the deal passes in turn
        # D-7: the first player whose total reaches the target at the end of a deal wins;
        # a game that hits game.max_deals counted deals without a winner is abandoned.
        # (Only one seat scores per deal under D-5/D-6; both at once -> the higher total,
        # equal totals play on.)
        self._end_at_target(self.rules.game.target, self._deals_counted, self.rules.game.max_deals)
