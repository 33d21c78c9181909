#!/usr/bin/env bash
# Runs every fuzz target in the module for $FUZZTIME each (default 5s).
# Targets are found in the test files each package's build selects (go list),
# so a new fuzzer runs without an edit here; finding them compiles nothing
# (`go test -list` linked and ran every package's test binary, ~1 CPU-minute).
#
# FUZZSHARD=i/n runs only the i-th of n interleaved shards of the target list
# (1-based), so n machines or n processes can share a long run:
#   FUZZSHARD=1/2 make fuzz-long & FUZZSHARD=2/2 make fuzz-long
# FUZZJOBS targets run at once (default 2), each with FUZZWORKERS fuzz
# workers (go test -parallel; default the cores shared out among the jobs,
# at least one). Two at once with one worker each is what `make test` runs
# on a 2-core machine: each target gets one core for its $FUZZTIME, and
# while one target links its instrumented test binary and replays its
# seeds (mostly one core, ~2-3 s a target) the other fuzzes, where one
# target at a time left that core idle through 38 links.
#
# Each new interesting input is minimized for at most $FUZZMINIMIZETIME
# (default 5s; Go's own default is 60s). A worker that minimizes reports no
# executions, and Go's minimizer tries every byte range of an input
# (quadratic in its size), so a kilobyte JSON document, every candidate of
# which is parsed, took the whole minute: FuzzParseInput, whose seeds are
# 2.5 KB plan inputs, "stalled at 11 execs for 57 s" (#31), 65 three-second
# ticks of 300 s with no execution at Go's default against 2 of 120 s at
# 5 s (GODEBUG=fuzzdebug=1 showed minimizations of seed#0's mutants
# taking 14-25 s each, at load 25-30). A crasher is still written; it is
# only minimized less.
#
# Go 1.26's fuzz coordinator can end a clean run with a bare "context deadline
# exceeded" when -fuzztime expires while a worker is mid-call (golang/go#75804,
# fixed in Go 1.27). That failure writes no failing input. A run that fails
# with exactly that signature is retried (up to twice more); any other failure,
# and every failure that writes an input under testdata/fuzz, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
minimizetime=${FUZZMINIMIZETIME:-5s}
shard=${FUZZSHARD:-1/1}
shard_i=${shard%/*}
shard_n=${shard#*/}
if ! [[ $shard_i =~ ^[0-9]+$ && $shard_n =~ ^[0-9]+$ ]] || ((shard_i < 1 || shard_i > shard_n)); then
  echo "fuzz.sh: FUZZSHARD=$shard: want i/n with 1 <= i <= n" >&2
  exit 2
fi
jobs_max=${FUZZJOBS:-2}
if ! [[ $jobs_max =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: FUZZJOBS=$jobs_max: want a positive count" >&2
  exit 2
fi
per_job=$(($(nproc) / jobs_max))
workers=(-parallel="${FUZZWORKERS:-$((per_job > 0 ? per_job : 1))}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# deadline_race reports whether the log in $1 is the coordinator race and
# nothing else: the deadline message, and no failing input written.
deadline_race() {
  grep -q '^    context deadline exceeded$' "$1" && ! grep -q 'Failing input written' "$1"
}

# fuzz_one runs one target, retrying the coordinator race, with its go test
# output in the file $3.
fuzz_one() {
  local pkg=$1 target=$2 log=$3 try
  for try in 1 2 3; do
    if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimizetime" "${workers[@]}" "$pkg" >"$log" 2>&1; then
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

# targets prints "package target" for every fuzz target: each func FuzzXxx(f
# *testing.F) of the package's test files, as gofmt writes it.
targets() {
  local pkg file
  go list -f '{{$p := .ImportPath}}{{$d := .Dir}}{{range .TestGoFiles}}{{$p}} {{$d}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$p}} {{$d}}/{{.}}{{"\n"}}{{end}}' ./... |
    while read -r pkg file; do
      sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)([A-Za-z_][A-Za-z0-9_]* \*testing\.F) {$/\1/p' "$file" | sed "s|^|$pkg |"
    done
}

list=$(targets)
if [[ -z $list ]]; then
  echo "fuzz.sh: no fuzz targets found" >&2
  exit 1
fi
n=0
while read -r pkg target; do
  n=$((n + 1))
  if (((n - 1) % shard_n + 1 != shard_i)); then
    continue
  fi
  while (($(jobs -rp | wc -l) >= jobs_max)); do
    wait -n || true
  done
  echo "fuzz $pkg $target ($fuzztime, started $(date -u +%H:%M:%S))"
  # Each job prints what it has to say when it ends, and leaves its status.
  (
    rc=0
    fuzz_one "$pkg" "$target" "$dir/$n.log" >"$dir/$n.out" 2>&1 </dev/null || rc=$?
    cat "$dir/$n.out"
    echo "$rc" >"$dir/$n.rc"
  ) &
done <<<"$list"
wait
failed=0
for f in "$dir"/*.rc; do
  [[ $(cat "$f") == 0 ]] || failed=1
done
if ((failed)); then
  echo "fuzz.sh: a fuzz target failed (its output is above)" >&2
  exit 1
fi
