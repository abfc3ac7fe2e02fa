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
