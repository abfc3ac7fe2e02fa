"""Runs on a Dask cluster: the same blocks as a local run, played by worker processes.

    python -m sim.run --games 1e8 --cluster tcp://scheduler:8786 --out /shared/runs/big
    python -m sim.run --games 1e6 --cluster local:2     # starts 2 local worker processes

A block is a pure function of (rules, policies, seed, first game, count), so a block played
on any worker, or played again after its worker was lost, has the same records. Workers
write a block's Parquet files into the run folder (a path every worker shares) and send
back only its aggregates; the client alone writes the block's aggregates file, which marks
it done, and the manifest, so the manifest has one writer and resuming works as in a local
run. A worker process plays one block at a time on its own numba threads.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import socket
import struct
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from sim.games import game_module
from sim.store import RECORD_KINDS, RunError, write_records

LOCAL = "local:"
CONNECT_TIMEOUT_S = 3  # a scheduler that does not answer by then is reported unreachable
WORKERS_TIMEOUT_S = 30  # a scheduler with no worker after this long is reported idle
POLL_S = 5  # how often a client waiting on a job asks whether any worker is left
# Jobs out on the cluster at a time, per worker: enough to keep each busy while results come
# back, few enough that a run of 2**53 games never holds a future per block.
IN_FLIGHT_PER_WORKER = 4


# [scheme://]host:port, the host a name, an IPv4 address or a bracketed IPv6 address. TLS
# needs a security configuration and UCX the ucx-py package, neither of which a run takes.
ADDRESS = re.compile(r"((tcp|ws|wss)://)?([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")


def parse_address(text: str) -> str | int:
    """The number of worker processes of ``local:N``, or a scheduler address as given."""
    text = str(text).strip()
    if text.startswith(LOCAL):
        n = text[len(LOCAL):]
        if not (n.isascii() and n.isdigit()) or not n.strip("0"):
            raise RunError(f"'{text:.80}': local:N needs a whole number N of at least 1 worker processes")
        cores = os.cpu_count() or 1
        if len(n.lstrip("0")) > 6 or int(n) > cores:  # each process would share a core: slower, not faster
            raise RunError(f"'{text:.80}': this machine has {cores} cores, so local:N takes at most {cores} worker "
                           "processes")
        return int(n)
    if text.startswith(("tls://", "ucx://")):
        raise RunError(f"'{text}': a run reaches its scheduler over tcp://, ws:// or wss:// (tls:// needs a security "
                       "configuration and ucx:// the ucx-py package, which a run does not take)")
    if not ADDRESS.fullmatch(text) or int(text.rsplit(":", 1)[1]) > 65535:
        raise RunError(f"'{text}' is neither a scheduler address such as tcp://host:8786 nor local:N")
    return text


# --- on the workers -----------------------------------------------------------------

_KERNELS = threading.Lock()


def _on_worker(fn, threads, *args):
    """Call ``fn(*args)`` with ``threads`` numba threads (None: numba's default), one call
    at a time per process so that blocks never share the cores their kernels spread over."""
    import numba

    with _KERNELS:
        if threads is None:
            return fn(*args)
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return fn(*args)
        finally:
            numba.set_num_threads(before)


def play_block(game, rules, policies, seed, index, first, count, out, records, dd=False, plan=None):
    """Play one block (``dd``: valuing every deal double dummy, sim.dd_run; ``plan``: a deal
    run's, sim.dealing), write its Parquet records into ``out``, return its aggregates."""
    from sim.aggregates import block_aggregates
    from sim.blocks import Columns

    module = game_module(game)
    deals, game_rows = module.run_block(rules, policies, seed, first, count, dd, plan)
    deals = Columns(deals)
    build = {"deals": lambda: module.deal_table(rules, deals, policies),
             "games": lambda: module.game_table(game_rows)}
    write_records(Path(out), index, {kind: build[kind]() for kind in RECORD_KINDS[records]})
    return index, count, block_aggregates(game, rules, deals, game_rows, plan)


def _identity() -> dict:
    """What must agree between the client and every worker for the records to agree."""
    import kernels
    from sim.version import RULES_VERSION, __version__

    return {"version": __version__, "rules_version": RULES_VERSION, "kernels": kernels.SOURCE_DIGEST}


def _checked(fn, threads, *args):
    """``_on_worker``'s result with this worker's identity and name: a worker that joined
    after the warm-up (a nanny restarting one, on code changed meanwhile) is checked too."""
    return _identity(), f"worker {socket.gethostname()} (pid {os.getpid()})", _on_worker(fn, threads, *args)


def _mismatch(found: dict, mine: dict, who_runs: str) -> str:
    return (f"{who_runs} tricksim {found['version']} (rules version {found['rules_version']}, kernels "
            f"{found['kernels']}) but this client runs {mine['version']} ({mine['rules_version']}, "
            f"{mine['kernels']}): install the same version everywhere")


def _warm_up(game, rules, policies, out, threads):
    """Check this worker can serve the run, and compile (or load) the game's kernels."""
    import numba

    where = f"worker {socket.gethostname()} (pid {os.getpid()})"
    if threads is not None and threads > numba.config.NUMBA_NUM_THREADS:
        raise RunError(f"--threads {threads} exceeds the {numba.config.NUMBA_NUM_THREADS} threads of {where}")
    if out is not None and not (Path(out) / "manifest.json").is_file():
        raise RunError(f"{where} cannot see the run folder {out}: --out must be a path every worker shares")
    _on_worker(game_module(game).run_block, threads, rules, policies, 0, 0, 1)
    return _identity()


# --- on the client ------------------------------------------------------------------

class Cluster:
    """A Dask client and the numba threads each worker process plays with."""

    def __init__(self, client, threads: int | None, address: str):
        self.client = client
        self.threads = threads
        self.address = address
        self.identity = _identity()

    def workers(self) -> list[str]:
        return sorted(self.client.nthreads())

    def warm_up(self, game, rules, policies, out=None) -> float:
        """Check and warm every worker (one first, so the others load its compiled kernels
        from a shared cache instead of compiling side by side); the seconds it took."""
        start = time.perf_counter()
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except TimeoutError:
            raise RunError(f"the Dask scheduler at {self.address} has no workers "
                           f"(none joined within {WORKERS_TIMEOUT_S} s)") from None
        workers = self.workers()
        args = (game, rules, policies, None if out is None else str(out), self.threads)

        def on(worker):
            # A loose restriction: if this worker dies, another one warms up instead.
            return self.client.submit(_warm_up, *args, workers=[worker], allow_other_workers=True, pure=False)

        for found in self._results([on(workers[0])]) + self._results([on(w) for w in workers[1:]]):
            if found != self.identity:
                raise RunError(_mismatch(found, self.identity, "the workers run"))
        return time.perf_counter() - start

    def _results(self, futures) -> list:
        return [self._result(f) for f in futures]

    def _result(self, future):
        """A job's result. Waiting, the client asks every POLL_S seconds whether any worker
        is left: a worker that cannot import tricksim ends as it starts, and its jobs would
        wait for good. A lost scheduler, and a block that killed its workers, are one line."""
        from concurrent.futures import CancelledError

        from distributed import KilledWorker
        from distributed.comm.core import CommClosedError

        resume = "rerun the same command to resume"
        alone_since = None
        while True:
            try:
                return future.result(timeout=POLL_S)
            except TimeoutError:
                try:
                    workers = self.client.nthreads()
                except Exception as exc:  # noqa: BLE001 - the scheduler is gone: its comm's error, whatever it is
                    raise RunError(f"the cluster run lost its scheduler at {self.address} ({type(exc).__name__}); "
                                   f"{resume}") from None
                alone_since = None if workers else alone_since or time.monotonic()
                if alone_since is not None and time.monotonic() - alone_since > WORKERS_TIMEOUT_S:
                    raise RunError(f"no worker has been left at the Dask scheduler {self.address} for "
                                   f"{WORKERS_TIMEOUT_S} s (a worker that cannot import tricksim ends as it "
                                   f"starts); {resume}") from None
            except KilledWorker:
                raise RunError(f"a block killed every worker that tried it (out of memory?); {resume}") from None
            except (CancelledError, CommClosedError):  # the future cancelled, or the comm to it closed
                raise RunError(f"the cluster run lost its scheduler at {self.address}; {resume}") from None
            except OSError as exc:
                raise RunError(f"the cluster run failed: {exc}; {resume}") from None

    def map(self, fn, jobs, ordered: bool = False):
        """``fn(*job)`` for every job on the workers; results in the order they finish, or
        with ``ordered`` in the jobs' order. ``jobs`` is read as jobs finish, a few per
        worker out at a time, so it may be a generator of more jobs than memory could hold."""
        from distributed import as_completed

        jobs = iter(jobs)
        window = IN_FLIGHT_PER_WORKER * max(1, len(self.workers()))

        def submit(n: int) -> list:
            return [self.client.submit(_checked, fn, self.threads, *job, pure=False)
                    for job in itertools.islice(jobs, n)]

        out = submit(window)  # in the jobs' order
        try:
            finished = None if ordered else as_completed(out, loop=self.client.loop)
            while out:
                future = out[0] if ordered else next(finished)
                found, where, result = self._result(future)
                if found != self.identity:  # its records are not marked done: a rerun plays them again
                    raise RunError(_mismatch(found, self.identity, f"{where}, which joined during the run, runs"))
                out.remove(future)
                future.release()
                for new in submit(1):
                    out.append(new)
                    if finished is not None:
                        finished.add(new)
                yield result
        finally:
            self.client.cancel([f for f in out if not f.done()])

    def play_blocks(self, game, rules, policies, seed, blocks, out, records, dd=False, plan=None):
        """(index, count, aggregates) of each block, as workers finish them; the records
        are already in ``out``."""
        return self.map(play_block, ((game, rules, policies, seed, index, first, count, str(out), records, dd, plan)
                                     for index, first, count in blocks))

    def describe(self) -> dict:
        workers = self.workers()
        return {"address": self.address, "workers": len(workers), "threads_per_worker": self.threads}


def _abandon_half_made_client(tb) -> None:
    """Stop the Client a failed connection left half made (found in the traceback's frames):
    otherwise, once collected, it tries to close its connection for seconds and prints a
    traceback of its own after the command's one line."""
    from distributed import Client

    while tb is not None:
        client = tb.tb_frame.f_locals.get("self")
        if isinstance(client, Client):
            client.status = "closed"
            runner = getattr(client, "_loop_runner", None)
            if runner is not None:
                runner.stop()
            return
        tb = tb.tb_next


@contextmanager
def open_cluster(cluster, threads: int | None = None):
    """A ``Cluster`` from a scheduler address, ``local:N`` (N local worker processes on
    loopback, stopped afterwards) or a ``distributed.Client`` already open (left open).

    ``threads`` is the numba threads of each worker process; by default a local cluster
    shares this machine's cores among its processes and a remote worker uses all of its own.
    """
    from distributed import Client

    if isinstance(cluster, Client):
        yield Cluster(cluster, threads, str(cluster.scheduler.address))
        return
    if not isinstance(cluster, str):
        raise TypeError(f"cluster must be a scheduler address such as tcp://host:8786, local:N or a "
                        f"distributed.Client, got {cluster!r:.60}")
    target = parse_address(cluster)
    levels = _quiet_logs()
    try:
        if isinstance(target, int):
            import numba
            from distributed import LocalCluster

            if threads is None:
                threads = max(1, numba.config.NUMBA_NUM_THREADS // target)
            local = LocalCluster(n_workers=target, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 memory_limit=0, silence_logs=logging.CRITICAL, dashboard_address=None,
                                 scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            client = Client(local, set_as_default=False)
        else:
            local = None
            _has_tls_settings(target)
            _greets(target)
            try:
                client = Client(target, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
            except Exception as exc:  # noqa: BLE001 - no answer, another protocol, garbage: one line each
                _abandon_half_made_client(exc.__traceback__)
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                reason = f"no answer within {CONNECT_TIMEOUT_S} s" if "Timed out" in reason else reason
                raise RunError(f"cannot reach the Dask scheduler at {target} ({reason}); "
                               "is a scheduler running there?") from None
    except BaseException:
        _restore_logs(levels)
        raise
    try:
        yield Cluster(client, threads, client.scheduler.address)
    finally:
        client.close()
        if local is not None:
            local.close()
        _restore_logs(levels)


def _quiet_logs() -> dict:
    """Silence what dask's client logs while a command uses it: a failed connection or a lost
    scheduler is one line of the run's own, and dask logs its tracebacks from loggers of
    its own levels (``distributed.client``, ...) and from asyncio's. Returns the levels to
    restore."""
    names = ["distributed", "asyncio", *(name for name in logging.root.manager.loggerDict
                                         if name.startswith("distributed."))]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    return levels


def _restore_logs(levels: dict) -> None:
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


GREETING_MOST = 1 << 16  # bytes: a scheduler's greeting is a few dozen


def _has_tls_settings(address: str) -> None:
    """A RunError for a wss:// address when dask's configuration holds no TLS settings
    (distributed.comm.tls), without which the client cannot speak TLS at all."""
    from distributed.security import Security

    if address.startswith("wss://") and Security().get_connection_args("client")["ssl_context"] is None:
        raise RunError(f"'{address}': wss:// needs TLS settings in dask's configuration (distributed.comm.tls), "
                       "and none are set: reach the scheduler over tcp:// or ws://")


def _greets(address: str) -> None:
    """A RunError unless what listens at a tcp:// ``address`` greets as a Dask scheduler
    within CONNECT_TIMEOUT_S: one message (its length, then its frames' count and lengths,
    then the frames) whose frame is a msgpack map naming the scheduler's Python. A port that
    takes the connection and stays silent, or says a few bytes and waits (a stopped
    scheduler, another kind of server), would hold the Client's handshake for good, and one
    that speaks another protocol had its words read as a length (an "allocation of 3 EiB");
    a refused connection and a host name that resolves to nothing are said at once. Other
    faults (an unreachable host) are the Client's to say."""
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme != "tcp":
        return  # ws:// and wss://: the client speaks first
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    try:
        conn = socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT_S)
    except socket.gaierror as exc:  # said now, not as the Client's timeout
        unknown = exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME))
        reason = (f"no host is named {parts.hostname}" if unknown else
                  f"its host name {parts.hostname} cannot be resolved: {exc.strerror}")  # no resolver reached, say
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT_S} s"
    except ConnectionRefusedError:
        reason = "connection refused"  # nothing listens there: said now, not after the Client's retries
    except OSError:
        return
    else:
        with conn:
            try:
                reason = _greeting_problem(lambda size: _received(conn, size, deadline))
            except TimeoutError:
                reason = f"the connection is taken, but no scheduler's greeting comes within {CONNECT_TIMEOUT_S} s"
            except OSError:
                return
        if reason is None:
            return
    raise RunError(f"cannot reach the Dask scheduler at {address} ({reason}); is a scheduler running there?")


def _received(conn, size: int, deadline: float) -> bytes:
    """``size`` bytes from ``conn`` by ``deadline`` (TimeoutError), or fewer where it closes."""
    data = b""
    while len(data) < size:
        conn.settimeout(max(deadline - time.monotonic(), 0.001))
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _greeting_problem(read) -> str | None:
    """Why the bytes ``read(n)`` gives are no Dask scheduler's greeting, or None."""
    import msgpack

    first = read(8)
    if not first:
        return "it closed the connection without a word"
    other = "it answers in another protocol, not a Dask scheduler's"
    total = struct.unpack("<Q", first)[0] if len(first) == 8 else 0
    if not 16 <= total <= GREETING_MOST:
        return other
    body = read(total)
    frames = struct.unpack_from("<Q", body)[0] if len(body) == total else 0
    if not 1 <= frames <= (total - 8) // 8:
        return other
    lengths = struct.unpack_from(f"<{frames}Q", body, 8)
    if 8 + 8 * frames + sum(lengths) != total:
        return other
    try:
        greeting = msgpack.unpackb(body[8 + 8 * frames:8 + 8 * frames + lengths[0]])
    except Exception:  # noqa: BLE001 - any bytes msgpack cannot read are no greeting
        greeting = None
    return None if isinstance(greeting, dict) and "python" in greeting else other
