"""Faults a run folder survives: damaged or missing files, kill -9 and Ctrl-C, two writers,
read-only folders, impossible names, and folders a command did not make.

A run of 40 games in blocks of 10 is played once, uninterrupted (``whole``); each fault is
made on a copy, and the copy, resumed, must end with the same files byte for byte.
"""

import ctypes
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sim
from analysis.compare import main as compare_main
from analysis.report import main as report_main
from sim.run import main as run_main
from sim.show import main as show_main
from sim.store import LOCK_NAME, FolderLock, RunError, load_records, temporary
from sim.sweep import main as sweep_main
from tests.commands import ROOT, as_process, catching, disk_full_at, in_process, playing, started

RUN = ["--games", "40", "--block-size", "10", "--seed", "3", "--quiet"]
LONG_NAME = "x" * 300  # more than the 255 bytes a file name may have


def fails_in_one_line(status: int, err: str, *words) -> None:
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert str(word) in err, err


def files(folder: Path) -> dict:
    """Every file of a run folder that its records decide, by name: the Parquet records, the
    block files and the summary (the manifest holds timings)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


def everything(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "run"
    assert run_main([*RUN, "--out", str(out)]) == 0
    return out


@pytest.fixture
def copy(whole, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(whole, out)
    return out


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def empty(path: Path) -> None:
    path.write_bytes(b"")


def flip(path: Path) -> None:
    """One bit changed in the middle: the file keeps its size (and a JSON file may still parse)."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def delete(path: Path) -> None:
    path.unlink()


def unseal(path: Path) -> None:
    """A block file edited by hand, its checksum taken out so that it reads as an older
    release's, which wrote none (this release's carries the run's digest too)."""
    block = json.loads(path.read_text())
    del block["checksum"]
    block["wins"] = "x"
    path.write_text(json.dumps(block))


DAMAGE = {"truncate": truncate, "empty": empty, "flip": flip, "delete": delete, "unseal": unseal}


def resume(out: Path, capsys, *extra) -> tuple[int, str]:
    status = run_main([*RUN, *extra, "--out", str(out)])
    return status, capsys.readouterr().err


# --- Damaged files ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,how", [
    ("records/deals-000002.parquet", "truncate"), ("records/deals-000002.parquet", "empty"),
    ("records/deals-000002.parquet", "flip"), ("records/deals-000002.parquet", "delete"),
    ("records/games-000002.parquet", "flip"),
    ("blocks/000002.json", "truncate"), ("blocks/000002.json", "empty"), ("blocks/000002.json", "flip"),
    ("blocks/000002.json", "delete"), ("blocks/000002.json", "unseal"),
])
def test_a_damaged_block_is_named_by_every_reader_and_played_again_on_resume(whole, copy, capsys, tmp_path,
                                                                              name, how):
    DAMAGE[how](copy / name)
    damaged = copy / name
    # Readers name the file and read nothing of it.
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err, damaged)
    fails_in_one_line(compare_main([str(whole), str(copy)]), capsys.readouterr().err, damaged)
    with pytest.raises(RunError, match=str(damaged)):
        sim.load_run(copy).games() if "games-" in name else sim.load_run(copy).deals()
    # A resume plays block 2 again, says so in one line, and ends as the whole run.
    status, err = resume(copy, capsys)
    assert status == 0 and err.count("\n") == 1 and err.startswith(f"block 2 is played again: {damaged} "), err
    assert files(copy) == files(whole)


@pytest.mark.parametrize("how", ["truncate", "flip", "delete"])
def test_a_damaged_summary_is_named_and_written_again_on_resume(whole, copy, capsys, tmp_path, how):
    DAMAGE[how](copy / "summary.json")
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err,
                      copy if how == "delete" else copy / "summary.json")
    with pytest.raises(RunError, match="summary.json"):
        sim.load_run(copy)
    status, err = resume(copy, capsys)  # mended, and said so in one line (before: in silence)
    assert status == 0 and err.count("\n") == 1 and err.startswith(f"{copy / 'summary.json'} is written again from "
                                                                   f"the blocks: ")  # which run's (a sweep's setting)
    assert files(copy) == files(whole)
    assert sim.load_run(copy).summary == sim.load_run(whole).summary
    assert resume(copy, capsys) == (0, "")  # whole again: nothing to say


def test_a_folder_in_the_summarys_place_is_one_line(copy, capsys):
    """A folder where summary.json goes: the resume said it wrote the summary again, then
    that it could not: two lines. Now the one that holds."""
    (copy / "summary.json").unlink()
    (copy / "summary.json").mkdir()
    status, err = resume(copy, capsys)
    assert status == 2 and err == f"python -m sim.run: error: cannot write {copy / 'summary.json'}: Is a directory\n"
    assert (copy / "summary.json").is_dir()


def test_a_manifest_whose_configuration_was_edited_is_named_and_its_blocks_kept(copy, capsys):
    """The seed edited in a finished run's manifest: the command of the edited seed played
    every block again over the run's own (each was "another run's"), and the command of the
    run's seed said the folder held another configuration. Both name the edited manifest
    now, and nothing is changed; one block copied in from another run is still played again."""
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["config"]["seed"] = 4
    (copy / "manifest.json").write_text(json.dumps(manifest))
    before = everything(copy)
    for seed in ("3", "4"):
        args = [*RUN, "--out", str(copy)]
        args[args.index("--seed") + 1] = seed
        status = run_main(args)
        fails_in_one_line(status, capsys.readouterr().err, f"{copy / 'manifest.json'} does not hold the "
                                                           f"configuration its run was played by")
    assert everything(copy) == before


def test_a_folder_of_user_files_named_like_a_runs_is_not_called_a_run(tmp_path, capsys):
    """A records folder holding a user's notes (no block, no record file) was "a run's
    blocks but no manifest.json"; it is a folder that is not a run's, and is left as it is."""
    out = tmp_path / "mine"
    (out / "records").mkdir(parents=True)
    (out / "records" / "notes.txt").write_text("mine")
    fails_in_one_line(run_main([*RUN, "--out", str(out)]), capsys.readouterr().err,
                      f"output folder {out} is not empty and is not a run folder")
    assert (out / "records" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("how", ["truncate", "empty", "delete"])
def test_a_damaged_manifest_is_one_line_and_nothing_is_changed(copy, capsys, tmp_path, how):
    DAMAGE[how](copy / "manifest.json")
    before = everything(copy)
    named = (f"output folder {copy} holds a run's blocks but no manifest.json, so it cannot be resumed"
             if how == "delete" else copy / "manifest.json")
    status, err = resume(copy, capsys)
    fails_in_one_line(status, err, named)
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err,
                      "not a run folder" if how == "delete" else copy / "manifest.json")
    assert everything(copy) == before


