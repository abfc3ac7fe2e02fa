"""What a game designer compares and computes: paired and unpaired comparisons of deal runs,
dealer-relative record columns, custom metrics by group, a variant selecting its game,
one deal of a run shown, and intervals from Python."""

import json
import math

import numpy as np
import pytest

from analysis.compare import main as compare_main
from sim.comparison import compare_runs
from sim.store import read_sealed
from sim.summary import wilson
from tests.commands import as_process, in_process
from tests.test_metrics import DEALS_A, GAMES_A, Z, fake_run


@pytest.fixture(scope="module")
def colon_runs(tmp_path_factory):
    """Deal runs of seed 3 with the Grand Colon dealt to the dealer (seat 0) or to the
    non-dealer, and one of another seed and size."""
    import sim
    from sim.dealing import parse

    root = tmp_path_factory.mktemp("colon")
    runs = {}
    for name, seat, seed, n in (("dealer", 0, 3, 600), ("nondealer", 1, 3, 600), ("other", 1, 4, 400)):
        dealing = parse("deals", dealer=0, predeal=[f"{seat}=CG"])
        runs[name] = sim.simulate(games=n, seed=seed, dealing=dealing, out=root / name, block_size=250)
    return runs


# --- 1. Paired and unpaired comparisons --------------------------------------------------------

