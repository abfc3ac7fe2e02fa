"""Par of a Bridgette or Draw Bridge deal: the contract and score both players reach when
each bids to improve its own result, knowing every card (docs/dd.md, "Par").

Definition. Par is the value of the auction played as a two-player zero-sum game of
perfect information, each player's objective being its own score minus the opponent's on
this deal, and the principal line of that game:

* the auction is C-4's: the dealer calls first and the players alternate; a bid must
  outrank the current bid; a player may double the opponent's undoubled bid and the
  doubled bidder may redouble; a new bid wipes out any double; a pass after a bid, double
  or redouble ends the auction; ``auction.opening_pass`` decides whether an opening pass
  ends it ("ends") or lets the other player call ("continues", when a second pass
  passes the deal out); a passed-out deal scores 0 for both;
* on the game's ladder (Bridgette B-5: 0NT, 1C .. 7NT; Draw Bridge D-3: 1C .. 7NT) and, in
  Bridgette, under B-6's holding restrictions (``auction.min_trump_cards``,
  ``auction.nt_needs_all_suits``, ``auction.jump_min_cards``) applied to the hand of the
  player who bids, as held at the start of the auction (after the B-3 exchange). The
  legal calls are the engine's own (``kernels.calls.legal_calls_nb``), so a jump is
  what the engine calls one: a suit bid above the lowest level at which that suit would
  outrank the current bid (with no bid yet, above level 1); no-trump bids never jump;
* once the auction ends, the contract is scored by the game's scoring with every option
  of the rules given (Bridgette B-11..B-14, Draw Bridge D-5/D-6 with
  ``scoring.undertricks``; the referees' ``score_deal``, which the differential tests tie
  to the kernels' score tables), the declarer taking the double-dummy tricks of the table
  (strain, declarer) -- tricks with the opponent leading, as B-7/D-4 have it.

The game is solved by memoised minimax (negamax) over auction states: no bid yet (the
dealer to call, or the non-dealer after an opening pass), or (current bid, its bidder,
doubled 0/1/2), whose turn following from those (the doubled bidder after a double, its
opponent otherwise). Every call leads to a strictly later state, so the states form a small
DAG (at most 2 + 36 x 2 x 3), each solved once.

Decisions:

* The value is unique; the contract is not always (two lines may score the same). Ties
  are broken the same way at every state, in this order of calls: pass, double,
  redouble, then bids from the lowest up. So a player who cannot gain by calling passes,
  and a bid is the cheapest one that reaches the value. The principal auction follows
  these choices from the first call to the last pass.
* In both games only one player scores on a deal, so the value (seat 0's score minus
  seat 1's) fixes the score of each seat: ``max(v, 0)`` and ``max(-v, 0)``.
* The table is taken as given: any (5, 2) array of tricks 0..13 (rows C, D, H, S, NT;
  columns the declarer), so par can be asked of hypothetical tables too.
* Draw Bridge has no holding restrictions (D-3): its hands are not needed. Bridgette
  needs both hands unless the rules switch every B-6 restriction off
  (``min_trump_cards = 0``, ``nt_needs_all_suits = false``, ``jump_min_cards = 0``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, N_BIDS, call_name
from kernels.calls import legal_calls_nb
from kernels.cards import N_CARDS
from sim.rules import BridgetteRules, DrawBridgeRules

STRAINS = ("C", "D", "H", "S", "NT")
CALL_ORDER = (CALL_PASS, CALL_DOUBLE, CALL_REDOUBLE, *range(N_BIDS))  # the tie-break order

OPEN, AFTER_PASS = "open", "after_pass"  # the states before any bid


@dataclass(frozen=True)
class Par:
    """The par of a deal. ``contract`` is a bid ("2D") or "pass" (passed out, ``declarer``
    and ``tricks`` None); ``tricks`` the declarer's double-dummy tricks; ``score`` per seat;
    ``auction`` the calls of the principal line, dealer first."""

    contract: str
    declarer: int | None
    doubled: int
    tricks: int | None
    score: tuple[int, int]
    auction: tuple[str, ...]

    @property
    def value(self) -> int:
        """Seat 0's score minus seat 1's."""
        return self.score[0] - self.score[1]

    def to_dict(self) -> dict:
        return {"contract": self.contract, "declarer": self.declarer, "doubled": self.doubled,
                "tricks": self.tricks, "score": list(self.score), "auction": list(self.auction)}


def _mask(cards) -> np.uint64:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return np.uint64(m)


def _game(rules):
    """(score_deal, lowest bid, B-6 limits) of the rules' game."""
    if isinstance(rules, BridgetteRules):
        from sim.reference.bridgette import score_deal

        a = rules.auction
        return score_deal, 0, (a.min_trump_cards, a.nt_needs_all_suits, a.jump_min_cards)
    if isinstance(rules, DrawBridgeRules):
        from sim.reference.draw_bridge import score_deal

        return score_deal, 1, (0, False, 0)  # D-3: 1C..7NT, no holding requirements
    raise TypeError(f"par is defined for Bridgette and Draw Bridge rules, not {type(rules).__name__}")


