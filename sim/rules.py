"""Rule options as data: one frozen dataclass per game, built from RULES.md's option names.

Every option of docs/rules.md is a field of a section dataclass (``exchange``,
``auction``, ...) whose metadata carries the rule id, a one-line meaning and the allowed
values; the same metadata validates variant files and lists the options. Each game's
module (``kernel_rules`` of sim.bridgette, sim.draw_bridge, sim.bid_euchre) turns a
validated rule set into one named object for the kernels: a record of the scalar
options (``params_dtype``: one field per option, named by its key, a choice as the index of
its value among the declared choices) beside the deck and score tables. A choice the record
carries declares its values from ``kernels.options``, where the kernels number them.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernels import options
from sim.cli import TOO_DEEP, read_toml


class RulesError(ValueError):
    """A variant file or rule override the simulator cannot accept."""


# The ranges of the whole-number options. A game's deals and redeals are counted in int16
# record fields, and sim.blocks gives each of a block's first 256 games room for the longest
# game the rules allow: 256 x 10,000 deal rows of at most 68 bytes is 175 MB.
MAX_GAME_DEALS = 10_000
STOCK = 29  # B-3: the most cards a Bridgette stock holds (every Colon in the deck)
HAND = 13  # B-2: cards in a Bridgette hand
MAX_TARGET = 100_000  # D-7, E-9: far past any real game; totals are int32
# E-7, E-8: a hand's scores are int16 in the records: a team's 24 reneges of a double-deck
# hand at 1,000 each, plus a 1,000-point moon, still fit.
MAX_HAND_SCORE = 1_000
# B-11..B-14, D-5, D-6: the score table entries and doubling factors a designer may set. A
# Bridgette game plays up to MAX_GAME_DEALS deals into int32 totals: a made contract's
# (value + bonus + doubled bonus) x factor is at most 30,000 x 6, and 10,000 of them fit.
MAX_POINTS = 10_000
MAX_FACTOR = 6


def opt(default, rule: str, meaning: str, choices=None, low=None, high=None, kind=None, length=None):
    """Declare one rule option: its default, rule id, meaning and allowed values (a whole
    number's range is ``low`` to ``high``).

    A default of None means "decided by other options" (``kind`` then gives the type);
    the rules class fills it in when it is built. A list of whole numbers (a score table's
    row) is declared by ``kind=list`` with ``length`` (entries, or (fewest, most)) and
    each entry's range ``low`` to ``high``.
    """
    if isinstance(length, int):
        length = (length, length)
    meta = {"rule": rule, "meaning": meaning, "choices": choices, "low": low, "high": high,
            "kind": kind or type(default), "length": length}
    if isinstance(default, tuple):
        return field(default_factory=lambda: default, metadata=meta)
    return field(default=default, metadata=meta)


def points(default: tuple, rule: str, meaning: str, length=None):
    """A score table's row: whole numbers from 0 to MAX_POINTS, as many as the default
    unless ``length`` says otherwise."""
    return opt(default, rule, meaning, low=0, high=MAX_POINTS, kind=list, length=length or len(default))


class _RuleSet:
    """What every game's rules dataclass shares: TOML tables in and out, validation."""

    @classmethod
    def from_dict(cls, tables: dict | None):
        return _build(cls, tables or {})

    def to_dict(self) -> dict:
        return {sec.name: {k: (list(v) if isinstance(v, tuple) else v)
                           for k, v in dataclasses.asdict(getattr(self, sec.name)).items()}
                for sec in dataclasses.fields(self)}

    def validate(self) -> None:
        """Cross-option checks (single options are checked when the tables are read)."""

    def fewest_deals(self) -> int:
        """The deals every game plays at least (sim.blocks sizes a block's records by it)."""
        return 1

    def most_deals(self) -> int:
        """The deal records one game can fill (a redeal reuses its row): sim.match sizes its
        blocks by it."""
        raise NotImplementedError(f"{type(self).__name__} must say how many deal records one game can fill")


# --- Bridgette (RULES.md B-1..B-15, C-4, C-5) --------------------------------------------

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
class BridgetteRules(_RuleSet):
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


def _build(cls, tables: dict):
    if not isinstance(tables, dict):
        raise RulesError("rules must be a table of option tables")
    sections = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for name, table in tables.items():
        if name not in sections:
            raise RulesError(f"unknown rule table '{name}' for {cls.GAME}"
                             f"{_did_you_mean(name, sections)} (tables: {', '.join(sections)})")
        if not isinstance(table, dict):
            raise RulesError(f"'{name}' must be a table of options")
        section_cls = sections[name].default_factory
        known = {f.name: f for f in dataclasses.fields(section_cls)}
        kwargs = {}
        for key, value in table.items():
            if key not in known:
                every = [row["option"] for row in option_table(cls)]
                raise RulesError(f"unknown option '{name}.{key}' for {cls.GAME}"
                                 f"{_did_you_mean(f'{name}.{key}', every)}")
            kwargs[key] = _check(f"{name}.{key}", known[key], value)
        values[name] = section_cls(**kwargs)
    rules = cls(**values)
    rules.validate()
    return rules


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _check(dotted: str, f: dataclasses.Field, value: Any):
    meta = f.metadata
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    if default is None:
        if value is None:
            return None
        default = meta["kind"]()
    choices = meta["choices"]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesError(f"option '{dotted}' must be true or false, got {value!r}")
    elif meta["kind"] is list:
        value = _check_ints(dotted, meta, value)
    elif isinstance(default, int):
        low, high = meta["low"], meta["high"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"option '{dotted}' must be an integer from {low:,} to {high:,}, got {value!r}")
        if not low <= value <= high:
            raise RulesError(f"option '{dotted}' must be at {'least' if value < low else 'most'} "
                             f"{low if value < low else high:,}, got {value:,}")
    elif isinstance(default, str):
        if value not in choices:
            raise RulesError(f"option '{dotted}' must be one of "
                             f"{', '.join(repr(c) for c in choices)}; got {value!r}")
    elif isinstance(default, tuple):
        if not isinstance(value, (list, tuple)) or any(v not in choices for v in value):
            raise RulesError(f"option '{dotted}' must be a list drawn from "
                             f"{', '.join(repr(c) for c in choices)}; got {value!r}")
        if len(set(value)) != len(value):
            raise RulesError(f"option '{dotted}' lists a value twice: {value!r}")
        value = tuple(c for c in choices if c in value)  # canonical order
    return value


def _check_ints(dotted: str, meta, value) -> tuple:
    """A list of whole numbers: its length and each entry's range (returned as a tuple)."""
    (fewest, most), low, high = meta["length"], meta["low"], meta["high"]
    size = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    if not isinstance(value, (list, tuple)) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise RulesError(f"option '{dotted}' must be a list of {size} integers from {low:,} to {high:,}, "
                         f"got {value!r}")
    if not fewest <= len(value) <= most:
        raise RulesError(f"option '{dotted}' must list {size} integers, got {len(value)}")
    for k, v in enumerate(value):
        if not low <= v <= high:
            raise RulesError(f"option '{dotted}' must have entries from {low:,} to {high:,}; entry {k + 1} "
                             f"is {v:,}")
    return tuple(value)


def option_table(cls) -> list[dict]:
    """Every option of a game: dotted name, type, default, allowed values, rule id, meaning."""
    rows = []
    for sec in dataclasses.fields(cls):
        for f in dataclasses.fields(sec.default_factory):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            rows.append({"option": f"{sec.name}.{f.name}", "type": f.metadata["kind"].__name__,
                         "default": default, "choices": f.metadata["choices"],
                         "low": f.metadata["low"], "high": f.metadata["high"],
                         "length": f.metadata["length"], "rule": f.metadata["rule"], "meaning": f.metadata["meaning"]})
    return rows


LISTS = ("tuple", "list")  # option_table's types of the list options (of choices; of whole numbers)


@functools.cache
def params_dtype(cls, derived: tuple = ()):
    """The kernels' record of a game's scalar options: one int64 field per option, named by
    its key (keys are unique within a game), plus ``derived`` fields the game computes
    from several options. A list option (Bridgette's ``deck.colons``, a score table's row)
    goes into the deck or the score tables instead."""
    import numpy as np

    names = [row["option"].split(".")[1] for row in option_table(cls) if row["type"] not in LISTS]
    names += list(derived)
    assert len(set(names)) == len(names), f"option keys of {cls.GAME} must be unique"
    return np.dtype((np.record, np.dtype([(n, np.int64) for n in names], align=True)))


def kernel_params(rules, **derived):
    """A validated rule set's scalar options as one record (a 1-element array of
    ``params_dtype``), with the ``derived`` fields set."""
    import numpy as np

    cls = type(rules)
    params = np.zeros(1, dtype=params_dtype(cls, tuple(derived)))
    for row in option_table(cls):
        section, key = row["option"].split(".")
        value = getattr(getattr(rules, section), key)
        if row["type"] in LISTS:
            continue
        params[key] = row["choices"].index(value) if row["type"] == "str" else int(value)
    for key, value in derived.items():
        params[key] = value
    return params


# --- Draw Bridge (RULES.md D-1..D-7, C-4, C-5) ---------------------------------------------

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
class DrawBridgeRules(_RuleSet):
    """Every Draw Bridge rule option of RULES.md, with its default."""

    GAME = "draw-bridge"
    draw: DrawBridgeDraw = field(default_factory=DrawBridgeDraw)
    auction: ContractAuction = field(default_factory=ContractAuction)
    scoring: DrawBridgeScoring = field(default_factory=DrawBridgeScoring)
    game: DrawBridgeGameLength = field(default_factory=DrawBridgeGameLength)

    def most_deals(self) -> int:
        """D-7: a game unfinished after ``game.max_deals`` deals is abandoned."""
        return self.game.max_deals


# --- Bid Euchre (RULES.md E-1..E-10) --------------------------------------------------------

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
class BidEuchreRules(_RuleSet):
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


GAMES = {"bridgette": BridgetteRules, "draw-bridge": DrawBridgeRules, "bid-euchre": BidEuchreRules}
VARIANTS_DIR = Path(__file__).resolve().parent / "variants"


def rules_for(game: str, tables: dict | None = None):
    """Validated rules of ``game`` with the overrides in ``tables`` (nested as in TOML)."""
    if game not in GAMES:
        raise RulesError(f"unknown game '{game}' (games: {', '.join(GAMES)})")
    return GAMES[game].from_dict(tables)


def read_variant(source: str | Path, game: str | None = None) -> dict:
    """The option tables of a variant file, given as a path or a shipped variant's name. A
    variant made for another game than ``game`` (variant_game) is a RulesError."""
    path = Path(source)
    if not path.suffix and not _exists(path):
        path = VARIANTS_DIR / f"{source}.toml"
        if not _exists(path):
            shipped = sorted(p.stem for p in VARIANTS_DIR.glob("*.toml"))
            raise RulesError(f"no rules file '{source}' and no shipped variant of that name"
                             f"{_did_you_mean(str(source), shipped)} (shipped: {', '.join(shipped)})")
    tables = read_toml(path, "rules", RulesError)
    named = tables.pop("game") if isinstance(tables.get("game"), str) else None  # [game] is Bridgette's table
    if named is not None and named not in GAMES:
        raise RulesError(f"rules file {path}: game = '{named}' is no game (games: {', '.join(GAMES)})")
    made_for = named or (_shipped_game(path.stem) if path.parent == VARIANTS_DIR else None)
    if game is not None and made_for is not None and made_for != game:
        raise RulesError(f"--rules {source} is a {made_for} variant, not one of {game}: leave out --game "
                         f"(the variant selects its game) or give --game {made_for}")
    return tables


def _shipped_game(name: str) -> str | None:
    """A shipped variant's game: the start of its name (bid-euchre-joker: bid-euchre)."""
    return next((g for g in sorted(GAMES, key=len, reverse=True) if name.startswith(f"{g}-")), None)


def variant_game(source) -> str | None:
    """The game a variant selects when none is given: a shipped variant's by its name, a
    file's by its top-level ``game = "bid-euchre"``; None where it names none, or cannot be
    read (reading its rules then says why)."""
    if source is None or isinstance(source, dict):
        return None
    path = Path(source)
    if not path.suffix and not _exists(path):
        return _shipped_game(str(source)) if _exists(VARIANTS_DIR / f"{source}.toml") else None
    try:
        named = read_toml(path, "rules", RulesError).get("game")
    except RulesError:
        return None
    return named if isinstance(named, str) and named in GAMES else None


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a name the system cannot take (too long) names nothing."""
    try:
        return path.exists()
    except OSError:
        return False


def load_rules_file(game: str, path: str | Path):
    """Rules from a TOML variant file (a path or a shipped variant's name)."""
    return rules_for(game, read_variant(path, game))


def parse_set(items) -> dict:
    """``--set KEY=VALUE`` overrides as nested option tables.

    VALUE is a TOML literal (``8``, ``true``, ``"dealer"``, ``["grand"]``); anything that is
    not one is taken as a bare string, so ``exchange.upcard_to=dealer`` works.
    """
    tables: dict = {}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise RulesError(f"--set needs KEY=VALUE with a dotted option name, got '{item}'")
        if key.count(".") != 1 or not all(key.split(".")):
            raise RulesError(f"--set {key}: option names are dotted TABLE.KEY, e.g. exchange.upcard_to")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        except RecursionError:
            raise RulesError(f"--set {key}: the value {TOO_DEEP}") from None
        table, name = key.split(".")
        tables.setdefault(table, {})[name] = value
    return tables


def merge_tables(base: dict, overrides: dict) -> dict:
    """Option tables with ``overrides`` applied on top of ``base``."""
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for table, values in overrides.items():
        if isinstance(merged.get(table), dict):
            merged[table].update(values)
        else:
            merged[table] = dict(values)
    return merged


def overrides(rules) -> dict:
    """The options of ``rules`` that differ from the defaults, nested as in a variant file."""
    default = type(rules)().to_dict()
    changed = {}
    for table, values in rules.to_dict().items():
        diff = {k: v for k, v in values.items() if v != default[table][k]}
        if diff:
            changed[table] = diff
    return changed
