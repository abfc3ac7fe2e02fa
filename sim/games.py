"""The games the simulator knows: one declaration per game, and the registry of them.

A ``GameInfo`` says, in plain data, everything the rest of the project needs to know about
a game without playing it: its seats and teams, the words its reports use, the keys of
its replay format and of its summaries, the heuristic parameters its decisions read (and
the pimc seat's), and the modules that play it (the engine), referee it and analyse it.
Importing this module is cheap and never imports numba: the analyses read the declarations
too.

The engine module (``game_module``) provides ``PLAYERS``, ``RULES`` (its rules dataclass),
``run_block``, ``trace_games``, ``replay_deal``, ``deal_table``, ``game_table``,
``aggregate``, ``summarize``, ``format_summary``, ``describe_game`` and ``deal_layout`` (how
it deals, for deal-run conditions: sim.dealing); the referee module
provides ``replay``, ``deck_for`` (the cards a deal of given rules is dealt from) and the
deal class named by ``referee_deal``; the analysis module (``analysis.games``) provides the
game's record tallies and ``report_sections``. Everything in ``sim.run``, ``sim.show``, ``sim.match``,
``sim.sweep``, ``sim.replay``, the run folders and the analyses goes through these, so a
new game is its own modules, its rules class in ``sim.rules`` and one declaration in
``GAMES`` here: no new flags and no branches on game names elsewhere.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field


class GameError(ValueError):
    """A game name the simulator does not know."""


@dataclass(frozen=True, eq=False)
class GameInfo:
    """One game's declaration."""

    name: str                 # the --game word and a run manifest's "game"
    title: str                # in report headings: "Bid Euchre"
    engine: str               # the module that plays it (imports numba)
    referee: str              # the independent referee (sim/reference/), with replay(case)
    analysis: str             # its record tallies and report sections (analysis/games/)
    seats: int
    teams: tuple | None       # partnerships as seats per team; None: each seat plays for itself
    draws: bool               # whether a game can end drawn (B-15, D-7; never in Bid Euchre, E-9)
    replay_keys: tuple        # keys every replay-format line of the game must have (RULES.md)
    heuristic: dict           # heuristic parameters its decisions read -> this game's default
    # The pimc seat's own parameters -> this game's default (its other decisions are the
    # heuristic's, with the heuristic's parameters).
    pimc: dict = field(default_factory=lambda: {"worlds": 16})
    # The search seat's own parameters -> this game's default (it plays as pimc, with pimc's).
    search: dict = field(default_factory=dict)
    deal: str = "deal"        # one deal of cards: "deal", or "hand" in Bid Euchre
    contract: str = "contract"  # what the auction makes: "contract", or "bid" in Bid Euchre
    contract_column: str = "level"  # deal-record column that is negative when none was played
    # This game's names for the statistics the analyses share, where it has its own
    # (summary.json and the block aggregates use the same names).
    summary_keys: dict = field(default_factory=dict)
    # Double-dummy analysis (sim.solve, docs/dd.md): the solver of its card play ("contract":
    # two hands, C-3 with the Colon rules; "euchre": four hands, E-2), the referee's class that
    # replays a deal, and where in a replay's ``play`` list that card play starts (Draw
    # Bridge's 13 draw-phase tricks come first).
    dd_solver: str = "contract"
    # Whether sim.multilevel's known-mean features of the hands as dealt (--control hand)
    # describe this game's deal (the Colons and the up-card are Bridgette's).
    hand_features: bool = False
    referee_deal: str = "Deal"
    dd_play_from: int = 0
    exchange: bool = False  # whether a replay line's discards are a B-3 exchange's (Bridgette)
    # The rules that decide each decision a search seat can search (sim.decisions' rows).
    decided_by: dict = field(default_factory=dict)

    @property
    def side(self) -> str:
        """Who scores: "team" in a partnership game, else "seat"."""
        return "team" if self.teams else "seat"

    @property
    def sides(self) -> tuple:
        """The seats of each scoring side: the teams, or one seat each."""
        return self.teams or tuple((seat,) for seat in range(self.seats))

    @property
    def seat_sides(self) -> tuple:
        """The side (seat or team number) of each seat."""
        return tuple(next(k for k, side in enumerate(self.sides) if seat in side) for seat in range(self.seats))

    def summary_key(self, statistic: str) -> str:
        """This game's key of a shared statistic named as the contract games name it
        (``contracts_made``, ``deal_score``, ``first_dealer_wins``)."""
        return self.summary_keys.get(statistic, statistic)


