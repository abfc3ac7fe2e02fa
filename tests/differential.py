"""Kernel-versus-referee differential harness (DESIGN point 7).

The kernel traces whole games; the readable referee replays every deal action by action
and must agree on each legal set, each outcome and the game's course (B-15, C-5, C-6).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from sim.bridgette import trace_games
from sim.policies import parse_policy
from sim.reference.bridgette import BridgetteDeal, BridgetteGame
from sim.rules import BridgetteRules

# Option sets that together touch every Bridgette option at a non-default value.
OPTION_SETS = {
    "defaults": {},
    "upcard_to_dealer": {"exchange": {"upcard_to": "dealer"}},
    "upcard_dead_royal_only": {"exchange": {"upcard_to": "dead"}, "deck": {"colons": ["royal"]}},
    "no_colons_tricks_basis": {
        "deck": {"colons": []},
        "scoring": {"made_basis": "tricks", "overtrick_bonus_rule": "atleast3",
                    "multiply_bonuses": False},
    },
    "little_grand_when_void": {
        "deck": {"colons": ["little", "grand"]},
        "play": {"colon_discard": "when_void"},
        "scoring": {"penalty_last_row": "failed_slam", "exact_bonus": "nt_reduced"},
    },
    "auction_and_game_options": {
        "auction": {"opening_pass": "ends", "passed_out": "redeal", "max_redeals": 1,
                    "min_trump_cards": 3, "nt_needs_all_suits": False, "jump_min_cards": 5},
        "game": {"deals": 4, "max_tiebreak_deals": 3},
        "exchange": {"nondealer_draw": 3, "dealer_draw_numeral": 2, "dealer_draw_face": 6,
                     "dealer_draw_ace": 10},
    },
}

PAIRINGS = (("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random"))


def check_game(rules, game_row, deals) -> list[str]:
    """Replay one traced game in the referee; the list of disagreements (empty when none)."""
    problems = []
    game = BridgetteGame(rules, int(game_row["first_dealer"]))
    for seq, d in enumerate(deals):
        where = f"game {int(game_row['game'])} deal {seq}"
        if game.finished:
            problems.append(f"{where}: the kernel dealt after the referee's game ended")
            break
        if game.dealer != d["dealer"]:
            problems.append(f"{where}: dealer {d['dealer']}, referee expects {game.dealer}")
        deal = BridgetteDeal(rules, d["dealer"], d["hands"], d["stock"])
        nondealer = 1 - d["dealer"]
        actions = d["discards"][nondealer] + d["discards"][d["dealer"]] + d["calls"] + d["play"]
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
        game.record(deal.outcome())
    expected = {
        "finished": True, "abandoned": bool(game_row["abandoned"]),
        "deals_counted": int(game_row["deals"]), "tiebreak_deals": int(game_row["tiebreak_deals"]),
        "redeals": int(game_row["redeals"]),
        "totals": [int(game_row["total0"]), int(game_row["total1"])],
        "winner": None if game_row["winner"] < 0 else int(game_row["winner"]),
    }
    got = {k: getattr(game, k) for k in expected}
    if got != expected:
        problems.append(f"game {int(game_row['game'])}: kernel {expected}, referee {got}")
    return problems


def _check_batch(args) -> tuple[int, int, list[str]]:
    options, pairing, seed, first, count = args
    rules = BridgetteRules.from_dict(options)
    policies = [parse_policy(p) for p in pairing]
    games, traces = trace_games(rules, policies, seed, range(first, first + count))
    problems, n_deals = [], 0
    for row, deals in zip(games, traces):
        n_deals += len(deals)
        problems += check_game(rules, row, deals)
    return count, n_deals, problems


def run_differential(games_per_case: int, seed: int, workers: int = 2, batch: int = 250):
    """Check every option set x pairing; returns (games, deals, problems)."""
    jobs = [(options, pairing, seed + i, first, min(batch, games_per_case - first))
            for i, options in enumerate(OPTION_SETS.values())
            for pairing in PAIRINGS
            for first in range(0, games_per_case, batch)]
    # Spawned, not forked: forking a process whose numba threads are running can hang.
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
        results = list(pool.map(_check_batch, jobs))
    return (sum(r[0] for r in results), sum(r[1] for r in results),
            [p for r in results for p in r[2]])
