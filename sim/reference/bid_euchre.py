"""Reference referee for Bid Euchre (RULES.md sections C and E), written from RULES.md alone.

Readability and fidelity to RULES.md come first; speed does not matter here. Every rule is
cited by its id (E-4, C-3, ...). The public API:

* ``IllegalAction(rule, message, at=None)`` -- raised for any action the rules forbid.
* ``BidEuchreDeal(rules, dealer, hands, allow_renege=False)`` -- one hand with explicit
  phases ``"discard" -> "auction" -> "trump" -> "exchange" -> "play" -> "done"`` (steps that
  do not apply are skipped); ``to_move``, ``legal_actions()``, ``apply(action)``, ``outcome()``;
  read-only views ``hands``, ``bid``, ``bidder``, ``trump``, ``sitting_out``, ``tricks_won``
  (per team), ``trick_history``, ``void``, ``reneges``, and for replays and tests
  ``dealt_hands``, ``discards``, ``calls``, ``exchange``, ``forced_returns``,
  ``play_sequence``, ``current_trick``, ``void_reason``, ``ace_no_face_seats``.
* ``score_hand(rules, bid, bidder_team_tricks)`` -- E-7, ``(bidding team, defending team)``.
* ``replay(case)`` -- replays one line of the RULES.md replay format (game ``"bid-euchre"``).
* ``BidEuchreGame(rules, first_dealer)`` -- the game flow of E-9 with C-6.

Cards are C-2 strings: ranks ``9 T J Q K A``, suits ``C D H S``, the joker ``"JO"``
(E-10). With ``variant.double_deck`` every suited card exists twice, so a hand is a list
that may hold the same string twice. Bids are ``"3" "4" "5" "6A" "6M"`` (double deck:
``"3"`` .. ``"11"``, ``"12A"``, ``"12M"``), ``"P"`` is a pass; trump is a suit letter.
Seats 0-3, partners 0+2 (team 0) and 1+3 (team 1); play passes from seat s to s+1 (C-2).

The suits, the pass, the error, the replay scaffolding and a game's totals are shared with
the other referees (``sim.reference.common``); this module keeps Bid Euchre's own rules and
never imports the numba kernels.

Decisions this referee makes where RULES.md leaves room (each is also noted where it is
implemented):

* E-10 ace-no-face is judged on the hands as dealt (the joker dealer's 7 or 13 cards) and
  voids the deal at once, in the constructor: there is no joker discard and no auction.
  The joker is not a J, Q or K (it does not save a hand).
* Any action after an ace-no-face void is E-10; any action after a deal voided by four
  passes is E-3 (the rule that voided it), as Bridgette reports C-4 after a passed-out deal.
* The dealer may discard any of its cards, the joker included (E-10 names no restriction).
  A discard in a replay without the joker variant, or by a seat other than the dealer, is
  a wrong joker discard, E-10.
* E-4: the bidder's cards are chosen one at a time first; then the partner's returns: the
  forced ones (its highest trumps, from the hand held before the exchange) are taken
  automatically, and only the remaining returns (cards of its choice, non-trumps since all
  its trumps are already returned) are actions of the partner. The cards change hands
  together when the last one is chosen (the exchange is simultaneous).
* Following suit (C-3 with E-2 suits, E-10 joker in the trump suit): a card in hand that
  breaks the follow rule raises ``IllegalAction("E-6")`` unless the deal was built with
  ``allow_renege=True``; then it stands and is recorded as an E-8 renege.
* A made bid below six scores its tricks (overtricks included); a six (twelve) bid is made
  only by taking every trick.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from sim.reference.common import (
    PASS,
    SUITS,
    Deal,
    Game,
    IllegalAction,
    apply_item,
    replay_error,
    replay_rules,
)

# --------------------------------------------------------------------------------------
# Cards (C-1, C-2, E-1, E-2, E-10)
# --------------------------------------------------------------------------------------

RANKS = ("9", "T", "J", "Q", "K", "A")                 # E-1: 9 to A in each suit
JOKER = "JO"                                          # C-2 / E-10
SUITED_CARDS = tuple(r + s for s in SUITS for r in RANKS)   # the 24 cards of E-1
SAME_COLOUR = {"H": "D", "D": "H", "S": "C", "C": "S"}   # E-2: hearts/diamonds, spades/clubs

# E-2: other suits high to low A, K, Q, J, 10, 9 (values: higher is better).
PLAIN_VALUE = {"9": 1, "T": 2, "J": 3, "Q": 4, "K": 5, "A": 6}
# E-2: trump suit high to low: (joker, E-10), right bower, left bower, A, K, Q, 10, 9.
TRUMP_PLAIN_VALUE = {"9": 1, "T": 2, "Q": 3, "K": 4, "A": 5}
LEFT_BOWER_VALUE, RIGHT_BOWER_VALUE, JOKER_VALUE = 6, 7, 8


def is_joker(card: str) -> bool:
    return card == JOKER


def rank_of(card: str) -> str | None:
    """The printed rank of a suited card; ``None`` for the joker (it is not a jack)."""
    return None if is_joker(card) else card[0]


def printed_suit(card: str) -> str | None:
    """The suit printed on a card; ``None`` for the joker."""
    return None if is_joker(card) else card[1]


def right_bower(trump: str) -> str:
    """E-2: the jack of trumps."""
    return "J" + trump


def left_bower(trump: str) -> str:
    """E-2: the other jack of the same colour as trumps."""
    return "J" + SAME_COLOUR[trump]


@lru_cache(maxsize=None)  # the checks ask it millions of times
def suit_of(card: str, trump: str | None) -> str:
    """The suit a card belongs to for following and winning (E-2, E-10).

    The left bower belongs to the trump suit, not to its printed suit (E-2); the joker
    always belongs to the trump suit (E-10). Without a trump (``None``) the joker has no
    suit and this returns ``"JO"``."""
    if is_joker(card):
        return trump if trump is not None else JOKER
    if trump is not None and card == left_bower(trump):
        return trump
    return card[1]


def is_trump(card: str, trump: str) -> bool:
    return suit_of(card, trump) == trump


def trump_value(card: str, trump: str) -> int:
    """E-2/E-10 rank of a trump: joker 8, right bower 7, left bower 6, A 5 ... 9 1."""
    if not is_trump(card, trump):
        raise ValueError(f"{card} is not a trump when {trump} is trumps")
    if is_joker(card):
        return JOKER_VALUE
    if card == right_bower(trump):
        return RIGHT_BOWER_VALUE
    if card == left_bower(trump):
        return LEFT_BOWER_VALUE
    return TRUMP_PLAIN_VALUE[card[0]]


def card_strength(card: str, trump: str, led_suit: str) -> tuple[int, int]:
    """A key comparing the cards of one trick (C-3 with E-2 ranks).

    ``(2, trump value)`` for a trump, ``(1, plain value)`` for a card of the suit led,
    ``(0, 0)`` for any other card (it cannot win)."""
    suit = suit_of(card, trump)
    if suit == trump:
        return (2, trump_value(card, trump))
    if suit == led_suit:
        return (1, PLAIN_VALUE[card[0]])
    return (0, 0)


def trick_winner_index(cards: list[str], trump: str) -> int:
    """The index (in play order) of the card that wins a trick (C-3, E-2, E-10).

    The highest trump wins, else the highest card of the suit led. E-10 double deck: of two
    identical cards the first played ranks higher, so a later card must be strictly
    stronger to take the lead."""
    led_suit = suit_of(cards[0], trump)
    best = 0
    best_key = card_strength(cards[0], trump, led_suit)
    for i in range(1, len(cards)):
        key = card_strength(cards[i], trump, led_suit)
        if key > best_key:
            best, best_key = i, key
    return best


def copies(rules) -> int:
    """E-10 double deck: two copies of each suited card."""
    return 2 if rules.variant.double_deck else 1


def deck_for(rules) -> list[str]:
    """E-1 / E-10: the 24 cards (48 with double deck), plus the joker with ``variant.joker``."""
    deck = [c for c in SUITED_CARDS for _ in range(copies(rules))]
    if rules.variant.joker:
        deck.append(JOKER)
    return deck


def hand_size(rules) -> int:
    """E-1 / E-10: cards held by each player for play: 6, or 12 with double deck."""
    return 12 if rules.variant.double_deck else 6


def tricks_per_hand(rules) -> int:
    """E-6: all tricks of the hand are played: 6, or 12 with double deck."""
    return hand_size(rules)


def dealt_size(rules, seat: int, dealer: int) -> int:
    """E-1 / E-10: the dealer is dealt one card more with the joker."""
    return hand_size(rules) + (1 if rules.variant.joker and seat == dealer else 0)


def has_ace_no_face(hand: list[str]) -> bool:
    """E-10 ace-no-face: at least one ace and no J, Q or K (the joker is none of these)."""
    ranks = [rank_of(c) for c in hand]
    return "A" in ranks and not any(r in ("J", "Q", "K") for r in ranks)


# --------------------------------------------------------------------------------------
# Bids (C-2, E-3, E-10)
# --------------------------------------------------------------------------------------

def bid_ladder(rules) -> tuple[str, ...]:
    """E-3: ``3 4 5 6A 6M``; E-10 double deck: ``3`` .. ``11``, ``12A``, ``12M`` (low to high)."""
    top = tricks_per_hand(rules)
    return tuple(str(n) for n in range(3, top)) + (f"{top}A", f"{top}M")


def bid_number(bid: str) -> int:
    """The tricks a bid names: ``"4"`` -> 4, ``"6A"`` -> 6, ``"12M"`` -> 12."""
    return int(bid.rstrip("AM"))


def is_ask_bid(bid: str) -> bool:
    """E-4: ``6A`` (``12A``), the bidder asks partner for help."""
    return bid.endswith("A")


def is_moon_bid(bid: str) -> bool:
    """E-5: ``6M`` (``12M``), shooting the moon."""
    return bid.endswith("M")


def is_alone_bid(bid: str) -> bool:
    """E-4 / E-5: after either six (twelve) bid the bidder's partner sits out."""
    return is_ask_bid(bid) or is_moon_bid(bid)