# The heuristic parameters each game's decisions read (kernels/policies): the auction's
# estimate and doubling in both contract games, the Colons in Bridgette only (Draw Bridge's
# deck has none), the draw phase and bidding by expected score in Draw Bridge (after D-2 a
# seat knows the opponent's hand), partner play in Bid Euchre. Defaults were chosen by
# duplicate matches on game wins (docs/policies.md, "Tuning and targets"). Under Draw Bridge's default
# D-6 scoring a failed contract costs nothing, so outbidding the opponent pays and its
# auctions run up to 7NT; a double there can only double the declarer's score, so it never
# doubles.
GAMES = {info.name: info for info in (
    GameInfo(
        name="bridgette", title="Bridgette", engine="sim.bridgette", referee="sim.reference.bridgette",
        analysis="analysis.games.bridgette", seats=2, teams=None, draws=True,
        replay_keys=("dealer", "hands", "stock"),
        heuristic={"aggression": 1.0, "double_margin": 4.0, "redouble_margin": 3.0,
                   "keep_colons": 0.5, "use_colons": 1.0, "colon_lead_odds": 0.5},
        pimc={"worlds": 16, "bid_worlds": 0, "keep": 1},
        # objective 1, the games won: it won 53.8% [51.0%, 56.7%] of 300 duplicate games
        # against the deal score's player (docs/search.md, Objective).
        search={"exchange_worlds": 16, "call_worlds": 8, "objective": 1, "call_model": 0}, hand_features=True,
        exchange=True,
        referee_deal="BridgetteDeal",
        decided_by={"calls": "C-4, B-5, B-6", "exchange": "B-3", "card play": "B-7..B-10"}),
    GameInfo(
        name="draw-bridge", title="Draw Bridge", engine="sim.draw_bridge", referee="sim.reference.draw_bridge",
        analysis="analysis.games.draw_bridge", seats=2, teams=None, draws=True,
        replay_keys=("dealer", "hands", "stock"),
        heuristic={"aggression": -1.0, "double_margin": 99.0, "redouble_margin": 1.0, "draw_fight": 13.0,
                   "bid_by_score": 1.0, "compete_margin": 0.0},
        pimc={"worlds": 16, "bid_worlds": 0},
        search={"call_worlds": 1, "draw_worlds": 8},  # calls: after D-2 one world, the deal; draws: docs/search.md
        referee_deal="DrawBridgeDeal", dd_play_from=26,
        decided_by={"calls": "C-4, D-3", "draw phase": "D-2", "card play": "D-4"}),
    GameInfo(
        name="bid-euchre", title="Bid Euchre", engine="sim.bid_euchre", referee="sim.reference.bid_euchre",
        analysis="analysis.games.bid_euchre", seats=4, teams=((0, 2), (1, 3)), draws=False,
        replay_keys=("dealer", "hands"),
        heuristic={"aggression": -0.3, "partner_aware": 1.0},
        pimc={"worlds": 16, "bid_worlds": 0},
        search={"call_worlds": 16, "exchange_worlds": 16},
        deal="hand", contract="bid", contract_column="bidder_from_dealer",
        summary_keys={"contracts_made": "bids_made", "deal_score": "hand_score",
                      "first_dealer_wins": "first_dealer_team_wins"},
        dd_solver="euchre", referee_deal="BidEuchreDeal",
        decided_by={"calls": "E-3", "exchange": "E-4", "card play": "E-6"}),
)}

GAME_NAMES = tuple(GAMES)
DEFAULT_GAME = "bridgette"  # --game when none is given
IMPLEMENTED = {name: info.engine for name, info in GAMES.items()}  # game -> engine module


def game_info(name: str) -> GameInfo:
    """The declaration of game ``name``."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):  # TypeError: a list or another value no game's name can be
        shown = f"'{name}'" if isinstance(name, str) else f"{name!r:.80}"
        raise GameError(f"unknown game {shown} (games: {', '.join(GAME_NAMES)})") from None


def game_module(name: str):
    """The engine module of game ``name``, imported on first use (it compiles numba kernels)."""
    return importlib.import_module(game_info(name).engine)


def kernel_rules(rules):
    """The kernels' view of validated ``rules`` (a sim.rules rule set): its game module's
    ``kernel_rules``, the option record beside the deck and the score tables."""
    return game_module(rules.GAME).kernel_rules(rules)