def test_runs_of_other_sizes_compare_unpaired_with_welchs_interval(tmp_path, capsys):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", DEALS_A[:4], GAMES_A[:2], block_size=2, seed=9)
    r = compare_runs(a, b, ["dealer_advantage"])
    assert not r["paired"] and r["sizes"] == [3, 2] and r["seeds"] == [5, 9] and r["games"] is None
    d = r["metrics"]["dealer_advantage"]
    # A: R = 10, Var 26364 (tests/test_metrics). B: games (150, 2), (-500, 2): R = -87.5,
    # residuals y - R n = 325, -325: Var = 211250 / (2^2 * 2 * 1) = 26406.25.
    # B - A = -97.5, Var = 26364 + 26406.25 = 52770.25, against a paired one it could not have.
    assert (d["a"], d["b"], d["diff"], d["paired"], d["variance_reduction"]) == (10, -87.5, -97.5, False, None)
    half = Z * math.sqrt(52770.25)
    assert d["ci95"] == pytest.approx([-97.5 - half, -97.5 + half])
    assert d["b_ci95"] == pytest.approx([-87.5 - Z * math.sqrt(26406.25), -87.5 + Z * math.sqrt(26406.25)])
    assert compare_main([str(a), str(b), "--metrics", "dealer_advantage"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("bridgette: UNPAIRED (different seed (5 and 9)")
    lines = table.splitlines()
    assert lines[4] == "  answers, B - A with its 95% interval (unpaired):"
    assert any(line.startswith("95% intervals of B - A unpaired") for line in lines) and "Welch" in table
    assert compare_main([str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paired"] is False


def test_deal_runs_under_other_conditions_pair_deal_by_deal(colon_runs, capsys):
    a, b = colon_runs["dealer"], colon_runs["nondealer"]
    r = compare_runs(a.path, b.path)
    assert r["paired"] and r["unit"] == "deals" and "conditions" in r["pairing"]
    assert "deals_per_game" not in r["metrics"]
    # Independently: each deal's dealer advantage from the records, differenced deal by deal.
    adv = []
    for run in (a, b):
        d = run.deals(["game", "dealer", "score0", "score1"]).sort_values("game")
        adv.append(np.where(d["dealer"] == 0, d["score0"] - d["score1"], d["score1"] - d["score0"]))
    diff = adv[1] - adv[0]
    m = r["metrics"]["dealer_advantage"]
    assert m["diff"] == pytest.approx(diff.mean())
    half = Z * diff.std(ddof=1) / math.sqrt(len(diff))
    assert m["ci95"] == pytest.approx([diff.mean() - half, diff.mean() + half])
    assert compare_main([str(a.path), str(b.path)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("bridgette: 600 deals, seed 3, paired deal by deal")
    assert "deals per game" not in table and "games" not in table and "dealer's deal win rate (share of deals)" in table


def test_deal_runs_of_another_seed_compare_unpaired(colon_runs):
    a, b = colon_runs["dealer"], colon_runs["other"]
    m = compare_runs(a.path, b.path, ["dealer_advantage"])["metrics"]["dealer_advantage"]
    va, vb = ((x["ci95"][1] - x["value"]) / Z for x in (a.summary["dealer_advantage"], b.summary["dealer_advantage"]))
    half = Z * math.hypot(va, vb)
    assert not m["paired"] and m["ci95"] == pytest.approx([m["diff"] - half, m["diff"] + half])


# --- 2. Dealer-relative record columns ------------------------------------------------------

@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_dealer_columns_agree_with_the_builtin_dealer_advantage(game, tmp_path):
    import sim

    run = sim.simulate(game, games=60, seed=4, out=tmp_path / game, block_size=25)
    d = run.deals()
    # The builtin metric finds the dealer's side from the game's declaration (seat_sides).
    r = compare_runs(run.path, run.path, ["dealer_advantage", "mine = mean(score_dealer - score_nondealer)",
                                          "tricks = mean(tricks_dealer + tricks_nondealer == tricks0 + tricks1)"])
    m = r["metrics"]
    assert m["mine"]["a"] == m["dealer_advantage"]["a"] and m["mine"]["a_ci95"] == m["dealer_advantage"]["a_ci95"]
    assert m["tricks"]["a"] == 1
    assert set(zip(d["score_dealer"], d["score_nondealer"])) - {(0, 0)}  # not all passed out
    if game == "bid-euchre":
        bid = d[d["bid"] != "pass"]
        assert (bid["bidder_is_dealer_team"] == bid["bidder_from_dealer"].isin([0, 2])).all()
        assert d.loc[d["bid"] == "pass", "bidder_is_dealer_team"].isna().all()
    else:
        made = run.summary["made_by_declarer"]
        assert (d["declarer_is_dealer"] == True).sum() == made["dealer"]["n"]  # noqa: E712 (null is neither)
        assert (d["declarer_is_dealer"] == False).sum() == made["non_dealer"]["n"]  # noqa: E712
        rate = compare_runs(run.path, run.path, ["m = mean(made) where declarer_is_dealer"])["metrics"]["m"]["a"]
        assert rate == pytest.approx(made["dealer"]["rate"])
    if game == "draw-bridge":
        assert (d["draw_tricks_dealer"] == np.where(d["dealer"] == 0, d["draw_tricks0"], d["draw_tricks1"])).all()


# --- 3. Custom metrics by group, and expressions nested too deeply ---------------------------

def ratio_by_hand(frame, y, n):
    """R = sum(y) / sum(n) over games with its 95% interval, from per-game sums in pandas."""
    per = frame.assign(y=y, n=n).groupby("game")[["y", "n"]].sum()
    r = per["y"].sum() / per["n"].sum()
    g = len(per)
    var = ((per["y"] - r * per["n"]) ** 2).sum() / ((per["n"].sum() / g) ** 2 * g * (g - 1))
    return r, [r - Z * math.sqrt(var), r + Z * math.sqrt(var)]


def test_by_gives_each_group_its_value_and_interval(colon_runs, capsys):
    a, b = colon_runs["dealer"], colon_runs["nondealer"]
    metric = "made_rate = mean(made) where level >= 0 by upcard_class"
    r = compare_runs(a.path, b.path, [metric, "contract_made"])["metrics"]
    deals = a.deals(["game", "upcard_class", "level", "made"])
    played = deals[deals["level"] >= 0]
    # Every contract played has exactly one up-card class, so contract_made is what the groups add up to.
    groups = [v for v in ("numeral", "face", "ace", "colon") if (played["upcard_class"] == v).any()]
    assert [k for k in r if k.startswith("made_rate")] == [f"made_rate[{v}]" for v in groups]
    for v in groups:  # a deal run: each deal its own game, one contract at most, so Wilson's interval
        chosen = played[played["upcard_class"] == v]
        value, _ = ratio_by_hand(deals, (deals["level"] >= 0) & (deals["upcard_class"] == v) & deals["made"],
                                 (deals["level"] >= 0) & (deals["upcard_class"] == v))
        entry = r[f"made_rate[{v}]"]
        assert (entry["by"], entry["group"], entry["paired"]) == ("upcard_class", v, True)
        assert entry["a"] == pytest.approx(value) and entry["a_ci95"] == pytest.approx(
            wilson(int(chosen["made"].sum()), len(chosen)))
    assert sum(r[f"made_rate[{v}]"]["a"] * (played["upcard_class"] == v).sum() for v in groups) / len(played) \
        == pytest.approx(r["contract_made"]["a"])
    assert compare_main([str(a.path), str(b.path), "--metrics", metric]) == 0
    assert "made_rate = mean(made) where level >= 0 by upcard_class: face (share of deals)" in capsys.readouterr().out


def test_a_group_empty_in_one_run_has_no_value_there(tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", [d[:4] + (d[4] if d[4] != 3 else 2,) + d[5:] for d in DEALS_A], GAMES_A,
                 block_size=2)
    r = compare_runs(a, b, ["m = mean(score0) by level"])["metrics"]
    # Levels -1, 0, 1, 2, 3 in A; B has no level 3 (its deal is a level 2 there).
    assert list(r) == ["m[-1]", "m[0]", "m[1]", "m[2]", "m[3]"]
    assert (r["m[3]"]["a"], r["m[3]"]["b"], r["m[3]"]["diff"]) == (0, None, None)
    assert (r["m[2]"]["a"], r["m[2]"]["b"]) == (200, 100)  # B's level 2: 200 and 0


def test_stratified_runs_report_each_group(tmp_path):
    import sim

    out = tmp_path / "strata"
    result = in_process("sim.run", "--deals", "900", "--stratify", "upcard_class", "--metrics",
                        "m = mean(made) where level >= 0 by declarer_is_dealer", "--quiet", "--out", out)
    assert result.returncode == 0, result.stderr
    metrics = read_sealed(out / "strata.json")["metrics"]
    assert list(metrics) == ["m[False]", "m[True]"]
    for i, name in enumerate(("numeral", "face", "ace")):
        d = sim.load_run(out / f"stratum-{name}").deals(["game", "level", "made", "declarer_is_dealer"])
        d = d[d["level"] >= 0]
        for who in (False, True):
            assert metrics[f"m[{who}]"]["by_stratum"][i]["value"] == \
                pytest.approx(d.loc[d["declarer_is_dealer"] == who, "made"].mean())


@pytest.mark.parametrize("expression", ["(" * 10_000 + "made" + ")" * 10_000, " + ".join(["made"] * 10_000),
                                        "not " * 10_000 + "made", "-" * 10_000 + "level"])
def test_an_expression_nested_too_deeply_is_one_line(expression, tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    result = as_process("analysis.compare", a, a, "--metrics", f"m = mean(made) where {expression}"
                        if "not" in expression else f"m = mean({expression})", timeout=60)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and len(result.stderr) < 300
    assert "nested" in result.stderr


def test_an_expression_nested_150_deep_still_counts(tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    r = compare_runs(a, a, ["m = mean(" + "-" * 150 + "level)", "n = mean(level)"])["metrics"]
    assert r["m"]["a"] == r["n"]["a"] == 1  # levels -1, 2, 3, 0 and 1 over 5 deals (hand count: 5 / 5)


@pytest.mark.parametrize("metric,message", [
    ("m = mean(made) by 3", "'by' takes one column name"),
    ("m = mean(made) by level + 1", "'by' takes one column name"),
    ("m = mean(made) by levle", "no column 'levle' in the records; did you mean 'level'?"),
    ("m = mean(made) by score0", "'score0' takes more than 60 values"),
])
def test_bad_groups_are_one_line(metric, message, tmp_path, capsys):
    deals = [(g, 0, 10 * g, 0, 1, True) for g in range(70)]
    a = fake_run(tmp_path / "a", deals, [(g, 0, 1, 0) for g in range(70)], block_size=30)
    assert compare_main([str(a), str(a), "--metrics", metric]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_a_sweep_refuses_groups_in_one_line(tmp_path, capsys):
    from sim.sweep import main as sweep_main

    assert sweep_main(["--vary", "exchange.dealer_draw_ace=4,8", "--games", "10", "--out", str(tmp_path / "s"),
                       "--metrics", "m = mean(made) by level"]) == 2
    assert "a sweep takes no 'by level'" in capsys.readouterr().err and not (tmp_path / "s").exists()


# --- 5. A variant selects its game ----------------------------------------------------------

def play(*args) -> int:
    """python -m sim.run with ``args``, in this process."""
    from sim.run import main

    return main([str(a) for a in args])


def test_a_shipped_variant_selects_its_game(tmp_path, capsys):
    from sim.show import main as show

    assert play("--rules", "bid-euchre-joker", "--games", "20", "--quiet", "--out", tmp_path / "j") == 0
    config = json.loads((tmp_path / "j" / "manifest.json").read_text())["config"]
    assert config["game"] == "bid-euchre" and config["rules"]["variant"]["joker"] is True
    assert show(["--rules", "draw-bridge-must-follow", "--seed", "1", "--index", "0"]) == 0
    assert capsys.readouterr().out.startswith("Draw Bridge game 0 of seed 1")
    from sim.match import main as match

    assert match(["--rules", "bid-euchre-joker", "--games", "2", "--a", "heuristic", "--b", "random", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "bid-euchre"


def test_a_rules_file_names_its_game_and_a_conflicting_game_is_one_line(tmp_path, capsys):
    rules = tmp_path / "mine.toml"
    rules.write_text('game = "bid-euchre"\n[variant]\njoker = true\n')
    assert play("--rules", rules, "--games", "20", "--quiet", "--out", tmp_path / "m") == 0
    assert json.loads((tmp_path / "m" / "manifest.json").read_text())["config"]["game"] == "bid-euchre"
    capsys.readouterr()
    for source in ("bid-euchre-joker", rules):
        assert play("--rules", source, "--game", "bridgette", "--games", "20", "--out", tmp_path / "x") == 2
        err = capsys.readouterr().err
        assert f"--rules {source} is a bid-euchre variant, not one of bridgette" in err and len(err.splitlines()) == 1
        assert not (tmp_path / "x").exists()
    rules.write_text('game = "poker"\n')
    assert play("--rules", rules, "--games", "20", "--out", tmp_path / "x") == 2
    assert "game = 'poker' is no game" in capsys.readouterr().err


def test_a_rules_file_that_sets_game_options_names_its_game_in_that_table(tmp_path, capsys):
    """``[game] name = "bid-euchre"`` selects the game where the file also sets its [game]
    options (a top-level game = ... cannot stand beside that table in TOML: before, every
    such file was refused with TOML's own words)."""
    rules = tmp_path / "short.toml"
    rules.write_text('[game]\nname = "bid-euchre"\ntarget = 5\n')
    assert play("--rules", rules, "--games", "20", "--quiet", "--out", tmp_path / "m") == 0
    config = json.loads((tmp_path / "m" / "manifest.json").read_text())["config"]
    assert config["game"] == "bid-euchre" and config["rules"]["game"]["target"] == 5
    rules.write_text('game = "bid-euchre"\n[game]\ntarget = 5\n')
    assert play("--rules", rules, "--games", "20", "--out", tmp_path / "x") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and '[game] name = "bid-euchre"' in err
    # A key given twice is named with its line, and not taken for the game's clash (before:
    # the [game] hint followed every key given twice).
    rules.write_text('[exchange]\nnondealer_draw = 2\nnondealer_draw = 3\n')
    assert play("--rules", rules, "--games", "20", "--out", tmp_path / "x") == 2
    assert capsys.readouterr().err == (f"python -m sim.run: error: rules file {rules} is not valid TOML: a key or "
                                       f"table given a second time (at line 3, column 19): 'nondealer_draw = 3'\n")


def test_the_python_api_plays_the_variants_game(tmp_path):
    import sim
    from sim.rules import RulesError

    run = sim.simulate(games=10, rules="bid-euchre-joker", out=tmp_path / "j")
    assert run.manifest["config"]["game"] == "bid-euchre"
    with pytest.raises(RulesError, match="is a bid-euchre variant, not one of draw-bridge"):
        sim.simulate("draw-bridge", games=10, rules="bid-euchre-joker", out=tmp_path / "d")


# --- 6. One deal of a run folder shown --------------------------------------------------------

def shown_rows(run, rows, capsys):
    """sim.show RUN --deal I --json for each row: (contract, declarer, scores) of the deal shown."""
    from sim.show import main as show

    out = []
    for row in rows:
        assert show([str(run.path), "--deal", str(row), "--json"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == 1
        expect = json.loads(lines[0])["expect"]
        out.append((expect["contract"], expect["declarer"], expect["score"]))
    return out


def test_show_a_deal_of_a_conditioned_deal_run(tmp_path, capsys):
    import sim
    from sim.dealing import parse

    dealing = parse("deals", upcard="ace", require=["1:spades>=5"])
    run = sim.simulate(games=120, seed=8, dealing=dealing, out=tmp_path / "d", block_size=50)
    d = run.deals(["game", "contract", "declarer", "score0", "score1"])
    rows = [0, 49, 50, 119]
    expected = [("pass" if d["contract"][i] == "pass" else d["contract"][i],
                 None if d["contract"][i] == "pass" else int(d["declarer"][i]),
                 [int(d["score0"][i]), int(d["score1"][i])]) for i in rows]
    assert shown_rows(run, rows, capsys) == expected
    from sim.show import main as show

    assert show([str(run.path), "--deal", "50"]) == 0
    words = capsys.readouterr().out
    assert "up-card A" in words or "up-card CG" in words  # the conditions held: an ace up-card


def test_show_a_deal_row_of_a_game_run(tmp_path, capsys):
    import sim
    from sim.show import main as show

    run = sim.simulate("draw-bridge", games=30, seed=5, out=tmp_path / "g", block_size=10)
    d = run.deals(["game", "deal", "contract", "declarer", "score0", "score1"])
    rows = [0, 1, len(d) // 2, len(d) - 1]
    assert d["deal"][rows[1]] == 1  # a game's second deal
    expected = [(d["contract"][i], None if d["contract"][i] == "pass" else int(d["declarer"][i]),
                 [int(d["score0"][i]), int(d["score1"][i])]) for i in rows]
    assert shown_rows(run, rows, capsys) == expected
    for argv, message in [([str(run.path), "--deal", str(len(d))], f"holds deal rows 0..{len(d) - 1}"),
                          ([str(run.path), "--deal", "0", "--seed", "3"], "--seed comes from the run folder"),
                          ([str(run.path), "--deal", "0", "--game", "bid-euchre"], "is a draw-bridge run"),
                          ([str(run.path), "--index", "30"], "played games 0..29"),
                          ([str(tmp_path / "none"), "--deal", "0"], "none does not exist"),
                          (["--seed", "1"], "required: --index")]:
        try:
            status = show(argv)
        except SystemExit as exc:
            status = exc.code
        err = capsys.readouterr().err
        assert status == 2 and message in err and len(err.splitlines()) == 1, argv
    from sim.dealing import parse

    dealt = sim.simulate("draw-bridge", games=20, seed=5, out=tmp_path / "d", dealing=parse("deals"))
    assert show([str(dealt.path), "--index", "20"]) == 2  # a deal run's indices are deals, not games
    assert "played deals 0..19" in capsys.readouterr().err


def test_a_folder_another_command_made_is_named_where_a_run_folder_is_due(tmp_path, capsys):
    """sim.show and analysis.compare given a sweep's, a stratified run's, a multilevel or a
    ladder's folder say which it is (before: only 'no manifest.json')."""
    from analysis.compare import main as compare
    from sim.show import main as show

    run = tmp_path / "run"
    assert in_process("sim.run", "--games", "10", "--out", run, "--quiet").returncode == 0
    for marker, words in (("sweep.json", "a sweep's folder"), ("strata.json", "a stratified run's folder"),
                          ("target.npz", "a multilevel folder"), ("ladder.json", "a ladder's folder")):
        folder = tmp_path / marker.split(".")[0]
        folder.mkdir()
        (folder / marker).write_text("{}")
        for command, argv in ((show, [str(folder), "--deal", "0"]), (compare, [str(run), str(folder)])):
            if marker in ("target.npz", "strata.json") and command is compare:
                continue  # compare reads multilevel folders and stratified runs itself (tests/test_strata_compare.py)
            assert command(argv) == 2
            err = capsys.readouterr().err
            assert f"{folder} is not a run folder but {words}" in err and len(err.splitlines()) == 1


# --- 4. Intervals from Python -----------------------------------------------------------------

def test_interval_uses_the_summaries_estimator(tmp_path):
    import analysis
    import sim

    run = sim.simulate(games=300, seed=12, out=tmp_path / "r", block_size=120)
    summary = run.summary["dealer_advantage"]
    whole = analysis.interval(run, "dealer_advantage")
    assert whole["value"] == pytest.approx(summary["value"]) and whole["ci95"] == pytest.approx(summary["ci95"])
    assert (whole["games"], whole["n"]) == (300, summary["deals"])
    # The summary's by_upcard comes from the block aggregates' groups (sim.bridgette.advantage_groups).
    groups = analysis.interval(run.path, "mean(score_dealer - score_nondealer)", by="upcard_group")
    for entry in summary["by_upcard"]:
        if entry["deals"] > 1:
            mine = groups[entry["upcard"]]
            assert mine["value"] == pytest.approx(entry["value"]) and mine["ci95"] == pytest.approx(entry["ci95"])
            assert mine["n"] == entry["deals"]
    # A DataFrame of the records gives the same, its games the units.
    deals = run.deals()
    assert analysis.interval(deals, "mean(score_dealer - score_nondealer)", by="upcard_group") == groups
    assert analysis.interval(deals, "dealer_advantage", game="bridgette") == whole
    made = analysis.interval(deals[deals["level"] >= 0], "made_rate = mean(made)")
    value, ci = ratio_by_hand(deals, (deals["level"] >= 0) & deals["made"], deals["level"] >= 0)
    assert made["value"] == pytest.approx(run.summary["contracts_made"]["rate"]) == pytest.approx(value)
    assert made["ci95"] == pytest.approx(ci)


def test_interval_of_a_run_without_records_and_bad_requests(tmp_path):
    import analysis
    import sim
    from sim.metrics import MetricsError

    bare = sim.simulate(games=50, seed=3, out=tmp_path / "n", records="none")
    entry = analysis.interval(bare, "dealer_advantage")
    assert entry["value"] == pytest.approx(bare.summary["dealer_advantage"]["value"]) and entry["n"] is None
    frame = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    import pandas as pd

    deals = pd.concat([pd.read_parquet(f) for f in sorted((frame / "records").glob("deals-*"))])
    for source, metric, kwargs, message in [
        (bare, "mean(made)", {}, "did not keep (--records none)"),
        (deals.drop(columns="game"), "mean(made)", {}, "no 'game' column"),
        (deals, "dealer_advantage", {}, "needs game="),
        (frame, "dealer_advantage", {"by": "level"}, "by groups an expression"),
        (deals, "mean(levle)", {}, "did you mean 'level'?"),
        (deals, "mean(made", {}, "not closed"),
        (5, "mean(made)", {}, "the source is a run folder's path, a Run or a DataFrame of its records, got 5"),
        (deals[deals.level == 99], "mean(made)", {}, "the DataFrame holds no records"),
        (frame, "dealer_advantag", {}, "unknown metric 'dealer_advantag'; did you mean 'dealer_advantage'?"),
        (deals[deals.level == 99], "dealer_advantage", {"game": "bridgette"}, "the DataFrame holds no records"),
        (deals, "mean(made)", {"by": "level where made"}, "by takes one column's name"),
        (deals.assign(game=deals.game.where(deals.level > 0)), "mean(made)", {}, "game number, a whole number "
                                                                                  "in every row"),
        (deals.assign(game=deals.game.astype(object).where(deals.level > 0, "x")), "mean(made)", {},
         "game number, a whole number in every row"),
        (deals.assign(level=deals.level.astype(object).where(deals.level > 0, "x")), "mean(made)", {},
         "column 'level' mixes kinds of values"),
        (deals.set_axis(pd.MultiIndex.from_tuples([(c, "") for c in deals.columns]), axis=1), "mean(made)", {},
         "several levels"),
        (deals.assign(level=2**41), "mean(level)", {}, "'level' goes beyond the whole numbers"),
    ]:
        with pytest.raises(MetricsError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
            analysis.interval(source, metric, **kwargs)
    with pytest.raises(MetricsError, match="a metric is a builtin name or NAME = EXPRESSION, got 5"):
        compare_runs(frame, frame, 5)
    with pytest.raises(MetricsError, match="a run folder is a path"):
        compare_runs(5, frame, ["contract_made"])
    # By hand (tests/test_metrics): the dealer's advantage of the three games is 10 with Var 26364.
    assert analysis.interval(deals, "dealer_advantage", game="bridgette")["ci95"] == \
        pytest.approx([10 - Z * math.sqrt(26364), 10 + Z * math.sqrt(26364)])