# --------------------------------------------------------------------------------------
# Scoring (E-7, E-10)
# --------------------------------------------------------------------------------------

def score_hand(rules, bid: str, bidder_team_tricks: int) -> tuple[int, int]:
    """E-7 score of one played hand: ``(bidding team's points, defending team's points)``.

    ``bid`` is the winning bid (``"3"`` .. ``"6M"``, or the double-deck ladder) and
    ``bidder_team_tricks`` the tricks the bidding team took (the defenders took the rest of
    the 6, or 12 with double deck). Renege penalties (E-8) are NOT included.

    * A bid below six (twelve) is made with at least that many tricks:
      ``scoring.made_trick_points`` (1) per trick.
    * ``6A`` / ``6M`` (``12A`` / ``12M``) are made only by taking every trick: they score
      ``scoring.ask_all`` / ``scoring.moon_all`` (12 / 24; double deck 24 / 48) instead of
      trick points.
    * A set bidding team scores minus its bid number (-3, -4, -5, -6 for either six bid;
      double deck the number, -12 for 12A/12M) times ``scoring.set_bid_points`` (1), and
      no trick points.
    * The defenders always score ``scoring.defender_trick_points`` (1) per trick they took."""
    if bid not in bid_ladder(rules):
        raise ValueError(f"{bid!r} is not a bid on the E-3 ladder {bid_ladder(rules)}")
    total = tricks_per_hand(rules)
    if not 0 <= bidder_team_tricks <= total:
        raise ValueError(f"bidder_team_tricks must be 0..{total}, got {bidder_team_tricks!r}")
    sc = rules.scoring
    defenders = (total - bidder_team_tricks) * sc.defender_trick_points
    need = bid_number(bid)
    if bidder_team_tricks < need:
        return -need * sc.set_bid_points, defenders   # E-7: set
    if is_ask_bid(bid):
        return sc.ask_all, defenders                  # E-7: a 6A taking all six (defenders 0)
    if is_moon_bid(bid):
        return sc.moon_all, defenders                 # E-7: a 6M taking all six
    return bidder_team_tricks * sc.made_trick_points, defenders  # E-7: points per trick


