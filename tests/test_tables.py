"""Tallies of analysis.tables on small hand-made record sets with answers worked out by hand.

The fake run folders hold two or three Parquet blocks written here column by column, so
every count, rate, interval and histogram below is checked against arithmetic done on
paper, not against the code that produced the run.
"""

import csv
import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import tables as T
from analysis.games import bid_euchre as E, bridgette as B, contract as C, draw_bridge as D
from analysis.report import build_report
from sim.games import GAMES as GAME_INFO
from sim.store import RECORD_FILES, file_entry, run_digest, sealed
from sim.store.config import RUN
from sim.rules import GAMES


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    """The textbook Wilson score interval, z = 1.96 (two-sided 95%)."""
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def dict_col(values):
    return pa.array(values, type=pa.string()).dictionary_encode()


def fake_run(root, game: str, deal_blocks, game_blocks, records: str = "deals", aggregates=None):
    """A finished run folder holding the given record blocks (lists of column dicts)."""
    root.mkdir(parents=True)
    (root / "records").mkdir()
    (root / "blocks").mkdir()
    n = max(len(deal_blocks), len(game_blocks))
    games = sum(len(b["game"]) for b in game_blocks)
    config = {"game": game, "rules": GAMES[game]().to_dict(), "policies": ["heuristic"] * GAME_INFO[game].seats,
              "seed": 5, "games": games, "block_size": max((len(b["game"]) for b in game_blocks), default=2),
              "records": records, "rules_version": 1}
    (root / "manifest.json").write_text(json.dumps({"config": config, "package_version": "0.1.0", "blocks": n,
                                                    "blocks_done": list(range(n)), "complete": True}))
    (root / "summary.json").write_text(json.dumps({"game": game, "deals": sum(len(b["game"]) for b in deal_blocks)}))
    for i in range(n):
        for kind, blocks in (("deals", deal_blocks), ("games", game_blocks)):
            if kind == "games" or records == "deals":
                cols = {k: dict_col(v) if isinstance(v[0] if v else "", str) or k in ("strain", "bid", "void")
                        else v for k, v in blocks[i].items()}
                pq.write_table(pa.table(cols), root / "records" / f"{kind}-{i:06d}.parquet")
        # The block file as a run writes it: its aggregates, naming its records, sealed.
        files = {f.name: file_entry(f.read_bytes()) for f in sorted((root / "records").glob(f"*-{i:06d}.parquet"))}
        block = {**(aggregates or [{}] * n)[i], RECORD_FILES: files, RUN: run_digest(config)}
        (root / "blocks" / f"{i:06d}.json").write_text(json.dumps(sealed(block)))
    return root


# Six Bridgette deals in two blocks (4 + 2). Seats: 0 and 1; level -1 = passed out.
#          dealer upcard class     little royal grand level strain decl made  t0 t1  s0   s1
BRIDGETTE = [(0, "9S", "numeral",  0,  1, -1,  2, "S",  0, True,  9, 4, 250,   0),  # +1
             (1, "KH", "face",     1, -1,  0,  2, "S",  1, True,  5, 8,   0, 250),  # exactly
             (0, "AD", "ace",     -1,  0,  0,  2, "S",  0, False, 6, 7,   0, 200),  # -2
             (1, "CG", "ace",      0,  1,  1, -1, None, -1, False, 0, 0,   0,   0),  # passed out
             (0, "2C", "numeral",  1,  0, -1,  0, "NT", 1, True,  6, 7,   0, 400),  # +1
             (1, "CL", "numeral",  0, -1,  1,  3, "H",  1, False, 5, 8, 100,   0)]  # -1
# Colon plays per deal (play, won) for little, royal, grand: -1 not played, 0 follow, 1 lead, 2 discard.
PLAYS = [((0, 0), (1, 1), (-1, 0)), ((2, 0), (-1, 0), (1, 1)), ((-1, 0), (1, 0), (0, 0)),
         ((-1, 0), (-1, 0), (-1, 0)), ((1, 1), (0, 0), (-1, 0)), ((1, 0), (-1, 0), (2, 0))]
NAMES = ("dealer", "upcard", "upcard_class", "colon_little", "colon_royal", "colon_grand", "level", "strain",
         "declarer", "made", "tricks0", "tricks1", "score0", "score1")


