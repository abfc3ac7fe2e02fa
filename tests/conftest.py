"""Shared test helpers: the golden file and the Bridgette cases in it."""

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "golden" / "cases.jsonl"


def golden_cases(game: str) -> list[tuple[int, dict]]:
    """(line number, case) for every golden deal of ``game``."""
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    return [(n, c) for n, c in ((n, json.loads(l)) for n, l in enumerate(lines, 1) if l.strip())
            if c["game"] == game]


@pytest.fixture(scope="session")
def golden_path() -> Path:
    return GOLDEN
