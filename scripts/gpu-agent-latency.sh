#!/usr/bin/env bash
# Times 256-sequence decode steps against gpuagent serve on the VMM backend
# under several runtime settings, to see where the p99 tail comes from
# (the first run of 2026-11-30, JSON steps: GOGC=100 p99 392 µs, GOGC=400 235 µs,
# GOGC=off 226 µs). Each setting times the JSON step and the binary decode call.
#   BIN=bin OUT=DIR bash scripts/gpu-agent-latency.sh   (on the GPU machine, after gpu-agent-test.sh made DIR/plan.json)
set -u
BIN=${BIN:-bin}; OUT=${OUT:-gpu-agent-output}; SOCK=/tmp/gpuagent-lat.sock
BLAS=(--blas-dir /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib
      --blas-dir /usr/local/cuda-13.0/targets/x86_64-linux/lib)
run() { # label, env for both processes
  label=$1; shift
  rm -f "$SOCK"
  env "$@" "$BIN/gpuagent" serve --plan "$OUT/plan.json" --backend vmm --sidecar=false --listen "unix:$SOCK" "${BLAS[@]}" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do [ -S "$SOCK" ] && break; sleep 0.1; done
  printf '%-28s ' "$label"
  env "$@" "$BIN/gpuagent" soak --listen "unix:$SOCK" --latency-batch 256 --latency-steps 20000 --latency-form both 2>&1 | sed '2s/^/                             /' 
  kill $pid; wait $pid 2>/dev/null
}
run "default (--gc-heap 256MiB)"
run "GOGC=100 (runtime default)" GOGC=100
run GOMAXPROCS=4 GOMAXPROCS=4
run GOMAXPROCS=2 GOMAXPROCS=2
run "default, again"
