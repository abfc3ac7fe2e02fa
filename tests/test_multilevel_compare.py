"""Two multilevel folders compared (python -m analysis.compare A B, sim.multilevel.folders):
the paired difference against a direct computation from the folders' per-deal values, and
folders that do not pair refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.summary import Z95

STRONG = "heuristic:aggression=1.2"  # the "strong" level, as in test_multilevel.py


def _folder(tmp_path, name, *extra, deals="100", seed="3", seat="0"):
    from sim.run import main

    out = tmp_path / name
    assert main(["--deals", deals, "--seed", seed, "--dealer", "0", "--predeal", f"{seat}=CL", "--policy",
                 f"all={STRONG}", "--control", "all=heuristic", "--control-deals", "1000", "--quiet", "--out",
                 str(out), *extra]) == 0
    return out


def _by_hand(folder):
    """The textbook two-level regression estimate of the dealer's advantage (one
    regressor: 100 target deals are too few for the choice columns) and each deal's
    influence on it, from the folder's files; with its coefficient's sandwich variance."""
    with np.load(folder / "target.npz") as t, np.load(folder / "control-1.npz") as c:
        y, x = t["y0"], c["y0"]
    m0, m1 = len(y), len(x)
    v = x - x.mean()
    slope = np.polyfit(x[:m0], y, 1)[0]
    value = y.mean() - slope * (x[:m0].mean() - x.mean())
    psi = slope * v / m1
    psi[:m0] += (y - y.mean() - slope * v[:m0]) / m0
    vc = v[:m0] - v[:m0].mean()
    resid = y - y.mean() - slope * vc
    coefficient = (vc ** 2 * resid ** 2).sum() / (vc @ vc) ** 2 * m0 / (m0 - 2) * (v[:m0].mean()) ** 2
    return value, psi, coefficient, y


def test_two_multilevel_folders_pair_deal_by_deal(tmp_path, capsys):
    """B - A of two conditions (the Little Colon dealt to the dealer, or to the other) is
    the difference of the folders' kept estimates, and its variance the sum over the two
    segments of deals [0, 100) and [100, 1000) of the per-deal differences of influence
    (the first corrected for the one coefficient), plus both coefficients' variances; the
    plain paired difference is the mean and variance of the target's y_B - y_A."""
    from analysis.compare import main

    a, b = _folder(tmp_path, "a", seat="1"), _folder(tmp_path, "b", seat="0")
    assert main([str(a), str(b), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["metrics"]["dealer_advantage"]
    kept = [json.loads((f / "multilevel.json").read_text())["metrics"]["dealer_advantage"] for f in (a, b)]
    assert all(len(k["steps"][0]["coefficients"]) == 1 for k in kept)
    (va, pa, ca, ya), (vb, pb, cb, yb) = _by_hand(a), _by_hand(b)
    assert [va, vb] == pytest.approx([k["value"] for k in kept], rel=1e-12)
    assert got["diff"] == pytest.approx(vb - va, rel=1e-12)
    d = pb - pa
    variance = d[:100].var(ddof=1) * 100 * 99 / 98 + d[100:].var(ddof=1) * 900 + ca + cb
    assert got["variance"] == pytest.approx(variance, rel=1e-9)
    half = Z95 * np.sqrt(variance)
    assert got["ci95"] == pytest.approx([vb - va - half, vb - va + half], rel=1e-9)
    plain = (yb - ya).var(ddof=1) / 100
    assert got["plain_diff"] == pytest.approx((yb - ya).mean(), rel=1e-12)
    assert got["plain_variance"] == pytest.approx(plain, rel=1e-9)
    assert got["variance_saved"] == pytest.approx(plain / variance, rel=1e-9)
    assert main([str(a), str(b)]) == 0
    shown = capsys.readouterr().out
    assert "seat 1 holds CL" in shown and "seat 0 holds CL" in shown and "variance saved" in shown


def test_folders_that_do_not_pair_are_refused_in_one_line(tmp_path, capsys):
    """Another seed, another number of target deals, other rules as well as other
    conditions, or a plain run folder: one line, exit status 2."""
    from analysis.compare import main
    from sim.run import main as run

    a = _folder(tmp_path, "a", seat="1")
    assert run(["--deals", "100", "--seed", "3", "--dealer", "0", "--predeal", "0=CL", "--quiet", "--out",
                str(tmp_path / "plain")]) == 0
    for other, words in ((_folder(tmp_path, "seed", seed="4"), "different seed"),
                         (_folder(tmp_path, "deals", deals="120"), "100 deals in one and 120"),
                         (_folder(tmp_path, "rules", "--set", "exchange.nondealer_draw=4"), "both in their rules"),
                         (tmp_path / "plain", "is not")):
        assert main([str(a), str(other)]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_metric_a_folder_lacks_says_how_to_get_it(tmp_path, capsys):
    """A metric one folder was not played with is named, with what gets it: new folders
    played with --metrics (a rerun into the same folder is refused, its levels kept other
    metrics)."""
    from analysis.compare import main

    a, b = _folder(tmp_path, "a", seat="1"), _folder(tmp_path, "b")
    assert main([str(a), str(b), "--metrics", "contract_made"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"metric 'contract_made' is not in {a} (it holds dealer_advantage)" in err
    assert err.rstrip().endswith("so play both again into new folders with --metrics")


def test_a_custom_metric_is_compared_by_its_name_or_its_own_definition(tmp_path, capsys):
    """Folders played with made4: named alone it was refused as an unknown metric (though
    the folders hold it); written out with another definition (level == 3) the stored
    level-4 figures were printed under it. Its name alone or its own definition compare
    it; another definition is refused in one line."""
    from analysis.compare import main

    made4 = "made4 = mean(made) where level == 4"
    a, b = (_folder(tmp_path, name, "--metrics", made4, seat=seat) for name, seat in (("a", "1"), ("b", "0")))
    figures = []
    for metrics in ("made4", made4, "made4 = mean((made))  where level==4"):  # written otherwise: the same
        assert main([str(a), str(b), "--metrics", metrics, "--json"]) == 0
        figures.append(json.loads(capsys.readouterr().out)["metrics"]["made4"])
    assert figures[0] == figures[1] == figures[2] and figures[0]["definition"] == "mean(made) where level == 4"
    assert main([str(a), str(b), "--metrics", "made4 = mean(made) where level == 3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"metric 'made4' is made4 = mean(made) where level == 4 in {a}, not " \
                                     f"made4 = mean(made) where level == 3" in err


def test_a_multilevel_json_edited_by_hand_is_named_not_read(tmp_path, capsys):
    """multilevel.json checks itself: a level's size edited by hand (read_folder then made
    another estimate from the same level files, with no error) is named in one line."""
    from analysis.compare import main
    from sim.multilevel import MultilevelError, read_folder

    a, b = _folder(tmp_path, "a", seat="1"), _folder(tmp_path, "b")
    kept = json.loads((b / "multilevel.json").read_text())
    target = next(iter(kept["sizes"]))
    kept["sizes"][target] = 30
    (b / "multilevel.json").write_text(json.dumps(kept))
    with pytest.raises(MultilevelError, match="is damaged \\(its checksum does not match its content\\)"):
        read_folder(b)
    assert main([str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{b / 'multilevel.json'}" in err and "checksum" in err


def test_the_report_of_two_multilevel_folders_is_the_comparisons_and_leaves_them_resumable(tmp_path, capsys):
    """analysis.report A B of two multilevel folders: its comparison.csv holds the numbers
    of analysis.compare --json, written beside B (inside it, the folder would no longer be
    its command's own: the rerun and the comparison would refuse it); a custom metric held
    by both is named by its bare name; a multilevel folder beside a plain run is one line."""
    import csv

    from analysis.compare import compare as compare_any, main as compare
    from analysis.report import main as report
    from sim.run import main as run

    custom = "--metrics=made = mean(made) where level >= 0"
    a, b = _folder(tmp_path, "a", custom, seat="1"), _folder(tmp_path, "b", custom, seat="0")
    assert report([str(a), str(b), "--metrics", "made"]) == 0
    assert compare_any(a, b, "made")["metrics"]["made"]["diff"] is not None  # one text, not the letters m, a, d, e
    page = tmp_path / "b-report-vs-a" / "index.html"
    assert capsys.readouterr().out.strip() == str(page) and page.is_file()
    assert compare([str(a), str(b), "--metrics", "made", "--json"]) == 0
    want = json.loads(capsys.readouterr().out)["metrics"]["made"]
    with open(page.parent / "comparison.csv", newline="") as f:
        row, = csv.DictReader(f)
    for key, got in (("diff", "b_minus_a"), ("plain_diff", "plain_b_minus_a"), ("variance_saved", "variance_saved"),
                     ("pairing_saved", "pairing_saved")):
        assert float(row[got]) == pytest.approx(want[key], rel=1e-12)
    assert [float(row["b_minus_a_lo95"]), float(row["b_minus_a_hi95"])] == pytest.approx(want["ci95"], rel=1e-12)
    assert "multilevel comparison" in page.read_text() and (page.parent / "levels.csv").is_file()
    assert sorted(p.name for p in b.iterdir()) == ["control-1.npz", "multilevel.json", "target.npz"]
    assert _folder(tmp_path, "b", custom, seat="0") == b  # the same command resumes it
    assert run(["--deals", "100", "--seed", "3", "--quiet", "--out", str(tmp_path / "plain")]) == 0
    capsys.readouterr()
    assert report([str(a), str(tmp_path / "plain")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a multilevel folder and" in err and "Traceback" not in err


def test_the_levels_table_holds_a_control_one_folder_left_out():
    """The pilot may leave a control out of one folder (not worth its cost there): the
    table's rows are every level of either, where zip over A's levels paired the wrong
    rows, and a dict lookup would fail."""
    from analysis.report.multilevel import level_rows

    a = {"0=pimc,1=pimc": 300, "dd:all=heuristic": 20_200, "all=heuristic": 280_000}
    b = {"0=pimc,1=pimc": 300, "all=heuristic": 310_000}
    assert level_rows(a, b) == [["0=pimc,1=pimc", 300, 300], ["dd:all=heuristic", 20_200, "\u2013"],
                                ["all=heuristic", 280_000, 310_000]]


def test_the_text_names_each_levels_deals_where_the_pilots_kept_other_controls():
    """Each folder's pilot kept another control: the level deals were printed as bare
    numbers ("A 20, 3,743; B 20, 2,020"), which the reader could not match to the controls
    listed before them."""
    from analysis.compare import format_multilevel

    result = {"game": "bridgette", "deals": 20, "seed": 1, "a": "A", "b": "B", "pairing": "the same deals",
              "policies": ["pimc", "pimc"], "controls": ["dd:all=heuristic", "all=heuristic"], "metrics": {},
              "sizes": [{"0=pimc,1=pimc": 20, "all=heuristic": 3743}, {"0=pimc,1=pimc": 20, "dd:all=heuristic": 2020}]}
    assert ("  deals by level (a control its pilot left out plays none): A target 20, all=heuristic 3,743; "
            "B target 20, dd:all=heuristic 2,020") in format_multilevel(result).splitlines()


def test_folders_whose_pilot_left_a_control_out_are_read_compared_and_reported(tmp_path, capsys):
    """A control the pilot left out (random seats explain nothing) keeps the file its pilot
    played: the folder is the run's own, which the readers took for a stranger's."""
    from analysis.compare import main as compare
    from analysis.report import main as report
    from sim.multilevel.folders import read_folder
    from sim.run import main as run

    folders = []
    for seat in ("0", "1"):
        out = tmp_path / f"seat{seat}"
        assert run(["--deals", "60", "--seed", "3", "--dealer", "0", "--predeal", f"{seat}=CL", "--control",
                    "all=random", "--out", str(out)]) == 0
        assert "all=random not worth its cost here; left out" in capsys.readouterr().err
        assert sorted(p.name for p in out.iterdir()) == ["control-1.npz", "multilevel.json", "target.npz"]
        assert list(read_folder(out)["sizes"]) == ["0=heuristic,1=heuristic"]  # the target alone
        folders.append(str(out))
    assert compare(folders) == 0
    assert report(folders + ["--out", str(tmp_path / "page")]) == 0
    (tmp_path / "seat0" / "control-2.npz").write_bytes(b"")  # a file of no control is still refused
    capsys.readouterr()
    assert compare(folders) == 2
    assert "holds files its run did not write beside its levels (control-2.npz)" in capsys.readouterr().err
