# Hamlet: `make up` runs the embedded service with a demo; `make test` runs the checks and tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: up test check lint typecheck unit bench bench-sandbox bench-pipeline proto clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

up: $(STAMP)
	@echo "The CLI: $(BIN)/hamlet (or \`source $(BIN)/activate\`, then \`hamlet\`), e.g. $(BIN)/hamlet games"
	$(BIN)/hamlet up

test: check unit

check: $(STAMP) lint typecheck

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/engines.py

bench-sandbox: $(STAMP)
	$(BIN)/python bench/sandbox.py

bench-pipeline: $(STAMP)
	$(BIN)/python bench/pipeline.py

proto: $(STAMP)
	$(BIN)/python -m hamlet.protogen

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
