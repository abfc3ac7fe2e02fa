"""Bridgette for runs: blocks of games, traces, kernel replays, records and summaries.

These wrappers allocate the kernels' outputs, compact the fixed deal slots into records,
and translate between kernel integers and RULES.md notation (C-2).
"""

from __future__ import annotations

import numpy as np

from kernels import bridgette as kb
from kernels import contract as kc
from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_IDS, CALL_UNKNOWN, call_name
from kernels.cards import CARD_IDS, card_name, mask_to_cards
from kernels.engine import run_bridgette_block_nb, trace_bridgette_games_nb
from kernels.policies import POLICY_SCRIPT
from sim.policies import kernel_policies
from sim.rules import BridgetteRules


def run_block(rules, policies, seed: int, first_game: int, count: int):
    """Play games ``first_game .. first_game+count-1``: (deal records, game records)."""
    params, deck, value, exact, penalty = rules.to_kernel()
    per_game = kb.max_deals_per_game(params)
    deals = np.zeros(count * per_game, dtype=kb.DEAL_DTYPE)
    games = np.zeros(count, dtype=kb.GAME_DTYPE)
    pol, prm = kernel_policies(policies)
    run_bridgette_block_nb(params, value, exact, penalty, deck, np.uint64(seed), first_game,
                           pol, prm, deals, games)
    used = np.arange(per_game)[None, :] < games["deals"][:, None]
    return deals[used.ravel()], games


def trace_raw(rules, policies, seed: int, game_indices):
    """Kernel traces of chosen games: (game records, deal headers, action rows)."""
    params, deck, value, exact, penalty = rules.to_kernel()
    indices = np.asarray(game_indices, dtype=np.int64)
    per_game = kb.max_deals_per_game(params)
    pol, prm = kernel_policies(policies)
    n_headers, n_actions = 16 * len(indices), 2048 * len(indices)
    while True:
        deals = np.zeros(len(indices) * per_game, dtype=kb.DEAL_DTYPE)
        games = np.zeros(len(indices), dtype=kb.GAME_DTYPE)
        headers = np.zeros((n_headers, kb.HEADER_WIDTH), dtype=np.int64)
        trace = np.zeros((n_actions, kc.TRACE_WIDTH), dtype=np.int64)
        hcur = np.zeros(1, dtype=np.int64)
        tcur = np.zeros(1, dtype=np.int64)
        trace_bridgette_games_nb(params, value, exact, penalty, deck, np.uint64(seed), indices,
                                 pol, prm, deals, games, headers, hcur, trace, tcur)
        if hcur[0] <= n_headers and tcur[0] <= n_actions:
            return games, headers[:hcur[0]], trace[:tcur[0]]
        n_headers, n_actions = 2 * max(n_headers, hcur[0]), 2 * max(n_actions, tcur[0])


def trace_games(rules, policies, seed: int, game_indices):
    """Every deal of the chosen games, dealt and played as in any run with ``seed``.

    Returns (games, traces): the game records, and per game a list of deals, each a dict
    in the RULES.md replay format with ``expect`` filled from the kernel, plus
    ``counted``, and per action in time order its ``seats`` entry and ``legal`` set.
    """
    games, headers, trace = trace_raw(rules, policies, seed, game_indices)
    by_game = {int(g): [] for g in game_indices}
    for h in headers:
        by_game[int(h[kb.H_GAME])].append(_deal_from_trace(rules, h, trace))
    return games, [by_game[int(g)] for g in game_indices]