def bridgette_block(rows, plays, first: int) -> dict:
    cols = {"game": [first + k for k in range(len(rows))], "deal": [0] * len(rows)}
    for j, name in enumerate(NAMES):
        cols[name] = [r[j] for r in rows]
    cols["strain"] = [r[7] for r in rows]
    for c, colon in enumerate(B.COLONS):
        cols[f"colon_{colon}_play"] = pa.array([p[c][0] for p in plays], pa.int8())
        cols[f"colon_{colon}_won"] = pa.array([p[c][1] for p in plays], pa.int8())
    for name in ("dealer", "level", "declarer", "tricks0", "tricks1", "colon_little", "colon_royal", "colon_grand"):
        cols[name] = pa.array(cols[name], pa.int8())
    return cols


GAMES_ROWS = [  # first_dealer, deals, total0, total1, winner, abandoned
    (0, 6, 1000, 500, 0, 0), (1, 7, 800, 800, -1, 0), (1, 6, 100, 900, 1, 0)]


def games_block(rows, first: int) -> dict:
    names = ("first_dealer", "deals", "total0", "total1", "winner", "abandoned")
    cols = {"game": [first + k for k in range(len(rows))]}
    cols.update({n: [r[j] for r in rows] for j, n in enumerate(names)})
    cols["tiebreak_deals"] = [0] * len(rows)
    cols["redeals"] = [0] * len(rows)
    return cols


@pytest.fixture
def bridgette_run(tmp_path):
    deals = [bridgette_block(BRIDGETTE[:4], PLAYS[:4], 0), bridgette_block(BRIDGETTE[4:], PLAYS[4:], 4)]
    games = [games_block(GAMES_ROWS[:2], 0), games_block(GAMES_ROWS[2:], 2)]
    return T.RunData(fake_run(tmp_path / "run", "bridgette", deals, games))


def test_wilson_known_values():
    assert wilson_by_hand(2, 3) == pytest.approx((0.20766, 0.93850), abs=1e-5)
    r = T.rate(2, 3)
    assert r["rate"] == pytest.approx(2 / 3) and r["ci95"] == pytest.approx(wilson_by_hand(2, 3))


def test_contracts_by_level_strain_declarer_and_result(bridgette_run):
    t = C.ContractTally()
    T.fill(bridgette_run, "deals", [t])
    assert t.deals == 6 and t.played.sum() == 5 and t.made.sum() == 3
    s = C.STRAINS.index
    assert (t.played[2, s("S")], t.made[2, s("S")]) == (3, 2)
    assert (t.played[0, s("NT")], t.made[0, s("NT")]) == (1, 1)
    assert (t.played[3, s("H")], t.made[3, s("H")]) == (1, 0)
    assert t.cell(2, s("S"))["ci95"] == pytest.approx(wilson_by_hand(2, 3))
    assert t.overall()["ci95"] == pytest.approx(wilson_by_hand(3, 5))
    assert t.passed_out()["rate"] == pytest.approx(1 / 6)
    assert t.by_level(2)["rate"] == pytest.approx(2 / 3) and t.by_strain(s("NT"))["rate"] == 1.0
    # Dealer declares deals 0, 1, 2, 5 (made 0, 1); the non-dealer deal 4 (made).
    assert t.by_declarer.tolist() == [[4, 2], [1, 1]]
    assert t.declarer(True)["ci95"] == pytest.approx(wilson_by_hand(2, 4))
    assert t.result.as_dict() == {"values": [-2, -1, 0, 1], "counts": [1, 1, 1, 2]}


def test_scores_and_games(bridgette_run):
    d, g = T.DealScoreTally(), T.GameTally(GAME_INFO["bridgette"])
    T.fill(bridgette_run, "deals", [d])
    T.fill(bridgette_run, "games", [g])
    assert d.scores[0].as_dict() == {"values": [0, 100, 250], "counts": [4, 1, 1]}
    assert d.scores[1].describe()["mean"] == pytest.approx(850 / 6)
    assert d.scores[1].describe()["p50"] == 0 and d.scores[1].describe()["max"] == 400
    assert g.wins.tolist() == [[1, 0, 0, 0], [0, 1, 1, 0]]
    assert g.side_wins(0)["rate"] == pytest.approx(1 / 3)
    assert g.side_wins(1, first_dealer=1)["rate"] == pytest.approx(1 / 2)
    assert g.outcome(2)["rate"] == pytest.approx(1 / 3)  # the drawn game
    assert g.first_dealer_wins()["ci95"] == pytest.approx(wilson_by_hand(2, 3))
    assert g.totals[0].describe()["mean"] == pytest.approx(1900 / 3)
    assert g.deals.as_dict() == {"values": [6, 7], "counts": [2, 1]}


