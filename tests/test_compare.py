"""python -m analysis.compare: paired comparison of two runs of the same seed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.compare import main
from tests.commands import in_process
from tests.test_metrics import DEALS_A, GAMES_A, fake_run

ROOT = Path(__file__).resolve().parents[1]


def compare(*args):
    return in_process("analysis.compare", *args)


def test_hand_made_runs_json_and_table(tmp_path, capsys):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    b = fake_run(tmp_path / "b", DEALS_A[:4] + [(2, 0, 200, 0, 0, True)], GAMES_A, block_size=3)
    assert main([str(a), str(b), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 3 and result["seed"] == 5
    d = result["metrics"]["dealer_advantage"]
    assert (d["a"], d["b"], d["diff"]) == (10, -30, -40) and d["paired"]  # worked out in test_metrics
    assert main([str(a), str(b), "--metrics", "dealer_advantage,contract_made"]) == 0
    table = capsys.readouterr().out
    assert "dealer's advantage per deal" in table and "variance saved" in table and "mean deal" not in table
    assert "-40.00" in table and "95%" in table


def test_a_rate_at_its_bound_on_every_game_takes_wilsons_interval(tmp_path, capsys):
    """Every contract made, in each of the 3 games: a share of no spread had an interval of
    no width in analysis.compare and sweeps ([100%, 100%]), where analysis.interval and a
    plain run give Wilson's over the 3 contracts, [43.85%, 100%]."""
    from sim.summary import wilson

    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    assert main([str(a), str(a), "--metrics", "m = mean(made) where made", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["metrics"]["m"]
    assert m["a"] == m["b"] == 1.0 and m["a_ci95"] == m["b_ci95"] == wilson(3, 3)
    assert wilson(3, 3)[0] == pytest.approx(0.4385, abs=1e-4) and wilson(3, 3)[1] == 1.0


def test_a_column_one_run_lacks_is_named_as_such(tmp_path, capsys):
    """The same deals played with and without --dd: a metric of a double-dummy column was
    refused with pyarrow's words from a Parquet file ("No match for FieldRef"), which read
    as a damaged file; the run that lacks the column is named."""
    import sim
    from sim.dealing import parse

    plain, dd = (sim.simulate(games=30, seed=4, dd=flag, dealing=parse("deals"), out=tmp_path / name).path
                 for name, flag in (("plain", False), ("dd", True)))
    assert main([str(plain), str(dd), "--metrics", "mk = mean(dd_makeable)"]) == 2
    assert capsys.readouterr().err == (f"python -m analysis.compare: error: metric 'mk' reads the column "
                                       f"'dd_makeable', which the records of {plain} do not hold (a run without "
                                       f"--dd keeps no double-dummy columns)\n")


def test_a_group_only_one_run_holds_shows_its_value(tmp_path, capsys):
    """Aces turned up in A, faces in B: each group of upcard_class is in one run only. The
    table showed '-' for both runs (--json had the value); it shows the run's value and
    says which run holds the group."""
    import analysis
    import sim
    from sim.dealing import parse

    for seed_b in (4, 5):  # paired (one seed), and unpaired (another seed)
        a, b = (sim.simulate(games=200, seed=seed, dealing=parse("deals", upcard=up), out=tmp_path / f"{up}{seed}").path
                for up, seed in (("ace", 4), ("face", seed_b)))
        assert main([str(a), str(b), "--metrics", "m = mean(made) by upcard_class"]) == 0
        rows = {line.split(":")[1].split("(")[0].strip(): line.split()
                for line in capsys.readouterr().out.splitlines() if line.startswith("m = mean(made) by upcard_class: ")}
        ace, face = (analysis.interval(run, "m = mean(made)")["value"] for run in (a, b))
        assert rows["ace"][-7:] == [f"{100 * ace:.2f}%", "-", "-", "only", "A", "holds", "it"]
        assert rows["face"][-7:] == ["-", f"{100 * face:.2f}%", "-", "only", "B", "holds", "it"]


def test_unpairable_or_missing_runs_exit_2_with_one_line(tmp_path):
    a = fake_run(tmp_path / "a", DEALS_A, GAMES_A, block_size=2)
    other = fake_run(tmp_path / "o", DEALS_A, GAMES_A, block_size=2, game="draw-bridge")
    for args, message in [((a, other), "different game (bridgette and draw-bridge)"),
                          ((a, tmp_path / "none"), "none does not exist"),
                          ((a, a, "--metrics", "score"), "unknown metric 'score'"),
                          ((a,), "the following arguments are required")]:
        result = compare(*args)
        assert result.returncode == 2, args
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    (a / "manifest.json").write_text("{not json")
    result = compare(a, a)
    assert result.returncode == 2 and "unreadable" in result.stderr


def test_analysis_never_imports_numba():
    code = "import sys, analysis.compare, analysis.intervals; assert 'numba' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_with_and_without_colons(tmp_path):
    """Real runs of seed 7 with and without the Colons (B-4), compared on every metric."""
    import sim

    a = sim.simulate(games=1000, seed=7, out=tmp_path / "colons", block_size=400).path
    b = sim.simulate(games=1000, seed=7, rules="bridgette-no-colons", out=tmp_path / "plain",
                     block_size=300).path
    result = compare(a, b, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    for name, m in out["metrics"].items():
        assert m["paired"] and m["ci95"][0] <= m["diff"] <= m["ci95"][1], name
        assert m["a"] == pytest.approx(m["b"] - m["diff"])
        assert -1 < m["variance_reduction"] < 1
    summary = json.loads((a / "summary.json").read_text())
    assert out["metrics"]["contract_made"]["a"] == summary["contracts_made"]["rate"]
    assert out["metrics"]["first_dealer_wins"]["a"] == summary["first_dealer_wins"]["rate"]
    assert out["metrics"]["deals_per_game"]["a"] == pytest.approx(summary["deals_per_game"]["mean"])
    table = compare(a, b).stdout
    assert table.startswith("bridgette: 1,000 games, seed 7") and "variance saved" in table


def test_runs_that_would_pair_but_kept_no_records_are_said_to_be_unpaired(tmp_path):
    """Two runs of the same seed and size, one kept with --records none: every figure comes
    unpaired from the summaries, and the header and the JSON's top level say so (before:
    'paired game by game' above rows that were all unpaired)."""
    for name, extra in (("a", []), ("n", ["--records", "none"])):
        assert in_process("sim.run", "--games", "20", "--seed", "4", "--out", tmp_path / name, "--quiet",
                          *extra).returncode == 0
    shown = compare(tmp_path / "a", tmp_path / "n")
    assert shown.returncode == 0
    assert shown.stdout.startswith("bridgette: UNPAIRED (the same seed and size, but no metric asked for has the "
                                   "records it needs in both runs")
    assert "paired game by game" not in shown.stdout
    result = json.loads(compare(tmp_path / "a", tmp_path / "n", "--json").stdout)
    assert result["paired"] is False and not any(m["paired"] for m in result["metrics"].values())
