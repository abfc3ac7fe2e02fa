"""The README's quickstart and recipes, run as the README shows them, at a few hundred games.

Every fenced block of README.md marked ``console tested`` (``console tested slow``: only in
make test-all) is a list of commands (``$ python -m MODULE ARGS``) each followed by the
output it printed; ``...`` stands for lines left out. The commands are run in one folder,
in order (later recipes reuse earlier runs), with --games and --deals made small, and each
stretch of output between ``...`` lines must appear in the command's output, in order and
line after line, where a stretch at the top must be the output's first lines: the answers
come first. Numbers differ at the small size, so they are compared as numbers of any value;
so are the words of a verdict that a small run can change ("B higher", "not resolved").

Then the answers printed first are checked against what they summarize: a run's
summary.json and its deal records, a comparison's and a sweep's JSON results.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import shlex
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sim.store import read_sealed

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SMALL = {"--games": "300", "--deals": "600"}
SMALL_SLOW = {"--games": "6", "--deals": "40"}  # searching players: seconds, not minutes

NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?")
VERDICTS = re.compile(r"B higher|B lower|no difference shown")
BRACKETS = re.compile(r"\(between \S+ and \S+ by the settings' intervals\)"
                      r"|\(not resolved: the settings' intervals do not separate it\)")


def blocks(text: str) -> list[dict]:
    """The README's tested blocks: {"slow", "steps": [(command, [expected lines])]}."""
    found = []
    for match in re.finditer(r"^```console tested( slow)?\n(.*?)^```$", text, re.S | re.M):
        steps, lines = [], match.group(2).split("\n")[:-1]
        for line in lines:
            if line.startswith("$ "):
                steps.append([line[2:], []])
            elif steps and steps[-1][0].endswith("\\") and not steps[-1][1]:
                steps[-1][0] = steps[-1][0][:-1] + " " + line.strip()
            else:
                assert steps, f"README: output before any command in a tested block: {line!r}"
                steps[-1][1].append(line)
        found.append({"slow": bool(match.group(1)), "steps": [tuple(s) for s in steps]})
    return found


def normal(line: str) -> str:
    """A line with its numbers and small-run verdicts made general, its spacing collapsed."""
    line = BRACKETS.sub("(BRACKET)", VERDICTS.sub("VERDICT", line))
    return " ".join(NUMBER.sub("#", line).split())


def stretches(expected: list[str]) -> list[list[str]]:
    """The expected lines cut at each ``...``; the first is [] when the block starts with one."""
    out = [[]]
    for line in expected:
        if line.strip() == "...":
            out.append([])
        else:
            out[-1].append(line)
    return out


def check_output(command: str, expected: list[str], actual: str) -> None:
    got = [normal(l) for l in actual.splitlines()]
    at = 0
    for k, part in enumerate(stretches(expected)):
        want = [normal(l) for l in part]
        while want and not want[-1]:
            want.pop()
        if not want:
            continue
        if k == 0:  # the README shows the first lines: they must be the first lines
            assert got[:len(want)] == want, f"{command}: the output does not open as the README shows"
            at = len(want)
            continue
        for start in range(at, len(got) - len(want) + 1):
            if got[start:start + len(want)] == want:
                at = start + len(want)
                break
        else:
            raise AssertionError(f"{command}: the README's lines {part!r} are not in its output:\n{actual}")


def smaller(argv: list[str], sizes: dict) -> list[str]:
    return [sizes.get(argv[i - 1], a) if i else a for i, a in enumerate(argv)]


def run_command(command: str, sizes: dict) -> tuple[list[str], str]:
    """Run ``python -m MODULE ARGS`` in this process; its argv as run and its stdout."""
    argv = shlex.split(command)
    assert argv[:2] == ["python", "-m"], f"README: not a python -m command: {command}"
    module, args = argv[2], smaller(argv[3:], sizes)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = importlib.import_module(module).main(args)
    assert status == 0, f"{module} {args}: exit status {status}: {err.getvalue()}"
    return [module, *args], out.getvalue()


def play(found: list[dict], sizes: dict) -> list[tuple]:
    done = []
    for block in found:
        for command, expected in block["steps"]:
            argv, output = run_command(command, sizes)
            done.append((command, argv, expected, output))
    return done


@pytest.fixture(scope="module")
def readme_runs(tmp_path_factory):
    """Every fast tested block of the README, run in one folder: (folder, [(command, argv,
    expected, output)])."""
    found = [b for b in blocks(README.read_text(encoding="utf-8")) if not b["slow"]]
    folder = tmp_path_factory.mktemp("readme")
    with contextlib.chdir(folder):
        return folder, play(found, SMALL)


