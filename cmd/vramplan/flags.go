package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/cmdline"
	"github.com/vramplan/vramplan/planner/modelfile"
)

// inputFlags are the flags that build a planner.Input.
type inputFlags struct {
	input, model, gpu, budget, kvDtype, weightCache string
	weightsDtype, mmproj                            string
	maxBatch, maxSeqLen, blockTokens, prefill       int
	specK, ring, snapshots                          int
	vision, graphs, eager, sidecar                  bool
	engineFlags
	parallel parallelFlags
	// gpuNotes are what the GPU resolver said about --gpu, for stderr.
	gpuNotes []string
	// everyGPU is set by a command that plans on every calibration
	// (gpus): --gpu is then neither required nor taken.
	everyGPU bool
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.input, "input", "", "read the whole input from a JSON `file` (an input or plan document); other flags override it")
	fs.StringVar(&f.model, "model", "", "model: a catalog `name`, a .gguf file, a config.json, a model directory or a model-shape .json")
	fs.StringVar(&f.weightsDtype, "weights-dtype", "", "override the bytes per weight of a config.json model (`dtype` such as bf16, fp8, int4)")
	fs.StringVar(&f.mmproj, "mmproj", "", "vision projector GGUF `file` to charge as the vision tower (implies --vision)")
	fs.StringVar(&f.gpu, "gpu", "", "GPU: the card as people name it (4090, \"RTX 4090\", h100: its Linux entry), a calibration `id` (see 'vramplan calibrations') or a calibration file (what gpuagent calibrate wrote); a comma list gives one per rank")
	fs.StringVar(&f.budget, "budget", "", "memory `budget` such as 30GiB (default: the device total)")
	fs.Var(count(&f.maxBatch), "max-batch", "concurrent sequences (0: as many as fit)")
	fs.Var(count(&f.maxSeqLen), "max-seq-len", "longest sequence in `tokens` (32K is 32768, 4k 4000, as --from-flags reads them)")
	fs.StringVar(&f.kvDtype, "kv-dtype", "", "KV-cache `dtype`: f16, bf16, fp8, q8_0, q4_0, nvfp4 (default f16)")
	fs.Var(count(&f.blockTokens), "block-tokens", "tokens per KV block (default 16)")
	fs.Var(count(&f.prefill), "max-prefill-tokens", "prefill chunk in tokens (default 512)")
	fs.StringVar(&f.weightCache, "weight-cache", "", "weight-cache `policy`: none, fp16, fp8, nvfp4 (default none)")
	fs.BoolVar(&f.vision, "vision", false, "charge the model's vision tower")
	fs.Var(count(&f.specK), "spec-k", "speculative decoding: the largest number of draft tokens")
	fs.BoolVar(&f.graphs, "cuda-graphs", false, "charge the CUDA-graph pool")
	fs.Var(count(&f.ring), "residual-ring", "residual FP16 ring length in tokens")
	fs.Var(count(&f.snapshots), "snapshots", "recurrent-state prefix snapshots")
	fs.BoolVar(&f.eager, "eager-loading", false, "CUDA_MODULE_LOADING=EAGER figures")
	fs.BoolVar(&f.sidecar, "sidecar", false, "charge a second CUDA context for an agent beside the engine")
	f.engineFlags.register(fs)
	f.parallel.register(fs)
}

// countValue is a count flag, read as --from-flags reads an engine's
// counts (cmdline.ParseCount): 32K is 32768, 4k is 4000.
type countValue struct{ n *int }

func count(n *int) countValue { return countValue{n} }

func (c countValue) String() string {
	if c.n == nil {
		return "0"
	}
	return strconv.Itoa(*c.n)
}

func (c countValue) Set(s string) error {
	n, err := cmdline.ParseCount(s)
	if err != nil {
		return errors.New(cmdline.CountText(s, err, "a count (digits, with k, m or g for 1000s and K, M or G for 1024s: 32K is 32768)"))
	}
	*c.n = n
	return nil
}

// sizeValue is a parallel-size flag, read as --from-flags reads an
// engine's (cmdline.ParseSize): a count in [1, planner.MaxParallel].
type sizeValue struct{ n *int }

func size(n *int) sizeValue { return sizeValue{n} }

func (v sizeValue) String() string { return countValue(v).String() }

func (v sizeValue) Set(s string) error {
	n, err := cmdline.ParseSize(s)
	if err == nil {
		*v.n = n
	}
	return err
}

// everyGPUIgnores are the flags that choose a GPU, its budget or a layout,
// which a command planning on every calibration (everyGPU) refuses.
var everyGPUIgnores = []string{"gpu", "budget", "tensor-parallel", "pipeline-parallel", "expert-parallel", "data-parallel", "tensor-split"}

// flagError is bad input attributed to a flag.
type flagError struct{ flag, msg string }

func (e *flagError) Error() string { return "--" + e.flag + ": " + e.msg }

