"""Kernel-versus-referee differential harness (DESIGN point 7).

The kernel traces whole games; the readable referee replays every deal action by action
and must agree on each legal set, each outcome and the game's course.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from sim.games import game_module
from sim.policies import parse_policy
from sim.rules import rules_for


@dataclass(frozen=True)
class Referee:
    """How one game's referee replays a traced deal and game."""

    deal: type
    game: type
    actions: object  # traced deal dict -> its actions in time order
    game_fields: tuple  # (referee attribute, game record field) compared at the end


def _bridgette():
    from sim.reference.bridgette import BridgetteDeal, BridgetteGame

    def actions(d):
        nondealer = 1 - d["dealer"]
        return d["discards"][nondealer] + d["discards"][d["dealer"]] + d["calls"] + d["play"]

    return Referee(BridgetteDeal, BridgetteGame, actions,
                   (("deals_counted", "deals"), ("tiebreak_deals", "tiebreak_deals"), ("redeals", "redeals")))


def _draw_bridge():
    from sim.reference.draw_bridge import DrawBridgeDeal, DrawBridgeGame

    def actions(d):
        return d["play"][:26] + d["calls"] + d["play"][26:]

    return Referee(DrawBridgeDeal, DrawBridgeGame, actions,
                   (("deals_counted", "deals"), ("redeals", "redeals")))


def _bid_euchre():
    from sim.reference.bid_euchre import BidEuchreDeal, BidEuchreGame

    class Deal(BidEuchreDeal):
        def __init__(self, rules, dealer, hands, _stock):
            super().__init__(rules, dealer, hands)

    def actions(d):
        trump = [d["trump"]] if "trump" in d else []
        exchange = d["trump_exchange"][0] + d["chosen_returns"] if d.get("trump_exchange") else []
        return d["discards"][d["dealer"]] + d["calls"] + trump + exchange + d["play"]

    return Referee(Deal, BidEuchreGame, actions, (("hands_played", "deals"),))


REFEREES = {"bridgette": _bridgette, "draw-bridge": _draw_bridge, "bid-euchre": _bid_euchre}

# Option sets that together touch every option of each game at a non-default value.
OPTION_SETS = {
    "bridgette": {
        "defaults": {},
        "upcard_to_dealer": {"exchange": {"upcard_to": "dealer"}},
        "upcard_dead_royal_only": {"exchange": {"upcard_to": "dead"}, "deck": {"colons": ["royal"]}},
        "no_colons_tricks_basis": {
            "deck": {"colons": []},
            "scoring": {"made_basis": "tricks", "overtrick_bonus_rule": "atleast3",
                        "multiply_bonuses": False, "nt_values": [100, 200, 300, 400, 500, 600, 700, 800],
                        "minor_values": [300, 300, 300, 300, 300, 300, 300], "overtrick_bonus": 900,
                        "double_bonus": 50, "double_factor": 3, "penalty_undoubled": [50, 50, 50, 50, 50, 50]},
        },
        "little_grand_when_void": {
            "deck": {"colons": ["little", "grand"]},
            "play": {"colon_discard": "when_void"},
            "scoring": {"penalty_last_row": "failed_slam", "exact_bonus": "nt_reduced",
                        "major_values": [200, 400, 600, 800, 1000, 1200, 1400],
                        "exact_values": [0, 10, 20, 30, 40, 50, 60, 70], "nt_reduced_exact": 5,
                        "redouble_bonus": 0, "redouble_factor": 6, "penalty_doubled": [1, 2, 3, 4, 5, 6],
                        "penalty_redoubled": [5, 6, 7, 8, 9, 10_000]},
        },
        "auction_and_game_options": {
            "auction": {"opening_pass": "ends", "passed_out": "redeal", "max_redeals": 1,
                        "min_trump_cards": 3, "nt_needs_all_suits": False, "jump_min_cards": 5},
            "game": {"deals": 4, "max_tiebreak_deals": 3},
            "exchange": {"nondealer_draw": 3, "dealer_draw_numeral": 2, "dealer_draw_face": 6,
                         "dealer_draw_ace": 10},
        },
    },
    "draw-bridge": {
        "defaults": {},
        "must_follow_led_suit": {"draw": {"must_follow": True, "trick_winner": "led_suit"}},
        "stock_top_bridge_undertricks": {"draw": {"show_stock_top": True},
                                         "scoring": {"undertricks": "bridge"}},
        "auction_and_game_options": {
            "auction": {"opening_pass": "ends", "passed_out": "redeal", "max_redeals": 1},
            "game": {"target": 300, "max_deals": 6},
            "draw": {"show_stock_top": True, "must_follow": True},
            "scoring": {"undertricks": "bridge", "minor_trick": 35, "major_trick": 25, "nt_first_trick": 60,
                        "nt_trick": 10, "double_factor": 3, "redouble_factor": 5, "undertricks_undoubled": [10, 70],
                        "undertricks_doubled": [0], "undertricks_redoubled": [1, 2, 3]},
        },
    },
}