def test_readme_has_the_tested_recipes():
    """The quickstart and each recipe are tested blocks, and the README stays short."""
    text = README.read_text(encoding="utf-8")
    commands = [c for b in blocks(text) for c, _ in b["steps"]]
    for module in ("sim.run", "sim.sweep", "analysis.compare", "analysis.report"):
        assert any(c.startswith(f"python -m {module} ") for c in commands), module
    assert any("--policy all=pimc" in c for c in commands)
    assert len(text.splitlines()) <= 720


def test_the_readme_commands_print_what_it_shows(readme_runs):
    _, done = readme_runs
    assert len(done) >= 10
    for command, _, expected, output in done:
        check_output(command, expected, output)


def test_the_check_can_fail():
    """A line the output lacks, or answers that are not first, fail the check."""
    output = ("bridgette: 300 games, 1,800 deals, seed 1\n"
              "  answers, 95% intervals over games (contracts made: over contracts):\n")
    check_output("x", ["bridgette: 100,000 games, 601,364 deals, seed 1"], output)
    with pytest.raises(AssertionError):
        check_output("x", ["bridgette: 100,000 games, seed 1"], output)
    with pytest.raises(AssertionError):
        check_output("x", ["  answers, 95% intervals over games (contracts made: over contracts):"], output)
    with pytest.raises(AssertionError):
        check_output("x", ["...", "first dealer wins"], output)


def _output(done, module, *words):
    return next(o for c, argv, _, o in done if argv[0] == module and all(w in argv for w in words))


def test_a_run_opens_with_its_answers_from_its_summary(readme_runs):
    """sim.run's first lines: the size, then the dealer's advantage, the first dealer's
    wins and contracts made with the intervals of summary.json, then the players; the
    dealer's advantage also recomputed from the deal records."""
    folder, done = readme_runs
    lines = _output(done, "sim.run", "runs/first").splitlines()
    summary = json.loads((folder / "runs/first/summary.json").read_text())
    adv, wins, made = summary["dealer_advantage"], summary["first_dealer_wins"], summary["contracts_made"]
    assert lines[0] == f"bridgette: 300 games, {summary['deals']:,} deals, seed 1"
    assert lines[1] == "  answers, 95% intervals over games (contracts made: over contracts):"
    assert lines[2].split() == ["dealer's", "advantage", f"{adv['value']:+.2f}", "points", "per", "deal",
                                f"[{adv['ci95'][0]:+.2f},", f"{adv['ci95'][1]:+.2f}]"]
    assert lines[3].split() == ["first", "dealer", "wins", f"{100 * wins['rate']:.2f}%", "of", "games",
                                f"[{100 * wins['ci95'][0]:.2f}%,", f"{100 * wins['ci95'][1]:.2f}%]"]
    assert lines[4].split() == ["contracts", "made", f"{100 * made['rate']:.2f}%", "of", f"{made['n']:,}",
                                "contracts", f"[{100 * made['ci95'][0]:.2f}%,", f"{100 * made['ci95'][1]:.2f}%]"]
    assert lines[5].split() == ["players", "heuristic", "in", "both", "seats"]
    files = sorted((folder / "runs/first/records").glob("deals-*.parquet"))
    deals = pq.read_table(files[0]).to_pandas() if len(files) == 1 else None
    assert deals is not None, files
    assert len(deals) == summary["deals"]
    assert (deals["score_dealer"] - deals["score_nondealer"]).mean() == pytest.approx(adv["value"], abs=1e-9)
    assert (deals.loc[deals["level"] >= 0, "made"]).mean() == pytest.approx(made["rate"], abs=1e-12)
    # The details follow, and the next commands close the output.
    assert lines[7].startswith("rules: RULES.md defaults; run folder runs/first")
    assert lines[-9:-7] == ["next:", "  python -m analysis.report runs/first"]


def test_a_comparison_opens_with_b_minus_a(readme_runs):
    """analysis.compare's answers are the paired differences of its JSON result, with the
    rule it changes and the players of both runs."""
    from sim.comparison import compare_runs

    folder, done = readme_runs
    lines = _output(done, "analysis.compare", "runs/first", "runs/draw6").splitlines()
    result = compare_runs(folder / "runs/first", folder / "runs/draw6",
                          ["dealer_advantage", "first_dealer_wins", "contract_made"])
    assert lines[4] == "  answers, B - A with its 95% interval (paired):"
    d = result["metrics"]["dealer_advantage"]
    assert lines[5].split()[:6] == ["dealer's", "advantage", f"{d['diff']:+.2f}", "points", "per", "deal"]
    assert lines[5].split()[6:8] == [f"[{d['ci95'][0]:+.2f},", f"{d['ci95'][1]:+.2f}]"]
    for line, name in ((lines[6], "first_dealer_wins"), (lines[7], "contract_made")):
        r = result["metrics"][name]
        assert f"{100 * r['diff']:+.2f}% [{100 * r['ci95'][0]:+.2f}%, {100 * r['ci95'][1]:+.2f}%]" in line
        verdict = "B higher" if r["ci95"][0] > 0 else "B lower" if r["ci95"][1] < 0 else "no difference shown"
        assert line.endswith(verdict)
    assert lines[8].split() == ["rules", "B", "changes", "exchange.nondealer_draw", "2", "->", "6"]
    assert lines[9].split() == ["players", "heuristic", "in", "both", "seats", "in", "both", "runs"]