# --------------------------------------------------------------------------------------
# One hand
# --------------------------------------------------------------------------------------

class BidEuchreDeal(Deal):
    """One Bid Euchre hand from the dealt cards to the score.

    The constructor validates the deal (E-1, E-10) and applies E-10 ace-no-face. Phases:

    * ``"discard"`` -- E-10 joker: the dealer discards one card face down;
    * ``"auction"`` -- E-3, one round from the dealer's left, the dealer last;
    * ``"trump"`` -- E-3, the highest bidder names a suit;
    * ``"exchange"`` -- E-4, after ``6A`` (``12A``) only;
    * ``"play"`` -- E-6, the highest bidder leads; a partner sitting out plays no cards (it
      keeps them in ``hands``);
    * ``"done"``.

    With ``allow_renege=True`` a card in hand that breaks the follow rule stands and is
    recorded as an E-8 renege (as when replaying a recorded deal); otherwise it raises
    ``IllegalAction("E-6")``."""

    def __init__(self, rules, dealer: int, hands: list[list[str]], *, allow_renege: bool = False):
        self.rules = rules
        if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in range(4):
            raise IllegalAction("E-1", f"the dealer must be seat 0, 1, 2 or 3, got {dealer!r}", at="dealer")
        self.dealer = dealer
        self.allow_renege = allow_renege
        self._validate_deal(hands)
        self._dealt = [list(h) for h in hands]
        self._hands = [list(h) for h in hands]
        self._discards: list[list[str]] = [[], [], [], []]
        # Auction (E-3).
        self._calls: list[str] = []
        self._bid: str | None = None
        self._bidder: int | None = None
        self._trump: str | None = None
        self._void: str | None = None           # None, "ace_no_face" or "all_pass"
        self._ace_no_face_seats: list[int] = []
        # Exchange (E-4).
        self._given: list[str] = []             # cards the bidder gives, in order chosen
        self._returned: list[str] = []          # cards the partner returns (forced first)
        self._forced: list[str] = []            # the partner's forced returns (highest trumps)
        # Play (E-6).
        self._sitting_out: int | None = None
        self._leader: int | None = None
        self._trick: list[tuple[int, str]] = []
        self._history: list[tuple[int, list[tuple[int, str]], int]] = []
        self._tricks_won = [0, 0]
        self._plays: list[str] = []
        self._reneges: list[dict[str, Any]] = []
        # E-10 ace-no-face: judged as dealt, before any joker discard; void at once.
        if rules.variant.ace_no_face:
            self._ace_no_face_seats = [s for s in range(4) if has_ace_no_face(self._dealt[s])]
            if self._ace_no_face_seats:
                self._void = "ace_no_face"
                self._phase = "done"
                return
        self._phase = "discard" if rules.variant.joker else "auction"

    # ---- E-1 / E-10: the deal must match the deck -----------------------------------------

    def _validate_deal(self, hands) -> None:
        deck = Counter(deck_for(self.rules))
        if not isinstance(hands, (list, tuple)) or len(hands) != 4:
            raise IllegalAction("E-1", "a Bid Euchre deal has four hands", at="hands")
        seen: Counter = Counter()
        for seat, hand in enumerate(hands):
            need = dealt_size(self.rules, seat, self.dealer)
            if not isinstance(hand, (list, tuple)) or len(hand) != need:
                n = len(hand) if isinstance(hand, (list, tuple)) else hand
                who = "the dealer" if seat == self.dealer else "seat"
                raise IllegalAction("E-1", f"{who} {seat} must be dealt {need} cards, got {n}", at="hands")
            for card in hand:
                if card not in deck:
                    raise IllegalAction("E-1", f"seat {seat} holds {card!r}, not a card of this deck", at="hands")
                seen[card] += 1
                if seen[card] > deck[card]:
                    times = "once" if deck[card] == 1 else f"{deck[card]} times"
                    raise IllegalAction("E-1", f"{card} is dealt more often than the deck holds it ({times})",
                                        at="hands")
        # Sizes and multiplicities both match, so every card of the deck is dealt.
        assert seen == deck

    # ---- read-only views (and those of common.Deal) -------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat to act; ``None`` when done."""
        if self._phase == "discard":
            return self.dealer                                     # E-10
        if self._phase == "auction":
            return (self.dealer + 1 + len(self._calls)) % 4        # E-3: from the dealer's left
        if self._phase == "trump":
            return self._bidder                                    # E-3
        if self._phase == "exchange":
            # E-4: the bidder's cards first, then the partner's cards of choice.
            return self._bidder if len(self._given) < self.rules.auction.ask_cards else self.partner(self._bidder)
        if self._phase == "play":
            if not self._trick:
                return self._leader
            return self._next_active(self._trick[-1][0])
        return None

    @staticmethod
    def partner(seat: int) -> int:
        return (seat + 2) % 4

    @property
    def discards(self) -> list[list[str]]:
        """E-10: per seat, the joker dealer's discard (the replay format's ``discards``)."""
        return [list(d) for d in self._discards]

    @property
    def bid(self) -> str | None:
        """The highest bid so far (``None`` before any); ``"pass"`` once the deal is void."""
        return "pass" if self._void else self._bid

    @property
    def bidder(self) -> int | None:
        return None if self._void else self._bidder

    @property
    def trump(self) -> str | None:
        return self._trump

    @property
    def exchange(self) -> list[list[str]]:
        """E-4: ``[[cards given by the bidder], [cards returned by partner]]`` once the
        exchange is complete (the replay format's ``trump_exchange``), else ``[]``."""
        if self._bid is not None and is_ask_bid(self._bid) and self._phase in ("play", "done") and not self._void:
            return [list(self._given), list(self._returned)]
        return []

    @property
    def forced_returns(self) -> list[str]:
        """E-4: the partner's highest trumps it must return (up to ``ask_cards``), from the
        hand it holds before the exchange; empty outside an ask bid or before trump."""
        if self._trump is None or self._bid is None or not is_ask_bid(self._bid):
            return []
        if self._phase in ("play", "done"):
            return list(self._forced)
        return self._compute_forced()

    @property
    def sitting_out(self) -> int | None:
        """E-4 / E-5: the partner of a six (twelve) bidder sits out."""
        return self._sitting_out

    @property
    def tricks_won(self) -> list[int]:
        """Tricks per team: ``[team 0 (seats 0, 2), team 1 (seats 1, 3)]``."""
        return list(self._tricks_won)

    @property
    def trick_history(self) -> list[tuple[int, list[tuple[int, str]], int]]:
        """``(leader, [(seat, card), ...], winner)`` for each finished trick."""
        return [(leader, list(cards), winner) for leader, cards, winner in self._history]

    @property
    def play_sequence(self) -> list[str]:
        """Every card played, in order (the replay format's ``play``)."""
        return list(self._plays)

    @property
    def void(self) -> bool:
        """True for a void deal: E-10 ace-no-face or E-3 all four passed."""
        return self._void is not None

    @property
    def void_reason(self) -> str | None:
        """``"ace_no_face"`` (E-10), ``"all_pass"`` (E-3) or ``None``."""
        return self._void

    @property
    def ace_no_face_seats(self) -> list[int]:
        """E-10: the seats whose dealt hand holds an ace and no J, Q or K (when the option is on)."""
        return list(self._ace_no_face_seats)

    @property
    def reneges(self) -> list[dict[str, Any]]:
        """E-8: ``{"at": None, "seat": s, "card": c}`` per renege (``replay`` fills in ``at``)."""
        return [dict(r) for r in self._reneges]

    # ---- legal actions ---------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """The actions ``to_move`` may take now (distinct strings; double-deck duplicates once)."""
        if self._phase == "discard":
            return _distinct(self._hands[self.dealer])               # E-10: any card
        if self._phase == "auction":
            seat = self.to_move
            return [c for c in self._all_calls() if self._call_problem(seat, c) is None]
        if self._phase == "trump":
            return list(SUITS)                                       # E-3: a suit, no no-trump
        if self._phase == "exchange":
            if self.to_move == self._bidder:
                return _distinct(self._hands[self._bidder])          # E-4: any card of choice
            return _distinct(self._choosable_returns())
        if self._phase == "play":
            seat = self.to_move
            return [c for c in _distinct(self._hands[seat]) if self._play_problem(seat, c) is None]
        return []

    def _all_calls(self) -> list[str]:
        return list(bid_ladder(self.rules)) + [PASS]

    # ---- E-10: the joker discard ----------------------------------------------------------

    def _apply_discard(self, card: str) -> None:
        if card not in self._hands[self.dealer]:
            raise IllegalAction("E-10", f"the dealer (seat {self.dealer}) cannot discard {card!r}: not in hand")
        self._hands[self.dealer].remove(card)
        self._discards[self.dealer].append(card)
        self._phase = "auction"

    # ---- E-3: the auction -----------------------------------------------------------------

    def _call_problem(self, seat: int, call: str) -> str | None:
        """Why ``call`` is illegal for ``seat`` now (always rule E-3), or ``None``."""
        ladder = bid_ladder(self.rules)
        if call != PASS and call not in ladder:
            return f"{call!r} is not a call: pass ({PASS}) or a bid of {' '.join(ladder)}"
        if call == PASS:
            if (self.rules.auction.stick_the_dealer and seat == self.dealer
                    and self._bid is None):
                return (f"stick the dealer: the other three passed, so the dealer (seat {seat}) "
                        f"must bid at least {ladder[0]}")
            return None
        if self._bid is not None and ladder.index(call) <= ladder.index(self._bid):
            return f"{call} is not higher than the highest bid so far, {self._bid}"
        return None

    def _apply_call(self, call: str) -> None:
        seat = self.to_move
        problem = self._call_problem(seat, call)
        if problem:
            raise IllegalAction("E-3", problem)
        self._calls.append(call)
        if call != PASS:
            self._bid, self._bidder = call, seat      # partners may overbid each other
        if len(self._calls) == 4:                      # E-3: one round, the dealer last
            if self._bid is None:
                self._void = "all_pass"                # E-3: all four pass, void deal
                self._phase = "done"
            else:
                self._phase = "trump"

    # ---- E-3: naming trump ----------------------------------------------------------------

    def _apply_trump(self, suit: str) -> None:
        if suit not in SUITS:
            raise IllegalAction("E-3", f"trump must be one of the suits {' '.join(SUITS)} "
                                       f"(there is no no-trump), got {suit!r}")
        self._trump = suit
        if is_ask_bid(self._bid):
            self._phase = "exchange"                   # E-4
        else:
            self._start_play()

    # ---- E-4: asking for help ---------------------------------------------------------------

    def _compute_forced(self) -> list[str]:
        """E-4: the partner's k highest trumps from its hand before the exchange (all of
        them if fewer than k)."""
        partner_hand = self._hands[self.partner(self._bidder)]
        trumps = [c for c in partner_hand if is_trump(c, self._trump)]
        trumps.sort(key=lambda c: trump_value(c, self._trump), reverse=True)
        return trumps[:self.rules.auction.ask_cards]

    def _choosable_returns(self) -> list[str]:
        """E-4: the partner's cards still free to choose as returns: the cards of its
        pre-exchange hand that are not already returned (its trumps are all forced, so
        these are non-trumps)."""
        rest = list(self._hands[self.partner(self._bidder)])
        for c in self._returned:
            rest.remove(c)
        return [c for c in rest if not is_trump(c, self._trump)]

    def _apply_exchange(self, card: str) -> None:
        k = self.rules.auction.ask_cards
        bidder = self._bidder
        partner = self.partner(bidder)
        if len(self._given) < k:
            if card not in self._hands[bidder]:
                raise IllegalAction("E-4", f"the bidder (seat {bidder}) cannot give {card!r}: not in hand")
            self._hands[bidder].remove(card)       # set aside; partner receives it at the end
            self._given.append(card)
            if len(self._given) == k:
                self._forced = self._compute_forced()
                self._returned = list(self._forced)
                self._finish_exchange_if_complete()
            return
        # The partner's cards of choice (its trumps are already returned).
        if card not in self._choosable_returns():
            if card in self._hands[partner] and is_trump(card, self._trump):
                why = "its highest trumps are returned already"
            else:
                why = "not in the hand it held before the exchange"
            raise IllegalAction("E-4", f"partner (seat {partner}) cannot return {card!r}: {why}")
        self._returned.append(card)
        self._finish_exchange_if_complete()

    def _finish_exchange_if_complete(self) -> None:
        k = self.rules.auction.ask_cards
        if len(self._given) < k or len(self._returned) < k:
            return
        # E-4: simultaneous; the cards change hands together.
        bidder, partner = self._bidder, self.partner(self._bidder)
        for c in self._returned:
            self._hands[partner].remove(c)
        self._hands[partner].extend(self._given)
        self._hands[bidder].extend(self._returned)
        self._start_play()

    # ---- E-6: play ------------------------------------------------------------------------

    def _start_play(self) -> None:
        if is_alone_bid(self._bid):
            self._sitting_out = self.partner(self._bidder)   # E-4 / E-5
        self._leader = self._bidder                          # E-6: the highest bidder leads
        self._phase = "play"

    def _next_active(self, seat: int) -> int:
        """C-2: play passes to seat s+1, skipping a seat that sits out (E-6)."""
        nxt = (seat + 1) % 4
        if nxt == self._sitting_out:
            nxt = (nxt + 1) % 4
        return nxt

    def _active_seats(self) -> int:
        return 3 if self._sitting_out is not None else 4

    def _follow_problem(self, seat: int, card: str) -> str | None:
        """C-3 with E-2 suits: a message if ``card`` fails to follow the suit led."""
        if not self._trick:
            return None                                       # C-3: the leader plays any card
        led_card = self._trick[0][1]
        led = suit_of(led_card, self._trump)
        if suit_of(card, self._trump) == led:
            return None
        holding = [c for c in self._hands[seat] if suit_of(c, self._trump) == led]
        if holding:
            return (f"seat {seat} holds {led} ({' '.join(_distinct(holding))}; E-2 suits with "
                    f"{self._trump} trumps) and must follow {led_card}, not play {card}")
        return None

    def _play_problem(self, seat: int, card: str) -> tuple[str, str] | None:
        if card not in self._hands[seat]:
            return "E-6", f"{card!r} is not in seat {seat}'s hand"
        problem = self._follow_problem(seat, card)
        if problem:
            return "E-6", f"C-3: {problem}"
        return None

    def _apply_play(self, card: str) -> None:
        seat = self.to_move
        if card not in self._hands[seat]:
            raise IllegalAction("E-6", f"{card!r} is not in seat {seat}'s hand")
        problem = self._follow_problem(seat, card)
        if problem:
            if not self.allow_renege:
                raise IllegalAction("E-6", f"C-3: {problem}")
            # E-8: the card stands, play continues, the offending team pays later.
            self._reneges.append({"at": None, "seat": seat, "card": card})
        self._hands[seat].remove(card)
        self._trick.append((seat, card))
        self._plays.append(card)
        if len(self._trick) < self._active_seats():
            return
        leader = self._trick[0][0]
        best = trick_winner_index([c for _, c in self._trick], self._trump)
        winner = self._trick[best][0]
        self._history.append((leader, list(self._trick), winner))
        self._tricks_won[winner % 2] += 1
        self._trick = []
        self._leader = winner                                 # C-3: the winner leads next
        if len(self._history) == tricks_per_hand(self.rules):
            self._phase = "done"                              # E-6: all tricks are played

    # ---- apply -----------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        """Perform one action of the current phase; raise ``IllegalAction`` if forbidden."""
        if self._phase == "discard":
            self._apply_discard(action)
        elif self._phase == "auction":
            self._apply_call(action)
        elif self._phase == "trump":
            self._apply_trump(action)
        elif self._phase == "exchange":
            self._apply_exchange(action)
        elif self._phase == "play":
            self._apply_play(action)
        elif self._void == "ace_no_face":
            raise IllegalAction("E-10", f"{action!r} after an ace-no-face void deal "
                                        f"(seat(s) {self._ace_no_face_seats})")
        elif self._void == "all_pass":
            raise IllegalAction("E-3", f"{action!r} after a void deal (all four passed)")
        else:
            raise IllegalAction("E-6", f"{action!r}: all {tricks_per_hand(self.rules)} tricks have been played")

    # ---- outcome ---------------------------------------------------------------------------

    def outcome(self) -> dict[str, Any]:
        """The replay format's Bid Euchre ``expect`` object for the finished hand.

        ``score`` includes E-8 renege penalties; ``reneges`` entries carry ``"at": None``
        (``replay`` fills in the play index)."""
        if self._phase != "done":
            raise RuntimeError(f"the hand is not finished (phase {self._phase!r})")
        if self._void:
            return {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0],
                    "score": [0, 0], "reneges": []}
        team = self._bidder % 2
        bidding, defending = score_hand(self.rules, self._bid, self._tricks_won[team])
        score = [0, 0]
        score[team], score[1 - team] = bidding, defending
        for r in self._reneges:                               # E-8
            score[r["seat"] % 2] -= self.rules.scoring.renege_penalty
        return {"bid": self._bid, "bidder": self._bidder, "trump": self._trump,
                "tricks": list(self._tricks_won), "score": score, "reneges": self.reneges}


