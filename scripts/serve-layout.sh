#!/usr/bin/env bash
# serve-layout.sh starts one gpuagent per GPU for a multi-GPU plan: rank R
# on CUDA device R (on one host, the engines' default placement), each on
# its own socket /tmp/gpuagent-R.sock, and stops them all on Ctrl-C or when
# any one exits. Extra arguments go to every `gpuagent serve`.
#
#   bin/vramplan plan --model llama-3.3-70b-instruct-q4_k_m --gpu h200 --tensor-parallel 4 -o plan.json ...
#   scripts/serve-layout.sh plan.json --backend vmm
set -euo pipefail
plan=${1:?usage: serve-layout.sh PLAN.json [gpuagent serve flags]}
shift
agent=${GPUAGENT:-bin/gpuagent}
gpus=$(sed -n 's/^    "gpus": \([0-9][0-9]*\),*$/\1/p' "$plan" | head -n 1)
if [[ -z $gpus ]]; then
  echo "serve-layout.sh: $plan has no layout; serve it with: $agent serve --plan $plan" >&2
  exit 2
fi
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait; }
trap stop EXIT INT TERM
for ((r = 0; r < gpus; r++)); do
  "$agent" serve --plan "$plan" --rank "$r" --device "$r" --listen "unix:/tmp/gpuagent-$r.sock" "$@" &
  pids+=("$!")
done
wait -n
