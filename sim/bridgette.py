"""Bridgette for runs: blocks of games, traces, kernel replays, records and summaries.

These wrappers allocate the kernels' outputs, compact the fixed deal slots into records,
and translate between kernel integers and RULES.md notation (C-2).
"""

from __future__ import annotations

import numpy as np

from kernels import bridgette as kb
from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_IDS, CALL_UNKNOWN, N_BIDS
from kernels.cards import CARD_IDS, COLON_GRAND, COLON_LITTLE, COLON_ROYAL, card_name, mask_to_cards
from kernels.dealing import games_plan
from kernels.engine import run_bridgette_games_nb, trace_bridgette_games_nb
from sim import contract, dd_run
from sim.activity import CONTRACT_AUCTION, always, bit, column, contracts, failed, made
from sim.cli import plural
from sim.games import game_info
from sim.rules import BridgetteRules, kernel_params
from sim.summary import percent, rate

RUN_KERNEL = run_bridgette_games_nb  # the parallel kernel of runs (sim.api tells whether numba has it cached)


def kernel_rules(rules) -> kb.KernelRules:
    """The kernels' view of validated rules (``sim.games.kernel_rules`` asks here): the
    option record, the deck with the chosen Colons (B-4), and B-11..B-14's score tables
    with the scoring options folded in."""
    sc = rules.scoring
    colon_ids = {"little": COLON_LITTLE, "royal": COLON_ROYAL, "grand": COLON_GRAND}
    deck = np.array(list(range(52)) + [colon_ids[c] for c in rules.deck.colons], dtype=np.int64)

    tables = np.zeros(1, dtype=kb.TABLES_DTYPE)
    value, exact, penalty = tables["value"][0], tables["exact"][0], tables["penalty"][0]  # views
    by_strain = (sc.minor_values, sc.minor_values, sc.major_values, sc.major_values)  # levels 1..7
    for b in range(N_BIDS):
        level, strain = int(BID_LEVEL[b]), int(BID_STRAIN[b])
        value[b] = sc.nt_values[level] if strain == 4 else by_strain[strain][level - 1]
        reduced = sc.exact_bonus == "nt_reduced" and strain == 4 and level <= 5
        exact[b] = sc.nt_reduced_exact if reduced else sc.exact_values[level]

    rows = np.array([sc.penalty_undoubled, sc.penalty_doubled, sc.penalty_redoubled], dtype=np.int64)
    for level in range(8):
        for short in range(1, kb.MAX_SHORT + 1):
            if sc.penalty_last_row == "failed_slam":
                row = 5 if level >= 6 else min(short, 5) - 1
            else:
                row = min(short, 6) - 1
            penalty[level, :, short] = rows[:, row]
    params = kernel_params(rules)
    tables["gain"][0] = kb.gain_table_nb(params, tables)
    return kb.KernelRules(params, deck, tables, games_plan())


def run_block(rules, policies, seed: int, first_game: int, count: int, dd: bool | str = False, plan=None):
    """Play games ``first_game .. first_game+count-1``: (deal records, game records); with
    ``dd`` the deal records also hold each deal's double-dummy values (kernels.dd_run; with
    ``sim.contract.CONTRACT_ONLY`` only the contract's); with ``plan`` (sim.dealing) each
    index is dealt as the plan says."""
    return contract.run_kernel(kb, run_bridgette_games_nb, kernel_rules(rules), policies, seed, first_game, count, dd,
                               plan)


def deal_layout(rules):
    """How B-2 deals, for conditions (sim.dealing): the up-card is the stock's first card."""
    from sim.dealing import bridge_layout

    return bridge_layout(kernel_rules(rules).deck, 2 * kb.HAND_SIZE)


def trace_raw(rules, policies, seed: int, game_indices, plan=None):
    """Kernel traces of chosen games: (game records, deal headers, deal outcomes, action rows)."""
    return contract.trace_kernel(kb, trace_bridgette_games_nb, kernel_rules(rules), policies, seed, game_indices, plan)


