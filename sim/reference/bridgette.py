"""Reference referee for Bridgette (RULES.md sections C and B), written from RULES.md alone.

Readability and fidelity to RULES.md come first; speed does not matter here. Every rule is
cited by its id (B-3, C-4, ...). The public API:

* ``IllegalAction(rule, message)`` -- raised for any action the rules forbid.
* ``BridgetteDeal(rules, dealer, hands, stock)`` -- one deal with explicit phases
  ``"discard" -> "auction" -> "play" -> "done"``; ``legal_actions()`` / ``apply(action)``.
* ``score_deal(rules, level, strain, doubled, declarer_tricks)`` -- B-11..B-14.
* ``replay(case)`` -- replays one line of the RULES.md replay format.
* ``BridgetteGame(rules, first_dealer)`` -- the game flow of B-15 with C-5 and C-6.

Cards and calls are strings in C-2 notation: ``"AS"``, ``"TH"``, ``"9C"``, the Colons
``"CL"`` (Little), ``"CR"`` (Royal), ``"CG"`` (Grand); calls ``"0NT"``, ``"1C"`` ...
``"7NT"``, ``"P"``, ``"X"``, ``"XX"``. Seats are 0 and 1.

What RULES.md says for every game (section C's cards, the error, the replay scaffolding) comes
from ``sim.reference.common``, and what it says for both contract games (the calls, the C-4
auction, C-5 passed-out deals) from ``sim.reference.contract``; this module keeps Bridgette's
own rules. Like them, it never imports the numba kernels.
"""

from __future__ import annotations

from functools import lru_cache

from sim.reference.common import PASS, SUITS, IllegalAction, apply_item, replay_error, replay_rules
from sim.reference.contract import (  # noqa: F401 (re-exported: the game's vocabulary)
    DOUBLE, LEVEL_BIDS, RANK_VALUE, RANKS, REDOUBLE, STRAINS, SUITED_CARDS, ContractDeal, ContractGame, check_played,
    parse_bid, replay_auction,
)

# --------------------------------------------------------------------------------------
# Cards (C-1, C-2, B-1, B-4)
# --------------------------------------------------------------------------------------

# B-1: the three Colons and the ranks each one "matches" (its range).
COLON_OF_NAME = {"little": "CL", "royal": "CR", "grand": "CG"}     # B-4 option values
COLON_RANGE = {
    "CL": frozenset("23456789T"),   # Little Colon: numerals 2-10
    "CR": frozenset("JQK"),         # Royal Colon: J, Q, K
    "CG": frozenset("A"),           # Grand Colon: aces
}
COLONS = tuple(COLON_RANGE)


def is_colon(card: str) -> bool:
    """B-1: Colons belong to no suit."""
    return card in COLON_RANGE


@lru_cache(maxsize=None)  # the checks ask it millions of times
def suit_of(card: str) -> str | None:
    """The suit letter of a suited card; ``None`` for a Colon (B-1, B-6, B-8)."""
    return None if is_colon(card) else card[1]


def rank_of(card: str) -> str | None:
    """The rank letter of a suited card; ``None`` for a Colon."""
    return None if is_colon(card) else card[0]


def in_colon_range(colon: str, card: str) -> bool:
    """B-1: a suited card is *in the range* of a Colon if its rank matches it.

    No Colon is in a Colon's range (B-9)."""
    return not is_colon(card) and card[0] in COLON_RANGE[colon]


def matching_colon(card: str) -> str:
    """B-8: the Colon whose range contains a suited card (A: Grand, J/Q/K: Royal, 2-10: Little)."""
    for colon, ranks in COLON_RANGE.items():
        if card[0] in ranks:
            return colon
    raise ValueError(f"{card!r} is not a suited card")


def deck_for(rules) -> list[str]:
    """B-1/B-4: the 52 cards plus the Colons named in ``rules.deck.colons``."""
    return list(SUITED_CARDS) + [COLON_OF_NAME[name] for name in ("little", "royal", "grand")
                                 if name in tuple(rules.deck.colons)]


