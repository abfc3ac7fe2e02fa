"""Run folders through python -m sim.run: determinism, resume, rules, bad input, sim.show."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from sim.rules import BridgetteRules, option_table
from sim.store import load_records
from tests.commands import in_process

ROOT = Path(__file__).resolve().parents[1]


def cli(module, *args):
    return in_process(module, *args)


def run(*args, **kw):
    return cli("sim.run", *args, **kw)


def records(path, kind="deals"):
    return load_records(path, kind).reset_index(drop=True)


def same_run(a: Path, b: Path):
    for kind in ("deals", "games"):
        pd.testing.assert_frame_equal(records(a, kind), records(b, kind))
    assert (a / "summary.json").read_text() == (b / "summary.json").read_text()


def test_threads_and_block_sizes_give_identical_records(tmp_path):
    outs = {}
    for name, extra in {"t1": ["--threads", "1", "--block-size", "1000"],
                        "t2": ["--threads", "2", "--block-size", "1000"], "b700": ["--block-size", "700"]}.items():
        outs[name] = tmp_path / name
        result = run("--games", "2100", "--seed", "4", "--quiet", "--out", str(outs[name]), *extra)
        assert result.returncode == 0, result.stderr
        assert result.stdout == ""
    same_run(outs["t1"], outs["t2"])
    same_run(outs["t1"], outs["b700"])
    assert len(list((outs["b700"] / "records").glob("deals-*.parquet"))) == 3
    manifest = json.loads((outs["t1"] / "manifest.json").read_text())
    assert manifest["complete"] and manifest["blocks_done"] == [0, 1, 2]
    assert manifest["config"]["rules"] == BridgetteRules().to_dict()
    assert manifest["config"]["rules_version"] == sim.RULES_VERSION
    deals = records(outs["t1"])
    assert len(deals) == json.loads((outs["t1"] / "summary.json").read_text())["deals"]
    assert set(deals.columns) >= {"game", "deal", "dealer", "upcard", "upcard_class", "colon_little",
                                  "colon_royal", "colon_grand", "contract", "declarer", "doubled",
                                  "tricks0", "tricks1", "score0", "score1", "policy0", "policy1"}
    assert (deals["tricks0"] + deals["tricks1"])[deals["contract"] != "pass"].eq(13).all()


def test_ctrl_c_before_the_first_block_is_kept_leaves_no_folder(tmp_path):
    """A run stopped while its first block plays has nothing to resume: its folder goes, and
    the line says to play it again (before: "resume the run in" a folder that held nothing)."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "sim.run", "--games", "2e6", "--block-size", "1000000", "--quiet",
                             "--threads", "1", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (out / "manifest.json").exists():
        time.sleep(0.01)
    time.sleep(0.3)  # into the first block, of a million games (seconds on one thread)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err == "interrupted; nothing was kept; rerun the same command to play it\n"
    assert not out.exists()


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_resume_after_interruption_gives_identical_records(tmp_path, how):
    args = ["--games", "12000", "--seed", "12", "--block-size", "400", "--quiet"]  # 30 blocks
    whole = tmp_path / "whole"
    assert run(*args, "--out", str(whole)).returncode == 0
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "sim.run", *args, "--out", str(cut)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((cut / "blocks").glob("*.json"))) < 5:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    done = len(list((cut / "blocks").glob("*.json")))
    assert 5 <= done < 30, "the run was not interrupted mid-way"
    if how == "interrupt":
        assert proc.returncode == 130 and "rerun the same command to resume" in err
    assert not (cut / "summary.json").exists()
    resumed = run(*args, "--out", str(cut))
    assert resumed.returncode == 0, resumed.stderr
    same_run(whole, cut)


def test_set_and_rules_change_the_manifest_and_the_outcome(tmp_path):
    variant = tmp_path / "v.toml"
    variant.write_text('[exchange]\nupcard_to = "dead"\n')
    out = tmp_path / "varied"
    result = run("--games", "300", "--seed", "3", "--out", str(out), "--rules", str(variant),
                 "--set", "deck.colons=[]", "--set", "exchange.dealer_draw_ace=10")
    assert result.returncode == 0, result.stderr
    assert "deck.colons=[]" in result.stdout and "exchange.upcard_to=dead" in result.stdout
    rules = json.loads((out / "manifest.json").read_text())["config"]["rules"]
    assert rules["deck"]["colons"] == [] and rules["exchange"]["upcard_to"] == "dead"
    assert rules["exchange"]["dealer_draw_ace"] == 10
    deals = records(out)
    assert (deals[["colon_little", "colon_royal", "colon_grand"]] == -1).all().all()
    assert set(deals["upcard_class"]) <= {"numeral", "face", "ace"}
    default = tmp_path / "default"
    assert run("--games", "300", "--seed", "3", "--out", str(default)).returncode == 0
    assert (records(default)["colon_grand"] >= 0).any()


