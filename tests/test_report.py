"""python -m analysis.report end to end: real runs of each game, an aggregate-only run, a
sweep, comparisons paired and unpaired, bad input, and the pages opened in headless Chromium.

The record-based tallies are checked against the run's own block aggregates (the same
numbers counted by a different path), and the browser test fails on a missing heading,
no plot, or any image that did not render.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import tables as T
from analysis.games import bid_euchre as E, bridgette as B, contract as C, draw_bridge as D
from analysis.browser import inspect, inspect_pages
from analysis.report import build_report, main as report_main
from sim.store import FolderLock, read_sealed, sealed
from tests.commands import disk_full_at, in_process
from analysis.report.sweep import sweep_figure
from sim.games import game_info
from sim.rules import GAMES, option_table

ROOT = Path(__file__).resolve().parents[1]


def sim_run(out: Path, game: str, games: int, *extra: str) -> subprocess.Popen:
    """Start ``python -m sim.run`` on two blocks; the caller waits."""
    return subprocess.Popen([sys.executable, "-m", "sim.run", "--game", game, "--games", str(games), "--seed", "3",
                             "--threads", "1", "--block-size", str(games // 2 + 1), "--out", str(out), "--quiet",
                             *extra], cwd=ROOT)


def report_cli(*args: str) -> subprocess.CompletedProcess:
    return in_process("analysis.report", *args)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small real runs, two blocks each: one per game, an aggregate-only Bridgette run, and a
    Bridgette sweep of three settings (B-3's draw after an ace up-card)."""
    base = tmp_path_factory.mktemp("runs")
    paths = {"bridgette": base / "bridgette", "draw-bridge": base / "draw", "bid-euchre": base / "euchre",
             "none": base / "none", "sweep": base / "sweep"}
    # The three games compile side by side (the cost on a fresh numba cache); the
    # aggregate-only Bridgette run then loads Bridgette's kernels from the cache.
    started = [sim_run(paths["bridgette"], "bridgette", 3000), sim_run(paths["draw-bridge"], "draw-bridge", 1000),
               sim_run(paths["bid-euchre"], "bid-euchre", 1000)]
    assert [p.wait() for p in started] == [0, 0, 0]
    sweep = subprocess.Popen([sys.executable, "-m", "sim.sweep", "--game", "bridgette", "--vary", SWEPT,
                              "--games", "400", "--seed", "3", "--threads", "1", "--block-size", "201",
                              "--metrics", ",".join(SWEEP_METRICS), "--out", str(paths["sweep"]), "--quiet"],
                             cwd=ROOT, stdout=subprocess.DEVNULL)
    assert sim_run(paths["none"], "bridgette", 2000, "--records", "none").wait() == 0
    assert sweep.wait() == 0
    return paths


SWEPT = "exchange.dealer_draw_ace=4,8,12"
SWEEP_METRICS = ("dealer_advantage", "first_dealer_wins", "contract_made")


