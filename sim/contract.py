"""Shared by the two-player contract games (Bridgette, Draw Bridge) on the Python side.

Kernel traces into replay-format dicts, kernel outcomes into ``expect`` dicts, contract
records into Arrow columns, and the run aggregates and summary of contracts, scores and
game wins that both games report.
"""

from __future__ import annotations

import numba
import numpy as np

from kernels import contract as kc
from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_IDS, call_name
from kernels.step import TRACE_WIDTH
from kernels.cards import CARD_IDS, COLON_NAMES, card_name, mask_to_cards
from sim.cli import interruptible
from sim.summary import describe, histogram, percent, rate

PLAYERS = 2
CONTRACT_NAMES = [call_name(b) for b in range(36)] + ["pass"]
STRAIN_NAMES = ["C", "D", "H", "S", "NT"]
# ``dd`` of a block that values only each contract reached double dummy (a multilevel ``dd``
# level reads nothing else).
CONTRACT_ONLY = "contract"


def trace_kernel(engine, trace_games_nb, kr, policies, seed: int, game_indices, plan=None):
    """Trace chosen games with a game's tracing kernel, in buffers that double until every
    deal and action fits: (game records, deal headers, deal outcomes, action rows).

    ``engine`` is the game's kernel module (its DEAL_DTYPE, GAME_DTYPE, HEADER_DTYPE and
    ``max_deals_per_game``); ``trace_games_nb`` its tracing kernel in kernels.engine;
    ``plan`` a deal run's (sim.dealing; None: whole games).
    """
    if plan is not None:
        kr = kr._replace(plan=plan)
    from kernels.step import seats_for
    from sim.policies import kernel_policies, searches

    from kernels.dd import new_context

    indices = np.asarray(game_indices, dtype=np.int64)
    seats = seats_for(*kernel_policies(policies))
    dd = new_context() if searches(policies) else None  # None: no search code (kernels.engine)
    games = np.zeros(len(indices), dtype=engine.GAME_DTYPE)
    per_game = engine.max_deals_per_game(kr)
    n_headers, n_actions = 16 * len(indices), 2048 * len(indices)
    while True:
        deals = np.zeros(len(indices) * per_game, dtype=engine.DEAL_DTYPE)
        headers = np.zeros(n_headers, dtype=engine.HEADER_DTYPE)
        outcomes = np.zeros(n_headers, dtype=engine.DEAL_DTYPE)
        trace = np.zeros((n_actions, TRACE_WIDTH), dtype=np.int64)
        hcur = np.zeros(1, dtype=np.int64)
        seats["tcur"] = 0
        trace_games_nb(kr, np.uint64(seed), indices, seats, deals, games, headers, outcomes, hcur, trace, dd,
                       np.zeros(0, dtype=engine.DD_DTYPE))
        tcur = int(seats["tcur"][0])
        if hcur[0] <= n_headers and tcur <= n_actions:
            return games, headers[:hcur[0]], outcomes[:hcur[0]], trace[:tcur]
        n_headers, n_actions = 2 * max(n_headers, hcur[0]), 2 * max(n_actions, tcur)


def no_headers(engine, searching: bool) -> tuple:
    """A parallel run's deal headers, outcomes and header count: it records none. None
    compiles no header code; with search code, arrays of no rows, so that the run shares
    the traces' compiled deal kernels (kernels.engine)."""
    if not searching:
        return None, None, None
    return np.zeros(0, dtype=engine.HEADER_DTYPE), np.zeros(0, dtype=engine.DEAL_DTYPE), np.zeros(1, dtype=np.int64)


def run_kernel(engine, run_games_nb, kr, policies, seed: int, first_game: int, count: int, dd: bool | str = False,
               plan=None):
    """Play a block of games with a game's parallel kernel ``run_games_nb`` (kernels.engine):
    (deal records, game records). With ``dd`` each deal record also holds its double-dummy
    values (kernels.dd_run; ``engine.DD_DTYPE``'s fields after the deal's own); with ``dd``
    ``CONTRACT_ONLY`` only the contract's (``dd_tricks``, ``dd_makeable``; the others null):
    one search a deal; ``plan`` (kernels.dealing, None: whole games) says how each index is
    dealt."""
    from kernels.step import seats_for
    from sim.blocks import play_block
    from sim.policies import kernel_policies, searches

    from kernels.dd import new_context

    if plan is not None:
        kr = kr._replace(plan=plan)
    seats = seats_for(*kernel_policies(policies))
    # The search contexts, one per thread and a spare (kernels.engine.game_context_nb);
    # None compiles and plays the deals without any search code when no seat searches and
    # the run is not --dd (kernels.engine).
    ctx = new_context(count=numba.get_num_threads() + 1) if dd or searches(policies) else None
    if dd == CONTRACT_ONLY:
        ctx["contract_only"] = 1
    no_dd = np.zeros(0, dtype=engine.DD_DTYPE)
    headers = no_headers(engine, ctx is not None)

    def run(indices, offsets, deal_rows, game_rows, dd_rows):
        interruptible(lambda: run_games_nb(kr, np.uint64(seed), indices, offsets, seats, deal_rows, game_rows, ctx,
                                           no_dd if dd_rows is None else dd_rows, *headers))

    deals, games, dd_rows = play_block(run, first_game, count, engine.max_deals_per_game(kr), engine.DEAL_DTYPE,
                                       engine.GAME_DTYPE, engine.DD_DTYPE if dd else None)
    if len(deals) and deals["tries"].min() < 0:
        from kernels.dealing import MAX_TRIES
        from sim.dealing import DealingError

        raise DealingError(f"a deal met the conditions in none of {MAX_TRIES:,} tries: loosen them")
    return (deals if dd_rows is None else join_records(deals, dd_rows)), games


