#!/bin/bash
# bench-instructions.sh PKG BENCH [N1 N2]: the instructions one iteration of
# a Go benchmark executes, counted by valgrind's cachegrind, which neither the
# load average nor the other processes on the machine change: the
# difference between runs of N2 and N1 iterations (default 5500 and 500),
# over N2 - N1, with GOGC=off and no asynchronous preemption so that neither
# the collector nor the runtime's signals add their own, and GOMAXPROCS=1:
# with more Ps, the scheduler's idle threads spin for as long as the run
# takes, which valgrind (one thread at a time) makes long, and their
# instructions were counted too (two runs of one binary differed by half).
# Runs differ by a few hundred instructions. For an A/B of a change on a
# busy machine; the time of a change is still measured by go test -bench on
# a quiet one.
#
#   scripts/bench-instructions.sh ./planner/ 'PlanVLLM$'
set -euo pipefail
pkg=$1 bench=$2 n1=${3:-500} n2=${4:-5500}
command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" "$pkg"
count() {
  (cd "$pkg" && GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null "$bin" -test.run='^$' -test.bench="$bench" -test.benchtime="$1x" 2>&1) |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}
a=$(count "$n1") b=$(count "$n2")
echo "$bench: $(( (b - a) / (n2 - n1) )) instructions per iteration"
