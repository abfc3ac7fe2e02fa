"""python -m analysis.report end to end: real runs of each game, an aggregate-only run,
bad input, and the page opened in headless Chromium.

The record-based tallies are checked against the run's own block aggregates (the same
numbers counted by a different path), and the browser test fails on a missing heading,
no plot, or any image that did not render.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis import tables as T
from analysis.games import bid_euchre as E, bridgette as B, contract as C, draw_bridge as D
from analysis.browser import inspect
from analysis.report import build_report
from sim.rules import GAMES, option_table

ROOT = Path(__file__).resolve().parents[1]


def sim_run(out: Path, game: str, games: int, *extra: str) -> subprocess.Popen:
    """Start ``python -m sim.run`` on two blocks; the caller waits."""
    return subprocess.Popen([sys.executable, "-m", "sim.run", "--game", game, "--games", str(games), "--seed", "3",
                             "--threads", "1", "--block-size", str(games // 2 + 1), "--out", str(out), "--quiet",
                             *extra], cwd=ROOT)


def report_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "analysis.report", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small real runs, two blocks each: one per game, and an aggregate-only Bridgette run."""
    base = tmp_path_factory.mktemp("runs")
    paths = {"bridgette": base / "bridgette", "draw-bridge": base / "draw", "bid-euchre": base / "euchre",
             "none": base / "none"}
    # The three games compile side by side (the cost on a fresh numba cache); the
    # aggregate-only Bridgette run then loads Bridgette's kernels from the cache.
    started = [sim_run(paths["bridgette"], "bridgette", 3000), sim_run(paths["draw-bridge"], "draw-bridge", 1000),
               sim_run(paths["bid-euchre"], "bid-euchre", 1000)]
    assert [p.wait() for p in started] == [0, 0, 0]
    assert sim_run(paths["none"], "bridgette", 2000, "--records", "none").wait() == 0
    return paths


HEADINGS = {
    "bridgette": ["The run", "Bid success", "Scores and game wins", "Colons (Bridgette)", "Up-card (Bridgette)"],
    "draw-bridge": ["The run", "Bid success", "Scores and game wins", "Draw phase (Draw Bridge)"],
    "bid-euchre": ["The run", "Bids (Bid Euchre)", "6A and 6M outcomes (Bid Euchre)",
                   "Seats from the dealer (Bid Euchre)", "Scores and game wins"],
}


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_report_of_each_game(runs, game, tmp_path):
    out = tmp_path / "report"
    done = report_cli(runs[game], "--out", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out / "index.html")
    page = (out / "index.html").read_text()
    for heading in HEADINGS[game]:
        assert f">{heading}</h2>" in page
    assert "needs the per-deal records" not in page
    for img in ("contracts_heatmap", "over_under", "scores", "game_wins", "colons", "upcard", "draw_tricks",
                "bids", "six_tricks", "seats"):
        expected = img in {"bridgette": ("contracts_heatmap", "over_under", "scores", "game_wins", "colons", "upcard"),
                           "draw-bridge": ("contracts_heatmap", "over_under", "scores", "game_wins", "draw_tricks"),
                           "bid-euchre": ("bids", "six_tricks", "seats", "scores", "game_wins")}[game]
        assert (out / f"{img}.png").exists() == expected, img
        assert (f'src="{img}.png"' in page) == expected
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list(out.glob("*.csv"))) >= 5
    assert (out / "rules.csv").read_text().count("\n") == len(option_table(GAMES[game])) + 1


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_record_tallies_agree_with_block_aggregates(runs, game):
    """Counted from the Parquet records block by block, every tally the aggregates allow
    equals the aggregates' own count."""
    data = T.RunData(runs[game])
    agg = data.aggregates()
    scores, games = T.DealScoreTally(), T.GameTally(data.info)
    T.fill(data, "games", [games])
    ref_games = T.GameTally.from_aggregates(agg, data.info)
    assert np.array_equal(games.wins, ref_games.wins) and games.totals[1].table == ref_games.totals[1].table
    ref_scores = T.DealScoreTally.from_aggregates(agg, data.info)
    if game == "bid-euchre":
        t = E.EuchreTally(E.euchre_bids(data.rules))
        T.fill(data, "deals", [t, scores])
        ref = E.EuchreTally.from_aggregates(agg, t.bids)
        for name in ("played", "made", "voids", "seat_bids"):
            assert np.array_equal(getattr(t, name), getattr(ref, name)), name
    else:
        t = C.ContractTally()
        extra = [D.DrawTrickTally()] if game == "draw-bridge" else [B.ColonTally()]
        T.fill(data, "deals", [t, scores] + extra)
        ref = C.ContractTally.from_aggregates(agg)
        for name in ("played", "made", "by_declarer"):
            assert np.array_equal(getattr(t, name), getattr(ref, name)), name
        assert t.deals == ref.deals
        if game == "draw-bridge":
            assert np.array_equal(extra[0].table, D.DrawTrickTally.from_aggregates(agg).table)
        else:
            colons = B.ColonTally.from_aggregates(agg)
            for name in ("kept", "played", "won"):
                assert np.array_equal(getattr(extra[0], name), getattr(colons, name)), name
    assert [h.table for h in scores.scores] == [h.table for h in ref_scores.scores]


