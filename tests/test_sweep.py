"""python -m sim.sweep: grids of rule settings on common random numbers."""

import csv
import io
import json
import os
import time
from pathlib import Path

import pytest

from sim.custom import split_items
from sim.metrics import METRICS
from sim.rules import RulesError
from sim.store import read_sealed
from sim.sweep import SweepError, balance_bracket, balance_point, main, parse_vary, settings_of
from tests.commands import as_process, in_process


def test_values_split_outside_brackets_and_read_as_set_does():
    assert split_items('4, 8,12') == ["4", "8", "12"]
    assert split_items('["grand","royal"],[]') == ['["grand","royal"]', "[]"]
    grid = parse_vary(["exchange.upcard_to=dealer,dead", 'deck.colons=["grand"],[]'])
    assert grid == [("exchange.upcard_to", [("dealer", "dealer"), ("dead", "dead")]),
                    ("deck.colons", [('["grand"]', ["grand"]), ("[]", [])])]
    settings = settings_of(grid)  # the first --vary changes slowest
    assert [tuple(v for _, v in s.values()) for s in settings] == [
        ("dealer", ["grand"]), ("dealer", []), ("dead", ["grand"]), ("dead", [])]


@pytest.mark.parametrize("items,set_options,message", [
    (["exchange.dealer_draw_ace=4,4"], [], "lists the value 4 twice"),
    (["exchange.dealer_draw_ace="], [], "needs TABLE.KEY=V1,V2"),
    (["exchange.dealer_draw_ace=4,,8"], [], "an empty value"),
    (["exchange.dealer_draw_ace=4", "exchange.dealer_draw_ace=8"], [], "given twice"),
    (["exchange.dealer_draw_ace=4,8"], ["exchange.dealer_draw_ace=12"], "both --set and --vary"),
    ([], [], "at least one --vary"),
])
def test_bad_grids(items, set_options, message):
    with pytest.raises(SweepError, match=message):
        parse_vary(items, set_options)
    with pytest.raises(RulesError, match="dotted TABLE.KEY"):
        parse_vary(["dealer_draw_ace=4,8"])


def test_balance_point_by_linear_interpolation():
    assert balance_point([4, 8, 12, 16], [10, 5, -5, -10], 0) == 10.0
    assert balance_point([16, 4, 12, 8], [-10, 10, -5, 5], 0) == 10.0  # any order of settings
    assert balance_point([4, 8, 12], [0.46, 0.49, 0.52], 0.5) == pytest.approx(8 + 4 / 3)
    assert balance_point([4, 8], [1, 2], 0) is None
    assert balance_point([4, 8, 12], [3, 0, -3], 0) == 8.0


def test_balance_bracket_from_the_settings_own_intervals():
    def m(value, half):
        return {"value": value, "value_ci95": [value - half, value + half]}

    # Falling through 0 near 6: 4 is clearly above, 6 is not clear, 8 clearly below.
    xs, ms = [2, 4, 6, 8], [m(100, 2), m(56, 3), m(-2, 3), m(-74, 4)]
    assert balance_bracket(xs, ms, 0.0, 5.9) == [4, 8]
    # Rising through 0.5 with every setting within its interval of 0.5: not resolved.
    assert balance_bracket([2, 4], [m(0.498, 0.007), m(0.501, 0.007)], 0.5, 3.3) is None