def upcard_class(card: str) -> str:
    """B-3: the up-card's class: ``"numeral"`` (2-10 or the Little Colon), ``"face"`` (J, Q, K or
    the Royal Colon) or ``"ace"`` (an ace or the Grand Colon)."""
    if card == "CL" or (not is_colon(card) and card[0] in "23456789T"):
        return "numeral"
    if card == "CR" or (not is_colon(card) and card[0] in "JQK"):
        return "face"
    return "ace"


# --------------------------------------------------------------------------------------
# Calls (C-2, C-4, B-5)
# --------------------------------------------------------------------------------------

STRAIN_ORDER = {s: i for i, s in enumerate(STRAINS)}
# B-5: the 36-bid ladder, low to high: 0NT, 1C 1D 1H 1S 1NT, 2C ... 7NT.
LADDER = ("0NT",) + LEVEL_BIDS
LADDER_INDEX = {bid: i for i, bid in enumerate(LADDER)}
CALLS = frozenset(LADDER) | {PASS, DOUBLE, REDOUBLE}


# --------------------------------------------------------------------------------------
# Scoring (B-11 .. B-14)
# --------------------------------------------------------------------------------------

def contract_value(rules, level: int, strain: str) -> int:
    """B-11: the value of a made contract bid at ``level`` in ``strain``: ``scoring.nt_values``
    by level 0..7 for no-trump, ``scoring.major_values`` (hearts, spades) or
    ``scoring.minor_values`` (clubs, diamonds) by level 1..7.

    Defaults: 0NT or 1 of a suit: 150; 1NT or 2NT, 2 or 3 of a suit, 4C or 4D: 250; 3NT or
    4NT, 4H or 4S, 5 of a suit: 750; 5NT or 6 of a suit: 1500; 6NT or 7 of a suit: 2200;
    7NT: 2500."""
    sc = rules.scoring
    if strain == "NT":
        return sc.nt_values[level]
    if strain in ("H", "S"):
        return sc.major_values[level - 1]
    return sc.minor_values[level - 1]


def exact_bonus(rules, level: int, strain: str) -> int:
    """B-12: the bonus for taking exactly the tricks bid (``scoring.exact_bonus``).

    ``"ladder"``: ``scoring.exact_values`` by level (+250 for 0NT through 5NT on the
    ladder, +100 at level 6, 0 at level 7). ``"nt_reduced"``: the same, except 0NT-5NT
    score ``scoring.nt_reduced_exact`` (+100)."""
    sc = rules.scoring
    if sc.exact_bonus == "ladder":
        return sc.exact_values[level]
    if sc.exact_bonus == "nt_reduced":
        return sc.nt_reduced_exact if strain == "NT" and level <= 5 else sc.exact_values[level]
    raise ValueError(f"unknown scoring.exact_bonus {sc.exact_bonus!r}")


def penalty(rules, row: int, doubled: int) -> int:
    """B-14: the opponent's score in penalty row ``row`` (1..5 tricks short, 6 the last
    row), undoubled, doubled or redoubled (defaults 100/200/300 .. 1000/3000/4000)."""
    sc = rules.scoring
    return (sc.penalty_undoubled, sc.penalty_doubled, sc.penalty_redoubled)[doubled][row - 1]


