"""Shared test helpers: the project's golden deals (tests/golden/cases.jsonl) and the cases in it."""

import json
import signal
from pathlib import Path

import pytest

# Tests send Ctrl-C (SIGINT) to the commands they start. A suite launched in the background
# inherits SIGINT ignored, which its children would inherit too (Python then never raises
# KeyboardInterrupt); with a handler here, they start with the default instead.
signal.signal(signal.SIGINT, signal.default_int_handler)

# The golden deals live in the repository, beside the tests that replay them.
GOLDEN = Path(__file__).resolve().parent / "golden" / "cases.jsonl"


def golden_cases(game: str) -> list[tuple[int, dict]]:
    """(line number, case) for every golden deal of ``game``."""
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    return [(n, c) for n, c in ((n, json.loads(l)) for n, l in enumerate(lines, 1) if l.strip())
            if c["game"] == game]


@pytest.fixture(scope="session")
def golden_path() -> Path:
    return GOLDEN


# The files that take longest, first (the busiest of a 2-worker run on 2026-12-05). make test
# hands whole files to the workers in collection order (--dist loadfile with
# --no-loadscope-reorder; xdist's own order puts the files with most tests first), so a long
# file with few tests no longer starts last and leaves the other worker idle at the end.
SLOWEST_FIRST = ("test_runs.py", "test_information.py", "test_differential.py", "test_pimc.py", "test_dd.py",
                 "test_report.py", "test_bounds.py", "test_cluster.py", "test_run_cli.py", "test_dealing.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
