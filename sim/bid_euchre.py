"""Bid Euchre for runs: blocks of games, traces, kernel replays, records and summaries."""

from __future__ import annotations

from collections import Counter

import numpy as np

from kernels import bid_euchre as ke
from kernels.calls import CALL_UNKNOWN, EUCHRE_FIRST_LEVEL, EUCHRE_PASS
from kernels.cards import EUCHRE_CARD_IDS, EUCHRE_POWER, euchre_card_name, mask_to_cards
from kernels.dealing import games_plan
from kernels.engine import run_bid_euchre_games_nb, trace_bid_euchre_games_nb
from sim import dd_run
from sim.activity import always, bit, column, deal_limit, tally
from sim.cli import plural
from sim.contract import categorical, dealer_columns, replay_record, run_kernel, trace_kernel
from sim.contract import game_table as game_table  # re-exported: the game interface
from sim.games import game_info
from sim.rules import BidEuchreRules, kernel_params
from sim.summary import describe, histogram, percent, rate

PLAYERS = 4
RULES = BidEuchreRules
SUIT_NAMES = ["C", "D", "H", "S"]


def _names(tricks: int) -> list[str]:
    """Call names by id: the bid ladder, then "P" at EUCHRE_PASS."""
    names = ke.bid_names(tricks) + [""] * (EUCHRE_PASS + 1)
    names[EUCHRE_PASS] = "P"
    return names[:EUCHRE_PASS + 1]


RUN_KERNEL = run_bid_euchre_games_nb  # the parallel kernel of runs (sim.api tells whether numba has it cached)


def kernel_rules(rules) -> ke.KernelRules:
    """The kernels' view of validated rules (``sim.games.kernel_rules`` asks here): the
    option record with the derived ``tricks`` (6, or 12 with the double deck), and the
    deck (E-1, E-10)."""
    double = rules.variant.double_deck
    deck = list(range(48 if double else 24)) + ([ke.JOKER] if rules.variant.joker else [])
    return ke.KernelRules(kernel_params(rules, tricks=12 if double else 6), np.array(deck, dtype=np.int64),
                          games_plan())


def check_searching(rules, policies) -> None:
    """A RunError where a seat that samples worlds (``pimc``, ``search``) cannot play these
    rules (``sim.dd_run.refusal``: the double deck)."""
    from sim.store import RunError

    reason = dd_run.sampler_refusal("bid-euchre", rules, policies)
    if reason:
        raise RunError(reason)


def run_block(rules, policies, seed: int, first_game: int, count: int, dd: bool = False, plan=None):
    """Play games ``first_game .. first_game+count-1``: (deal records, game records); with
    ``dd`` the deal records also hold each deal's double-dummy values (kernels.dd_run); with
    ``plan`` (sim.dealing) each index is dealt as the plan says."""
    check_searching(rules, policies)
    return run_kernel(ke, run_bid_euchre_games_nb, kernel_rules(rules), policies, seed, first_game, count, dd, plan)


def deal_layout(rules):
    """How E-1 deals, for conditions (sim.dealing): four hands from the dealer's left and
    E-10's joker card to the dealer (seat 0 in the layout); the suits, aces, and each
    suit's bowers and trumps-to-be (E-2: the suit, its left bower and the joker)."""
    from kernels.cards import EUCHRE_ACES, EUCHRE_RANKS
    from kernels.dealing import REQ_COUNT
    from sim.dealing import SUITS, Layout

    kr = kernel_rules(rules)
    deck = np.asarray(kr.deck, dtype=np.int64)
    names: dict = {}
    for c in deck:
        names.setdefault(euchre_card_name(int(c)), []).append(int(c))

    def cards(*wanted) -> int:
        return sum(1 << c for name in wanted for c in names.get(name, []))

    features = {suit: (REQ_COUNT, cards(*(r + suit[0].upper() for r in EUCHRE_RANKS))) for suit in SUITS}
    features["aces"] = (REQ_COUNT, int(EUCHRE_ACES) & cards(*names))
    for t, suit in enumerate(SUITS):
        jacks = cards("J" + suit[0].upper(), "J" + SUITS[3 - t][0].upper())  # E-2: the same colour's jacks
        features[f"bowers_{suit}"] = (REQ_COUNT, jacks)
        features[f"trumps_{suit}"] = (REQ_COUNT, features[suit][1] | jacks | cards("JO"))
    per_seat = int(kr.params[0]["tricks"])
    return Layout(deck, names, 4, per_seat, 4 * per_seat, 0, -1, features)