def trace_games(rules, policies, seed: int, game_indices, plan=None):
    """Every deal of the chosen games, dealt and played as in any run with ``seed``.

    Returns (games, traces): the game records, and per game a list of deals, each a dict
    in the RULES.md replay format with ``expect`` filled from the kernel, plus
    ``counted``, and per action in time order its ``seats`` entry and ``legal`` set.
    """
    games, headers, outcomes, trace = trace_raw(rules, policies, seed, game_indices, plan)
    by_game = {int(g): [] for g in game_indices}
    for head, row in zip(headers, outcomes):
        by_game[int(head["game"])].append(_deal_from_trace(rules, head, row, trace))
    return games, [by_game[int(g)] for g in game_indices]


def _deal_from_trace(rules, head, row, trace) -> dict:
    actions = contract.actions_from_trace(trace[head["actions_start"]:head["actions_end"]])
    return {
        "game": "bridgette",
        "rules": rules.to_dict(),
        "dealer": int(head["dealer"]),
        "hands": [[card_name(c) for c in mask_to_cards(head["hands"][s])] for s in (0, 1)],
        "stock": [card_name(c) for c in head["stock"][:head["stock_len"]]],
        "discards": actions["discards"],
        "calls": actions["calls"],
        "play": actions["play"],
        "expect": outcome_dict(row),
        "counted": bool(head["counted"]),
        "legal": actions["legal"],
        "seats": actions["seats"],
    }


def outcome_dict(row) -> dict:
    """A kernel deal record in the replay format's ``expect`` keys."""
    return contract.outcome_dict(row, lambda code, at, index: kb.ERROR_RULES[code])


def replay_deal(case: dict) -> dict:
    """Replay one Bridgette deal in the kernel: its outcome, or the first illegal action."""
    rules = BridgetteRules.from_dict(case.get("rules"))
    kr = kernel_rules(rules)
    hands_in, stock_in = case["hands"], case["stock"]
    where = contract.deck_error({card_name(c) for c in kr.deck}, hands_in, stock_in)
    if where:
        return {"error": "B-2", "at": where}
    hands = np.array([sum(1 << CARD_IDS[c] for c in h) for h in hands_in], dtype=np.uint64)
    stock = np.array([CARD_IDS[c] for c in stock_in], dtype=np.int64)
    discards = [[CARD_IDS.get(c, -1) for c in cards] for cards in (list(case.get("discards") or []) + [[], []])[:2]]
    calls = [CALL_IDS.get(c, CALL_UNKNOWN) for c in case.get("calls", [])]
    play = [CARD_IDS.get(c, -1) for c in case.get("play", [])]
    deck_mask = np.uint64(sum(1 << int(c) for c in kr.deck))
    row = contract.replay_record(kb, kb.play_deal_nb, kr, deck_mask, int(case["dealer"]), hands, stock,
                                 lists=(*discards, calls, play))
    return contract.call_in_play_is_c4(outcome_dict(row), row, case.get("play", []), 0, 2 * kb.HAND_SIZE)


# --- Records and aggregates for runs ----------------------------------------------------------

PLAYERS = contract.PLAYERS
RULES = BridgetteRules
CARD_NAMES = [card_name(c) for c in range(55)]
CLASS_NAMES = ["numeral", "face", "ace"]
# The up-card's class with each Colon apart, named as the report's up-card section names them.
UPCARD_GROUPS = CLASS_NAMES + ["Little Colon", "Royal Colon", "Grand Colon"]
COLON_NAMES = ("little", "royal", "grand")
game_table = contract.game_table
made_flags = contract.made_flags


def _upcard_group(deals) -> np.ndarray:
    """Per deal: the up-card's class (B-3), or 3, 4, 5 for the Little, Royal and Grand Colon."""
    group = deals["upcard_class"].astype(np.int64)
    for k, colon in enumerate(("CL", "CR", "CG")):
        group = np.where(deals["upcard"] == CARD_IDS[colon], len(CLASS_NAMES) + k, group)
    return group


def deal_table(rules, deals, policies):
    """Deal records as an Arrow table: one row per counted deal, names in C-2 notation (a
    --dd run's double-dummy columns last, sim.dd_run)."""
    from sim import arrow

    columns = {
        "game": deals["game"], "deal": deals["deal"], "dealer": deals["dealer"],
        "upcard": contract.categorical(deals["upcard"], CARD_NAMES),
        "upcard_class": contract.categorical(deals["upcard_class"], CLASS_NAMES),
        "upcard_group": contract.categorical(_upcard_group(deals), UPCARD_GROUPS),
        "colon_little": deals["colon_little"], "colon_royal": deals["colon_royal"],
        "colon_grand": deals["colon_grand"],
        **{f"colon_{name}_{what}": deals[f"colon_{name}_{what}"]
           for what in ("play", "won") for name in COLON_NAMES},
        **contract.contract_columns(deals, policies),
        **dd_run.deal_columns(game_info("bridgette"), deals),
    }
    return arrow.table(columns)


