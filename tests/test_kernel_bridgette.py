"""Bridgette kernel: invariants, exact statistics and determinism."""

from math import comb

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels.cards import CARD_IDS, mask_to_cards
from sim.bridgette import run_block, trace_games, trace_raw
from sim.policies import parse_policy
from sim.rules import BridgetteRules
from tests.differential import OPTION_SETS, PAIRINGS

BRIDGETTE_SETS = OPTION_SETS["bridgette"]

HEURISTIC = [parse_policy("heuristic")] * 2
RANDOM = [parse_policy("random")] * 2


# --- Invariants over random games (hypothesis chooses seed, game, options, policies) -----

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), game=st.integers(0, 2**40),
       options=st.sampled_from(sorted(BRIDGETTE_SETS)), pairing=st.sampled_from(PAIRINGS))
def test_deal_invariants(seed, game, options, pairing):
    rules = BridgetteRules.from_dict(BRIDGETTE_SETS[options])
    deck = {c for c in CARD_IDS if c[0] != "C" or c[1] in "CDHS" or
            {"CL": "little", "CR": "royal", "CG": "grand"}[c] in rules.deck.colons}
    games, (deals,) = trace_games(rules, [parse_policy(p) for p in pairing], seed, [game])
    assert 1 <= len(deals)
    for d in deals:
        dealt = [set(h) for h in d["hands"]]
        # B-2: the hands and the stock partition the deck, 13 cards each.
        assert len(dealt[0]) == len(dealt[1]) == 13 and not dealt[0] & dealt[1]
        assert len(d["stock"]) == len(set(d["stock"])) == len(deck) - 26
        assert dealt[0] | dealt[1] | set(d["stock"]) == deck
        nondealer = 1 - d["dealer"]
        actions = d["discards"][nondealer] + d["discards"][d["dealer"]] + d["calls"] + d["play"]
        # Every action is inside the legal set the kernel offered.
        assert len(actions) == len(d["legal"])
        for action, legal in zip(actions, d["legal"]):
            assert action in legal
        # B-3: discards come from what the seat holds and bring it back to 13 cards.
        pool = [dealt[s] | set(d["stock"]) for s in (0, 1)]
        for s in (0, 1):
            assert set(d["discards"][s]) <= pool[s]
            assert len(set(d["discards"][s])) == len(d["discards"][s])
        if d["expect"]["contract"] == "pass":
            assert d["play"] == [] and d["expect"]["score"] == [0, 0]
            continue
        # Each card is played at most once; each seat plays the 13 cards it kept (B-7), and
        # every legal set offered in play lies inside the player's remaining hand.
        assert len(d["play"]) == len(set(d["play"])) == 26
        n_before = len(actions) - 26
        seats = d["seats"][n_before:]
        remaining = {s: {c for c, t in zip(d["play"], seats) if t == s} for s in (0, 1)}
        assert len(remaining[0]) == len(remaining[1]) == 13
        for s in (0, 1):
            assert not remaining[s] & set(d["discards"][s])
            assert remaining[s] <= pool[s] - set(d["discards"][s])
        for card, seat, legal in zip(d["play"], seats, d["legal"][n_before:]):
            assert set(legal) <= remaining[seat]
            remaining[seat].remove(card)
        assert sum(d["expect"]["tricks"]) == 13
        # B-11..B-14: only one seat scores, and someone does.
        assert min(d["expect"]["score"]) == 0 < max(d["expect"]["score"])


# --- Exact statistics at fixed seeds, 5 sigma -----------------------------------------------

def _within(observed, p, n, sigmas=5.0):
    return abs(observed - p) <= sigmas * np.sqrt(p * (1 - p) / n)


def test_upcard_class_frequencies():
    """B-3 classes of the up-card over a 55-card deck: 37/55 numeral, 13/55 face, 5/55 ace."""
    deals, _ = run_block(BridgetteRules(), RANDOM, seed=2024, first_game=0, count=30_000)
    n = len(deals)
    counts = np.bincount(deals["upcard_class"], minlength=3)
    for k, p in enumerate((37 / 55, 13 / 55, 5 / 55)):
        assert _within(counts[k] / n, p, n), (k, counts[k] / n, p)
    # Each of the 55 cards is the up-card equally often (chi-square at a fixed seed).
    per_card = np.bincount(deals["upcard"], minlength=55)
    expected = n / 55
    chi2 = ((per_card - expected) ** 2 / expected).sum()
    assert chi2 < 54 + 5 * np.sqrt(2 * 54)


