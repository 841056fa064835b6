#!/usr/bin/env bash
# docs/ci.md's conformance run, on your own machine: the runner
# optchat-spec.pyz, your engine built, the bundled corpus replayed against
# it, a JUnit report (and a JSON one) left in $REPORTS.
#
#   ENGINE='./target/release/bridge' BUILD='cargo build --release' \
#       path/to/ci-local.sh [more `optchat-spec corpus` options, e.g. --only 'zoom_*']
#
# The runner. Run from a clone of optchat-spec (as docs/ci-local.sh), the
# clone's own, built offline into a temporary folder. Copied into your
# repository, the pinned release's optchat-spec.pyz: downloaded once into
# .optchat-spec/ and checked against its SHA-256 (docs/ci.md, "The pin").
#
# Settings, from the environment:
#   ENGINE                 the engine's command, speaking bridge/PROTOCOL.md (required)
#   BUILD                  a shell command building the engine first (default: none)
#   OPTCHAT_SPEC_PYZ       an optchat-spec.pyz to run as it is (skips the above)
#   OPTCHAT_SPEC_VERSION   the pin: the release, and its zipapp's SHA-256 (both
#   OPTCHAT_SPEC_SHA256      set by optchat-spec's `make release`)
#   OPTCHAT_SPEC_RELEASES  where releases are downloaded from (YOUR-ORG: a
#                          placeholder for where you get optchat-spec)
#   KNOWN_FAILURES         the known-failures file, used when it exists
#                          (default conformance/known-failures.txt)
#   MIN_COMPARED           a file holding the floor of --min-compared, used when
#                          it exists (default conformance/min-compared.txt)
#   REPORTS                the reports' folder (default reports)
#   PYTHON                 Python 3.11 or later (default python3)
# Exit code: optchat-spec's (0 all agree, known failures failing as listed,
# having compared events, at least the floor's share; 1 a divergence, a
# known failure that now passes, or too little compared; 2 bad input, a
# usage error or an engine fault), or 2 when the runner cannot be had or
# BUILD fails. Nothing half-made is left behind.
set -euo pipefail

OPTCHAT_SPEC_VERSION="${OPTCHAT_SPEC_VERSION:-0.3.0}"
OPTCHAT_SPEC_SHA256="${OPTCHAT_SPEC_SHA256:-SET_BY_MAKE_RELEASE}"
OPTCHAT_SPEC_RELEASES="${OPTCHAT_SPEC_RELEASES:-https://github.com/YOUR-ORG/optchat-spec/releases/download}"
KNOWN_FAILURES="${KNOWN_FAILURES:-conformance/known-failures.txt}"
MIN_COMPARED="${MIN_COMPARED:-conformance/min-compared.txt}"
REPORTS="${REPORTS:-reports}"
PYTHON="${PYTHON:-python3}"

fail() {
    echo "ci-local.sh: $*" >&2
    exit 2
}
sha256() {
    "$PYTHON" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$1"
}

[ -n "${ENGINE:-}" ] || fail "set ENGINE to the command that starts your engine"
command -v "$PYTHON" >/dev/null || fail "$PYTHON not found: optchat-spec needs Python 3.11 or later"
clone="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

if [ -n "${OPTCHAT_SPEC_PYZ:-}" ]; then
    runner="$OPTCHAT_SPEC_PYZ"
    [ -f "$runner" ] || fail "OPTCHAT_SPEC_PYZ=$runner: no such file"
elif [ -f "$clone/release/zipapp.py" ]; then
    runner="$scratch/optchat-spec.pyz"
    (cd "$clone" && "$PYTHON" -m release zipapp "$scratch" >/dev/null) \
        || fail "could not build optchat-spec.pyz from $clone"
else
    runner=".optchat-spec/optchat-spec.pyz"
    if [ ! -f "$runner" ] || [ "$(sha256 "$runner")" != "$OPTCHAT_SPEC_SHA256" ]; then
        url="$OPTCHAT_SPEC_RELEASES/v$OPTCHAT_SPEC_VERSION/optchat-spec.pyz"
        curl --fail --silent --show-error --location --output "$scratch/optchat-spec.pyz" "$url" \
            || fail "could not download $url"
        got="$(sha256 "$scratch/optchat-spec.pyz")"
        [ "$got" = "$OPTCHAT_SPEC_SHA256" ] \
            || fail "$url has SHA-256 $got, not the pinned OPTCHAT_SPEC_SHA256 $OPTCHAT_SPEC_SHA256"
        mkdir -p .optchat-spec
        mv "$scratch/optchat-spec.pyz" "$runner"
    fi
fi
if [ -n "${BUILD:-}" ]; then
    bash -c "$BUILD" || fail "BUILD failed: $BUILD"
fi

"$PYTHON" "$runner" --version || fail "$runner does not run"
args=(corpus --engine "$ENGINE" --junit-xml "$REPORTS/optchat-spec.xml" --json "$REPORTS/optchat-spec.json")
if [ -f "$KNOWN_FAILURES" ]; then
    args+=(--known-failures "$KNOWN_FAILURES")
fi
if [ -f "$MIN_COMPARED" ]; then
    args+=(--min-compared "$(cat "$MIN_COMPARED")")
fi
code=0
"$PYTHON" "$runner" "${args[@]}" "$@" || code=$?
exit "$code"