def _distinct(cards: list[str]) -> list[str]:
    """The distinct strings of a list, in first-seen order."""
    return list(dict.fromkeys(cards))


# --------------------------------------------------------------------------------------
# Replay (RULES.md "Replay format")
# --------------------------------------------------------------------------------------

def _after_void(deal: BidEuchreDeal) -> str:
    """The rule an item after a void deal breaks: E-10 after ace-no-face, E-3 after four passes."""
    return "E-10" if deal.void_reason == "ace_no_face" else "E-3"


def replay(case: dict) -> dict:
    """Replay one parsed replay-format line of game ``"bid-euchre"`` in time order: the joker
    discard (``discards[dealer]``), ``calls`` (from the dealer's left), ``trump``,
    ``trump_exchange``, ``play``.

    Returns the outcome (``bid``, ``bidder``, ``trump``, ``tricks``, ``score``, ``reneges``
    with ``"at": "play[k]"``; E-8 penalties included), or on the first illegal item other
    than a renege ``{"error": rule_id, "at": "<key>[<i>]" | "trump" | "trump_exchange",
    "message": ...}``. A missing optional key means that step is empty."""
    from sim.rules import BidEuchreRules

    rules = replay_rules(case, "bid-euchre", "Bid Euchre", BidEuchreRules)
    try:
        deal = BidEuchreDeal(rules, case.get("dealer"), case.get("hands"), allow_renege=True)
    except IllegalAction as exc:
        return replay_error(exc.rule, exc.at or "hands", exc.message)
    if case.get("stock"):
        return replay_error("E-1", "stock", "every card of the deck is dealt; the stock must be empty")

    # E-10: the joker discard, before the auction.
    discards = case.get("discards") or []
    if not isinstance(discards, (list, tuple)) or len(discards) > 4:
        return replay_error("E-10", "discards", "discards must be a list of at most four per-seat lists")
    for seat in range(4):
        given = list(discards[seat]) if seat < len(discards) and discards[seat] is not None else []
        if deal.void:
            if given:
                return replay_error("E-10", f"discards[{seat}]", f"a discard after a void deal ({deal.void_reason})")
            continue
        need = 1 if rules.variant.joker and seat == deal.dealer else 0
        if len(given) != need:
            if need:
                msg = (f"with variant.joker the dealer (seat {seat}) discards exactly 1 card, "
                       f"got {len(given)}")
            elif rules.variant.joker:
                msg = f"only the dealer (seat {deal.dealer}) discards; seat {seat} discards {len(given)}"
            else:
                msg = "there is no discard without variant.joker"
            return replay_error("E-10", f"discards[{seat}]", msg)
        for card in given:
            if error := apply_item(deal, card, f"discards[{seat}]"):
                return error

    # E-3: the auction.
    calls = case.get("calls") or []
    for i, call in enumerate(calls):
        if deal.void:
            return replay_error(_after_void(deal), f"calls[{i}]", f"{call!r} after a void deal ({deal.void_reason})")
        if deal.phase != "auction":
            return replay_error("E-3", f"calls[{i}]",
                                f"{call!r} after the auction has ended (one round of four calls)")
        if error := apply_item(deal, call, f"calls[{i}]"):
            return error
    if deal.phase == "auction":
        return replay_error("E-3", f"calls[{len(calls)}]",
                            f"the auction has not ended: {len(calls)} calls, one round needs 4")

    # E-3: trump.
    trump = case.get("trump")
    if deal.void:
        if trump is not None:
            return replay_error(_after_void(deal), "trump", f"trump {trump!r} after a void deal ({deal.void_reason})")
    else:
        if trump is None:
            return replay_error("E-3", "trump", f"the bidder (seat {deal.bidder}) must name trump")
        if error := apply_item(deal, trump, "trump"):
            return error

    # E-4: the exchange after 6A (12A).
    exchange = case.get("trump_exchange") or []
    empty = all(not part for part in exchange) if isinstance(exchange, (list, tuple)) else False
    if deal.void:
        if not empty:
            return replay_error(_after_void(deal), "trump_exchange",
                                f"an exchange after a void deal ({deal.void_reason})")
    elif deal.phase != "exchange":
        if not empty:  # E-5 says a moon bid plays without one; E-4 gives one to the ask bid alone
            return replay_error("E-5" if is_moon_bid(deal.bid) else "E-4", "trump_exchange",
                                f"there is no exchange after a {deal.bid} bid (only after {bid_ladder(rules)[-2]})")
    else:
        problem = _replay_exchange(deal, exchange)
        if problem:
            return replay_error("E-4", "trump_exchange", problem)

    # E-6 / E-8: play; a renege is scored and reported, play goes on.
    play = case.get("play") or []
    if deal.void:
        if play:
            return replay_error(_after_void(deal), "play[0]", f"cards played after a void deal ({deal.void_reason})")
        return deal.outcome()
    reneges: list[dict[str, Any]] = []
    for i, card in enumerate(play):
        if deal.phase != "play":
            return replay_error("E-6", f"play[{i}]",
                                f"{card!r}: all {tricks_per_hand(rules)} tricks have been played")
        before = len(deal.reneges)
        if error := apply_item(deal, card, f"play[{i}]"):
            return error
        if len(deal.reneges) > before:
            r = deal.reneges[-1]
            reneges.append({"at": f"play[{i}]", "seat": r["seat"], "card": r["card"]})
    if deal.phase != "done":
        need = tricks_per_hand(rules) * (3 if deal.sitting_out is not None else 4)
        return replay_error("E-6", f"play[{len(play)}]", f"only {len(play)} cards played; the hand needs {need}")
    result = deal.outcome()
    result["reneges"] = reneges
    return result