def join_records(deals, extra):
    """Deal records with the fields of ``extra`` (as many rows) after their own."""
    fields = [(name, deals.dtype.fields[name][0]) for name in deals.dtype.names]
    fields += [(name, extra.dtype.fields[name][0]) for name in extra.dtype.names]
    out = np.empty(len(deals), dtype=fields)
    for name in deals.dtype.names:
        out[name] = deals[name]
    for name in extra.dtype.names:
        out[name] = extra[name]
    return out


def actions_from_trace(rows, players: int = PLAYERS) -> dict:
    """Trace rows of one deal as replay-format lists, with each action's seat and legal set."""
    discards = [[] for _ in range(players)]
    calls, play, legal, seats = [], [], [], []
    for kind, seat, action, mask in rows:
        seats.append(int(seat))
        name = call_name if kind == kc.KIND_CALL else card_name
        legal.append([name(c) for c in mask_to_cards(mask)])
        if kind == kc.KIND_DISCARD:
            discards[seat].append(card_name(action))
        elif kind == kc.KIND_CALL:
            calls.append(call_name(action))
        else:
            play.append(card_name(action))
    return {"discards": discards, "calls": calls, "play": play, "legal": legal, "seats": seats}


def outcome_dict(row, error_rule) -> dict:
    """A kernel deal record in the replay format's ``expect`` keys.

    ``error_rule(code, at, index)`` names the rule an error code stands for in this game.
    """
    if row["error"]:
        at, index = int(row["error_at"]), int(row["error_index"])
        return {"error": error_rule(int(row["error"]), at, index),
                "at": f"{kc.AT_NAMES[at]}[{index}]"}
    contract = int(row["contract"])
    return {
        "contract": "pass" if contract < 0 else call_name(contract),
        "declarer": None if contract < 0 else int(row["declarer"]),
        "doubled": int(row["doubled"]),
        "tricks": [int(row["tricks0"]), int(row["tricks1"])],
        "score": [int(row["score0"]), int(row["score1"])],
    }


def deck_error(deck: set, hands, stock, hand_size: int = 13) -> str | None:
    """Why ``hands`` and ``stock`` are not a deal of ``deck`` ("hands" or "stock"), or None."""
    if len(hands) != PLAYERS or any(len(h) != hand_size for h in hands):
        return "hands"
    seen = [c for h in hands for c in h]
    if len(set(seen)) != len(seen) or not set(seen) <= deck:
        return "hands"
    if sorted(stock) != sorted(deck - set(seen)) or len(stock) != len(deck) - len(seen):
        return "stock"
    return None


def replay_record(engine, play_deal, *args, players: int = PLAYERS, lists=()):
    """Replay one deal in the kernel with every seat scripted: its deal record.

    ``play_deal(*args, seats, trace, row, dd, dd_out)`` is the game's deal kernel (no
    double-dummy row); ``lists`` its replay lists."""
    from kernels.step import POLICY_SCRIPT, seats_for

    rows = np.zeros(1, dtype=engine.DEAL_DTYPE)
    seats = seats_for(np.full(players, POLICY_SCRIPT), None, lists)
    play_deal(*args, seats[0], np.zeros((0, TRACE_WIDTH), dtype=np.int64), rows[0], None,
              np.zeros(0, dtype=engine.DD_DTYPE))
    return rows[0]


def call_in_play_is_c4(result: dict, row, play: list, first: int, last: int) -> dict:
    """A call written where a contract card is due (``play[first:last]``) is a call after
    the auction ended (C-4), not a card missing from the hand. A name that is both a card
    and a bid (``5H``: the five of hearts, five hearts) is read as the card it stands in
    place of."""
    if row["error"] == kc.ERR_NOT_IN_HAND and row["error_at"] == kc.AT_PLAY:
        index = int(row["error_index"])
        if first <= index < min(len(play), last) and play[index] in CALL_IDS and play[index] not in CARD_IDS:
            result["error"] = "C-4"
    return result


