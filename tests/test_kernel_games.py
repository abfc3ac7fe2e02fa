"""Draw Bridge and Bid Euchre kernels: score tables, invariants, exact statistics, determinism."""

from collections import Counter
from math import comb

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels import bid_euchre as ke
from kernels.calls import CALL_IDS
from kernels.cards import mask_to_cards
from kernels.contract import KIND_PLAY
from kernels.dd import new_context
from kernels.engine import take_nb
from kernels.step import TRACE_WIDTH, no_trace_nb, record_nb, seats_for
from sim import bid_euchre, blocks, draw_bridge
from sim.games import kernel_rules
from sim.policies import parse_policy
from sim.rules import BidEuchreRules, DrawBridgeRules
from tests.records import assert_same_on_threads_and_blocks
from tests.differential import OPTION_SETS, PAIRINGS

HEURISTIC = parse_policy("heuristic")
RANDOM = parse_policy("random")


# --- Score tables by hand ---------------------------------------------------------------------

@pytest.mark.parametrize("contract,doubled,tricks,score", [
    ("1C", 0, 7, 20), ("1C", 0, 13, 140), ("3D", 1, 9, 120), ("4S", 0, 11, 150), ("2H", 2, 8, 240),
    ("1NT", 0, 7, 40), ("3NT", 0, 9, 100), ("3NT", 1, 9, 200), ("3NT", 2, 10, 520), ("7NT", 0, 13, 220),
    ("7S", 1, 13, 420), ("6D", 0, 12, 120),
])
def test_draw_bridge_made_scores(contract, doubled, tricks, score):
    """D-5: 20 per trick over six in clubs and diamonds, 30 in the majors, no-trump 40 then 30."""
    assert kernel_rules(DrawBridgeRules()).tables[0]["made"][CALL_IDS[contract], doubled, tricks] == score


@pytest.mark.parametrize("short,undoubled,doubled,redoubled", [
    (1, 50, 100, 200), (2, 100, 300, 600), (3, 150, 500, 1000), (4, 200, 800, 1600),
    (5, 250, 1100, 2200), (7, 350, 1700, 3400), (13, 650, 3500, 7000),
])
def test_draw_bridge_undertricks(short, undoubled, doubled, redoubled):
    """D-6 'bridge': 50 each; doubled 100, 200, 200, then 300 each; redoubled twice that."""
    under = kernel_rules(DrawBridgeRules.from_dict({"scoring": {"undertricks": "bridge"}})).tables[0]["undertricks"]
    assert list(under[:, short]) == [undoubled, doubled, redoubled]
    assert not kernel_rules(DrawBridgeRules()).tables[0]["undertricks"].any()


@pytest.mark.parametrize("options,bid,team_tricks,scores", [
    ({}, "3", 3, (3, 3)), ({}, "3", 5, (5, 1)), ({}, "4", 3, (-4, 3)), ({}, "5", 6, (6, 0)),
    ({}, "5", 4, (-5, 2)), ({}, "6A", 6, (12, 0)), ({}, "6A", 5, (-6, 1)), ({}, "6M", 6, (24, 0)),
    ({}, "6M", 0, (-6, 6)), ({"scoring": {"ask_all": 10, "moon_all": 30}}, "6A", 6, (10, 0)),
    ({"variant": {"double_deck": True}}, "6", 7, (7, 5)), ({"variant": {"double_deck": True}}, "6", 5, (-6, 7)),
    ({"variant": {"double_deck": True}}, "11", 11, (11, 1)), ({"variant": {"double_deck": True}}, "12A", 12, (24, 0)),
    ({"variant": {"double_deck": True}}, "12M", 12, (48, 0)), ({"variant": {"double_deck": True}}, "12M", 11, (-12, 1)),
])
def test_bid_euchre_scores(options, bid, team_tricks, scores):
    """E-7 by hand: tricks, or minus the bid when set; all-trick bids 12/24 (24/48)."""
    rules = BidEuchreRules.from_dict(options)
    p = kernel_rules(rules).params[0]
    names = ke.bid_names(int(p["tricks"]))
    assert tuple(int(x) for x in ke.score_hand_nb(p, names.index(bid), team_tricks)) == scores


# --- Invariants over random games ---------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), game=st.integers(0, 2**40),
       options=st.sampled_from(sorted(OPTION_SETS["draw-bridge"])), pairing=st.sampled_from(PAIRINGS))
