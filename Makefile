# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test install lint clean

# flock: `make run` and `make test` started together install once, not twice at the same time.
$(BIN)/sightline-installed: pyproject.toml
	flock .venv.lock sh -c '[ -f $@ ] && [ $@ -nt pyproject.toml ] || { \
	  $(PYTHON) -m venv $(VENV) && \
	  $(BIN)/pip install --quiet --upgrade pip && \
	  $(BIN)/pip install --quiet -e ".[dev]" && touch $@; }'

install: $(BIN)/sightline-installed

## Create the environment, install, and serve on 127.0.0.1:8000 with the bundled sample scene preloaded.
run: install
	SIGHTLINE_PRELOAD_SAMPLE=1 $(BIN)/gunicorn -c gunicorn.conf.py --bind $(HOST):$(PORT) 'service.app:create_app()'

## Run the whole test suite (unit, adapters on ../shared real exports, API, e2e with gunicorn).
test: install
	$(BIN)/python -m pytest

## Lint: ruff, mypy and the import-linter layer contracts of pyproject.toml (docs/architecture.md).
lint: install
	$(BIN)/ruff check service adapters schemas tests bench
	$(BIN)/ruff format --check service adapters schemas tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .venv.lock .pytest_cache .hypothesis *.egg-info
