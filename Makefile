# Every target builds its own virtual environment from the pinned lock first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export PYTHONHASHSEED := 0

.PHONY: test laws laws-deep relock mutants mutation bridge bridge-protocol corpus bench lint venv engine clean crash

ENGINE := build/engine/impl/SOURCES

venv: $(VENV)/.stamp

$(VENV)/.stamp: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

# The planner compiled to C by mypyc (impl/__init__.py says when it is loaded).
engine: $(ENGINE)

# Rebuilt when any engine source changes (impl.PLANNER names the compiled ones).
$(ENGINE): $(VENV)/.stamp $(wildcard impl/*.py)
	$(PY) -m impl.build

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The CI gate: lint, unit tests, the laws (CI profile), the bridge on the
# committed corpus (the compiled engine in this process, then the plain-Python
# one through the line protocol), and every deliberate break of SPEC 9.
test: venv lint engine
	$(PY) -m pytest
	$(PY) -m laws
	$(MAKE) --no-print-directory bridge bridge-protocol
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

# An automatic mutation run over model/ (mutmut): a score and the survivors.
mutation: venv
	$(PY) -m laws.mutation

# Model and engine on the whole corpus, the model against its committed transcripts.
bridge: venv engine
	$(PY) -m bridge corpus --engine impl

# The engine again, as plain Python in a separate process speaking bridge/PROTOCOL.md.
bridge-protocol: venv
	OPTCHAT_PURE=1 $(PY) -m bridge corpus --without-model --engine "$(PY) -m impl.protocol"

# Regenerate the corpus and its expected transcripts; show what changed.
corpus: venv
	$(PY) -m scenarios.generate
	$(PY) -m bridge expect
	git status --short scenarios/

# Every benchmark as ratios measured in one run; see BENCHMARKS.md.
bench: venv engine
	$(PY) -m bench

# The long crash test (SPEC 6), outside `make test`: 100 SIGKILLs with the
# compactor running, some on a full disk (README, "Crash test").
crash: venv
	$(PY) -m tests.impl.crash_long --kills 100

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build