def test_draw_bridge_invariants(seed, game, options, pairing):
    rules = DrawBridgeRules.from_dict(OPTION_SETS["draw-bridge"][options])
    games, (deals,) = draw_bridge.trace_games(rules, [parse_policy(p) for p in pairing], seed, [game])
    for d in deals:
        dealt = [set(h) for h in d["hands"]]
        assert len(dealt[0]) == len(dealt[1]) == 13 and not dealt[0] & dealt[1]
        assert len(d["stock"]) == 26 and dealt[0] | dealt[1] | set(d["stock"]) == draw_bridge.DECK
        actions = d["play"][:26] + d["calls"] + d["play"][26:]
        assert all(a in legal for a, legal in zip(actions, d["legal"]))
        assert sum(d["draw_tricks"]) == 13
        assert len(set(d["play"][:26])) == 26  # each card played once in the draw phase
        if d["expect"]["contract"] != "pass":
            contract_cards = d["play"][26:]
            assert len(contract_cards) == len(set(contract_cards)) == 26
            assert not set(contract_cards) & set(d["play"][:26])
            assert sum(d["expect"]["tricks"]) == 13
    assert games[0]["deals"] == sum(d["counted"] for d in deals)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), game=st.integers(0, 2**40),
       options=st.sampled_from(sorted(OPTION_SETS["bid-euchre"])), pairing=st.sampled_from(PAIRINGS))
def test_bid_euchre_invariants(seed, game, options, pairing):
    rules = BidEuchreRules.from_dict(OPTION_SETS["bid-euchre"][options])
    policies = [parse_policy(pairing[s % 2]) for s in range(4)]
    games, (deals,) = bid_euchre.trace_games(rules, policies, seed, [game])
    per_seat = 12 if rules.variant.double_deck else 6
    deck = Counter({c: (2 if rules.variant.double_deck else 1) for c in
                    (r + s for s in "CDHS" for r in "9TJQKA")})
    if rules.variant.joker:
        deck["JO"] = 1
    for d in deals[:40]:
        assert Counter(c for h in d["hands"] for c in h) == deck
        assert [len(h) for h in d["hands"]] == [per_seat + (rules.variant.joker and s == d["dealer"])
                                                 for s in range(4)]
        exchange = d["trump_exchange"][0] + d["chosen_returns"] if d.get("trump_exchange") else []
        actions = d["discards"][d["dealer"]] + d["calls"] + ([d["trump"]] if "trump" in d else []) + exchange
        actions += d["play"]
        assert all(a in legal for a, legal in zip(actions, d["legal"]))
        e = d["expect"]
        if e["bid"] == "pass":
            assert d["play"] == [] and e["score"] == [0, 0]
            continue
        assert sum(e["tricks"]) == per_seat
        lone = e["bid"][-1] in "AM"
        assert len(d["play"]) == per_seat * (3 if lone else 4)
        assert e["reneges"] == []  # policies never renege (E-8)
    assert games[0]["deals"] == len(deals)


# --- Exact statistics at fixed seeds, 5 sigma ---------------------------------------------------

def _within(observed, p, n, sigmas=5.0):
    return abs(observed - p) <= sigmas * np.sqrt(p * (1 - p) / n)


def _euchre_hands(rules, games):
    headers = bid_euchre.trace_raw(rules, [RANDOM] * 4, 2026, range(games))[1]
    return [mask_to_cards(h["hands"][s]) for h in headers for s in range(4)]


@pytest.mark.slow  # 50,000 traced hands: a statistical run (make test-all)
def test_bower_candidate_and_ace_no_face_frequencies():
    """A 6-card hand from 24 holds a jack with probability 1 - C(20,6)/C(24,6), and is an
    ace-no-face hand (an ace, no J, Q or K) with probability (C(12,6) - C(8,6)) / C(24,6)."""
    p_jack = 1 - comb(20, 6) / comb(24, 6)
    p_ace_no_face = (comb(12, 6) - comb(8, 6)) / comb(24, 6)
    assert round(p_jack, 4) == 0.7120 and round(p_ace_no_face, 5) == 0.00666
    hands = _euchre_hands(BidEuchreRules(), 1500)
    n = len(hands)
    ranks = [[c % 6 for c in h] for h in hands]
    jack = sum(2 in r for r in ranks) / n
    ace_no_face = sum(5 in r and not {2, 3, 4} & set(r) for r in ranks) / n
    assert n > 50_000
    assert _within(jack, p_jack, n) and _within(ace_no_face, p_ace_no_face, n)


