"""Custom metrics (sim.custom): expressions over the deal or game columns, checked
against the builtin metrics they restate, against pandas over a run's records, and for
every bad input through the command lines."""

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from analysis.compare import main as compare_main
from sim.comparison import compare_runs
from sim.custom import split_items
from sim.metrics import MetricsError, parse_metrics
from sim.ratio import PairedMoments
from sim.store import read_sealed
from sim.summary import wilson
from sim.sweep import main as sweep_main
from tests.commands import as_process
from tests.test_metrics import DEALS_A, GAMES_A, fake_run

Z = 1.959963984540054
ADVANTAGE = "mean(score0 - score1 if dealer == 0 else score1 - score0)"  # two seats: the dealer's side is its seat
# The builtin metrics written as custom ones, for the two-player games.
RESTATED = {
    "dealer_advantage": ADVANTAGE,
    "contract_made": "mean(made) where level >= 0",
    "first_dealer_wins": "mean(winner == first_dealer)",
    "mean_score": "sum(score0 + score1) / sum(2)",
    "deals_per_game": "mean(deals)",
}
NUMBERS = ("a", "a_ci95", "b", "b_ci95", "diff", "ci95", "unpaired_ci95", "variance_reduction", "games", "paired")


def same_numbers(builtin: dict, custom: dict) -> None:
    assert {k: custom[k] for k in NUMBERS} == {k: builtin[k] for k in NUMBERS}


# --- Grammar and hand-made runs ---------------------------------------------------------------

def test_items_split_at_commas_outside_parentheses_and_quotes():
    text = "dealer_advantage, m = mean(made) where bid in ('4', '5'), x = mean(max(tricks0, tricks1)), y = mean(s == ',')"
    assert split_items(text) == ["dealer_advantage", "m = mean(made) where bid in ('4', '5')",
                                 "x = mean(max(tricks0, tricks1))", "y = mean(s == ',')"]
    # Builtin names and custom definitions mix, over one flag or a repeated one.
    assert parse_metrics(["contract_made", "m4=mean(made) where level == 4 balance 0.5"]) == [
        "contract_made", "m4 = mean(made) where level == 4 balance 0.5"]


@pytest.mark.parametrize("builtin", list(RESTATED))
def test_a_builtin_metric_restated_gives_identical_values_and_intervals(builtin, tmp_path):
    """B changes game 2 and is cut into other blocks: the pairing and every number match."""
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", DEALS_A[:4] + [(2, 0, 200, 0, 0, True)], GAMES_A[:2] + [(2, 0, 1, 0)], block_size=1)
    r = compare_runs(a, b, [builtin, f"mine = {RESTATED[builtin]}"])["metrics"]
    same_numbers(r[builtin], r["mine"])
    assert r["mine"]["definition"] == RESTATED[builtin] and r["mine"]["label"] == f"mine = {RESTATED[builtin]}"
    assert r["mine"]["percent"] == r[builtin]["percent"]


@pytest.mark.parametrize("builtin, text", [("first_dealer_wins", "sum(winner == first_dealer) / sum(1)"),
                                           ("contract_made", "sum(made) / sum(1) where level >= 0")])
def test_a_rate_written_as_a_count_over_rows_is_a_share_too(builtin, text, tmp_path):
    """sum(COND) / sum(1) is mean(COND): the same numbers as the builtin rate, intervals cut
    to [0, 1] alike (before: 0.75 [0.38, 1.12] where the builtin read 0.75 [0.38, 1.00]; the
    first dealer's wins, one a game, take Wilson's interval, inside [0, 1] as it is); a ratio
    of two counts is not cut (its value may pass 1)."""
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", DEALS_A[:4] + [(2, 0, 200, 0, 0, False)], GAMES_A[:2] + [(2, 0, 1, 0)], block_size=1)
    r = compare_runs(a, b, [builtin, f"mine = {text}", "twice = sum(level >= 0) / sum(made)"])["metrics"]
    same_numbers(r[builtin], r["mine"])
    assert r["mine"]["percent"] and r["mine"]["a_ci95"] == r[builtin]["a_ci95"]
    assert r["mine"]["a_ci95"][1] == (1.0 if builtin == "contract_made" else wilson(2, 3)[1])
    assert r["twice"]["percent"] and r["twice"]["b"] > 1 and r["twice"]["b_ci95"][1] > 1

