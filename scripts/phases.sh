#!/usr/bin/env bash
# Runs each make target named in its arguments in turn, as `make test` runs
# its phases, and prints the wall time of each and of all (with the load
# average at the start and end), so a CI log says where its minutes went.
# The first phase that fails stops the run with its status.
set -uo pipefail
make=${MAKE:-make}
times=()
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
for t in "$@"; do
  t0=$(date +%s)
  "$make" --no-print-directory "$t"
  rc=$?
  times+=("$(printf '%-12s %5d s' "$t" $(($(date +%s) - t0)))")
  if ((rc != 0)); then
    printf 'phase %s failed (status %d); wall times so far:\n' "$t" "$rc" >&2
    printf '  %s\n' "${times[@]}" >&2
    exit "$rc"
  fi
done
echo "wall time per phase (load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') at the end):"
printf '  %s\n' "${times[@]}"
printf '  %-12s %5d s\n' total $(($(date +%s) - start))
