#!/usr/bin/env bash
# Runs every fuzz target in the module for $FUZZTIME each (default 5s).
# Targets are found with `go test -list`, so a new fuzzer runs without an edit here.
#
# Go 1.26's fuzz coordinator can end a clean run with a bare "context deadline
# exceeded" when -fuzztime expires while a worker is mid-call (golang/go#75804,
# fixed in Go 1.27). That failure writes no failing input. A run that fails
# with exactly that signature is retried (up to twice more); any other failure,
# and every failure that writes an input under testdata/fuzz, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# deadline_race reports whether the log in $1 is the coordinator race and
# nothing else: the deadline message, and no failing input written.
deadline_race() {
  grep -q '^    context deadline exceeded$' "$1" && ! grep -q 'Failing input written' "$1"
}

fuzz_one() {
  local pkg=$1 target=$2 try
  for try in 1 2 3; do
    if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >"$log" 2>&1; then
      grep '^fuzz: elapsed' "$log" | tail -1 | sed "s/^/  $target: /" || true
      return 0
    fi
    if ! deadline_race "$log"; then
      cat "$log"
      return 1
    fi
    echo "  $target: Go fuzz coordinator deadline race (golang/go#75804), no failing input; retry $try"
  done
  cat "$log"
  return 1
}

for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)"
    fuzz_one "$pkg" "$target"
  done
done
