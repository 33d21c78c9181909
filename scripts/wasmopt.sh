#!/bin/sh
# wasmopt.sh IN OUT OPTIMIZER [ARG…] writes to OUT binaryen's optimization
# of IN, a Go build named NAME.go.wasm, by the command line OPTIMIZER
# ARG… IN. It keeps the result as NAME.opt.wasm beside IN and optimizes
# again only when IN or the command line has changed (wasm-opt takes
# 10–60 s of CPU a module). Without OPTIMIZER installed (npm's binaryen:
# make deps-npm) OUT is IN itself, and it says so.
set -eu
in=$1 out=$2
shift 2
opt=${in%.go.wasm}.opt.wasm
if [ ! -x "$1" ]; then
	echo "wasmopt: $1 is not installed (make deps-npm): $out is Go's own build, not optimized"
	cp "$in" "$out"
	exit 0
fi
if ! cmp -s "$in" "$opt.of" || ! echo "$*" | cmp -s - "$opt.by" || [ ! -f "$opt" ]; then
	echo "$* $in -o $opt"
	"$@" "$in" -o "$opt"
	cp "$in" "$opt.of"
	echo "$*" >"$opt.by"
fi
cp "$opt" "$out"
