"""Benchmarks: ``python -m benchmarks.NAME`` (docs/performance.md)."""

import sim  # noqa: F401 - first, so Ctrl-C while a benchmark starts ends it in one line
