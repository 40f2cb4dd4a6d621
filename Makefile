# Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

NODE_BOT := clients/node/node_modules/.installed

.PHONY: test demo bench proto clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The Node.js example bot's dependencies (skipped with a note where npm is missing).
$(NODE_BOT): clients/node/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix clients/node --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the Node.js bot's tests will be skipped"; fi

test: $(STAMP) $(NODE_BOT)
	$(PY) -m pytest -q

demo: $(STAMP)
	$(PY) -m ladder.demo

# OpenSpiel is the engine benchmark's reference; without it that benchmark says so and goes on.
$(VENV)/.bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]' || echo "open-spiel could not be installed: no pyspiel ratio"
	touch $@

bench: $(VENV)/.bench $(NODE_BOT)
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

proto: $(STAMP)
	$(PY) -m grpc_tools.protoc -Iproto --python_out=proto --pyi_out=proto --grpc_python_out=proto proto/hearts/v1/*.proto

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
