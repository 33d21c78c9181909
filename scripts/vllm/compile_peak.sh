#!/usr/bin/env bash
# Runs compile_peak.py cold and then warm (same cache folders) for each
# model and token count given as NAME:TOKENS[:LAYERS], one JSON line a process.
set -u
out=${OUT:-/tmp}/compile_peak.jsonl
for spec in "$@"; do
  IFS=: read -r name tokens layers <<<"$spec"
  dir=$(mktemp -d)
  for pass in cold warm; do
    TORCHINDUCTOR_CACHE_DIR=$dir/inductor TRITON_CACHE_DIR=$dir/triton \
      timeout 280 python3 scripts/vllm/compile_peak.py "$name" "$tokens" ${layers:+"$layers"} \
      | sed "s/^{/{\"pass\": \"$pass\", /" | tee -a "$out"
  done
done
