# The two commands a newcomer needs:  make demo   and   make test
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED := ../shared/conformance/trec_eval

.PHONY: demo test check setup lint contracts typecheck bench clean canary

# Two stamps in one .venv. The test stamp: relkit installed editable with the test tools
# (what lint, contracts, typecheck, test and check need).
TEST_STAMP := $(VENV)/.relkit-test
# The runtime stamp: relkit and its runtime dependencies only (what `make demo` needs).
RUNTIME_STAMP := $(VENV)/.relkit-runtime
# What the runtime install is built from: a change in any of them reinstalls it.
PACKAGE_FILES := pyproject.toml $(shell git ls-files metrics pooling corpora judging 2>/dev/null)

# irrCAC, the oracle of Gwet's agreement coefficients (tests only), pins scipy==1.12 and
# pandas<3, which would downgrade the project's stack; its code runs on that stack, so it is
# installed without its pins (--no-deps) rather than listed in the test extra. crowd-kit,
# the crowd aggregation oracle, likewise: without transformers, which its aggregation
# methods never import (the test extra lists what they do; pyproject.toml says why).
ORACLES_NO_DEPS := 'irrCAC==0.4.4' 'crowd-kit>=1.4,<2'
$(TEST_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps $(ORACLES_NO_DEPS)
	@touch $@

setup: $(TEST_STAMP)

# A regular (not editable) install, as a user gets from a wheel: no test tools, and none
# of setuptools' "Editable installation" notice, which every editable install prints
# (pip passes it on). A .venv already set up for the tests has relkit (editable) and
# everything the demo needs: it is left as it is.
$(RUNTIME_STAMP): $(PACKAGE_FILES)
	@if [ -f $(TEST_STAMP) ] && [ $(TEST_STAMP) -nt pyproject.toml ]; then \
	    echo "$(VENV) is set up for the tests: it has relkit"; \
	else \
	    set -e; test -x $(BIN)/python || $(PY) -m venv $(VENV); \
	    $(BIN)/pip install --quiet --upgrade pip; \
	    $(BIN)/pip install --quiet .; \
	fi
	@touch $@

# Main job on the embedded default: the shipped sample collection in a SQLite database,
# pooled, assigned to two assessors with overlap, open in the judging screen (on a
# terminal; elsewhere it builds the project and prints the next commands).
DEMO_DB ?= relkit-demo.db
demo: $(RUNTIME_STAMP)
	$(BIN)/relkit demo --db $(DEMO_DB)

lint: setup
	$(BIN)/ruff check metrics pooling judging corpora tests bench

# The layers and the import graph (contracts in pyproject.toml's [tool.importlinter]),
# read like mypy from the symlink tree of the installed shape.
contracts: setup
	$(BIN)/python .ci/srctree.py >/dev/null
	PYTHONPATH=build/srctree $(BIN)/lint-imports --no-cache

typecheck: setup
	$(BIN)/python .ci/srctree.py >/dev/null
	$(BIN)/mypy

# The suite in parallel workers (pytest-xdist): most of its wall-clock is waiting on
# subprocesses, browsers, the Spark JVM and servers. Two, chosen for CI's two cores by
# measurement (docs/maintaining.md, "Parallel workers"). loadgroup keeps the tests of one
# Spark session (and of the wheel's build) in one worker. PYTEST_WORKERS=0 runs serially,
# as plain `pytest` does.
PYTEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(1)),,-n $(1) --dist loadgroup)
# The fast loop in three: its tests wait more than they compute (1.5 cores busy of 2 with
# three workers), and three took 4 min 24-29 s against 4 min 53 s for two, quiet
# (docs/maintaining.md). The whole suite stays at two: its browsers and JVMs fill both cores.
# PYTEST_WORKERS, when given, sets both.
CHECK_WORKERS ?= $(if $(filter command line environment,$(origin PYTEST_WORKERS)),$(PYTEST_WORKERS),3)
# The share of each property test's examples the fast loop runs (tests/helpers.py,
# examples()): the readers' fuzz tries 20 inputs per reader instead of 60, a property of
# 100 examples 33. make test runs them all.
CHECK_EXAMPLES ?= 0.33

# Python may write bytecode under the tests (PYTHONDONTWRITEBYTECODE, when the shell sets
# it, is emptied): pytest's rewritten test modules and relkit's compiled modules are then
# read from __pycache__ by every worker and every `relkit` the tests start, not compiled
# again in each (collection 4.8 CPU-s a worker instead of 11; docs/maintaining.md).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest

# Everything: what .ci/run calls.
test: setup lint contracts typecheck
	RELKIT_EXAMPLES=1 $(PYTEST) -q $(call XDIST,$(PYTEST_WORKERS))

# The inner loop: the same lint, contracts and types, and the tests not marked slow (real
# collections, writer processes, long property runs; `pytest -m slow` runs only those).
check: setup lint contracts typecheck
	RELKIT_EXAMPLES=$(CHECK_EXAMPLES) $(PYTEST) -q -m "not slow" $(call XDIST,$(CHECK_WORKERS))

# Not part of CI. relkit uses private names of Textual, textual-serve, Typer and PySpark,
# pinned below their next minor version (docs/maintaining.md, "Borrowed internals"). This
# installs the newest release of each in a scratch venv outside .venv (pip says they
# break the pins: that is the point) and runs the tests of those uses (-m private_api).
# Green: the pin can be raised. Red: the failing test names the guard to look at.
CANARY_VENV ?= build/canary-venv
BORROWED := textual textual-serve typer pyspark
canary:
	test -x $(CANARY_VENV)/bin/python || $(PY) -m venv $(CANARY_VENV)
	$(CANARY_VENV)/bin/pip install --quiet --upgrade pip
	$(CANARY_VENV)/bin/pip install --quiet -e '.[test]'
	$(CANARY_VENV)/bin/pip install --quiet --no-deps $(ORACLES_NO_DEPS)  # (as setup does)
	$(CANARY_VENV)/bin/pip install --quiet --upgrade $(BORROWED)
	$(CANARY_VENV)/bin/pip list 2>/dev/null | grep -iE '^(textual|textual-serve|typer|pyspark) '
	$(CANARY_VENV)/bin/pytest -q -p no:cacheprovider -m private_api

bench: setup
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run_bench.py --sizes small,medium,large

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
