#!/bin/bash
# device-run.sh builds llama.cpp (libllama, CUDA for sm_90 only) from the
# source archive beside it, writes the three zero-weight GGUF models with its
# gguf-py, and runs probe over the validation grid, fully offloaded (and one
# partial -ngl load), writing everything under $OUT:
#   results.jsonl   one JSON line per model load and per context (probe.cpp)
#   logs.tar.gz     libllama's own log of every load and context
#   machine.txt     the GPU, driver, compilers and the commit
#   run.log         this script's output
# usage (on the GPU machine, from the repository root):
#   bash .device/h16/device-run.sh      (OUT set by the device tool)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/h16
mkdir -p $W/src $W/models $W/logs
exec > >(tee "$OUT/run.log") 2>&1
t0=$(date +%s)
step() { echo "== $(( $(date +%s) - t0 ))s $*"; }

step machine
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nvcc --version | tail -2;
  cmake --version | head -1; g++ --version | head -1; python3 --version; nproc; uname -r;
  echo "llama.cpp 81ff7abe50b95fb81cc70a6cdba1eb1a02a48f62 (b12072) from kainlan/llama.cpp-intel-optimizations"; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step unpack
tar xzf "$HERE/llama-81ff7abe.tar.gz" -C $W/src || exit 1

step gguf
mkdir -p $W/shim
python3 -c 'import tqdm' 2>/dev/null || printf 'class tqdm:\n    def __init__(self,*a,**k): pass\n    def update(self,*a): pass\n    def close(self): pass\n' > $W/shim/tqdm.py
python3 -c 'import yaml' 2>/dev/null || printf 'def safe_load(*a,**k):\n    raise RuntimeError("yaml shim")\n' > $W/shim/yaml.py
PYTHONPATH=$W/src/gguf-py:$W/shim python3 "$HERE/mkgguf.py" $W/models || exit 1

step configure
cmake -S $W/src -B $W/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-real -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_CCACHE=OFF > $W/cmake.log 2>&1 || { tail -40 $W/cmake.log; exit 1; }

step build
cmake --build $W/build --target llama -j16 > $W/build.log 2>&1 || { grep -m20 -B2 -A10 'error' $W/build.log; tail -20 $W/build.log; exit 1; }
tail -2 $W/build.log

step probe-build
LIB=$(dirname "$(find $W/build -name 'libllama.so' | head -1)")
g++ -O2 -std=c++17 "$HERE/probe.cpp" -o $W/probe -I$W/src/include -I$W/src/src -I$W/src/ggml/include \
  -L"$LIB" -lllama -lggml -lggml-base -Wl,-rpath,"$LIB" || exit 1

# The grid: context, sequences, unified, K type, V type, flash attention, ubatch, swa-full.
grid() {
  for c in 4096 32768; do
    for s in 1,0 4,0 4,1; do
      for kv in f16,f16,1 f16,f16,0 q8_0,q8_0,1; do
        IFS=, read -r k v fa <<< "$kv"
        echo "$c,$s,$k,$v,$fa,512,0"
      done
    done
  done
}
run() { # name model ngl extra-configs...
  local name=$1 model=$2 ngl=$3; shift 3
  local left=$(( 560 - ($(date +%s) - t0) ))
  if [ $left -lt 20 ]; then step "skip $name: ${left}s left"; return; fi
  mkdir -p $W/logs/$name
  step "probe $name"
  timeout $left $W/probe $W/models/$model $W/logs/$name $ngl "$@" >> "$OUT/results.jsonl" 2> $W/logs/$name/stderr.txt
  echo "rc=$?"; tail -3 $W/logs/$name/stderr.txt
  tar czf "$OUT/logs.tar.gz" -C $W logs
}
: > "$OUT/results.jsonl"
run dense dense-llama3-8b.gguf 999 $(grid) 32768,1,0,f16,f16,1,1024,0 32768,4,0,f16,f16,0,1024,0
run swa swa-gemma3-4b.gguf 999 $(grid) 32768,4,0,f16,f16,1,512,1 32768,1,0,f16,f16,1,512,1
run moe moe-qwen3-30b-a3b.gguf 999 $(grid)
run dense-ngl20 dense-llama3-8b.gguf 20 32768,1,0,f16,f16,1,512,0
step pack
tar czf "$OUT/logs.tar.gz" -C $W logs
wc -l "$OUT/results.jsonl"
step done