ADVANTAGE_GROUPS = tuple(UPCARD_GROUPS)


def advantage_groups(deals) -> np.ndarray:
    """Per deal, its index in ADVANTAGE_GROUPS: the up-card's class (B-3), the Colons
    apart, as the report's up-card section groups them."""
    return _upcard_group(deals)


def aggregate(rules, deals, games) -> dict:
    """Block aggregates of a Bridgette run (see sim.summary for how they merge)."""
    colons = {}
    kinds = len(kb.COLON_KINDS)
    for name in COLON_NAMES:
        # Deals by (kind of play + 1, won): the kind -1 (not played) first.
        play, won = deals[f"colon_{name}_play"].astype(np.int64), deals[f"colon_{name}_won"] != 0
        cells = np.bincount((play + 1) * 2 + won, minlength=2 * (kinds + 1)).reshape(-1, 2)[1:]
        colons[name] = {"kept": int((deals[f"colon_{name}"] >= 0).sum()),
                        "plays": cells.sum(axis=1).tolist(), "wins": cells[:, 1].tolist()}
    return {**contract.aggregate(deals, games),
            "tiebreak_games": int((games["tiebreak_deals"] > 0).sum()), "colons": colons}


def summarize(rules, agg: dict) -> dict:
    """Statistics of a whole run from its merged aggregates; Colon plays by kind of
    play (B-8 block, B-9 lead, discard) with the share of those tricks won by the Colon."""
    colons = {}
    for name in rules.deck.colons:
        c = agg["colons"][name]
        colons[name] = {"kept": rate(c["kept"], agg["deals"]),
                        **{kind: {"plays": c["plays"][k], "per_deal": c["plays"][k] / max(agg["deals"], 1),
                                  "won": rate(c["wins"][k], c["plays"][k])}
                           for k, kind in enumerate(kb.COLON_KINDS)}}
    return {**contract.summarize(agg), "tiebreak_games": agg["tiebreak_games"], "colons": colons}


def format_summary(summary: dict) -> str:
    """The end-of-run table printed by sim.run."""
    lines = [contract.format_summary(summary, lowest_level=0), "",
             "Colons: kept after the exchange; plays per deal as a block (B-8), a lead (B-9) or a discard, and tricks won:"]
    for name, c in summary["colons"].items():
        plays = "; ".join(f"{kind} {c[kind]['per_deal']:.3f} won {percent(c[kind]['won']).strip()}"
                          for kind in kb.COLON_KINDS)
        lines.append(f"  {name:6s} kept {percent(c['kept']).strip()}; {plays}")
    return "\n".join(lines)


# --- Narration for sim.show -------------------------------------------------------------------

COLON_WORDS = {"CL": "Little Colon", "CR": "Royal Colon", "CG": "Grand Colon"}


