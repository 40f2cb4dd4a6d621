# Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo bench proto clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

demo: $(STAMP)
	$(PY) -m ladder.demo

bench: $(STAMP)
	for b in bench/*.py; do $(PY) $$b || exit 1; done

proto: $(STAMP)
	$(PY) -m grpc_tools.protoc -Iproto --python_out=proto --pyi_out=proto --grpc_python_out=proto proto/hearts/v1/*.proto

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