def categorical(indices, names, mask=None):
    """An Arrow dictionary column: small integer codes plus their names."""
    from sim import arrow

    return arrow.categorical(indices, names, mask)


def declarer_made(deals):
    """Per deal: (played, made) flags of the contract (made: 6 + level tricks)."""
    contract = deals["contract"]
    played = contract >= 0
    declarer_tricks = deals["tricks0"] + (deals["tricks1"] - deals["tricks0"]) * (deals["declarer"] & 1)  # seat 1's
    made = played & (declarer_tricks >= 6 + BID_LEVEL[np.maximum(contract, 0)])
    return played, made


def made_flags(rules, deals):
    """Per deal, whether a contract was played and made."""
    return declarer_made(deals)[1]


def dealer_columns(deals, counts=("score", "tricks")) -> dict:
    """Columns seen from the dealer: for each ``NAME`` of ``counts``, ``NAME_dealer`` and
    ``NAME_nondealer`` from ``NAME0``/``NAME1``, the dealer's side's and the other's (seat s
    is on side s mod 2: the seat itself in the two-handed games, its team in Bid Euchre)."""
    dealer_side = deals["dealer"] % 2 == 1
    columns = {}
    for name in counts:
        zero, one = deals[f"{name}0"], deals[f"{name}1"]
        columns[f"{name}_dealer"] = np.where(dealer_side, one, zero)
        columns[f"{name}_nondealer"] = np.where(dealer_side, zero, one)
    return columns


def contract_columns(deals, policies, counts=("score", "tricks")) -> dict:
    """The Arrow columns every contract game's deal records share; ``counts`` are also given
    from the dealer's side (dealer_columns), with ``declarer_is_dealer`` (null when passed out)."""
    from sim import arrow

    contract = deals["contract"].astype(np.int64)
    played, made = declarer_made(deals)
    columns = {
        "contract": categorical(np.where(played, contract, 36), CONTRACT_NAMES),
        "level": np.where(played, BID_LEVEL[np.maximum(contract, 0)], -1).astype(np.int8),
        "strain": categorical(BID_STRAIN[np.maximum(contract, 0)], STRAIN_NAMES, mask=~played),
        "declarer": deals["declarer"], "doubled": deals["doubled"],
        "tricks0": deals["tricks0"], "tricks1": deals["tricks1"], "made": made,
        "score0": deals["score0"], "score1": deals["score1"],
        **dealer_columns(deals, counts),
        "declarer_is_dealer": arrow.array(deals["declarer"] == deals["dealer"], mask=~played),
    }
    for seat, policy in enumerate(policies):
        columns[f"policy{seat}"] = arrow.constant(str(policy), len(deals))
    columns["unexplained"] = deals["unexplained"]
    columns["activity"] = deals["activity"]  # kernels.activity bits
    return columns


def game_table(games):
    """Game records as an Arrow table (winner -1: drawn or abandoned)."""
    from sim import arrow

    return arrow.table({name: games[name] for name in games.dtype.names})


def aggregate(deals, games) -> dict:
    """Block aggregates of contracts, scores and game wins (see sim.summary for merging)."""
    played, made = declarer_made(deals)
    contract = deals["contract"]
    by_dealer = deals["declarer"] == deals["dealer"]
    outcome = np.where(games["abandoned"] != 0, 3, np.where(games["winner"] < 0, 2, games["winner"]))
    wins = np.zeros((2, 4), dtype=np.int64)
    np.add.at(wins, (games["first_dealer"].astype(np.int64), outcome.astype(np.int64)), 1)
    return {
        "games": int(len(games)), "deals": int(len(deals)),
        "passed_out": int((~played).sum()),
        "contracts_played": np.bincount(contract[played], minlength=36).tolist(),
        "contracts_made": np.bincount(contract[made], minlength=36).tolist(),
        "doubled": np.bincount(deals["doubled"][played], minlength=3).tolist(),
        "declarer_dealer": [[int((played & by_dealer).sum()), int((made & by_dealer).sum())],
                            [int((played & ~by_dealer).sum()), int((made & ~by_dealer).sum())]],
        "deal_score": [histogram(deals["score0"]), histogram(deals["score1"])],
        "game_total": [histogram(games["total0"]), histogram(games["total1"])],
        "deals_per_game": histogram(games["deals"]),
        "wins": wins.tolist(),
        "redeals": int(games["redeals"].sum()),
    }