def trace_raw(rules, policies, seed: int, game_indices, plan=None):
    """Kernel traces of chosen games: (game records, deal headers, deal outcomes, action rows)."""
    check_searching(rules, policies)
    return trace_kernel(ke, trace_bid_euchre_games_nb, kernel_rules(rules), policies, seed, game_indices, plan)


def _cards(mask) -> list[str]:
    return [euchre_card_name(c) for c in mask_to_cards(mask)]


def trace_games(rules, policies, seed: int, game_indices, plan=None):
    """Every deal of the chosen games in the replay format, ``expect`` from the kernel, plus
    per action in time order its ``seats`` entry and ``legal`` set (distinct names)."""
    games, headers, outcomes, trace = trace_raw(rules, policies, seed, game_indices, plan)
    tricks = 12 if rules.variant.double_deck else 6
    calls_named = _names(tricks)
    by_game = {int(g): [] for g in game_indices}
    for head, row in zip(headers, outcomes):
        dealer = int(head["dealer"])
        deal = {"game": "bid-euchre", "rules": rules.to_dict(), "dealer": dealer,
                "hands": [_cards(head["hands"][s]) for s in range(4)],
                "discards": [[] for _ in range(4)], "calls": [], "play": [], "counted": True,
                "legal": [], "seats": []}
        given, returned = [], []
        for kind, seat, action, mask in trace[head["actions_start"]:head["actions_end"]]:
            deal["seats"].append(int(seat))
            if kind == ke.KIND_CALL:
                deal["calls"].append(calls_named[action])
                deal["legal"].append([calls_named[c] for c in mask_to_cards(mask)])
                continue
            if kind == ke.KIND_TRUMP:
                deal["trump"] = SUIT_NAMES[action]
                deal["legal"].append(list(SUIT_NAMES))
                continue
            deal["legal"].append(sorted(set(_cards(mask))))
            name = euchre_card_name(action)
            {ke.KIND_DISCARD: deal["discards"][seat], ke.KIND_GIVE: given,
             ke.KIND_RETURN: returned, ke.KIND_PLAY: deal["play"]}[kind].append(name)
        if given:
            forced = _forced_returns(rules, deal, row)
            deal["trump_exchange"] = [given, forced + returned]
            deal["chosen_returns"] = returned
        elif "trump" in deal:
            deal["trump_exchange"] = []
        deal["expect"] = outcome_dict(rules, row, [])
        by_game[int(head["game"])].append(deal)
    return games, [by_game[int(g)] for g in game_indices]


def _forced_returns(rules, deal, row) -> list[str]:
    """E-4: partner's highest trumps from its hand before the exchange (for the replay line)."""
    bidder, trump = int(row["bidder"]), int(row["trump"])
    partner = (bidder + 2) % 4
    hand = Counter(deal["hands"][partner])
    hand.subtract(deal["discards"][partner])
    mask = 0
    for name, n in hand.items():
        for copy in range(n):
            mask |= 1 << (EUCHRE_CARD_IDS[name] + 24 * copy)
    forced = ke.highest_trumps_nb(np.uint64(mask), trump, rules.auction.ask_cards)
    powers = {c: EUCHRE_POWER[trump, c] for c in mask_to_cards(forced)}
    return [euchre_card_name(c) for c in sorted(powers, key=powers.get, reverse=True)]


