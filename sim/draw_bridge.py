"""Draw Bridge for runs: blocks of games, traces, kernel replays, records and summaries."""

from __future__ import annotations

import numpy as np

from kernels import contract as kc
from kernels import draw_bridge as kd
from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_IDS, CALL_UNKNOWN, N_BIDS
from kernels.cards import CARD_IDS, card_name, mask_to_cards
from kernels.dealing import games_plan
from kernels.engine import run_draw_bridge_games_nb, trace_draw_bridge_games_nb
from sim import contract, dd_run
from sim.activity import CONTRACT_AUCTION, always, bit, contracts, deal_limit, failed, made
from sim.cli import plural
from sim.games import game_info
from sim.rules import DrawBridgeRules, kernel_params

PLAYERS = contract.PLAYERS
RULES = DrawBridgeRules
DRAW_CARDS = 2 * kd.HAND_SIZE  # play[0..25] is the draw phase
DECK = {card_name(c) for c in range(52)}


RUN_KERNEL = run_draw_bridge_games_nb  # the parallel kernel of runs (sim.api tells whether numba has it cached)


def kernel_rules(rules) -> kd.KernelRules:
    """The kernels' view of validated rules (``sim.games.kernel_rules`` asks here): the
    option record and D-5's and D-6's score tables, with the scoring options folded in."""
    sc = rules.scoring
    tables = np.zeros(1, dtype=kd.TABLES_DTYPE)
    made, undertricks, gain = tables["made"][0], tables["undertricks"][0], tables["gain"][0]  # views
    per_trick = (sc.minor_trick, sc.minor_trick, sc.major_trick, sc.major_trick)
    for b in range(kd.FIRST_BID, N_BIDS):
        strain = BID_STRAIN[b]
        for tricks in range(6 + BID_LEVEL[b], kd.HAND_SIZE + 1):
            over = tricks - 6  # every trick over six, overtricks included
            if strain == 4:
                points = sc.nt_first_trick + sc.nt_trick * (over - 1)
            else:
                points = over * per_trick[strain]
            made[b, :, tricks] = (points, sc.double_factor * points, sc.redouble_factor * points)
    if sc.undertricks == "bridge":
        for doubled, row in enumerate((sc.undertricks_undoubled, sc.undertricks_doubled, sc.undertricks_redoubled)):
            for short in range(1, kd.HAND_SIZE + 1):
                undertricks[doubled, short] = sum(row[min(k, len(row) - 1)] for k in range(short))
    for b in range(kd.FIRST_BID, N_BIDS):
        need = 6 + BID_LEVEL[b]
        for tricks in range(kd.HAND_SIZE + 1):
            gain[:, b, tricks] = made[b, :, tricks] if tricks >= need else -undertricks[:, need - tricks]
    return kd.KernelRules(kernel_params(rules), tables, games_plan())


def run_block(rules, policies, seed: int, first_game: int, count: int, dd: bool | str = False, plan=None):
    """Play games ``first_game .. first_game+count-1``: (deal records, game records); with
    ``dd`` the deal records also hold each deal's double-dummy values (kernels.dd_run; with
    ``sim.contract.CONTRACT_ONLY`` only the contract's); with ``plan`` (sim.dealing) each
    index is dealt as the plan says."""
    return contract.run_kernel(kd, run_draw_bridge_games_nb, kernel_rules(rules), policies, seed, first_game, count, dd,
                               plan)


def deal_layout(rules):
    """How D-1 deals, for conditions (sim.dealing): no up-card."""
    from sim.dealing import bridge_layout

    return bridge_layout(kd.DECK, -1)


def trace_raw(rules, policies, seed: int, game_indices, plan=None):
    """Kernel traces of chosen games: (game records, deal headers, deal outcomes, action rows)."""
    return contract.trace_kernel(kd, trace_draw_bridge_games_nb, kernel_rules(rules), policies, seed, game_indices, plan)


def trace_games(rules, policies, seed: int, game_indices, plan=None):
    """Every deal of the chosen games in the replay format (see sim.bridgette.trace_games)."""
    games, headers, outcomes, trace = trace_raw(rules, policies, seed, game_indices, plan)
    by_game = {int(g): [] for g in game_indices}
    for head, row in zip(headers, outcomes):
        actions = contract.actions_from_trace(trace[head["actions_start"]:head["actions_end"]])
        by_game[int(head["game"])].append({
            "game": "draw-bridge",
            "rules": rules.to_dict(),
            "dealer": int(head["dealer"]),
            "hands": [[card_name(c) for c in mask_to_cards(head["hands"][s])] for s in (0, 1)],
            "stock": [card_name(c) for c in head["stock"][:head["stock_len"]]],
            "calls": actions["calls"],
            "play": actions["play"],
            "expect": outcome_dict(row),
            "draw_tricks": [int(row["draw_tricks0"]), int(row["draw_tricks1"])],
            "counted": bool(head["counted"]),
            "legal": actions["legal"],
            "seats": actions["seats"],
        })
    return games, [by_game[int(g)] for g in game_indices]