def test_aggregate_only_run(runs, tmp_path):
    out = tmp_path / "report"
    build_report(runs["none"], out)
    page = (out / "index.html").read_text()
    assert "this run kept no deal records" in page
    assert "The over- and undertrick distribution needs the per-deal records" in page
    assert "The up-card section needs the per-deal records" in page
    assert "<code>--records none</code>" in page
    for img in ("contracts_heatmap", "made_by_level_declarer", "scores", "game_wins", "colons"):
        assert (out / f"{img}.png").exists(), img
    assert not (out / "over_under.png").exists() and not (out / "upcard.png").exists()
    # The aggregate path gives the summary's own numbers.
    summary = json.loads((runs["none"] / "summary.json").read_text())
    t = C.ContractTally.from_aggregates(T.RunData(runs["none"]).aggregates())
    assert t.overall() == summary["contracts_made"]


def test_bad_input_is_one_line_and_status_2(runs, tmp_path):
    unfinished = tmp_path / "unfinished"
    shutil.copytree(runs["none"], unfinished)
    manifest = json.loads((unfinished / "manifest.json").read_text())
    manifest.update(complete=False, blocks_done=[0])
    (unfinished / "manifest.json").write_text(json.dumps(manifest))
    (unfinished / "summary.json").unlink()
    (tmp_path / "empty").mkdir()
    (tmp_path / "afile").write_text("x")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{not json")
    cases = {tmp_path / "missing": "does not exist", tmp_path / "afile": "is not a folder",
             tmp_path / "empty": "not a run folder", tmp_path / "broken": "unreadable or not a run manifest",
             unfinished: "unfinished run (1 of 2 blocks done)"}
    for path, words in cases.items():
        done = report_cli(path, "--out", tmp_path / "out")
        assert done.returncode == 2, (path, done.stderr)
        assert done.stderr.count("\n") == 1 and words in done.stderr and "Traceback" not in done.stderr
    done = report_cli(runs["none"], "--out", tmp_path / "afile")
    assert done.returncode == 2 and "is a file" in done.stderr and done.stderr.count("\n") == 1
    # A folder holding something else is refused and left as it was, as sim.run refuses one;
    # a folder holding a report gets the new one.
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    done = report_cli(runs["none"], "--out", foreign)
    assert done.returncode == 2 and done.stderr == (f"python -m analysis.report: error: output folder {foreign} "
                                                    "is not empty and holds no report; use another --out\n")
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"] and (foreign / "notes.txt").read_text() == "keep me"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<title>My own page</title>")
    assert report_cli(runs["none"], "--out", tmp_path / "site").returncode == 2
    assert (tmp_path / "site" / "index.html").read_text() == "<title>My own page</title>"
    own = tmp_path / "own"
    assert report_cli(runs["none"], "--out", own).returncode == 0
    (own / "scores.png").unlink()
    again = report_cli(runs["none"], "--out", own)
    assert again.returncode == 0 and again.stdout == f"{own / 'index.html'}\n" and (own / "scores.png").exists()
    done = report_cli()
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_report_renders_in_headless_chromium(runs, tmp_path):
    out = tmp_path / "report"
    page = build_report(runs["bridgette"], out)
    shot = out / "screenshot.png"
    facts = inspect(page, shot, full_page=True)
    headings = [text for tag, text in facts["headings"]]
    assert facts["headings"][0][0] == "H1" and "Bridgette run report" in headings[0]
    assert headings[1:] == HEADINGS["bridgette"]
    images = facts["images"]
    assert len(images) >= 6 and any(i["src"] == "contracts_heatmap.png" for i in images)
    broken = [i["src"] for i in images if not (i["complete"] and i["width"] > 0 and i["height"] > 0)]
    assert not broken, broken
    assert facts["tables"] >= 8
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1200 and height > 4000  # the whole page, plots included

    # The check itself: a plot missing from the folder is reported as a broken image.
    (out / "upcard.png").unlink()
    facts = inspect(page, tmp_path / "shot2.png")
    assert [i["src"] for i in facts["images"] if not i["width"]] == ["upcard.png"]