def outcome_dict(rules, row, renege_at) -> dict:
    """A kernel deal record in the replay format's Bid Euchre ``expect`` keys."""
    if row["error"]:
        at, index = int(row["error_at"]), int(row["error_index"])
        where = {ke.AT_DISCARDS: f"discards[{index}]", ke.AT_CALLS: f"calls[{index}]", ke.AT_TRUMP: "trump",
                 ke.AT_EXCHANGE: "trump_exchange", ke.AT_PLAY: f"play[{index}]"}[at]
        rule = ke.ERROR_RULES[int(row["error"])]
        if row["error"] == ke.ERR_EXCHANGE and row["bid"] >= 0 and \
                ke.euchre_bid_kind_nb(int(row["bid"]), 12 if rules.variant.double_deck else 6) == ke.ALONE:
            rule = "E-5"  # an exchange after a moon bid, which E-5 plays without one
        return {"error": rule, "at": where}
    if row["bid"] < 0:
        return {"bid": "pass", "bidder": None, "trump": None, "tricks": [0, 0], "score": [0, 0], "reneges": []}
    tricks = 12 if rules.variant.double_deck else 6
    return {"bid": ke.bid_names(tricks)[int(row["bid"])], "bidder": int(row["bidder"]),
            "trump": SUIT_NAMES[int(row["trump"])],
            "tricks": [int(row["tricks0"]), int(row["tricks1"])],
            "score": [int(row["score0"]), int(row["score1"])], "reneges": renege_at}


def _deck_error(rules, dealer, hands) -> bool:
    """E-1 / E-10: are ``hands`` not a deal of this deck (every card dealt, the right counts)?"""
    per_seat = 12 if rules.variant.double_deck else 6
    copies = 2 if rules.variant.double_deck else 1
    deck = Counter({euchre_card_name(c): copies for c in range(24)})
    if rules.variant.joker:
        deck["JO"] = 1
    if not (isinstance(hands, list) and len(hands) == 4):
        return True
    sizes = [per_seat + (1 if rules.variant.joker and s == dealer else 0) for s in range(4)]
    return [len(h) for h in hands] != sizes or Counter(c for h in hands for c in h) != deck


def _ids(names) -> list[int]:
    return [EUCHRE_CARD_IDS.get(c, -1) for c in names]


def replay_deal(case: dict) -> dict:
    """Replay one Bid Euchre deal in the kernel: its outcome (reneges scored), or the first
    illegal action."""
    rules = BidEuchreRules.from_dict(case.get("rules"))
    dealer, hands_in = int(case["dealer"]), case["hands"]
    if _deck_error(rules, dealer, hands_in):
        return {"error": "E-1", "at": "hands"}
    if case.get("stock"):
        return {"error": "E-1", "at": "stock"}
    hands = np.zeros(4, dtype=np.uint64)
    seen = Counter()
    for seat, hand in enumerate(hands_in):
        for name in hand:
            hands[seat] |= np.uint64(1 << (EUCHRE_CARD_IDS[name] + 24 * seen[name]))
            seen[name] += 1
    tricks = 12 if rules.variant.double_deck else 6
    call_ids = {name: i for i, name in enumerate(_names(tricks)) if name}
    discards = list(case.get("discards") or []) + [[]] * 4
    exchange = case.get("trump_exchange") or []
    if not any(exchange):
        exchange = [[], []]
    if len(exchange) != 2:  # no exchange E-4 makes: the kernel names it as the deal has it (E-3, E-4 or E-5)
        exchange = [["not a card"], []]
    trump = case.get("trump")
    reneges = np.zeros((ke.MAX_RENEGES, 2), dtype=np.int64)
    lists = [_ids(discards[dealer]), [call_ids.get(c, CALL_UNKNOWN) for c in case.get("calls") or []],
             [] if trump is None else [SUIT_NAMES.index(trump) if trump in SUIT_NAMES else -1],
             _ids(exchange[0]), _ids(exchange[1]), _ids(case.get("play") or [])]
    row = replay_record(ke, ke.play_deal_nb, kernel_rules(rules), dealer, hands, reneges, players=4, lists=lists)
    # E-10: discards come first in time: only the joker dealer discards, exactly one card.
    wrong = [s for s in range(4) if len(discards[s]) != (1 if rules.variant.joker and s == dealer else 0)]
    if row["error"] == ke.ERR_DISCARD:
        wrong.append(dealer)
    if row["void"] == ke.VOID_ACE_NO_FACE:
        return _after_void(case, discards) or outcome_dict(rules, row, [])
    if wrong:
        return {"error": "E-10", "at": f"discards[{min(wrong)}]"}
    play = case.get("play") or []
    renege_at = [{"at": f"play[{k}]", "seat": int(seat), "card": play[k]}
                 for k, seat in reneges[:int(row["reneges"])]]
    return outcome_dict(rules, row, renege_at)