def test_a_sweep_opens_with_each_setting_and_its_balance_point(readme_runs):
    folder, done = readme_runs
    lines = _output(done, "sim.sweep").splitlines()
    result = read_sealed(folder / "runs/sweep-draw/sweep.json")
    assert lines[0] == "bridgette: 4 settings of exchange.nondealer_draw, 300 games each, seed 1"
    for line, row in zip(lines[3:7], result["settings"]):
        adv, wins = row["metrics"]["dealer_advantage"], row["metrics"]["first_dealer_wins"]
        words = line.split()
        assert words[0] == str(row["values"]["exchange.nondealer_draw"])
        assert words[1:4] == [f"{adv['value']:+.2f}", f"[{adv['value_ci95'][0]:+.2f},", f"{adv['value_ci95'][1]:+.2f}]"]
        assert words[4] == f"{100 * wins['value']:.2f}%"
    x = result["balance_point"]["dealer_advantage"]
    assert lines[7].startswith(f"  balance: dealer's advantage crosses 0.00 at exchange.nondealer_draw = {x:.2f} (")


@pytest.mark.slow
def test_the_readme_slow_blocks(tmp_path):
    """The recipes with searching players, at a few games (their search code compiles once
    per machine, minutes on a fresh cache)."""
    found = [b for b in blocks(README.read_text(encoding="utf-8")) if b["slow"]]
    assert found
    with contextlib.chdir(tmp_path):
        for command, _, expected, output in play(found, SMALL_SLOW):
            check_output(command, expected, output)


def test_the_answers_speak_each_games_words():
    """Bid Euchre's answers are per hand, by team and of bids; a deal run's are per deal.
    The summary here is written by hand, with the rates' intervals as given."""
    from sim.headline import run_headline

    summary = {"games": 500, "deals": 5159,
               "dealer_advantage": {"value": -0.18, "ci95": [-0.31, -0.06], "deals": 5159, "games": 500},
               "first_dealer_team_wins": {"rate": 0.46, "ci95": [0.4168, 0.5038], "n": 500},
               "bids_made": {"rate": 0.8864, "ci95": [0.8774, 0.8947], "n": 5157}}
    lines = run_headline("bid-euchre", summary, ["heuristic"] * 4, 1)
    assert lines[0] == "bid-euchre: 500 games, 5,159 hands, seed 1"
    assert lines[2].split() == ["dealer's", "advantage", "-0.18", "points", "per", "hand", "[-0.31,", "-0.06]"]
    assert lines[3].split() == ["first", "dealer's", "team", "wins", "46.00%", "of", "games", "[41.68%,", "50.38%]"]
    assert lines[4].split() == ["bids", "made", "88.64%", "of", "5,157", "bids", "[87.74%,", "89.47%]"]
    assert lines[5].split() == ["players", "heuristic", "in", "all", "4", "seats"]
    deal_run = {"deals": 600, "dealer_advantage": {"value": 10.0, "ci95": [5.0, 15.0], "deals": 600},
                "first_dealer_wins": {"rate": 0.5, "ci95": [0.46, 0.54], "n": 600},
                "contracts_made": {"rate": None, "ci95": None, "n": 0}}
    lines = run_headline("bridgette", deal_run, ["pimc", "heuristic"], 3, deal_run=True)
    assert lines[:2] == ["bridgette: 600 independent deals, seed 3",
                         "  answers, 95% intervals over deals (contracts made: over contracts):"]
    assert lines[3].split()[:5] == ["dealer", "wins", "the", "deal", "50.00%"] and "games" not in "".join(lines)
    assert lines[4].split() == ["contracts", "made", "-", "(nothing", "to", "measure)"]
    assert lines[5].split() == ["players", "0=pimc,", "1=heuristic"]
    # Deals passed out up to the redeal limit (C-5) count as no one's win, and say so; with
    # none played to its end there is no rate (before: "0 independent deals" above a dealer's
    # win rate of 0.00% [0.00%, 16.11%] over the 20 deals dealt).
    lines = run_headline("bridgette", dict(deal_run, games=620), ["pimc", "heuristic"], 3, deal_run=True)
    assert lines[0] == ("bridgette: 600 independent deals (and 20 passed out to the redeal limit, counted as no one's "
                        "win), seed 3")
    nothing = dict(deal_run, deals=0, games=20, dealer_advantage={"value": None, "ci95": None, "deals": 0},
                   first_dealer_wins={"rate": 0.0, "ci95": [0.0, 0.1611], "n": 20})
    lines = run_headline("bridgette", nothing, ["heuristic", "heuristic"], 1, deal_run=True)
    assert lines[0].startswith("bridgette: 0 independent deals (and 20 passed out")
    assert all(line.endswith("-  (nothing to measure)") for line in lines[2:5])


