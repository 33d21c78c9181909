#!/bin/bash
# plan-instructions.sh [BENCH...]: the instructions one call of
# planner.PlanMemory executes in each planner benchmark (default: the seed's
# and the engine profiles' plans), counted by valgrind's callgrind with
# collection on only inside PlanMemory, so neither the benchmark's own loop
# nor the runtime's threads count: 2000 iterations each, GOGC=off, no
# asynchronous preemption, one P. Load does not change the counts. A run
# now and then loses track of PlanMemory's frames (a Go stack that grows
# is copied under callgrind's shadow stack) and collects less or nothing,
# so each benchmark runs three times and the median of the runs within 10 %
# of the largest is printed with the three; good runs agree within ~150. For an A/B of a change: run it at
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
  best=$(echo "$runs" | tr ' ' '\n' | sort -n | awk 'NF { v[n++] = $1 } END { if (!n) exit; k = 0; for (i = 0; i < n; i++) if (v[i] * 10 >= v[n-1] * 9) g[k++] = v[i]; print g[int((k - 1) / 2)] }')
  echo "$b: ${best:-?} instructions per PlanMemory (runs: $runs)"
done
