"""Stratified deal runs (sim.strata): exact weights, the estimator against a direct
computation, agreement with a plain deal run and the narrower interval a stratum earns."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from fractions import Fraction

import numpy as np
import pytest

from sim import dealing, strata
from sim.api import load_run, resolve_rules, simulate
from sim.games import game_info
from sim.metrics import METRICS
from sim.ratio import ratio_estimate, ratio_sums
from sim.store import read_sealed, sealed
from sim.summary import Z95
from tests.commands import in_process


def test_the_strata_weigh_what_the_deck_says():
    """B-3 classes: 37, 13 and 5 of 55 cards (2-10 and the Little Colon; J Q K and the Royal;
    aces and the Grand); without Colons 36, 12 and 4 of 52. A Colon's holder: 13, 13, 29."""
    full = strata.strata_of("bridgette", resolve_rules("bridgette"), "upcard_class")
    assert [(s.name, s.cards, s.of) for s in full] == [("numeral", 37, 55), ("face", 13, 55), ("ace", 5, 55)]
    bare = strata.strata_of("bridgette", resolve_rules("bridgette", "bridgette-no-colons"), "upcard_class")
    assert [(s.cards, s.of) for s in bare] == [(36, 52), (12, 52), (4, 52)]
    holder = strata.strata_of("bridgette", resolve_rules("bridgette"), "grand_holder")
    assert [(s.name, s.cards) for s in holder] == [("seat0", 13), ("seat1", 13), ("stock", 29)]
    assert sum(s.weight for s in holder) == 1


def test_the_stock_stratum_deals_the_colon_to_neither_hand_as_often_as_29_in_55():
    rules = resolve_rules("bridgette")
    stock = strata.strata_of("bridgette", rules, "grand_holder")[2]
    rate = dealing.acceptance("bridgette", rules, dealing.plan("bridgette", rules, stock.dealing), 100_000)
    assert abs(rate - 29 / 55) < 5 * math.sqrt((29 / 55) * (26 / 55) / 100_000)


def test_the_stratified_estimate_is_the_textbook_one():
    """Means (n = 1 per deal): the weighted mean of the stratum means, variance
    sum w_h^2 s_h^2 / G_h, and plain sampling's sum w_h (s_h^2 + (mean_h - mean)^2) / G,
    computed here with numpy."""
    rng = np.random.default_rng(3)
    weights = [Fraction(37, 55), Fraction(13, 55), Fraction(5, 55)]
    ys = [rng.integers(-50, 60, 400), rng.integers(0, 300, 250), rng.integers(100, 900, 150)]
    sums = [ratio_sums(y, np.ones_like(y)) for y in ys]
    got = strata.stratified_estimate(weights, sums)
    w = np.array([float(x) for x in weights])
    means = np.array([y.mean() for y in ys])
    var = sum(wh ** 2 * y.var(ddof=1) / len(y) for wh, y in zip(w, ys))
    mean = float(w @ means)
    plain = sum(wh * (y.var(ddof=1) + (y.mean() - mean) ** 2) for wh, y in zip(w, ys)) / sum(map(len, ys))
    assert got["value"] == pytest.approx(mean, rel=1e-12)
    assert got["variance"] == pytest.approx(var, rel=1e-9)
    assert got["ci95"] == pytest.approx([mean - Z95 * math.sqrt(var), mean + Z95 * math.sqrt(var)], rel=1e-9)
    assert got["plain_variance"] == pytest.approx(plain, rel=1e-9)
    assert got["variance_saved"] == pytest.approx(1 - var / plain, rel=1e-9)


def test_a_stratum_without_the_metrics_divisor_adds_nothing():
    """A ratio metric whose 'where' no deal of a stratum meets (n = 0 there): the estimate is
    sum w_h ybar_h / sum w_h nbar_h over the others (before: no value at all). By hand: two
    strata of weight 3/4 and 1/4; the first's deals have y/n = 1/1, 0/1, 1/1, 0/0, the
    second's all 0/0: (3/4 * 2/4) / (3/4 * 3/4) = 2/3."""
    first = ratio_sums(np.array([1, 0, 1, 0]), np.array([1, 1, 1, 0]))
    second = ratio_sums(np.zeros(5), np.zeros(5))
    got = strata.stratified_estimate([Fraction(3, 4), Fraction(1, 4)], [first, second])
    assert got["value"] == pytest.approx(2 / 3, rel=1e-12) and got["ci95"] is not None
    assert strata.stratified_estimate([Fraction(1, 2)] * 2, [second, second])["value"] is None



