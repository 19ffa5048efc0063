# Two entry points, both self-contained on a machine with Python 3.10+, git and make:
#   make demo   - create .venv, install IHMT, run the demo on an embedded default store
#   make test   - create .venv, install IHMT with its development and semantic extras, run
#                 ruff and pytest (the semantic tests skip cleanly where the extra is absent)
#   make test-quick - the inner loop: lint, then pytest without the heavy trials, stopping
#                 at the first failure
#   make semantic - add the optional semantic search extra to .venv
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-quick install dev semantic lint clean

# Both test targets spread the test files over every core when pytest-xdist is installed
# (the dev extra has it; a file stays on one worker, so its module fixtures are shared),
# and -rs prints why each skipped test skipped. Expanded when the recipe runs, after `dev`.
PARALLEL = $(shell $(BIN)/python -c "import xdist" 2>/dev/null && echo "-n auto --dist loadfile")

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install -q -e .

dev: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'

semantic: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[semantic]'

demo: install
	$(BIN)/ihmt demo

lint: dev
	$(BIN)/ruff check src tests bench

test: dev lint
	$(BIN)/python -m pip install -q -e '.[dev,semantic]' \
		|| echo "the semantic extra could not be installed: its tests will be skipped"
	$(BIN)/python -m pytest -q -rs $(PARALLEL)

test-quick: dev lint
	$(BIN)/python -m pytest -q -rs -x -m "not heavy" $(PARALLEL)

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
