# The two commands a newcomer needs:  `make demo`  and  `make test`.
# Everything is installed into .venv by this file; nothing has to be installed by hand.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.xmd-installed

export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install install-e2e frontend demo test lint bench bench-report clean

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

$(FRONTEND_STAMP): $(FRONTEND_DEPS) $(FRONTEND_SRC)
	cd frontend && npm run build
	touch $@

frontend: $(FRONTEND_STAMP)

## The browser the end-to-end tests drive (Debian's chromium; Playwright's own download is never used).
install-e2e: install
	command -v chromium || (apt-get update && apt-get install -y chromium)

## Install, then run the whole story on the demo data (SQLite + embedded broker, no servers needed).
demo: install frontend
	$(BIN)/xmd demo --workdir runs/demo

## Install, then run the full test suite (what CI runs).
test: install frontend install-e2e
	$(BIN)/ruff check backend workers tests bench
	cd frontend && npm run test
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check backend workers tests bench
	$(BIN)/ruff format --check backend workers tests bench

## Run every benchmark (hours on a 2-core CPU; see BENCHMARKS.md), then regenerate BENCHMARKS.md and its PNGs.
bench: install
	bash bench/run_all.sh

## Regenerate BENCHMARKS.md and its PNGs from bench/results/*.json only (no benchmark is run).
bench-report: install
	$(BIN)/python bench/report.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache frontend/node_modules frontend/dist test-output