def _replay_exchange(deal: BidEuchreDeal, exchange) -> str | None:
    """E-4: apply ``[[given...], [returned...]]``; a message if it is not the exchange E-4 allows."""
    k = deal.rules.auction.ask_cards
    if not isinstance(exchange, (list, tuple)) or len(exchange) != 2:
        return f"after {deal.bid} the exchange is [[{k} card(s) given], [{k} card(s) returned]]"
    given, returned = list(exchange[0] or []), list(exchange[1] or [])
    if len(given) != k:
        return f"the bidder gives exactly {k} card(s) (auction.ask_cards), got {len(given)}"
    if len(returned) != k:
        return f"partner returns exactly {k} card(s) (auction.ask_cards), got {len(returned)}"
    try:
        for card in given:
            deal.apply(card)
    except IllegalAction as exc:
        return exc.message
    forced = deal.forced_returns
    choices = list(returned)
    for card in forced:
        if card not in choices:
            return (f"partner (seat {deal.partner(deal.bidder)}) must return its highest trump(s) "
                    f"{' '.join(forced)} (from the hand held before the exchange), got {' '.join(returned)}")
        choices.remove(card)
    try:
        for card in choices:
            deal.apply(card)
    except IllegalAction as exc:
        return exc.message
    assert deal.phase == "play"
    return None


