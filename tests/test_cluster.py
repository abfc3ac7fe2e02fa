"""Runs on a Dask cluster of 2 local worker processes (loopback only): the same run folder
as a threaded run, a worker killed mid-run, an interrupted client, bad addresses."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sim.match
from sim.cluster import open_cluster
from sim.policies import parse_policy
from sim.store import read_sealed
from tests.commands import ROOT, as_process, started

ARGS = ["--games", "12000", "--seed", "5", "--block-size", "250", "--quiet"]
BLOCKS = 48


def blocks_done(out: Path) -> int:
    return len(list((out / "blocks").glob("*.json")))


def wait_for_blocks(out: Path, n: int, proc=None, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline and blocks_done(out) < n and (proc is None or proc.poll() is None):
        time.sleep(0.005)


def folder_content(out: Path) -> dict:
    """Every file of a run folder by relative path, the manifest without its timing."""
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    manifest = json.loads(files.pop("manifest.json"))
    manifest.pop("timing")
    return {**files, "manifest.json": manifest}


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and 2 worker processes on 127.0.0.1, shared by the tests of this file."""
    with open_cluster("local:2") as pool:
        yield pool.client


@pytest.fixture(scope="module")
def threaded(tmp_path_factory):
    out = tmp_path_factory.mktemp("threaded") / "run"
    result = as_process("sim.run", *ARGS, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_local_cluster_gives_the_threaded_run_folder(threaded, tmp_path):
    out = tmp_path / "local2"
    result = as_process("sim.run", *ARGS, "--out", str(out), "--cluster", "local:2")
    assert result.returncode == 0, result.stderr
    content = folder_content(out)
    assert content == folder_content(threaded)
    assert len([f for f in content if f.startswith("records/")]) == 2 * BLOCKS
    timing = json.loads((out / "manifest.json").read_text())["timing"]
    assert timing["cluster"]["workers"] == 2 and timing["games_played_now"] == 12000
    assert sim.load_run(out).summary == sim.load_run(threaded).summary  # the readers take its manifest


def test_match_on_the_cluster_equals_the_local_match(cluster, monkeypatch):
    monkeypatch.setattr(sim.match, "BLOCK_GAMES", 400)  # several blocks, merged in order
    a, b = parse_policy("heuristic"), parse_policy("random")
    local = sim.match.play_match("bid-euchre", a, b, 1500, seed=3)
    assert sim.match.play_match("bid-euchre", a, b, 1500, seed=3, cluster=cluster) == local


def test_sweep_on_the_cluster_equals_the_local_sweep(cluster, tmp_path):
    from sim.sweep import parse_vary, sweep

    grid = parse_vary(["exchange.dealer_draw_ace=4,12"], [])
    local = sweep("bridgette", grid, 600, seed=2, out=tmp_path / "local", block_size=200)
    remote = sweep("bridgette", grid, 600, seed=2, out=tmp_path / "remote", block_size=200, cluster=cluster)
    for a, b in zip(local["settings"], remote["settings"]):
        assert a["metrics"] == b["metrics"]
        assert folder_content(Path(a["run"])) == folder_content(Path(b["run"]))


def test_a_conditioned_deal_run_on_the_cluster_equals_the_threaded_one(cluster, tmp_path):
    from sim.api import simulate
    from sim.dealing import parse

    conditions = parse("deals", upcard="face", require=["1:hcp>=10"])
    local = simulate("bridgette", 1200, seed=4, out=tmp_path / "local", block_size=300, dealing=conditions)
    remote = simulate("bridgette", 1200, seed=4, out=tmp_path / "remote", block_size=300, dealing=conditions,
                      cluster=cluster)
    assert folder_content(remote.path) == folder_content(local.path)
    assert local.summary["dealing"]["deals"] == 1200


def test_a_pimc_run_on_the_cluster_equals_the_threaded_one(cluster, tmp_path):
    """The pimc seat's worlds come from the policy stream: the same records on workers."""
    from sim.api import simulate

    seats = {0: "pimc:worlds=2", 2: "pimc:worlds=2"}
    local = simulate("bid-euchre", 24, seed=6, policies=seats, out=tmp_path / "local", block_size=8)
    remote = simulate("bid-euchre", 24, seed=6, policies=seats, out=tmp_path / "remote", block_size=8,
                      cluster=cluster)
    assert folder_content(remote.path) == folder_content(local.path)


def multilevel_content(out: Path) -> dict:
    """A multilevel folder's levels (every array but their timing and the checksum that
    covers it) and multilevel.json without its seconds."""
    import numpy as np

    content = {}
    for p in sorted(out.glob("*.npz")):
        with np.load(p) as held:
            content[p.name] = {k: held[k].tolist() for k in held.files if k not in ("seconds", "checksum")}
    kept = read_sealed(out / "multilevel.json")  # its checksum covers the timings too
    kept.pop("wall_seconds")
    for e in kept["metrics"].values():
        for key in ("seconds", "equal_time_saved"):
            e.pop(key, None)
        for level in e["levels"]:
            level.pop("seconds")
    return {**content, "multilevel.json": kept}


def test_a_multilevel_run_on_the_cluster_equals_the_threaded_one(cluster, tmp_path):
    """sim.run --control on the cluster: each level's chunks cut into pieces for the
    workers, the same per-deal values, choices and estimates as on 1 and 2 threads."""
    from tests.records import on_threads

    from sim.api import resolve_policies, resolve_rules
    from sim.dealing import parse
    from sim.multilevel import run_multilevel

    rules = resolve_rules("bridgette")
    args = ("bridgette", rules, resolve_policies("bridgette", ["all=heuristic:aggression=1.2"]), 8, 150,
            ["all=heuristic"], [1500], ["dealer_advantage", "contract_made"], parse("deals", dealer="0"))
    folders = [tmp_path / name for name in ("one", "two", "cluster")]
    on_threads(1, run_multilevel, *args, None, folders[0])
    on_threads(2, run_multilevel, *args, None, folders[1])
    run_multilevel(*args, None, folders[2], cluster=cluster)
    assert multilevel_content(folders[0]) == multilevel_content(folders[1]) == multilevel_content(folders[2])


def test_a_worker_killed_mid_run_loses_nothing(cluster, threaded, tmp_path):
    out = tmp_path / "killed"
    pids = cluster.run(os.getpid)
    proc = started("sim.run", *ARGS, "--out", str(out), "--cluster", cluster.scheduler.address)
    wait_for_blocks(out, 2, proc)
    busy = [w for w, keys in cluster.processing().items() if keys and w in pids] or list(pids)
    os.kill(pids[busy[0]], signal.SIGKILL)
    killed_at = blocks_done(out)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert 2 <= killed_at < BLOCKS, "the worker was not killed mid-run"
    assert folder_content(out) == folder_content(threaded)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["blocks_done"] == list(range(BLOCKS))


def test_interrupted_client_resumes(cluster, threaded, tmp_path):
    out = tmp_path / "cut"
    proc = started("sim.run", *ARGS, "--out", str(out), "--cluster", cluster.scheduler.address)
    wait_for_blocks(out, 3, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "rerun the same command to resume" in err
    assert 3 <= blocks_done(out) < BLOCKS and not (out / "summary.json").exists()
    resumed = as_process("sim.run", *ARGS, "--out", str(out), "--cluster", cluster.scheduler.address)
    assert resumed.returncode == 0, resumed.stderr
    assert folder_content(out) == folder_content(threaded)


@pytest.mark.parametrize("module,address,message", [
    ("sim.run", "tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1 (connection refused)"),
    ("sim.match", "tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1 (connection refused)"),
    ("sim.run", "local:0", "local:N needs a whole number N of at least 1"),
    ("sim.match", "local:100000", f"this machine has {os.cpu_count()} cores, so local:N takes at most"),
    ("sim.run", "local:99999999999999999999", "local:N takes at most"),  # not "needs ... at least 1"
    ("sim.run", "not an address", "neither a scheduler address"),
    ("sim.match", "tcp://127.0.0.1", "neither a scheduler address"),
    ("sim.run", "tls://127.0.0.1:1", "a run reaches its scheduler over tcp://, ws:// or wss://"),
    ("sim.match", "ucx://127.0.0.1:1", "a run reaches its scheduler over tcp://, ws:// or wss://"),
    ("sim.run", "wss://127.0.0.1:1", "wss:// needs TLS settings in dask's configuration"),  # distributed's words
])
def test_bad_cluster_is_one_line_and_exit_2(tmp_path, module, address, message):
    out = tmp_path / "never"
    args = (["--out", str(out)] if module == "sim.run" else ["--a", "random", "--b", "random"])
    began = time.monotonic()
    result = as_process(module, "--games", "100", *args, "--cluster", address, timeout=60)
    assert time.monotonic() - began < 15
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not out.exists()


def test_a_cluster_of_another_kind_is_a_type_error_naming_it(tmp_path):
    """sim.simulate(cluster=5) read 5 as an address ("'5' is neither a scheduler address"),
    a ValueError that did not say which argument; it is a TypeError naming cluster, before
    any folder is made."""
    import sim

    with pytest.raises(TypeError, match="cluster must be a scheduler address such as tcp://host:8786, local:N or a "
                                        "distributed.Client, got 5"):
        sim.simulate(games=10, cluster=5, out=tmp_path / "never")
    assert not (tmp_path / "never").exists()


SILENT = "the connection is taken, but no scheduler's greeting comes within 3 s"


@pytest.mark.parametrize("reply, words", [
    (b"\xff" * 64 + b"not dask" * 100, "another protocol"), (None, SILENT),
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", "another protocol"), (b"READY\r\n", SILENT),
    ((100).to_bytes(8, "little"), SILENT),
], ids=["garbage", "silence", "http", "a-word-then-silence", "a-length-then-silence"])
def test_a_port_that_answers_in_another_protocol_is_one_line(tmp_path, reply, words):
    """A port that answers, but not as a Dask scheduler (garbage bytes, HTTP), takes the
    connection and says nothing (a stopped scheduler), or says a few bytes and then nothing,
    is one line and exit status 2 within seconds, with no second traceback from the
    half-made client as the process ends (before: numpy's MemoryError, 'Unable to allocate
    3.01 EiB', as a traceback or as the reason; silence after a word: a wait without end)."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    done = threading.Event()

    def answer():
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                if reply is not None:
                    conn.sendall(reply)
                done.wait()  # the connection held open: a client waiting for more waits on

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    out = tmp_path / "never"
    began = time.monotonic()
    try:
        result = as_process("sim.run", "--games", "100", "--out", str(out), "--cluster", f"tcp://127.0.0.1:{port}",
                            timeout=60)
    finally:
        done.set()
        thread.join()
        server.close()
    assert result.returncode == 2 and f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in result.stderr
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not out.exists() and time.monotonic() - began < 20


def test_a_worker_of_another_version_found_during_the_run_stops_it_before_its_block_is_kept(cluster):
    """Every job returns its worker's identity, checked as the warm-up checks it (before: a
    worker that joined after the warm-up, on changed code, had its blocks kept silently)."""
    from sim.cluster import Cluster, _identity
    from sim.store import RunError

    pool = Cluster(cluster, 1, cluster.scheduler.address)
    assert list(pool.map(_identity, [()])) == [pool.identity]
    pool.identity = {**pool.identity, "kernels": "0123456789abcdef"}  # as a worker on other code is seen
    with pytest.raises(RunError, match=r"worker .* \(pid \d+\), which joined during the run, runs tricksim .* "
                                       r"install the same version everywhere"):
        list(pool.map(_identity, [()]))


class _Waiting:
    """A job that never ends, or ends as ``fails`` says."""

    def __init__(self, fails=None):
        self.fails = fails

    def result(self, timeout=None):
        raise self.fails or TimeoutError()


class _Client:
    def __init__(self, workers):
        self.workers = workers

    def nthreads(self):
        if isinstance(self.workers, Exception):
            raise self.workers
        return self.workers


@pytest.mark.parametrize("client, job, words", [
    (_Client({}), _Waiting(), "no worker has been left at the Dask scheduler"),
    (_Client(OSError("connection closed")), _Waiting(), "the cluster run lost its scheduler"),
    (_Client({"w": 1}), _Waiting(__import__("distributed.client").client.FutureCancelledError("k", "lost")),
     "the cluster run lost its scheduler"),
])
def test_a_job_whose_workers_or_scheduler_are_gone_ends_in_one_line(monkeypatch, client, job, words):
    """A client waiting on a job asks whether any worker is left (before: a worker that could
    not import tricksim left the run waiting for good), and a lost scheduler is one line
    (before: FutureCancelledError's traceback)."""
    import sim.cluster
    from sim.store import RunError

    monkeypatch.setattr(sim.cluster, "POLL_S", 0.01)
    monkeypatch.setattr(sim.cluster, "WORKERS_TIMEOUT_S", 0.05)
    clock = iter(range(10**6))  # each look a second later, in sim.cluster alone (the cluster's threads run on)
    monkeypatch.setattr(sim.cluster, "time", type("Clock", (), {"monotonic": staticmethod(lambda: next(clock))}))
    pool = sim.cluster.Cluster(client, 1, "tcp://127.0.0.1:1")
    with pytest.raises(RunError, match=words):
        pool._result(job)


def test_a_scheduler_lost_mid_run_is_one_line(tmp_path):
    """A scheduler killed while the run plays: one line and status 2, as any refusal (before:
    36 lines, dask's client logging its tracebacks from loggers of their own levels)."""
    address_file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", "0", "--no-dashboard", "--scheduler-file", str(address_file)], **quiet)
    worker = None
    try:
        deadline = time.time() + 60
        while not address_file.exists() and time.time() < deadline:
            time.sleep(0.05)
        address = json.loads(address_file.read_text())["address"]
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                   "--memory-limit", "0", "--host", "127.0.0.1", "--no-nanny", "--no-dashboard"],
                                  env=dict(os.environ, NUMBA_NUM_THREADS="1"), **quiet)
        out = tmp_path / "run"
        proc = started("sim.run", *ARGS, "--out", str(out), "--cluster", address)
        wait_for_blocks(out, 1, proc)
        scheduler.kill()
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 2 and err.count("\n") == 1, err
        assert err.startswith(f"python -m sim.run: error: the cluster run lost its scheduler at {address}")
    finally:
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait()