def _after_void(case, discards) -> dict | None:
    """E-10: anything recorded after an ace-no-face void, at the first such item."""
    for seat in range(4):
        if discards[seat]:
            return {"error": "E-10", "at": f"discards[{seat}]"}
    if case.get("calls"):
        return {"error": "E-10", "at": "calls[0]"}
    if case.get("trump") is not None:
        return {"error": "E-10", "at": "trump"}
    if any(case.get("trump_exchange") or []):
        return {"error": "E-10", "at": "trump_exchange"}
    if case.get("play"):
        return {"error": "E-10", "at": "play[0]"}
    return None


# --- Records and aggregates for runs ----------------------------------------------------------

def _tricks(rules) -> int:
    return 12 if rules.variant.double_deck else 6


def _made(rules, deals):
    """Per hand: (a bid was played, the bidding team made it) under E-7."""
    tricks = _tricks(rules)
    bid = deals["bid"]
    played = bid >= 0
    # The bidding team's tricks (team 1 when the bidder's seat is odd), and by the bid (-1
    # on a void hand) the tricks it needs: small whole numbers, worked out without copies.
    team_tricks = deals["tricks0"] + (deals["tricks1"] - deals["tricks0"]) * (deals["bidder"] & 1)
    levels = np.arange(-1, ke.n_levels(tricks) + 2)
    need = np.where(levels >= ke.n_levels(tricks), tricks, EUCHRE_FIRST_LEVEL + levels)[bid + 1]
    return played, played & (team_tricks >= need)


def made_flags(rules, deals):
    """Per hand, whether a bid was played and its team made it (E-7)."""
    return _made(rules, deals)[1]


def deal_table(rules, deals, policies):
    """Hand records as an Arrow table: one row per hand dealt (void hands included, their
    ``made`` null; a --dd run's double-dummy columns last, sim.dd_run)."""
    from sim import arrow

    names = ke.bid_names(_tricks(rules))
    played, made = _made(rules, deals)
    columns = {
        "game": deals["game"], "deal": deals["deal"], "dealer": deals["dealer"],
        "bid": categorical(np.where(played, deals["bid"], len(names)), names + ["pass"]),
        "bidder": deals["bidder"],
        "bidder_from_dealer": np.where(played, (deals["bidder"] - deals["dealer"]) % 4, -1).astype(np.int8),
        "trump": categorical(np.maximum(deals["trump"], 0), SUIT_NAMES, mask=~played),
        "void": categorical(deals["void"], ["no", "all passed", "ace no face"]),
        "tricks0": deals["tricks0"], "tricks1": deals["tricks1"],
        "made": arrow.array(made, mask=~played),  # null on void hands: no bid to make
        "score0": deals["score0"], "score1": deals["score1"],
        **dealer_columns(deals),  # the dealer's team and the other
        "bidder_is_dealer_team": arrow.array((deals["bidder"] - deals["dealer"]) % 2 == 0, mask=~played),
    }
    for seat, policy in enumerate(policies):
        columns[f"policy{seat}"] = arrow.constant(str(policy), len(deals))
    columns["unexplained"] = deals["unexplained"]
    columns["activity"] = deals["activity"]  # kernels.activity bits
    columns.update(dd_run.deal_columns(game_info("bid-euchre"), deals))
    return arrow.table(columns)