// build assembles the input: the --input document, then the flags set.
func (f *inputFlags) build(fs *flag.FlagSet) (planner.Input, error) {
	in, err := f.base()
	if err != nil {
		return in, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["from-flags"] {
		if err := f.applyCommand(&in); err != nil {
			return in, err
		}
	}
	if err := f.applyModel(&in, set); err != nil {
		return in, err
	}
	if err := f.applyLimits(&in, set); err != nil {
		return in, err
	}
	f.applyFeatures(&in, set)
	f.parallel.apply(&in, set)
	if err := f.applyEngine(&in, set); err != nil {
		return in, err
	}
	if in.Limits.MaxSeqLen == 0 && !set["max-seq-len"] {
		// Validate would say "0 is out of range": the flag was not given.
		return in, &flagError{"max-seq-len", "required: the longest sequence in tokens, such as --max-seq-len 4096"}
	}
	return in, nil
}

func (f *inputFlags) base() (planner.Input, error) {
	if f.input == "" {
		return planner.Input{}, nil
	}
	data, err := readLimited(f.input)
	if err != nil {
		return planner.Input{}, &flagError{"input", err.Error()}
	}
	if p, err := planner.ParsePlan(data); err == nil {
		return p.Input, nil
	}
	in, err := planner.ParseInput(data)
	if err != nil {
		return in, &flagError{"input", err.Error()}
	}
	return in, nil
}

// readLimited reads a plan or input document: a regular file (a device or
// FIFO is refused before it is opened) of at most planner.MaxDocument bytes,
// read through a limit whatever its size said.
func readLimited(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, planner.MaxDocument+1))
	if err == nil && len(data) > planner.MaxDocument {
		err = errors.New("file is larger than a plan document may be")
	}
	return data, err
}

func (f *inputFlags) applyModel(in *planner.Input, set map[string]bool) error {
	if set["model"] {
		m, err := loadModel(f.model, f.weightsDtype, f.mmproj)
		var me *modelfile.MmprojError
		if errors.As(err, &me) {
			return &flagError{"mmproj", me.Err.Error()}
		}
		if err != nil {
			return &flagError{"model", err.Error()}
		}
		in.Model = m
		if f.mmproj != "" && !set["vision"] {
			in.Features.Vision = true
		}
	}
	if f.everyGPU {
		for _, k := range everyGPUIgnores {
			if set[k] {
				return &flagError{k, "not taken: the table plans every GPU at its own total, in the layout it needs; narrow it with --min-memory and --label"}
			}
		}
	}
	if set["gpu"] {
		notes, err := lookupGPUs(in, f.gpu)
		if err != nil {
			return err
		}
		f.gpuNotes = notes
	}
	switch {
	case in.Model.ID == "" && len(in.Model.Layers) == 0:
		return &flagError{"model", "required"}
	case in.Calibration.ID == "" && !f.everyGPU:
		return &flagError{"gpu", "required"}
	}
	return nil
}

func (f *inputFlags) applyLimits(in *planner.Input, set map[string]bool) error {
	l := &in.Limits
	setInt(set, "max-batch", &l.MaxBatch, f.maxBatch)
	setInt(set, "max-seq-len", &l.MaxSeqLen, f.maxSeqLen)
	setInt(set, "block-tokens", &l.BlockTokens, f.blockTokens)
	setInt(set, "max-prefill-tokens", &l.MaxPrefillTokens, f.prefill)
	if set["kv-dtype"] {
		l.KVDtype = planner.KVDtype(strings.ToLower(f.kvDtype))
	}
	if set["budget"] {
		b, err := planner.ParseBytes(f.budget)
		if err != nil {
			return &flagError{"budget", err.Error()}
		}
		in.Budget = b
	}
	return nil
}

func (f *inputFlags) applyFeatures(in *planner.Input, set map[string]bool) {
	x := &in.Features
	if set["weight-cache"] {
		x.WeightCache = planner.WeightCache(strings.ToLower(f.weightCache))
	}
	setBool(set, "vision", &x.Vision, f.vision)
	setBool(set, "cuda-graphs", &x.CUDAGraphs, f.graphs)
	setBool(set, "eager-loading", &x.EagerModuleLoading, f.eager)
	setBool(set, "sidecar", &x.SidecarAgent, f.sidecar)
	setInt(set, "spec-k", &x.SpecDecodeK, f.specK)
	setInt(set, "residual-ring", &x.ResidualRing, f.ring)
	setInt(set, "snapshots", &x.RecurrentSnapshots, f.snapshots)
}

func setInt(set map[string]bool, name string, dst *int, v int) {
	if set[name] {
		*dst = v
	}
}

func setBool(set map[string]bool, name string, dst *bool, v bool) {
	if set[name] {
		*dst = v
	}
}

// fieldFlags maps input fields to the flags that set them.
var fieldFlags = map[string]string{
	"limits.max_batch": "max-batch", "limits.max_seq_len": "max-seq-len", "limits.kv_dtype": "kv-dtype",
	"limits.block_tokens": "block-tokens", "limits.max_prefill_tokens": "max-prefill-tokens",
	"budget_bytes": "budget", "features.weight_cache": "weight-cache", "features.spec_decode_k": "spec-k",
	"features.residual_ring_tokens": "residual-ring", "features.recurrent_snapshots": "snapshots",
	"serving.engine": "engine", "serving.version": engineVersionFlag, "serving.llama_cpp.flash_attn": "flash-attn", "serving.llama_cpp.gpu_layers": "gpu-layers",
	"serving.vllm.gpu_memory_utilization": "gpu-memory-utilization", "serving.sglang.mem_fraction_static": "mem-fraction-static",
	"parallel.tensor_parallel": "tensor-parallel", "parallel.pipeline_parallel": "pipeline-parallel",
	"parallel.expert_parallel": "expert-parallel", "parallel.data_parallel": "data-parallel", "parallel.tensor_split": "tensor-split",
	"parallel.calibrations": "gpu",
}

// describeErr renders a planning error as one line naming the flag, or the
// input field when no flag sets it.
func describeErr(err error) string {
	var ie *planner.InputError
	if errors.As(err, &ie) {
		if fl, ok := fieldFlags[ie.Field]; ok {
			return fmt.Sprintf("--%s: %s", fl, ie.Msg)
		}
		if strings.HasPrefix(ie.Field, "calibration.") {
			return fmt.Sprintf("--gpu: %s", ie)
		}
	}
	return err.Error()
}
