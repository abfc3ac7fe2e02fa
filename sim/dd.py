"""Double-dummy analysis from Python: the tricks a side takes with every hand seen and
perfect play, and the value of every legal card (kernels.dd does the searching).

Positions use the kernels' card ids (``kernels.cards``): Bridgette and Draw Bridge hands as
two card sets, Bid Euchre as four. Strains are 0-3 for the suits and -1 for no-trump.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kernels import dd
from kernels.cards import EUCHRE_BITS, EUCHRE_JOKER, N_CARDS
from kernels.tricks import euchre_beats_nb
from sim.resolve import check_switch


class PositionError(ValueError):
    """A position the solver cannot take, named before any search: a number out of range
    would send the search through memory it never set."""


def whole_in(value, name: str, lo: int, hi: int) -> int:
    """``value`` as an int from ``lo`` to ``hi``, else a PositionError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise PositionError(f"{name} must be a whole number from {lo} to {hi}, got {value!r}")
    return int(value)


def checked_hands(hands, seats: int, deck: int, aside: int = -1) -> list[list[int]]:
    """``seats`` hands of card ids below ``deck``, no card held twice (but by the hand of
    seat ``aside``, which the search sets aside)."""
    if not isinstance(hands, (list, tuple)) or len(hands) != seats:
        raise PositionError(f"hands must be {seats} lists of card ids, got {hands!r:.60}")
    out, seen = [], set()
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple, set, frozenset, np.ndarray)):
            raise PositionError(f"hand {seat} must be a list of card ids, got {hand!r:.60}")
        cards = [whole_in(c, f"a card of hand {seat}", 0, deck - 1) for c in hand]
        twice = next((c for c in cards if c in seen or cards.count(c) > 1), None)
        if twice is not None and seat != aside:
            raise PositionError(f"card {twice} is held twice")
        if seat != aside:
            seen.update(cards)
        out.append(cards)
    return out


def _mask(cards) -> np.uint64:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return np.uint64(m)