def aggregate(rules, deals, games) -> dict:
    """Block aggregates of a Bid Euchre run (see sim.summary for how they merge)."""
    n_bids = ke.n_levels(_tricks(rules)) + 2
    # Hands by bid, bidder's seat from the dealer and whether the bid was made.
    bid, from_dealer, made, hands = tally(deals["bid"] + 1, (deals["bidder"] - deals["dealer"]) % 4,
                                          _made(rules, deals)[1])
    bid, made = bid - 1, made == 1  # bid -1: a void hand
    played = bid >= 0
    # team 0 or 1 wins, neither (a deal run's hand of equal scores: E-9's games have no
    # draw), abandoned (E-9's hand limit)
    outcome = np.where(games["abandoned"] != 0, 3, np.where(games["winner"] < 0, 2, games["winner"])).astype(np.int64)
    wins = np.zeros((4, 4), dtype=np.int64)
    np.add.at(wins, (games["first_dealer"].astype(np.int64), outcome), 1)

    def count(hit, by, size):
        return np.bincount(by[hit], weights=hands[hit], minlength=size).astype(np.int64).tolist()

    return {
        "games": int(len(games)), "deals": int(len(deals)),
        "voids": np.bincount(deals["void"], minlength=3).tolist(),
        "bids_played": count(played, bid, n_bids),
        "bids_made": count(made, bid, n_bids),
        "bidder_from_dealer": [list(pair) for pair in zip(count(played, from_dealer, 4), count(made, from_dealer, 4))],
        "hand_score": [histogram(deals["score0"]), histogram(deals["score1"])],
        "game_total": [histogram(games["total0"]), histogram(games["total1"])],
        "deals_per_game": histogram(games["deals"]),
        "wins": wins.tolist(),
    }


def summarize(rules, agg: dict) -> dict:
    """Statistics of a whole run from its merged aggregates."""
    names = ke.bid_names(_tricks(rules))
    hands, games = agg["deals"], agg["games"]
    wins = np.array(agg["wins"])
    first_team_won = sum(int(wins[d, d % 2]) for d in range(4))
    return {
        "games": games, "deals": hands,
        "void_all_passed": rate(agg["voids"][1], hands), "void_ace_no_face": rate(agg["voids"][2], hands),
        "bids": {names[b]: {"share": rate(agg["bids_played"][b], hands),
                            "made": rate(agg["bids_made"][b], agg["bids_played"][b])}
                 for b in range(len(names)) if agg["bids_played"][b]},
        "bids_made": rate(sum(agg["bids_made"]), sum(agg["bids_played"])),
        "made_by_bidder_from_dealer": {str(k): rate(m, n) for k, (n, m) in
                                       zip((1, 2, 3, 0), [agg["bidder_from_dealer"][k] for k in (1, 2, 3, 0)])},
        "hand_score": {f"team{t}": describe(agg["hand_score"][t]) for t in (0, 1)},
        "game_total": {f"team{t}": describe(agg["game_total"][t]) for t in (0, 1)},
        "deals_per_game": describe(agg["deals_per_game"]),
        "game_wins": {"team0": rate(int(wins[:, 0].sum()), games), "team1": rate(int(wins[:, 1].sum()), games),
                      **({"drawn": rate(int(wins[:, 2].sum()), games)} if wins.shape[1] == 4 else {}),
                      "abandoned": rate(int(wins[:, -1].sum()), games)},
        "first_dealer_team_wins": rate(first_team_won, games),
    }