def _deal_from_trace(rules, header, trace) -> dict:
    dealer = int(header[kb.H_DEALER])
    stock = header[kb.H_STOCK:kb.H_STOCK + header[kb.H_STOCK_LEN]]
    rows = trace[header[kb.H_ACTIONS]:header[kb.H_ACTIONS + 1]]
    discards = [[], []]
    calls, play, legal, seats = [], [], [], []
    for kind, seat, action, mask in rows:
        seats.append(int(seat))
        if kind == kc.KIND_DISCARD:
            discards[seat].append(card_name(action))
            legal.append([card_name(c) for c in mask_to_cards(mask)])
        elif kind == kc.KIND_CALL:
            calls.append(call_name(action))
            legal.append([call_name(c) for c in mask_to_cards(mask)])
        else:
            play.append(card_name(action))
            legal.append([card_name(c) for c in mask_to_cards(mask)])
    return {
        "game": "bridgette",
        "rules": rules.to_dict(),
        "dealer": dealer,
        "hands": [[card_name(c) for c in mask_to_cards(header[kb.H_HAND + s])] for s in (0, 1)],
        "stock": [card_name(c) for c in stock],
        "discards": discards,
        "calls": calls,
        "play": play,
        "expect": outcome_dict(header[kb.H_OUT:kb.H_OUT + kb.N_OUT]),
        "counted": bool(header[kb.H_COUNTED]),
        "legal": legal,
        "seats": seats,
    }


def outcome_dict(out) -> dict:
    """A kernel deal outcome in the replay format's ``expect`` keys."""
    if out[kc.O_ERROR]:
        return {"error": kb.ERROR_RULES[out[kc.O_ERROR]],
                "at": f"{kc.AT_NAMES[out[kc.O_ERROR_AT]]}[{out[kc.O_ERROR_INDEX]}]"}
    contract = int(out[kc.O_CONTRACT])
    return {
        "contract": "pass" if contract < 0 else call_name(contract),
        "declarer": None if contract < 0 else int(out[kc.O_DECLARER]),
        "doubled": int(out[kc.O_DOUBLED]),
        "tricks": [int(out[kc.O_TRICKS]), int(out[kc.O_TRICKS + 1])],
        "score": [int(out[kc.O_SCORE]), int(out[kc.O_SCORE + 1])],
    }


def deck_error(rules, hands, stock) -> str | None:
    """B-2/B-4: why ``hands`` and ``stock`` are not a deal of this deck, or None."""
    deck = {card_name(c) for c in rules.to_kernel()[1]}
    if len(hands) != 2 or any(len(h) != kb.HAND_SIZE for h in hands):
        return "hands"
    seen = [c for h in hands for c in h]
    if len(set(seen)) != len(seen) or not set(seen) <= deck:
        return "hands"
    if sorted(stock) != sorted(deck - set(seen)) or len(stock) != len(deck) - len(seen):
        return "stock"
    return None


def replay_deal(case: dict) -> dict:
    """Replay one Bridgette deal in the kernel: its outcome, or the first illegal action."""
    rules = BridgetteRules.from_dict(case.get("rules"))
    params, deck, value, exact, penalty = rules.to_kernel()
    hands_in, stock_in = case["hands"], case["stock"]
    where = deck_error(rules, hands_in, stock_in)
    if where:
        return {"error": "B-2", "at": where}
    hands = np.array([sum(1 << CARD_IDS[c] for c in h) for h in hands_in], dtype=np.uint64)
    stock = np.array([CARD_IDS[c] for c in stock_in], dtype=np.int64)
    given = case.get("discards") or [[], []]
    width = 1 + max((len(d) for d in given), default=0)
    discards = np.full((2, width), -1, dtype=np.int64)
    for seat, cards in enumerate(given[:2]):
        discards[seat, 0] = len(cards)
        discards[seat, 1:1 + len(cards)] = [CARD_IDS.get(c, -1) for c in cards]
    calls = np.array([CALL_IDS.get(c, CALL_UNKNOWN) for c in case.get("calls", [])], dtype=np.int64)
    play = np.array([CARD_IDS.get(c, -1) for c in case.get("play", [])], dtype=np.int64)
    deck_mask = np.uint64(sum(1 << int(c) for c in deck))
    out = np.zeros(kb.N_OUT, dtype=np.int64)
    pol = np.full(2, POLICY_SCRIPT, dtype=np.int64)
    prm = np.zeros((2, 4), dtype=np.float64)
    kb.play_deal_nb(params, value, exact, penalty, deck_mask, int(case["dealer"]), hands, stock,
                    pol, prm, np.zeros(1, dtype=np.uint64), discards, calls, play,
                    np.zeros((0, kc.TRACE_WIDTH), dtype=np.int64), np.zeros(1, dtype=np.int64), out)
    result = outcome_dict(out)
    if out[kc.O_ERROR] == kc.ERR_NOT_IN_HAND and out[kc.O_ERROR_AT] == kc.AT_PLAY:
        index = int(out[kc.O_ERROR_INDEX])
        if index < min(len(case["play"]), 2 * kb.HAND_SIZE) and case["play"][index] in CALL_IDS:
            result["error"] = "C-4"  # a call where a card is due: a call after the auction
    return result