HEADINGS = {
    "bridgette": ["The run", "Bid success", "Scores and game wins", "Colons (Bridgette)", "Up-card (Bridgette)",
                  "Rule activity"],
    "draw-bridge": ["The run", "Bid success", "Scores and game wins", "Draw phase (Draw Bridge)", "Rule activity"],
    "bid-euchre": ["The run", "Bids (Bid Euchre)", "6A and 6M outcomes (Bid Euchre)",
                   "Seats from the dealer (Bid Euchre)", "Scores and game wins", "Rule activity"],
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
    for img in ("contracts_heatmap", "made_by_level", "over_under", "scores", "game_wins", "colons", "upcard",
                "draw_tricks", "bids", "six_tricks", "seats"):
        expected = img in {"bridgette": ("contracts_heatmap", "made_by_level", "over_under", "scores", "colons",
                                         "upcard"),
                           "draw-bridge": ("contracts_heatmap", "made_by_level", "over_under", "scores",
                                           "draw_tricks"),
                           "bid-euchre": ("bids", "six_tricks", "seats", "scores")}[game]
        assert (out / f"{img}.png").exists() == expected, img
        assert (f'src="{img}.png"' in page) == expected
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list(out.glob("*.csv"))) >= 5
    assert (out / "rules.csv").read_text().count("\n") == len(option_table(GAMES[game])) + 1
    # Rule activity: the summary's counts, one row per rule (sim.activity).
    activity = pd.read_csv(out / "rule_activity.csv")
    rows = json.loads((runs[game] / "summary.json").read_text())["rule_activity"]
    assert activity["deals n"].tolist() == [r["of"] for r in rows]
    assert np.allclose(activity["deals %"], [round(100 * r["share"], 4) for r in rows])
    # The headline box comes first, before the contents and the configuration, with the
    # summary's own numbers.
    summary = json.loads((runs[game] / "summary.json").read_text())
    box = page[page.index('<div class="headline">'):page.index("</div>")]
    assert page.index('<div class="headline">') < page.index("<nav>") < page.index(">The run</h2>")
    adv = summary["dealer_advantage"]
    assert f"{adv['value']:+.2f} points" in box and f"[{adv['ci95'][0]:+.2f}, {adv['ci95'][1]:+.2f}]" in box
    info = game_info(game)
    for key in ("first_dealer_wins", "contracts_made"):
        r = summary[info.summary_key(key)]
        assert f"{100 * r['rate']:.1f}%" in box and f"of {r['n']:,} " in box
    seats = "in both seats" if info.seats == 2 else "in all 4 seats"  # as sim.run prints the players
    assert f"heuristic {seats}" in box and "rules: the defaults" in box
    size = json.loads((runs[game] / "manifest.json").read_text())["config"]["games"]
    assert f"python -m sim.run --game {game} --games {size} --seed 3 --set TABLE.KEY=VALUE" in box
    assert f"python -m analysis.report {runs[game]} VARIANT" in box
    # Scores are the dealer's side's against the non-dealer's: their means differ by the
    # summary's dealer's advantage (the kernels' own aggregate); the first dealer's game
    # totals are those of the game records.
    from sim.store import load_records

    table = pd.read_csv(out / "score_quantiles.csv").set_index(["score", "side"])
    who = "team" if info.teams else "side"
    dealer, other = (table.loc[(f"per {info.deal}", s), "mean"] for s in (f"dealer's {who}", f"non-dealer's {who}"))
    assert dealer - other == pytest.approx(adv["value"], abs=1e-3)
    games = load_records(runs[game], "games")
    first = np.where(games["first_dealer"] % 2 == 0, games["total0"], games["total1"])
    assert table.loc[("per game", f"first dealer's {who}"), "mean"] == pytest.approx(first.mean(), abs=1e-3)
    assert table.loc[("per game", f"first dealer's {who}"), "mean n"] == len(games)


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
    for img in ("contracts_heatmap", "made_by_level", "scores", "colons"):
        assert (out / f"{img}.png").exists(), img
    assert not (out / "over_under.png").exists() and not (out / "upcard.png").exists()
    # The aggregates keep scores by seat only, and the page says so.
    assert "Scores by seat, not dealer against non-dealer" in page
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
    # The same folder while a run holds its lock is still being written: a rerun would be
    # refused by that lock, so the line says to wait, and who writes it.
    with FolderLock(unfinished, "run"):
        done = report_cli(unfinished, "--out", tmp_path / "out")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert (f"{unfinished} holds a run still being written (1 of 2 blocks done; run: pid {os.getpid()} on "
            in done.stderr)
    assert done.stderr.rstrip().endswith("): wait for it to end")
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
    # A report being written holds its folder: a second one there ends in one line, the
    # first's files as they were; once it is done, no lock file is left behind.
    before = {p.name: p.read_bytes() for p in own.iterdir()}
    writing = FolderLock(own, "report")
    try:
        done = report_cli(runs["none"], "--out", own)
    finally:
        writing.release()
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "is being written by another report" in done.stderr
    assert {p.name: p.read_bytes() for p in own.iterdir()} == before
    assert build_report(runs["none"], own) == own / "index.html" and sorted(p.name for p in own.iterdir()) == \
        sorted(before)
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
    # The up-card section's interval is over games too (it was over deals, too narrow).
    upcard = pd.read_csv(tmp_path / "bridgette" / "upcard.csv").set_index("up-card")
    value, ci = advantage_from_records(deals[aces], (0, 1), 3000)
    assert [upcard.loc["ace", f"dealer's advantage (points) {k}"] for k in ("mean", "lo95", "hi95")] == \
        pytest.approx([value, *ci], abs=1e-4)
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
    settings = read_sealed(tmp_path / "sweep" / "sweep.json")["settings"]
    assert [s["values"]["deck.colons"] for s in settings] == [["little", "royal", "grand"], ["little", "royal"]]