OPTION_SETS["bid-euchre"] = {
    "defaults": {},
    "stick_ask2_penalties": {"auction": {"stick_the_dealer": True, "ask_cards": 2},
                             "scoring": {"ask_all": 10, "moon_all": 30, "renege_penalty": 3,
                                         "made_trick_points": 2, "set_bid_points": 3, "defender_trick_points": 0},
                             "game": {"target": 20, "max_hands": 30}},
    "joker_ace_no_face": {"variant": {"joker": True, "ace_no_face": True}},
    "double_deck": {"variant": {"double_deck": True}},
    "double_deck_joker": {"variant": {"double_deck": True, "joker": True}, "auction": {"stick_the_dealer": True},
                          "game": {"max_hands": 25}},
}

PAIRINGS = (("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random"))
TUNED = ("tuned", "tuned")  # each game's own heuristic defaults (sim.games), not the neutral ones
# Random play rarely makes a Draw Bridge contract and keeps Bid Euchre teams below the
# target, so its games run for ~90 deals (~400 hands): random against random is checked
# only in the option sets that bound a game's length.
SKIP = {(game, name, ("random", "random")) for game, name in (
    ("draw-bridge", "defaults"), ("draw-bridge", "must_follow_led_suit"), ("bid-euchre", "defaults"),
    ("bid-euchre", "joker_ace_no_face"), ("bid-euchre", "double_deck"))}


# Options whose large values only make games long (deals, hands, redeals, target), drawn
# from their low end so that every random rule set plays in about the same time.
LENGTH_OPTIONS = {"game.deals": 8, "game.max_tiebreak_deals": 4, "auction.max_redeals": 6, "game.max_deals": 12,
                  "game.max_hands": 40, "game.target": 400}


def random_option_sets(game: str, n: int, seed: int) -> dict:
    """``n`` rule sets of ``game`` with every option drawn at random among its allowed values
    (the schema's ranges and choices, ends included; option sets sim.rules refuses, such as
    draws the stock cannot hold, are drawn again): the options' interactions, where
    OPTION_SETS moves a few options at a time."""
    import random

    from sim.rules import GAMES, RulesError, option_table

    rng = random.Random(seed)

    def draw(row):
        low, high, name = row["low"], row["high"], row["option"]
        if row["type"] == "bool":
            return rng.random() < 0.5
        if row["type"] == "str":
            return rng.choice(row["choices"])
        if row["type"] == "tuple":
            return [c for c in row["choices"] if rng.random() < 0.5]
        if row["type"] == "list":
            fewest, most = row["length"]
            top = min(high, 3_000)
            return [rng.choice([low, top, rng.randint(low, top)]) for _ in range(rng.randint(fewest, most))]
        top = min(high, LENGTH_OPTIONS.get(name, high))
        return rng.choice([low, top, rng.randint(low, top)])

    sets = {}
    while len(sets) < n:
        tables: dict = {}
        for row in option_table(GAMES[game]):
            if rng.random() < 0.6:
                section, key = row["option"].split(".")
                tables.setdefault(section, {})[key] = draw(row)
        try:
            rules_for(game, tables)
        except RulesError:
            continue
        sets[f"random{len(sets)}"] = tables
    return sets