@pytest.mark.parametrize("key,value", [
    ("config.block_size", 0), ("config.block_size", "x"), ("config.games", 0), ("config.games", 10**30),
    ("config.seed", -1), ("config.rules", "x"), ("summary", "x"), ("blocks", -1), ("blocks", 10**30),
    ("blocks_done", None), ("timing", "x"), ("nested", None),
    # Before, each of these read on: no rows ("holds deal rows 0..-1"), "played by rules
    # version 2, this simulator is version 2", "kept no deal records".
    ("blocks", 0), ("blocks", 1), ("blocks_done", [5]), ("config.rules_version", "2"), ("config.records", "zzz"),
    ("config.records", ["deals"]),
    # Before, these were a MemoryError (or the machine's memory), a TypeError or a KeyError.
    ("games_played", 10**15), ("games_played", "100"), ("games_played", 0), ("timing.seconds", "0.1"),
    ("until", {"reached": True}), ("config.dealing", "deals"), ("config.dealing", {"unit": "games"}),
    ("config.policies", None), ("config.seed", 7),
    # Before, these were read as the whole run: a finished run listing fewer blocks than it
    # counts, or one block twice.
    ("blocks_done", [0]), ("blocks_done", [0, 0, 1]),
])
def test_a_manifest_edited_by_hand_is_one_line_to_every_reader_and_nothing_is_changed(whole, copy, capsys, tmp_path,
                                                                                     key, value):
    """A manifest edited by hand with a field of the wrong type or out of range, or nested
    too deep to read: every reader, and a resume, refuse it in one line; the folder stays as
    it was."""
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.pop("checksum", None)
    if key == "nested":
        (copy / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    else:
        *path, last = key.split(".")
        target = manifest
        for part in path:
            target = target[part]
        target[last] = value
        (copy / "manifest.json").write_text(json.dumps(manifest))
    before = everything(copy)
    named = copy / "manifest.json"
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err, named)
    fails_in_one_line(compare_main([str(whole), str(copy)]), capsys.readouterr().err, named)
    # A resume names a configuration it would not play as its own (the dealing: another run's).
    fails_in_one_line(*resume(copy, capsys), copy if key in ("config.dealing", "config.seed") else named)
    fails_in_one_line(show_main([str(copy), "--deal", "7"]), capsys.readouterr().err, named)
    assert everything(copy) == before and not (tmp_path / "report").exists()


def test_a_block_copied_in_from_another_run_is_named_and_played_again(whole, copy, capsys, tmp_path):
    """Block 1's file and records from a run of another seed, copied over this run's (each
    whole by its own checksums): every reader names the block file, and a resume plays the
    block again to the whole run (before: the other run's rows were read as this run's)."""
    other, args = tmp_path / "other", list(RUN)
    args[args.index("--seed") + 1] = "2"
    assert run_main([*args, "--out", str(other)]) == 0
    for name in ("blocks/000001.json", "records/deals-000001.parquet", "records/games-000001.parquet"):
        shutil.copyfile(other / name, copy / name)
    block = copy / "blocks/000001.json"
    fails_in_one_line(show_main([str(copy), "--deal", "70"]), capsys.readouterr().err, block)
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err, block)
    with pytest.raises(RunError, match="is another run's block"):
        sim.load_run(copy).deals()
    status, err = resume(copy, capsys)
    assert status == 0 and err == f"block 1 is played again: {block} is another run's block (its configuration " \
                                  f"differs): not this run's file\n"
    assert files(copy) == files(whole)
    # A run that keeps no records is read from its blocks' aggregates: the same.
    bare = {}
    for name, seed in (("mine", "3"), ("theirs", "2")):
        bare[name] = tmp_path / name
        assert run_main([*args[:args.index("--seed")], "--seed", seed, "--records", "none", "--quiet",
                         "--out", str(bare[name])]) == 0
    shutil.copyfile(bare["theirs"] / "blocks/000001.json", bare["mine"] / "blocks/000001.json")
    fails_in_one_line(report_main([str(bare["mine"]), "--out", str(tmp_path / "bare-report")]),
                      capsys.readouterr().err, bare["mine"] / "blocks/000001.json")

@pytest.mark.parametrize("how", ["truncate", "delete"])
def test_show_names_a_damaged_block_of_the_deal_and_shows_no_other(copy, capsys, how):
    """``sim.show RUN --deal I`` reads the block file that holds row I only once its checksum
    holds: a damaged or missing one is named in one line, never read as another block's."""
    DAMAGE[how](copy / "records/deals-000001.parquet")
    fails_in_one_line(show_main([str(copy), "--deal", "70"]), capsys.readouterr().err,
                      copy / "records/deals-000001.parquet")
    assert show_main([str(copy), "--deal", "3"]) == 0  # block 0 is whole


