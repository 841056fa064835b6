# Every target builds its own virtual environment from the pinned lock first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export PYTHONHASHSEED := 0

.PHONY: test laws laws-deep relock mutants lint venv clean

venv: $(VENV)/.stamp

$(VENV)/.stamp: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The CI gate: lint, unit tests, the laws (CI profile), the model breaks of SPEC 9.
test: venv lint
	$(PY) -m pytest
	$(PY) -m laws
	$(PY) -m laws.mutants

laws: venv
	$(PY) -m laws

laws-deep: venv
	$(PY) -m laws --profile deep

# Rewrite LAWS.lock after changing a law on purpose.
relock: venv
	$(PY) -m laws --relock

# Each deliberate break of SPEC 9 in a scratch copy: caught by which laws, or MISSED.
mutants: venv
	$(PY) -m laws.mutants

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