def format_summary(summary: dict) -> str:
    """The end-of-run table printed by sim.run (a deal run's without the game lines)."""
    games = "dealing" not in summary
    lines = [f"bids made {percent(summary['bids_made'])}; void hands: all passed "
             f"{percent(summary['void_all_passed'])}, ace no face {percent(summary['void_ace_no_face'])}",
             "", f"{'bid':>5s} {'share of hands':>24s} {'made':>24s}"]
    for name, row in summary["bids"].items():
        lines.append(f"{name:>5s} {percent(row['share']):>24s} {percent(row['made']):>24s}")
    lines += ["", "bids made by the bidder's seat from the dealer (1 = dealer's left, 0 = dealer):"]
    lines.append("  " + "   ".join(f"{k}: {percent(r)}" for k, r in summary["made_by_bidder_from_dealer"].items()))
    lines += ["", f"{'score by team':22s}{'mean':>10s}{'95% CI':>22s}"
              + "".join(f"{q:>8s}" for q in ("p5", "p25", "p50", "p75", "p95"))]
    for kind, label in (("hand_score", "per hand"), ("game_total", "per game"))[:2 if games else 1]:
        for team, d in summary[kind].items():
            ci = f"[{d['mean_ci95'][0]:z.2f}, {d['mean_ci95'][1]:z.2f}]"
            lines.append(f"  {label} {team:12s}{d['mean']:z10.2f}{ci:>22s}"
                         + "".join(f"{d[q]:8d}" for q in ("p5", "p25", "p50", "p75", "p95")))
    w = summary["game_wins"]
    lines += [] if not games else ["", f"game wins: team 0 {percent(w['team0'])}, team 1 {percent(w['team1'])}, "
                  f"abandoned {percent(w['abandoned'])}",
              f"first dealer's team wins {percent(summary['first_dealer_team_wins'])}; "
              f"hands per game: mean {summary['deals_per_game']['mean']:.2f}"]
    return "\n".join(lines)


# --- Narration for sim.show -------------------------------------------------------------------

def describe_game(rules, game_row, deals, seed: int, only_deal: int | None = None) -> str:
    """A traced game in words; ``only_deal`` picks one hand (the records' ``deal``)."""
    from sim.reference.bid_euchre import BidEuchreDeal

    lines = [f"Bid Euchre game {int(game_row['game'])} of seed {seed}: first dealer seat "
             f"{int(game_row['first_dealer'])}; teams 0 (seats 0, 2) and 1 (seats 1, 3)"]
    for number, deal in enumerate(deals):
        if only_deal is not None and number != only_deal:
            continue
        dealer = deal["dealer"]
        lines.append(f"hand {number}: dealer seat {dealer}")
        lines += [f"  seat {s}: {' '.join(h)}" for s, h in enumerate(deal["hands"])]
        ref = BidEuchreDeal(rules, dealer, deal["hands"])
        outcome = deal["expect"]
        if ref.void:
            lines.append("  void: a hand with an ace and no face card (E-10)")
            continue
        if deal["discards"][dealer]:
            lines.append(f"  dealer discards {deal['discards'][dealer][0]}")
        calls = [f"{(dealer + 1 + i) % 4}:{c}" for i, c in enumerate(deal["calls"])]
        lines.append(f"  auction (from the dealer's left): {'  '.join(calls)}")
        if outcome["bid"] == "pass":
            lines.append("  all passed: void hand")
            continue
        lines.append(f"  seat {outcome['bidder']} bids {outcome['bid']}, trump {outcome['trump']}")
        if deal.get("trump_exchange"):
            given, returned = deal["trump_exchange"]
            lines.append(f"  exchange: seat {outcome['bidder']} gives {' '.join(given)}, partner returns "
                         f"{' '.join(returned)} and sits out")
        for action in deal["discards"][dealer] + deal["calls"] + [deal["trump"]] + (
                deal["trump_exchange"][0] + deal["chosen_returns"] if deal.get("trump_exchange") else []):
            ref.apply(action)
        for card in deal["play"]:
            ref.apply(card)
        for k, (leader, cards, winner) in enumerate(ref.trick_history):
            lines.append(f"  trick {k + 1:2d}: " + ", ".join(f"{s}:{c}" for s, c in cards) + f" -> seat {winner}")
        lines.append(f"  team tricks {outcome['tricks'][0]}-{outcome['tricks'][1]}; scores team 0 "
                     f"{outcome['score'][0]:+d}, team 1 {outcome['score'][1]:+d}")
    if only_deal is None:
        result = ("abandoned" if game_row["abandoned"] else "drawn" if game_row["winner"] < 0  # a deal run's hand
                  else f"team {int(game_row['winner'])} wins")
        lines.append(f"game: {plural(int(game_row['deals']), 'hand')}, totals team 0 {int(game_row['total0'])}, "
                     f"team 1 {int(game_row['total1'])}: {result}")
    return "\n".join(lines)