def score_deal(rules, level: int, strain: str, doubled: int, declarer_tricks: int) -> tuple[int, int]:
    """Score one played contract: ``(declarer's gain, opponent's gain)`` (B-11..B-14).

    ``strain`` is ``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``; ``doubled`` 0, 1 or 2."""
    if (f"{level}{strain}") not in LADDER_INDEX:
        raise ValueError(f"{level}{strain} is not a Bridgette contract (B-5)")
    check_played(doubled, declarer_tricks)
    sc = rules.scoring
    needed = 6 + level
    if declarer_tricks >= needed:
        # B-11: the contract value, by the contract bid or by the tricks taken.
        if sc.made_basis == "contract":
            value = contract_value(rules, level, strain)
        elif sc.made_basis == "tricks":
            value = contract_value(rules, min(declarer_tricks - 6, 7), strain)
        else:
            raise ValueError(f"unknown scoring.made_basis {sc.made_basis!r}")
        # B-12: exact and overtrick bonuses, always against the contract bid.
        over = declarer_tricks - needed
        bonus = 0
        if over == 0:
            bonus = exact_bonus(rules, level, strain)
        elif sc.overtrick_bonus_rule == "exactly3":
            bonus = sc.overtrick_bonus if over == 3 else 0
        elif sc.overtrick_bonus_rule == "atleast3":
            bonus = sc.overtrick_bonus if over >= 3 else 0
        else:
            raise ValueError(f"unknown scoring.overtrick_bonus_rule {sc.overtrick_bonus_rule!r}")
        # B-12 doubled / redoubled bonus and B-13 multiplication.
        double_bonus = {0: 0, 1: sc.double_bonus, 2: sc.redouble_bonus}[doubled]
        factor = {0: 1, 1: sc.double_factor, 2: sc.redouble_factor}[doubled]
        if sc.multiply_bonuses:
            gain = (value + bonus + double_bonus) * factor
        else:
            gain = (value + bonus) * factor + double_bonus
        return gain, 0
    # B-14: failed contract; the opponent scores by the tricks short.
    short = needed - declarer_tricks
    if sc.penalty_last_row == "six_or_more_short":
        row = min(short, 6)
    elif sc.penalty_last_row == "failed_slam":
        row = 6 if level >= 6 else min(short, 5)
    else:
        raise ValueError(f"unknown scoring.penalty_last_row {sc.penalty_last_row!r}")
    return 0, penalty(rules, row, doubled)


# --------------------------------------------------------------------------------------
# One deal
# --------------------------------------------------------------------------------------