def test_upcard_group_records_name_the_report_groups(runs):
    """The deal records' upcard_group holds the report's up-card groups, by name and count:
    the B-3 class, or the Colon itself when the up-card is one."""
    from sim.bridgette import UPCARD_GROUPS
    from sim.store import load_records

    assert UPCARD_GROUPS == list(B.UPCARD_GROUPS)
    deals = load_records(runs["bridgette"])
    colon = deals["upcard"].astype(str).map({"CL": "Little Colon", "CR": "Royal Colon", "CG": "Grand Colon"})
    expected = colon.fillna(deals["upcard_class"].astype(str))
    assert (deals["upcard_group"].astype(str) == expected).all() and colon.notna().any()
    tally = B.UpcardTally()
    T.fill(T.RunData(runs["bridgette"]), "deals", [tally])
    counts = deals["upcard_group"].astype(str).value_counts()
    assert [int(counts.get(g, 0)) for g in B.UPCARD_GROUPS] == tally.deals.tolist()


def test_dealer_advantage_table_matches_the_records(runs, tmp_path):
    import pandas as pd

    from sim.store import load_records
    from tests.test_runs import advantage_from_records

    for name in ("bridgette", "none"):
        build_report(runs[name], tmp_path / name)
    table = pd.read_csv(tmp_path / "bridgette" / "dealer_advantage.csv").set_index("deals")
    deals = load_records(runs["bridgette"])
    value, ci = advantage_from_records(deals, (0, 1), 3000)
    row = table.loc["all deals"]
    assert row["dealer's advantage mean"] == pytest.approx(value, abs=1e-4)
    assert [row["dealer's advantage lo95"], row["dealer's advantage hi95"]] == pytest.approx(ci, abs=1e-4)
    aces = (deals["upcard_class"] == "ace") & ~deals["upcard"].astype(str).isin(["CL", "CR", "CG"])
    value, _ = advantage_from_records(deals[aces], (0, 1), 3000)
    assert table.loc["up-card: ace", "dealer's advantage mean"] == pytest.approx(value, abs=1e-4)
    assert table.loc["up-card: ace", "n"] == aces.sum()
    # Without records the table is still there, from the summary's block aggregates.
    bare = pd.read_csv(tmp_path / "none" / "dealer_advantage.csv")
    summary = json.loads((runs["none"] / "summary.json").read_text())["dealer_advantage"]
    assert list(bare["n"]) == [summary["deals"]] + [e["deals"] for e in summary["by_upcard"]]



def test_colon_table_states_its_confounding_and_the_paired_command_runs(runs, tmp_path):
    """Beside the Colon holds/lacks table the report says why it is not a Colon's worth and
    gives the paired deck.colons sweep; that command, as printed (fewer games), runs."""
    import html
    import re
    import shlex

    build_report(runs["bridgette"], tmp_path / "report")
    page = (tmp_path / "report" / "index.html").read_text()
    assert "not what a Colon is worth" in page
    command = html.unescape(re.search(r"<code>(python -m sim\.sweep --game bridgette[^<]*)</code>", page).group(1))
    argv = shlex.split(command)
    argv[argv.index("--games") + 1] = "6"
    result = subprocess.run([sys.executable, *argv[1:], "--out", str(tmp_path / "sweep"), "--quiet"],
                            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 0, result.stderr
    settings = json.loads((tmp_path / "sweep" / "sweep.json").read_text())["settings"]
    assert [s["values"]["deck.colons"] for s in settings] == [["little", "royal", "grand"], ["little", "royal"]]