def test_colons(bridgette_run):
    t = B.ColonTally()
    T.fill(bridgette_run, "deals", [t])
    little, royal, grand = 0, 1, 2
    assert t.kept.tolist() == [5, 4, 4]
    # Holders of played contracts (declarer, defender, nobody) and contracts made by holder.
    assert t.held.tolist() == [[3, 1, 1], [1, 2, 2], [2, 1, 2]]
    assert t.held_made.tolist() == [[3, 0, 0], [0, 2, 1], [0, 1, 2]]
    assert t.made_when(little, True)["rate"] == 1.0 and t.made_when(little, False)["rate"] == 0.0
    assert t.made_when(royal, False)["ci95"] == pytest.approx(wilson_by_hand(3, 4))
    assert t.holder_share(grand, 0)["rate"] == pytest.approx(2 / 5)
    # A seat's deal score with the Little Colon: 250, 250, 0, 400, 100; without: seven seat-deals, one 200.
    assert t.score_with[little].describe()["mean"] == pytest.approx(200.0)
    assert t.score_without[little].describe()["mean"] == pytest.approx(200 / 7)
    assert t.played.tolist() == [[1, 2, 1], [1, 2, 0], [1, 1, 1]]
    assert t.won.tolist() == [[0, 1, 0], [0, 1, 0], [0, 1, 0]]
    assert t.play_share(little, 1)["rate"] == pytest.approx(2 / 5)
    assert t.win_rate(little, 1)["ci95"] == pytest.approx(wilson_by_hand(1, 2))


def test_upcard_groups(bridgette_run):
    t = B.UpcardTally()
    T.fill(bridgette_run, "deals", [t])
    g = B.UPCARD_GROUPS.index
    assert t.deals.tolist() == [2, 1, 1, 1, 0, 1]  # the CL and CG up-cards count apart
    # (The dealer's advantage by group is the summary's, over games: tests/test_report.py.)
    assert (t.played[g("numeral")], t.dealer_declares[g("numeral")], t.made[g("numeral")]) == (2, 1, 2)
    assert (t.played[g("ace")], t.dealer_declares[g("ace")], t.made[g("ace")]) == (1, 1, 0)


def test_report_csv_matches_hand_counts(bridgette_run, tmp_path):
    build_report(bridgette_run.path, tmp_path / "out")
    with open(tmp_path / "out" / "contracts_made.csv") as fh:
        rows = {r["level"]: r for r in csv.DictReader(fh)}
    lo, hi = wilson_by_hand(2, 3)
    assert float(rows["2"]["S %"]) == pytest.approx(200 / 3, abs=1e-3)
    assert float(rows["2"]["S % lo95"]) == pytest.approx(100 * lo, abs=1e-3)
    assert float(rows["2"]["S % hi95"]) == pytest.approx(100 * hi, abs=1e-3)
    assert rows["2"]["S n"] == "3" and rows["5"]["S n"] == "0"
    with open(tmp_path / "out" / "over_under.csv") as fh:
        over = {r["tricks against the contract"]: int(r["contracts"]) for r in csv.DictReader(fh)}
    assert over == {"-2": 1, "-1": 1, "0 (exactly)": 1, "+1": 2}


# Six Bid Euchre hands in three blocks (2 + 2 + 2); team = seat % 2; void hands bid "pass".
#         dealer bid     bidder void          made  t0 t1  s0  s1
EUCHRE = [(0, "4",     1, "no",          True,  2, 4,  2,  4),
          (1, "6A",    3, "no",          True,  0, 6,  0, 12),
          (2, "pass", -1, "all passed",  None,  0, 0,  0,  0),
          (3, "6M",    0, "no",          False, 5, 1, -6,  1),
          (0, "3",     0, "no",          False, 2, 4, -3,  4),
          (1, "6A",    1, "no",          False, 1, 5,  1, -6)]


