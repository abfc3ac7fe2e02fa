"""Bridgette's options (RULES.md B-1..B-15, with the contract auction's C-4 and C-5, which
Draw Bridge shares)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernels import options
from sim.rules.schema import HAND, MAX_FACTOR, MAX_GAME_DEALS, MAX_POINTS, RulesError, RuleSet, STOCK, opt, points


@dataclass(frozen=True)
class BridgetteDeck:
    colons: tuple = opt(("little", "royal", "grand"), "B-4",
                        "which Colons are in the deck", choices=("little", "royal", "grand"))


@dataclass(frozen=True)
class BridgetteExchange:
    nondealer_draw: int = opt(2, "B-3", "cards the non-dealer draws", low=0, high=STOCK)
    dealer_draw_numeral: int = opt(4, "B-3", "dealer's draw after a numeral or Little Colon up-card",
                                   low=0, high=STOCK)
    dealer_draw_face: int = opt(8, "B-3", "dealer's draw after a J, Q, K or Royal Colon up-card",
                                low=0, high=STOCK)
    dealer_draw_ace: int = opt(12, "B-3", "dealer's draw after an ace or Grand Colon up-card", low=0, high=STOCK)
    upcard_to: str = opt("nondealer", "B-3", "who draws the up-card: first card of the non-dealer's "
                         "draw, first of the dealer's, or removed", choices=options.UPCARD_TO)


@dataclass(frozen=True)
class ContractAuction:
    """The C-4 and C-5 options, shared by Bridgette and Draw Bridge."""

    opening_pass: str = opt("continues", "C-4", "whether a pass as the first call ends the auction",
                            choices=options.OPENING_PASS)
    passed_out: str = opt("next_deal", "C-5", "a passed-out deal counts and the deal passes, or the "
                          "same dealer redeals", choices=options.PASSED_OUT)
    max_redeals: int = opt(100, "C-5", "redeals allowed in one game before it is abandoned",
                      low=0, high=MAX_GAME_DEALS)


@dataclass(frozen=True)
class BridgetteAuction(ContractAuction):
    min_trump_cards: int = opt(2, "B-6", "cards of a suit needed to bid it", low=0, high=HAND)
    nt_needs_all_suits: bool = opt(True, "B-6", "no-trump bids need a card of every suit")
    jump_min_cards: int = opt(4, "B-6", "cards of a suit needed for a jump bid in it", low=0,
                                high=HAND)


@dataclass(frozen=True)
class BridgettePlay:
    colon_discard: str = opt("last_resort", "B-10", "when a non-matching Colon may be played to a "
                             "suited lead", choices=options.COLON_DISCARD)


@dataclass(frozen=True)
class BridgetteScoring:
    made_basis: str = opt("contract", "B-11", "a made contract scores the bid's value or the value "
                          "the tricks taken would have made", choices=options.MADE_BASIS)
    exact_bonus: str = opt("ladder", "B-12", "table of the bonus for taking exactly the tricks bid",
                           choices=options.EXACT_BONUS)
    overtrick_bonus_rule: str = opt("exactly3", "B-12", "the overtrick bonus needs exactly or at least 3 overtricks",
                                    choices=options.OVERTRICK_BONUS_RULE)
    multiply_bonuses: bool = opt(True, "B-13", "doubling multiplies the bonuses and the doubled or redoubled bonus too")
    penalty_last_row: str = opt("six_or_more_short", "B-14", "when the last penalty row applies",
                                choices=options.PENALTY_LAST_ROW)
    # Scoring as data: B-11..B-14's numbers, by level 0..7 (1..7 for suits) or tricks short.
    nt_values: tuple = points((150, 250, 250, 750, 750, 1500, 2200, 2500), "B-11",
                              "value of a made 0NT..7NT, by level")
    minor_values: tuple = points((150, 250, 250, 250, 750, 1500, 2200), "B-11",
                                 "value of a made club or diamond contract, levels 1..7")
    major_values: tuple = points((150, 250, 250, 750, 750, 1500, 2200), "B-11",
                                 "value of a made heart or spade contract, levels 1..7")
    exact_values: tuple = points((250, 250, 250, 250, 250, 250, 100, 0), "B-12",
                                 "bonus for taking exactly the tricks bid, by level 0..7")
    nt_reduced_exact: int = opt(100, "B-12", "exact bonus of 0NT..5NT when exact_bonus is nt_reduced",
                                low=0, high=MAX_POINTS)
    overtrick_bonus: int = opt(350, "B-12", "bonus for three overtricks", low=0, high=MAX_POINTS)
    double_bonus: int = opt(400, "B-12", "bonus of a made doubled contract", low=0, high=MAX_POINTS)
    redouble_bonus: int = opt(1000, "B-12", "bonus of a made redoubled contract", low=0, high=MAX_POINTS)
    double_factor: int = opt(2, "B-13", "doubling multiplies a made contract's score by this", low=1,
                             high=MAX_FACTOR)
    redouble_factor: int = opt(4, "B-13", "redoubling multiplies a made contract's score by this", low=1,
                               high=MAX_FACTOR)
    penalty_undoubled: tuple = points((100, 200, 300, 400, 700, 1000), "B-14",
                                      "opponent's score for an undoubled failure 1..5 short, then the last row")
    penalty_doubled: tuple = points((200, 500, 800, 1100, 2000, 3000), "B-14",
                                    "opponent's score for a doubled failure, by tricks short")
    penalty_redoubled: tuple = points((300, 700, 1100, 1500, 2700, 4000), "B-14",
                                      "opponent's score for a redoubled failure, by tricks short")


@dataclass(frozen=True)
class BridgetteGameLength:
    # Half of MAX_GAME_DEALS each: a game plays up to both.
    deals: int = opt(6, "B-15", "deals in a game", low=1, high=MAX_GAME_DEALS // 2)
    max_tiebreak_deals: int = opt(1, "B-15", "extra deals at most while the totals are tied", low=0,
                                  high=MAX_GAME_DEALS // 2)


@dataclass(frozen=True)
class BridgetteRules(RuleSet):
    """Every Bridgette rule option of RULES.md, with its default."""

    GAME = "bridgette"
    deck: BridgetteDeck = field(default_factory=BridgetteDeck)
    exchange: BridgetteExchange = field(default_factory=BridgetteExchange)
    auction: BridgetteAuction = field(default_factory=BridgetteAuction)
    play: BridgettePlay = field(default_factory=BridgettePlay)
    scoring: BridgetteScoring = field(default_factory=BridgetteScoring)
    game: BridgetteGameLength = field(default_factory=BridgetteGameLength)

    def fewest_deals(self) -> int:
        """B-15: a game plays ``game.deals`` deals at least."""
        return self.game.deals

    def most_deals(self) -> int:
        """B-15: ``game.deals`` and its tie-break deals."""
        return self.game.deals + self.game.max_tiebreak_deals

    def validate(self) -> None:
        """B-3, B-4: the draws fit the stock, and the side receiving the up-card draws."""
        ex = self.exchange
        stock = 29 - (3 - len(self.deck.colons))
        largest_draw = ex.nondealer_draw + max(ex.dealer_draw_numeral, ex.dealer_draw_face,
                                               ex.dealer_draw_ace)
        if ex.upcard_to == "dead":
            largest_draw += 1
        if largest_draw > stock:
            raise RulesError(f"exchange draws take up to {largest_draw} cards but the stock holds "
                             f"only {stock} (B-3, B-4)")
        if ex.upcard_to == "nondealer" and ex.nondealer_draw < 1:
            raise RulesError("exchange.upcard_to = \"nondealer\" needs exchange.nondealer_draw >= 1 (B-3)")
        if ex.upcard_to == "dealer" and min(ex.dealer_draw_numeral, ex.dealer_draw_face,
                                            ex.dealer_draw_ace) < 1:
            raise RulesError("exchange.upcard_to = \"dealer\" needs every dealer draw >= 1 (B-3)")
