# make run: set up .venv and run the main job.  make test: set up .venv and run the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-all bench clean chromium

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

# Tests compile the kernels into a fresh cache (DESIGN point 9).
test: $(STAMP) chromium
	NUMBA_CACHE_DIR=$$(mktemp -d) $(PY) -m pytest -q -m "not slow"

test-all: $(STAMP) chromium
	NUMBA_CACHE_DIR=$$(mktemp -d) $(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m benchmarks.throughput

clean:
	rm -rf $(VENV) .pytest_cache