def test_bid_euchre(tmp_path):
    names = ("dealer", "bid", "bidder", "void", "made", "tricks0", "tricks1", "score0", "score1")
    blocks = []
    for b in range(3):
        rows = EUCHRE[2 * b:2 * b + 2]
        cols = {"game": [b, b], "deal": [0, 1]}
        cols.update({n: [r[j] for r in rows] for j, n in enumerate(names)})
        blocks.append(cols)
    games = [{"game": [b], "first_dealer": [b], "deals": [2], "total0": [10], "total1": [20], "winner": [1],
              "abandoned": [0]} for b in range(3)]
    run = T.RunData(fake_run(tmp_path / "run", "bid-euchre", blocks, games))
    t = E.EuchreTally(E.euchre_bids(run.rules))
    T.fill(run, "deals", [t])
    assert t.bids == ["3", "4", "5", "6A", "6M"]
    assert t.hands == 6 and t.voids.tolist() == [5, 1, 0]
    assert t.played.tolist() == [1, 1, 0, 2, 1] and t.made.tolist() == [0, 1, 0, 1, 0]
    assert t.success(3)["ci95"] == pytest.approx(wilson_by_hand(1, 2))
    assert t.share(1)["rate"] == pytest.approx(1 / 6)
    assert t.six_tricks[0].as_dict() == {"values": [5, 6], "counts": [1, 1]}
    assert t.six_points[0].as_dict() == {"values": [-6, 12], "counts": [1, 1]}
    assert t.six_tricks[1].as_dict() == {"values": [5], "counts": [1]}
    # Seats counted left from the dealer: bids and bids made.
    assert t.seat_bids.tolist() == [[2, 0], [2, 1], [1, 1], [0, 0]]
    assert t.team_points[0].describe()["mean"] == pytest.approx(1.0)  # 2, 12, 0, 1, -3, -6
    assert t.team_points[1].describe()["mean"] == pytest.approx(0.5)  # 4, 0, 0, -6, 4, 1
    assert t.team_points[2].as_dict() == t.team_points[0].as_dict()  # the dealer's partner: same team
    assert t.bidder_points[0].describe()["mean"] == pytest.approx(-4.5)
    assert t.bidder_points[1].describe()["mean"] == pytest.approx(-1.0)
    g = T.GameTally(GAME_INFO["bid-euchre"])
    T.fill(run, "games", [g])
    assert g.wins[:, 1].tolist() == [1, 1, 1] + [0] and g.first_dealer_wins()["successes"] == 1  # seat 1 dealt first
    # The CSV names each mean once: "tricks mean", never "tricks (mean) mean" or "mean mean".
    build_report(run.path, tmp_path / "out")
    with open(tmp_path / "out" / "six_bids.csv") as fh:
        rows = {r["bid"]: r for r in csv.DictReader(fh)}
    assert list(rows["6A"])[6:] == ["tricks mean", "tricks lo95", "tricks hi95", "tricks n",
                                    "points mean", "points lo95", "points hi95", "points n"]
    assert (float(rows["6A"]["tricks mean"]), float(rows["6A"]["points mean"])) == (5.5, 3.0)  # 6, 5; 12, -6
    with open(tmp_path / "out" / "score_quantiles.csv") as fh:
        header = next(csv.reader(fh))
    assert header[3:7] == ["mean", "mean lo95", "mean hi95", "mean n"]


def test_draw_tricks(tmp_path):
    #          d0 d1 level decl made
    rows = [(5, 8, 3, 1, True), (7, 6, 2, 0, False), (5, 8, -1, -1, False)]
    names = ("draw_tricks0", "draw_tricks1", "level", "declarer", "made")
    blocks = [{"game": [k], "deal": [0], **{n: [r[j]] for j, n in enumerate(names)}} for k, r in enumerate(rows)]
    games = [{"game": [k], "first_dealer": [0], "deals": [1], "total0": [0], "total1": [0], "winner": [-1],
              "abandoned": [1]} for k in range(3)]
    t = D.DrawTrickTally()
    T.fill(T.RunData(fake_run(tmp_path / "run", "draw-bridge", blocks, games)), "deals", [t])
    assert t.table[5].tolist() == [2, 0, 0] and t.table[8].tolist() == [2, 1, 1]
    assert t.table[7].tolist() == [1, 1, 0] and t.table[6].tolist() == [1, 0, 0]
    assert t.table.sum(axis=0).tolist() == [6, 2, 1]


def test_hist_and_count_helpers():
    h = T.Hist()
    h.add([3, 1, 3])
    h.add([1, 5])
    assert h.as_dict() == {"values": [1, 3, 5], "counts": [2, 2, 1]} and h.n == 5
    assert h.describe()["mean"] == pytest.approx(13 / 5)
    assert T.count((2, 3), [0, 1, 1], [2, 0, 0]).tolist() == [[0, 0, 1], [2, 0, 0]]
