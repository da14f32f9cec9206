# The two commands a newcomer needs:  `make demo`  and  `make test`.
# Everything is installed into .venv by this file; nothing has to be installed by hand.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.xmd-installed

export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install demo test lint bench bench-report clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch is pinned to the CPU build in pyproject.toml; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Install, then run the whole story on the demo data (SQLite + embedded broker, no servers needed).
demo: install
	$(BIN)/xmd demo --workdir runs/demo

## Install, then run the full test suite (what CI runs).
test: install
	$(BIN)/ruff check backend workers tests bench
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
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