def _error_rule(code: int, at: int, index: int) -> str:
    if at == kc.AT_PLAY and index < DRAW_CARDS and code in (kc.ERR_NOT_IN_HAND, kc.ERR_FOLLOW):
        return kd.DRAW_PHASE_ERROR
    return kd.ERROR_RULES[code]


def outcome_dict(row) -> dict:
    """A kernel deal record in the replay format's ``expect`` keys."""
    return contract.outcome_dict(row, _error_rule)


def replay_deal(case: dict) -> dict:
    """Replay one Draw Bridge deal in the kernel: its outcome, or the first illegal action."""
    rules = DrawBridgeRules.from_dict(case.get("rules"))
    where = contract.deck_error(DECK, case["hands"], case["stock"])
    if where:
        return {"error": "D-1", "at": where}
    hands = np.array([sum(1 << CARD_IDS[c] for c in h) for h in case["hands"]], dtype=np.uint64)
    stock = np.array([CARD_IDS[c] for c in case["stock"]], dtype=np.int64)
    calls = [CALL_IDS.get(c, CALL_UNKNOWN) for c in case.get("calls", [])]
    play = [CARD_IDS.get(c, -1) if CARD_IDS.get(c, 99) < 52 else -1 for c in case.get("play", [])]
    row = contract.replay_record(kd, kd.play_deal_nb, kernel_rules(rules), int(case["dealer"]), hands, stock,
                                 lists=([], [], calls, play))
    return contract.call_in_play_is_c4(outcome_dict(row), row, case.get("play", []), DRAW_CARDS, 10**9)


# --- Records and aggregates for runs ----------------------------------------------------------

game_table = contract.game_table
made_flags = contract.made_flags


def deal_table(rules, deals, policies):
    """Deal records as an Arrow table: one row per counted deal (a --dd run's double-dummy
    columns last, sim.dd_run)."""
    from sim import arrow

    return arrow.table({
        "game": deals["game"], "deal": deals["deal"], "dealer": deals["dealer"],
        "draw_tricks0": deals["draw_tricks0"], "draw_tricks1": deals["draw_tricks1"],
        **contract.contract_columns(deals, policies, ("score", "tricks", "draw_tricks")),
        **dd_run.deal_columns(game_info("draw-bridge"), deals),
    })


def aggregate(rules, deals, games) -> dict:
    """Block aggregates: the contract games' ones plus draw-phase tricks against the contract.

    ``draw_tricks[k]`` counts, for deals where a seat won k draw-phase tricks: [deals,
    times that seat declared, times it declared and made].
    """
    played, made = contract.declarer_made(deals)
    table = np.zeros((14, 3), dtype=np.int64)
    for seat in (0, 1):
        won = deals[f"draw_tricks{seat}"].astype(np.int64)
        declared = played & (deals["declarer"] == seat)
        np.add.at(table[:, 0], won, 1)
        np.add.at(table[:, 1], won[declared], 1)
        np.add.at(table[:, 2], won[declared & made], 1)
    return {**contract.aggregate(deals, games), "draw_tricks": table.tolist()}


def summarize(rules, agg: dict) -> dict:
    from sim.summary import rate

    table = agg["draw_tricks"]
    return {**contract.summarize(agg),
            "draw_tricks": {str(k): {"deals": n, "declared": rate(d, n), "declared_and_made": rate(m, d)}
                            for k, (n, d, m) in enumerate(table) if n}}


def format_summary(summary: dict) -> str:
    from sim.summary import percent

    lines = [contract.format_summary(summary, lowest_level=1), "",
             "draw-phase tricks won -> the same seat declares / makes its contract:"]
    for k, row in summary["draw_tricks"].items():
        lines.append(f"  {int(k):2d} tricks ({row['deals']:>9,} seat-deals): declares "
                     f"{percent(row['declared'])}, makes {percent(row['declared_and_made'])} of those")
    return "\n".join(lines)


# --- Narration for sim.show -------------------------------------------------------------------