# --- Records and aggregates for runs ----------------------------------------------------------

PLAYERS = 2
RULES = BridgetteRules
CARD_NAMES = [card_name(c) for c in range(55)]
CLASS_NAMES = ["numeral", "face", "ace"]
CONTRACT_NAMES = [call_name(b) for b in range(36)] + ["pass"]
STRAIN_NAMES = ["C", "D", "H", "S", "NT"]


def _categorical(indices, names, mask=None):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(indices, dtype=np.int32), mask=mask),
                                          pa.array(names))


def declarer_made(deals):
    """Per deal: (played, made) flags of the contract (B-11: 6 + level tricks)."""
    contract = deals["contract"]
    played = contract >= 0
    declarer_tricks = np.where(deals["declarer"] == 0, deals["tricks0"], deals["tricks1"])
    made = played & (declarer_tricks >= 6 + BID_LEVEL[np.maximum(contract, 0)])
    return played, made


def deal_table(deals, policies):
    """Deal records as an Arrow table: one row per counted deal, names in C-2 notation."""
    import pyarrow as pa

    contract = deals["contract"].astype(np.int64)
    played, made = declarer_made(deals)
    columns = {
        "game": deals["game"], "deal": deals["deal"], "dealer": deals["dealer"],
        "upcard": _categorical(deals["upcard"], CARD_NAMES),
        "upcard_class": _categorical(deals["upcard_class"], CLASS_NAMES),
        "colon_little": deals["colon_little"], "colon_royal": deals["colon_royal"],
        "colon_grand": deals["colon_grand"],
        "contract": _categorical(np.where(played, contract, 36), CONTRACT_NAMES),
        "level": np.where(played, BID_LEVEL[np.maximum(contract, 0)], -1).astype(np.int8),
        "strain": _categorical(BID_STRAIN[np.maximum(contract, 0)], STRAIN_NAMES, mask=~played),
        "declarer": deals["declarer"], "doubled": deals["doubled"],
        "tricks0": deals["tricks0"], "tricks1": deals["tricks1"], "made": made,
        "score0": deals["score0"], "score1": deals["score1"],
    }
    for seat, policy in enumerate(policies):
        columns[f"policy{seat}"] = _categorical(np.zeros(len(deals)), [str(policy)])
    return pa.table(columns)


def game_table(games):
    """Game records as an Arrow table (winner -1: drawn or abandoned)."""
    import pyarrow as pa

    return pa.table({name: games[name] for name in games.dtype.names})


def aggregate(deals, games) -> dict:
    """Block aggregates of a Bridgette run (see sim.summary for how they merge)."""
    from sim.summary import histogram

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
        "wins": wins.tolist(),
        "redeals": int(games["redeals"].sum()),
        "tiebreak_games": int((games["tiebreak_deals"] > 0).sum()),
    }


def summarize(agg: dict) -> dict:
    """Statistics of a whole run from its merged aggregates."""
    from sim.summary import describe, rate

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
    return {
        "games": agg["games"], "deals": agg["deals"],
        "passed_out": rate(agg["passed_out"], agg["deals"]),
        "contracts_made": rate(sum(made), n_played),
        "contracts": contracts, "made_by_level": by_level, "made_by_strain": by_strain,
        "doubled": {k: rate(agg["doubled"][i], n_played) for i, k in enumerate(("undoubled", "doubled", "redoubled"))},
        "made_by_declarer": {"dealer": rate(agg["declarer_dealer"][0][1], agg["declarer_dealer"][0][0]),
                             "non_dealer": rate(agg["declarer_dealer"][1][1], agg["declarer_dealer"][1][0])},
        "deal_score": {f"seat{s}": describe(agg["deal_score"][s]) for s in range(PLAYERS)},
        "game_total": {f"seat{s}": describe(agg["game_total"][s]) for s in range(PLAYERS)},
        "game_wins": {"seat0": rate(int(wins[:, 0].sum()), games), "seat1": rate(int(wins[:, 1].sum()), games),
                      "drawn": rate(int(wins[:, 2].sum()), games), "abandoned": rate(int(wins[:, 3].sum()), games)},
        "first_dealer_wins": rate(int(wins[0, 0] + wins[1, 1]), games),
        "redeals": agg["redeals"], "tiebreak_games": agg["tiebreak_games"],
    }


