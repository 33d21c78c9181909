#!/bin/bash
# plan-instructions.sh [BENCH...]: the instructions one call of
# planner.PlanMemory executes in each planner benchmark (default: the seed's
# and the engine profiles' plans), counted by valgrind's callgrind with
# collection on only inside PlanMemory, so neither the benchmark's own loop
# nor the runtime's threads count: 2000 iterations each, GOGC=off, no
# asynchronous preemption, one P. Load does not change the counts. A run
# now and then loses track of PlanMemory's frames (a Go stack that grows
# is copied under callgrind's shadow stack) and collects less or nothing,
# so each benchmark runs three times and the largest count is printed with
# the three; the others agree within ~150. For an A/B of a change: run it at
# both commits.
#
#   scripts/plan-instructions.sh 'PlanVLLM$'
set -euo pipefail
command -v valgrind >/dev/null || { echo "plan-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ $# -gt 0 ] || set -- 'PlanMemory$' 'PlanLlamaCpp$' 'PlanVLLM$' 'PlanVLLMSliding$' 'PlanSGLang$'
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./planner/
n=2000
count() {
  (cd planner && GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect='github.com/vramplan/vramplan/planner.PlanMemory' "$bin" -test.run='^$' -test.bench="$1" -test.benchtime="${n}x" 2>&1 |
    awk '/Collected/ { print int($4 / '"$n"') }') || true # the test binary's exit under valgrind is not always 0
}
for b in "$@"; do
  runs=$(for r in 1 2 3; do count "$b"; done | tr '\n' ' ')
  best=$(echo "$runs" | tr ' ' '\n' | sort -n | tail -1)
  echo "$b: ${best:-?} instructions per PlanMemory (runs: $runs)"
done