class BridgetteDeal(ContractDeal):
    """One Bridgette deal from the dealt hands and stock to the score.

    The constructor validates the deal (B-2, B-4) and performs the draws of B-3. Then the
    phases are ``"discard"`` (B-3, one card at a time, non-dealer first), ``"auction"``
    (C-4, B-5, B-6), ``"play"`` (B-7..B-10) and ``"done"``."""

    _ladder_index = LADDER_INDEX  # the game's bids, lowest first (C-4's outranking)

    def __init__(self, rules, dealer: int, hands: list[list[str]], stock: list[str]):
        self.rules = rules
        if dealer not in (0, 1):
            raise IllegalAction("B-2", f"dealer must be seat 0 or 1, got {dealer!r}", at="dealer")
        self.dealer = dealer
        self.nondealer = 1 - dealer
        self._validate_deal(hands, stock)
        self._dealt = [list(h) for h in hands]
        self._stock = list(stock)
        self._hands = [list(h) for h in hands]
        self._draw()
        self._discards: list[list[str]] = [[], []]
        self._new_auction()                     # C-4
        # Play state (B-7..B-10).
        self._leader: int | None = None
        self._trick: list[str] = []
        self._tricks_won = [0, 0]
        self._history: list[tuple[int, list[str], int]] = []
        self._bar: tuple[int, str] | None = None    # B-8: (seat, suit) barred at its next lead
        self._phase = "discard"
        self._advance_discard_phase()

    # ---- B-2 / B-4: the deal must match the deck ------------------------------------

    def _validate_deal(self, hands, stock) -> None:
        deck = deck_for(self.rules)
        known = set(deck)
        if not isinstance(hands, (list, tuple)) or len(hands) != 2:
            raise IllegalAction("B-2", "a Bridgette deal has two hands", at="hands")
        seen: set[str] = set()
        for seat, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)) or len(hand) != 13:
                n = len(hand) if isinstance(hand, (list, tuple)) else hand
                raise IllegalAction("B-2", f"seat {seat} must be dealt 13 cards, got {n}", at="hands")
            for card in hand:
                if card not in known:
                    raise IllegalAction("B-2", f"seat {seat} holds {card!r}, not a card of this deck "
                                        f"(B-4 Colons: {list(self.rules.deck.colons)})", at="hands")
                if card in seen:
                    raise IllegalAction("B-2", f"{card} is dealt twice", at="hands")
                seen.add(card)
        if not isinstance(stock, (list, tuple)):
            raise IllegalAction("B-2", "the stock must be a list of cards", at="stock")
        for card in stock:
            if card not in known:
                raise IllegalAction("B-2", f"the stock holds {card!r}, not a card of this deck "
                                    f"(B-4 Colons: {list(self.rules.deck.colons)})", at="stock")
            if card in seen:
                raise IllegalAction("B-2", f"{card} appears twice in the deal", at="stock")
            seen.add(card)
        if len(stock) != len(deck) - 26:
            missing = sorted(known - seen)
            raise IllegalAction("B-2", f"the stock must hold the other {len(deck) - 26} cards of the "
                                f"deck, got {len(stock)} (missing: {' '.join(missing)})", at="stock")

    # ---- B-3: the draws --------------------------------------------------------------

    def _draw(self) -> None:
        """B-3 draws with ``exchange.upcard_to``; the up-card's class sets the dealer's count
        (even when the up-card is dead)."""
        ex = self.rules.exchange
        up = self._stock[0]
        dealer_count = {"numeral": ex.dealer_draw_numeral, "face": ex.dealer_draw_face,
                        "ace": ex.dealer_draw_ace}[upcard_class(up)]
        nd_count = ex.nondealer_draw
        s = self._stock
        if ex.upcard_to == "nondealer":
            # The non-dealer draws the top cards (the up-card first), the dealer the next ones.
            nd_draw = s[0:nd_count]
            d_draw = s[nd_count:nd_count + dealer_count]
            used = nd_count + dealer_count
        elif ex.upcard_to == "dealer":
            # The non-dealer draws the cards under the up-card; the up-card is the first card
            # of the dealer's draw, the rest of it comes from under the non-dealer's cards.
            nd_draw = s[1:1 + nd_count]
            # (sim.rules validation guarantees a dealer draw of at least 1 here.)
            d_draw = [s[0]] + s[1 + nd_count:nd_count + dealer_count]
            used = nd_count + max(dealer_count, 1)
        elif ex.upcard_to == "dead":
            # The up-card is removed before anyone draws.
            nd_draw = s[1:1 + nd_count]
            d_draw = s[1 + nd_count:1 + nd_count + dealer_count]
            used = 1 + nd_count + dealer_count
        else:
            raise ValueError(f"unknown exchange.upcard_to {ex.upcard_to!r}")
        if used > len(s):
            raise ValueError(f"the B-3 draws need {used} cards but the stock holds {len(s)}")
        self._drawn = [[], []]
        self._drawn[self.nondealer] = list(nd_draw)
        self._drawn[self.dealer] = list(d_draw)
        self._hands[self.nondealer] += nd_draw
        self._hands[self.dealer] += d_draw

    def _advance_discard_phase(self) -> None:
        if self._phase == "discard" and all(len(h) <= 13 for h in self._hands):
            self._phase = "auction"

    # ---- read-only views (and those of ContractDeal) ---------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat to act: B-3 discards non-dealer first, C-4 calls dealer first and then
        alternately, B-7 play from the declarer's opponent / the trick winner; ``None`` when done."""
        if self._phase == "discard":
            return self.nondealer if len(self._hands[self.nondealer]) > 13 else self.dealer
        if self._phase == "auction":
            return (self.dealer + len(self._calls)) % 2
        if self._phase == "play":
            return (self._leader + len(self._trick)) % 2
        return None

    @property
    def drawn(self) -> list[list[str]]:
        """The cards each seat drew in the B-3 exchange."""
        return [list(d) for d in self._drawn]

    @property
    def discards(self) -> list[list[str]]:
        return [list(d) for d in self._discards]

    @property
    def upcard(self) -> str:
        return self._stock[0]

    @property
    def barred_suit(self) -> str | None:
        """B-8: the suit the seat to lead may not lead now, if any."""
        if self._phase == "play" and not self._trick and self._bar and self._bar[0] == self._leader:
            return self._bar[1]
        return None

    # ---- legal actions ---------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        if self._phase == "discard":
            # B-3: any card in hand may be discarded, one at a time.
            return list(self._hands[self.to_move])
        if self._phase == "auction":
            return [c for c in self._all_calls() if self._call_problem(self.to_move, c) is None]
        if self._phase == "play":
            seat = self.to_move
            return [c for c in self._hands[seat] if self._play_problem(seat, c) is None]
        return []

    @staticmethod
    def _all_calls() -> list[str]:
        return list(LADDER) + [PASS, DOUBLE, REDOUBLE]

    # ---- C-4 / B-5 / B-6: calls -------------------------------------------------------

    def _lowest_outranking_level(self, strain: str) -> int:
        """B-6: the lowest level at which ``strain`` outranks the current bid (level 1 for a
        suit with no current bid; 0 for no-trump with no current bid)."""
        if self._bid is None:
            return 0 if strain == "NT" else 1
        cur_level, cur_strain = parse_bid(self._bid)
        return cur_level if STRAIN_ORDER[strain] > STRAIN_ORDER[cur_strain] else cur_level + 1

    def _holding_problem(self, seat: int, bid: str) -> str | None:
        """B-6 holding requirements (Colons never count as cards of a suit)."""
        a = self.rules.auction
        hand = self._hands[seat]
        level, strain = parse_bid(bid)
        if strain == "NT":
            if a.nt_needs_all_suits:
                missing = [s for s in SUITS if not any(suit_of(c) == s for c in hand)]
                if missing:
                    return f"{bid} needs a card of every suit; seat {seat} holds no {' '.join(missing)}"
            return None  # no-trump bids have no jump requirement
        count = sum(1 for c in hand if suit_of(c) == strain)
        if count < a.min_trump_cards:
            return (f"{bid} needs at least {a.min_trump_cards} cards of {strain}; "
                    f"seat {seat} holds {count}")
        lowest = self._lowest_outranking_level(strain)
        if level > lowest and count < a.jump_min_cards:
            return (f"{bid} is a jump bid (lowest {strain} bid now is level {lowest}) and needs "
                    f"at least {a.jump_min_cards} cards of {strain}; seat {seat} holds {count}")
        return None

    def _call_problem(self, seat: int, call: str) -> tuple[str, str] | None:
        """``(rule, message)`` if ``call`` is illegal for ``seat`` now, else ``None``."""
        if call not in CALLS:
            return "B-5", f"{call!r} is not a call on the Bridgette ladder (0NT, 1C .. 7NT, P, X, XX)"
        # C-4 first: a bid failing both C-4 and B-6 reports C-4.
        problem = self._auction_problem(seat, call)
        if problem or call in (PASS, DOUBLE, REDOUBLE):
            return problem
        problem = self._holding_problem(seat, call)
        return ("B-6", problem) if problem else None

    # ---- B-7 .. B-10 and C-3: play ------------------------------------------------------

    def _play_problem(self, seat: int, card: str) -> tuple[str, str] | None:
        """``(rule, message)`` if ``seat`` may not play ``card`` now, else ``None``."""
        hand = self._hands[seat]
        if card not in hand:
            return "B-7", f"{card!r} is not in seat {seat}'s hand"
        if not self._trick:
            # Leading: B-8 bar on the suit of the previous trick's Colon-followed lead.
            barred = self.barred_suit
            if barred is not None and suit_of(card) == barred:
                if not all(suit_of(c) == barred for c in hand):
                    return "B-8", (f"seat {seat} may not lead {barred} after winning the last trick "
                                   f"against a matching Colon (B-8)")
            return None
        led = self._trick[0]
        if is_colon(led):
            return None                                   # B-9: any card may follow a led Colon
        led_suit = suit_of(led)
        holds_led_suit = any(suit_of(c) == led_suit for c in hand)
        if suit_of(card) == led_suit:
            return None                                   # C-3: following suit
        if card == matching_colon(led):
            return None                                   # B-8: the matching Colon, always
        if holds_led_suit:
            # C-3: must follow suit (also a non-matching Colon while holding the suit led).
            what = "a non-matching Colon" if is_colon(card) else card
            return "C-3", f"seat {seat} holds {led_suit} and must follow {led}, not play {what}"
        if is_colon(card):
            # B-10: a non-matching Colon to a suited lead.
            only_nonmatching_colons = all(is_colon(c) and not in_colon_range(c, led) for c in hand)
            if only_nonmatching_colons:
                return None
            if self.rules.play.colon_discard == "when_void":
                return None                               # void in the led suit
            return "B-10", (f"{card} does not match {led}; seat {seat} may play it only when every "
                            f"card it holds is a non-matching Colon (play.colon_discard=last_resort)")
        return None                                       # C-3: void, any other card

    def _trick_winner(self, leader: int, led: str, follow: str) -> tuple[int, tuple[int, str] | None]:
        """The winner of a two-card trick and the B-8 bar it imposes (or ``None``)."""
        follower = 1 - leader
        trump = self.trump
        if is_colon(led):
            # B-9: the follower wins with any trump or any card in the led Colon's range;
            # otherwise (a Colon on a Colon included) the leader wins.
            if trump is not None and suit_of(follow) == trump:
                return follower, None
            if in_colon_range(led, follow):
                return follower, None
            return leader, None
        led_suit = suit_of(led)
        if is_colon(follow):
            if follow == matching_colon(led):
                # B-8: the matching Colon loses; the leader may not lead the suit next.
                return leader, (leader, led_suit)
            return leader, None                          # B-10: loses, no restriction
        if suit_of(follow) == led_suit:
            return (follower if RANK_VALUE[rank_of(follow)] > RANK_VALUE[rank_of(led)] else leader), None
        if trump is not None and suit_of(follow) == trump:
            return follower, None                        # C-3: a trump wins
        return leader, None                              # C-3: an off-suit discard loses

    def _apply_play(self, card: str) -> None:
        seat = self.to_move
        problem = self._play_problem(seat, card)
        if problem:
            raise IllegalAction(*problem)
        self._hands[seat].remove(card)
        self._trick.append(card)
        if len(self._trick) < 2:
            return
        leader = self._leader
        winner, bar = self._trick_winner(leader, self._trick[0], self._trick[1])
        self._history.append((leader, list(self._trick), winner))
        self._tricks_won[winner] += 1
        self._bar = bar
        self._trick = []
        self._leader = winner                           # C-3: the winner leads next
        if len(self._history) == 13:
            self._phase = "done"

    # ---- B-3: discards ------------------------------------------------------------------

    def _apply_discard(self, card: str) -> None:
        seat = self.to_move
        if card not in self._hands[seat]:
            raise IllegalAction("B-3", f"seat {seat} cannot discard {card!r}: not in hand")
        self._hands[seat].remove(card)
        self._discards[seat].append(card)
        self._advance_discard_phase()

    # ---- apply ----------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        """Perform one action of the current phase; raise ``IllegalAction`` if forbidden."""
        if self._phase == "discard":
            self._apply_discard(action)
        elif self._phase == "auction":
            self._apply_call(action)
        elif self._phase == "play":
            if action in CALLS and action not in SUITED_CARDS:
                raise IllegalAction("C-4", f"{action} after the auction has ended")
            self._apply_play(action)
        else:  # done
            if self._passed_out:
                raise IllegalAction("C-4", f"{action!r} after a passed-out deal")
            if action in CALLS and action not in SUITED_CARDS:
                raise IllegalAction("C-4", f"{action} after the auction has ended")
            raise IllegalAction("B-7", f"{action!r}: all 13 tricks have been played")

    # ---- outcome (ContractDeal.outcome) ----------------------------------------------

    def _score(self, level: int, strain: str, doubled: int, declarer_tricks: int) -> tuple[int, int]:
        return score_deal(self.rules, level, strain, doubled, declarer_tricks)   # B-11..B-14


