# make run: set up .venv and run the main job.  make test: set up .venv and run the tests.
# make bench-peers: add the bench extra (OpenSpiel) to .venv and compare with the peers.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test test-all bench bench-peers clean chromium

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m sim.run --games 1e6

# The report test opens reports in headless Chromium: Debian's package (needs root).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# Tests compile the kernels into a fresh cache (DESIGN point 9): tests.warm compiles each
# game's kernels once, in two processes, then TEST_WORKERS pytest-xdist workers, each taking
# whole files, load them from that cache (make test TEST_WORKERS=0 runs in one process).
# Most tests run the commands inside the test worker (tests/commands.py); the rest start
# `python -m sim...` processes (Ctrl-C, kills, a cluster, start-up): each reads the project's
# bytecode from __pycache__ rather than compiling 60 modules anew where the environment
# sets PYTHONDONTWRITEBYTECODE (a tenth of each process's start).
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
WARM := $(PY) -m tests.warm
TEST_ENV := unset PYTHONDONTWRITEBYTECODE && export NUMBA_CACHE_DIR=$$(mktemp -d)

test: $(STAMP) chromium
	$(TEST_ENV) && $(WARM) && $(PYTEST) -m "not slow"

test-all: $(STAMP) chromium
	$(TEST_ENV) && $(WARM) && $(PYTEST)

bench: $(STAMP)
	$(PY) -m benchmarks.throughput

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# OpenSpiel's euchre, the project's Bid Euchre and Bridgette and the limit loops, one process.
bench-peers: $(BENCH_STAMP)
	$(PY) -m benchmarks.peers

clean:
	rm -rf $(VENV) .pytest_cache
