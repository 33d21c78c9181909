#!/usr/bin/env bash
# The GPU run of issue 14's loop: `gpuagent calibrate --upload` measures the
# GPU and uploads the result into a running `vramplan serve`, which checks,
# stores and aggregates it; the calibrations page lists it, `vramplan
# calibrations export` turns the aggregate into a table file, and `vramplan
# plan --gpu FILE` plans on it. On a GPU machine with no Go toolchain:
#
#   make build; cp bin/vramplan bin/gpuagent scripts/gpu-upload-test.sh DIR/   # here
#   BIN=DIR OUT=OUTDIR bash DIR/gpu-upload-test.sh                            # there
set -u
BIN=${BIN:-bin}
OUT=${OUT:-gpu-upload-output}
ADDR=127.0.0.1:18114
URL=http://$ADDR
BLAS=(--blas-dir /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib
      --blas-dir /usr/local/cuda-13.0/targets/x86_64-linux/lib)
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
get() { curl -fsS "$1" 2>/dev/null || python3 -c 'import sys,urllib.request;sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$1"; }
echo "=== machine"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
"$BIN/vramplan" serve --addr "$ADDR" --db "$OUT/uploads.db" >"$OUT/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do get "$URL/api/community" >/dev/null 2>&1 && break; sleep 0.1; done
echo "=== gpuagent calibrate --upload"
machine="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1), $(nproc) CPU cores, Linux $(uname -r)"
timeout 240 "$BIN/gpuagent" calibrate "${BLAS[@]}" --machine "$machine" -o "$OUT/calibrate.json" --upload "$URL" --yes
echo "calibrate exit $?"
echo "=== the same file again: a duplicate, answered with the same id"
timeout 30 "$BIN/vramplan" calibrations upload "$OUT/calibrate.json" --to "$URL" --yes | tail -3
echo "=== GET /api/community"
get "$URL/api/community" >"$OUT/community.json"; head -c 600 "$OUT/community.json"; echo
group=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["group"])' "$OUT/community.json")
echo "group $group"
get "$URL/calibrations" >"$OUT/calibrations.html"
grep -o "data-testid=\"cal-$group\" data-kind=\"[a-z]*\"" "$OUT/calibrations.html"
echo "=== export and plan on it"
"$BIN/vramplan" calibrations export --from "$URL" --group "$group" -o "$OUT/$group.json"
"$BIN/vramplan" plan --model qwen3-8b-q8_0 --gpu "$OUT/$group.json" --max-batch 64 --max-seq-len 8192 | head -12
"$BIN/vramplan" plan --model qwen3-8b-q8_0 --gpu "$OUT/$group.json" --max-batch 64 --max-seq-len 8192 --json >"$OUT/plan.json"
echo "plan exit $?"