def test_a_stratified_run_opens_with_its_overall_answers(tmp_path):
    """--stratify: the stratified estimates of strata.json first, overall and per stratum."""
    from sim.run import main

    out = io.StringIO()
    with contextlib.chdir(tmp_path), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--deals", "600", "--stratify", "upcard_class", "--out", "strata"]) == 0
    lines = out.getvalue().splitlines()
    metrics = read_sealed(tmp_path / "strata" / "strata.json")["metrics"]
    adv, made = metrics["dealer_advantage"], metrics["contract_made"]
    assert lines[0] == "bridgette: 600 independent deals, seed 1, stratified by upcard_class"
    o = adv["overall"]
    assert lines[2].split()[:8] == ["dealer's", "advantage", f"{o['value']:+.2f}", "points", "per", "deal",
                                    f"[{o['ci95'][0]:+.2f},", f"{o['ci95'][1]:+.2f}];"]
    assert lines[2].endswith(f"ace {adv['by_stratum'][2]['value']:+.2f}")
    assert lines[3].split()[2] == f"{100 * made['overall']['value']:.2f}%"
    assert lines[4].split() == ["players", "heuristic", "in", "both", "seats"]


def test_the_stronger_players_command_keeps_the_runs_rules_and_conditions(tmp_path, capsys):
    """The next command with pimc players dropped the run's --rules, --set and deal
    conditions (another question), was offered for rules no searching player can play
    (the double deck, then refused), and a sweep that kept no records was offered a
    comparison on a metric of one's own (refused too)."""
    from sim.run import main
    from sim.sweep import main as sweep_main

    flags = ["--rules", "bridgette-no-colons", "--set", "exchange.nondealer_draw=4", "--upcard", "ace",
             "--predeal", "1=AS", "--require", "0:hcp>=10"]
    assert main(["--deals", "50", *flags, "--out", str(tmp_path / "run")]) == 0
    stronger = [line for line in capsys.readouterr().out.splitlines() if "--policy all=pimc" in line]
    assert [shlex.split(line) for line in stronger] == [
        ["python", "-m", "sim.run", "--game", "bridgette", "--deals", "1000", *flags, "--policy", "all=pimc",
         "--records", "none"]]
    assert main(["--game", "bid-euchre", "--rules", "bid-euchre-double-deck", "--games", "3", "--out",
                 str(tmp_path / "double")]) == 0
    assert "pimc" not in capsys.readouterr().out
    assert sweep_main(["--vary", "exchange.nondealer_draw=4,6", "--games", "20", "--records", "none", "--quiet",
                       "--out", str(tmp_path / "sweep")]) == 0
    assert "analysis.compare" not in capsys.readouterr().out
    # A sweep one of whose settings turns the double deck on (offered pimc before, as its base rules allow it).
    assert sweep_main(["--game", "bid-euchre", "--vary", "variant.double_deck=false,true", "--deals", "60",
                       "--quiet", "--out", str(tmp_path / "decks")]) == 0
    out = capsys.readouterr().out
    assert "next:" in out and "pimc" not in out


def test_the_next_commands_quote_a_folder_the_shell_would_split():
    """A folder named with a space and a ';' printed bare in a command to paste would run
    what follows it (before: python -m analysis.report runs/a b;touch PWNED)."""
    from sim.headline import compare_next, run_next
    from sim.policies import parse_policy

    folder = "runs/a b;touch PWNED"
    lines = run_next("bridgette", folder, False, 5, [parse_policy("heuristic")] * 2)
    lines += compare_next({"a": "base", "b": folder})
    commands = [line.strip() for line in lines if line.strip().startswith("python -m analysis.")]
    assert len(commands) == 5 and all(shlex.split(c)[3] in ("base", folder) for c in commands)
    assert "python -m analysis.report 'runs/a b;touch PWNED'" in commands
