#!/usr/bin/env bash
# gpu-test.sh is gpuagent's GPU acceptance run (issue 6). It runs on a
# machine with an NVIDIA GPU and no Go toolchain, over the binaries that
# `make -f gpu.mk gpu-build` put in $BIN (default .device/): the driver
# shim's tests, the conformance suite on both backends, VMM growth and
# commit/decommit overhead, the shared KV pool with a stalled client
# (vmm.test's TestPool*: issue 31's points 1 and 16 through the driver's
# export, import, map and unmap), then `gpuagent calibrate` twice. Each
# test binary runs in its package's directory, as go test runs it, so its
# testdata is where it looks. Everything it
# prints goes to $OUT/gpu-test.log; the two calibrations to
# $OUT/calibrate-{1,2}.json. It exits non-zero if any step failed.
set -uo pipefail
bin=$(cd "${BIN:-.device}" && pwd) || exit 1
out=${OUT:-gpu-test-output}
mkdir -p "$out"
exec > >(tee "$out/gpu-test.log") 2>&1
export VRAMPLAN_GPU=1 # a missing driver fails the tests instead of skipping them
status=0

section() { printf '\n=== %s\n' "$*"; }
step() {
	section "$*"
	local t0=$SECONDS
	"$@" || { echo "FAILED: $*"; status=1; }
	echo "--- $((SECONDS - t0)) s"
}
# pkgtest PKG ARGS... runs PKG's test binary in gpuagent/PKG.
pkgtest() {
	local pkg=$1
	shift
	(cd "gpuagent/$pkg" && "$bin/$(basename "$pkg").test" "$@")
}

section machine
date -u
uname -r
nproc
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,memory.reserved --format=csv ||
	nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv
cat /proc/driver/nvidia/version
ldconfig -p | grep -E 'libcuda\.so|cublas'

# cuBLAS: every directory that holds a libcublas.so.N, for --blas-dir and
# for the loader to find libcublasLt's neighbours.
mapfile -t blasdirs < <(find /usr/local /usr/lib /opt -name 'libcublas.so.[0-9]*' -printf '%h\n' 2>/dev/null | sort -u)
echo "cuBLAS directories: ${blasdirs[*]:-none}"
blasflags=()
for d in "${blasdirs[@]}"; do
	blasflags+=(--blas-dir "$d")
	export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
export VRAMPLAN_CUBLAS_DIR=${blasdirs[0]:-}

step pkgtest internal/cuda -test.v -test.timeout 120s
step pkgtest internal/cuda -test.run '^$' -test.bench Handoff -test.benchtime 200000x
step pkgtest backend/cudamalloc -test.v -test.timeout 300s
step pkgtest backend/vmm -test.v -test.timeout 300s
step pkgtest backend/vmm -test.run Overhead -test.count 4 -test.v

machine="$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1), $(nproc) CPU cores, Linux $(uname -r)"
for i in 1 2; do
	step "$bin/gpuagent" calibrate "${blasflags[@]}" --machine "$machine" -o "$out/calibrate-$i.json"
done

section "calibrate run 1 vs run 2"
python3 - "$out/calibrate-1.json" "$out/calibrate-2.json" <<'PY' || status=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
for k in ("context_bytes", "context_eager_bytes", "library_reserve_bytes", "library_reserve_eager_bytes"):
    x, y = a.get(k, 0), b.get(k, 0)
    d = abs(x - y) / max(x, y, 1) * 100
    ok = d <= 2 and x > 0
    bad += not ok
    print(f"{k:30} {x/2**20:10.1f} MiB {y/2**20:10.1f} MiB  diff {d:.3f} %  {'ok' if ok else 'FAIL'}")
sys.exit(1 if bad else 0)
PY

section "result: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