def summarize(agg: dict) -> dict:
    """Statistics of a whole run from its merged aggregates."""
    played, made = agg["contracts_played"], agg["contracts_made"]
    contracts = {CONTRACT_NAMES[b]: rate(made[b], played[b]) for b in range(36) if played[b]}
    by_level = {str(level): rate(sum(made[b] for b in range(36) if BID_LEVEL[b] == level),
                                 sum(played[b] for b in range(36) if BID_LEVEL[b] == level))
                for level in range(8)}
    by_strain = {s: rate(sum(made[b] for b in range(36) if BID_STRAIN[b] == k),
                         sum(played[b] for b in range(36) if BID_STRAIN[b] == k))
                 for k, s in enumerate(STRAIN_NAMES)}
    n_played = sum(played)
    wins = np.array(agg["wins"])
    games = int(wins.sum())
    dealer, other = agg["declarer_dealer"]
    return {
        "games": agg["games"], "deals": agg["deals"],
        "passed_out": rate(agg["passed_out"], agg["deals"]),
        "contracts_made": rate(sum(made), n_played),
        "contracts": contracts, "made_by_level": by_level, "made_by_strain": by_strain,
        "doubled": {k: rate(agg["doubled"][i], n_played)
                    for i, k in enumerate(("undoubled", "doubled", "redoubled"))},
        "made_by_declarer": {"dealer": rate(dealer[1], dealer[0]), "non_dealer": rate(other[1], other[0])},
        "deal_score": {f"seat{s}": describe(agg["deal_score"][s]) for s in range(PLAYERS)},
        "game_total": {f"seat{s}": describe(agg["game_total"][s]) for s in range(PLAYERS)},
        "deals_per_game": describe(agg["deals_per_game"]),
        "game_wins": {"seat0": rate(int(wins[:, 0].sum()), games), "seat1": rate(int(wins[:, 1].sum()), games),
                      "drawn": rate(int(wins[:, 2].sum()), games), "abandoned": rate(int(wins[:, 3].sum()), games)},
        "first_dealer_wins": rate(int(wins[0, 0] + wins[1, 1]), games),
        "redeals": agg["redeals"],
    }


def format_summary(summary: dict, lowest_level: int = 0) -> str:
    """The end-of-run table printed by sim.run (a deal run's without the game lines)."""
    games = "dealing" not in summary
    lines = [f"contracts made {percent(summary['contracts_made'])} of "
             f"{summary['contracts_made']['n']:,} played; passed out {percent(summary['passed_out'])}; "
             f"doubled {percent(summary['doubled']['doubled'])}, redoubled {percent(summary['doubled']['redoubled'])}",
             "", "contracts made by level and strain (95% Wilson intervals; '-' never played):",
             "level " + "".join(f"{s:>22s}" for s in STRAIN_NAMES) + f"{'all':>22s}"]
    for level in range(lowest_level, 8):
        cells = []
        for s in STRAIN_NAMES:
            name = f"{level}{s}"
            cells.append(percent(summary["contracts"].get(name)) if name in CONTRACT_NAMES else "")
        lines.append(f"{level:>5d} " + "".join(f"{c:>22s}" for c in cells)
                     + f"{percent(summary['made_by_level'][str(level)]):>22s}")
    lines.append("  all " + "".join(f"{percent(summary['made_by_strain'][s]):>22s}" for s in STRAIN_NAMES))
    lines += ["", f"{'score by seat':22s}{'mean':>10s}{'95% CI':>22s}"
              + "".join(f"{q:>8s}" for q in ("p5", "p25", "p50", "p75", "p95"))]
    for kind, label in (("deal_score", "per deal"), ("game_total", "per game"))[:2 if games else 1]:
        for seat, d in summary[kind].items():
            if not d["n"]:
                continue
            ci = f"[{d['mean_ci95'][0]:z.1f}, {d['mean_ci95'][1]:z.1f}]"
            lines.append(f"  {label} {seat:12s}{d['mean']:z10.1f}{ci:>22s}"
                         + "".join(f"{d[q]:8d}" for q in ("p5", "p25", "p50", "p75", "p95")))
    w = summary["game_wins"]
    lines += [] if not games else ["", f"game wins: seat 0 {percent(w['seat0'])}, seat 1 {percent(w['seat1'])}, "
                  f"drawn {percent(w['drawn'])}, abandoned {percent(w['abandoned'])}",
              f"first dealer wins {percent(summary['first_dealer_wins'])}; "
              f"deals per game: mean {summary['deals_per_game']['mean']:.2f}"]
    return "\n".join(lines)


def hand_words(cards) -> str:
    """A hand by suit, high cards first: 'S A K 7  H Q 9  D -  C J 4 3  Colons CL'."""
    order = "23456789TJQKA"
    parts = []
    for suit in "SHDC":
        ranks = sorted((c[0] for c in cards if c[1] == suit and c not in COLON_NAMES),
                       key=order.index, reverse=True)
        parts.append(f"{suit} {' '.join(ranks) or '-'}")
    colons = [c for c in cards if c in COLON_NAMES]
    if colons:
        parts.append("Colons " + " ".join(sorted(colons)))
    return "  ".join(parts)