# --------------------------------------------------------------------------------------
# Replay (RULES.md "Replay format")
# --------------------------------------------------------------------------------------

def replay(case: dict) -> dict:
    """Replay one parsed replay-format line of game ``"bridgette"`` in time order.

    Returns the outcome (``contract``, ``declarer``, ``doubled``, ``tricks``, ``score``), or on
    the first illegal item ``{"error": rule_id, "at": "<key>[<i>]", "message": ...}``."""
    from sim.rules import BridgetteRules

    rules = replay_rules(case, "bridgette", "Bridgette", BridgetteRules)
    try:
        deal = BridgetteDeal(rules, case.get("dealer"), case.get("hands"), case.get("stock"))
    except IllegalAction as exc:
        return replay_error(exc.rule, exc.at or "hands", exc.message)

    # B-3: discards, non-dealer first. discards[s] is seat s's list.
    discards = case.get("discards") or []
    for seat in (deal.nondealer, deal.dealer):
        cards = list(discards[seat]) if seat < len(discards) and discards[seat] is not None else []
        need = len(deal.hands[seat]) - 13
        if len(cards) != need:
            return replay_error("B-3", f"discards[{seat}]",
                                f"seat {seat} holds {13 + need} cards after the draw and must "
                                f"discard {need}, but {len(cards)} discards are given")
        for card in cards:
            assert deal.phase == "discard" and deal.to_move == seat
            if error := apply_item(deal, card, f"discards[{seat}]"):
                return error

    # C-4 / B-5 / B-6: calls, dealer first.
    if error := replay_auction(deal, case.get("calls") or []):
        return error

    # B-7 .. B-10: play.
    play = case.get("play") or []
    if deal.passed_out:
        if play:
            return replay_error("C-4", "play[0]", "cards played after a passed-out deal")
        return deal.outcome()
    for i, card in enumerate(play):
        if deal.phase != "play":
            return replay_error("B-7", f"play[{i}]", f"{card!r}: all 13 tricks have been played")
        if error := apply_item(deal, card, f"play[{i}]"):
            return error
    if deal.phase != "done":
        return replay_error("B-7", f"play[{len(play)}]",
                            f"only {len(play)} cards played; 13 tricks need 26")
    return deal.outcome()


