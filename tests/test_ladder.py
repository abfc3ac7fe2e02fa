"""python -m sim.ladder: every rung against the heuristic, in a duplicate match and a --dd run."""

import contextlib
import csv
import io
import json
import os
import re
import signal

import numpy as np
import pandas as pd
import pytest

import sim
from sim.games import game_module
from sim.ladder import main
from sim.match import play_match
from sim.policies import parse_policy
from tests.commands import as_process, in_process, playing, started

EUCHRE = ["--game", "bid-euchre", "--games", "30", "--worlds", "1,2", "--seed", "3", "--threads", "1"]
DRAW = ["--game", "draw-bridge", "--games", "2", "--worlds", "1", "--seed", "5", "--threads", "1"]


def run_main(args) -> tuple[int, str, str]:
    """main() in this process (the kernels stay loaded): (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exc:  # argparse's errors
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def played(tmp_path_factory, name, args):
    out = tmp_path_factory.mktemp("ladder") / name
    status, stdout, stderr = run_main([*args, "--out", str(out)])
    assert status == 0, stderr
    return json.loads((out / "ladder.json").read_text()), stdout, stderr, out


@pytest.fixture(scope="module")
def euchre(tmp_path_factory):
    """A Bid Euchre ladder, printed as its table."""
    return played(tmp_path_factory, "euchre", EUCHRE)


@pytest.fixture(scope="module")
def draw(tmp_path_factory):
    """A Draw Bridge ladder, printed as JSON."""
    return played(tmp_path_factory, "draw", [*DRAW, "--json"])


def test_rungs_in_order_with_progress(euchre):
    result, _, stderr, _ = euchre
    assert [r["policy"] for r in result["rungs"]] == ["random", "heuristic", "pimc:worlds=1", "pimc:worlds=2", "dd"]
    assert [r["sees_all_cards"] for r in result["rungs"]] == [False] * 4 + [True]
    assert [r["reference"] for r in result["rungs"]] == [False, True, False, False, False]
    assert result["kind"] == "policy ladder" and result["games"] == result["dd_games"] == 30
    assert [line.split(":")[1] for line in stderr.splitlines() if line.startswith("ladder: rung")] == [
        " rung 1/5", " rung 2/5", " rung 3/5", " rung 4/5", " rung 5/5"]


@pytest.mark.parametrize("which", ["euchre", "draw"])
def test_dd_rung_loses_nothing_and_the_heuristic_does(which, request):
    """A dd seat plays the double-dummy best card, so it loses no trick against double dummy
    in either role (sim.dd_run's definition); the heuristic, which cannot see the cards,
    does lose some, so the figure can see a loss."""
    result = request.getfixturevalue(which)[0]
    dd = result["rungs"][-1]["dd_run"]
    for role in ("lost_as_declarer", "lost_as_defender"):
        assert dd[role]["n"] > 0 and dd[role]["mean"] == 0 and dd[role]["mean_ci95"] == [0, 0]
    heuristic = result["rungs"][1]["dd_run"]
    assert heuristic["lost_as_declarer"]["mean"] + heuristic["lost_as_defender"]["mean"] > 0


@pytest.mark.parametrize("which", ["euchre", "draw"])
def test_match_figures_are_sim_match(which, request):
    """Each rung's match is sim.match's duplicate match of the rung against the heuristic;
    the heuristic's own row is its match against itself: an exact tie."""
    result = request.getfixturevalue(which)[0]
    game = result["game"]
    for rung in result["rungs"]:
        alone = play_match(game, parse_policy(rung["policy"], game), parse_policy("heuristic", game),
                           result["games"], result["seed"])
        assert rung["match"] == json.loads(json.dumps(alone))
        assert rung["speed"]["deals"] == alone["deals_played"] and rung["speed"]["deals_per_s"] > 0
    reference = result["rungs"][1]["match"]
    assert reference["mean_diff_per_deal"] == 0 and reference["a_game_win_rate"] == 0.5


def test_bid_worlds_samples_the_pimc_rungs_calls(tmp_path):
    """--bid-worlds N: the pimc rungs are pimc:worlds=W,bid_worlds=N, and their matches are
    sim.match's of that policy."""
    status, _, stderr = run_main(["--game", "bid-euchre", "--games", "3", "--worlds", "1", "--bid-worlds", "2",
                                  "--seed", "4", "--threads", "1", "--out", str(tmp_path / "out")])
    assert status == 0, stderr
    result = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert result["bid_worlds"] == 2
    assert [r["policy"] for r in result["rungs"]] == ["random", "heuristic", "pimc:worlds=1,bid_worlds=2", "dd"]
    alone = play_match("bid-euchre", parse_policy("pimc:worlds=1,bid_worlds=2", "bid-euchre"),
                       parse_policy("heuristic", "bid-euchre"), 3, 4)
    assert result["rungs"][2]["match"] == json.loads(json.dumps(alone))


def test_match_figures_are_the_match_command(euchre):
    """The same figures by the command line of sim.match, in another process."""
    result = euchre[0]
    run = as_process("sim.match", "--game", "bid-euchre", "--a", "pimc:worlds=2", "--b", "heuristic",
                     "--games", "30", "--seed", "3", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == result["rungs"][3]["match"]


def test_worlds_given_in_any_order_are_one_ladder_weakest_first():
    """(Before: --worlds 16,4 listed pimc:worlds=16 first and was another configuration than 4,16.)"""
    from sim.ladder import worlds_list

    assert worlds_list("16,4") == worlds_list("4, 16") == (4, 16)


def test_deals_played_counts_both_plays():
    """sim.match's deals_played: every deal of both plays, paired or not."""
    game, module = "bid-euchre", game_module("bid-euchre")
    a, b = parse_policy("random", game), parse_policy("heuristic", game)
    rules = module.RULES()
    first = module.run_block(rules, [a, b, a, b], 3, 0, 10)[0]
    second = module.run_block(rules, [b, a, b, a], 3, 0, 10)[0]
    assert play_match(game, a, b, 10, 3)["deals_played"] == len(first) + len(second)


def test_euchre_dd_figures_from_the_records(euchre, tmp_path):
    """The team figures recounted from a --dd run's hand records (sim.simulate, the rung in
    seats 0 and 2): its two seats' losses per hand it bid and per hand it defended, and the
    share of its bids made."""
    result = euchre[0]
    for rung in result["rungs"]:
        run = sim.simulate(game="bid-euchre", games=30, seed=3, policies={0: rung["policy"], 2: rung["policy"]},
                           dd=True, out=tmp_path / rung["policy"].replace(":", "-"), records="deals")
        d = run.deals()
        valued = d["dd_tricks"].notna()
        bid = valued & (d["bidder"] % 2 == 0)
        lost = d["dd_lost0"].fillna(0) + d["dd_lost2"].fillna(0)
        figures = rung["dd_run"]
        assert figures["deals"] == len(d) and figures["played"] == valued.sum()
        assert figures["lost_as_declarer"]["n"] == bid.sum()
        assert figures["lost_as_declarer"]["mean"] == pytest.approx(lost[bid].mean(), abs=1e-12)
        assert figures["lost_as_defender"]["n"] == (valued & ~bid).sum()
        assert figures["lost_as_defender"]["mean"] == pytest.approx(lost[valued & ~bid].mean(), abs=1e-12)
        assert figures["made_as_declarer"]["successes"] == (d["made"].fillna(False) & bid).sum()


def test_draw_bridge_dd_figures_are_the_summary_s(draw, tmp_path):
    """In a two-seat game the rung's figures are seat 0's by role in the --dd run's summary
    (sim.dd_run.summarize), and its contracts made are recounted from the records."""
    result = draw[0]
    for rung in result["rungs"]:
        run = sim.simulate(game="draw-bridge", games=2, seed=5, policies={0: rung["policy"]}, dd=True,
                           out=tmp_path / rung["policy"].replace(":", "-"))
        seat0 = run.summary["double_dummy"]["tricks_lost"]["seat0"]
        assert rung["dd_run"]["lost_as_declarer"] == seat0["declarer"]
        assert rung["dd_run"]["lost_as_defender"] == seat0["defender"]
        d = run.deals()
        mine = d["declarer"] == 0
        assert rung["dd_run"]["made_as_declarer"]["n"] == mine.sum()
        assert rung["dd_run"]["made_as_declarer"]["successes"] == (d["made"].fillna(False) & mine).sum()


NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def test_json_and_csv_agree_with_the_table(euchre):
    """Every figure of the printed table is ladder.json's, rounded as printed; ladder.csv
    holds ladder.json's figures exactly."""
    result, stdout, _, out = euchre
    lines = stdout.splitlines()
    assert lines[1] == "rules: RULES.md defaults"  # the rules played, as sim.run and sim.match name them
    for rung in result["rungs"]:
        m, dd, speed = rung["match"], rung["dd_run"], rung["speed"]
        decl, defn, made = dd["lost_as_declarer"], dd["lost_as_defender"], dd["made_as_declarer"]
        expected = [m["mean_diff_per_deal"], *m["ci95"],
                    *(100 * x for x in [m["a_game_win_rate"], *m["a_game_win_ci95"]]),
                    decl["mean"], *decl["mean_ci95"], defn["mean"], *defn["mean_ci95"],
                    *(100 * x for x in [made["rate"], *made["ci95"]]), speed["deals_per_s"]]
        row = next(line for line in lines if line.startswith(rung["policy"] + " "))
        printed = NUMBER.findall(row.removeprefix(rung["policy"]))
        assert len(printed) == len(expected), row
        for text, value in zip(printed, expected):
            decimals = len(text.partition(".")[2])
            assert abs(float(text.replace(",", "")) - value) <= 0.5 * 10**-decimals + 1e-9, (row, text, value)
    with open(out / "ladder.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["policy"] for r in rows] == [r["policy"] for r in result["rungs"]]
    for row, rung in zip(rows, result["rungs"]):
        m, dd = rung["match"], rung["dd_run"]
        assert float(row["diff_per_deal"]) == m["mean_diff_per_deal"]
        assert [float(row["diff_ci_low"]), float(row["diff_ci_high"])] == m["ci95"]
        assert float(row["win_rate"]) == m["a_game_win_rate"]
        assert [float(row["win_ci_low"]), float(row["win_ci_high"])] == m["a_game_win_ci95"]
        assert float(row["lost_as_declarer"]) == dd["lost_as_declarer"]["mean"]
        assert float(row["lost_as_defender"]) == dd["lost_as_defender"]["mean"]
        assert int(row["declared"]) == dd["lost_as_declarer"]["n"]
        assert float(row["made_as_declarer"]) == dd["made_as_declarer"]["rate"]
        assert float(row["deals_per_s"]) == rung["speed"]["deals_per_s"]
        assert row["sees_all_cards"] == str(rung["sees_all_cards"])
    frame = pd.read_csv(out / "ladder.csv")
    assert np.isfinite(frame.select_dtypes("number").to_numpy()).all()


def test_json_flag_prints_ladder_json(draw):
    result, stdout, _, out = draw
    assert json.loads(stdout) == result == json.loads((out / "ladder.json").read_text())


def test_rerun_over_its_own_folder_and_refuse_others(tmp_path):
    """The ladder writes over a folder it wrote; any other non-empty folder is refused
    before anything is played and left as it was."""
    out = tmp_path / "mine"
    args = ["--game", "bid-euchre", "--games", "2", "--worlds", "1", "--out", str(out)]
    assert run_main(args)[0] == 0
    assert run_main(args)[0] == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    status, stdout, stderr = run_main([*args[:-1], str(other)])
    assert status == 2 and stdout == ""
    assert stderr == (f"python -m sim.ladder: error: output folder {other} is not empty and holds no ladder; "
                      "use another --out\n")
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("args, words", [
    (["--game", "nope"], "argument --game: invalid choice: 'nope'"),
    (["--worlds", "0"], "pimc:worlds must be a whole number from 1 to 1000000, got '0'"),
    (["--worlds", "x"], "pimc:worlds must be a number, got 'x'"),
    (["--worlds", "4,2.5"], "got '2.5'"),
    (["--worlds", "1,1"], "1,1 lists 1 twice"),  # one rung per count (the second was dropped in silence)
    (["--bid-worlds", "-1"],
     "pimc:bid_worlds must be 0 (the heuristic's choice) or a whole number from 1 to 1000000, got '-1'"),
    (["--bid-worlds", "x"], "pimc:bid_worlds must be a number, got 'x'"),
    (["--games", "0"], "argument --games: '0' is not a whole number of at least 1"),
    (["--games", "-2"], "argument --games: '-2' is not a whole number of at least 1"),
    (["--dd-games", "1.5"], "argument --dd-games: '1.5' is not a whole number of at least 1"),
    (["--rules", "/nonexistent/variant.toml"], "cannot read rules file /nonexistent/variant.toml"),
    (["--game", "bid-euchre", "--set", "variant.double_deck=true"], "Bid Euchre's double deck"),
])
def test_bad_input_is_one_line_and_status_2(args, words, tmp_path):
    status, stdout, stderr = run_main([*args, "--out", str(tmp_path / "out")])
    assert status == 2 and stdout == "" and words in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1 and stderr.startswith("python -m sim.ladder: error: ")
    assert not (tmp_path / "out").exists()


def test_bad_input_from_the_command_line(tmp_path):
    run = in_process("sim.ladder", "--worlds", "0", "--out", tmp_path / "out")
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    """Ctrl-C during a rung: the ladder's own line, status 130, and nothing written: the
    folder it made goes again."""
    out = tmp_path / "out"
    proc = started("sim.ladder", "--game", "bid-euchre", "--games", "1e8", "--out", out)
    try:
        playing(proc)  # into the first match
        assert proc.poll() is None, "the ladder ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()  # a ladder of 1e8 games left behind would hold the cores for hours
    assert proc.returncode == 130 and stdout == ""
    lines = stderr.splitlines()
    assert "" not in lines and lines[-1] == ("interrupted; the ladder writes its files when every rung is done, "
                                             "so rerun the command"), stderr
    assert not out.exists()


def test_bridgette_ladder(tmp_path):
    """Bridgette, two games a rung (pimc at one world; seed 1 has the dd seat declare and
    defend): the dd rung loses nothing and the matches are sim.match's."""
    out = tmp_path / "bridgette"
    status, _, stderr = run_main(["--game", "bridgette", "--games", "2", "--worlds", "1", "--out", str(out)])
    assert status == 0, stderr
    result = json.loads((out / "ladder.json").read_text())
    dd = result["rungs"][-1]["dd_run"]
    for role in ("lost_as_declarer", "lost_as_defender"):
        assert dd[role]["n"] > 0 and dd[role]["mean"] == 0
    for rung in result["rungs"]:
        alone = play_match("bridgette", parse_policy(rung["policy"], "bridgette"),
                           parse_policy("heuristic", "bridgette"), 2, 1)
        assert rung["match"] == json.loads(json.dumps(alone))


def test_a_folder_of_another_ladder_is_refused_and_kept(tmp_path, capsys):
    """A folder holding the ladder of another configuration is refused before anything is
    played, as sim.run refuses a run folder of another: its files stay as they were."""
    from sim.ladder import KIND

    out = tmp_path / "ladder"
    out.mkdir()
    theirs = {"kind": KIND, "game": "bid-euchre", "seed": 1, "games": 200, "dd_games": 200, "worlds": [4, 16],
              "bid_worlds": 0, "rules": {}, "rungs": []}
    (out / "ladder.json").write_text(json.dumps(theirs))
    (out / "ladder.csv").write_text("rung\n")
    os.utime(out, ns=(10**18, 10**18))  # the folder's time too: its lock and write probe came and went
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["--games", "1", "--worlds", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "holds a ladder of another configuration (differs in: game, games, dd_games, worlds)" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert out.stat().st_mtime_ns == 10**18


@pytest.mark.parametrize("damage", ["cut", "list", "folder-csv"])
def test_a_damaged_ladder_file_is_named_before_anything_is_played(tmp_path, capsys, damage):
    """A ladder.json that cannot be read is named in one line (before: 'holds no ladder',
    which named no file), and a ladder.csv that is a folder is found before any rung is
    played (before: after every rung, ladder.json already written over). Nothing changes."""
    from sim.ladder import KIND

    out = tmp_path / "ladder"
    out.mkdir()
    if damage in ("cut", "list"):  # json's and Python's words before: "Unterminated string ...", "'list' object"
        (out / "ladder.json").write_text('{"kind": "' + KIND if damage == "cut" else "[1]")
        words = f"cannot read {out / 'ladder.json'} (" + ("not whole JSON: cut short or altered)" if damage == "cut"
                                                         else "not a JSON object)")
    else:
        (out / "ladder.json").write_text(json.dumps({"kind": KIND}))
        (out / "ladder.csv").mkdir()
        words = f"{out / 'ladder.csv'} is not a file"
    before = {p.name: p.is_dir() or p.read_bytes() for p in out.iterdir()}
    assert main(["--games", "1", "--worlds", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err  # one line: no rung began ("ladder: ..." lines)
    assert {p.name: p.is_dir() or p.read_bytes() for p in out.iterdir()} == before


def test_a_dead_writers_temporary_does_not_keep_a_ladder_from_its_folder(tmp_path, capsys):
    """kill -9 while ladder.json was being written leaves its temporary in a new folder: the
    rerun is not refused for it ('holds no ladder', before) and sweeps it away."""
    from sim.store import temporary

    out = tmp_path / "ladder"
    out.mkdir()
    dead = temporary(out / "ladder.json")
    dead = dead.with_name(dead.name.replace(f"-{os.getpid()}-", "-999999999-"))
    dead.write_text("{")
    assert main(["--game", "bid-euchre", "--games", "2", "--worlds", "1", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ladder.csv", "ladder.json"]


def test_the_ladders_python_function_checks_its_arguments_before_warming_up():
    """sim.ladder.ladder took a negative seed (numpy's OverflowError), no rules or another
    game's (AttributeError), dd_games 0 (a TypeError from inside) and worlds as a text
    (read digit by digit). Each is named before any kernel warms up."""
    from sim.ladder import ladder
    from sim.rules import RulesError, rules_for

    rules = rules_for("bridgette")
    for args, error, words in (((rules, -1, 1, 1, (1,)), ValueError, "seed: the seed must be in"),
                               (({}, 1, 1, 1, (1,)), RulesError, "rules must be bridgette's rules"),
                               ((rules_for("bid-euchre"), 1, 1, 1, (1,)), RulesError, "got BidEuchreRules"),
                               ((rules, 1, 1, 0, (1,)), ValueError, "dd_games: '0' is not a whole number"),
                               ((rules, 1, 1, 1, "16"), TypeError, "worlds must be a list"),
                               ((rules, 1, 1, 1, (0,)), ValueError, "pimc:worlds must be a whole number")):
        with pytest.raises(error, match=re.escape(words)):
            ladder("bridgette", *args, progress=lambda line: pytest.fail(f"warmed up: {line}"))
    with pytest.raises(TypeError, match="progress must be a function of one line of text or None, got 5"):
        ladder("bridgette", rules, 1, 1, 1, (1,), progress=5)  # "'int' object is not callable" once warm


def test_a_ladder_kept_with_its_worlds_in_another_order_is_the_same_ladder(tmp_path):
    """A folder kept before --worlds was put in order ([2, 1]) is the ladder 1,2 now, not one
    of another configuration; other worlds are still another's."""
    from sim.ladder import KIND, LadderError, prepare_out

    identity = {"game": "bid-euchre", "seed": 3, "games": 30, "dd_games": 30, "worlds": [1, 2], "bid_worlds": 0,
                "rules": {}}
    (tmp_path / "lad").mkdir()
    (tmp_path / "lad" / "ladder.json").write_text(json.dumps({"kind": KIND, **identity, "worlds": [2, 1]}))
    with prepare_out(tmp_path / "lad", identity):
        pass
    with pytest.raises(LadderError, match=r"differs in: worlds"):
        with prepare_out(tmp_path / "lad", {**identity, "worlds": [1, 4]}):
            pass
