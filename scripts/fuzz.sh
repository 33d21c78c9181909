#!/usr/bin/env bash
# Runs every fuzz target in the module for $FUZZTIME each (default 5s).
# Targets are found with `go test -list`, so a new fuzzer runs without an edit here.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/fuzz.$$.log 2>&1 || {
      cat /tmp/fuzz.$$.log; exit 1; }
  done
done