def test_a_rates_interval_stays_between_0_and_1_on_tiny_strata(tmp_path):
    """A rate cannot leave [0, 1] (before: the ace stratum's contracts made on seed 1's 9
    deals read 50.00% [-48.00%, 148.00%]). The textbook interval of the same sums, by hand
    from ratio_estimate without the range, does leave it; the overall one is cut to [0, 1]
    and each stratum's is Wilson's."""
    rules = resolve_rules("bridgette")
    result = strata.run_stratified("bridgette", rules, None, 1, 9, tmp_path / "s", "upcard_class", "proportional",
                                   metrics=["contract_made"])
    made = result["metrics"]["contract_made"]
    estimates = made["by_stratum"] + [made["overall"]]
    assert all(0 <= e["ci95"][0] <= e["value"] <= e["ci95"][1] <= 1 for e in estimates if e["ci95"])
    folders = [tmp_path / "s" / f"stratum-{s['name']}" for s in result["strata"]]
    wide = [ratio_estimate(strata.stratum_sums(f, [METRICS["contract_made"]])["contract_made"])["ci95"]
            for f in folders]
    assert any(ci[0] < 0 or ci[1] > 1 for ci in wide)
    # Each stratum a deal run: a contract at most a deal, independent trials, so a stratum's
    # rate takes Wilson's interval over its contracts, as a plain run's summary gives it.
    from sim.summary import wilson

    for cut, folder in zip(made["by_stratum"], folders):
        sums = strata.stratum_sums(folder, [METRICS["contract_made"]])["contract_made"]
        assert cut["ci95"] == wilson(sums["y"], sums["n"])

def test_allocations():
    s = strata.strata_of("bridgette", resolve_rules("bridgette"), "upcard_class")
    assert strata.allocate(s, 5500, "proportional") == [3700, 1300, 500]
    assert strata.allocate(s, 3000, "equal") == [1000, 1000, 1000]
    assert strata.allocate(s, 1000, "ace=0.5,face=0.25,numeral=0.25") == [250, 250, 500]
    neyman = strata.allocate(s, 10_000, "neyman", [1.0, 2.0, 4.0])
    raw = np.array([37 * 1.0, 13 * 2.0, 5 * 4.0])
    assert np.abs(np.array(neyman) - 10_000 * raw / raw.sum()).max() <= 2 and sum(neyman) == 10_000
    with pytest.raises(dealing.DealingError, match="give a share to every stratum"):
        strata.allocate(s, 100, "ace=1")
    for shares in ("numeral=1e308,face=1e308,ace=1",  # their sum would overflow
                   "numeral=1e-300,face=1,ace=1",  # its exact share of the sum, 300 digits long
                   "numeral=\u0661,face=1,ace=1"):  # another script's digit one, as no number is read
        with pytest.raises(dealing.DealingError, match=r"shares from 1e-9 to 1e9 \(a number or a fraction"):
            strata.allocate(s, 100, shares)
    assert strata.allocate(s, 1000, "ace=1/2,face=1/4,numeral=1/4") == [250, 250, 500]
    with pytest.raises(dealing.DealingError, match="'ace=1,face=1,numeral=1,ace=1' gives ace twice"):
        strata.allocate(s, 100, "ace=1,face=1,numeral=1,ace=1")


def class_interval(run, upcard_class: str):
    """The plain run's dealer's advantage over the deals of one up-card class (the same
    domain estimate its summary gives by up-card), from its records."""
    deals = run.deals(columns=["game", "dealer", "score0", "score1", "upcard_class"])
    picked = deals[deals["upcard_class"] == upcard_class]
    arrays = {c: picked[c].to_numpy() for c in ("game", "dealer", "score0", "score1")}
    games = run.manifest["config"]["games"]
    y, n = METRICS["dealer_advantage"].per_game(game_info("bridgette"), arrays, None, 0, games)
    return ratio_estimate(ratio_sums(y, n))