def test_shipped_variant_by_name(tmp_path):
    out = tmp_path / "named"
    result = run("--games", "50", "--rules", "bridgette-no-colons", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "manifest.json").read_text())["config"]["rules"]["deck"]["colons"] == []


def test_records_modes_share_one_summary(tmp_path):
    for mode in ("deals", "games", "none"):
        assert run("--games", "500", "--seed", "8", "--records", mode, "--quiet",
                   "--out", str(tmp_path / mode)).returncode == 0
    files = {m: sorted(p.name.split("-")[0] for p in (tmp_path / m / "records").glob("*.parquet"))
             for m in ("deals", "games", "none")}
    assert files == {"deals": ["deals", "games"], "games": ["games"], "none": []}
    summaries = {(tmp_path / m / "summary.json").read_text() for m in ("deals", "games", "none")}
    assert len(summaries) == 1


def test_summary_matches_the_records(tmp_path):
    out = tmp_path / "s"
    result = run("--games", "1000", "--seed", "21", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "contracts made by level and strain" in result.stdout and "first dealer wins" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    deals, games = records(out), records(out, "games")
    played = deals[deals["contract"] != "pass"]
    assert summary["contracts_made"]["successes"] == int(played["made"].sum())
    for name, r in summary["contracts"].items():
        rows = played[played["contract"] == name]
        assert r["n"] == len(rows) and r["successes"] == int(rows["made"].sum())
    assert summary["deal_score"]["seat1"]["mean"] == pytest.approx(deals["score1"].mean())
    assert summary["game_total"]["seat0"]["p50"] == int(games["total0"].quantile(0.5, interpolation="lower"))
    assert summary["game_wins"]["seat0"]["successes"] == int((games["winner"] == 0).sum())
    first_dealer_won = (games["winner"] == games["first_dealer"]).sum()
    assert summary["first_dealer_wins"]["successes"] == int(first_dealer_won)


def test_show_prints_a_range_of_games_for_a_referee(tmp_path):
    """--index N --count K prints games N..N+K-1, each deal a replay line with its game's
    index and whether it counted (a passed-out deal redealt, C-5, does not): the same lines
    as K single shows, the deals the run's records hold, and sim.replay agrees with each.
    Before, a referee needed a process per game and could not tell a redeal from a deal."""
    args = ["--seed", "1", "--set", "auction.passed_out=redeal", "--policy", "all=random"]  # game 35 passes out
    shown = cli("sim.show", "--index", "32", "--count", "6", "--json", *args)
    assert shown.returncode == 0, shown.stderr
    lines = [json.loads(line) for line in shown.stdout.splitlines()]
    one_by_one = [json.loads(line) for i in range(32, 38)
                  for line in cli("sim.show", "--index", str(i), "--json", *args).stdout.splitlines()]
    assert lines == one_by_one and sorted({line["index"] for line in lines}) == list(range(32, 38))
    redealt = [line for line in lines if not line["counted"]]
    assert redealt and all(line["expect"]["contract"] == "pass" for line in redealt)
    out = tmp_path / "r"
    assert run("--games", "38", "--out", str(out), "--quiet", *args).returncode == 0
    deals = records(out)
    assert [[int(r.score0), int(r.score1)] for r in deals[deals["game"] >= 32].itertuples()] == \
        [line["expect"]["score"] for line in lines if line["counted"]]
    (tmp_path / "g.jsonl").write_text(shown.stdout)
    assert cli("sim.replay", str(tmp_path / "g.jsonl")).returncode == 0
    both = cli("sim.show", "--index", "32", "--count", "2", "--deal", "0", *args)
    assert both.returncode == 2 and "--deal picks a deal of one game" in both.stderr


def test_show_agrees_with_the_run(tmp_path):
    out = tmp_path / "r"
    args = ["--seed", "31", "--set", "exchange.upcard_to=dealer", "--policy", "1=random"]
    assert run("--games", "40", "--out", str(out), "--quiet", *args).returncode == 0
    deals = records(out)
    for index in (0, 17, 39):
        shown = cli("sim.show", "--index", str(index), "--json", *args)
        assert shown.returncode == 0, shown.stderr
        lines = [json.loads(l) for l in shown.stdout.splitlines()]
        counted = [l["expect"] for l in lines if not (l["expect"]["contract"] == "pass")]
        rows = deals[deals["game"] == index]
        assert [[int(r.score0), int(r.score1)] for r in rows.itertuples()] == [e["score"] for e in counted]
        assert all(l["rules"] == {"exchange": {"upcard_to": "dealer"}} for l in lines)
        replay_file = tmp_path / f"g{index}.jsonl"
        replay_file.write_text(shown.stdout)
        assert cli("sim.replay", str(replay_file)).returncode == 0
    text = cli("sim.show", "--index", "17", "--deal", "2", *args)
    assert text.returncode == 0
    row = deals[(deals["game"] == 17) & (deals["deal"] == 2)].iloc[0]
    assert f"deal 2: dealer seat {row['dealer']}" in text.stdout
    assert "trick 13" in text.stdout or row["contract"] == "pass"
    assert f"scores seat 0 +{row['score0']}, seat 1 +{row['score1']}" in text.stdout or row["contract"] == "pass"


def test_api_mirrors_the_cli(tmp_path):
    api = sim.simulate(games=600, seed=5, out=tmp_path / "api", policies={"all": "heuristic"},
                       rules={"exchange": {"upcard_to": "dead"}}, block_size=250)
    assert run("--games", "600", "--seed", "5", "--set", "exchange.upcard_to=dead", "--quiet",
               "--out", str(tmp_path / "cli")).returncode == 0
    same_run(tmp_path / "api", tmp_path / "cli")
    assert api.summary["games"] == 600 and len(api.games()) == 600
    assert sim.load_run(tmp_path / "api").summary == api.summary


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_list_options_and_docs_cover_every_option(game):
    from sim.rules import GAMES

    result = run("--list-options", "--game", game)
    assert result.returncode == 0
    docs = (ROOT / "docs" / "rules.md").read_text()
    for row in option_table(GAMES[game]):
        assert row["option"] in result.stdout
        assert f"`{row['option']}`" in docs


@pytest.mark.parametrize("flags", [["--set", "exchange.nondealer_draw=99"], ["--seed", "1"], ["--seed", "5"],
                                   ["--games", "10"]])
def test_list_options_refuses_the_flags_it_does_not_read(flags):
    """A flag --list-options would pass over (a bad --set among them) is one line and status
    2, not a listing as if it had been read."""
    result = run("--list-options", *flags)
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert result.stderr == (f"python -m sim.run: error: --list-options lists a game's rule options and takes only "
                             f"--game or --rules: drop {flags[0]} (see --help)\n")


def test_list_options_of_a_variant_lists_its_games_options():
    """A variant picks its game, so --list-options --rules lists that game's options."""
    assert run("--list-options", "--rules", "bid-euchre-joker").stdout == run("--list-options", "--game",
                                                                              "bid-euchre").stdout


def test_every_shipped_variant_loads():
    from sim.rules import GAMES, VARIANTS_DIR, load_rules_file

    shipped = sorted(VARIANTS_DIR.glob("*.toml"))
    assert {p.stem.split("-")[0] for p in shipped} == {"bridgette", "draw", "bid"}
    for path in shipped:
        game = next(g for g in GAMES if path.stem.startswith(g))
        assert load_rules_file(game, path.stem) != GAMES[game]()


@pytest.mark.parametrize("game,variant", [("draw-bridge", "draw-bridge-must-follow"),
                                          ("bid-euchre", "bid-euchre-double-deck"),
                                          ("bid-euchre", "bid-euchre-joker")])
def test_other_games_run_and_show(tmp_path, game, variant):
    out = tmp_path / game
    result = run("--game", game, "--games", "60", "--seed", "6", "--rules", variant, "--out", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    deals, games = records(out), records(out, "games")
    assert summary["games"] == len(games) == 60 and summary["deals"] == len(deals)
    for index in (0, 59):
        shown = cli("sim.show", "--game", game, "--seed", "6", "--index", str(index), "--rules", variant, "--json")
        assert shown.returncode == 0, shown.stderr
        lines = [json.loads(l) for l in shown.stdout.splitlines()]
        rows = deals[deals["game"] == index]
        scores = [l["expect"]["score"] for l in lines]  # C-5 "next_deal": a passed-out deal counts, scoring 0
        assert scores == [[int(r.score0), int(r.score1)] for r in rows.itertuples()]
        replay_file = tmp_path / f"{game}-{index}.jsonl"
        replay_file.write_text(shown.stdout)
        for engine in ("reference", "kernel"):
            assert cli("sim.replay", str(replay_file), "--engine", engine).returncode == 0
    words = cli("sim.show", "--game", game, "--seed", "6", "--index", "3", "--rules", variant)
    assert words.returncode == 0 and "game 3 of seed 6" in words.stdout
    # --game bridgette, the default, named with another game's run folder (shown as its own before)
    other = cli("sim.show", str(out), "--game", "bridgette", "--deal", "0")
    assert other.returncode == 2 and f"--game bridgette: {out} is a {game} run; leave out --game" in other.stderr


@pytest.mark.parametrize("args,message", [
    (["--games", "-5"], "not a whole number"),
    (["--games", "many"], "'many' is not a number"),
    (["--games", "10", "--game", "hearts"], "invalid choice: 'hearts'"),
    (["--games", "10", "--game", "draw-bridge", "--rules", "bid-euchre-joker"], "not one of draw-bridge"),
    (["--games", "10", "--set", "exchange.upcard_too=dealer"], "did you mean 'exchange.upcard_to'"),
    (["--games", "10", "--set", "exchange.dealer_draw_ace=28"], "the stock holds only 29"),
    (["--games", "10", "--set", "exchange.dealer_draw_ace=many"], "must be an integer"),
    (["--games", "10", "--set", "upcard_to"], "--set needs KEY=VALUE"),
    (["--games", "10", "--policy", "0=smart"], "unknown policy 'smart'"),
    (["--games", "10", "--policy", "0=heuristic:boldness=2"], "has no parameter 'boldness'"),
    (["--games", "10", "--policy", "0=heuristic:aggression=x"], "must be a number"),
    (["--games", "10", "--policy", "2=random"], "seat '2' does not exist"),
    (["--games", "10", "--policy", "-1=random"], "seat '-1' does not exist"),  # argparse's "expected one argument"
    (["--games", "10", "--game", "bid-euchre", "--policy", "4=random"], "seat '4' does not exist"),
    (["--games", "10", "--policy", "random"], "--policy needs SEAT=NAME"),
    (["--games", "10", "--rules", "/nonexistent/v.toml"], "cannot read rules file"),
    (["--games", "10", "--rules", "bridgette-no-colon"], "did you mean 'bridgette-no-colons'"),
    (["--games", "10", "--records", "all"], "invalid choice: 'all'"),
])
def test_bad_input_exits_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_bad_rules_file_and_output_folders(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[exchange\nupcard_to = 1\n")
    a_file = tmp_path / "file"
    a_file.write_text("keep me")
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("keep me too")
    run_dir = tmp_path / "run"
    assert run("--games", "20", "--seed", "1", "--out", str(run_dir), "--quiet").returncode == 0
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    cases = [(["--rules", str(bad)], "is not valid TOML"),
             (["--rules", "/dev/zero"], "rules file /dev/zero is larger than 1 MiB: not a rules file"),
             (["--out", str(a_file)], "is a file"),
             (["--out", str(stray)], "is not empty and is not a run folder"),
             (["--out", os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")], "\\udce9' is not UTF-8"),
             (["--out", str(run_dir), "--seed", "2"], "another configuration (differs in: seed)"),
             (["--out", str(run_dir), "--set", "game.deals=4"], "differs in: rules")]
    for args, message in cases:
        result = run("--games", "20", *args)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert a_file.read_text() == "keep me" and (stray / "notes.txt").read_text() == "keep me too"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "file", "run", "stray"]
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before
    timing = json.loads((run_dir / "manifest.json").read_text())["timing"]
    again = run("--games", "20", "--seed", "1", "--out", str(run_dir))
    assert again.returncode == 0 and "already complete" in again.stdout
    # Rerun, the finished run keeps the timing of the play that finished it (it was zeros).
    assert json.loads((run_dir / "manifest.json").read_text())["timing"] == timing and timing["games_played_now"] == 20


def test_a_run_begun_by_other_kernels_or_policy_defaults_is_not_resumed(tmp_path):
    """The manifest records the kernels' source hash and every policy parameter, so a run
    folder started by another engine, or under other policy defaults, is refused."""
    run_dir = tmp_path / "run"
    assert run("--games", "20", "--out", str(run_dir), "--quiet").returncode == 0
    manifest_path = run_dir / "manifest.json"
    original = manifest_path.read_text()
    config = json.loads(original)["config"]
    assert config["policy_params"][0]["aggression"] == 1.0 and len(config["kernels"]) == 16
    for key, value in (("kernels", "0" * 16), ("policy_params", [{}, {}])):
        manifest = json.loads(original)
        manifest["config"][key] = value
        manifest_path.write_text(json.dumps(manifest))
        result = run("--games", "20", "--out", str(run_dir))
        assert result.returncode == 2 and f"differs in: {key}" in result.stderr, result.stderr
    manifest_path.write_text(original)
    assert "already complete" in run("--games", "20", "--out", str(run_dir)).stdout


def test_progress_bar_on_a_terminal_only(tmp_path):
    """A terminal gets a progress bar (games done, games/s, time left); a pipe gets none."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a real size
    chunks = []

    def read_terminal():
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read_terminal)
    reader.start()
    proc = subprocess.Popen([sys.executable, "-m", "sim.run", "--games", "3000", "--block-size", "500",
                             "--out", str(tmp_path / "tty")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=follower, text=True)
    os.close(follower)
    proc.communicate(timeout=300)
    reader.join(timeout=60)
    os.close(leader)
    bar = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0
    assert "3.00k/3.00k" in bar and "games/s" in bar and "<00:00" in bar
    piped = run("--games", "3000", "--block-size", "500", "--out", str(tmp_path / "pipe"))
    assert piped.returncode == 0 and piped.stderr == ""
    quiet = subprocess.run([sys.executable, "-m", "sim.run", "--games", "3000", "--quiet", "--out",
                            str(tmp_path / "q")], cwd=ROOT, capture_output=True, text=True)
    assert quiet.stdout == "" and quiet.stderr == ""


def test_corrupt_manifest_is_refused(tmp_path):
    out = tmp_path / "r"
    assert run("--games", "10", "--out", str(out), "--quiet").returncode == 0
    (out / "manifest.json").write_text("{ half a manifest")
    result = run("--games", "10", "--out", str(out))
    assert result.returncode == 2 and "not a run manifest" in result.stderr


def test_bid_euchre_made_is_null_on_void_hands(tmp_path):
    """A void hand has no bid to make: ``made`` is null there, and elsewhere whether the
    bidding team took the bid's tricks (E-7: a number bid needs that many, 6A and 6M all six)."""
    run = sim.simulate(game="bid-euchre", games=20, seed=3, policies={"all": "random"}, out=tmp_path / "run",
                       threads=1)
    deals = run.deals()
    void = deals["void"] != "no"
    assert void.any() and (~void).any()
    assert deals.loc[void, "made"].isna().all() and deals.loc[~void, "made"].notna().all()
    bids = deals[~void]
    team_tricks = bids["tricks0"].where(bids["bidder"] % 2 == 0, bids["tricks1"])
    need = bids["bid"].astype(str).map(lambda b: 6 if b in ("6A", "6M") else int(b))
    assert (bids["made"].astype(bool) == (team_tricks >= need)).all()
    assert deals["made"].mean() == pytest.approx((team_tricks >= need).mean())  # void hands left out


def advantage_from_records(deals: pd.DataFrame, sides, games: int) -> tuple[float, list[float]]:
    """The dealer's side's deal score minus the other's, per deal, with its 95% interval over
    games (ratio estimator: Var = sum((y_g - R n_g)^2) / (nbar^2 G (G-1))), from the records."""
    dealer_side = deals["dealer"].map(dict(enumerate(sides)))
    diff = (deals["score0"] - deals["score1"]).where(dealer_side == 0, deals["score1"] - deals["score0"])
    per_game = pd.DataFrame({"y": diff, "n": 1, "game": deals["game"]}).groupby("game")[["y", "n"]].sum()
    per_game = per_game.reindex(range(games), fill_value=0)  # games without such a deal: y = n = 0
    y, n = per_game["y"].astype(float), per_game["n"].astype(float)
    r, g = y.sum() / n.sum(), len(per_game)
    half = 1.959963984540054 * (((y - r * n) ** 2).sum() / ((n.sum() / g) ** 2 * g * (g - 1))) ** 0.5
    return r, [r - half, r + half]


def test_dealer_advantage_in_the_summary_matches_the_records(tmp_path):
    full, bare = tmp_path / "deals", tmp_path / "none"
    result = run("--games", "400", "--seed", "13", "--block-size", "150", "--out", str(full))
    assert result.returncode == 0, result.stderr
    assert run("--games", "400", "--seed", "13", "--block-size", "150", "--records", "none", "--quiet",
               "--out", str(bare)).returncode == 0
    adv = json.loads((full / "summary.json").read_text())["dealer_advantage"]
    deals = records(full)
    value, ci = advantage_from_records(deals, (0, 1), 400)
    assert adv["value"] == pytest.approx(value, rel=1e-12) and adv["ci95"] == pytest.approx(ci, rel=1e-9)
    assert adv["deals"] == len(deals) and adv["games"] == 400
    assert f"{value:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]" in result.stdout
    # By up-card class (B-3), each Colon apart; a class's games without such a deal count with n = 0.
    colon = deals["upcard"].astype(str).isin(["CL", "CR", "CG"])
    groups = {"numeral": ~colon & (deals["upcard_class"] == "numeral"),
              "ace": ~colon & (deals["upcard_class"] == "ace"), "Royal Colon": deals["upcard"] == "CR"}
    by = {e["upcard"]: e for e in adv["by_upcard"]}
    assert [e["upcard"] for e in adv["by_upcard"]] == ["numeral", "face", "ace", "Little Colon", "Royal Colon",
                                                        "Grand Colon"]
    assert sum(e["deals"] for e in adv["by_upcard"]) == len(deals)
    for name, sel in groups.items():
        v, c = advantage_from_records(deals[sel], (0, 1), 400)
        assert by[name]["value"] == pytest.approx(v, rel=1e-12) and by[name]["ci95"] == pytest.approx(c, rel=1e-9)
        assert by[name]["deals"] == int(sel.sum())
    # The same seed kept without records reports the same advantage, from its block aggregates alone.
    assert json.loads((bare / "summary.json").read_text())["dealer_advantage"] == adv


def test_dealer_advantage_of_a_team_game_matches_the_records(tmp_path):
    # Bid Euchre: the dealer's team (seats 0+2 or 1+3) minus the other team, per hand.
    run_ = sim.simulate(game="bid-euchre", games=60, seed=4, block_size=25, out=tmp_path / "e")
    adv, deals = run_.summary["dealer_advantage"], run_.deals()
    value, ci = advantage_from_records(deals, (0, 1, 0, 1), 60)
    assert adv["value"] == pytest.approx(value, rel=1e-12) and adv["ci95"] == pytest.approx(ci, rel=1e-9)
    assert "by_upcard" not in adv


def test_deals_reads_only_the_asked_columns_and_rows(tmp_path):
    import pyarrow.compute as pc

    from sim.store import RunError

    run_ = sim.simulate(games=300, seed=17, block_size=100, out=tmp_path / "r", threads=1)
    everything = run_.deals()
    columns = ["game", "upcard_class", "score0", "made"]
    expr = (pc.field("contract") != "pass") & (pc.field("level") >= 3)  # columns not read
    kept = everything[(everything["contract"] != "pass") & (everything["level"] >= 3)]
    assert 0 < len(kept) < len(everything)
    got = run_.deals(columns=columns, filter=expr)
    pd.testing.assert_frame_equal(got, kept[columns].reset_index(drop=True))
    aces = everything.loc[everything["upcard_class"] == "ace", ["score1"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(run_.deals(["score1"], [("upcard_class", "=", "ace")]), aces)
    games = run_.games()
    long = games.loc[games["deals"] > 6, ["game", "winner"]].reset_index(drop=True)  # tie-breaks (B-15)
    assert 0 < len(long) < len(games)
    pd.testing.assert_frame_equal(run_.games(["game", "winner"], pc.field("deals") > 6), long)
    with pytest.raises(RunError, match="no column 'scores0' in the deals records"):
        run_.deals(columns=["scores0"])
    with pytest.raises(RunError, match="cannot be applied to the deals records"):
        run_.deals(filter=pc.field("nope") > 1)
    # Filters of tuples are checked in the project's words (pyarrow's: "not enough values to
    # unpack", "no kernel matching input types (int8, string)", "Malformed filters").
    both = [("level", ">=", 3), ("upcard_class", "in", ["ace", "face"])]
    pd.testing.assert_frame_equal(run_.deals(filter=[both, [("made", "==", True)]]), everything[
        (everything["level"] >= 3) & everything["upcard_class"].isin(["ace", "face"]) | everything["made"]
    ].reset_index(drop=True))
    level3 = run_.deals(filter=[("level", "in", [1, 2, 3])])
    for same in ([["level", "in", [1, 2, 3]]], (("level", "in", (1, 2, 3)),), [("level", "in", np.arange(1, 4))],
                 [("level", "in", range(1, 4))]):  # every form pyarrow takes: lists, tuples, arrays, ranges
        pd.testing.assert_frame_equal(run_.deals(filter=same), level3)
    for bad, words in (([("level", ">")], "('level', '>') is no (column, op, value) tuple"),
                       ([], "a filter is a pyarrow expression or a list of (column, op, value) tuples"),
                       ([("nope", ">", 1)], "no column 'nope' in the records"),
                       ([("level", "~", 3)], "'~' is no operator of a filter"),
                       ([("level", "in", 3)], "'in' takes a list of values, got 3"),
                       ([("level", ">", "3")], "column 'level' holds numbers, compared with '3'"),
                       ([("contract", "==", 3)], "column 'contract' holds text, compared with 3"),
                       ([("made", "==", 1)], "column 'made' holds true or false, compared with 1"),
                       ([("score0", ">", 10**30)], "is beyond every value of column 'score0'")):
        with pytest.raises(RunError, match=re.escape(words)):
            run_.deals(filter=bad)
    for columns in (5, ["game", 5]):
        with pytest.raises(RunError, match="columns must be a column's name or a list of names, got"):
            run_.deals(columns=columns)
    with pytest.raises(RunError, match="columns names 'score0' twice"):  # before: pyarrow's "Can't unify schema"
        run_.deals(columns=["score0", "game", "score0"])
    with pytest.raises(RunError, match=r"a run folder is a path \(str or pathlib.Path\), got 5"):
        sim.load_run(5)


def test_block_files_keep_bounds_of_the_numeric_columns_only(tmp_path):
    """A filter on ``game`` can skip whole block files by their min/max statistics; the
    categorical columns, whose every block holds nearly every name, are written without."""
    import pyarrow.parquet as pq

    sim.simulate(games=300, seed=17, block_size=100, out=tmp_path / "r", threads=1)
    for k in range(3):
        meta = pq.ParquetFile(tmp_path / "r" / "records" / f"deals-{k:06d}.parquet").metadata
        stats = {meta.schema.column(i).name: meta.row_group(0).column(i).statistics
                 for i in range(meta.num_columns)}
        assert (stats["game"].min, stats["game"].max) == (100 * k, 100 * k + 99)
        assert stats["score0"].has_min_max
        assert stats["contract"] is None and stats["upcard_class"] is None


# A width the default heuristics reach after a few blocks of seed 21, well before the cap.
WIDTH = 14
UNTIL = ["--games", "6000", "--seed", "21", "--block-size", "500", "--until", f"dealer_advantage:{WIDTH}"]


def test_until_stops_at_the_first_block_within_the_width_on_any_thread_count(tmp_path):
    outs = {t: tmp_path / f"t{t}" for t in (1, 2)}
    for t, out in outs.items():
        result = run(*UNTIL, "--threads", str(t), "--out", str(out))
        assert result.returncode == 0, result.stderr
    same_run(outs[1], outs[2])
    manifest = json.loads((outs[1] / "manifest.json").read_text())
    played = manifest["games_played"]
    # Recomputed from the run's own deal records, block prefix by block prefix.
    deals = records(outs[1])
    halves = []
    for games in range(500, played + 1, 500):
        _, (lo, hi) = advantage_from_records(deals[deals["game"] < games], (0, 1), games)
        halves.append((hi - lo) / 2)
    assert all(h > WIDTH for h in halves[:-1]) and halves[-1] <= WIDTH
    assert 500 < played < 6000 and deals["game"].max() == played - 1
    assert manifest["config"]["until"] == f"dealer_advantage:{WIDTH}" and manifest["config"]["games"] == 6000
    assert manifest["until"]["reached"] and manifest["until"]["achieved_half_width"] == pytest.approx(halves[-1])
    assert manifest["blocks_done"] == list(range(played // 500)) and manifest["blocks"] == played // 500
    assert f"reached after {played:,} games" in run(*UNTIL, "--out", str(tmp_path / "again")).stdout
    loaded = sim.load_run(outs[1])
    assert loaded.summary["games"] == played and len(loaded.games()) == played
    report = cli("analysis.report", str(outs[1]), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    assert f"{played:,} (--until dealer_advantage:{WIDTH}: reached" in (tmp_path / "report" / "index.html").read_text()
    # The same in the Python API.
    api = sim.simulate(games=6000, seed=21, block_size=500, until=f"dealer_advantage:{WIDTH}", out=tmp_path / "api")
    assert api.manifest["games_played"] == played


def test_until_resumes_to_the_same_stopping_block(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert run(*UNTIL, "--quiet", "--out", str(whole)).returncode == 0
    played = json.loads((whole / "manifest.json").read_text())["games_played"]
    # A folder interrupted after its first block: its manifest not yet complete, later blocks absent.
    assert run(*UNTIL, "--quiet", "--out", str(cut)).returncode == 0
    for f in sorted((cut / "blocks").glob("*.json"))[1:]:
        f.unlink()
    for f in (cut / "records").glob("*.parquet"):
        if not f.name.endswith("-000000.parquet"):
            f.unlink()
    (cut / "summary.json").unlink()
    manifest = json.loads((cut / "manifest.json").read_text())
    for key in ("until", "games_played", "timing"):
        del manifest[key]
    manifest.update(complete=False, blocks_done=[0], blocks=12)
    (cut / "manifest.json").write_text(json.dumps(manifest))
    resumed = run(*UNTIL, "--out", str(cut))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{played - 500:,} games played now" in resumed.stdout
    same_run(whole, cut)
    # Another width is another run: the folder is refused.
    other = run(*UNTIL[:-1], f"dealer_advantage:{WIDTH + 1}", "--out", str(cut))
    assert other.returncode == 2 and "differs in: until" in other.stderr


def test_until_cap_reached_first_says_so_in_one_line(tmp_path):
    out = tmp_path / "cap"
    result = run("--games", "1000", "--block-size", "500", "--until", "first_dealer_wins:0.001",
                 "--records", "games", "--out", str(out))
    assert result.returncode == 0, result.stderr
    line = "--until first_dealer_wins:0.001: the cap of 1,000 games was reached first"
    assert [x for x in result.stderr.splitlines() if "cap" in x][0].startswith(line)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games_played"] == 1000 and not manifest["until"]["reached"]
    # The half-width is the summary's Wilson interval's, recomputed from the game records.
    games = records(out, "games")
    p, n, z = (games["winner"] == games["first_dealer"]).mean(), len(games), 1.959963984540054
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    assert manifest["until"]["achieved_half_width"] == pytest.approx(half, rel=1e-9)


def test_until_capped_at_one_game_says_it_has_no_interval(tmp_path):
    """One game gives no interval of the dealer's advantage: the cap line says so, on the run
    and on its rerun (before: a TypeError traceback formatting the missing half-width)."""
    for _ in range(2):
        result = run("--games", "1", "--until", "dealer_advantage:1", "--out", str(tmp_path / "one"), "--quiet")
        assert result.returncode == 0 and result.stderr == (
            "--until dealer_advantage:1: the cap of 1 game was reached first (no interval from so few); the run is "
            "complete up to the cap\n")


@pytest.mark.parametrize("spec,message", [
    ("dealer_advantge:0.5", "unknown metric 'dealer_advantge'; did you mean 'dealer_advantage'?"),
    ("mean_score:0.5", "unknown metric 'mean_score'"),
    ("dealer_advantage:0", "the half-width must be a positive number, got '0'"),
    ("dealer_advantage:-1", "the half-width must be a positive number, got '-1'"),
    ("dealer_advantage:nan", "the half-width must be a positive number"),
    ("dealer_advantage", "needs METRIC:HALF_WIDTH"),
    # A share's whole range within the half-width: met before any game (it was accepted).
    ("contract_made:5", "contract_made is a share from 0 to 1, which a half-width of 5 spans whole"),
])
def test_until_bad_specs_exit_2_with_one_line_before_playing(tmp_path, spec, message):
    out = tmp_path / "never"
    result = run("--games", "1000", "--until", spec, "--out", str(out))
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr
    assert not out.exists()
    with pytest.raises(ValueError, match=re.escape(message)):
        sim.simulate(games=1000, until=spec, out=out)
    assert not out.exists()


def test_a_deal_run_refuses_until_on_deals_per_game(tmp_path):
    """A deal run plays one deal a game: stopping on deals_per_game would stop at once, on a
    figure that is always 1."""
    result = run("--deals", "100", "--until", "deals_per_game:0.1", "--out", str(tmp_path / "never"))
    assert result.returncode == 2 and result.stderr.strip().endswith("a deal run plays one deal a game, so it is "
                                                                      "always 1")
    assert not (tmp_path / "never").exists()


def test_until_with_a_cluster_is_refused_in_one_line(tmp_path):
    result = run("--games", "1000", "--until", "dealer_advantage:1", "--cluster", "local:1",
                 "--out", str(tmp_path / "never"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "--until plays blocks in order and cannot be used with --cluster" in result.stderr
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("flags, words", [
    (["--rules", "bid-euchre-jokr"], "no rules file 'bid-euchre-jokr' and no shipped variant of that name"),
    (["--rules", "bid-euchre-joker", "--game", "bridgette"], "is a bid-euchre variant, not one of bridgette"),
    (["--rules", "./bridgette-no-colons"], "cannot read rules file bridgette-no-colons: No such file")])  # a path
def test_list_options_reads_the_variant_it_is_given(flags, words):
    """A mistyped variant, or one of another game than --game, listed Bridgette's options
    with status 0; the variant is now read, and a fault in it named, as a run names it.
    ./NAME is a path, read as a file: it was the shipped variant NAME where no file was."""
    result = run("--list-options", *flags)
    assert result.returncode == 2 and result.stdout == "" and words in result.stderr
    assert "Rule options of bid-euchre" in run("--list-options", "--rules", "bid-euchre-joker").stdout