# --- Rule activity (sim.activity): which deals each option decided something in ---------------

def _hand_outcomes(b) -> dict:
    """A block's bid hands by E-4 and E-7's outcome: a 6A (12A) played, a 6A or a 6M taking
    every trick, a bid below six made, a team set, the defenders taking a trick."""
    deals = b.deals
    tricks = 12 if b.rules.variant.double_deck else 6
    won = np.where(deals["bidder"] % 2 == 0, deals["tricks0"], deals["tricks1"])
    bid, won, hands = tally(deals["bid"] + 1, won)  # hands per (bid, tricks won) played
    bid = bid - 1  # -1 on a void hand
    number, ask, moon = bid < tricks - 3, bid == tricks - 3, bid == tricks - 2
    need = np.where(number, bid + 3, tricks)
    played = bid >= 0
    return {name: int(hands[hit].sum()) for name, hit in (
        ("ask", ask), ("ask_all", ask & (won == tricks)), ("moon_all", moon & (won == tricks)),
        ("made", played & number & (won >= need)), ("set", played & (won < need)),
        ("defended", played & (won < tricks)))}


def _euchre_hands(what):
    """The bid hands of one outcome (``_hand_outcomes``, worked out once per block)."""
    return lambda b: b.once("bid hands by outcome", _hand_outcomes)[what]


def _reneges(b):
    return int((b.deals["reneges"] > 0).sum()) if b.rules.scoring.renege_penalty else 0


ACTIVITY_ROWS = [
    ("auction.stick_the_dealer", "E-3", "the dealer, after three passes, had to bid", bit("stick_the_dealer")),
    (None, "E-3", "all four passed: the hand was void", column("void", 1)),
    ("auction.ask_cards", "E-4", "a 6A (12A) exchange was made", _euchre_hands("ask")),
    ("scoring.ask_all", "E-7", "a 6A (12A) took every trick", _euchre_hands("ask_all")),
    ("scoring.moon_all", "E-7", "a 6M (12M) took every trick", _euchre_hands("moon_all")),
    ("scoring.made_trick_points", "E-7", "a bid below six (twelve) was made", _euchre_hands("made")),
    ("scoring.set_bid_points", "E-7", "a bidding team was set", _euchre_hands("set")),
    ("scoring.defender_trick_points", "E-7", "the defenders took a trick", _euchre_hands("defended")),
    ("scoring.renege_penalty", "E-8", "a renege was penalised (only replays renege)", _reneges),
    ("game.target", "E-9", "the game's target (always active)", always()),
    ("game.max_hands", "E-9", "a game was abandoned at its hand limit", deal_limit),
    ("variant.ace_no_face", "E-10", "an ace-no-face hand voided the deal", column("void", 2)),
    ("variant.joker", "E-10", "the joker was in the deck (every deal when on)", always(lambda r: r.variant.joker)),
    ("variant.double_deck", "E-10", "the double deck was used (every deal when on)",
     always(lambda r: r.variant.double_deck)),
]