def test_a_stratified_run_agrees_with_a_plain_one_and_halves_the_ace_interval(tmp_path):
    """At equal deals, the stratified dealer's advantage agrees with a plain deal run's
    within their intervals, and the ace stratum (half the deals) has an interval at least
    twice as narrow as the plain run's ace class."""
    deals = 8000
    plain = simulate("bridgette", deals, seed=21, out=tmp_path / "plain", dealing=dealing.parse("deals"))
    rules = resolve_rules("bridgette")
    result = strata.run_stratified("bridgette", rules, None, 22, deals, tmp_path / "strata", "upcard_class",
                                   "ace=0.5,face=0.25,numeral=0.25")
    overall = result["metrics"]["dealer_advantage"]["overall"]
    plain_all = plain.summary["dealer_advantage"]
    diff = overall["value"] - plain_all["value"]
    half = lambda ci: (ci[1] - ci[0]) / 2  # noqa: E731
    assert abs(diff) < math.hypot(half(overall["ci95"]), half(plain_all["ci95"]))
    ace = result["metrics"]["dealer_advantage"]["by_stratum"][2]
    plain_ace = class_interval(plain, "ace")
    assert half(ace["ci95"]) * 2 <= half(plain_ace["ci95"])
    assert [s["deals"] for s in result["strata"]] == [2000, 2000, 4000]
    assert load_run(tmp_path / "strata" / "stratum-ace").summary["dealing"]["upcard"] == ["ace"]


@pytest.mark.parametrize("args,message", [
    (["--deals", "100", "--stratify", "suits"], "'suits' is not a stratification of bridgette"),
    (["--deals", "100", "--game", "draw-bridge", "--stratify", "upcard_class"], "offered: none"),
    (["--games", "100", "--stratify", "upcard_class"], "drop --games"),
    (["--deals", "100", "--stratify", "upcard_class", "--upcard", "ace"], "drop --games, --upcard"),
    (["--deals", "100", "--stratify", "upcard_class", "--allocation", "most"], "--allocation must be"),
    (["--deals", "100", "--stratify", "upcard_class", "--allocation", "ace=0.5,face=0.25,numerals=0.25"],
     "--allocation: no stratum is named 'numerals' (the strata: numeral, face, ace); did you mean 'numeral'?"),
    (["--deals", "4", "--stratify", "upcard_class"], "at least 6 deals"),
    (["--deals", "100", "--stratify", "upcard_class", "--dd"], "--stratify does not take --dd"),
    (["--deals", "100", "--allocation", "equal"], "--allocation applies to --stratify runs"),
    (["--deals", "100", "--metrics", "mean_score"], "--metrics applies to --stratify and --control runs"),
])
def test_bad_stratification_is_one_line_and_exit_2(tmp_path, args, message):
    result = in_process("sim.run", *args, "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "x").exists()


def test_custom_metrics_per_stratum_and_a_bad_one_stops_after_the_first_stratum(tmp_path):
    """made4 per stratum equals the share of 4-level contracts made in that stratum's own
    records (pandas), and the overall value is their weighted mean; a metric over a column
    the records lack stops the run after its first stratum."""
    rules = resolve_rules("bridgette")
    result = strata.run_stratified("bridgette", rules, None, 5, 1200, tmp_path / "s", "upcard_class",
                                   metrics=["made4 = mean(made) where level == 4"])
    entry = result["metrics"]["made4"]
    shares, weights = [], []
    for s, e in zip(result["strata"], entry["by_stratum"]):
        deals = load_run(s["folder"]).deals(columns=["level", "made"])
        shares.append(deals.loc[deals["level"] == 4, "made"].mean())
        weights.append(Fraction(s["probability"]))
        assert e["value"] == pytest.approx(shares[-1], rel=1e-12)
    # Per deal, made4 is a ratio (made 4-level contracts over 4-level contracts): the overall
    # value weights each stratum's counts, not its share.
    counts = []
    for s in result["strata"]:
        deals = load_run(s["folder"]).deals(columns=["level", "made"])
        four = deals[deals["level"] == 4]
        counts.append((four["made"].sum() / len(deals), len(four) / len(deals)))
    overall = sum(float(w) * y for w, (y, _) in zip(weights, counts)) / sum(float(w) * n for w, (_, n) in
                                                                             zip(weights, counts))
    assert entry["overall"]["value"] == pytest.approx(overall, rel=1e-12)
    # The report's CSVs hold these numbers in full (before: the page's text, 60.00% and "1,200").
    from analysis.report import main as report_main

    assert report_main([str(tmp_path / "s"), "--out", str(tmp_path / "report")]) == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "report" / "strata_made4.csv").read_text())))
    assert [float(r["value"]) for r in rows] == [e["value"] for e in entry["by_stratum"]] + [entry["overall"]["value"]]
    deals = [r["deals"] for r in csv.DictReader(io.StringIO((tmp_path / "report" / "strata.csv").read_text()))]
    assert deals == [str(s["deals"]) for s in result["strata"]]
    with pytest.raises(Exception, match="no column 'nonsense'"):
        strata.run_stratified("bridgette", rules, None, 5, 1200, tmp_path / "bad", "upcard_class",
                              metrics=["x = mean(nonsense)"])
    assert sorted(p.name for p in (tmp_path / "bad").iterdir()) == ["stratum-numeral"]


