# Every target builds its own virtual environment from the pinned lock first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export PYTHONHASHSEED := 0

.PHONY: test laws laws-deep lint venv clean

venv: $(VENV)/.stamp

$(VENV)/.stamp: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

test: venv lint
	$(PY) -m pytest

laws: venv
	$(PY) -m laws

laws-deep: venv
	$(PY) -m laws --profile deep

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
