"""Python side of the Bridgette kernels: blocks of games, traces and kernel replays.

These wrappers allocate the kernels' outputs, compact the fixed deal slots into records,
and translate between kernel integers and RULES.md notation (C-2).
"""

from __future__ import annotations

import numpy as np

from kernels import bridgette as kb
from kernels.calls import CALL_IDS, CALL_UNKNOWN, call_name
from kernels.cards import CARD_IDS, card_name, mask_to_cards
from kernels.engine import run_bridgette_block_nb, trace_bridgette_games_nb
from kernels.policies import POLICY_SCRIPT
from sim.policies import kernel_policies


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
        trace = np.zeros((n_actions, kb.TRACE_WIDTH), dtype=np.int64)
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
        if kind == kb.KIND_DISCARD:
            discards[seat].append(card_name(action))
            legal.append([card_name(c) for c in mask_to_cards(mask)])
        elif kind == kb.KIND_CALL:
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
    if out[kb.O_ERROR]:
        return {"error": kb.ERROR_RULES[out[kb.O_ERROR]],
                "at": f"{kb.AT_NAMES[out[kb.O_ERROR_AT]]}[{out[kb.O_ERROR_INDEX]}]"}
    contract = int(out[kb.O_CONTRACT])
    return {
        "contract": "pass" if contract < 0 else call_name(contract),
        "declarer": None if contract < 0 else int(out[kb.O_DECLARER]),
        "doubled": int(out[kb.O_DOUBLED]),
        "tricks": [int(out[kb.O_TRICKS]), int(out[kb.O_TRICKS + 1])],
        "score": [int(out[kb.O_SCORE]), int(out[kb.O_SCORE + 1])],
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
    from sim.rules import BridgetteRules

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
                    np.zeros((0, kb.TRACE_WIDTH), dtype=np.int64), np.zeros(1, dtype=np.int64), out)
    result = outcome_dict(out)
    if out[kb.O_ERROR] == kb.ERR_B7 and out[kb.O_ERROR_AT] == kb.AT_PLAY:
        index = int(out[kb.O_ERROR_INDEX])
        if index < min(len(case["play"]), 2 * kb.HAND_SIZE) and case["play"][index] in CALL_IDS:
            result["error"] = "C-4"  # a call where a card is due: a call after the auction
    return result