def test_a_folder_of_another_stratified_run_is_refused_and_other_metrics_are_read_again(tmp_path):
    """Another allocation, deals count or seed, or control levels, in a stratified run's
    folder: one line naming the folder and what differs, before anything is played, the
    folder left as it was. The same run with other metrics reads its strata again."""
    out = tmp_path / "s"
    argv = ["--deals", "60", "--stratify", "upcard_class", "--quiet", "--out", out]
    assert in_process("sim.run", *argv).returncode == 0
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for extra, differ in [(["--allocation", "equal"], "allocation"), (["--seed", "9"], "seed"),
                          (["--control", "all=random"], "controls")]:
        result = in_process("sim.run", *argv, *extra)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"output folder {out} holds a stratified run of another configuration (differs in: {differ})" \
            in result.stderr
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files
    again = in_process("sim.run", *argv, "--metrics", "contract_made")
    assert again.returncode == 0, again.stderr
    assert list(read_sealed(out / "strata.json")["metrics"]) == ["contract_made"]


def test_a_stopped_stratified_run_is_not_taken_by_another_stratification(tmp_path):
    """A stratified run stopped before its strata.json holds strata folders only: another
    --stratify into that folder played its own strata beside them and wrote its
    strata.json, and the first run could never be finished. It is refused in one line,
    before anything is played, and every file stays."""
    out = tmp_path / "strata"
    args = ["--deals", "300", "--seed", "4", "--quiet", "--out", out]
    assert in_process("sim.run", *args, "--stratify", "upcard_class").returncode == 0
    (out / "strata.json").unlink()  # as where the run was stopped before its last stratum ended
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    result = in_process("sim.run", *args, "--stratify", "grand_holder")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result
    assert (f"output folder {out} holds the strata of another stratified run, not finished (stratum-ace is no "
            "stratum of --stratify grand_holder)") in result.stderr
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert in_process("sim.run", *args, "--stratify", "upcard_class").returncode == 0  # the first finishes
    assert (out / "strata.json").is_file()


def test_a_strata_file_edited_by_hand_is_named_not_reported(tmp_path):
    """strata.json checks itself: a number edited by hand (the report would show it as the
    run's) makes analysis.report end in one line naming the file, exit 2, nothing written;
    the file as the run wrote it reports, and a stratum folder damaged since is named too."""
    out = tmp_path / "s"
    assert in_process("sim.run", "--deals", "60", "--stratify", "upcard_class", "--quiet", "--out", out).returncode == 0
    text = (out / "strata.json").read_text()
    assert in_process("analysis.report", out, "--out", tmp_path / "r").returncode == 0
    (out / "strata.json").write_text(text.replace('"probability": "13/55"', '"probability": "1/2"', 1))
    assert (out / "strata.json").read_text() != text
    result = in_process("analysis.report", out, "--out", tmp_path / "r2")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{out / 'strata.json'} is damaged (its checksum does not match its content)" in result.stderr
    assert not (tmp_path / "r2").exists()
    # A stratum's run damaged since (its summary gone): named, not reported from strata.json alone.
    (out / "strata.json").write_text(text)
    (out / "stratum-face" / "summary.json").unlink()
    result = in_process("analysis.report", out, "--out", tmp_path / "r3")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{out / 'stratum-face'}, a stratum of {out}, cannot be read" in result.stderr
    assert not (tmp_path / "r3").exists()