def test_few_contracts_are_grey_with_their_counts():
    """A heatmap cell of few contracts shows its counts in grey, not a rate in colour."""
    assert C.heat_cell({"n": 5, "successes": 3, "rate": 0.6, "ci95": [0.2, 0.9]}) == ("few:\n3 of 5\nmade", "#555")
    assert C.heat_cell({"n": 40, "successes": 30, "rate": 0.75, "ci95": [0.6, 0.86]}) == ("75%\n[60, 86]\nn=40",
                                                                                           "black")
    assert C.heat_cell({"n": 100, "successes": 97, "rate": 0.97, "ci95": [0.92, 0.99]})[1] == "white"  # dark green
    assert C.heat_cell({"n": 0, "successes": 0, "rate": None, "ci95": None}) == ("never bid", "#777")
    assert C.heat_cell({"n": 0, "successes": 0, "rate": None, "ci95": None}, exists=False)[0] == ""


def compare_json(a, b, capsys) -> dict:
    from analysis.compare import main as compare_main

    assert compare_main([str(a), str(b), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def csv_floats(row: dict, *keys) -> list:
    return [None if row[k] == "" else float(row[k]) for k in keys]


@pytest.fixture(scope="module")
def reports(runs, tmp_path_factory):
    """The comparison reports, paired (two settings of the sweep: same seed and games) and
    unpaired (the 3,000-game run against the 2,000-game aggregate-only one), and the sweep
    report in its default folder: {kind: (folders, report folder, what it printed)}."""
    import contextlib
    import io

    base = tmp_path_factory.mktemp("reports")
    settings = sorted(p for p in runs["sweep"].iterdir() if p.is_dir())
    cases = {"paired": ((settings[0], settings[2]), base / "paired"),
             "unpaired": ((runs["bridgette"], runs["none"]), base / "unpaired"),
             "sweep": ((runs["sweep"],), runs["sweep"].parent / "sweep-report")}
    out = {"sweep listing": sorted(p.name for p in runs["sweep"].iterdir())}
    for kind, (folders, folder) in cases.items():
        printed = io.StringIO()
        argv = [*map(str, folders)] + ([] if kind == "sweep" else ["--out", str(folder)])
        with contextlib.redirect_stdout(printed):
            assert report_main(argv) == 0
        out[kind] = (folders, folder, printed.getvalue())
    return out


def test_comparison_reports_paired_and_unpaired(reports, capsys):
    """Paired where the runs pair, unpaired (labelled so) where they do not; the report's
    numbers are analysis.compare's."""
    import csv

    for kind in ("paired", "unpaired"):
        (a, b), out, printed = reports[kind]
        assert printed == f"{out / 'index.html'}\n"
        expected = compare_json(a, b, capsys)
        page = (out / "index.html").read_text()
        with open(out / "comparison.csv") as fh:
            rows = {r["metric"]: r for r in csv.DictReader(fh)}
        assert list(rows) == list(expected["metrics"])
        for name, r in expected["metrics"].items():
            row = rows[name]
            for mine, theirs in (("a", "a"), ("b", "b"), ("b_minus_a", "diff")):
                assert csv_floats(row, mine) == [r[theirs]], (kind, name, mine)
            assert csv_floats(row, "b_minus_a_lo95", "b_minus_a_hi95") == (r["ci95"] or [None, None])
            assert row["paired"] == str(r["paired"])
        if kind == "paired":
            assert expected["paired"] and "UNPAIRED" not in page and "Paired game by game" in page
            assert "exchange.dealer_draw_ace</code>: 4 &rarr; 12" in page
            saved = rows["dealer_advantage"]["variance_saved"]
            assert float(saved) == pytest.approx(expected["metrics"]["dealer_advantage"]["variance_reduction"])
        else:
            assert not expected["paired"] and page.count("UNPAIRED") == 1 and "wider" in page
            # Unpaired: the half-width of B - A is Welch's, from the two runs' own intervals.
            for name, r in expected["metrics"].items():
                if r["ci95"] is None:
                    continue
                half = [(ci[1] - ci[0]) / 2 for ci in (r["a_ci95"], r["b_ci95"], r["ci95"])]
                assert half[2] == pytest.approx((half[0] ** 2 + half[1] ** 2) ** 0.5, rel=1e-6), name
                assert half[2] > max(half[0], half[1])
            assert "seed" not in page.split("B differs from A in")[1].split("</tr>")[0]  # same seed, other size
        assert (out / "comparison.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sweep_report_numbers_are_the_sweeps_and_an_unresolved_balance_is_not_drawn(runs, reports, tmp_path):
    import csv

    from sim.store import listing
    from sim.sweep import is_sweep_folder

    _, out, printed = reports["sweep"]
    assert out == runs["sweep"].parent / "sweep-report"  # beside the sweep: inside, it would stop it resuming
    assert printed == f"{out / 'index.html'}\n"
    names = listing(runs["sweep"])
    assert sorted(names) == reports["sweep listing"] and is_sweep_folder(runs["sweep"], names)
    result = read_sealed(runs["sweep"] / "sweep.json")
    page = (out / "index.html").read_text()
    for name in SWEEP_METRICS:
        with open(out / f"metric_{name}.csv") as fh:
            rows = list(csv.DictReader(fh))
        assert [int(r["exchange.dealer_draw_ace"]) for r in rows] == [4, 8, 12]
        for row, setting in zip(rows, result["settings"]):
            m = setting["metrics"][name]
            assert csv_floats(row, "value", "value_lo95", "value_hi95") == [m["value"], *m["value_ci95"]]
            assert csv_floats(row, "minus_first", "minus_first_lo95", "minus_first_hi95") == [m["diff"], *m["ci95"]]
        assert (out / f"metric_{name}.png").exists() and f'src="metric_{name}.png"' in page
    box = page[page.index('<div class="headline">'):page.index("</div>")]
    last = result["settings"][-1]["metrics"]["dealer_advantage"]
    assert f"{last['diff']:+.2f} <span" in box and "heuristic in both seats" in box

    # A crossing sim.sweep could not resolve is named in words and not drawn; a resolved one is.
    fake = tmp_path / "fake"
    shutil.copytree(runs["sweep"], fake)  # its settings' folders too, which the report checks
    crossing = dict(result, balance_point={"first_dealer_wins": 7.5}, balance_bracket={"first_dealer_wins": None})
    (fake / "sweep.json").write_text(json.dumps(sealed(crossing)))
    assert report_main([str(fake), "--out", str(tmp_path / "fake-report")]) == 0
    page = (tmp_path / "fake-report" / "index.html").read_text()
    assert page.count("Balance point not resolved") == 2 and "it is not drawn" in page  # headline and section
    # The copy's report names its own settings' folders, not the sweep's where it was played.
    with open(tmp_path / "fake-report" / "settings.csv") as fh:
        assert [row["run"] for row in csv.DictReader(fh)] == [str(fake / Path(r["run"]).name)
                                                              for r in result["settings"]]
    assert str(runs["sweep"]) not in page

    def balance_lines(result):
        fig = sweep_figure(result, "first_dealer_wins")
        return [line.get_xdata()[0] for ax in fig.axes for line in ax.lines if line.get_gid() == "balance"]

    assert balance_lines(crossing) == [] and balance_lines(result) == []
    assert balance_lines(dict(crossing, balance_bracket={"first_dealer_wins": [4, 12]})) == [7.5]


def test_comparison_and_sweep_reports_render_in_headless_chromium(reports, tmp_path):
    headings = {"paired": ["Each metric: A, B and B \u2212 A", "The two runs"],
                "sweep": ["dealer's advantage per deal (points per deal)",
                          "first dealer's game win rate (share of games)", "contracts made (share of contracts)",
                          "Settings and their run folders"]}
    pages = inspect_pages([(reports[kind][1] / "index.html", tmp_path / f"{kind}.png") for kind in headings])
    for (kind, expected), facts in zip(headings.items(), pages):
        assert facts["headings"][0][0] == "H1" and [t for _, t in facts["headings"][1:]] == expected
        assert facts["headings"][0][1].startswith({"paired": "Bridgette comparison report: B against A, 400 games",
                                                   "sweep": "Bridgette sweep report: exchange.dealer_draw_ace"}[kind])
        images = facts["images"]
        assert len(images) == {"paired": 1, "sweep": 3}[kind]
        assert all(i["complete"] and i["width"] > 0 and i["height"] > 0 for i in images), images
        assert facts["tables"] == {"paired": 3, "sweep": 5}[kind]  # the headline box is a table too


def test_bad_folders_for_a_comparison_or_a_sweep_are_one_line(runs, tmp_path, capsys):
    (tmp_path / "bad-sweep").mkdir()
    (tmp_path / "bad-sweep" / "sweep.json").write_text("[1, 2]")
    edited = tmp_path / "edited-sweep"  # the real sweep's table with its varied keys taken out
    shutil.copytree(runs["sweep"], edited)
    table = read_sealed(edited / "sweep.json")
    (edited / "sweep.json").write_text(json.dumps(sealed(dict(table, vary=[]))))  # sealed again: read, then refused
    altered = tmp_path / "altered-sweep"  # a number edited by hand: its checksum no longer matches
    shutil.copytree(runs["sweep"], altered)
    text = (altered / "sweep.json").read_text()
    first = table["settings"][0]["metrics"]["dealer_advantage"]["value"]
    assert text.count(json.dumps(first)) >= 1
    (altered / "sweep.json").write_text(text.replace(json.dumps(first), "123456789.0", 1))
    gone = tmp_path / "gone-setting"  # a setting's run folder deleted since: its figures have nothing behind them
    shutil.copytree(runs["sweep"], gone)
    setting = gone / Path(table["settings"][1]["run"]).name
    shutil.rmtree(setting)
    lost = tmp_path / "lost-manifest"  # a setting that cannot resume: its folder is to go first, as sim.sweep says
    shutil.copytree(runs["sweep"], lost)
    (lost / setting.name / "manifest.json").unlink()
    filed = tmp_path / "file-setting"  # a file in a setting's place: the rerun will not write over it
    shutil.copytree(runs["sweep"], filed)
    shutil.rmtree(filed / setting.name)
    (filed / setting.name).write_text("a user's notes")
    swapped = tmp_path / "swapped-settings"  # two settings' folders swapped by hand: reported under each other's
    shutil.copytree(runs["sweep"], swapped)  # values before
    first = swapped / Path(table["settings"][0]["run"]).name
    first.rename(swapped / "away")
    setting_in_swapped = swapped / setting.name
    setting_in_swapped.rename(first)
    (swapped / "away").rename(setting_in_swapped)
    seeded = tmp_path / "other-seed"  # the setting as another sweep of another seed played it: reported
    shutil.copytree(runs["sweep"], seeded)  # with this sweep's figures before
    shutil.rmtree(seeded / setting.name)
    import sim

    sim.simulate("bridgette", 400, seed=4, out=tmp_path / "played-apart", block_size=201, threads=1,
                 set_options=[f"{k}={v}" for k, v in table["settings"][1]["values"].items()])
    (tmp_path / "played-apart").rename(seeded / setting.name)  # played outside: no run is played into a sweep's
    cut = tmp_path / "cut-block"  # a setting's block file cut short since: reported whole before
    shutil.copytree(runs["sweep"], cut)
    with open(cut / setting.name / "blocks" / "000000.json", "r+b") as fh:
        fh.truncate(10)
    cases = [([gone], f"{setting}, a setting of {gone}, cannot be read ({setting} does not exist): rerun the "
                      f"sweep's command"),
             ([lost], "(no manifest.json)): remove that folder, then rerun the sweep's command"),
             ([filed], "is not a folder): move it away, then rerun the sweep's command"),
             ([swapped], f"{first}, a setting of {swapped}, was not played with "
                         f"{', '.join(f'{k}={v}' for k, v in table['settings'][0]['values'].items())}: its folders "
                         "were renamed or moved by hand; rerun the sweep's command (python -m sim.sweep) into a new "
                         "folder"),
             ([seeded], f"{seeded / setting.name}, a setting of {seeded}, was played with another seed than the "
                        "sweep: a folder of another sweep was put in its place"),
             ([cut], f"{cut / setting.name}, a setting of {cut}, cannot be read "
                     f"({cut / setting.name}/blocks/000000.json is unreadable (not whole JSON: cut short or "
                     f"altered)): rerun the sweep's command"),
             ([runs["bridgette"], tmp_path / "missing"], "does not exist"),
             ([edited], "sweep.json is unreadable or not a sweep's"),
             ([altered], "sweep.json is damaged (its checksum does not match its content)"),
             ([runs["bridgette"], runs["bid-euchre"]], "different game (bridgette and bid-euchre)"),
             ([tmp_path / "bad-sweep"], "sweep.json is unreadable or not a sweep's"),
             ([runs["bridgette"], "--metrics", "dealer_advantage"], "--metrics applies to a comparison"),
             ([runs["bridgette"], runs["none"], "--metrics", "dealers_advantage"], "unknown metric")]
    for argv, words in cases:
        assert report_main([*map(str, argv), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, (argv, err)
    with pytest.raises(SystemExit) as stop:
        report_main([str(runs["bridgette"])] * 3)
    assert stop.value.code == 2 and "give one folder, or two to compare" in capsys.readouterr().err
    # The Python entry: a folder's path alone is one folder (its letters were read as folders
    # before); no folder, three, or a NUL in a path are named.
    from analysis.report import build

    assert build(str(runs["bridgette"]), out=tmp_path / "one") == tmp_path / "one" / "index.html"
    for paths, out, words in (([], None, "give one folder, or two to compare"), (None, None, "give one folder"),
                              ([runs["bridgette"]] * 3, None, "give one folder"),
                              ([runs["bridgette"]], "a\0b", "holds a NUL character")):
        with pytest.raises(T.ReportError, match=words):
            build(paths, out)
    with pytest.raises(T.ReportError, match="metrics must be a --metrics text or a list of them, got 5"):
        build([runs["bridgette"], runs["none"]], tmp_path / "two", metrics=5)  # a TypeError without its name


@pytest.mark.parametrize("game", GAMES)
def test_a_one_game_run_reports_and_a_failed_report_leaves_no_folder(game, tmp_path, monkeypatch, capsys):
    """One game: a mean of one value has no interval, and the page gives the value alone. A
    report that fails after writing its plots takes away the folder it made, so the same
    command can run again; one into an empty folder leaves it empty."""
    from analysis.report import page
    from sim.run import main as run_main

    run = tmp_path / "run"
    assert run_main(["--game", game, "--games", "1", "--seed", "3", "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()

    def disk_full(self, title):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(page.Report, "write", disk_full)
        with pytest.raises(OSError):
            build_report(run, tmp_path / "new")
        (tmp_path / "empty").mkdir()
        with pytest.raises(OSError):
            build_report(run, tmp_path / "empty")
    assert not (tmp_path / "new").exists() and list((tmp_path / "empty").iterdir()) == []
    index = build_report(run, tmp_path / "new")
    text = index.read_text()
    assert "run report: 1 " in text and ", seed 3</title>" in text and (tmp_path / "new" / "scores.png").exists()


def test_an_until_run_that_reached_no_interval_reports_so(tmp_path, capsys):
    """A run stopped by --until after one game, whose metric has no interval yet (the
    manifest's half-width is null): the page says so (before: a TypeError)."""
    from sim.run import main as run_main

    run = tmp_path / "run"
    assert run_main(["--games", "1", "--block-size", "1", "--until", "dealer_advantage:1", "--out", str(run),
                     "--quiet"]) == 0
    assert json.loads((run / "manifest.json").read_text())["until"]["achieved_half_width"] is None
    capsys.readouterr()
    text = build_report(run, tmp_path / "report").read_text()
    assert "no interval from so few; cap 1" in text


def test_a_report_over_an_earlier_one_keeps_none_of_its_files(runs, tmp_path):
    """A report written where an earlier report was leaves none of the earlier one's own
    files (the CSV and PNG files its page linked to) beside the new page, and keeps a file a
    user put there (before: a Bid Euchre report over a Bridgette one kept colons.csv,
    upcard.png ... with the other run's numbers)."""
    out = tmp_path / "report"
    build_report(runs["bridgette"], out)
    assert (out / "colons.csv").exists() and (out / "upcard.png").exists()
    (out / "notes.txt").write_text("mine")
    build_report(runs["bid-euchre"], out)
    page = (out / "index.html").read_text()
    left = {p.name for p in out.iterdir()} - {"index.html", "notes.txt"}
    assert left and all(f'"{name}"' in page for name in left)
    assert not (out / "colons.csv").exists() and not (out / "upcard.png").exists()
    assert (out / "notes.txt").read_text() == "mine"
    # A user's file under the name of one the next report writes, which the page there never
    # linked, is kept and named (before: written over).
    (out / "colons.csv").write_text("mine too")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(T.ReportError, match=f"{out / 'colons.csv'} is not a file of the report there"):
        build_report(runs["bridgette"], out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_report_stopped_by_a_full_disk_marks_its_folder_and_one_that_fails_before_writing_changes_nothing(
        runs, tmp_path, monkeypatch):
    """A report is built in memory, then written: one that fails while it is built leaves
    the earlier report as it was, and one that fails while writing (a full disk at the third
    file) leaves the page saying a report was being written, never the earlier page beside
    the new files (before: a Bid Euchre page over Bridgette numbers, a PNG cut short). The
    rerun writes it whole and removes the earlier report's files."""
    import analysis.report.run

    out = tmp_path / "report"
    build_report(runs["bridgette"], out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def fails(*args, **kwargs):
        raise T.ReportError("a record file is damaged")

    with monkeypatch.context() as m:
        m.setattr(analysis.report.run, "score_section", fails)
        with pytest.raises(T.ReportError):
            build_report(runs["bid-euchre"], out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    with disk_full_at(3) as renames:
        result = in_process("analysis.report", runs["bid-euchre"], "--out", out)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert f"cannot write {renames[2]}: No space left on device" in result.stderr
    assert "report being written" in (out / "index.html").read_text()
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))
    assert build_report(runs["bid-euchre"], out) == out / "index.html"
    assert "report being written" not in (out / "index.html").read_text()
    assert not (out / "colons.csv").exists() and not (out / "upcard.png").exists()
    # A folder where a file of the report goes is found before anything changes.
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    (out / "bids.csv").unlink()
    (out / "bids.csv").mkdir()
    result = in_process("analysis.report", runs["bid-euchre"], "--out", out)
    assert result.returncode == 2 and f"cannot write {out / 'bids.csv'}: a folder stands in its place" in result.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == {k: v for k, v in before.items()
                                                                              if k != "bids.csv"}


def test_a_report_replaces_a_link_a_user_left_in_its_folder_and_leaves_the_users_file(runs, tmp_path):
    """Every file of a report is written to a temporary name and renamed into place, so a
    link in its folder is replaced, not written through (before: a rerun wrote over the
    user's file the link named)."""
    out = tmp_path / "report"
    build_report(runs["bridgette"], out)
    mine = tmp_path / "mine.csv"
    mine.write_text("my own numbers")
    (out / "colons.csv").unlink()
    (out / "colons.csv").symlink_to(mine)
    build_report(runs["bridgette"], out)
    assert mine.read_text() == "my own numbers" and not (out / "colons.csv").is_symlink()


def test_a_metric_named_at_length_gets_a_file_name_the_system_takes():
    """A custom metric's name of hundreds of characters names its report files cut short,
    with a digest of the whole (before: 'File name too long', no report); short names stay
    as they are."""
    from analysis.report.page import LONGEST_STEM, file_stem

    assert file_stem("strata_made4") == "strata_made4"
    long_a, long_b = "strata_" + "m" * 300, "strata_" + "m" * 299 + "n"
    assert len(file_stem(long_a).encode()) <= LONGEST_STEM and file_stem(long_a) != file_stem(long_b)
    assert file_stem("strata_" + "é" * 200).encode().decode() and len(file_stem("strata_" + "é" * 200).encode()) <= 120


def test_metrics_named_apart_only_by_letters_outside_ascii_keep_their_own_files():
    """A sweep's metric names 'é' and 'è' both became metric-_ (one file, one anchor for
    two sections: the first metric's table and figure lost); ASCII names stay as they are."""
    from analysis.report.sweep import safe_name

    assert safe_name("made4") == "made4" and safe_name("dealer_advantage") == "dealer_advantage"
    assert safe_name("é") != safe_name("è") and safe_name("é").startswith("_")
    assert all(c.isascii() and (c.isalnum() or c in "_-") for c in safe_name("é <x>"))


def test_a_report_killed_half_way_into_a_new_folder_is_written_over(runs, tmp_path):
    """A new report folder is marked as a report's from the start (a page saying it is being
    written), so a report killed half-way (kill -9: its lock gone, some files written) is
    written over by the rerun (before: 'is not empty and holds no report', for good)."""
    from analysis.report import page

    out = tmp_path / "killed"
    page.report_folder(out)
    lock, _ = page._HELD.pop()
    lock.release()  # the process is gone; what it wrote stays
    (out / "scores.png").write_bytes(b"half a plot")
    assert "report being written" in (out / "index.html").read_text()
    assert build_report(runs["bridgette"], out) == out / "index.html"
    assert "report being written" not in (out / "index.html").read_text()
    assert (out / "scores.png").read_bytes()[:4] == b"\x89PNG"
    # Killed earlier still, as it wrote that first page: only its temporary and its lock are
    # left, which were taken for a stranger's files ("holds no report", for good). A dead
    # writer's temporaries go; the report is written.
    import re

    from sim.store import temporary

    early = tmp_path / "early"
    early.mkdir()
    (early / ".lock").write_bytes(b"")
    for name in ("index.html", "scores.png"):  # a writer on this machine whose process is gone
        (early / re.sub(r"-\d+-", "-999999999-", temporary(early / name).name)).write_bytes(b"")
    assert build_report(runs["bridgette"], early) == early / "index.html"
    assert not [p.name for p in early.iterdir() if p.name.endswith(".tmp")]


def test_a_default_report_folder_is_shown_as_a_runs_is(tmp_path, monkeypatch):
    """A comparison's, a sweep's or a multilevel report's default folder is found as an
    absolute path; its page is shown relative to the current folder where it lies within
    it, as a run's report is (runs/first/report/index.html), and elsewhere as it is."""
    from analysis.report import _shown

    monkeypatch.chdir(tmp_path)
    page = Path.cwd() / "runs" / "b" / "report-vs-a" / "index.html"
    assert _shown(page) == Path("runs/b/report-vs-a/index.html")
    assert _shown(Path("/elsewhere/report/index.html")) == Path("/elsewhere/report/index.html")
    assert _shown(Path("runs/first/report/index.html")) == Path("runs/first/report/index.html")
