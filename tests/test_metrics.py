"""sim.metrics on hand-made run folders whose rates, intervals and paired differences
are worked out by hand below."""

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.comparison import compare_runs
from sim.metrics import METRICS, MetricsError, parse_metrics
from sim.ratio import SHARE, PairedMoments, interval, ratio_sums, unpaired
from sim.summary import wilson
from sim.store import RECORD_FILES, file_entry, run_digest, sealed
from sim.store.config import RUN

Z = 1.959963984540054

# Three Bridgette games. Per deal: game, dealer, score0, score1, level (-1 passed out), made.
DEALS_A = [
    (0, 0, 100, 0, 1, True),      # dealer 0 gains 100
    (0, 1, 0, 50, -1, False),     # passed out in the records' terms, dealer 1 gains 50
    (1, 1, 200, 0, 2, False),     # dealer 1 loses 200
    (1, 0, 0, 300, 3, True),      # dealer 0 loses 300
    (2, 0, 400, 0, 0, True),      # dealer 0 gains 400
]
# Per game: game, first_dealer, deals, winner (-1 drawn).
GAMES_A = [(0, 0, 2, 0), (1, 1, 2, 1), (2, 0, 1, -1)]


def fake_run(path: Path, deals, games, block_size: int, records: str = "deals", seed: int = 5,
             game: str = "bridgette", summary: dict | None = None) -> Path:
    """A finished run folder with the given records, cut into blocks of ``block_size`` games."""
    (path / "records").mkdir(parents=True)
    (path / "blocks").mkdir()
    n = len(games)
    for index, first in enumerate(range(0, n, block_size)):
        last = first + block_size
        if records == "deals":
            rows = [d for d in deals if first <= d[0] < last]
            cols = list(zip(*rows)) if rows else [[]] * 6
            pq.write_table(pa.table({
                "game": pa.array(cols[0], pa.int64()), "dealer": pa.array(cols[1], pa.int8()),
                "score0": pa.array(cols[2], pa.int32()), "score1": pa.array(cols[3], pa.int32()),
                "level": pa.array(cols[4], pa.int8()), "made": pa.array(cols[5], pa.bool_()),
            }), path / "records" / f"deals-{index:06d}.parquet")
        if records in ("deals", "games"):
            cols = list(zip(*[g for g in games if first <= g[0] < last]))
            pq.write_table(pa.table({
                "game": pa.array(cols[0], pa.int64()), "first_dealer": pa.array(cols[1], pa.int8()),
                "deals": pa.array(cols[2], pa.int16()), "winner": pa.array(cols[3], pa.int8()),
            }), path / "records" / f"games-{index:06d}.parquet")
    config = {"game": game, "seed": seed, "games": n, "block_size": block_size, "records": records,
              "rules": {}, "policies": ["heuristic", "heuristic"], "rules_version": 1}
    for index in range(-(-n // block_size)):  # each block file names its records, as a run writes it
        files = {f.name: file_entry(f.read_bytes()) for f in sorted((path / "records").glob(f"*-{index:06d}.parquet"))}
        (path / "blocks" / f"{index:06d}.json").write_text(json.dumps(sealed({RECORD_FILES: files,
                                                                                 RUN: run_digest(config)})))
    (path / "manifest.json").write_text(json.dumps({"config": config, "complete": True,
                                                    "blocks": -(-n // block_size)}))
    (path / "summary.json").write_text(json.dumps(summary or {}))
    return path


@pytest.fixture
def run_a(tmp_path):
    return fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)


def test_values_and_intervals_of_one_run(run_a):
    r = compare_runs(run_a, run_a)["metrics"]
    # Dealer's advantage: per game (y, n) = (150, 2), (-500, 2), (400, 1); R = 50 / 5 = 10.
    # Residuals y - R n: 130, -520, 390; squares 439400; nbar = 5/3, G = 3:
    # Var = 439400 / (25/9 * 3 * 2) = 26364.
    d = r["dealer_advantage"]
    assert d["a"] == 10 and d["games"] == 3
    assert d["a_ci95"] == pytest.approx([10 - Z * math.sqrt(26364), 10 + Z * math.sqrt(26364)])
    # Contracts: made/played per game (1, 1), (1, 2), (1, 1): R = 3/4; residuals 1/4, -1/2, 1/4,
    # squares 3/8; nbar = 4/3: Var = (3/8) / (16/9 * 6) = 9/256.
    c = r["contract_made"]
    # 0.75 + Z * 3/16 = 1.12 is past what a rate can be: the interval stops at 1.
    assert c["a"] == 0.75 and c["a_ci95"] == pytest.approx([0.75 - Z * 3 / 16, 1.0])
    # First dealer's win: 1 (seat 0 first, seat 0 won), 1 (seat 1 first and won), 0 (drawn):
    # p = 2/3, Var = ((1/3)^2 + (1/3)^2 + (2/3)^2) / (3 * 2) = 1/9.
    # One first dealer a game, so the games' outcomes are independent trials: Wilson's
    # interval over them, as the run's summary gives it (the normal one: [2/3 - Z/3, 1]).
    w = r["first_dealer_wins"]
    assert w["a"] == pytest.approx(2 / 3) and w["a_ci95"] == wilson(2, 3)
    # Mean score per seat: (150 + 500 + 400) points over 2 x 5 seat-deals.
    assert r["mean_score"]["a"] == 105
    assert r["deals_per_game"]["a"] == pytest.approx(5 / 3)
    # A run against itself: every difference exactly 0 with a zero-width interval.
    for m in r.values():
        assert m["diff"] == 0 and m["ci95"] == [0.0, 0.0] and m["paired"]


def test_paired_difference_by_hand(run_a, tmp_path):
    """B changes game 2 only (dealer gains 200, not 400; seat 0 wins instead of a draw), and
    is cut into blocks of 1 game while A has blocks of 2: games still pair one to one."""
    deals_b = DEALS_A[:4] + [(2, 0, 200, 0, 0, True)]
    games_b = GAMES_A[:2] + [(2, 0, 1, 0)]
    run_b = fake_run(tmp_path / "b", deals_b, games_b, block_size=1)
    r = compare_runs(run_a, run_b)["metrics"]
    # Dealer's advantage: R_B = (150 - 500 + 200) / 5 = -30, so B - A = -40. Residuals of B:
    # 210, -440, 230; of A: 130, -520, 390; over nbar = 5/3 the paired terms are
    # w = (80, 80, -160) * 3/5 = (48, 48, -96): Var = (48^2 + 48^2 + 96^2) / 6 = 2304 (se 48).
    d = r["dealer_advantage"]
    assert d["b"] == -30 and d["diff"] == -40
    assert d["ci95"] == pytest.approx([-40 - Z * 48, -40 + Z * 48])
    # Unpaired: Var_A + Var_B = 26364 + (210^2 + 440^2 + 230^2) * 9 / 150 = 26364 + 17436.
    assert d["unpaired_ci95"] == pytest.approx([-40 - Z * math.sqrt(43800), -40 + Z * math.sqrt(43800)])
    assert d["variance_reduction"] == pytest.approx(1 - 2304 / 43800)
    # First dealer's win: 2/3 -> 1; paired terms (0, 0, 1) - 1/3, squares 2/3: Var = (2/3) / 6.
    # B wins every game: its own variance is 0, so pairing saves nothing, and its interval is
    # Wilson's over its 3 games (none of no width: 3 games cannot show that). The paired
    # interval (the normal one, 1/3 +- Z/3, would leave B's reach out) is Newcombe's square-
    # and-add of A's and B's Wilson intervals, as unpaired.
    w = r["first_dealer_wins"]
    assert w["diff"] == pytest.approx(1 / 3)
    (a_lo, a_hi), (b_lo, _) = wilson(2, 3), wilson(3, 3)
    assert w["ci95"] == w["unpaired_ci95"] == pytest.approx([1 / 3 - math.hypot(1 - b_lo, a_hi - 2 / 3),
                                                             1 / 3 + (2 / 3 - a_lo)])
    assert w["b_ci95"] == wilson(3, 3) and w["variance_reduction"] == pytest.approx(0)
    # Games 0 and 1 are identical, contracts unchanged: exactly 0, zero width.
    assert r["contract_made"]["diff"] == 0 and r["contract_made"]["ci95"] == [0.0, 0.0]
    assert r["mean_score"]["diff"] == -20  # 200 fewer points over 2 x 5 seat-deals


def test_two_rates_at_their_bounds_differ_by_newcombes_interval():
    """Every contract made in A (6 of 6) and in B (4 of 4), game by game: the paired and the
    unpaired difference had an interval of no width ([0, 0]), which 10 contracts cannot
    show. Each rate's Wilson interval, added in squares, stands in: B's Wilson lower end
    4 / (4 + Z^2) below 0 and A's 6 / (6 + Z^2) above. The same games in A and B keep a
    difference of exactly 0."""
    made_a, made_b = [2, 1, 3], [1, 2, 1]
    expected = [-(1 - 4 / (4 + Z * Z)), 1 - 6 / (6 + Z * Z)]
    assert expected == pytest.approx([-0.4899, 0.3903], abs=1e-4)
    moments = PairedMoments()
    moments.add(made_a, made_a, made_b, made_b)
    r = moments.result(SHARE)
    assert r["diff"] == 0 and r["ci95"] == pytest.approx(expected) and r["unpaired_ci95"] == pytest.approx(expected)
    apart = unpaired(ratio_sums(made_a, made_a), ratio_sums(made_b, made_b), SHARE)
    assert apart["ci95"] == pytest.approx(expected)
    # None made in A (0 of 6), all in B: 1 less Wilson's reach of A's 0 of 6 up, Z^2 / (6 + Z^2).
    moments = PairedMoments()
    moments.add([0, 0, 0], made_a, made_b, made_b)
    r = moments.result(SHARE)
    assert r["diff"] == 1 and r["ci95"] == pytest.approx([1 - math.hypot(Z * Z / (6 + Z * Z), 1 - 4 / (4 + Z * Z)),
                                                          1.0])
    same = PairedMoments()
    same.add(made_a, made_a, made_a, made_a)
    assert same.result(SHARE)["ci95"] == [0.0, 0.0]
    # One contract a game, A made 3 of 4 and B all 4: B's rate has no spread to pair away, so
    # the paired interval is Newcombe's too (before: A's normal reach alone, [-0.17, +0.67]).
    one = PairedMoments()
    one.add([1, 1, 0, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    r = one.result(SHARE)
    (a_lo, a_hi), (b_lo, _) = wilson(3, 4), wilson(4, 4)
    assert r["ci95"] == r["unpaired_ci95"] == pytest.approx([0.25 - math.hypot(1 - b_lo, a_hi - 0.75),
                                                             0.25 + math.hypot(0, 0.75 - a_lo)])


def test_variance_saved_is_measured_against_the_unpaired_interval_shown():
    """One contract a game (a deal run's), 5 of 8 made in A and in B, two games apart. The
    unpaired interval shown is Newcombe's, from the two Wilson intervals; the variance saved
    is measured against the normal variance of that width: var_d = 2 / (8 * 7) against
    ((below + above) / 2Z)^2. Against the normal variances over games instead (Var A + Var
    B = 2 * 1.875 / 56) it read 47% saved where the two intervals shown differ by 7%."""
    made_a, made_b, ones = [1, 0, 1, 1, 0, 1, 1, 0], [1, 0, 1, 0, 0, 1, 1, 1], [1] * 8
    moments = PairedMoments()
    moments.add(made_a, ones, made_b, ones)
    r = moments.result(SHARE)
    lo, hi = wilson(5, 8)
    reach = math.hypot(0.625 - lo, hi - 0.625)  # below and above alike: A and B the same rate
    assert r["unpaired_ci95"] == pytest.approx([-reach, reach])
    assert r["ci95"] == pytest.approx([-Z * math.sqrt(2 / 56), Z * math.sqrt(2 / 56)])
    assert r["variance_reduction"] == pytest.approx(1 - (2 / 56) / (reach / Z) ** 2)
    assert r["variance_reduction"] == pytest.approx(0.1352, abs=1e-4)


def test_moments_match_numpy_on_random_games():
    """The exact-integer estimator agrees with a direct floating-point computation."""
    rng = np.random.default_rng(3)
    G = 1000
    na, nb = rng.integers(0, 8, G), rng.integers(0, 8, G)
    ya = rng.integers(-50, 50, G) * na
    yb = rng.integers(-50, 50, G) * nb + ya  # correlated with A, as paired runs are
    moments = PairedMoments()
    for s in range(0, G, 300):  # in uneven chunks, as blocks would come
        moments.add(ya[s:s + 300], na[s:s + 300], yb[s:s + 300], nb[s:s + 300])
    out = moments.result()
    ra, rb = ya.sum() / na.sum(), yb.sum() / nb.sum()
    ua, ub = (ya - ra * na) / na.mean(), (yb - rb * nb) / nb.mean()
    var_d = ((ub - ua) ** 2).sum() / (G * (G - 1))
    assert out["diff"] == pytest.approx(rb - ra)
    assert out["ci95"][1] - out["diff"] == pytest.approx(Z * math.sqrt(var_d))
    var_a, var_b = (ua ** 2).sum() / (G * (G - 1)), (ub ** 2).sum() / (G * (G - 1))
    assert out["variance_reduction"] == pytest.approx(1 - var_d / (var_a + var_b))



def test_a_rates_intervals_are_cut_to_what_a_rate_can_be():
    """Four games of two contracts each, A made 2 0 2 2 and B 0 0 2 0. By hand: A's rate 0.75,
    residuals 0.5 -1.5 0.5 0.5 over nbar 2, variance 3 / (4 * 12) = 0.0625, 0.75 +- 0.49 =
    [0.26, 1.24]; B's 0.25, [-0.24, 0.74]; B - A = -0.5, per-game terms -0.5 0.5 0.5 -0.5,
    variance 1 / 12, -0.5 +- 0.566. Cut to a rate's [0, 1], and the difference to [-1, 1]; a
    metric without a range keeps the textbook interval. With one contract a game (a deal
    run's), the trials are independent and each rate takes Wilson's interval instead."""
    single = PairedMoments()
    single.add([1, 0, 1, 1], [1, 1, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1])
    assert single.result(SHARE)["a_ci95"] == wilson(3, 4) and single.result(SHARE)["b_ci95"] == wilson(1, 4)
    assert single.result()["a_ci95"] == pytest.approx([0.75 - Z * 0.25, 0.75 + Z * 0.25])  # no range: no rate
    moments = PairedMoments()
    moments.add([2, 0, 2, 2], [2, 2, 2, 2], [0, 0, 2, 0], [2, 2, 2, 2])
    cut, bare = moments.result(SHARE), moments.result()
    assert cut["a_ci95"] == pytest.approx([0.75 - Z * 0.25, 1.0])
    assert cut["b_ci95"] == pytest.approx([0.0, 0.25 + Z * 0.25])
    half = Z * math.sqrt(1 / 12)
    assert cut["ci95"] == pytest.approx([-1.0, -0.5 + half]) and bare["ci95"] == pytest.approx([-0.5 - half, -0.5 + half])
    assert bare["a_ci95"] == pytest.approx([0.75 - Z * 0.25, 0.75 + Z * 0.25])
    assert METRICS["contract_made"].within == METRICS["first_dealer_wins"].within == SHARE
    # A regression's centre may itself lie beyond the range: each end stays inside it, in order.
    assert interval(1.5, 1e-4, SHARE) == [1.0, 1.0] and interval(-0.1, 0.01, SHARE) == [0.0, pytest.approx(-0.1 + Z / 10)]
    assert METRICS["dealer_advantage"].within is None

def test_aggregate_only_runs_use_the_summaries_unpaired(run_a, tmp_path):
    summary = {"contracts_made": {"n": 10, "successes": 5, "rate": 0.5},
               "first_dealer_wins": {"n": 3, "successes": 1, "rate": 1 / 3},
               "deal_score": {"seat0": {"n": 5, "mean": 100.0, "sd": 30.0},
                              "seat1": {"n": 5, "mean": 60.0, "sd": 10.0}},
               "deals_per_game": {"n": 3, "mean": 2.0, "sd": 0.5}}
    summary_a = {"contracts_made": {"n": 4, "successes": 3, "rate": 0.75},
                 "first_dealer_wins": {"n": 3, "successes": 2, "rate": 2 / 3},
                 "deal_score": {"seat0": {"n": 5, "mean": 120.0, "sd": 40.0},
                                "seat1": {"n": 5, "mean": 90.0, "sd": 20.0}},
                 "deals_per_game": {"n": 3, "mean": 5 / 3, "sd": 0.5}}
    (run_a / "summary.json").write_text(json.dumps(summary_a))
    run_c = fake_run(tmp_path / "c", [], GAMES_A, block_size=2, records="none", summary=summary)
    r = compare_runs(run_a, run_c)["metrics"]
    c = r["contract_made"]
    assert not c["paired"] and c["source"] == "summaries" and c["diff"] == -0.25
    half = Z * math.sqrt(0.75 * 0.25 / 4 + 0.5 * 0.5 / 10)
    assert c["ci95"] == pytest.approx([-0.25 - half, -0.25 + half])
    # Mean score per seat: the mean of the seat means; the standard error takes the seats
    # as perfectly correlated (sd (40 + 20) / 2 over sqrt 5), an upper bound.
    m = r["mean_score"]
    assert m["a"] == 105 and m["b"] == 80 and m["diff"] == -25
    assert m["a_ci95"] == pytest.approx([105 - Z * 30 / math.sqrt(5), 105 + Z * 30 / math.sqrt(5)])
    # The dealer's advantage of a summary made before summaries kept it needs deal records.
    d = r["dealer_advantage"]
    assert d["diff"] is None and "deals records" in d["note"]
    # Summaries that keep it (value and 95% interval over games) are compared unpaired:
    # standard errors 2 and 1.5, so the difference's is 2.5.
    summary_a["dealer_advantage"] = {"value": 10.0, "ci95": [10 - Z * 2, 10 + Z * 2]}
    summary["dealer_advantage"] = {"value": 4.0, "ci95": [4 - Z * 1.5, 4 + Z * 1.5]}
    (run_a / "summary.json").write_text(json.dumps(summary_a))
    run_d = fake_run(tmp_path / "d", [], GAMES_A, block_size=2, records="none", summary=summary)
    d = compare_runs(run_a, run_d)["metrics"]["dealer_advantage"]
    assert d["source"] == "summaries" and not d["paired"] and d["diff"] == -6
    assert d["ci95"] == pytest.approx([-6 - Z * 2.5, -6 + Z * 2.5])
    # A run keeping game records pairs the game metrics and reads the rest from the summaries.
    run_g = fake_run(tmp_path / "g", [], GAMES_A, block_size=3, records="games", summary=summary)
    r = compare_runs(run_a, run_g)["metrics"]
    assert r["first_dealer_wins"]["paired"] and r["first_dealer_wins"]["ci95"] == [0.0, 0.0]
    assert not r["contract_made"]["paired"]


def test_runs_pair_only_with_the_same_seed_and_games(run_a, tmp_path):
    # Other seeds or sizes compare unpaired (values: tests/test_designer.py).
    other_seed = fake_run(tmp_path / "s", DEALS_A, GAMES_A, block_size=2, seed=6)
    assert not compare_runs(run_a, other_seed)["paired"]
    fewer = fake_run(tmp_path / "f", DEALS_A[:4], GAMES_A[:2], block_size=2)
    # Its words: the first 2 games are the same deals in both (not "the runs are independent").
    assert "different number of games (3 and 2): B - A is taken as the difference of two independent means, whose " \
           "interval errs wide (the first 2 games of both" in compare_runs(run_a, fewer)["pairing"]
    assert "different seed (5 and 6): the runs are independent" in compare_runs(run_a, other_seed)["pairing"]
    other_game = fake_run(tmp_path / "d", DEALS_A, GAMES_A, block_size=2, game="draw-bridge")
    with pytest.raises(MetricsError, match="different game"):
        compare_runs(run_a, other_game)
    with pytest.raises(MetricsError, match="nothing does not exist"):
        compare_runs(run_a, tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(MetricsError, match="not a run folder"):
        compare_runs(run_a, tmp_path / "empty")
    (run_a / "records" / "deals-000001.parquet").unlink()
    with pytest.raises(MetricsError, match="missing"):
        compare_runs(run_a, run_a)


def test_metric_names():
    assert parse_metrics(None) == list(METRICS)
    assert parse_metrics("contract_made,dealer_advantage") == ["contract_made", "dealer_advantage"]
    with pytest.raises(MetricsError, match="did you mean 'contract_made'"):
        parse_metrics("contracts_made")
    with pytest.raises(MetricsError, match="twice"):
        parse_metrics("mean_score,mean_score")


def test_values_that_round_to_zero_never_print_minus_zero():
    from analysis.report import _num, _round
    from sim.summary import percent

    tiny = -1e-9  # a float sum's rounding error around 0
    assert METRICS["dealer_advantage"].format(tiny) == "0.00"
    assert METRICS["dealer_advantage"].format(tiny, signed=True) == "+0.00"
    assert METRICS["contract_made"].format(tiny, signed=True) == "+0.00%"
    assert METRICS["deals_per_game"].format(tiny) == "0.000"
    assert METRICS["dealer_advantage"].format(-0.006, signed=True) == "-0.01"  # real negatives keep their sign
    assert percent({"rate": 0.0, "ci95": [tiny, 0.0019]}) == "0.000% [0.000, 0.190]"
    assert (_num(tiny), _num(-0.3), _round(-1e-7), str(_round(-1e-7))) == ("0.00", "-0.30", 0.0, "0.0")