# --------------------------------------------------------------------------------------
# The game (E-9, C-6)
# --------------------------------------------------------------------------------------

class BidEuchreGame(Game):
    """The flow of one game: E-9 target and tie rule, ``game.max_hands``, C-6 dealer.

    Feed each finished hand's outcome (``BidEuchreDeal.outcome()`` / replay ``expect``) to
    ``record``; ``dealer`` says who deals next. The deal passes to the left (seat + 1) after
    every hand, void ones included (E-3, E-10, C-6). Void hands count toward
    ``hands_played`` and ``game.max_hands`` (they are hands dealt). At the end of each hand
    (E-9): if exactly one team has reached ``game.target`` it wins; if both have, the higher
    total wins, and equal totals play another hand. A game still unfinished after
    ``max_hands`` hands is ``finished`` and ``abandoned``, with no winner. ``winner`` and
    ``totals`` are by team (0: seats 0 and 2, 1: seats 1 and 3)."""

    def __init__(self, rules, first_dealer: int):
        if first_dealer not in range(4):
            raise ValueError(f"first_dealer must be 0..3, got {first_dealer!r}")
        super().__init__(rules, first_dealer)
        self._hands_played = 0

    @property
    def hands_played(self) -> int:
        return self._hands_played

    def record(self, outcome: dict) -> None:
        """Record one finished hand (an ``outcome()`` / replay-format ``expect`` dict)."""
        if self._finished:
            raise IllegalAction("E-9", "the game is over; no more hands")
        self._add_score(outcome)
        self._hands_played += 1
        self._dealer = (self._dealer + 1) % 4             # C-6 / E-3: the deal passes left
        # E-9: the target, the higher total when both reach it, bounded by game.max_hands.
        self._end_at_target(self.rules.game.target, self._hands_played, self.rules.game.max_hands)