def test_a_rate_at_its_bound_on_every_game_gets_the_wilson_interval():
    """Two contracts, both made, in a stratum of two deals: the ratio's interval over games
    has no width ([100%, 100%]), which two trials can never show; the Wilson interval of 2 in
    2 stands in ([34.24%, 100%], as sim.summary.rate gives a plain run's), as it does for any
    rate of one trial a game; one whose games hold more trials keeps its interval over games."""
    from sim.ratio import SHARE
    from sim.summary import wilson

    made = ratio_estimate(ratio_sums(np.array([1.0, 1.0]), np.array([1.0, 1.0])), SHARE)
    assert made["value"] == 1.0 and made["ci95"] == wilson(2, 2) and round(made["ci95"][0], 4) == 0.3424
    none = ratio_estimate(ratio_sums(np.array([0.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0])), SHARE)
    assert none["ci95"] == wilson(0, 3)
    single = ratio_estimate(ratio_sums(np.array([1.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0])), SHARE)
    assert single["ci95"] == wilson(2, 3)  # a trial a game: independent trials, Wilson's as a plain run's
    mixed = ratio_estimate(ratio_sums(np.array([2.0, 0.0, 1.0]), np.array([2.0, 1.0, 2.0])), SHARE)
    assert mixed["ci95"] != wilson(3, 5) and mixed["ci95"][0] < 3 / 5 < mixed["ci95"][1]
    points = ratio_estimate(ratio_sums(np.array([5.0, 5.0]), np.array([1.0, 1.0])))  # not a rate: as it was
    assert points["ci95"] == [5.0, 5.0]


def test_an_allocation_written_another_way_is_the_same_run(tmp_path):
    """Shares in another order, spelling (spaces, 1 or 1.0, 1/4) or scale (2,1,1 or 4,2,2)
    are one allocation, each share over their sum: the folder of the first is the second's
    to read again, not another configuration's (before: refused, 'differs in: allocation'),
    and so is an older release's folder, which kept the shares unscaled; other shares are
    still refused."""
    out = tmp_path / "s"
    argv = ["--deals", "60", "--stratify", "upcard_class", "--quiet", "--out", out]
    assert in_process("sim.run", *argv, "--allocation", "ace=1,face=1,numeral=2").returncode == 0
    kept = read_sealed(out / "strata.json")
    assert kept["allocation"] == "numeral=1/2,face=1/4,ace=1/4"
    for spelling in ("numeral=2.0, face=1,ace=1", "numeral=4,face=2,ace=2", "ace=1/4,face=0.25,numeral=0.5"):
        again = in_process("sim.run", *argv, "--allocation", spelling)
        assert again.returncode == 0, again.stderr
        assert read_sealed(out / "strata.json") == kept
    (out / "strata.json").write_text(json.dumps(sealed(dict(kept, allocation="numeral=2.0,face=1.0,ace=1.0"))))
    assert in_process("sim.run", *argv, "--allocation", "numeral=2,face=1,ace=1").returncode == 0
    other = in_process("sim.run", *argv, "--allocation", "numeral=1,face=1,ace=1")
    assert other.returncode == 2 and "differs in: allocation" in other.stderr


def test_a_stratum_folder_no_stratum_plays_is_named(tmp_path):
    """A run folder put into a finished stratified run's folder under a stratum's name of no
    stratum of it (stratum-zzz) is named in one line, exit 2, nothing changed (before: the
    rerun went on, and every reader of the folder took the stranger for one of its own)."""
    import shutil

    out = tmp_path / "s"
    argv = ["--deals", "60", "--stratify", "upcard_class", "--quiet", "--out", out]
    assert in_process("sim.run", *argv).returncode == 0
    shutil.copytree(out / "stratum-ace", out / "stratum-zzz")
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = in_process("sim.run", *argv)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"output folder {out} holds stratum-zzz, no stratum of --stratify upcard_class" in result.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files


