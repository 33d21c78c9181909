# gpu.mk holds the GPU acceptance targets of issue 6. The GPU machine has no
# Go toolchain, so the binaries are built here and run there:
#
#	make -f gpu.mk gpu-build          # here: gpuagent and the GPU test binaries into .device/
#	make -f gpu.mk gpu-test OUT=DIR   # on the GPU machine: scripts/gpu-test.sh, logs to DIR
#
# The Makefile may `include gpu.mk` to offer both as `make gpu-build` and
# `make gpu-test`.

GPU_BIN ?= .device
GPU_OUT ?= $(if $(OUT),$(OUT),gpu-test-output)
GPU_PKGS := internal/cuda backend/cudamalloc backend/vmm

.PHONY: gpu-build gpu-test

gpu-build: ## build gpuagent and the GPU test binaries into $(GPU_BIN)
	mkdir -p $(GPU_BIN)
	CGO_ENABLED=1 go build -trimpath -o $(GPU_BIN)/gpuagent ./cmd/gpuagent
	for p in $(GPU_PKGS); do \
		CGO_ENABLED=1 go test -c -trimpath -o $(GPU_BIN)/$$(basename $$p).test ./gpuagent/$$p || exit 1; \
	done

gpu-test: ## on a GPU machine: run scripts/gpu-test.sh over $(GPU_BIN), logs to $(GPU_OUT)
	BIN=$(GPU_BIN) OUT=$(GPU_OUT) bash scripts/gpu-test.sh