def test_a_host_name_that_names_no_host_is_said_at_once(tmp_path):
    """A scheduler address whose host name resolves to nothing (the .invalid domain never
    does) is said as such, not as the Client's timeout ("no answer within 3 s"); on a
    machine with no resolver in reach, as that."""
    out = tmp_path / "never"
    result = as_process("sim.run", "--games", "100", "--out", str(out), "--cluster", "tcp://no-such-host.invalid:8786",
                        timeout=60)
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip()
    assert line.startswith("python -m sim.run: error: cannot reach the Dask scheduler at "
                           "tcp://no-such-host.invalid:8786 (") and "\n" not in line, line
    assert ("(no host is named no-such-host.invalid)" in line
            or "(its host name no-such-host.invalid cannot be resolved: " in line), line
    assert not out.exists()


@pytest.mark.parametrize("code, words", [
    ("EAI_NONAME", "(no host is named sched.example)"),
    ("EAI_AGAIN", "(its host name sched.example cannot be resolved: the resolver said so)"),
])
def test_a_host_name_that_resolves_to_nothing_is_told_from_a_resolver_out_of_reach(monkeypatch, code, words):
    """A name that names no host, and one that cannot be resolved for want of a resolver
    (offline), are each said as such."""
    import socket

    from sim.cluster import _greets
    from sim.store import RunError

    def resolving(*args, **kwargs):
        raise socket.gaierror(getattr(socket, code), "the resolver said so")

    monkeypatch.setattr(socket, "create_connection", resolving)
    with pytest.raises(RunError) as caught:
        _greets("tcp://sched.example:8786")
    assert str(caught.value) == (f"cannot reach the Dask scheduler at tcp://sched.example:8786 {words}; "
                                 "is a scheduler running there?")