@dataclass
class Solver:
    """A transposition table and search statistics, reused across solves (one per thread)."""

    flags: int = dd.ALL_TECHNIQUES
    table: np.ndarray = field(default_factory=dd.new_table)
    ctx: np.ndarray = field(init=False)

    def __post_init__(self):
        if isinstance(self.flags, (bool, np.bool_)) or not isinstance(self.flags, (int, np.integer)):
            raise TypeError(f"flags must be a whole number of kernels.dd technique bits, got {self.flags!r:.60}")
        self.flags = int(self.flags)  # numpy's unsigned types refuse the mask below
        if not 0 <= self.flags <= dd.ALL_TECHNIQUES or self.flags & ~dd.ALL_TECHNIQUES:
            raise ValueError(f"flags must hold only the bits of kernels.dd.ALL_TECHNIQUES ({dd.ALL_TECHNIQUES}), "
                             f"got {self.flags}")
        t = self.table
        if not isinstance(t, np.ndarray) or t.dtype != dd.TT_DTYPE or t.ndim != 1:
            raise TypeError("table must be a transposition table of kernels.dd.new_table(bits), got "
                            + (f"an array of {t.dtype} and shape {t.shape}" if isinstance(t, np.ndarray)
                               else f"{t!r:.60}"))
        size = t.shape[0]
        if size < 2 or size & (size - 1) or not t.flags.writeable or not t.flags.c_contiguous:
            # a search indexes it by its size minus 2 as a mask: any other size reads outside it
            raise ValueError(f"table must hold 2**bits entries, bits 1 or more, writeable and in one piece "
                             f"(kernels.dd.new_table(bits)), got {size:,} entries")
        self.ctx = dd.new_context(self.flags)

    @property
    def euchre_table(self) -> np.ndarray:
        """The table the single deck's Bid Euchre solves use: the first 2^14 entries of the
        context's own (as in the game kernels, kernels.dd.search_table_nb; the double deck
        searches all of it). A deal's search is a few hundred nodes, and a table that stays
        in the cache beats a large one."""
        return self.ctx["tt"][0][:dd.EUCHRE_TT]

    @property
    def stats(self) -> np.ndarray:
        """Nodes, table hits and searches so far (``kernels.dd.ST_*``)."""
        return self.ctx["stats"][0]

    def _contract(self, hands, trump, when_void, to_move=0, lead=-1, barred=-1):
        """The position into the context, each number checked first (PositionError)."""
        hands = checked_hands(hands, 2, N_CARDS)
        trump = whole_in(trump, "trump", -1, 3)
        to_move = whole_in(to_move, "to_move", 0, 1)
        lead = whole_in(lead, "lead", -1, N_CARDS - 1)
        whole_in(barred, "barred", -1, 3)
        if lead >= 0 and any(lead in hand for hand in hands):
            raise PositionError(f"lead {lead} is still in a hand: the card led is played")
        if len(hands[to_move]) != len(hands[1 - to_move]) + (lead >= 0):
            raise PositionError("the hands hold unequal numbers of cards (with a card led, the other one more)")
        self.ctx["hands"][0, :2] = (_mask(hands[0]), _mask(hands[1]))
        self.ctx["trump"] = trump
        self.ctx["when_void"] = check_switch("when_void", when_void)

    # --- Bridgette and Draw Bridge (B-7..B-10, D-4) ---

    def contract_tricks(self, hands, trump: int, to_move: int, lead: int = -1, barred: int = -1,
                        when_void: bool = False) -> int:
        """Tricks ``to_move`` takes from here (counting a trick in progress: ``lead``, the
        card the other seat led). ``barred``: the suit the leader may not lead (B-8)."""
        self._contract(hands, trump, when_void, to_move, lead, barred)
        return int(dd.contract_value_nb(self.table, self.ctx, to_move, lead, barred))

    def contract_card_values(self, hands, trump: int, to_move: int, lead: int = -1, barred: int = -1,
                             when_void: bool = False) -> dict[int, int]:
        """Every legal card of ``to_move`` -> the tricks it takes from here after playing it."""
        self._contract(hands, trump, when_void, to_move, lead, barred)
        values = np.empty(N_CARDS, dtype=np.int64)
        dd.contract_card_values_nb(self.table, self.ctx, to_move, lead, barred, values)
        return {c: int(v) for c, v in enumerate(values) if v >= 0}

    # --- Bid Euchre (E-2, E-6) ---

    def euchre_tricks(self, hands, trump: int, to_move: int, trick=(), out_seat: int = -1,
                      double_deck: bool = False, joker: bool = False) -> int:
        """Tricks ``to_move``'s team takes from here, counting the trick in progress
        (``trick``: the (seat, card) pairs played to it, leader first). The hand of
        ``out_seat`` (E-4, E-5: partner of a lone bidder) is set aside."""
        return self._euchre(hands, trump, to_move, trick, out_seat, double_deck, joker, None)

    def euchre_card_values(self, hands, trump: int, to_move: int, trick=(), out_seat: int = -1,
                           double_deck: bool = False, joker: bool = False) -> dict[int, int]:
        """Every legal card of ``to_move`` -> its team's tricks from here after playing it
        (one key per card; a double-deck copy under its first copy's id)."""
        values: dict[int, int] = {}
        self._euchre(hands, trump, to_move, trick, out_seat, double_deck, joker, values)
        return values

    def _euchre(self, hands, trump, to_move, trick, out_seat, double_deck, joker, values):
        double_deck, joker = check_switch("double_deck", double_deck), check_switch("joker", joker)
        deck = EUCHRE_JOKER + 1 if joker else 48 if double_deck else 24
        out_seat = whole_in(out_seat, "out_seat", -1, 3)
        hands = checked_hands(hands, 4, deck, aside=out_seat)
        if not joker and any(c == EUCHRE_JOKER for hand in hands for c in hand):
            raise PositionError("the joker (48) is in a hand without joker=True")
        trump = whole_in(trump, "trump", 0, 3)
        to_move = whole_in(to_move, "to_move", 0, 3)
        if not isinstance(trick, (list, tuple)) or len(trick) > 3 or not all(
                isinstance(t, (list, tuple)) and len(t) == 2 for t in trick):
            raise PositionError("trick must be up to 3 (seat, card) pairs played to the trick, leader first")
        trick = [(whole_in(seat, "a trick's seat", 0, 3), whole_in(card, "a trick's card", 0, deck - 1))
                 for seat, card in trick]
        if any(card in hand for _, card in trick for seat, hand in enumerate(hands) if seat != out_seat):
            raise PositionError("a card played to the trick is still in a hand")
        _euchre_turns(hands, to_move, trick, out_seat)
        masks = np.array([_mask(hand) for hand in hands], dtype=np.uint64)
        leader = trick[0][0] if trick else to_move
        lead = best = best_seat = -1
        for seat, card in trick:
            if lead < 0:
                lead, best, best_seat = card, card, seat
            elif euchre_beats_nb(card, best, trump):
                best, best_seat = card, seat
        out = np.empty(EUCHRE_BITS if values is not None else 0, dtype=np.int64)
        value = dd.euchre_card_values_nb(self.ctx, masks, to_move, trump, out_seat, double_deck, joker,
                                         leader, len(trick), lead, best, best_seat, out)
        if values is not None:
            values.update((c, int(v)) for c, v in enumerate(out) if v >= 0)
        return int(value)


def _euchre_turns(hands, to_move: int, trick, out_seat: int) -> None:
    """C-2, E-6: the trick's seats in turn from its leader (the seat sitting out skipped),
    ``to_move`` next, and each hand's size as those turns leave it: one card fewer for the
    seats that played to the trick. A PositionError otherwise."""
    leader = trick[0][0] if trick else to_move
    if out_seat in (leader, to_move):
        raise PositionError(f"seat {out_seat} is set aside (out_seat): it neither leads nor plays")
    order = [s % 4 for s in range(leader, leader + 4) if s % 4 != out_seat]
    if len(trick) >= len(order) or [seat for seat, _ in trick] + [to_move] != order[:len(trick) + 1]:
        raise PositionError(f"from the trick's leader, seat {leader}, the seats play in turn {order}: the trick's "
                            f"seats {[s for s, _ in trick]} then to_move {to_move} break that order")
    size = len(hands[to_move])
    played = {seat for seat, _ in trick}
    if any(len(hands[s]) != size - (s in played) for s in order):
        raise PositionError("the hands hold unequal numbers of cards (a seat that played to the trick one fewer)")


@lru_cache(maxsize=None)
def euchre_layout(trump: int, double_deck: bool, joker: bool):
    return dd.euchre_layout(trump, double_deck, joker)


def contract_table(solver: Solver, hands, when_void: bool = False) -> np.ndarray:
    """B-7, D-4: tricks per strain (C, D, H, S, NT) and declarer, the opponent leading."""
    if not isinstance(solver, Solver):
        raise TypeError(f"solver must be a sim.dd.Solver (Solver()), got {solver!r:.60}")
    solver._contract(hands, -1, when_void)
    table = np.zeros((5, 2), dtype=np.int64)
    dd.contract_table_nb(solver.table, solver.ctx, table)
    return table
