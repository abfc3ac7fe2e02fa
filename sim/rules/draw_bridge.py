"""Draw Bridge's options (RULES.md D-1..D-7, with the contract auction's C-4 and C-5)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kernels import options
from sim.rules.bridgette import ContractAuction
from sim.rules.schema import MAX_FACTOR, MAX_GAME_DEALS, MAX_POINTS, MAX_TARGET, RuleSet, opt, points


@dataclass(frozen=True)
class DrawBridgeDraw:
    must_follow: bool = opt(False, "D-2", "following suit is compulsory in the draw phase")
    trick_winner: str = opt("highest_rank", "D-2", "a draw-phase trick goes to the higher rank whatever "
                            "the suit (ties to the leader) or to the highest card of the suit led",
                            choices=options.TRICK_WINNER)
    show_stock_top: bool = opt(False, "D-2", "the stock's top card is face up before each draw-phase trick")


@dataclass(frozen=True)
class DrawBridgeScoring:
    undertricks: str = opt("none", "D-6", "a failed contract scores nothing, or undertricks for the "
                           "opponent (contract-bridge non-vulnerable by default)", choices=options.UNDERTRICKS)
    minor_trick: int = opt(20, "D-5", "points per trick over six in clubs or diamonds", low=0, high=MAX_POINTS)
    major_trick: int = opt(30, "D-5", "points per trick over six in hearts or spades", low=0, high=MAX_POINTS)
    nt_first_trick: int = opt(40, "D-5", "points for the first trick over six in no-trump", low=0,
                              high=MAX_POINTS)
    nt_trick: int = opt(30, "D-5", "points per later trick over six in no-trump", low=0, high=MAX_POINTS)
    double_factor: int = opt(2, "D-5", "doubling multiplies a made contract's score by this", low=1,
                             high=MAX_FACTOR)
    redouble_factor: int = opt(4, "D-5", "redoubling multiplies a made contract's score by this", low=1,
                               high=MAX_FACTOR)
    # D-6 with undertricks = "bridge": the n-th undertrick scores entry n, the last entry repeating.
    undertricks_undoubled: tuple = points((50,), "D-6", "opponent's points per undertrick, undoubled, "
                                          "the first, second, ...; the last entry repeats", length=(1, 13))
    undertricks_doubled: tuple = points((100, 200, 200, 300), "D-6", "opponent's points per undertrick, doubled",
                                        length=(1, 13))
    undertricks_redoubled: tuple = points((200, 400, 400, 600), "D-6", "opponent's points per undertrick, redoubled",
                                          length=(1, 13))


@dataclass(frozen=True)
class DrawBridgeGameLength:
    target: int = opt(100, "D-7", "total that wins the game at the end of a deal", low=1, high=MAX_TARGET)
    max_deals: int = opt(200, "D-7", "deals after which an unfinished game is abandoned", low=1,
                         high=MAX_GAME_DEALS)


@dataclass(frozen=True)
class DrawBridgeRules(RuleSet):
    """Every Draw Bridge rule option of RULES.md, with its default."""

    GAME = "draw-bridge"
    draw: DrawBridgeDraw = field(default_factory=DrawBridgeDraw)
    auction: ContractAuction = field(default_factory=ContractAuction)
    scoring: DrawBridgeScoring = field(default_factory=DrawBridgeScoring)
    game: DrawBridgeGameLength = field(default_factory=DrawBridgeGameLength)

    def most_deals(self) -> int:
        """D-7: a game unfinished after ``game.max_deals`` deals is abandoned."""
        return self.game.max_deals