# --------------------------------------------------------------------------------------
# The game (B-15, C-5, C-6)
# --------------------------------------------------------------------------------------

class BridgetteGame(ContractGame):
    """The flow of one game: B-15 deals and tie-breaks, C-5 passed-out deals, C-6 dealer.

    Feed each finished deal's outcome to ``record``; ``dealer`` says who deals next.
    ``deals_counted`` counts every counted deal (tie-break deals included);
    ``tiebreak_deals`` counts the deals played beyond ``game.deals``. An abandoned game
    (a passed-out deal after C-5's max_redeals redeals) is ``finished`` and ``abandoned`` with no winner.
    A game that ends tied has no ``winner`` either."""

    def __init__(self, rules, first_dealer: int):
        if first_dealer not in (0, 1):
            raise ValueError(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        super().__init__(rules, first_dealer)

    @property
    def tiebreak_deals(self) -> int:
        return max(0, self._deals_counted - self.rules.game.deals)

    def record(self, outcome: dict) -> None:
        """Record one finished deal (an ``outcome()`` / replay-format ``expect`` dict)."""
        if self._finished:
            raise IllegalAction("B-15", "the game is over; no more deals")
        if self._redeal(outcome):                          # C-5 "redeal"
            return
        self._count_deal(outcome)                          # B-15 / C-6: the deal alternates
        g = self.rules.game
        if self._deals_counted >= g.deals:
            tied = self._totals[0] == self._totals[1]
            # B-15: tied after game.deals: up to game.max_tiebreak_deals more, one at a time.
            if not tied or self.tiebreak_deals >= g.max_tiebreak_deals:
                self._finished = True
                if not tied:
                    self._winner = 0 if self._totals[0] > self._totals[1] else 1