@pytest.mark.parametrize("argv,message", [
    (["--vary", "exchange.dealer_draw_ac=4,8"], "did you mean 'exchange.dealer_draw_ace'"),
    (["--vary", "exchange.dealer_draw_ace=-1,8"], "must be at least 0"),
    (["--vary", "exchange.dealer_draw_ace=four,8"], "must be an integer"),
    (["--vary", "exchange.dealer_draw_ace=4,29"], "the stock holds only"),
    (["--vary", "exchange.dealer_draw_ace=4,4"], "twice"),
    (["--vary", "exchange.dealer_draw_ace=4"], "at least two settings"),
    (["--vary", "exchange.dealer_draw_ace=4..12"], "got 1 (exchange.dealer_draw_ace=4..12): list the values apart by "
                                                   "commas"),
    (["--vary", "exchange.dealer_draw_ace=4,8", "--metrics", "dealers_advantage"], "unknown metric"),
    (["--vary", "exchange.dealer_draw_ace=4,8", "--policy", "0=clever"], "unknown policy 'clever'"),
    (["--vary", "exchange.dealer_draw_ace=4,8", "--plot", "/proc/x/p.png"], "cannot write the plot /proc/x/p.png"),
    (["--vary", "exchange.dealer_draw_ace=4,8", "--plot", "/"], "--plot /: the plot is a PNG image"),
    # One set of Colons in two orders (before: two settings played, every number the same).
    (["--vary", 'deck.colons=["grand","royal"],["royal","grand"]'],
     'deck.colons=["grand","royal"] and deck.colons=["royal","grand"] are the same rules: list each setting once'),
])
def test_bad_input_is_one_line_exit_2_and_plays_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "sweep"
    assert main([*argv, "--games", "10", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and err.startswith("python -m sim.sweep: error:")
    assert not out.exists()


def test_bad_flags_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--vary", "exchange.dealer_draw_ace=4,8"])  # no --games
    assert stop.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("game,vary", [
    ("bridgette", "auction.max_redeals=100,3"),      # C-5: no redeals while passed-out deals count
    ("draw-bridge", "auction.max_redeals=100,0"),    # C-5 as in Bridgette
    ("bid-euchre", "scoring.renege_penalty=2,7"),    # E-8: the policies never renege
])
def test_a_rule_change_without_effect_gives_exact_zeros(game, vary, tmp_path, capsys, monkeypatch):
    out = tmp_path / "sweep"
    argv = ["--game", game, "--vary", vary, "--games", "400", "--block-size", "150",
            "--out", str(out), "--json", "--quiet"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    result = json.loads(first)
    assert len(result["settings"]) == 2
    for name, m in result["settings"][1]["metrics"].items():
        assert m["value"] is not None and m["paired"], name
        assert m["diff"] == 0 and m["ci95"] == [0.0, 0.0], name
        assert m["value"] == result["settings"][0]["metrics"][name]["value"]
    # The tables are saved in the sweep's folder: the printed object, and one CSV row per setting and metric.
    assert read_sealed(out / "sweep.json") == result and result["plot"] == str(out / "sweep.png")
    rows = (out / "sweep.csv").read_text().splitlines()
    key = vary.split("=")[0]
    assert rows[0] == f"{key},metric,unit,value,value_lo95,value_hi95,minus_first,minus_first_lo95," \
                      "minus_first_hi95,paired,variance_saved,run"
    assert len(rows) == 1 + 2 * len(METRICS)
    second = [r.split(",") for r in rows[1 + len(METRICS):]]
    assert [r[0] for r in second] == [vary.split("=")[1].split(",")[1]] * len(METRICS)
    assert all(r[6:10] == ["0.0", "0.0", "0.0", "True"] for r in second), second
    # Rerunning resumes: nothing is played again and the result is the same.
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    # A plot that fails after all (a full disk) still leaves the tables printed and saved.
    (out / "sweep.json").unlink()

    def full_disk(result, path):
        raise SweepError(f"cannot write the plot {path}: No space left on device")

    monkeypatch.setattr("sim.sweep.cli.plot", full_disk)
    assert main([a for a in argv if a != "--json"]) == 2
    printed = capsys.readouterr()
    assert "minus first" in printed.out and "plot:" not in printed.out
    assert printed.err == (f"python -m sim.sweep: error: cannot write the plot {out / 'sweep.png'}: "
                           f"No space left on device; the tables are saved in {out}\n")
    assert read_sealed(out / "sweep.json")["plot"] is None


def test_a_real_sweep_through_the_command_line(tmp_path):
    """exchange.dealer_draw_ace 4 -> 12 (B-3): more cards for the dealer after an ace up-card."""
    plot = tmp_path / "plot.png"
    run = in_process("sim.sweep", "--vary", "exchange.dealer_draw_ace=4,12", "--games", "3000",
                     "--out", tmp_path / "sweep", "--plot", plot, "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["vary"] == ["exchange.dealer_draw_ace"] and result["metrics"] == list(METRICS)
    values = [s["values"]["exchange.dealer_draw_ace"] for s in result["settings"]]
    assert values == [4, 12]
    for setting in result["settings"]:
        assert Path(setting["run"], "summary.json").exists()
        for m in setting["metrics"].values():
            assert set(m) >= {"value", "value_ci95", "diff", "ci95", "variance_reduction"}
            assert m["ci95"][0] <= m["diff"] <= m["ci95"][1]
    advantage = result["settings"][1]["metrics"]["dealer_advantage"]
    assert advantage["ci95"][0] > 0  # the dealer gains from drawing 12 rather than 4
    assert advantage["variance_reduction"] > 0.3  # most deals are untouched by the change
    for x in result.get("balance_point", {}).values():
        assert 4 <= x <= 12
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert "setting 2/2" in run.stderr


def test_a_deal_runs_sweep_leaves_out_deals_per_game(tmp_path, capsys):
    """A sweep of single deals listed "deals per game 1.000 [1.000, 1.000]" among its
    default metrics, which a deal run leaves out everywhere else (analysis.compare refuses
    it); a sweep of games keeps it."""
    for unit, has in (("--deals", False), ("--games", True)):
        assert main(["--vary", "exchange.nondealer_draw=2,4", unit, "40", "--quiet", "--json",
                     "--out", str(tmp_path / unit)]) == 0
        assert ("deals_per_game" in json.loads(capsys.readouterr().out)["metrics"]) == has
    # Its tables and report speak of deals, as a deal run's own (before: "first dealer's game
    # win rate (share of games)" under a headline of "dealer wins the deal").
    assert main(["--vary", "exchange.nondealer_draw=2,4", "--deals", "40", "--out", str(tmp_path / "d")]) == 0
    table = capsys.readouterr().out
    assert "dealer's deal win rate (share of deals):" in table and "game win rate" not in table
    from analysis.report import build

    page = build(tmp_path / "d", out=tmp_path / "report").read_text()
    assert "dealer&#x27;s deal win rate" in page and "game win rate" not in page


def test_matplotlib_says_nothing_where_it_cannot_keep_its_folder(tmp_path):
    """With HOME a file (no folder matplotlib could make for its cache), matplotlib said in
    two lines of its own on stderr that it used a temporary one; the plot is drawn the same."""
    home = tmp_path / "home"
    home.write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    result = as_process("sim.sweep", "--vary", "exchange.nondealer_draw=4,6", "--games", "20", "--quiet", "--out",
                        tmp_path / "s", env={**env, "HOME": str(home)})
    assert result.returncode == 0 and result.stderr == "" and (tmp_path / "s" / "sweep.png").stat().st_size > 0


def test_a_folder_of_another_sweep_is_refused_and_kept(tmp_path, capsys):
    """A sweep of other values, of another key or of another game into the folder of a first
    sweep is refused in one line (exit 2): the first sweep's tables, plot and runs stay as
    they were, byte for byte. The same sweep again reads its own folder."""
    out = tmp_path / "sweep"
    first = ["--vary", "exchange.nondealer_draw=2,4", "--games", "20", "--out", str(out), "--quiet"]
    assert main(first) == 0
    capsys.readouterr()
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for argv in (["--vary", "exchange.nondealer_draw=2,6"], ["--vary", "exchange.dealer_draw_ace=4,8"],
                 ["--game", "bid-euchre", "--vary", "scoring.set_bid_points=1,2"]):
        assert main([*argv, "--games", "20", "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"output folder {out} holds another sweep's setting" in err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert main(first) == 0


def test_a_sweep_draws_over_its_own_plot_and_no_other_sweeps(tmp_path, capsys):
    """Each plot carries a digest of its sweep's folder: the same sweep draws its plot again
    (its own sweep.png also once the folder is moved), and another sweep given that plot's
    path with --plot is refused in one line, the plot kept (before: any sweep's plot was
    drawn over)."""
    first, other = tmp_path / "first", tmp_path / "other"
    argv = ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "20", "--quiet"]
    assert main([*argv, "--out", str(first)]) == 0
    plot = (first / "sweep.png").read_bytes()
    capsys.readouterr()
    assert main([*argv, "--out", str(other), "--plot", str(first / "sweep.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it exists and is not this sweep's plot, so it is kept" in err, err
    assert (first / "sweep.png").read_bytes() == plot
    kept = {p.name: os.stat(p) for p in first.iterdir()}
    assert main([*argv, "--out", str(first)]) == 0  # its own plot, drawn again
    for name, before in kept.items():  # the same bytes again: each file left as it was, not written over
        after = os.stat(first / name)
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), name
    moved = tmp_path / "moved"
    first.rename(moved)  # a folder moved since: its sweep.png is still its own
    assert main([*argv, "--out", str(moved)]) == 0
    assert str(tmp_path).encode() not in (moved / "sweep.png").read_bytes()  # the folder's path is not given away


def test_a_plot_interrupted_mid_write_leaves_the_old_one_whole(tmp_path, monkeypatch):
    """The plot is written whole or not at all, as every file of a sweep (before: straight
    onto sweep.png, so a kill while drawing left a broken or empty file that every rerun
    then refused as 'not a sweep's plot')."""
    import sim.sweep.output as output
    from sim.placement import is_sweep_plot

    out = tmp_path / "sweep"
    argv = ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "40", "--block-size", "20", "--out", str(out),
            "--quiet"]
    assert main(argv) == 0
    before = (out / "sweep.png").read_bytes()

    whole = output.write_atomic

    def killed_while_drawing(path, data):
        if path.suffix == ".png":
            raise KeyboardInterrupt  # as a Ctrl-C or kill falls while the plot is written
        whole(path, data)

    monkeypatch.setattr(output, "write_atomic", killed_while_drawing)
    assert main(argv) == 130
    assert (out / "sweep.png").read_bytes() == before and is_sweep_plot(out / "sweep.png", out)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_a_folder_named_like_a_formula_reaches_the_csv_as_text(tmp_path, monkeypatch):
    """A spreadsheet runs a cell that begins with = + - @ as a formula: the sweep's folder
    '=1+2' reached sweep.csv's run column as written. Such text now begins with an
    apostrophe; signed numbers stay numbers."""
    from sim.store import csv_safe

    monkeypatch.chdir(tmp_path)
    assert main(["--vary", "exchange.dealer_draw_ace=4,8", "--games", "3", "--out", "=1+2", "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "=1+2" / "sweep.csv").read_text())))
    assert rows and all(r["run"].startswith("'=1+2/0") for r in rows)
    assert [csv_safe(c) for c in ("@SUM(1)", "-x", "+105.27", "-0.5", "1,200", 3.0, None, "\tx")] == [
        "'@SUM(1)", "'-x", "+105.27", "-0.5", "1,200", 3.0, None, "'\tx"]


def test_the_sweeps_python_functions_check_their_arguments_and_keep_what_is_not_theirs(tmp_path):
    """sim.sweep.sweep took seeds, counts, threads and paths of any kind (an OverflowError
    from numpy, numba's or pathlib's words; seed 1.5 played seed 1); parse_vary read a text
    letter by letter; an empty list of metrics played every setting to report nothing; plot
    drew over any file (a run's manifest, a user's PNG) and save_tables wrote into any
    folder. Each is named now, and nothing of another's is touched."""
    import sim
    from sim.sweep import plot, save_tables, sweep

    grid = parse_vary("exchange.nondealer_draw=2,6")  # one text, as a list of one
    assert grid == parse_vary(["exchange.nondealer_draw=2,6"])
    out = tmp_path / "sweep"
    for kwargs, error, words in (({"seed": -1}, ValueError, "seed: the seed must be in 0 .. 2**64-1"),
                                 ({"seed": 1.5}, ValueError, "seed: '1.5' is not an integer seed"),
                                 ({"games": None}, ValueError, "games: 'None' is not a number"),
                                 ({"threads": 0}, ValueError, "threads: '0' is not a whole number"),
                                 ({"block_size": 0}, ValueError, "block_size: '0' is not a whole number"),
                                 ({"out": "a\0b"}, ValueError, "holds a NUL character"),
                                 ({"plot_path": 5}, TypeError, "plot_path must be a PNG file's path"),
                                 ({"dealing": 5}, TypeError, "dealing must be a sim.dealing.Dealing"),
                                 ({"grid": "exchange.nondealer_draw=2,6"}, TypeError, "grid must be parse_vary's"),
                                 ({"grid": [("exchange.nondealer_draw", [2, 6])]}, TypeError,
                                  "grid must be parse_vary's"),
                                 ({"log": 5}, TypeError, "log must be a function of one line of text"),
                                 ({"metrics": []}, ValueError, "metrics names no metric"),  # played, reported none
                                 ({"plot_path": "x.jpg"}, ValueError, "plot_path x.jpg: the plot is a PNG image")):
        args = {"game": "bridgette", "grid": grid, "games": 20, "out": out, **kwargs}
        with pytest.raises(error) as caught:
            sweep(**args)
        assert words in str(caught.value)
    assert not out.exists()
    result = sweep("bridgette", grid, 20, out=out, set_options="exchange.dealer_draw_ace=8")  # one text, not letters
    assert read_sealed(Path(result["settings"][1]["run"]) / "manifest.json")["config"]["rules"]["exchange"][
        "dealer_draw_ace"] == 8
    run = sim.simulate(games=5, out=tmp_path / "run")
    before = {p.name: p.read_bytes() for p in run.path.iterdir() if p.is_file()}
    (tmp_path / "mine.png").write_bytes(b"the user's own picture")
    for path, words in ((run.path / "manifest.json", "give a path ending in .png"),
                        (tmp_path / "mine.png", "not this sweep's plot, so it is kept")):
        with pytest.raises(SweepError, match=words):
            plot(result, path)
    with pytest.raises(SweepError, match="is not a sweep's folder"):
        save_tables(dict(result, out=str(run.path)))
    assert {p.name: p.read_bytes() for p in run.path.iterdir() if p.is_file()} == before
    assert (tmp_path / "mine.png").read_bytes() == b"the user's own picture"
    assert plot(result, out / "sweep.png").is_file() and save_tables(result)[0] == out / "sweep.json"


def test_a_plot_in_a_settings_folder_is_refused_before_anything_is_made(tmp_path):
    """--plot OUT/00-.../records/x.png made that folder in its check, then refused the setting
    as no run folder, and the rerun without it found a folder that held no sweep. It is
    refused first now, and nothing is made."""
    out = tmp_path / "sw"
    args = ["--vary", "exchange.nondealer_draw=2,4", "--games", "10", "--quiet", "--out", str(out)]
    result = in_process("sim.sweep", *args, "--plot", str(out / "00-exchange.nondealer_draw=2" / "records" / "x.png"))
    assert result.returncode == 2 and "within the sweep's folder the plot goes in" in result.stderr
    assert not out.exists()
    assert main(args) == 0


def test_a_plot_drawn_inside_the_sweeps_folder_is_the_sweeps_own(tmp_path):
    """--plot OUT/fig.png: the sweep played, drew its plot, then refused its own folder as
    one holding a file it did not write (fig.png), and kept no tables; a rerun was refused
    too. The folder's PNG this sweep drew is its own; a user's PNG there is still named."""
    out = tmp_path / "sweep"
    args = ["--vary", "exchange.nondealer_draw=2,4", "--games", "10", "--quiet", "--out", str(out)]
    for _ in range(2):  # the run, then the same command again
        assert main([*args, "--plot", str(out / "fig.png")]) == 0
        assert (out / "sweep.json").is_file() and (out / "fig.png").is_file()
    (out / "mine.png").write_bytes(b"the user's own picture")
    result = in_process("sim.sweep", *args)
    assert result.returncode == 2 and "holds files this command did not write beside its own (mine.png)" in \
        result.stderr


def test_a_folder_of_pictures_is_told_from_a_sweep_without_reading_them(tmp_path, monkeypatch):
    """A folder with no setting folder and no sweep.json is no sweep's, whatever its PNGs
    hold: it is told without opening them (each would be read to its image data)."""
    from sim import placement

    for k in range(3):
        (tmp_path / f"photo{k}.png").write_bytes(placement.PNG_SIGNATURE + b"\0" * 64)

    def unread(path, out):
        raise AssertionError(f"{path} was read")

    monkeypatch.setattr(placement, "is_sweep_plot", unread)
    assert not placement.is_sweep_folder(tmp_path, [p.name for p in tmp_path.iterdir()])


def test_a_sweep_refused_after_its_folder_is_claimed_leaves_no_folder_behind(tmp_path):
    """A sweep refused after it claimed its folder and tried its plot's place (here: its
    cluster cannot be reached) leaves none of the folders it made for them, nor those
    above them (before: only its own folder went)."""
    from sim.store import RunError
    from sim.sweep import sweep

    grid = parse_vary("auction.max_redeals=0,1")
    with pytest.raises(RunError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1 .connection refused"):
        sweep("bridgette", grid, 10, out=tmp_path / "a" / "b" / "sweep", plot_path=tmp_path / "c" / "d" / "x.png",
              cluster="tcp://127.0.0.1:1")
    assert list(tmp_path.iterdir()) == []


def test_a_plot_of_another_kind_is_refused_before_the_sweeps_folder_is_touched(tmp_path):
    """--plot x.jpg is an argument's fault: said before the sweep claims its folder, whose
    lock file (made, then removed) changed the folder's time though nothing was played."""
    from sim.sweep import sweep

    out = tmp_path / "sweep"
    out.mkdir()
    before = out.stat().st_mtime_ns
    time.sleep(0.05)  # past the file system's clock tick
    with pytest.raises(SweepError, match="plot_path x.jpg: the plot is a PNG image"):
        sweep("bridgette", parse_vary("exchange.nondealer_draw=2,6"), 20, out=out, plot_path="x.jpg")
    assert out.stat().st_mtime_ns == before and list(out.iterdir()) == []