def format_summary(summary: dict) -> str:
    """The end-of-run table printed by sim.run."""
    from sim.summary import percent

    lines = [f"contracts made {percent(summary['contracts_made'])} of "
             f"{summary['contracts_made']['n']:,} played; passed out {percent(summary['passed_out'])}; "
             f"doubled {percent(summary['doubled']['doubled'])}, redoubled {percent(summary['doubled']['redoubled'])}",
             "", "contracts made by level and strain (95% Wilson intervals; '-' never played):",
             "level " + "".join(f"{s:>22s}" for s in STRAIN_NAMES) + f"{'all':>22s}"]
    for level in range(8):
        cells = []
        for s in STRAIN_NAMES:
            name = f"{level}{s}"
            cells.append(percent(summary["contracts"].get(name)) if name in CONTRACT_NAMES else "")
        lines.append(f"{level:>5d} " + "".join(f"{c:>22s}" for c in cells)
                     + f"{percent(summary['made_by_level'][str(level)]):>22s}")
    lines.append("  all " + "".join(f"{percent(summary['made_by_strain'][s]):>22s}" for s in STRAIN_NAMES))
    lines += ["", f"{'score by seat':22s}{'mean':>10s}{'95% CI':>22s}{'p5':>8s}{'p25':>8s}{'p50':>8s}{'p75':>8s}{'p95':>8s}"]
    for kind, label in (("deal_score", "per deal"), ("game_total", "per game")):
        for seat, d in summary[kind].items():
            if not d["n"]:
                continue
            ci = f"[{d['mean_ci95'][0]:.1f}, {d['mean_ci95'][1]:.1f}]"
            lines.append(f"  {label} {seat:12s}{d['mean']:10.1f}{ci:>22s}"
                         + "".join(f"{d[q]:8d}" for q in ("p5", "p25", "p50", "p75", "p95")))
    w = summary["game_wins"]
    lines += ["", f"game wins: seat 0 {percent(w['seat0'])}, seat 1 {percent(w['seat1'])}, "
                  f"drawn {percent(w['drawn'])}, abandoned {percent(w['abandoned'])}",
              f"first dealer wins {percent(summary['first_dealer_wins'])}"]
    return "\n".join(lines)


# --- Narration for sim.show -------------------------------------------------------------------

COLON_WORDS = {"CL": "Little Colon", "CR": "Royal Colon", "CG": "Grand Colon"}


def _hand_words(cards) -> str:
    """A hand by suit, high cards first: 'S A K 7  H Q 9  D -  C J 4 3  Colons CL'."""
    order = "23456789TJQKA"
    parts = []
    for suit in "SHDC":
        ranks = sorted((c[0] for c in cards if c[1] == suit and c not in COLON_WORDS),
                       key=order.index, reverse=True)
        parts.append(f"{suit} {' '.join(ranks) or '-'}")
    colons = [c for c in cards if c in COLON_WORDS]
    if colons:
        parts.append("Colons " + " ".join(sorted(colons)))
    return "  ".join(parts)


