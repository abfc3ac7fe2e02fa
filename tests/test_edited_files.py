"""Files of a multilevel, sweep or stratified folder edited by hand, or swapped with
another level's, and filters a run's records cannot take: one line naming the file (or
the filter), exit status 2, and nothing written."""

from __future__ import annotations

import json
import re
import shutil

import pytest

import sim
from analysis.compare import main as compare_main
from analysis.report import main as report_main
from sim.run import main as run_main
from sim.store import RunError, read_sealed, sealed
from sim.sweep import main as sweep_main


def fails_in_one_line(status: int, err: str, *words) -> None:
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert str(word) in err, err


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("edited")
    paths = {"multilevel": base / "ml", "sweep": base / "sw", "strata": base / "st", "run": base / "run"}
    assert run_main(["--deals", "30", "--policy", "all=random", "--control", "all=heuristic", "--control-deals", "60",
                     "--quiet", "--out", str(paths["multilevel"])]) == 0
    assert sweep_main(["--vary", "exchange.nondealer_draw=2,4", "--games", "4", "--quiet",
                       "--out", str(paths["sweep"])]) == 0
    assert run_main(["--deals", "40", "--stratify", "upcard_class", "--quiet", "--out", str(paths["strata"])]) == 0
    assert run_main(["--games", "20", "--block-size", "10", "--quiet", "--out", str(paths["run"])]) == 0
    return paths


def copy(folders, kind, tmp_path):
    out = tmp_path / kind
    shutil.copytree(folders[kind], out)
    return out


def test_a_level_file_swapped_for_another_levels_is_named(folders, tmp_path, capsys):
    """The control's file copied over the target's: before, compare and report read the
    heuristic's values as the target's (random seats) and gave an estimate of the wrong players."""
    edited = copy(folders, "multilevel", tmp_path)
    shutil.copyfile(edited / "control-1.npz", edited / "target.npz")
    fails_in_one_line(compare_main([str(folders["multilevel"]), str(edited)]), capsys.readouterr().err,
                      edited / "target.npz", "another level")
    fails_in_one_line(report_main([str(edited), "--out", str(tmp_path / "report")]), capsys.readouterr().err,
                      edited / "target.npz")
    assert not (tmp_path / "report").exists()


def test_a_control_of_players_this_release_does_not_know_is_named(folders, tmp_path, capsys):
    edited = copy(folders, "multilevel", tmp_path)
    kept = read_sealed(edited / "multilevel.json")  # edited and sealed again: the checks of its values name it
    kept["controls"] = ["all=bogus"]
    kept["sizes"] = {name if k == 0 else "all=bogus": m for k, (name, m) in enumerate(kept["sizes"].items())}
    (edited / "multilevel.json").write_text(json.dumps(sealed(kept)))
    fails_in_one_line(compare_main([str(folders["multilevel"]), str(edited)]), capsys.readouterr().err,
                      edited / "multilevel.json", "all=bogus names players this release does not know")


@pytest.mark.parametrize("size", [0, 2, 1000])
def test_a_level_size_no_run_writes_is_named(folders, tmp_path, capsys, size):
    """The target's deals below the 3 an estimate needs, or above a control's (each control
    plays the target's deals): before, a ValueError from numpy."""
    edited = copy(folders, "multilevel", tmp_path)
    kept = read_sealed(edited / "multilevel.json")
    kept["sizes"][next(iter(kept["sizes"]))] = size
    (edited / "multilevel.json").write_text(json.dumps(sealed(kept)))
    fails_in_one_line(compare_main([str(folders["multilevel"]), str(edited)]), capsys.readouterr().err,
                      edited / "multilevel.json")


@pytest.mark.parametrize("kind,file,edit", [
    ("sweep", "sweep.json", lambda s: s["settings"][1]["metrics"]["dealer_advantage"].update(value="12.5")),
    ("sweep", "sweep.json", lambda s: s["settings"][0]["metrics"]["dealer_advantage"].pop("value")),
    ("strata", "strata.json", lambda s: s.update(game="bridgete")),
])
@pytest.mark.parametrize("sealed_again", [True, False])
def test_a_sweep_or_strata_summary_edited_by_hand_is_named_and_no_report_is_left(folders, tmp_path, capsys, kind,
                                                                                 file, edit, sealed_again):
    """Edited and sealed again (its checksum made to match: the report's own checks of the
    values name it), or edited only, its checksum kept (which then names it)."""
    edited = copy(folders, kind, tmp_path)
    kept = read_sealed(edited / file) if sealed_again else json.loads((edited / file).read_text())
    edit(kept)
    (edited / file).write_text(json.dumps(sealed(kept) if sealed_again else kept))
    out = tmp_path / "report"
    status = report_main([str(edited), "--out", str(out)])
    err = capsys.readouterr().err
    fails_in_one_line(status, err, edited / file)
    assert ("its checksum does not match" in err) != sealed_again, err
    assert not out.exists()


def test_a_missing_level_file_is_named_in_words(folders, tmp_path, capsys):
    """A control's file deleted: "it is missing", not the system's errno and the path twice."""
    ml = copy(folders, "multilevel", tmp_path)
    (ml / "control-1.npz").unlink()
    fails_in_one_line(report_main([str(ml), "--out", str(tmp_path / "r")]), capsys.readouterr().err,
                      f"cannot read {ml / 'control-1.npz'}: it is missing (the run's command run again plays it")


@pytest.mark.parametrize("bad, words", [({"level": 3}, "a filter is a pyarrow expression or a list of"),
                                        ([("score0", ">", 2**70)], "is beyond every value of column 'score0'"),
                                        ([("nowhere", "=", 1)], "no column 'nowhere' in the records")])
def test_a_filter_the_records_cannot_take_is_a_run_error(folders, bad, words):
    with pytest.raises(RunError, match=re.escape(words)):
        sim.load_run(folders["run"]).deals(filter=bad)


def test_an_emptied_block_file_is_named_not_taken_for_an_older_release(tmp_path):
    """A block file emptied to {} beside another block's records copied into its place: an
    older release's block file (no checksums) still holds its aggregates, this one holds
    nothing, so the reader names it (before: the copied records were read as this block's,
    games 0-9 twice and 10-19 never)."""
    import shutil

    out = tmp_path / "run"
    sim.simulate(games=20, block_size=10, out=out)
    (out / "blocks" / "000001.json").write_text("{}")
    shutil.copy(out / "records" / "deals-000000.parquet", out / "records" / "deals-000001.parquet")
    with pytest.raises(RunError, match=r"000001\.json holds no block's aggregates"):
        sim.load_run(out).deals()