def cases(game: str, pairings=PAIRINGS, option_sets=None, sets=None):
    """(option set name, options, pairing) of every case checked for ``game`` (or of the
    named ``option_sets`` only), over OPTION_SETS or the rule ``sets`` given."""
    return [(name, options, pairing) for name, options in (sets or OPTION_SETS[game]).items()
            for pairing in pairings if (game, name, pairing) not in SKIP and name in (option_sets or [name])]


def _policy(name: str, game: str):
    """A pairing's policy: ``tuned`` is the game's default heuristic."""
    return parse_policy("heuristic", game) if name == "tuned" else parse_policy(name)


def check_game(game: str, rules, game_row, deals) -> list[str]:
    """Replay one traced game in the referee; the list of disagreements (empty when none)."""
    ref = REFEREES[game]()
    problems = []
    flow = ref.game(rules, int(game_row["first_dealer"]))
    for seq, d in enumerate(deals):
        where = f"{game} game {int(game_row['game'])} deal {seq}"
        if flow.finished:
            problems.append(f"{where}: the kernel dealt after the referee's game ended")
            break
        if flow.dealer != d["dealer"]:
            problems.append(f"{where}: dealer {d['dealer']}, referee expects {flow.dealer}")
        deal = ref.deal(rules, d["dealer"], d["hands"], d.get("stock"))
        actions = ref.actions(d)
        if len(actions) != len(d["legal"]):
            problems.append(f"{where}: {len(actions)} actions but {len(d['legal'])} legal sets")
        for step, (action, legal) in enumerate(zip(actions, d["legal"])):
            mine = sorted(deal.legal_actions())
            if mine != sorted(legal):
                problems.append(f"{where} step {step} ({deal.phase}): kernel legal {sorted(legal)}, "
                                f"referee {mine}")
                break
            deal.apply(action)
        else:
            if deal.phase != "done":
                problems.append(f"{where}: referee still in phase {deal.phase}")
            elif deal.outcome() != d["expect"]:
                problems.append(f"{where}: kernel {d['expect']}, referee {deal.outcome()}")
        if problems:
            return problems
        flow.record(deal.outcome())
    expected = {"finished": True, "abandoned": bool(game_row["abandoned"]),
                "totals": [int(game_row["total0"]), int(game_row["total1"])],
                "winner": None if game_row["winner"] < 0 else int(game_row["winner"])}
    expected.update({attr: int(game_row[field]) for attr, field in ref.game_fields})
    got = {k: getattr(flow, k) for k in expected}
    if got != expected:
        problems.append(f"{game} game {int(game_row['game'])}: kernel {expected}, referee {got}")
    return problems


def _check_batch(args) -> tuple[int, int, list[str]]:
    game, options, pairing, seed, first, count = args
    rules = rules_for(game, options)
    module = game_module(game)
    policies = [_policy(pairing[seat % 2], game) for seat in range(module.PLAYERS)]  # by team
    games, traces = module.trace_games(rules, policies, seed, range(first, first + count))
    problems, n_deals = [], 0
    for row, deals in zip(games, traces):
        n_deals += len(deals)
        problems += check_game(game, rules, row, deals)
    return count, n_deals, problems


def run_differential(game: str, games_per_case: int, seed: int, workers: int | None = None, batch: int = 250,
                     **which):
    """Check every case of ``game`` (``which``: ``cases``' selection); returns (games,
    deals, problems). ``workers`` processes check the batches (default: two, or the
    calling process alone inside a pytest-xdist worker, which has its core already and
    would pay each process's start and kernel load for nothing)."""
    jobs = [(game, options, pairing, seed + i, first, min(batch, games_per_case - first))
            for i, (_, options, pairing) in enumerate(cases(game, **which))
            for first in range(0, games_per_case, batch)]
    if workers is None:
        workers = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    if workers == 1:
        results = [_check_batch(job) for job in jobs]
    else:
        # Spawned, not forked: forking a process whose numba threads are running can hang.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
            results = list(pool.map(_check_batch, jobs))
    return (sum(r[0] for r in results), sum(r[1] for r in results),
            [p for r in results for p in r[2]])