def describe_game(rules, game_row, deals, seed: int, only_deal: int | None = None) -> str:
    """A traced game in words; ``only_deal`` picks one counted deal (the records' ``deal``)."""
    from sim.reference.draw_bridge import DrawBridgeDeal

    lines = [f"Draw Bridge game {int(game_row['game'])} of seed {seed}: first dealer seat "
             f"{int(game_row['first_dealer'])}"]
    counted = -1
    for deal in deals:
        counted += deal["counted"]
        if only_deal is not None and (counted != only_deal or not deal["counted"]):
            continue
        label = f"deal {counted}" if deal["counted"] else f"redealt passed-out deal before deal {counted + 1}"
        lines.append(f"{label}: dealer seat {deal['dealer']}")
        lines += [f"  seat {s}: {contract.hand_words(h)}" for s, h in enumerate(deal["hands"])]
        ref = DrawBridgeDeal(rules, deal["dealer"], deal["hands"], deal["stock"])
        for k in range(0, DRAW_CARDS, 2):
            top, under = ref.stock_top, deal["stock"][k + 1]
            ref.apply(deal["play"][k])
            ref.apply(deal["play"][k + 1])
            leader, cards, winner = ref.draw_history[-1][:3]
            lines.append(f"  draw trick {k // 2 + 1:2d}: seat {leader} {cards[0]}, seat {1 - leader} {cards[1]}"
                         f" -> seat {winner} draws {top}, seat {1 - winner} draws {under}")
        lines.append(f"  draw tricks {deal['draw_tricks'][0]}-{deal['draw_tricks'][1]}; hands now:")
        lines += [f"  seat {s}: {contract.hand_words(ref.hands[s])}" for s in (0, 1)]
        calls = []
        for i, call in enumerate(deal["calls"]):
            calls.append(f"{(deal['dealer'] + i) % 2}:{call}")
        lines.append(f"  auction (dealer first): {'  '.join(calls)}")
        outcome = deal["expect"]
        if outcome["contract"] == "pass":
            lines.append("  passed out")
            continue
        dbl = ("", " doubled", " redoubled")[outcome["doubled"]]
        lines.append(f"  contract {outcome['contract']}{dbl} by seat {outcome['declarer']}; "
                     f"tricks {outcome['tricks'][0]}-{outcome['tricks'][1]}; scores seat 0 +{outcome['score'][0]}, "
                     f"seat 1 +{outcome['score'][1]}")
    if only_deal is None:
        result = ("abandoned" if game_row["abandoned"] else "drawn" if game_row["winner"] < 0
                  else f"seat {int(game_row['winner'])} wins")
        lines.append(f"game: {plural(int(game_row['deals']), 'deal')}, totals seat 0 {int(game_row['total0'])}, "
                     f"seat 1 {int(game_row['total1'])}: {result}")
    return "\n".join(lines)


# --- Rule activity (sim.activity): which deals each option decided something in ---------------

def _bridge_undertricks(rules):
    return rules.scoring.undertricks == "bridge"


ACTIVITY_ROWS = [
    ("draw.must_follow", "D-2", "a draw-phase follower held the suit led and other cards", bit("must_follow")),
    ("draw.trick_winner", "D-2", "a draw trick went by rank against the suit led, or the reverse",
     bit("trick_winner")),
    ("draw.show_stock_top", "D-2", "the stock's top was shown (every deal when on)",
     always(lambda r: r.draw.show_stock_top)),
    *CONTRACT_AUCTION,
    ("scoring.minor_trick", "D-5", "a club or diamond contract was made", made(strains=(0, 1))),
    ("scoring.major_trick", "D-5", "a heart or spade contract was made", made(strains=(2, 3))),
    ("scoring.nt_first_trick", "D-5", "a no-trump contract was made", made(strains=(4,))),
    ("scoring.nt_trick", "D-5", "a no-trump contract was made with two tricks or more over six",
     contracts(lambda lv, st, over, x: (over >= 0) & (st == 4) & (lv + over >= 2))),
    ("scoring.double_factor", "D-5", "a doubled contract was made", made(1)),
    ("scoring.redouble_factor", "D-5", "a redoubled contract was made", made(2)),
    ("scoring.undertricks", "D-6", "a failed contract scored undertricks",
     contracts(lambda lv, st, over, x: over < 0, _bridge_undertricks)),
    ("scoring.undertricks_undoubled", "D-6", "an undoubled contract failed, scoring undertricks",
     failed(0, _bridge_undertricks)),
    ("scoring.undertricks_doubled", "D-6", "a doubled contract failed, scoring undertricks",
     failed(1, _bridge_undertricks)),
    ("scoring.undertricks_redoubled", "D-6", "a redoubled contract failed, scoring undertricks",
     failed(2, _bridge_undertricks)),
    ("game.target", "D-7", "the game's target (always active)", always()),
    ("game.max_deals", "D-7", "a game was abandoned at its deal limit", deal_limit),
]