def test_hand_pattern_frequencies_colon_free():
    """13-card hands from the 52 suited cards: 4-4-3-2 and 5-3-3-2 at their exact rates."""
    p4432 = comb(13, 4) ** 2 * comb(13, 3) * comb(13, 2) * 12 / comb(52, 13)
    p5332 = comb(13, 5) * comb(13, 3) ** 2 * comb(13, 2) * 12 / comb(52, 13)
    assert round(100 * p4432, 2) == 21.55 and round(100 * p5332, 2) == 15.52
    rules = BridgetteRules.from_dict({"deck": {"colons": []}})
    headers = trace_raw(rules, RANDOM, 77, range(4000))[1]
    patterns = []
    for h in headers:
        for s in (0, 1):
            cards = mask_to_cards(h["hands"][s])
            assert len(cards) == 13
            patterns.append(tuple(sorted(np.bincount(np.array(cards) // 13, minlength=4), reverse=True)))
    n = len(patterns)
    assert _within(patterns.count((4, 4, 3, 2)) / n, p4432, n)
    assert _within(patterns.count((5, 3, 3, 2)) / n, p5332, n)


# --- Determinism ----------------------------------------------------------------------------

def test_same_records_on_one_and_two_threads_and_any_blocking():
    rules = BridgetteRules()
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run_block(rules, HEURISTIC, 99, 0, 600)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = run_block(rules, HEURISTIC, 99, 0, 600)
    finally:
        numba.set_num_threads(saved)
    split = [run_block(rules, HEURISTIC, 99, first, 200) for first in (0, 200, 400)]
    for a, b in ((one, two), (one, tuple(np.concatenate(x) for x in zip(*split)))):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_trace_regenerates_the_run():
    """A traced game replays exactly the deals a run recorded for the same (seed, index)."""
    rules = BridgetteRules()
    deals, games = run_block(rules, HEURISTIC, 5, 100, 20)
    traced_games, traces = trace_games(rules, HEURISTIC, 5, [107, 113])
    for row, deal_list in zip(traced_games, traces):
        assert row == games[row["game"] - 100]
        run_rows = deals[deals["game"] == row["game"]]
        counted = [d for d in deal_list if d["counted"]]
        assert [d["expect"]["score"] for d in counted] == [[int(r["score0"]), int(r["score1"])]
                                                            for r in run_rows]


def test_cards_do_not_depend_on_policies():
    """Deals come from their own stream: the same cards whatever the policies choose."""
    rules = BridgetteRules()
    h1 = trace_raw(rules, HEURISTIC, 8, range(5))[1]
    h2 = trace_raw(rules, RANDOM, 8, range(5))[1]
    n = min(len(h1), len(h2))
    for field in ("dealer", "hands", "stock_len", "stock"):
        assert np.array_equal(h1[field][:n], h2[field][:n])


@pytest.mark.parametrize("seed", [0, 2**64 - 1])
def test_extreme_seeds(seed):
    deals, games = run_block(BridgetteRules(), RANDOM, seed, 2**40, 10)
    assert len(games) == 10 and (games["deals"] >= 6).all()


# --- Colon play records, checked against the referee's trick history ------------------------

COLON_OF = {"CL": "little", "CR": "royal", "CG": "grand"}


@pytest.mark.parametrize("policy", ["heuristic", "random"])
def test_colon_play_records_match_the_referee(policy):
    """colon_*_play / colon_*_won (B-8 block, B-9 lead, discard) as the referee's tricks say."""
    from sim.reference.bridgette import BridgetteDeal, matching_colon

    rules = BridgetteRules()
    policies = [parse_policy(policy)] * 2
    deals, _ = run_block(rules, policies, 31, 0, 60)
    _, traces = trace_games(rules, policies, 31, range(60))
    rows = iter(deals)
    kinds_seen = set()
    for deal_list in traces:
        for d in (d for d in deal_list if d["counted"]):
            row = next(rows)
            ref = BridgetteDeal(rules, d["dealer"], d["hands"], d["stock"])
            nondealer = 1 - d["dealer"]
            for action in d["discards"][nondealer] + d["discards"][d["dealer"]] + d["calls"] + d["play"]:
                ref.apply(action)
            expect = {name: (-1, 0) for name in COLON_OF.values()}
            for leader, (lead, follow), winner in ref.trick_history:
                if lead in COLON_OF:
                    expect[COLON_OF[lead]] = (1, int(winner == leader))
                if follow in COLON_OF:
                    kind = 0 if lead not in COLON_OF and follow == matching_colon(lead) else 2
                    expect[COLON_OF[follow]] = (kind, int(winner != leader))
            for name, (kind, won) in expect.items():
                assert (row[f"colon_{name}_play"], row[f"colon_{name}_won"]) == (kind, won)
                kinds_seen.add(kind)
    assert next(rows, None) is None
    assert kinds_seen == {-1, 0, 1, 2}
