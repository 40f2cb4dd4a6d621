# Everything runs inside .venv, created on first use.
# Bytecode caches are written even where the environment says not to: the tests and the demo start
# hundreds of Python processes, and each would compile the project's modules again.
unexport PYTHONDONTWRITEBYTECODE
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

NODE_BOT := clients/node/node_modules/.installed

# The engine compiled by mypyc (optional: without mypy or a C compiler it runs as pure Python).
ENGINE_SOURCES := referee/rules/cards.py referee/rules/options.py referee/rules/state.py
ENGINE_BUILD := referee/rules/_compiled/manifest.json

.PHONY: test test-fast test-durations check demo arena-demo bench bench-strength proto clean engine engine-clean

$(STAMP): pyproject.toml
	@echo "== installing hearts-arena and the packages it needs into $(VENV) (once: about a minute; nothing outside this folder)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m pip install --quiet -e '.[test,compile]' || echo "mypy could not be installed: the engine will run as pure Python"
	touch $(STAMP)

# Compile the engine (about 15 s; referee/rules/_loader.py uses the build only while it matches the sources).
$(ENGINE_BUILD): $(STAMP) $(ENGINE_SOURCES) tools/build_engine.py referee/rules/build.py
	$(PY) tools/build_engine.py

engine: $(ENGINE_BUILD)

engine-clean:
	$(PY) tools/build_engine.py --clean

# The Node.js example bot's dependencies (skipped with a note where npm is missing).
$(NODE_BOT): clients/node/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix clients/node --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the Node.js bot's tests will be skipped"; fi

# Lint runs beside the engine's build (each takes one core), then the whole suite on the engine as
# built (compiled when the build succeeds), and beside it the engine's own tests again on pure Python
# (one more worker: the suite leaves cores idle while its bots and servers start; its output is
# printed after the suite's). That second run takes a fifth of each property's examples: measured
# with coverage.py, it reaches every line of referee/ and clients/ the full count reaches (2,422 of
# them), and the compiled run keeps the full count. A failed build is reported and the tests run on
# pure Python; HEARTS_EXPECT_ENGINE makes a test fail if the engine in use is not the one this build
# promised.
# Lint, format and types (configured in pyproject.toml): the engine and the codec strictly typed.
check: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Tests run on one worker more than there are cores (pytest-xdist; WORKERS=0 runs them in this one
# process): many tests wait on bots, servers and browsers starting, and the extra worker fills those
# waits (measured on 2 cores: 408 s against 438 s on two). Each module's tests run on one worker (its
# module fixtures are made once), the longest modules first (tests/conftest.py; xdist's own reorder,
# by the number of tests, would put the long single-test modules last).
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(getattr(os, "sched_getaffinity", lambda _: range(os.cpu_count() or 1))(0)) + 1)')
XDIST := -n $(WORKERS) --dist loadfile --no-loadscope-reorder

test: $(STAMP) $(NODE_BOT)
	@checked=$$(mktemp); $(MAKE) --no-print-directory check > $$checked 2>&1 & check=$$!; \
	if $(MAKE) --no-print-directory engine; then expect=compiled; else expect=pure; \
		echo "*** the compiled engine could not be built: testing pure Python only ***" >&2; fi; \
	wait $$check; lint=$$?; cat $$checked; rm -f $$checked; [ $$lint = 0 ] || exit 1; \
	pure=0; if [ $$expect = compiled ]; then \
		log=$$(mktemp); base=$$(mktemp -d); \
		HEARTS_FEWER_EXAMPLES=1 HEARTS_PURE_PYTHON=1 HEARTS_EXPECT_ENGINE=pure $(PY) -m pytest -q -p no:cacheprovider \
			--basetemp=$$base tests/rules tests/test_layers.py > $$log 2>&1 & pure=$$!; \
	fi; \
	HEARTS_EXPECT_ENGINE=$$expect $(PY) -m pytest -q $(XDIST); suite=$$?; \
	if [ $$pure != 0 ]; then \
		wait $$pure; engine=$$?; echo "== the engine's tests again, on pure Python"; cat $$log; rm -rf $$log $$base; \
		[ $$engine = 0 ] || exit 1; \
	fi; \
	exit $$suite

# The inner loop, under a minute: every test but those marked slow (whole processes, browsers,
# clusters, long equivalences), the property tests with a fifth of their examples, no lint.
test-fast: $(STAMP)
	@$(MAKE) --no-print-directory engine >/dev/null || echo "*** the compiled engine could not be built: testing pure Python ***" >&2
	HEARTS_FEWER_EXAMPLES=1 $(PY) -m pytest -q $(XDIST) -m "not slow"

# Measure each test module's time again (tests/durations.json: the order make test runs them in).
test-durations: $(STAMP)
	@$(MAKE) --no-print-directory engine >/dev/null || true
	HEARTS_RECORD_DURATIONS=1 $(PY) -m pytest -q $(XDIST)

demo: $(STAMP)
	$(PY) -m ladder.demo

# The demo arena of docs/arena.md: made on first use (its organiser's token printed then), then served.
arena-demo: $(STAMP)
	test -d demo-arena || $(VENV)/bin/hearts arena init demo-arena
	$(VENV)/bin/hearts arena serve demo-arena

# OpenSpiel is the engine benchmark's reference; without it that benchmark says so and goes on.
$(VENV)/.bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]' || echo "open-spiel could not be installed: no pyspiel ratio"
	touch $@

bench: $(VENV)/.bench $(NODE_BOT)
	@$(MAKE) --no-print-directory engine || echo "*** the compiled engine could not be built: benchmarking pure Python ***" >&2
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# The long strength run of docs/strength.md (montecarlo at 100 ms and 1 s against three heuristic
# bots, duplicate deals; hours on two cores): `make bench` runs only its short form.
bench-strength: $(VENV)/.bench
	@$(MAKE) --no-print-directory engine || echo "*** the compiled engine could not be built: benchmarking pure Python ***" >&2
	$(PY) bench/strength.py --long

proto: $(STAMP)
	$(PY) -m grpc_tools.protoc -Iproto --python_out=proto --pyi_out=proto --grpc_python_out=proto proto/hearts/v1/*.proto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache build *.egg-info referee/rules/_compiled referee/rules/_compiled.new