def test_ace_no_face_voids_at_the_exact_rate():
    """With the variant on, a deal is void when any of the four hands is ace-no-face.

    Inclusion-exclusion: one given hand is, with p1 = (C(12,6) - C(8,6)) / C(24,6) (six of
    the 12 non-face cards, not all 9s and 10s); two hands are together only by splitting
    the 12 non-face cards with an ace on each side: 924 - 28 - 28 = 868 of C(24,6) C(18,6)
    ordered pairs; three hands cannot (18 non-face cards would be needed).
    """
    p1 = (comb(12, 6) - comb(8, 6)) / comb(24, 6)
    p_void = 4 * p1 - comb(4, 2) * 868 / (comb(24, 6) * comb(18, 6))
    rules = BidEuchreRules.from_dict({"variant": {"ace_no_face": True}})
    deals, _ = bid_euchre.run_block(rules, [RANDOM] * 4, 77, 0, 3000)
    n = len(deals)
    assert n > 20_000 and round(p_void, 4) == 0.0266
    assert _within((deals["void"] == ke.VOID_ACE_NO_FACE).mean(), p_void, n)


def test_draw_bridge_hand_patterns():
    """Draw Bridge deals 13 of 52: the 4-4-3-2 pattern at its exact rate."""
    p4432 = comb(13, 4) ** 2 * comb(13, 3) * comb(13, 2) * 12 / comb(52, 13)
    headers = draw_bridge.trace_raw(DrawBridgeRules(), [HEURISTIC] * 2, 5, range(6000))[1]
    patterns = [tuple(sorted(np.bincount(np.array(mask_to_cards(h["hands"][s])) // 13, minlength=4), reverse=True))
                for h in headers for s in (0, 1)]
    assert _within(patterns.count((4, 4, 3, 2)) / len(patterns), p4432, len(patterns))


# --- Determinism and long games ---------------------------------------------------------------

@pytest.mark.parametrize("module,rules,players", [(draw_bridge, DrawBridgeRules(), 2),
                                                 (bid_euchre, BidEuchreRules(), 4)])
def test_threads_blocks_and_long_games_do_not_change_records(module, rules, players, monkeypatch):
    policies = [HEURISTIC, RANDOM] * (players // 2)
    one = assert_same_on_threads_and_blocks(module.run_block, rules, policies, 9, 400, range(0, 400, 100))
    monkeypatch.setattr(blocks, "PILOT_GAMES", 1)  # room from one game: many games need more
    tight = module.run_block(rules, policies, 9, 0, 400)
    assert np.array_equal(one[0], tight[0]) and np.array_equal(one[1], tight[1])
    assert len(one[0]) == one[1]["deals"].sum()


@pytest.mark.parametrize("dtype", [ke.DEAL_DTYPE, ke.DD_DTYPE])  # 40-byte rows (as words) and 6-byte rows (bytes)
def test_a_blocks_rows_pack_down_in_place(dtype):
    """The games' rows of a block, written ``room`` rows apart after a head of free rows, end
    packed in game order in the same array, as a copy by row indices puts them, though a
    game's rows overlap where they were written (sim.blocks._copy)."""
    rng = np.random.default_rng(3)
    room, head = 7, 5
    counts = rng.integers(0, room + 1, 60)
    counts[:5] = room, room, room - 1, room, room  # the fourth and fifth move a row down onto their own
    src = head + room * np.arange(60)
    dst = head + np.concatenate([[0], np.cumsum(counts)[:-1]])
    rows = np.frombuffer(rng.bytes((head + 60 * room) * dtype.itemsize), dtype=dtype).copy()
    raw = rows.view(f"V{dtype.itemsize}")  # every byte of a row, its padding too
    wanted = np.concatenate([raw[s:s + c] for s, c in zip(src, counts)])
    blocks._copy(rows, dst, rows, src, counts)
    assert rows[head:head + counts.sum()].tobytes() == wanted.tobytes()
    elsewhere = np.zeros(head + counts.sum(), dtype=dtype)
    blocks._copy(elsewhere, dst, rows, dst, counts)
    assert elsewhere[head:].tobytes() == wanted.tobytes()


def test_a_block_whose_games_fit_is_packed_in_the_array_it_was_played_into(monkeypatch):
    """No second array for the records (its pages zeroed first): every copy but the pilot's
    is within the played array, and the records own no more rows than they hold."""
    rules, policies = BidEuchreRules(), [parse_policy("random")] * 4
    wanted = bid_euchre.run_block(rules, policies, 6, 0, 400)
    copies = []
    packing = blocks._copy

    def watched(out, dst_starts, deals, src_starts, counts):
        copies.append(out is deals)
        packing(out, dst_starts, deals, src_starts, counts)

    monkeypatch.setattr(blocks, "_copy", watched)
    deals, games = bid_euchre.run_block(rules, policies, 6, 0, 400)
    assert copies == [False, True]  # the pilot's rows into the head, then the rest in place
    assert np.array_equal(deals, wanted[0]) and np.array_equal(games, wanted[1])
    assert deals.base is None and len(deals) == games["deals"].sum()


@numba.njit(parallel=True)
def _play_spinning(costs):
    """The loop of kernels.engine's parallel kernels over games that each spin ``costs[i]``
    steps: who played each game (thread id) and how often."""
    taken = np.zeros(1, dtype=np.int64)
    thread, plays, out = np.full(costs.shape[0], -1), np.zeros(costs.shape[0], np.int64), np.zeros(costs.shape[0])
    for _ in numba.prange(costs.shape[0]):
        i = take_nb(taken)
        while i < costs.shape[0]:
            x = 1.0
            for _step in range(costs[i]):
                x = x * 0.999999 + 1e-9
            out[i], thread[i] = x, numba.get_thread_id()
            plays[i] += 1
            i = take_nb(taken)
    return thread, plays, out


def test_the_threads_take_games_one_at_a_time():
    """Every game is played once, and slow games early in a block go to both threads, where
    an even split gives them all to the first."""
    costs = np.array([3_000_000] * 20 + [1_000] * 2000)
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        thread, plays, _ = _play_spinning(costs)
    finally:
        numba.set_num_threads(saved)
    assert (plays == 1).all()
    assert set(thread[:20]) == {0, 1}


# --- The trace of a run that does not trace ---------------------------------------------------

@numba.njit
def _record_one_card(seats, trace):
    """The card recorded, and the trace's shape ((-1, -1): no trace)."""
    card = record_nb(seats[0], trace, KIND_PLAY, 1, 5, np.uint64(1 << 5))
    if trace is None:
        return card, -1, -1
    return card, trace.shape[0], trace.shape[1]


@numba.njit
def _record_one_card_untraced(seats, dd):
    return _record_one_card(seats, no_trace_nb(dd))


def test_a_run_without_trace_records_nothing():
    """kernels.step.no_trace_nb, the block runs' trace: None in a plain run (no search
    context), no rows in a run with search code; a step writes and counts nothing in
    either, and a real trace gets the row (kind, seat, card, legal set)."""
    seats = seats_for([0, 0])
    assert _record_one_card_untraced(seats, None) == (5, -1, -1) and seats[0]["tcur"] == 0
    assert _record_one_card_untraced(seats, new_context()) == (5, 0, TRACE_WIDTH) and seats[0]["tcur"] == 0
    trace = np.full((3, TRACE_WIDTH), -1, dtype=np.int64)
    assert _record_one_card(seats, trace) == (5, 3, TRACE_WIDTH) and seats[0]["tcur"] == 1
    assert trace[0].tolist() == [KIND_PLAY, 1, 5, 32] and (trace[1:] == -1).all()


# --- Plain runs: the deal kernels without search code -----------------------------------------

@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_a_plain_run_plays_as_the_kernels_with_search_code(game, monkeypatch):
    """A run in which no seat searches passes no search context (kernels.engine), so numba
    compiles the deal kernels without search code; its records are the ones the kernels
    with search code play for the same seats."""
    from sim import policies
    from sim.api import searching_versions
    from sim.games import game_module

    module = game_module(game)
    lineup = [parse_policy("heuristic")] + [parse_policy("random")] * (module.PLAYERS - 1)
    plain = module.run_block(module.RULES(), lineup, 3, 0, 30)
    assert False in searching_versions(module.RUN_KERNEL.signatures)
    monkeypatch.setattr(policies, "searches", lambda _: True)  # a search context all the same
    searched = module.run_block(module.RULES(), lineup, 3, 0, 30)
    assert True in searching_versions(module.RUN_KERNEL.signatures)
    assert len(plain[0]) > 30
    for a, b in zip(plain, searched):
        assert np.array_equal(a, b)