def describe_deal(rules, deal: dict) -> list[str]:
    """One traced deal in words: hands, exchange, auction, tricks with Colon effects, score.

    The narration replays the trace in the referee, which agrees with the kernel on every
    action (the differential test), and reads trick winners and Colon effects from it.
    """
    from sim.reference.bridgette import BridgetteDeal, matching_colon, upcard_class

    dealer = deal["dealer"]
    ref = BridgetteDeal(rules, dealer, deal["hands"], deal["stock"])
    lines = [f"  seat {s}{' (dealer)' if s == dealer else ''}: {contract.hand_words(h)}"
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
        lines.append(f"  seat {s} keeps: {contract.hand_words(ref.hands[s])}")
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
        lines.append(f"game: {plural(int(game_row['deals']), 'deal')}, totals seat 0 {int(game_row['total0'])}, "
                     f"seat 1 {int(game_row['total1'])}: {result}")
    return "\n".join(lines)


# --- Rule activity (sim.activity): which deals each option decided something in ---------------

def _overtrick_bonus(b):
    """B-12: made with three overtricks, or three or more under "atleast3"."""
    at_least = b.rules.scoring.overtrick_bonus_rule == "atleast3"
    return contracts(lambda lv, st, over, x: (over >= 3) if at_least else (over == 3))(b)


def _tiebreak(b):
    return int(b.games["tiebreak_deals"].sum())


ACTIVITY_ROWS = [
    ("deck.colons", "B-4", "the deck (always active)", always()),
    ("exchange.nondealer_draw", "B-3", "the non-dealer drew (always active)", always()),
    # B-3: each dealer draw applies after an up-card of its class
    ("exchange.dealer_draw_numeral", "B-3", "the up-card was a numeral or the Little Colon", column("upcard_class", 0)),
    ("exchange.dealer_draw_face", "B-3", "the up-card was a J, Q, K or the Royal Colon", column("upcard_class", 1)),
    ("exchange.dealer_draw_ace", "B-3", "the up-card was an ace or the Grand Colon", column("upcard_class", 2)),
    ("exchange.upcard_to", "B-3", "the up-card went to its side (always active)", always()),
    *CONTRACT_AUCTION,
    ("auction.min_trump_cards", "B-6", "a suit bid was refused for too few cards", bit("min_trump_cards")),
    ("auction.nt_needs_all_suits", "B-6", "a no-trump bid was refused for a void", bit("nt_needs_all_suits")),
    ("auction.jump_min_cards", "B-6", "a jump bid was refused for too few cards", bit("jump_min_cards")),
    (None, "B-8", "a Colon's block barred a lead", bit("lead_barred")),
    ("play.colon_discard", "B-10", "a follower void in the suit led held a non-matching Colon "
                                   "and other cards", bit("colon_discard")),
    ("scoring.made_basis", "B-11", "a contract was made with overtricks",
     contracts(lambda lv, st, over, x: over > 0)),
    ("scoring.nt_values", "B-11", "a no-trump contract was made", made(strains=(4,))),
    ("scoring.minor_values", "B-11", "a club or diamond contract was made", made(strains=(0, 1))),
    ("scoring.major_values", "B-11", "a heart or spade contract was made", made(strains=(2, 3))),
    ("scoring.exact_bonus", "B-12", "a contract was made exactly", contracts(lambda lv, st, over, x: over == 0)),
    ("scoring.exact_values", "B-12", "a contract was made exactly", contracts(lambda lv, st, over, x: over == 0)),
    ("scoring.nt_reduced_exact", "B-12", "a 0NT..5NT was made exactly under exact_bonus nt_reduced",
     contracts(lambda lv, st, over, x: (over == 0) & (st == 4) & (lv <= 5),
                lambda r: r.scoring.exact_bonus == "nt_reduced")),
    ("scoring.overtrick_bonus_rule", "B-12", "a contract was made with more than three overtricks",
     contracts(lambda lv, st, over, x: over > 3)),
    ("scoring.overtrick_bonus", "B-12", "a contract was made with the overtricks the bonus needs",
     _overtrick_bonus),
    ("scoring.double_bonus", "B-12", "a doubled contract was made", made(1)),
    ("scoring.redouble_bonus", "B-12", "a redoubled contract was made", made(2)),
    ("scoring.multiply_bonuses", "B-13", "a doubled or redoubled contract was made",
     contracts(lambda lv, st, over, x: (over >= 0) & (x > 0))),
    ("scoring.double_factor", "B-13", "a doubled contract was made", made(1)),
    ("scoring.redouble_factor", "B-13", "a redoubled contract was made", made(2)),
    # B-14: where the two readings of the last row part
    ("scoring.penalty_last_row", "B-14", "a slam failed by 1-5 tricks, or another contract by 6 or more",
     contracts(lambda lv, st, over, x: np.where(lv >= 6, (over < 0) & (over > -6), over <= -6))),
    ("scoring.penalty_undoubled", "B-14", "an undoubled contract failed", failed(0)),
    ("scoring.penalty_doubled", "B-14", "a doubled contract failed", failed(1)),
    ("scoring.penalty_redoubled", "B-14", "a redoubled contract failed", failed(2)),
    ("game.deals", "B-15", "the game's deals (always active)", always()),
    ("game.max_tiebreak_deals", "B-15", "a tie-break deal was played", _tiebreak),
]
