#!/usr/bin/env bash
# The GPU acceptance run of gpuagent serve (issue 7), on a GPU machine with no
# Go toolchain: plan with bin/vramplan, serve the plan with bin/gpuagent on
# the VMM backend, read the report and metrics, soak it with 32 clients,
# time 256-sequence decode steps, then the same load on the cuda backend.
#
#   make build                                     # here
#   BIN=bin OUT=DIR bash scripts/gpu-agent-test.sh # there; logs and figures to DIR
set -u
BIN=${BIN:-bin}
OUT=${OUT:-gpu-agent-output}
SOCK=/tmp/gpuagent-accept.sock
BLAS=(--blas-dir /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib
      --blas-dir /usr/local/cuda-13.0/targets/x86_64-linux/lib)
mkdir -p "$OUT"
smi() { nvidia-smi --query-gpu=name,driver_version,memory.total,memory.reserved,memory.used --format=csv >"$OUT/smi-$1.csv" 2>&1; }

serve() { # backend tag
  rm -f "$SOCK"
  "$BIN/gpuagent" serve --plan "$OUT/plan.json" --backend "$1" --sidecar=false --listen "unix:$SOCK" "${BLAS[@]}" \
    >"$OUT/serve-$2.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do [ -S "$SOCK" ] && return 0; kill -0 $pid 2>/dev/null || return 1; sleep 0.1; done
  return 1
}
stop() { kill $pid; wait $pid; echo "serve exit $?" >>"$OUT/serve-$1.log"; }

smi before
"$BIN/vramplan" plan --model qwen3-8b-q8_0 --gpu h200 --max-batch 256 --max-seq-len 2048 --kv-dtype fp8 \
  -o "$OUT/plan.json" >"$OUT/plan.txt"; echo "plan exit $?"

if serve vmm vmm; then
  smi loaded-vmm
  "$BIN/gpuagent" report --listen "unix:$SOCK" >"$OUT/report-loaded-vmm.txt" 2>&1
  curl -s --unix-socket "$SOCK" http://agent/metrics >"$OUT/metrics-loaded-vmm.txt"
  "$BIN/gpuagent" soak --listen "unix:$SOCK" --clients 32 --ops 100000 >"$OUT/soak-vmm.txt" 2>&1; echo "soak exit $?" >>"$OUT/soak-vmm.txt"
  "$BIN/gpuagent" soak --listen "unix:$SOCK" --latency-batch 256 --latency-steps 20000 --latency-form both >"$OUT/latency-vmm.txt" 2>&1
  "$BIN/gpuagent" report --listen "unix:$SOCK" >"$OUT/report-soaked-vmm.txt" 2>&1
  curl -s --unix-socket "$SOCK" http://agent/metrics >"$OUT/metrics-soaked-vmm.txt"
  smi soaked-vmm
  stop vmm
else
  echo "serve vmm failed" >>"$OUT/serve-vmm.log"
fi

if serve cuda cuda; then
  "$BIN/gpuagent" report --listen "unix:$SOCK" >"$OUT/report-loaded-cuda.txt" 2>&1
  "$BIN/gpuagent" soak --listen "unix:$SOCK" --clients 32 --ops 100000 >"$OUT/soak-cuda.txt" 2>&1; echo "soak exit $?" >>"$OUT/soak-cuda.txt"
  stop cuda
else
  echo "serve cuda failed" >>"$OUT/serve-cuda.log"
fi
grep -h -E "PASS|FAIL|p99|attribution|device used|exit" "$OUT"/*.txt "$OUT"/*.log
