"""Two stratified runs compared (sim.strata_comparison, analysis.compare): the overall and
per-stratum differences against a direct computation from the deal records, pairing and
its absence, and the comparisons refused in one line."""

from __future__ import annotations

import json
import math
import shutil
from fractions import Fraction

import numpy as np
import pytest

from analysis.compare import main
from sim import strata
from sim.api import load_run, resolve_rules
from sim.metrics import MetricsError
from sim.store import read_sealed, sealed, stratum_folder
from sim.strata_comparison import compare_strata
from sim.summary import Z95, wilson

WEIGHTS = {"numeral": Fraction(37, 55), "face": Fraction(13, 55), "ace": Fraction(5, 55)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Bridgette stratified by the up-card's class, 1,500 deals: A at the defaults, B with
    the non-dealer drawing 4 (the same seed: paired), C at the defaults with another seed, D
    with the dealer drawing 4 after an ace (the ace stratum alone plays it otherwise)."""
    root = tmp_path_factory.mktemp("strata")
    made = {}
    for name, options, seed in (("a", [], 3), ("b", ["exchange.nondealer_draw=4"], 3), ("c", [], 4),
                                ("d", ["exchange.dealer_draw_ace=4"], 3)):
        strata.run_stratified("bridgette", resolve_rules("bridgette", None, options), None, seed, 1500, root / name,
                              "upcard_class")
        made[name] = root / name
    return made


def per_deal(folder, stratum):
    """Each deal's dealer's advantage, and whether a contract was played and made, from the
    stratum's deal records in deal order."""
    deals = load_run(folder / stratum_folder(stratum)).deals(columns=["game", "dealer", "score0", "score1", "level",
                                                                       "made"]).sort_values("game")
    s0, s1, dealer = (deals[c].to_numpy().astype(np.int64) for c in ("score0", "score1", "dealer"))
    played = deals["level"].to_numpy() >= 0
    return np.where(dealer == 0, s0 - s1, s1 - s0), played.astype(float), (played & deals["made"].to_numpy(bool))


def direct(runs, a, b, which):
    """B - A of a ratio metric by the stratified estimator written out over the deals: each
    run's R = sum_h w_h mean(y) / sum_h w_h mean(n), each deal's term (y - R n) / nbar, the
    variance of B's term minus A's per stratum (paired) or of each apart (unpaired)."""
    data = {k: {h: per_deal(runs[k], h) for h in WEIGHTS} for k in (a, b)}

    def columns(k, h):
        adv, played, made = data[k][h]
        return (adv, np.ones_like(adv, dtype=float)) if which == "adv" else (made.astype(float), played)
    r, nbar = {}, {}
    for k in (a, b):
        ybar = sum(float(w) * columns(k, h)[0].mean() for h, w in WEIGHTS.items())
        nbar[k] = sum(float(w) * columns(k, h)[1].mean() for h, w in WEIGHTS.items())
        r[k] = ybar / nbar[k]
    paired = apart = 0.0
    for h, w in WEIGHTS.items():
        (ya, na), (yb, nb) = columns(a, h), columns(b, h)
        u, v = (ya - r[a] * na) / nbar[a], (yb - r[b] * nb) / nbar[b]
        paired += float(w) ** 2 * (v - u).var(ddof=1) / len(u)
        apart += float(w) ** 2 * (u.var(ddof=1) / len(u) + v.var(ddof=1) / len(v))
    return r[b] - r[a], paired, apart


def test_the_difference_of_two_stratified_runs_is_the_stratified_estimator_written_out(runs):
    result = compare_strata(runs["a"], runs["b"])
    assert result["paired"] and [s["name"] for s in result["strata"]] == ["numeral", "face", "ace"]
    for name, which in (("dealer_advantage", "adv"), ("contract_made", "made")):
        diff, paired, apart = direct(runs, "a", "b", which)
        got = result["metrics"][name]
        assert got["diff"] == pytest.approx(diff, rel=1e-9)
        assert got["ci95"] == pytest.approx([diff - Z95 * math.sqrt(paired), diff + Z95 * math.sqrt(paired)], rel=1e-9)
        assert got["unpaired_ci95"] == pytest.approx([diff - Z95 * math.sqrt(apart), diff + Z95 * math.sqrt(apart)],
                                                     rel=1e-9)
        assert got["variance_reduction"] == pytest.approx(1 - paired / apart, rel=1e-9)
        # A's and B's own figures are each run's strata.json's.
        for side in "ab":
            own = read_sealed(runs[side] / "strata.json")["metrics"][name]["overall"]
            assert got[side] == pytest.approx(own["value"], rel=1e-12) and got[f"{side}_ci95"] == own["ci95"]
    # Pairing earns its keep on the dealer's advantage (the same cards up to the draw).
    assert result["metrics"]["dealer_advantage"]["variance_reduction"] > 0.1
    ace = result["metrics"]["dealer_advantage"]["by_stratum"][2]
    adv_a, adv_b = per_deal(runs["a"], "ace")[0], per_deal(runs["b"], "ace")[0]
    assert ace["paired"] and ace["diff"] == pytest.approx(adv_b.mean() - adv_a.mean(), rel=1e-12)


def test_stratified_runs_of_two_seeds_compare_unpaired(runs, capsys):
    diff, _, apart = direct(runs, "a", "c", "adv")
    assert main([str(runs["a"]), str(runs["c"]), "--metrics", "dealer_advantage", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert not got["paired"] and not any(s["paired"] for s in got["strata"])
    r = got["metrics"]["dealer_advantage"]
    assert r["ci95"] == pytest.approx([diff - Z95 * math.sqrt(apart), diff + Z95 * math.sqrt(apart)], rel=1e-9)
    assert main([str(runs["a"]), str(runs["b"])]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0] == "bridgette: 1,500 deals, seed 3, paired deal by deal, stratified by upcard_class"
    assert "B - A in each stratum (probability), 95% intervals:" in table and "ace (5/55)" in table
    assert "by COLUMN" not in table  # a stratified comparison takes no groups


def test_comparisons_it_cannot_make_are_one_line(runs, tmp_path, capsys):
    cases = [
        ([runs["a"], runs["a"] / "stratum-ace"], f"{runs['a']} is a stratified run's folder and "
                                                 f"{runs['a'] / 'stratum-ace'} is not"),
        ([runs["a"], runs["b"], "--metrics", "m = mean(made) by strain"], "takes no 'by strain'"),
    ]
    other = tmp_path / "other"  # another stratification: its strata.json names another
    other.mkdir()
    kept = read_sealed(runs["c"] / "strata.json")
    (other / "strata.json").write_text(json.dumps(sealed(dict(kept, stratify="colon_place"))))
    cases.append(([runs["a"], other], "upcard_class against bridgette stratified by colon_place"))
    unfinished = tmp_path / "unfinished"  # a stratified run stopped before its strata.json: its reader's words
    shutil.copytree(runs["a"], unfinished)
    (unfinished / "strata.json").unlink()
    cases += [([runs["a"], tmp_path / "nowhere"], f"{tmp_path / 'nowhere'} does not exist"),
              ([runs["a"], unfinished], f"{unfinished} is not a run folder but an unfinished stratified run's folder")]
    kind = tmp_path / "kind"  # a multilevel folder against a stratified run: each named for what it is
    kind.mkdir()
    (kind / "target.npz").write_bytes(b"")
    cases.append(([runs["a"], kind], f"{kind} is a multilevel folder and {runs['a']} is not"))
    levels = tmp_path / "levels"
    levels.mkdir()
    (levels / "strata.json").write_text(json.dumps(sealed(dict(kept, controls=["all=heuristic"]))))
    cases.append(([runs["a"], levels], "is a stratified run with --control"))
    for args, words in cases:
        assert main([str(a) for a in args]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err


def test_a_rule_one_stratum_plays_a_metric_one_stratum_has_and_rates_at_their_bounds(runs, tmp_path):
    """The dealer's draw after an ace changes the ace stratum alone: the rule warning read
    the first stratum only and said it applied in 0% of deals. A custom metric whose divisor
    is 0 in two strata was refused there; it has the ace stratum's value, and one 0 in
    every stratum is refused. A rate at 1 in every stratum had [0, 0] for B - A."""
    result = compare_strata(runs["a"], runs["d"], ["dealer_advantage", "m = mean(made) where upcard_class == 'ace'",
                                                   "always = mean(score0 >= 0)"])
    assert result["rule_warnings"] == []
    ace = result["metrics"]["dealer_advantage"]["by_stratum"][2]
    assert ace["ci95"][1] < 0 and all(s["diff"] == 0 for s in result["metrics"]["dealer_advantage"]["by_stratum"][:2])
    m = result["metrics"]["m"]
    assert [s["diff"] for s in m["by_stratum"][:2]] == [None, None]
    assert m["a"] == pytest.approx(m["by_stratum"][2]["a"]) and m["b"] == pytest.approx(m["by_stratum"][2]["b"])
    with pytest.raises(MetricsError, match="divides by a sum of 0 in every stratum of"):
        compare_strata(runs["a"], runs["d"], ["never = mean(made) where level > 100"])
    # Every deal scores 0 or more: 1 in both runs, deal by deal. A's interval is Wilson's over its
    # 1,500 deals; B - A exactly 0 paired (the same deals alike), Newcombe's unpaired.
    always = result["metrics"]["always"]
    assert always["a"] == always["b"] == 1 and always["a_ci95"] == wilson(1500, 1500)
    low = 1 - wilson(1500, 1500)[0]
    assert always["ci95"] == [0.0, 0.0] and always["unpaired_ci95"] == pytest.approx([-low, low])
    # 1 over the contracts of 2 or more, which A and B bid in other deals (the ace stratum's part):
    # a rate at 1 in every stratum whose deals part takes Newcombe's paired too.
    sure = compare_strata(runs["a"], runs["d"], ["sure = mean(level >= 2) where level >= 2"])["metrics"]["sure"]
    expected = [-(1 - sure["b_ci95"][0]), 1 - sure["a_ci95"][0]]
    assert sure["a"] == sure["b"] == 1 and sure["ci95"] == sure["unpaired_ci95"] == pytest.approx(expected)
    assert sure["variance_reduction"] == 0  # the paired interval is Newcombe's too: pairing saved nothing
    assert sure["b_ci95"] != sure["a_ci95"]  # other numbers of contracts


def test_a_stratum_folder_another_run_played_is_named(runs, tmp_path, capsys):
    """A stratum's folder copied in from another run kept its seed (the same run seed, the
    same position) and lent the comparison and the report its deals: from a run of other
    rules, of another allocation (other deals), or of another stratification (another
    stratum's conditions). Each is named now, in one line."""
    from analysis.report import main as report_main

    root = tmp_path / "other"
    rules = resolve_rules("bridgette")
    strata.run_stratified("bridgette", rules, None, 3, 1500, root / "equal", "upcard_class", "equal")
    # 200 deals: the face stratum and the Grand Colon's seat-1 stratum both get 47, of seed 3's second stream.
    strata.run_stratified("bridgette", rules, None, 3, 200, root / "small", "upcard_class")
    strata.run_stratified("bridgette", rules, None, 3, 200, root / "grand", "grand_holder")
    cases = [(runs["a"], runs["b"] / "stratum-face", "face", "other rules, players or dealer than the other strata"),
             # the first stratum the foreign one: named, not the others that differ from it
             (runs["a"], runs["b"] / "stratum-numeral", "numeral", "other rules, players or dealer than the other"),
             (runs["a"], root / "equal" / "stratum-face", "face", "500 deals where the stratified run gave it 355"),
             (root / "small", root / "grand" / "stratum-seat1", "face", "conditions other than stratum face's")]
    for k, (base, source, name, words) in enumerate(cases):
        mixed = tmp_path / f"mixed{k}"
        shutil.copytree(base, mixed)
        shutil.rmtree(mixed / f"stratum-{name}")
        shutil.copytree(source, mixed / f"stratum-{name}")
        report = [str(mixed), "--out", str(tmp_path / "r")]
        for command, argv in ((main, [str(base), str(mixed)]), (report_main, report)):
            status, err = command(argv), capsys.readouterr().err
            assert status == 2 and err.count("\n") == 1, err
            assert f"{mixed / f'stratum-{name}'}, a stratum of {mixed}, was played with {words}" in err, err


def test_what_every_stratum_plays_alike():
    """sim.strata.stratum_mismatch on the folders' own words: an older multilevel stratum
    kept no dealing, and is not refused for it; one of another dealer than the others is."""
    kept = {"game": "bridgette", "stratify": "upcard_class", "seed": 3,
            "strata": [{"name": n, "deals": 10} for n in ("numeral", "face", "ace")]}

    def run(i, dealing):
        return {"rules": {}, "policies": ["heuristic"] * 2, "seed": strata.stratum_seed(3, i), "games": 10,
                "dealing": dealing}
    assert strata.stratum_mismatch(kept, [run(i, None) for i in range(3)]) is None
    dealt = [strata.strata_of("bridgette", resolve_rules("bridgette"), "upcard_class")[i].dealing.to_dict()
             for i in range(3)]
    assert strata.stratum_mismatch(kept, [run(i, dealt[i]) for i in range(3)]) is None
    dealt[2]["dealer"] = "0"
    assert strata.stratum_mismatch(kept, [run(i, dealt[i]) for i in range(3)]) == (
        2, "other rules, players or dealer than the other strata")


def test_a_stratum_folder_swapped_for_another_is_named(runs, tmp_path, capsys):
    swapped = tmp_path / "swapped"
    shutil.copytree(runs["a"], swapped)
    (swapped / "stratum-ace").rename(swapped / "away")
    (swapped / "stratum-face").rename(swapped / "stratum-ace")
    (swapped / "away").rename(swapped / "stratum-face")
    assert main([str(runs["a"]), str(swapped)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and (f"{swapped / 'stratum-face'}, a stratum of {swapped}, was played with another "
                                      f"seed than its stratum's") in err
    from analysis.report import main as report_main  # its report too (before: each stratum under the other's name)

    assert report_main([str(swapped), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{swapped / 'stratum-face'}, a stratum of {swapped}, was played" in err


def test_the_report_of_two_stratified_runs_is_the_comparisons_with_each_stratum(runs, capsys):
    """analysis.report A B of two stratified runs: the overall B - A of analysis.compare,
    and each stratum's (strata.csv), written beside B, so B's command still resumes it."""
    import csv

    from analysis.report import main as report

    out = runs["b"].parent / "b-report-vs-a"
    assert report([str(runs["a"]), str(runs["b"])]) == 0 and capsys.readouterr().out.strip() == str(out / "index.html")
    want = compare_strata(runs["a"], runs["b"])
    with open(out / "comparison.csv", newline="") as f:
        rows = {r["metric"]: r for r in csv.DictReader(f)}
    with open(out / "strata.csv", newline="") as f:
        strata_rows = [r for r in csv.DictReader(f) if r["metric"] == "dealer_advantage"]
    m = want["metrics"]["dealer_advantage"]
    assert float(rows["dealer_advantage"]["b_minus_a"]) == pytest.approx(m["diff"], rel=1e-12)
    assert float(rows["dealer_advantage"]["b_minus_a_hi95"]) == pytest.approx(m["ci95"][1], rel=1e-12)
    assert [r["stratum"] for r in strata_rows] == list(WEIGHTS)
    assert [float(r["b_minus_a"]) for r in strata_rows] == pytest.approx([s["diff"] for s in m["by_stratum"]])
    assert "stratified by upcard_class" in (out / "index.html").read_text()
    assert not any(p.name.startswith("report") for p in runs["b"].iterdir())
    before = read_sealed(runs["b"] / "strata.json", "")
    strata.run_stratified("bridgette", resolve_rules("bridgette", None, ["exchange.nondealer_draw=4"]), None, 3, 1500,
                          runs["b"], "upcard_class")  # resumed: nothing to play, nothing refused
    assert read_sealed(runs["b"] / "strata.json", "") == before


def test_stratified_runs_that_pair_in_some_strata_are_said_so(runs, tmp_path, capsys):
    """The same seed with 60 and 61 deals: the strata get 40, 14, 6 and 41, 14, 6 deals, so
    face and ace pair and numeral does not. The comparison's first line and the report's
    title read None as the number of deals (a traceback); they give both sizes, and the
    line says the runs pair in part."""
    from analysis.report import main as report

    for name, deals, options in (("p60", 60, []), ("p61", 61, ["exchange.nondealer_draw=4"]), ("p120", 120, [])):
        strata.run_stratified("bridgette", resolve_rules("bridgette", None, options), None, 3, deals,
                              tmp_path / name, "upcard_class")
    result = compare_strata(tmp_path / "p60", tmp_path / "p61")
    assert result["paired"] and result["games"] is None
    assert [s["paired"] for s in result["strata"]] == [False, True, True]
    assert main([str(tmp_path / "p60"), str(tmp_path / "p61")]) == 0
    assert capsys.readouterr().out.startswith("bridgette: 60 and 61 deals, seed 3, partly paired deal by deal, "
                                              "stratified by upcard_class")
    assert report([str(tmp_path / "p60"), str(tmp_path / "p61")]) == 0
    page = (tmp_path / "p61-report-vs-p60" / "index.html").read_text()
    assert "60 and 61 deals, seed 3, partly paired, stratified by upcard_class" in page
    # No stratum pairs (60 and 120 deals), yet each stratum's runs share their first deals: not "independent".
    apart = compare_strata(tmp_path / "p60", tmp_path / "p120")
    assert not apart["paired"] and apart["pairing"] == (
        "different number of deals (60 and 120): B - A is taken as the difference of two independent estimates, "
        "whose interval errs wide (each stratum's runs share the random streams of their first deals)")