def describe_deal(rules, deal: dict) -> list[str]:
    """One traced deal in words: hands, exchange, auction, tricks with Colon effects, score.

    The narration replays the trace in the referee, which agrees with the kernel on every
    action (the differential test), and reads trick winners and Colon effects from it.
    """
    from sim.reference.bridgette import BridgetteDeal, matching_colon, upcard_class

    dealer = deal["dealer"]
    ref = BridgetteDeal(rules, dealer, deal["hands"], deal["stock"])
    lines = [f"  seat {s}{' (dealer)' if s == dealer else ''}: {_hand_words(h)}"
             for s, h in enumerate(deal["hands"])]
    up = deal["stock"][0]
    fate = {"nondealer": "first card of the non-dealer's draw", "dealer": "first card of the dealer's draw",
            "dead": "removed"}[rules.exchange.upcard_to]
    lines.append(f"  up-card {up} ({upcard_class(up)}; {fate})")
    for s in (1 - dealer, dealer):
        lines.append(f"  seat {s} draws {' '.join(ref.drawn[s]) or 'nothing'}, "
                     f"discards {' '.join(deal['discards'][s]) or 'nothing'}")
    nondealer = 1 - dealer
    for card in deal["discards"][nondealer] + deal["discards"][dealer]:
        ref.apply(card)
    for s in (0, 1):
        lines.append(f"  seat {s} keeps: {_hand_words(ref.hands[s])}")
    calls = []
    for i, call in enumerate(deal["calls"]):
        calls.append(f"{(dealer + i) % 2}:{call}")
        ref.apply(call)
    lines.append(f"  auction (dealer first): {'  '.join(calls)}")
    outcome = deal["expect"]
    if outcome["contract"] == "pass":
        lines.append("  passed out" + ("" if deal.get("counted", True) else "; the same dealer deals again (C-5)"))
        return lines
    dbl = ("", " doubled", " redoubled")[outcome["doubled"]]
    lines.append(f"  contract {outcome['contract']}{dbl} by seat {outcome['declarer']}; "
                 f"seat {1 - outcome['declarer']} leads")
    for k in range(0, len(deal["play"]), 2):
        lead, follow = deal["play"][k], deal["play"][k + 1]
        ref.apply(lead)
        ref.apply(follow)
        leader, _, winner = ref.trick_history[-1]
        note = ""
        if lead in COLON_WORDS:
            note = (f"  [B-9: {COLON_WORDS[lead]} led, "
                    + ("a Colon on a Colon loses]" if follow in COLON_WORDS else
                       ("lost to a trump]" if winner != leader and follow[1] == ref.trump
                        else "lost to a card in its range]" if winner != leader else "it wins]")))
        elif follow in COLON_WORDS:
            if follow == matching_colon(lead):
                note = f"  [B-8: matching {COLON_WORDS[follow]}; seat {leader} may not lead {lead[1]} next]"
            else:
                note = f"  [B-10: {COLON_WORDS[follow]} does not match; it loses]"
        lines.append(f"  trick {k // 2 + 1:2d}: seat {leader} {lead}, seat {1 - leader} {follow}"
                     f" -> seat {winner}{note}")
    declarer = outcome["declarer"]
    need = 6 + int(outcome["contract"][0])
    got = outcome["tricks"][declarer]
    verdict = ("made exactly" if got == need else f"made with {got - need} over" if got > need
               else f"down {need - got}")
    lines.append(f"  tricks {outcome['tricks'][0]}-{outcome['tricks'][1]}: {outcome['contract']}{dbl} {verdict}; "
                 f"scores seat 0 +{outcome['score'][0]}, seat 1 +{outcome['score'][1]}")
    return lines


def describe_game(rules, game_row, deals, seed: int, only_deal: int | None = None) -> str:
    """A traced game in words; ``only_deal`` picks one counted deal (the records' ``deal``)."""
    lines = [f"Bridgette game {int(game_row['game'])} of seed {seed}: first dealer seat "
             f"{int(game_row['first_dealer'])}"]
    counted = -1
    for deal in deals:
        counted += deal["counted"]
        if only_deal is not None and (counted != only_deal or not deal["counted"]):
            continue
        label = f"deal {counted}" if deal["counted"] else f"redealt passed-out deal before deal {counted + 1}"
        lines.append(f"{label}: dealer seat {deal['dealer']}")
        lines += describe_deal(rules, deal)
    if only_deal is None:
        result = ("abandoned" if game_row["abandoned"] else "drawn" if game_row["winner"] < 0
                  else f"seat {int(game_row['winner'])} wins")
        lines.append(f"game: {int(game_row['deals'])} deals, totals seat 0 {int(game_row['total0'])}, "
                     f"seat 1 {int(game_row['total1'])}: {result}")
    return "\n".join(lines)
