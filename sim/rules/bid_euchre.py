"""Bid Euchre's options (RULES.md E-1..E-10)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from sim.rules.schema import MAX_GAME_DEALS, MAX_HAND_SCORE, MAX_TARGET, RulesError, RuleSet, opt


@dataclass(frozen=True)
class BidEuchreAuction:
    stick_the_dealer: bool = opt(False, "E-3", "when the other three pass, the dealer must bid at least 3")
    ask_cards: int = opt(None, "E-4", "cards passed each way after a 6A (12A) bid; "
                         "auto: 1, or 2 with variant.double_deck", low=1, high=12, kind=int)


@dataclass(frozen=True)
class BidEuchreScoring:
    ask_all: int = opt(None, "E-7", "score of a 6A (12A) that takes every trick; "
                       "auto: 12, or 24 with variant.double_deck", low=0, high=MAX_HAND_SCORE, kind=int)
    moon_all: int = opt(None, "E-7", "score of a 6M (12M) that takes every trick; "
                        "auto: 24, or 48 with variant.double_deck", low=0, high=MAX_HAND_SCORE,
                        kind=int)
    made_trick_points: int = opt(1, "E-7", "points per trick of a bidding team that makes a bid below six",
                                 low=0, high=MAX_HAND_SCORE // 12)
    set_bid_points: int = opt(1, "E-7", "points per trick bid that a set bidding team loses", low=0,
                              high=MAX_HAND_SCORE // 12)
    defender_trick_points: int = opt(1, "E-7", "points per trick of the defenders", low=0,
                                     high=MAX_HAND_SCORE // 12)
    renege_penalty: int = opt(2, "E-8", "points a renege costs the offending team", low=0, high=MAX_HAND_SCORE)


@dataclass(frozen=True)
class BidEuchreGameLength:
    target: int = opt(32, "E-9", "total that wins the game at the end of a hand", low=1, high=MAX_TARGET)
    max_hands: int = opt(500, "E-9", "hands after which an unfinished game is abandoned", low=1,
                         high=MAX_GAME_DEALS)


@dataclass(frozen=True)
class BidEuchreVariant:
    ace_no_face: bool = opt(False, "E-10", "a hand dealt with an ace and no J, Q or K voids the deal")
    joker: bool = opt(False, "E-10", "a joker, the highest trump, joins the deck; the dealer is dealt "
                      "one card more and discards one before the auction")
    double_deck: bool = opt(False, "E-10", "two copies of each card, 12 to each player, bids 3..11, 12A, 12M")


@dataclass(frozen=True)
class BidEuchreRules(RuleSet):
    """Every Bid Euchre rule option of RULES.md, with its default (auto values filled in)."""

    GAME = "bid-euchre"
    auction: BidEuchreAuction = field(default_factory=BidEuchreAuction)
    scoring: BidEuchreScoring = field(default_factory=BidEuchreScoring)
    game: BidEuchreGameLength = field(default_factory=BidEuchreGameLength)
    variant: BidEuchreVariant = field(default_factory=BidEuchreVariant)

    def __post_init__(self):
        double = self.variant.double_deck
        tricks = 12 if double else 6
        if self.auction.ask_cards is None:
            object.__setattr__(self, "auction", dataclasses.replace(self.auction, ask_cards=2 if double else 1))
        if self.scoring.ask_all is None:
            object.__setattr__(self, "scoring", dataclasses.replace(self.scoring, ask_all=2 * tricks))
        if self.scoring.moon_all is None:
            object.__setattr__(self, "scoring", dataclasses.replace(self.scoring, moon_all=4 * tricks))

    def most_deals(self) -> int:
        """E-9: a game unfinished after ``game.max_hands`` hands is abandoned."""
        return self.game.max_hands

    def validate(self) -> None:
        hand = 12 if self.variant.double_deck else 6
        if self.auction.ask_cards > hand:
            raise RulesError(f"auction.ask_cards = {self.auction.ask_cards} exceeds the {hand} cards of a hand (E-4)")
