# The two commands that matter: `make demo` and `make test`. Both set up .venv on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR ?= data/demo
DEMO_PATIENTS ?= 300

.PHONY: demo test lint format bench clean help

help:  ## list the targets
	@grep -E '^[a-z]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## build the demo cohort (three hospitals), ingest it and print a summary
	$(BIN)/clinrag demo --out $(DEMO_DIR) --patients $(DEMO_PATIENTS)

test: lint  ## lint, type-check, layer-check, then the whole test suite
	$(BIN)/python -m pytest -q

lint: $(STAMP)  ## ruff, mypy --strict, import-linter
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(STAMP)  ## apply ruff's fixes and formatting
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format src tests benchmarks

bench: $(STAMP)  ## run every benchmark; JSON lands in benchmarks/results/
	$(BIN)/python benchmarks/run_all.py

clean:  ## remove the virtual environment and generated data
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