def test_functions_beneath_the_api_check_their_arguments_and_sim_stratify_names_them(tmp_path):
    """run_stratified, run_multilevel and sample take rules and policies resolved; a seed
    of -1 or 1.5 was written into strata.json and multilevel.json as such while the deals
    were another seed's, an empty ``out`` wrote into the folder the program was in, and
    the wrong kind of rules, count or callback ended in an AttributeError or TypeError
    from deep inside. Each is now a TypeError or ValueError naming the argument, before
    anything is kept; sim.stratify takes simulate's forms and names its own arguments."""

    import sim
    from sim.api import resolve_policies
    from sim.multilevel import run_multilevel

    rules, policies = resolve_rules("bridgette"), resolve_policies("bridgette")
    out = tmp_path / "s"
    for kwargs, error, words in ((dict(seed=-1), ValueError, "seed: the seed must be in 0 .. 2**64-1"),
                                 (dict(seed=1.5), ValueError, "seed: '1.5' is not an integer seed"),
                                 (dict(deals=30.7), ValueError, "deals: '30.7' is not a whole number"),
                                 (dict(out=""), ValueError, "out: an empty path names no folder"),
                                 (dict(rules=None), TypeError, "rules must be bridgette's rules as"),
                                 (dict(policies=5), TypeError, "policies must be one Policy per seat (2)"),
                                 (dict(notify=5), TypeError, "notify must be a function"),
                                 (dict(threads=0), ValueError, "threads: '0' is not a whole number"),
                                 (dict(allocation=5), TypeError, "allocation must be text, got 5")):
        args = {**dict(game="bridgette", rules=rules, policies=policies, seed=3, deals=30, out=out,
                       stratification="upcard_class"), **kwargs}
        with pytest.raises(error, match=re.escape(words)):
            strata.run_stratified(**args)
        if "allocation" not in kwargs:
            with pytest.raises(error, match=re.escape(words)):
                run_multilevel(args["game"], args["rules"], args["policies"], args["seed"], args["deals"],
                               ["all=random"], out=args["out"], notify=args.get("notify"),
                               threads=args.get("threads"))
    for kwargs, error, words in ((dict(n=-1), ValueError, "n: '-1' is not a whole number"),
                                 (dict(n=10**12), ValueError, "n: '1000000000000' is more than the largest count"),
                                 (dict(seed=2**64), ValueError, "seed: the seed must be in 0 .. 2**64-1"),
                                 (dict(rules=None), TypeError, "rules must be bridgette's rules"),
                                 (dict(dealing=None), TypeError, "dealing must be a sim.dealing.Dealing")):
        with pytest.raises(error, match=re.escape(words)):
            dealing.sample(**{**dict(game="bridgette", rules=rules, dealing=dealing.parse("deals"), n=5), **kwargs})
    assert not list(tmp_path.iterdir())
    # No policies: the game's heuristic in every seat, as run_stratified takes them (a TypeError from deep inside).
    assert run_multilevel("bridgette", rules, None, 3, 20, ["all=random"], [40])["policies"] == ["heuristic"] * 2
    for kwargs, error, words in ((dict(seed=-1), ValueError, "seed: the seed must be in"),
                                 (dict(stratification="nope"), ValueError, "stratification: 'nope' is not a "
                                                                           "stratification of bridgette"),
                                 (dict(rules=5), TypeError, "rules must be a dict of option tables"),
                                 (dict(dealer="x"), ValueError, "dealer must be alternate or a seat number"),
                                 (dict(allocation=None), TypeError, "allocation must be text, got None"),
                                 (dict(metrics=[]), ValueError, "metrics names no metric"),
                                 (dict(metrics="deals_per_game"), ValueError, "deals_per_game is 1 in a run of single"),
                                 (dict(control_deals=100), ValueError, "control_deals sizes the levels of control: "
                                                                       "give control too"),
                                 (dict(block_size=0), ValueError, "block_size: '0' is not a whole number")):
        with pytest.raises(error, match=re.escape(words)):
            sim.stratify(**{**dict(deals=30, out=out), **kwargs})
    assert not list(tmp_path.iterdir())
    # simulate's forms: a variant's name and --set text; the seed as its digits.
    got = sim.stratify(deals=30, rules="bridgette-no-colons", set_options="exchange.nondealer_draw=4", seed="7",
                       out=out, block_size=5)
    kept = read_sealed(out / "strata.json")
    assert kept["seed"] == 7 and got["seed"] == 7 and sum(s["deals"] for s in kept["strata"]) == 30
    config = load_run(out / "stratum-numeral").manifest["config"]
    assert config["rules"]["exchange"]["nondealer_draw"] == 4 and config["block_size"] == 5


