#!/usr/bin/env bash
# The GPU acceptance run of issue 18 (the KV pool shared with engine
# processes by file descriptor, grown and shrunk while serving), on a GPU
# machine with no Go toolchain:
#
#   CGO_ENABLED=1 go build -o DIR/gpuagent ./cmd/gpuagent   # here, and vramplan;
#   CGO_ENABLED=1 go test -c -o DIR/vmm.test ./gpuagent/backend/vmm
#   cp scripts/gpu-pool-test.{sh,py} gpuagent/python/gpuagent_pool.py DIR/
#   BIN=DIR OUT=OUTDIR bash DIR/gpu-pool-test.sh               # there
#
# It runs the VMM backend's Sharer conformance on the GPU, serves a plan on
# the VMM backend, runs scripts/gpu-pool-test.py (PyTorch through the
# Python client), then soaks with one mapping client per lease.
set -u
BIN=${BIN:-bin}
OUT=${OUT:-gpu-pool-output}
HERE=$(cd "$(dirname "$0")" && pwd)
SOCK=/tmp/gpuagent-pool.sock
BLAS=(--blas-dir /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib
      --blas-dir /usr/local/cuda-13.0/targets/x86_64-linux/lib)
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
echo "=== machine"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv
echo "=== vmm.test (Sharer conformance, growth) on the GPU"
VRAMPLAN_GPU=1 "$BIN/vmm.test" -test.v -test.run 'Sharer|Conformance$|Growth10x' >"$OUT/vmm-test.txt" 2>&1
echo "vmm.test exit $?"; grep -E "^(--- |ok|FAIL|PASS)" "$OUT/vmm-test.txt"
"$BIN/vramplan" plan --model qwen3-8b-q8_0 --gpu h200 --max-batch 256 --max-seq-len 2048 --kv-dtype fp8 \
  -o "$OUT/plan.json" >/dev/null; echo "plan exit $?"
rm -f "$SOCK"
"$BIN/gpuagent" serve --plan "$OUT/plan.json" --backend vmm --sidecar=false --listen "unix:$SOCK" "${BLAS[@]}" \
  >"$OUT/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -S "$SOCK" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
head -5 "$OUT/serve.log"
echo "=== PyTorch through the Python client"
PYTHONUNBUFFERED=1 timeout 300 python3 "$HERE/gpu-pool-test.py" "$SOCK" "$OUT/pool.json"; echo "python exit $?"
echo "=== soak, one mapping client per lease"
timeout 240 "$BIN/gpuagent" soak --listen "unix:$SOCK" --clients 32 --ops 30000 --map vmm >"$OUT/soak.txt" 2>&1
echo "soak exit $?"; cat "$OUT/soak.txt"
curl -s --unix-socket "$SOCK" http://agent/metrics | grep -E "^gpuagent_(kv_|leases_lost|steady|backend_acq)" >"$OUT/metrics.txt"
curl -s --unix-socket "$SOCK" http://agent/v1/stats >"$OUT/stats.json"
cat "$OUT/metrics.txt"
kill $pid; wait $pid; echo "serve exit $?"
tail -5 "$OUT/serve.log"