def test_game_columns_on_deal_rows_and_rows_by_hand(tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    r = compare_runs(a, a, [
        f"first0 = {ADVANTAGE} where first_dealer == 0",   # games 0 and 2: +100, +50, +400 over 3 deals
        "drawn = mean(made) where winner == -1 and level >= 0",  # game 2's one contract, made
        "big = sum(score0 + score1 > 250) / sum(level >= 0)",   # 300 and 400 of 4 contracts
        "m = mean(abs(score0 - score1) // 100 % 3 + min(level, 1, 2) * -1)",
    ])["metrics"]
    assert r["first0"]["a"] == pytest.approx(550 / 3) and r["first0"]["unit"] == "per deal"
    assert r["drawn"]["a"] == 1 and r["drawn"]["percent"] and r["drawn"]["unit"] == "share of deals"
    assert r["big"]["a"] == 0.5 and r["big"]["percent"]
    # |score| // 100 % 3: 1, 0, 2, 0, 1; min(level, 1, 2): 1, -1, 1, 1, 0.
    assert r["m"]["a"] == pytest.approx((4 - 2) / 5) and not r["m"]["percent"]


def test_large_values_stay_exact():
    """Per-game sums whose squares overflow int64 are summed as Python integers."""
    rng = np.random.default_rng(3)
    y = rng.integers(-2**40, 2**40, size=50)
    n = rng.integers(1, 2**35, size=50)
    m = PairedMoments()
    m.add(y, n, y, n)
    assert m.s[0] == sum(int(v) for v in y) and m.ss[0][1] == sum(int(p) * int(q) for p, q in zip(y, n))
    assert m.result()["a"] == float(Fraction(sum(int(v) for v in y), sum(int(v) for v in n)))


def test_a_ratios_sums_stay_exact_past_int64(tmp_path):
    """ratio_sums squared per-game sums in int64: past about 3e9 a game they wrapped in
    silence, and a metric scaled by a million had an interval of no width (analysis.compare
    then said "B lower" where the same metric unscaled showed no difference). The sums are
    exact, and a scaled metric's interval is the metric's, scaled."""
    import analysis
    import sim
    from sim.ratio import ratio_sums

    y = np.array([3_000_000_000, -5_000_000_000, 6 * 2**40])
    assert ratio_sums(y, np.ones(3))["yy"] == sum(int(v) ** 2 for v in y)
    run = sim.simulate(games=30, seed=3, out=tmp_path / "run")
    plain, scaled = (analysis.interval(run, f"m = mean(total0 * {k})") for k in (1, 1_000_000))
    assert scaled["ci95"] == pytest.approx([1_000_000 * x for x in plain["ci95"]], rel=1e-9)
    assert scaled["ci95"][1] - scaled["ci95"][0] > 1e8


def test_a_long_number_and_a_line_break_are_named_in_one_line(tmp_path):
    """A 5,000-digit number gave Python's own words on its integer limit; a quoted value
    holding an escaped line break was quoted with the break itself, two lines."""
    import analysis
    import sim

    run = sim.simulate(games=5, out=tmp_path / "run")
    for text, words in (("m = mean(" + "9" * 5000 + ")", "holds a number of 5,000 digits"),
                        ("m = mean(upcard_group == 'ac\\ne')", "has no value 'ac\\ne'")):
        with pytest.raises(MetricsError) as caught:
            analysis.interval(run, text)
        assert words in str(caught.value) and "\n" not in str(caught.value)
    # A 100,000-letter column name was quoted whole: the line keeps its start and its end.
    with pytest.raises(MetricsError) as caught:
        analysis.interval(run, "m = mean(" + "a" * 100_000 + ")")
    assert str(caught.value).startswith("metric 'm': no column 'aaa") and str(caught.value).endswith("abandoned)")
    assert "characters left out" in str(caught.value) and len(str(caught.value)) < 2_100


# --- Real runs against pandas ---------------------------------------------------------------

def ratio(y: pd.Series, n: pd.Series, games: int):
    """R = sum(y) / sum(n) over games (a game without rows counts 0, 0) and its variance."""
    y = y.reindex(range(games), fill_value=0).to_numpy(np.int64)
    n = n.reindex(range(games), fill_value=0).to_numpy(np.int64)
    r = y.sum() / n.sum()
    nbar = n.sum() / games
    return r, (y - r * n) / nbar


def interval(centre, residuals):
    half = Z * math.sqrt((residuals ** 2).sum() / (len(residuals) * (len(residuals) - 1)))
    return [centre - half, centre + half]


def advantage(deals, sides=lambda dealer: dealer):
    diff = deals["score0"].astype(np.int64) - deals["score1"]
    return diff.where(sides(deals["dealer"]) == 0, -diff)


@pytest.fixture(scope="module")
def bridgette_runs(tmp_path_factory):
    """Seed 7 with the up-card to the non-dealer (default) and to the dealer: a paired pair."""
    import sim

    out = tmp_path_factory.mktemp("custom")
    a = sim.simulate(games=600, seed=7, out=out / "a", block_size=250)
    b = sim.simulate(games=600, seed=7, rules="bridgette-upcard-dealer", out=out / "b", block_size=200)
    return a, b


def test_filtered_make_rate_and_ace_advantage_against_pandas(bridgette_runs):
    a, b = bridgette_runs
    metrics = ["made4 = mean(made) where level == 4",
               f"ace = {ADVANTAGE} where upcard_group == 'ace'"]
    result = compare_runs(a.path, b.path, metrics)["metrics"]
    per_run = []
    for run in (a, b):
        deals = run.deals(["game", "level", "made", "dealer", "score0", "score1", "upcard_group"])
        fours = deals[deals["level"] == 4]
        aces = deals[deals["upcard_group"] == "ace"].assign(adv=advantage)
        per_run.append({"made4": ratio(fours.groupby("game")["made"].sum(), fours.groupby("game").size(), 600),
                        "ace": ratio(aces.groupby("game")["adv"].sum(), aces.groupby("game").size(), 600)})
    for name, r in result.items():
        (ra, ea), (rb, eb) = per_run[0][name], per_run[1][name]
        assert r["a"] == pytest.approx(ra, rel=1e-12) and r["b"] == pytest.approx(rb, rel=1e-12), name
        assert r["a_ci95"] == pytest.approx(interval(ra, ea), rel=1e-9), name
        assert r["b_ci95"] == pytest.approx(interval(rb, eb), rel=1e-9), name
        # Paired game by game: the variance of B - A from the per-game residuals of both runs.
        assert r["paired"] and r["ci95"] == pytest.approx(interval(rb - ra, eb - ea), rel=1e-9), name
    # The up-card-is-an-ace advantage is the summary's, which counts a real ace (the Colons apart).
    ace = next(g for g in a.summary["dealer_advantage"]["by_upcard"] if g["upcard"] == "ace")
    assert result["ace"]["a"] == pytest.approx(ace["value"], rel=1e-12)
    assert result["ace"]["a_ci95"] == pytest.approx(ace["ci95"], rel=1e-9)


def test_builtins_restated_on_real_runs(bridgette_runs):
    a, b = bridgette_runs
    result = compare_runs(a.path, b.path, [*RESTATED, *(f"my_{k} = {v}" for k, v in RESTATED.items())])["metrics"]
    for builtin in RESTATED:
        same_numbers(result[builtin], result[f"my_{builtin}"])


def test_bid_euchre_bid_of_4_and_void_hands(tmp_path):
    """Ace-no-face (E-3) voids hands: their ``made`` is null and counts in neither sum."""
    import sim

    run = sim.simulate(game="bid-euchre", games=400, seed=5, rules="bid-euchre-ace-no-face", out=tmp_path / "e",
                       block_size=150)
    deals = run.deals(["game", "bid", "made", "dealer", "score0", "score1"])
    assert deals["made"].isna().sum() > 20
    team = "mean(score0 - score1 if dealer % 2 == 0 else score1 - score0)"  # partners 0+2 and 1+3
    r = compare_runs(run.path, run.path, ["bid4 = mean(made) where bid == '4'", "contract_made", "bids = mean(made)",
                                          "dealer_advantage", f"team = {team}"])["metrics"]
    fours = deals[deals["bid"] == "4"]
    r4, e4 = ratio(fours.groupby("game")["made"].sum().astype(np.int64), fours.groupby("game").size(), 400)
    assert r["bid4"]["a"] == pytest.approx(r4, rel=1e-12) and r["bid4"]["unit"] == "share of hands"
    assert r["bid4"]["a_ci95"] == pytest.approx(interval(r4, e4), rel=1e-9)
    same_numbers(r["contract_made"], r["bids"])
    same_numbers(r["dealer_advantage"], r["team"])


# --- Bad input: one line, exit status 2 ------------------------------------------------------

@pytest.mark.parametrize("metric,message", [
    ("m = mean(levle)", "metric 'm': no column 'levle' in the records; did you mean 'level'?"),
    ("m = mean(made", "a parenthesis or a quote is not closed"),
    ("m = mean(made) where level ==", "metric 'm': cannot read 'level =='"),
    ("m = made", "a custom metric is NAME = mean(EXPR) or NAME = sum(EXPR) / sum(EXPR)"),
    ("mean(made) where level == 4", "a custom metric needs a name: NAME = mean(made) where level == 4"),
    ("dealer_advantage = mean(made)", "custom metric 'dealer_advantage' has a builtin metric's name"),
    ("m = mean(made), m = mean(level)", "lists the metric 'm' twice"),
    ("m = mean(made) where level == 7", "metric 'm' divides by a sum of 0 in"),
    ("m = sum(made) / sum(level > 9)", "sum(level > 9) is 0"),
    ("m = mean(made) where level == '4'", "'level' holds numbers: compare it with a number, not the quoted '4'"),
    ("m = mean(made) where level == 4 & made", "& and | join conditions"),
    ("m = mean(score0 / 2)", "write a ratio as sum(A) / sum(B)"),
    ("m = mean(score0 * 0.5)", "numbers in a metric are whole"),
    ("m = mean(score0 > 0x1f)", "'0x1f' is no number as a metric writes one: decimal digits"),  # 31 before
    ("m = mean(score0 > 1) where total0 > 0B1", "'0B1' is no number as a metric writes one"),
    ("m = mean(__import__('os').getcwd())", "is not allowed in a metric"),
    ("m = mean(open('x'))", "unknown function 'open'"),
    ("m = mean(abs(x=level))", "abs() takes its values as written, in order"),  # "unknown function 'abs'"
    ("m = mean(level))", "a ')' closes a parenthesis that was never opened"),  # "not closed"
    ("m = mean(made) where level", "'level' is not a condition"),
    ("m = mean(score0 // (level - level))", "division by zero"),
    # Whole numbers stay within 2**40 either way, so no value wraps around in 64 bits.
    ("m = mean(score0 * 9223372036854775807)", "'9223372036854775807' goes beyond the whole numbers"),
    ("m = mean(abs(-9223372036854775808))", "'9223372036854775808' goes beyond the whole numbers"),
    ("m = mean(level in (1, 99999999999999999999))", "'99999999999999999999' goes beyond the whole numbers"),
    ("m = mean(score0 * 1000000 * 1000000)", "'score0 * 1000000 * 1000000' goes beyond the whole numbers"),
    ("m = mean(level * 1099511627776 + 1099511627776)", "goes beyond the whole numbers"),
    ("m = mean(1" + "0" * 320 + ")", "goes beyond the whole numbers"),  # past the floats: no OverflowError
    ("m = mean(made) where level in (1, 1" + "0" * 309 + ")", "goes beyond the whole numbers"),
    ("m = mean(score0 // (level - level) if level > 99 else 0)", "a condition inside it does not guard it"),
    ("contracts_made", "unknown metric 'contracts_made'; did you mean 'contract_made'?"),
])
def test_bad_metrics_in_compare(metric, message, tmp_path, capsys):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    assert compare_main([str(a), str(a), "--metrics", metric]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("python -m analysis.compare: error: ")
    with pytest.raises(MetricsError):  # the Python API raises the module's error class
        compare_runs(a, a, metric)


def test_records_a_run_did_not_keep(tmp_path, capsys):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    games = fake_run(tmp_path / "g", [], GAMES_A, block_size=2, records="games")
    bare = fake_run(tmp_path / "n", [], GAMES_A, block_size=2, records="none")
    for runs, metric, message in [
        ((games, games), "m = mean(made)", f"metric 'm': no column 'made' in the game records; {games} kept no "
                                           f"deal records (--records games), and deal columns need --records deals"),
        ((a, games), "w = mean(winner == first_dealer), m = mean(made)",
         f"metric 'm' needs deal records, which {games} did not keep (--records games)"),
        ((a, bare), "w = mean(winner == first_dealer)", f"metric 'w' reads the records, which {bare} did not keep "
                                                         f"(--records none)"),
    ]:
        assert compare_main([*map(str, runs), "--metrics", metric]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    # Game columns alone are read from game records.
    assert compare_main([str(a), str(games), "--metrics", "w = mean(winner == first_dealer)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["w"]["diff"] == 0


def test_the_command_line_never_shows_a_traceback(tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    run = as_process("analysis.compare", a, a, "--metrics", "m = mean(made) where strain == 'NT'")
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "no column 'strain' in the records; did you mean" not in run.stderr  # no close name: columns listed
    assert "no column 'strain' in the records (columns: game, dealer" in run.stderr


@pytest.mark.parametrize("argv,message,played", [
    (["--metrics", "m = mean(made"], "a parenthesis or a quote is not closed", False),
    (["--metrics", "contract_made = mean(made)"], "has a builtin metric's name", False),
    (["--metrics", "m = mean(made)", "--records", "none"], "which --records none does not keep", False),
    (["--metrics", "m = mean(upcard_group == 'aces')"], "'upcard_group' has no value 'aces'; did you mean 'ace'?",
     True),
    (["--metrics", "m = mean(made)", "--records", "games"], "no column 'made' in the game records", True),
])
def test_bad_metrics_in_a_sweep(argv, message, played, tmp_path, capsys):
    """Grammar is checked before anything is played; columns on the first setting's records,
    before the other settings are played."""
    out = tmp_path / "sweep"
    assert sweep_main(["--vary", "exchange.nondealer_draw=2,8", "--games", "20", "--out", str(out), "--quiet",
                       *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    if played:
        assert sorted(p.name for p in out.iterdir()) == ["00-exchange.nondealer_draw=2"]
    else:
        assert not out.exists()


# --- A sweep reports custom metrics as builtin ones -------------------------------------------

def test_a_sweep_with_custom_metrics(tmp_path, capsys):
    """The non-dealer's draw balances the dealer's advantage (README): the restated metric
    with ``balance 0`` crosses where the builtin does; every table carries the custom ones."""
    out = tmp_path / "sweep"
    argv = ["--vary", "exchange.nondealer_draw=2,8", "--games", "300", "--block-size", "120", "--out", str(out),
            "--quiet", "--metrics", f"dealer_advantage,adv = {ADVANTAGE} balance 0",
            "--metrics", "made4 = mean(made) where level == 4"]
    assert sweep_main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["metrics"] == ["dealer_advantage", "adv", "made4"]
    assert result["custom_metrics"]["made4"] == {"definition": "mean(made) where level == 4", "balance": None,
                                                 "label": "made4 = mean(made) where level == 4",
                                                 "unit": "share of deals", "percent": True}
    for row in result["settings"]:
        builtin, mine = row["metrics"]["dealer_advantage"], row["metrics"]["adv"]
        assert mine == builtin
    assert result["balance_point"]["adv"] == result["balance_point"]["dealer_advantage"]
    assert result["balance_bracket"]["adv"] == result["balance_bracket"]["dealer_advantage"]
    # The same make rate as analysis.compare gives on the two settings' runs.
    runs = [row["run"] for row in result["settings"]]
    made4 = compare_runs(*runs, ["made4 = mean(made) where level == 4"])["metrics"]["made4"]
    assert result["settings"][1]["metrics"]["made4"]["diff"] == made4["diff"]
    assert result["settings"][1]["metrics"]["made4"]["ci95"] == made4["ci95"]
    rows = (out / "sweep.csv").read_text().splitlines()
    assert [r.split(",")[1:3] for r in rows[1:4]] == [["dealer_advantage", "points per deal"], ["adv", "per deal"],
                                                      ["made4", "share of deals"]]
    assert read_sealed(out / "sweep.json") == result
    assert (out / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    # The printed tables: the metric in words, its values and its balance point.
    assert sweep_main(argv) == 0
    table = capsys.readouterr().out
    assert "made4 = mean(made) where level == 4 (share of deals):" in table
    assert f"adv = {ADVANTAGE} (per deal):" in table
    assert f"balance point: adv = {ADVANTAGE} crosses 0.00 at exchange.nondealer_draw = " in table


def test_a_dollar_in_a_metric_is_drawn_as_written(tmp_path, capsys):
    """matplotlib read $...$ in a label as maths: a comment holding $\\frac$ stopped the sweep
    with a traceback before its tables were saved, and the report likewise."""
    from analysis.report import main as report_main

    metric = r"y = mean(made) # costs $\frac$"
    out = tmp_path / "sweep"
    assert sweep_main(["--vary", "exchange.dealer_draw_ace=4,8", "--games", "5", "--out", str(out), "--quiet",
                       "--metrics", metric]) == 0
    assert {"sweep.json", "sweep.csv", "sweep.png"} <= {p.name for p in out.iterdir()}
    assert report_main([str(out), "--out", str(tmp_path / "report")]) == 0
    assert "Traceback" not in capsys.readouterr().err