def test_shares_given_far_apart_are_kept_in_their_exact_form():
    """ace=1e9,face=1,numeral=1 gives every share within the range taken (1e-9 to 1e9); its
    exact form, each share over their sum, puts face and numeral below 1e-9, which the
    check of the user's text refused when the run read its own form back."""
    layers = strata.strata_of("bridgette", resolve_rules("bridgette"), "upcard_class")
    kept = strata.canonical_allocation(layers, "ace=1e9,face=1,numeral=1")
    assert kept == "numeral=1/1000000002,face=1/1000000002,ace=500000000/500000001"
    assert strata.allocate(layers, 300, kept, None) == [2, 2, 296]
    with pytest.raises(dealing.DealingError, match="shares from 1e-9 to 1e9"):
        strata.canonical_allocation(layers, "ace=1e10,face=1,numeral=1")


def test_reports_of_a_stratums_folders_go_outside_the_stratified_runs_folder(tmp_path, capsys):
    """With --control each stratum is a multilevel folder, whose report went beside it: into
    the stratified run's folder, which its command then refused to resume (a folder of
    another stratum). Reports of a stratum, or of two strata compared, now go beside the
    stratified run's folder, and an --out inside it (or inside a multilevel folder) is one
    line before anything is written."""
    import sim
    from analysis.report import main as report

    kept = {}
    for name, options in (("scA", ()), ("scB", ("exchange.nondealer_draw=4",))):
        sim.stratify(deals=60, seed=3, control="all=random", control_deals=200, set_options=list(options),
                     out=tmp_path / name)
        kept[name] = read_sealed(tmp_path / name / "strata.json")
    assert report([str(tmp_path / "scA" / "stratum-ace"), str(tmp_path / "scB" / "stratum-ace")]) == 0
    assert report([str(tmp_path / "scB" / "stratum-ace")]) == 0
    pages = [tmp_path / "scB-stratum-ace-report-vs-scA-stratum-ace", tmp_path / "scB-stratum-ace-report"]
    assert capsys.readouterr().out.split() == [str(p / "index.html") for p in pages]
    assert sorted(p.name for p in (tmp_path / "scB").iterdir()) == ["strata.json", "stratum-ace", "stratum-face",
                                                                    "stratum-numeral"]
    resumed = sim.stratify(deals=60, seed=3, control="all=random", control_deals=200,
                           set_options="exchange.nondealer_draw=4", out=tmp_path / "scB")
    assert read_sealed(tmp_path / "scB" / "strata.json") == kept["scB"] and resumed["seed"] == 3
    for args, out, inside in (([tmp_path / "scB" / "stratum-ace"], tmp_path / "scB" / "stratum-ace" / "mine",
                               tmp_path / "scB" / "stratum-ace"),
                              ([tmp_path / "scB"], tmp_path / "scB" / "mine", tmp_path / "scB"),
                              ([tmp_path / "scB"], tmp_path / "scB" / "new" / "mine", tmp_path / "scB")):
        assert report([*map(str, args), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"it lies in {inside}" in err and not out.exists()
    assert not (tmp_path / "scB" / "new").exists()
    # A stratified run not finished yet (no strata.json) is its command's folder all the same.
    shutil.copytree(tmp_path / "scA" / "stratum-ace", tmp_path / "begun" / "stratum-ace")
    assert report([str(tmp_path / "begun" / "stratum-ace")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "begun-stratum-ace-report" / "index.html")
    # A folder of the user's that holds a sweep.json among other files is no sweep's: the report stays in it.
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "sweep.json").write_text('{"settings": []}')
    (tmp_path / "project" / "notes.txt").write_text("mine")
    shutil.copytree(tmp_path / "scA" / "stratum-ace", tmp_path / "project" / "ml")
    assert report([str(tmp_path / "project" / "ml")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "project" / "ml-report" / "index.html")


def test_runs_and_sweeps_are_not_written_into_another_commands_folder(tmp_path, capsys, monkeypatch):
    """A run, a stratified run, a multilevel run, a sweep (or a sweep's plot) or a ladder whose
    --out lies in a stratified run's, a multilevel or a sweep's folder, given or by
    default, from the command line or the Python API, is one line and writes nothing:
    the folder's own command would then refuse to resume it, and its readers to read it,
    as for a report's --out (before: they were written there). One of the folder's own
    run folders may still be resumed by its own configuration."""
    import sim
    from sim.ladder import main as ladder
    from sim.run import main as run
    from sim.sweep import main as sweep

    holders = {"strata": ["--deals", "40", "--stratify", "upcard_class"],
               "levels": ["--deals", "40", "--control", "all=random", "--control-deals", "100"]}
    for name, args in holders.items():
        assert run([*args, "--seed", "3", "--quiet", "--out", str(tmp_path / name)]) == 0
    assert sweep(["--vary", "exchange.nondealer_draw=2,6", "--games", "20", "--quiet", "--out",
                  str(tmp_path / "sweep")]) == 0
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    writers = [(run, ["--games", "20", "--quiet"]), (run, ["--deals", "40", "--stratify", "upcard_class", "--quiet"]),
               (run, ["--deals", "40", "--control", "all=random", "--quiet"]),
               (sweep, ["--vary", "exchange.nondealer_draw=2,6", "--games", "20", "--quiet"]),
               (ladder, ["--game", "bid-euchre", "--games", "2", "--worlds", "1"])]
    for inside, what in (("strata", "a stratified run's folder"), ("levels", "a multilevel folder"),
                         ("sweep", "a sweep's folder")):
        for main, args in writers:
            out = tmp_path / inside / "mine" / "run"
            assert main([*args, "--out", str(out)]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"--out {out}: it lies in {tmp_path / inside}, {what}" in err, err
        mine = re.escape(f"out {tmp_path / inside / 'mine'}: it lies in")
        for api in (lambda out: sim.simulate(games=20, out=out), lambda out: sim.stratify(deals=40, out=out),
                    lambda out: sim.estimate(deals=40, control="all=random", out=out)):
            with pytest.raises(ValueError, match=f"^{mine}"):  # the argument, not the flag
                api(tmp_path / inside / "mine")
    assert sweep(["--vary", "exchange.nondealer_draw=2,6", "--games", "20", "--quiet", "--out", str(tmp_path / "s2"),
                  "--plot", str(tmp_path / "strata" / "mine.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--plot {tmp_path / 'strata' / 'mine.png'}: it lies in" in err
    assert not (tmp_path / "s2").exists()
    monkeypatch.chdir(tmp_path / "sweep")  # the default folder, runs/..., would lie in the sweep's
    assert run(["--games", "20", "--quiet"]) == 2
    assert "it lies in" in capsys.readouterr().err
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before
    (tmp_path / "link").symlink_to(tmp_path / "sweep")  # a sweep's plot in its own folder, named through a link
    assert sweep(["--vary", "exchange.nondealer_draw=2,6", "--games", "20", "--quiet", "--out", str(tmp_path / "link"),
                  "--plot", str(tmp_path / "sweep" / "extra.png")]) == 0
    assert (tmp_path / "sweep" / "extra.png").is_file()
    setting = next((tmp_path / "sweep").glob("00-*"))  # its own run folder, by its own configuration
    assert run(["--games", "20", "--set", "exchange.nondealer_draw=2", "--quiet", "--out", str(setting)]) == 0
    assert run(holders["strata"] + ["--seed", "3", "--quiet", "--out", str(tmp_path / "strata")]) == 0  # resumes


def test_an_out_through_a_loop_of_links_is_one_line(tmp_path, capsys):
    from analysis.report import main as report
    from sim.run import main as run
    from sim.sweep import main as sweep

    assert run(["--games", "20", "--quiet", "--out", str(tmp_path / "r")]) == 0
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    try:
        for out in (tmp_path / "a", tmp_path / "a" / "sub"):
            for main, args in ((report, [str(tmp_path / "r")]), (run, ["--games", "5"]),
                               (sweep, ["--vary", "exchange.nondealer_draw=2,6", "--games", "5"])):
                status = main([*args, "--out", str(out)])
                err = capsys.readouterr().err
                assert status == 2 and err.count("\n") == 1 and "its symbolic links make a loop" in err, err
    finally:  # pytest's clean-up of old temporary folders follows links, and a loop never ends
        (tmp_path / "a").unlink()
        (tmp_path / "b").unlink()


def test_hand_features_are_refused_for_strata_before_any_stratum_plays(tmp_path):
    """Each stratum's deals are conditioned, so --control hand, which needs unconditioned
    deal runs, is refused in one line before the first stratum (before: its progress line,
    naming a folder never made, came first)."""
    from tests.commands import in_process

    result = in_process("sim.run", "--deals", "100", "--stratify", "upcard_class", "--control", "hand", "--out",
                        tmp_path / "x")
    assert result.returncode == 2
    assert result.stderr == ("python -m sim.run: error: --control hand: the hand features are Bridgette's, of "
                             "unconditioned deal runs, and each stratum's deals are conditioned\n")
    assert not (tmp_path / "x").exists()