def test_a_folder_of_a_release_before_the_checksums_still_resumes_and_reads(whole, copy, capsys, tmp_path):
    """Block files without their records' checksums (nor the run's digest, which came
    after), a manifest without the summary's: the files need only exist, and a missing one
    is played again."""
    for block in (copy / "blocks").glob("*.json"):
        aggregates = json.loads(block.read_text())
        del aggregates["record_files"], aggregates["checksum"], aggregates["run"]
        block.write_text(json.dumps(aggregates))
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["summary"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert compare_main([str(whole), str(copy)]) == 0
    assert sim.load_run(copy).deals().equals(sim.load_run(whole).deals())
    (copy / "records" / "games-000001.parquet").unlink()
    status, err = resume(copy, capsys)
    assert status == 0 and err == f"block 1 is played again: {copy}/records/games-000001.parquet is missing\n"
    assert files(copy)["records/games-000001.parquet"] == files(whole)["records/games-000001.parquet"]
    # With no checksum to hold it to, a record file cut short is read to be sure, and named
    # (before: pyarrow's ArrowInvalid, a traceback from sim.show).
    deals = copy / "records" / "deals-000000.parquet"
    os.truncate(deals, deals.stat().st_size // 2)
    fails_in_one_line(show_main([str(copy), "--deal", "3"]), capsys.readouterr().err, deals)
    with pytest.raises(RunError, match="deals-000000.parquet is not readable Parquet"):
        sim.load_run(copy).deals()


# --- Interruptions ---------------------------------------------------------------------------

def kill_at(args, out: Path, delay: float, sig=signal.SIGKILL, after: str = LOCK_NAME) -> None:
    """Start a run and send it ``sig`` ``delay`` seconds after the file ``after`` appears in
    its folder (by default its lock: the run holds the folder)."""
    proc = started("sim.run", *args, "--out", out)
    deadline = time.time() + 60
    while not (out / after).exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    proc.send_signal(sig)
    proc.communicate(timeout=60)


def test_kill_9_leaves_no_lock_and_the_resumed_run_is_the_whole_run(whole, tmp_path, capsys):
    out = tmp_path / "run"
    kill_at(RUN, out, random.Random(7).uniform(0, 0.05))
    status, err = resume(out, capsys)
    assert status == 0 and err == "", err
    assert files(out) == files(whole)
    assert not (out / LOCK_NAME).exists()


@pytest.mark.slow
def test_kill_9_and_ctrl_c_at_random_points_then_resume_give_the_whole_run(tmp_path):
    """Interruptions at random points of a 30,000-game run (block files of 1,000 games, each
    written while the next block plays), of its first run and of its resumes, twenty times:
    after it holds its folder (opening it, loading the kernels) or once it plays."""
    args = ["--games", "30000", "--block-size", "1000", "--seed", "11", "--quiet"]
    whole = tmp_path / "whole"
    assert as_process("sim.run", *args, "--out", whole).returncode == 0
    rng, cut_mid_run = random.Random(2024), 0
    for k in range(20):
        out = tmp_path / f"cut{k}"
        for _ in range(rng.randint(1, 3)):
            kill_at(args, out, rng.uniform(0, 1.0), rng.choice([signal.SIGKILL, signal.SIGINT]),
                    rng.choice([LOCK_NAME, "blocks/000000.json"]))
        cut_mid_run += 0 < len(list((out / "blocks").glob("*.json"))) < 30
        done = as_process("sim.run", *args, "--out", out)
        assert done.returncode == 0, done.stderr
        assert files(out) == files(whole), k
        assert not [p for p in out.rglob("*") if p.name.endswith(".tmp") or p.name == LOCK_NAME]
    assert cut_mid_run >= 5, "too few interruptions fell between the first block and the last"


def test_ctrl_c_then_resume_gives_the_whole_run_and_frees_the_folder(whole, tmp_path, capsys):
    out = tmp_path / "run"
    kill_at(RUN, out, 0.01, signal.SIGINT)
    assert not (out / LOCK_NAME).exists()  # released on the way out
    status, _ = resume(out, capsys)
    assert status == 0 and files(out) == files(whole)


@pytest.mark.parametrize("module, args, words", [
    ("sim.run", ["--games", "2e6", "--block-size", "50000", "--quiet"], "terminated; rerun the same command to "
                                                                        "resume the run in"),
    ("sim.match", ["--a", "heuristic", "--b", "random", "--games", "2e6"], "terminated; a match keeps nothing"),
])
def test_sigterm_ends_a_command_as_ctrl_c_does_with_status_143(tmp_path, module, args, words):
    """SIGTERM (kill, a batch scheduler's stop), while starting and while playing: one line,
    status 143, nothing half written and the folder freed (before: killed where it stood,
    with no word said). A run then resumes to the whole run."""
    out = tmp_path / "run"
    extra = ["--out", out] if module == "sim.run" else []
    proc = started(module, *args, *extra)
    catching(proc, signal.SIGTERM)  # while it starts: the package's handler, before the command has taken over
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip() == f"python -m {module}: terminated", err
    proc = started(module, *args, *extra)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None and module == "sim.run" and not (
            out / "blocks" / "000000.json").exists():
        time.sleep(0.01)
    time.sleep(0.5 if module == "sim.run" else 4)  # while it plays (a match says nothing until its end)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    lines = err.strip().splitlines()
    # A match says nothing while it plays: on a slow machine it may still be starting.
    starting = module == "sim.match" and lines == [f"python -m {module}: terminated"]
    assert proc.returncode == 143 and len(lines) == 1 and (lines[0].startswith(words) or starting), err
    assert "Traceback" not in err
    if module == "sim.run":
        assert not (out / LOCK_NAME).exists() and not list(out.rglob("*.tmp"))


@pytest.mark.parametrize("module, sig, status, word", [("sim.run", signal.SIGINT, 130, "interrupted"),
                                                        ("sim.match", signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_a_command_while_a_long_kernel_plays(tmp_path, module, sig, status, word):
    """One game of a seat searching 50,000 worlds a card takes minutes in one kernel call,
    which holds the main thread: the signal reached the command only once the game was
    played (before: still playing 30 s after Ctrl-C). The kernel plays in a thread of its
    own; the command's line comes at once, and a run's folder, with nothing kept, is gone."""
    out = tmp_path / "run"
    args, words = ((["--a", "pimc:worlds=50000", "--b", "heuristic"], f"{word}; a match keeps nothing")
                   if module == "sim.match" else
                   (["--policy", "all=pimc:worlds=50000", "--threads", "1", "--out", out], f"{word}; nothing was kept"))
    proc = started(module, *args, "--games", "1")
    time.sleep(3)  # loaded and playing (or still starting, below): the game alone takes minutes
    sent = time.time()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()  # not left playing for minutes where the signal went unheard
    # With a numba cache that lacks the search kernels (not make test's, which compiles them
    # first) the command says it compiles them before the signal comes: not the line tested.
    # Off a terminal the command's line is a line alone, with no blank line before it.
    lines = [line for line in err.splitlines() if not line.startswith("compiling kernels")]
    assert time.time() - sent < 5 and proc.returncode == status and len(lines) == 1, err
    assert lines[0].startswith(words) or lines[0] == f"python -m {module}: {word}", err  # or still starting
    assert not out.exists()

def test_ctrl_c_stops_a_long_solve_at_once(tmp_path):
    """sim.solve --at on a double-deck Bid Euchre hand's first card searches half a minute in
    one solver call, which held the main thread: Ctrl-C was heard only once it returned. The
    solve runs in a thread of its own (the solver's entry points release the interpreter):
    one line, status 130, at once."""
    shown = in_process("sim.show", "--game", "bid-euchre", "--set", "variant.double_deck=true", "--seed", "1",
                       "--index", "0", "--json")
    line = tmp_path / "deal.jsonl"
    line.write_text(shown.stdout.splitlines()[2] + "\n")  # the game's third deal: 25-40 s at play[0]
    assert in_process("sim.solve", line, "--at", "44").returncode == 0  # its kernels compiled and kept, in the cache
    proc = started("sim.solve", line, "--at", "0")
    try:
        playing(proc, 2.0)  # loaded and solving
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert time.time() - sent < 5 and proc.returncode == 130 and err == "python -m sim.solve: interrupted\n", err


def test_an_error_an_object_raises_as_it_goes_after_a_stop_says_nothing(monkeypatch, capsys):
    """After Ctrl-C, an object the stop left half made (llvmlite's pass builder) raised in
    its __del__, and Python printed that traceback after the command's one line. Once the
    command is stopped such an error says nothing; before, Python's hook prints it."""
    from sim.cli import signals

    class HalfMade:
        def __del__(self):
            raise AttributeError("'PassBuilder' object has no attribute '_as_parameter_'")

    caught = []
    monkeypatch.setattr(sys, "unraisablehook", caught.append)
    HalfMade()  # gone at once, its error handed to the hook
    info = caught[0]
    monkeypatch.setattr(signals, "_stopped", [])
    signals._unraisable(info)
    assert "PassBuilder" in capsys.readouterr().err
    monkeypatch.setattr(signals, "_stopped", [signal.SIGINT])
    signals._unraisable(info)
    assert capsys.readouterr().err == ""


DROPPED = """
import sys, weakref
from sim.cli import exit_with, interruptible

class Loaded:
    pass

def main():
    # A signal's KeyboardInterrupt raised in a callback that Python can only report and drop
    # (as in llvmlite's ctypes callback while numba loads a kernel), then, for {case}:
    kernel = Loaded()
    held = weakref.ref(kernel, lambda ref: (_ for _ in ()).throw(KeyboardInterrupt))
    del kernel
    {case}
    return 0

exit_with(main, "python -m demo")
"""


@pytest.mark.parametrize("case, line", [
    ("interruptible(lambda: None)", "python -m demo: interrupted"),  # a kernel to play: heard there
    ("pass", "python -m demo: interrupted (its work was done)"),      # none left: heard at the end
    ("exec('raise KeyboardInterrupt')", "python -m demo: interrupted"),  # also through an exec() of a string
])
def test_a_signal_python_drops_in_a_callback_is_heard_and_the_status_is_130(tmp_path, case, line):
    """A Ctrl-C that lands in a callback while kernels load was printed as a traceback
    ("Exception ignored on calling ctypes callback function") and lost: the run played on to
    status 0. It is now heard at the next kernel, or when the command ends. And a
    KeyboardInterrupt that once passed out of an exec() (numba and dataclasses make code so)
    no longer makes CPython end the process by SIGINT at exit (a parent saw -2, not 130)."""
    (tmp_path / "demo.py").write_text(DROPPED.replace("{case}", case))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # run as the commands run, with -m: a file's exit differs
    done = subprocess.run([sys.executable, "-m", "demo"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 130 and done.stderr.strip() == line, done.stderr


@pytest.mark.parametrize("module, args", [
    ("sim.run", ["--list-options"]),
    ("sim.show", ["--game", "bridgette", "--seed", "1", "--index", "0"]),
])
def test_output_that_cannot_be_written_is_one_line_and_status_2(module, args):
    """Output into a full disk (``> /dev/full``) or a closed stdout (``>&-``): one line on
    stderr, status 2 (before: the print's OSError, or None's AttributeError, as a traceback,
    status 1)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    fails_in_one_line(done.returncode, done.stderr, f"python -m {module}: cannot write its output: No space left")
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=lambda: os.close(1))
    fails_in_one_line(done.returncode, done.stderr, f"python -m {module}: cannot write its output: standard output "
                                                    "is closed")


def test_a_closed_stderr_leaves_the_run_to_play_and_print(tmp_path):
    """``2>&-``: the run plays and prints its answers (before: status 1 and no folder, as
    the progress bar asked a missing stderr whether it was a terminal)."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "sim.run", "--games", "20", "--threads", "1", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.close(2))
    assert done.returncode == 0 and "20 games" in done.stdout and (out / "summary.json").is_file()


# --- One writer ------------------------------------------------------------------------------

def test_a_second_writer_ends_at_once_naming_the_holder(whole, copy, capsys):
    (copy / "records" / "deals-000001.parquet").unlink()  # work left for the second writer
    before = everything(copy)
    with FolderLock(copy, "run"):
        began = time.time()
        second = as_process("sim.run", *RUN, "--out", copy)
        fails_in_one_line(second.returncode, second.stderr, f"{copy} is being written by another run",
                          f"pid {os.getpid()} on {socket.gethostname()}, since ")
        assert time.time() - began < 30
        assert everything(copy) == {**before, LOCK_NAME: (copy / LOCK_NAME).read_bytes()}
    assert not (copy / LOCK_NAME).exists()
    assert resume(copy, capsys)[0] == 0 and files(copy) == files(whole)


def test_the_refusal_names_the_kind_of_writer_that_holds_the_folder(tmp_path):
    """A report refused by a run's lock said "another report": the lock file now names its
    holder's kind."""
    folder = tmp_path / "held"
    folder.mkdir()
    with FolderLock(folder, "run"):
        with pytest.raises(RunError, match=f"{folder} is being written by another run \\(pid {os.getpid()} on "):
            FolderLock(folder, "report")
    (folder / LOCK_NAME).write_text("pid 1 on an older release's host\n")  # no kind: "command"
    fd = os.open(folder / LOCK_NAME, os.O_RDWR)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(RunError, match=r"being written by another command \(pid 1 on an older"):
            FolderLock(folder, "report")
    finally:
        os.close(fd)


def test_a_ladder_holds_its_folder_while_it_plays(tmp_path, monkeypatch):
    """Two ladders on one --out both ended with status 0, the second's files over the
    first's, and a run could write beside a ladder playing: the ladder takes the folder's
    lock as every writing command does."""
    import sim.ladder

    out = tmp_path / "ladder"
    seen = []

    def playing(*args, **kwargs):
        with pytest.raises(RunError) as caught:
            FolderLock(out, "run")
        seen.append(str(caught.value))
        raise KeyboardInterrupt  # nothing is written: the folder it made goes

    monkeypatch.setattr(sim.ladder, "ladder", playing)
    result = in_process("sim.ladder", "--game", "bid-euchre", "--games", "2", "--out", out)
    assert result.returncode == 130
    assert seen == [f"{out} is being written by another ladder (pid {os.getpid()} on {socket.gethostname()}, since "
                    f"{seen[0].split('since ')[1]}"]
    assert not out.exists()
    (tmp_path / "held").mkdir()
    with FolderLock(tmp_path / "held", "sweep"):
        result = in_process("sim.ladder", "--game", "bid-euchre", "--games", "2", "--out", tmp_path / "held")
    fails_in_one_line(result.returncode, result.stderr, "is being written by another sweep (pid")


@pytest.mark.parametrize("inside, kind, marker", [("00-exchange.nondealer_draw=2", "sweep", "sweep.json"),
                                                  ("stratum-face", "stratified run", "strata.json")])
def test_an_unfinished_sweep_or_stratified_folder_is_named_as_such(tmp_path, inside, kind, marker):
    """A sweep or stratified run stopped (or still playing) has no sweep.json or strata.json
    yet: readers said only "not a run folder (no manifest.json)"."""
    folder = tmp_path / "stopped"
    (folder / inside).mkdir(parents=True)
    (folder / inside / "manifest.json").write_text("{}")
    for module in ("analysis.report", "sim.show"):
        result = in_process(module, folder)
        fails_in_one_line(result.returncode, result.stderr,
                          f"{folder} is not a run folder but an unfinished {kind}'s folder (no {marker} yet",
                          f"rerun its command to finish it, or name one of its run folders, such as {folder / inside}")


def test_a_loop_of_links_is_named_as_one(tmp_path):
    from sim.cli import why_not_made

    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    for path in (tmp_path / "loop1", tmp_path / "loop1" / "report"):
        assert why_not_made(path, FileExistsError(17, "File exists")) == \
            f"{tmp_path / 'loop1'} is a link to loop2, which leads back to it in a loop of links"


@pytest.mark.parametrize("module", ["sim.run", "analysis.report"])
def test_help_into_a_full_device_is_one_line(module):
    """argparse drops a failed write of its help and ended with status 0, nothing said."""
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    fails_in_one_line(result.returncode, result.stderr,
                      f"python -m {module}: cannot write its output: No space left on device")


@pytest.mark.slow
def test_two_identical_runs_started_together_one_plays_the_other_ends_in_one_line(tmp_path):
    args = ["--games", "60000", "--block-size", "2000", "--seed", "5", "--quiet"]
    whole = tmp_path / "whole"
    assert as_process("sim.run", *args, "--out", whole).returncode == 0
    out = tmp_path / "run"
    procs = [started("sim.run", *args, "--out", out) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert sorted(r for r, _ in results) == [0, 2], results
    status, err = next(r for r in results if r[0] == 2)
    fails_in_one_line(status, err, "is being written by another run (pid")
    assert files(out) == files(whole)


@pytest.mark.parametrize("kind", ["link to a user's file", "link to nowhere", "named pipe", "folder",
                                  "hard link to a user's file"])
def test_a_lock_that_is_no_file_is_refused_and_what_it_names_is_left_as_it_was(copy, capsys, tmp_path, kind):
    """The lock is opened without following a link, and only a file of its own is taken for
    one (before: a ``.lock`` linking to a user's file, or another name of it, was written
    over with the holder's line, and a link to nowhere made a file outside the run folder)."""
    (copy / "records" / "deals-000001.parquet").unlink()  # work left to do
    mine = tmp_path / "mine.txt"
    mine.write_text("precious")
    lock = copy / LOCK_NAME
    if kind == "link to a user's file":
        lock.symlink_to(mine)
    elif kind == "link to nowhere":
        lock.symlink_to(tmp_path / "nowhere")
    elif kind == "named pipe":
        os.mkfifo(lock)
    elif kind == "hard link to a user's file":
        os.link(mine, lock)
    else:
        lock.mkdir()
    status, err = resume(copy, capsys)
    fails_in_one_line(status, err, f"{lock} is a", "not the lock file a command leaves")
    assert mine.read_text() == "precious" and not (tmp_path / "nowhere").exists()
    assert not (copy / "records" / "deals-000001.parquet").exists()


def test_a_lock_taken_and_released_leaves_the_folders_time_unless_something_stays_changed(tmp_path):
    """A command refused under its lock (another configuration found there) leaves the
    folder's time as it was: its lock file and write probes came and went. A file written
    into place under the lock is a change, and its time stands."""
    folder = tmp_path / "theirs"
    folder.mkdir()
    (folder / "mine.txt").write_text("precious")
    old = 10**18
    os.utime(folder, ns=(old, old))
    with FolderLock(folder, "run"):
        probe = temporary(folder / "summary.json")
        probe.write_bytes(b"")
        probe.unlink()
    assert folder.stat().st_mtime_ns == old
    with FolderLock(folder, "run"):
        probe = temporary(folder / "mine.txt")
        probe.write_text("new")
        os.replace(probe, folder / "mine.txt")
    assert folder.stat().st_mtime_ns != old


def test_a_lock_restores_no_time_older_than_another_writers_file(tmp_path, monkeypatch):
    """Another writer that takes the folder's lock, writes a file and goes while this lock
    waits to be taken: its file stands, and the folder's time is not set back before it
    (the folder's times and names are read before the lock file is made)."""
    import sim.store.lock as lock

    folder = tmp_path / "theirs"
    folder.mkdir()
    old = 10**18
    os.utime(folder, ns=(old, old))
    real = lock.locked

    def another_writer_first(fd, how, tries):
        (folder / "theirs.json").write_text("{}")  # as if written under the lock before this one
        return real(fd, how, tries=tries)

    monkeypatch.setattr(lock, "locked", another_writer_first)
    with FolderLock(folder, "run"):
        pass
    assert folder.stat().st_mtime_ns != old and (folder / "theirs.json").exists()


def test_temporaries_are_removed_only_when_their_writer_is_gone(whole, copy, capsys):
    gone = subprocess.Popen(["true"])
    gone.wait()
    mine = temporary(copy / "records" / "deals-000000.parquet")
    mine.write_bytes(b"a living writer's half file")
    dead = mine.with_name(mine.name.replace(f"-{os.getpid()}-", f"-{gone.pid}-"))
    dead.write_bytes(b"a dead writer's half file")
    (copy / "blocks" / "000003.json").unlink()
    status, _ = resume(copy, capsys)
    assert status == 0 and mine.exists() and not dead.exists()
    mine.unlink()
    assert files(copy) == files(whole)


# --- Folders that cannot be written ------------------------------------------------------------

def _without_override():
    """As root, drop the capability to write whatever the permissions say, so a read-only
    folder is read-only to the command too."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl")


def test_resuming_in_a_read_only_folder_is_one_line_and_changes_nothing(copy):
    (copy / "blocks" / "000003.json").unlink()  # a run cut short
    before = everything(copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        result = as_process("sim.run", *RUN, "--out", copy,
                            preexec_fn=_without_override if os.geteuid() == 0 else None)
    finally:
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    fails_in_one_line(result.returncode, result.stderr, f"cannot write in {copy}: Permission denied")
    assert everything(copy) == before


def test_a_file_name_near_the_limit_gets_a_temporary_the_system_takes(tmp_path):
    """A temporary's name keeps as much of its file's name as fits in 255 bytes, and still
    names its writer (before: a legal 244-byte --plot name was refused as too long)."""
    from sim.store.writing import NAME_MAX, TEMPORARY
    from sim.sweep.output import check_plot_path

    for name in ("p" * 251 + ".png", "é" * 125 + ".png", "short.png"):
        tmp = temporary(tmp_path / name)
        assert len(tmp.name.encode()) <= NAME_MAX and TEMPORARY.fullmatch(tmp.name)
        check_plot_path(tmp_path / name, tmp_path)  # no SweepError
    assert not list(tmp_path.iterdir())


WRITERS = {
    "run": (run_main, RUN),
    "deal run": (run_main, ["--deals", "20", "--block-size", "10", "--quiet"]),
    "stratified": (run_main, ["--deals", "40", "--stratify", "upcard_class", "--quiet"]),
    "sweep": (sweep_main, ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "20", "--block-size", "10",
                           "--quiet"]),
}


@pytest.mark.parametrize("command", ["run", "stratified", "sweep"])
def test_a_name_too_long_is_one_line(tmp_path, capsys, command):
    main, argv = WRITERS[command]
    fails_in_one_line(main([*argv, "--out", str(tmp_path / LONG_NAME)]), capsys.readouterr().err, LONG_NAME,
                      "File name too long")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "stratified", "sweep", "report"])
def test_an_output_folder_a_thousand_folders_deep_is_made(whole, tmp_path, capsys, command):
    """Under the system's limit on a path's length, however many folders are missing above
    it (before: pathlib made each by calling itself, a RecursionError's traceback)."""
    deep = tmp_path.joinpath(*["d"] * 1000) / "out"
    try:
        if command == "report":
            assert report_main([str(whole), "--out", str(deep)]) == 0
            assert (deep / "index.html").is_file()
        else:
            main, argv = WRITERS[command]
            assert main([*argv, "--out", str(deep)]) == 0
            assert deep.is_dir() and len(list(deep.iterdir())) > 1
    finally:  # taken away one folder at a time: shutil.rmtree, and pytest's clean-up, would recurse too deep
        shutil.rmtree(deep, ignore_errors=True)
        for folder in deep.parents:
            if folder == tmp_path:
                break
            folder.rmdir()


def test_a_report_folder_too_long_is_one_line(whole, capsys, tmp_path):
    fails_in_one_line(report_main([str(whole), "--out", str(tmp_path / LONG_NAME)]), capsys.readouterr().err,
                      "File name too long")
    assert list(tmp_path.iterdir()) == []


def test_a_disk_that_fills_up_mid_run_is_one_line_and_the_run_resumes(whole, tmp_path, capsys):
    """The third file renamed into place fails as a full disk would: what was written stays."""
    out = tmp_path / "run"
    with disk_full_at(3) as renames:
        status, err = resume(out, capsys)
    fails_in_one_line(status, err, f"cannot write {out / renames[2].relative_to(out)}: No space left on device")
    assert not list(out.rglob("*.tmp")) and not (out / LOCK_NAME).exists()
    status, _ = resume(out, capsys)
    assert status == 0 and files(out) == files(whole)


# --- Folders a command did not make --------------------------------------------------------------

@pytest.mark.parametrize("command", ["deal run", "stratified", "sweep"])
@pytest.mark.parametrize("theirs", ["notes.txt", "sweep.csv", "strata.json"])
def test_a_folder_a_command_did_not_make_is_refused_and_left_as_it_was(tmp_path, capsys, command, theirs):
    main, argv = WRITERS[command]
    out = tmp_path / "theirs"
    out.mkdir()
    (out / theirs).write_text("a user's file")
    fails_in_one_line(main([*argv, "--out", str(out)]), capsys.readouterr().err, f"output folder {out} is not empty")
    assert everything(out) == {theirs: b"a user's file"}


@pytest.mark.parametrize("command", ["stratified", "sweep"])
def test_a_run_folder_without_its_manifest_is_named_and_the_rest_plays_once_it_is_gone(tmp_path, capsys, command):
    """A stratum's or a setting's manifest.json removed: the rerun names that run folder in
    one line and changes nothing; with the folder taken away, the rerun plays it again."""
    main, argv = WRITERS[command]
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    runs = sorted(p.parent for p in out.glob("*/manifest.json"))
    lost = runs[-1]
    (lost / "manifest.json").unlink()
    before = everything(out)
    fails_in_one_line(main([*argv, "--out", str(out)]), capsys.readouterr().err,
                      f"{lost} holds a run's blocks but no manifest.json", "remove that folder")
    assert everything(out) == before
    shutil.rmtree(lost)
    assert main([*argv, "--out", str(out)]) == 0
    assert files(lost) == {k[len(lost.name) + 1:]: v for k, v in before.items()
                           if k.startswith(lost.name + "/") and k != f"{lost.name}/{LOCK_NAME}"}


def _a_file_beside_is_named(main, argv, out, capsys) -> None:
    """The command ``main(argv)`` played into ``out``, then a user's file put beside its own:
    the rerun names that file in one line and leaves the folder as it was."""
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    (out / "notes.txt").write_text("a user's file")
    before = everything(out)
    fails_in_one_line(main([*argv, "--out", str(out)]), capsys.readouterr().err,
                      f"output folder {out} holds files this command did not write beside its own (notes.txt)")
    assert everything(out) == before


@pytest.mark.parametrize("command", ["stratified", "sweep"])
def test_a_file_beside_a_commands_own_is_named_and_an_empty_run_folder_is_played(tmp_path, capsys, command):
    """A user's file beside a stratified run's or a sweep's own files: one line naming it,
    the folder left as it was. A run folder left empty (killed as it began) is played."""
    main, argv = WRITERS[command]
    out = tmp_path / "out"
    _a_file_beside_is_named(main, argv, out, capsys)
    (out / "notes.txt").unlink()
    run = sorted(p.parent for p in out.glob("*/manifest.json"))[-1]
    shutil.rmtree(run)
    run.mkdir()
    assert main([*argv, "--out", str(out)]) == 0 and (run / "manifest.json").is_file()


@pytest.mark.parametrize("main, argv", [
    (run_main, ["--deals", "60", "--stratify", "upcard_class", "--control", "all=heuristic", "--control-deals",
                "6000", "--quiet"]),
    (sweep_main, ["--vary", "exchange.nondealer_draw=2,4", "--deals", "60", "--control", "all=heuristic",
                  "--control-deals", "2000", "--quiet"])], ids=["stratified", "sweep"])
def test_a_file_beside_multilevel_folders_of_a_command_is_named(tmp_path, capsys, main, argv):
    """With --control too (before: "holds no sweep", as if the folder were a stranger's)."""
    _a_file_beside_is_named(main, argv, tmp_path / "out", capsys)


@pytest.mark.parametrize("command", ["stratified", "sweep"])
def test_a_command_killed_as_its_first_run_began_plays_on_the_rerun(tmp_path, capsys, command):
    """kill -9 as the first stratum or setting began: the folder holds only its empty run
    folder and the two dead locks. The rerun plays it all (before, a stratified run's folder
    was refused for good: 'holds no stratified run')."""
    main, argv = WRITERS[command]
    whole = tmp_path / "whole"
    assert main([*argv, "--out", str(whole)]) == 0
    first = sorted(p.name for p in whole.iterdir() if p.is_dir())[0]
    out = tmp_path / "out"
    (out / first).mkdir(parents=True)
    for folder in (out, out / first):
        (folder / LOCK_NAME).write_text(f"pid 999999999 on {socket.gethostname()}, since a moment\n")
    assert main([*argv, "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in whole.iterdir())


def test_a_sweep_resumes_its_own_folder(tmp_path):
    argv = ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "20", "--block-size", "10", "--quiet",
            "--out", str(tmp_path / "sweep")]
    assert sweep_main(argv) == 0
    table = (tmp_path / "sweep" / "sweep.csv").read_bytes()
    load_records(tmp_path / "sweep" / "01-exchange.dealer_draw_ace=8")  # a setting is a run folder
    assert sweep_main(argv) == 0 and (tmp_path / "sweep" / "sweep.csv").read_bytes() == table


# --- Pipes, folders and strangers where a file belongs ----------------------------------------

def test_a_pipe_where_a_run_file_belongs_is_named_never_waited_on(copy, capsys, tmp_path):
    """A named pipe in place of the manifest: one line from the rerun and every reader, where
    reading it would wait forever; in place of a block file, the block is played again."""
    (copy / "manifest.json").unlink()
    os.mkfifo(copy / "manifest.json")
    status, err = resume(copy, capsys)
    fails_in_one_line(status, err, copy / "manifest.json", "not a file (a pipe, a device or a socket)")
    fails_in_one_line(show_main([str(copy), "--deal", "3"]), capsys.readouterr().err, copy)


def test_a_pipe_in_place_of_a_block_file_is_played_again(whole, copy, capsys):
    block = copy / "blocks" / "000001.json"
    block.unlink()
    os.mkfifo(block)
    status, err = resume(copy, capsys)
    assert status == 0 and err == f"block 1 is played again: {block} cannot be read (not a file (a pipe, " \
                                  f"a device or a socket))\n"
    assert files(copy) == files(whole)


@pytest.mark.parametrize("how", ["empty object", "another block's"])
def test_a_block_file_that_is_no_block_or_another_blocks_is_played_again(whole, copy, capsys, tmp_path, how):
    """``{}``, or block 0's file copied over block 1's (its checksum its own): the rerun
    plays block 1 again instead of summing what is not block 1's into the summary, and
    the readers name the copy (they read the summary and the records, not the aggregates)."""
    block = copy / "blocks" / "000001.json"
    if how == "empty object":
        block.write_text("{}")
        why = "holds no block's aggregates"
    else:
        shutil.copyfile(copy / "blocks" / "000000.json", block)
        why = "names the records of another block: it is not this block's file"
    fails_in_one_line(compare_main([str(whole), str(copy)]), capsys.readouterr().err, f"{block} {why}")
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "report")]), capsys.readouterr().err,
                      f"{block} {why}")
    status, err = resume(copy, capsys)
    assert status == 0 and err == f"block 1 is played again: {block} {why}\n"
    assert files(copy) == files(whole)


@pytest.mark.parametrize("name", ["blocks/000001.json", "records/deals-000001.parquet"])
def test_a_folder_where_a_run_file_belongs_is_one_line_and_nothing_is_changed(copy, capsys, name):
    (copy / name).unlink()
    (copy / name).mkdir()
    before = everything(copy)
    status, err = resume(copy, capsys)
    fails_in_one_line(status, err, f"{copy / name} is a folder where the run's file belongs")
    assert everything(copy) == before and not (copy / LOCK_NAME).exists()


def test_a_rules_pipe_is_read_and_a_named_pipe_nothing_writes_to_is_one_line(tmp_path, capsys):
    """``--rules <(...)``: the rules come through the pipe, read once; a named pipe no
    program writes to is one line, not a wait without end."""
    read, write = os.pipe()
    os.write(write, b"[exchange]\nnondealer_draw = 3\n")
    os.close(write)
    out = tmp_path / "run"
    try:
        assert run_main([*RUN, "--rules", f"/proc/self/fd/{read}", "--out", str(out)]) == 0
    finally:
        os.close(read)
    assert json.loads((out / "manifest.json").read_text())["config"]["rules"]["exchange"]["nondealer_draw"] == 3
    pipe = tmp_path / "rules.toml"
    os.mkfifo(pipe)
    fails_in_one_line(run_main([*RUN, "--rules", str(pipe), "--out", str(tmp_path / "never")]),
                      capsys.readouterr().err, f"cannot read rules file {pipe}: a named pipe that no program writes to")
    assert not (tmp_path / "never").exists()


def test_a_write_interrupted_midway_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """Ctrl-C while a file is being written (a level file, a summary): the old file stands
    and the writer's temporary goes with it (before, only a failed write removed it, and a
    multilevel folder kept a 38 MB temporary for good)."""
    import sim.store.writing as writing

    path = tmp_path / "summary.json"
    path.write_bytes(b"old")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(writing.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        writing.write_atomic(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["summary.json"]


@pytest.mark.parametrize("value", ["0", "-1", "abc", "\u00b2", "2147483648", "4294967297"])
def test_a_thread_count_numba_cannot_take_is_one_line(tmp_path, value):
    """NUMBA_NUM_THREADS that is not a whole number from 1 to 4,096 ends every command in
    one line and status 2 (before: numba's traceback at import, even for --help, or a
    warning of many lines holding a traceback; a superscript two was a ValueError, 2**31
    numba's RuntimeError, and 2**32 + 1 ran on one thread)."""
    for module in ("sim.run", "analysis.compare"):
        result = as_process(module, "--help", env={**os.environ, "NUMBA_NUM_THREADS": value})
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr == (f"python -m {module}: NUMBA_NUM_THREADS={value!r} is not a thread count: set it to "
                                 f"a whole number from 1 to 4,096, or unset it\n")


def test_games_edited_apart_from_its_blocks_is_named_as_such(copy, capsys):
    """config.games edited from 40 to 20 (2 blocks of 10, where the manifest counts 4): the
    words named the untouched blocks field "missing or out of range"; they say now that
    the two do not agree."""
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["config"]["games"] = 20
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunError, match=r"blocks is missing or does not fit games \(20\) in blocks of block_size "
                                       r"\(10\)"):
        sim.load_run(copy)


def test_a_run_folder_whose_name_is_not_utf8_is_named_by_its_readers(whole, tmp_path, capsys):
    """A finished run moved to a name that is not UTF-8 (Latin-1 bytes): sim.show ended in a
    traceback from inside pyarrow, the report blamed a good Parquet file. Each reader says
    what is wrong with the name, as sim.run does of such an --out."""
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    shutil.copytree(whole, odd)
    words = "\\udce9' is not UTF-8 (Parquet files need one)"
    fails_in_one_line(show_main([str(odd), "--deal", "0"]), capsys.readouterr().err, words)
    fails_in_one_line(report_main([str(odd), "--out", str(tmp_path / "r")]), capsys.readouterr().err, words)
    fails_in_one_line(compare_main([str(whole), str(odd)]), capsys.readouterr().err, words)
    with pytest.raises(RunError, match="is not UTF-8"):
        sim.load_run(odd)


def test_a_utf8_name_is_read_under_a_c_locale_without_utf8_mode(tmp_path):
    """Under LANG=C with Python's UTF-8 mode and its locale coercion both off, a name such
    as 'été' reaches Python as surrogates: sim.run refused it as not UTF-8, though its bytes
    are. The commands start again in UTF-8 mode, so the run and its report are written
    under their own names."""
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    out = tmp_path / "été"
    run = as_process("sim.run", "--games", "20", "--quiet", "--out", out, env=env)
    assert run.returncode == 0 and run.stderr == "" and (out / "manifest.json").is_file(), run.stderr
    report = as_process("analysis.report", out, "--out", tmp_path / "été-report", env=env)
    assert report.returncode == 0 and (tmp_path / "été-report" / "index.html").is_file(), report.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["été", "été-report"]


def test_a_pipe_in_the_manifests_place_is_named_by_the_readers(copy, tmp_path, capsys):
    """A named pipe where manifest.json goes: the readers said the folder was no run folder
    ("no manifest.json"), where a rerun says what is wrong; they name the file too."""
    (copy / "manifest.json").unlink()
    os.mkfifo(copy / "manifest.json")
    words = f"{copy / 'manifest.json'} is not a file (a pipe, a device or a folder in its place)"
    fails_in_one_line(show_main([str(copy), "--deal", "0"]), capsys.readouterr().err, words)
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "r")]), capsys.readouterr().err, words)
    fails_in_one_line(compare_main([str(copy), str(copy)]), capsys.readouterr().err, words)


def test_a_file_where_the_records_folder_goes_is_named(copy, tmp_path, capsys):
    """A file where a run's records folder goes: the rerun said mkdir's "File exists", the
    report that a record file was missing, the comparison "Not a directory". Each names
    the file in the folder's place."""
    shutil.rmtree(copy / "records")
    (copy / "records").write_text("")
    status, err = resume(copy, capsys)
    assert status == 2 and err == (f"python -m sim.run: error: cannot create output folder {copy / 'records'}: a "
                                   f"file (or a pipe, a device) stands in its place\n")
    words = f"{copy / 'records'} is not a folder (a file in its place)"
    fails_in_one_line(report_main([str(copy), "--out", str(tmp_path / "r")]), capsys.readouterr().err, words)
    fails_in_one_line(compare_main([str(copy), str(copy)]), capsys.readouterr().err, words)
    fails_in_one_line(show_main([str(copy), "--deal", "0"]), capsys.readouterr().err, words)


def test_show_names_a_path_that_is_no_folder_as_the_other_readers_do(whole, tmp_path, capsys):
    """sim.show said "is not a run folder (no manifest.json)" of a path that does not exist
    and of a file; it says what analysis.compare and the report say."""
    for path, words in ((tmp_path / "nowhere", "does not exist"), (whole / "manifest.json", "is not a folder")):
        fails_in_one_line(show_main([str(path), "--deal", "0"]), capsys.readouterr().err, f"{path} {words}")


def test_show_of_a_run_still_being_written_says_so(tmp_path, capsys):
    """As every other reader does: a deal of a block already kept is shown with a line
    saying the run is still being written and by whom, and a row past the blocks kept so
    far is refused naming it (before: neither said so)."""
    out = tmp_path / "r"
    assert run_main(["--games", "40", "--block-size", "20", "--quiet", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.update(complete=False, blocks_done=[0])
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "summary.json").unlink()
    capsys.readouterr()
    with FolderLock(out, "run"):
        assert show_main([str(out), "--deal", "0"]) == 0
        err = capsys.readouterr().err
        assert f"{out} is still being written (1 of 2 blocks done; run: pid {os.getpid()} on " in err
        assert err.rstrip().endswith("deal row 0 is of a block already kept")
        assert show_main([str(out), "--deal", "100000"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and " so far: " in err and "is still being written" in err


def test_a_folder_that_cannot_be_made_takes_the_folders_made_for_it_along(tmp_path, monkeypatch):
    """A name too long for the file system, under folders made for it, failed after those
    were made, and they stayed; so did those of a folder whose lock could not be taken.
    Neither leaves a folder now, and a folder made above others' is kept while they hold
    anything."""
    from sim.store import claim

    with pytest.raises(RunError, match="cannot create output folder"):
        claim(tmp_path / "a" / "b" / ("x" * 300), lambda *_: False, "run")
    assert list(tmp_path.iterdir()) == []

    def no_lock(*args, **kwargs):
        raise RunError("no lock")

    monkeypatch.setattr("sim.store.lock.FolderLock", no_lock)
    with pytest.raises(RunError, match="no lock"):
        claim(tmp_path / "c" / "d", lambda *_: False, "run")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    (tmp_path / "e").mkdir()
    lock = claim(tmp_path / "e" / "f" / "g", lambda *_: False, "run")
    (tmp_path / "e" / "f" / "other").mkdir()  # another command's, made meanwhile
    lock.release()
    assert sorted(p.name for p in (tmp_path / "e" / "f").iterdir()) == ["other"]


def test_a_folder_above_removed_meanwhile_is_made_again(tmp_path, monkeypatch):
    """Another command, refused, removes the empty folder it made above ours just as ours
    is made in it: ours was refused ("No such file or directory"); the folders are looked
    for again."""
    from pathlib import Path

    from sim.cli import make_folders

    (tmp_path / "r").mkdir()  # the other command's, empty
    mkdir, removed = Path.mkdir, []

    def racing(self, *args, **kwargs):
        if not removed and self.parent == tmp_path / "r":
            removed.append((tmp_path / "r").rmdir())  # the other command ends just now
        return mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", racing)
    assert make_folders(tmp_path / "r" / "b") == [tmp_path / "r", tmp_path / "r" / "b"]
    assert removed and (tmp_path / "r" / "b").is_dir()
