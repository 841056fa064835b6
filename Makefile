# Every target builds its own virtual environment from the pinned lock first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export PYTHONHASHSEED := 0
# Every process of a run imports the same modules: let them keep their bytecode
# (this machine's environment sets PYTHONDONTWRITEBYTECODE, which costs each
# process seconds of compiling).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: dist release test test-more laws laws-deep relock mutants mutation bridge bridge-protocol corpus bench lint venv engine clean sawtooth fuzz crash mutation-laws

ENGINE := build/engine/impl/SOURCES

# `make test LOAD=10` (or `make laws LOAD=10`): the command beside 10 busy
# processes, as on a loaded CI runner, all ended with it (tests/load.py).
LOAD ?= 0
LOADED := $(if $(filter-out 0,$(LOAD)),$(PY) -m tests.load $(LOAD) --,)

venv: $(VENV)/.stamp

# uv installs the lock in seconds where pip takes most of a minute. It is the
# installer only, pinned here with the pip the venv keeps (tests build a wheel
# with it); when uv cannot be had, pip makes the same venv from the same lock.
UV := uv==0.13.8
PIP := pip==23.2.1
# uv keeps its cache in ~/.cache/uv; where that cannot be written (a
# read-only HOME), in build/ (uv would fail, and pip take a minute more).
UV_CACHE = $(shell d="$${XDG_CACHE_HOME:-$$HOME/.cache}/uv"; mkdir -p "$$d" 2>/dev/null && [ -w "$$d" ] || echo --cache-dir build/uv-cache)

$(VENV)/.stamp: requirements.lock pyproject.toml
	@echo "venv: $(VENV) from requirements.lock (uv, seconds; once)"
	@rm -rf $(VENV)
	@if $(PYTHON) -m venv --without-pip $(VENV) \
		&& $(PYTHON) -m pip --python $(VENV)/bin/python install --quiet --disable-pip-version-check $(UV) \
		&& $(VENV)/bin/uv pip install --quiet --compile-bytecode $(UV_CACHE) --python $(VENV)/bin/python \
			-r requirements.lock $(PIP); \
	then :; else \
		echo "venv: uv failed; pip installs the lock instead (about a minute)"; \
		rm -rf $(VENV) && $(PYTHON) -m venv $(VENV) \
		&& $(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.lock; \
	fi
	@touch $@

# The planner compiled to C by mypyc, and its text scans from impl/textscan.c
# (impl/__init__.py says when they are loaded).
engine: $(ENGINE)

# Rebuilt when any engine source changes (impl.PLANNER and impl.SCANNER name
# the ones built).
$(ENGINE): $(VENV)/.stamp $(wildcard impl/*.py) $(wildcard impl/*.c)
	$(PY) -m impl.build

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The CI gate: lint, then side by side on every core (tests/gate.py): the
# engine's C build, unit tests, the laws (CI profile), the model and the
# engine (C build, plain Python through the line protocol, the deviant
# profile) on the committed corpus, and every deliberate break of SPEC 9 up
# to its first catch. The build is a stage, so stages without it start at once.
test: venv lint
	$(LOADED) $(PY) -m tests.gate

# The second tier: the tests marked `more` (pyproject.toml), each of which
# cannot be fast: a whole corpus through an engine process, a release made
# in a clone, the documented CI runs end to end. `make test` runs every other
# test; .ci/run runs both (docs/developing.md, "Two tiers").
test-more: venv engine
	$(PY) -m pytest -n 2 --dist loadgroup -p no:cacheprovider -m more

laws: venv
	$(LOADED) $(PY) -m laws

laws-deep: venv
	$(PY) -m laws --profile deep

# Rewrite LAWS.lock after changing a law on purpose.
relock: venv
	$(PY) -m laws --relock

# Each deliberate break of SPEC 9 in a scratch copy: caught (by which laws or
# scenarios), MISSED, or HARNESS ERROR.
mutants: venv
	$(PY) -m laws.mutants

# An automatic mutation run over model/ (mutmut): a score and the survivors.
mutation: venv
	$(PY) -m laws.mutation

# The laws alone against a random sample of mutmut's mutants (hours: each
# surviving mutant costs a whole CI laws run).
mutation-laws: venv
	nice -n 19 $(PY) -m laws.mutation --laws --sample 150

# The model, then the engine (C build, in this process), each against the
# committed transcripts of the whole corpus.
bridge: venv engine
	$(PY) -m bridge corpus --engine model
	$(PY) -m bridge corpus --engine impl

# The engine again, as plain Python in a separate process speaking bridge/PROTOCOL.md.
bridge-protocol: venv
	OPTCHAT_PURE=1 $(PY) -m bridge corpus --engine reference

# Generated histories against the engine for five minutes; a divergence is
# shrunk into optchat-regressions/ (any engine: FUZZ_ENGINE='my-engine --bridge').
FUZZ_ENGINE ?= impl
fuzz: venv engine
	$(PY) -m bridge fuzz --engine "$(FUZZ_ENGINE)" --seconds 300

# The picture at the top of README: the sawtooth of a corpus scenario.
sawtooth: venv
	$(PY) -m bridge show scenarios/corpus/late_1500.jsonl -o docs/sawtooth.svg

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

# The release artefacts in dist/: the wheel, the sdist, the single-file
# runner optchat-spec.pyz, and SHA256SUMS (release/, RELEASING.md). Python
# alone builds them, no venv and no network.
dist:
	$(PYTHON) -m release dist dist

# The release step (RELEASING.md): `make release VERSION=X.Y.Z`.
release:
	@test -n "$(VERSION)" || { echo "make release VERSION=X.Y.Z"; exit 2; }
	$(PYTHON) -m release cut $(VERSION) dist

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist
