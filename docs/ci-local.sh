#!/usr/bin/env bash
# docs/ci.md's conformance run, on your own machine: a pinned optchat-spec in
# a virtual environment of its own, your engine built, the bundled corpus
# replayed against it, a JUnit report (and a JSON one) left in $REPORTS.
#
#   ENGINE='./target/release/my-engine --bridge' BUILD='cargo build --release' \
#       path/to/ci-local.sh [more `optchat-spec corpus` options, e.g. --only 'zoom_*']
#
# Settings, from the environment:
#   ENGINE             the engine's command, speaking bridge/PROTOCOL.md (required)
#   BUILD              a shell command building the engine first (default: none)
#   OPTCHAT_SPEC       what pip installs: the pinned version (default below;
#                      replace YOUR-ORG/optchat-spec with where you get it)
#   OPTCHAT_SPEC_VENV  its virtual environment (default .optchat-spec); an
#                      existing one holding `optchat-spec` is used as it is
#   KNOWN_FAILURES     the known-failures file, used when it exists
#                      (default conformance/known-failures.txt)
#   REPORTS            the reports' folder (default reports)
# Exit code: optchat-spec's. 0 all agree (known failures failing as listed),
# 1 a divergence or a known failure that now passes, 2 bad input, a usage
# error or an engine fault.
set -euo pipefail

: "${ENGINE:?set ENGINE to the command that starts your engine}"
OPTCHAT_SPEC="${OPTCHAT_SPEC:-git+https://github.com/YOUR-ORG/optchat-spec@v0.2.0}"
VENV="${OPTCHAT_SPEC_VENV:-.optchat-spec}"
KNOWN_FAILURES="${KNOWN_FAILURES:-conformance/known-failures.txt}"
REPORTS="${REPORTS:-reports}"

if [ ! -x "$VENV/bin/optchat-spec" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet "$OPTCHAT_SPEC"
fi
if [ -n "${BUILD:-}" ]; then
    bash -c "$BUILD"
fi

"$VENV/bin/optchat-spec" --version
args=(corpus --engine "$ENGINE" --junit-xml "$REPORTS/optchat-spec.xml" --json "$REPORTS/optchat-spec.json")
if [ -f "$KNOWN_FAILURES" ]; then
    args+=(--known-failures "$KNOWN_FAILURES")
fi
exec "$VENV/bin/optchat-spec" "${args[@]}" "$@"