def _tricks_table(table, most: int = 13) -> np.ndarray:
    """``table`` as the (5, 2) whole numbers of tricks, 0 to ``most``, it must be (else a
    PositionError, as every argument of a position)."""
    try:
        array = np.asarray(table)
    except ValueError:  # rows of unequal lengths
        array = np.zeros(0)
    if array.shape != (5, 2) or array.dtype.kind not in "iuf" or not np.all(np.isfinite(array)) \
            or np.any(array % 1) or array.min() < 0 or array.max() > most:
        from sim.dd import PositionError

        raise PositionError(f"the table must be 5 strains x 2 declarers of whole tricks 0..{most}")
    return array.astype(np.int64)


def contract_score(table, rules, bid: int, declarer: int, doubled: int) -> tuple[int, int]:
    """The score per seat of contract ``bid`` (ladder index) by ``declarer``, doubled 0/1/2,
    the declarer taking ``table[strain, declarer]`` tricks."""
    from sim.dd import whole_in

    score_deal = _game(rules)[0]
    table = _tricks_table(table)
    bid, declarer = whole_in(bid, "bid", 0, N_BIDS - 1), whole_in(declarer, "declarer", 0, 1)
    doubled = whole_in(doubled, "doubled (0, 1 doubled, 2 redoubled)", 0, 2)
    strain = int(BID_STRAIN[bid])
    gain, loss = score_deal(rules, int(BID_LEVEL[bid]), STRAINS[strain], doubled, int(table[strain, declarer]))
    return (gain, loss) if declarer == 0 else (loss, gain)


def par(table, hands, dealer: int, rules) -> Par:
    """The par of a deal: ``table`` the (5, 2) double-dummy tricks (``sim.dd.contract_table``),
    ``hands`` the two hands at the start of the auction as card ids (for B-6; may be None
    in Draw Bridge), ``dealer`` the seat that calls first, ``rules`` the game's rules."""
    from sim.dd import PositionError, checked_hands, whole_in

    _, lowest, (min_trump, nt_all, jump_min) = _game(rules)
    dealer = whole_in(dealer, "the dealer", 0, 1)
    if hands is None:
        if min_trump or nt_all or jump_min:
            raise ValueError("Bridgette's B-6 restrictions need both hands")
        masks = (np.uint64(0), np.uint64(0))
        table = _tricks_table(table)
    else:
        hands = checked_hands(hands, 2, N_CARDS)
        if len(hands[0]) != len(hands[1]):
            raise PositionError("the hands hold unequal numbers of cards")
        table = _tricks_table(table, len(hands[0]))  # no side takes more tricks than its cards
        masks = (_mask(hands[0]), _mask(hands[1]))
    opening_pass_ends = rules.auction.opening_pass == "ends"
    memo: dict = {}

    def to_move(state):
        if state == OPEN:
            return dealer
        if state == AFTER_PASS:
            return 1 - dealer
        _, bidder, doubled = state
        return bidder if doubled == 1 else 1 - bidder

    def after(state, call):
        """(the next state, None), or (None, the final contract) when the call ends the
        auction: (bid, declarer, doubled), or None for a passed-out deal."""
        if call == CALL_PASS:
            if state == OPEN and not opening_pass_ends:
                return AFTER_PASS, None
            return None, (None if state in (OPEN, AFTER_PASS) else state)
        if call in (CALL_DOUBLE, CALL_REDOUBLE):
            bid, bidder, _ = state
            return (bid, bidder, 1 if call == CALL_DOUBLE else 2), None
        return (call, to_move(state), 0), None

    def final_score(contract):
        return (0, 0) if contract is None else contract_score(table, rules, *contract)

    def solve(state):
        """(the mover's score minus the opponent's under minimax, the call that gets it)."""
        if state in memo:
            return memo[state]
        seat = to_move(state)
        cur, bidder, doubled = (-1, -1, 0) if state in (OPEN, AFTER_PASS) else state
        legal = int(legal_calls_nb(masks[seat], seat, cur, bidder, doubled, lowest, min_trump, nt_all,
                                   jump_min))
        best = best_call = None
        for call in CALL_ORDER:
            if not legal >> call & 1:
                continue
            nxt, contract = after(state, call)
            if nxt is None:
                score = final_score(contract)
                v = score[seat] - score[1 - seat]
            else:
                v = solve(nxt)[0] * (1 if to_move(nxt) == seat else -1)
            if best is None or v > best:
                best, best_call = v, call
        memo[state] = (best, best_call)
        return memo[state]

    state, auction = OPEN, []
    while state is not None:
        call = solve(state)[1]
        auction.append(call_name(call))
        state, contract = after(state, call)
    if contract is None:
        return Par("pass", None, 0, None, (0, 0), tuple(auction))
    bid, declarer, doubled = contract
    return Par(call_name(bid), declarer, doubled, int(table[BID_STRAIN[bid], declarer]),
               final_score(contract), tuple(auction))
