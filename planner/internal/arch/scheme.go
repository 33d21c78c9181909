package arch

// This file decides the format of each tensor: the checkpoint's torch_dtype,
// its quantization_config, or a --weights-dtype override.

import (
	"fmt"
	"regexp"
	"strings"
)

// Scheme picks the storage format of every tensor of a model.
type Scheme struct {
	Dtype string // the dominant format, for display
	pick  func(t *Tensor) Format
	// converted is set for an override the engine applies as it loads
	// the checkpoint (vLLM's --quantization fp8), not a GGUF file type.
	converted bool
}

// Format reports the format of tensor t under s.
func (s Scheme) Format(t *Tensor) Format { return s.pick(t) }

// Uniform is the scheme that stores every tensor as f.
func Uniform(f Format) Scheme {
	return Scheme{Dtype: f.Name, pick: func(*Tensor) Format { return f }}
}

// hfQuant stores the quantizable matrices in q and everything else in base.
type hfQuant struct {
	base, q     Format
	ignore      []*regexp.Regexp
	expertsOnly bool
}

func (h *hfQuant) pick(t *Tensor) Format {
	if t.Kind != KindMatrix || t.Role == "output" || (h.expertsOnly && t.Experts == 0) {
		return h.base
	}
	if len(h.ignore) == 0 {
		return h.q
	}
	module := t.HFModule()
	for _, re := range h.ignore {
		if re.MatchString(module) {
			return h.base
		}
	}
	return h.q
}

// Override returns the scheme of --weights-dtype name: GEMM weights in that
// format, embeddings, norms and routers in base. A llama.cpp file type
// ("q4_k_m") applies llama.cpp's own per-tensor rules instead.
func Override(name string, base Format, ts []Tensor) (Scheme, error) {
	f, ok := FormatNamed(name)
	if ft, gguf := ggufFileTypes[strings.ToLower(name)]; gguf && !isFloat(f) {
		return ggufScheme(ft, ts), nil
	}
	if !ok {
		return Scheme{}, fmt.Errorf("weights dtype %q is not known (want f32, f16, bf16, fp8, int4, int8, nvfp4, mxfp4 or a llama.cpp type such as q8_0, q6_k, q4_k_m)", name)
	}
	if isFloat(f) {
		u := Uniform(f)
		u.converted = true
		return u, nil
	}
	h := &hfQuant{base: base, q: f}
	return Scheme{Dtype: f.Name, pick: h.pick, converted: true}, nil
}

// readScheme reads torch_dtype and quantization_config.
func readScheme(f *fields) (Scheme, error) {
	name := f.str("torch_dtype")
	if name == "" {
		name = f.str("dtype")
	}
	base, ok := FormatNamed(name)
	if name == "" {
		base, ok = mustFormat("bf16"), true
	}
	if !ok {
		return Scheme{}, fmt.Errorf("config.json: torch_dtype: %q is not a known dtype", name)
	}
	q := f.sub("quantization_config")
	if q == nil {
		return Uniform(base), *f.err
	}
	return readQuant(q, base)
}

func readQuant(q *fields, base Format) (Scheme, error) {
	h := &hfQuant{base: base}
	method := q.str("quant_method")
	var err error
	switch method {
	case "fp8":
		h.q = readFP8(q)
	case "gptq", "awq":
		h.q = readIntQuant(q, method)
	case "compressed-tensors":
		h.q, err = readCompressed(q)
	case "mxfp4":
		h.q, h.expertsOnly = mustFormat("mxfp4"), true
	case "modelopt":
		h.q, err = readModelOpt(q)
	default:
		err = fmt.Errorf("config.json: quantization_config.quant_method: %q is not supported (want fp8, gptq, awq, compressed-tensors, mxfp4 or modelopt)", method)
	}
	if err == nil {
		h.ignore, err = readIgnore(q)
	}
	if err == nil {
		err = *q.err
	}
	return Scheme{Dtype: h.q.Name, pick: h.pick}, err
}

func readFP8(q *fields) Format {
	if b := q.ints("weight_block_size"); len(b) == 2 {
		return fp8Block(b[0], b[1])
	}
	return mustFormat("fp8")
}

func readIntQuant(q *fields, method string) Format {
	bits := q.int("bits", q.int("w_bit", 4))
	group := q.int("group_size", q.int("q_group_size", 128))
	if bits != 2 && bits != 3 && bits != 4 && bits != 8 {
		q.fail("bits", "%d is not 2, 3, 4 or 8", bits)
	}
	return intFormat(bits, group, true, method == "gptq")
}

// readModelOpt reads NVIDIA ModelOpt's quant_algo.
func readModelOpt(q *fields) (Format, error) {
	switch algo := strings.ToUpper(q.str("quant_algo")); algo {
	case "NVFP4":
		return mustFormat("nvfp4"), nil
	case "FP8":
		return mustFormat("fp8"), nil
	default:
		return Format{}, fmt.Errorf("config.json: quantization_config.quant_algo: %q is not supported (want NVFP4 or FP8)", algo)
	}
}

// readCompressed reads compressed-tensors: the first config group's weights.
func readCompressed(q *fields) (Format, error) {
	if strings.Contains(q.str("format"), "nvfp4") {
		return mustFormat("nvfp4"), nil
	}
	groups := q.sub("config_groups")
	if groups == nil {
		return Format{}, fmt.Errorf("config.json: quantization_config.config_groups: missing")
	}
	for key := range groups.m {
		if w := groups.sub(key); w != nil {
			if wf := w.sub("weights"); wf != nil {
				return compressedWeights(wf)
			}
		}
	}
	return Format{}, fmt.Errorf("config.json: quantization_config.config_groups: no group has weights")
}

func compressedWeights(w *fields) (Format, error) {
	bits, typ, group := w.int("num_bits", 0), w.str("type"), w.int("group_size", 0)
	switch {
	case typ == "float" && bits == 4:
		return mustFormat("nvfp4"), nil
	case typ == "float" && bits == 8:
		f := mustFormat("fp8")
		if w.str("strategy") == "channel" {
			f.perMatrix, f.perRow = 0, 4
		}
		return f, nil
	case typ == "int" && (bits == 4 || bits == 8):
		f := intFormat(bits, group, !w.bool("symmetric", true), false)
		f.perMatrix = 16 // weight_shape
		return f, nil
	}
	return Format{}, fmt.Errorf("config.json: quantization_config: %d-bit %q weights are not supported", bits, typ)
}

// readIgnore compiles modules_to_not_convert, ignore or exclude_modules.
// Like transformers, a plain name matches anywhere in a module's path and
// "*" matches one path element; "re:" introduces a regular expression.
func readIgnore(q *fields) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, key := range []string{"modules_to_not_convert", "ignore", "exclude_modules"} {
		for _, p := range q.strs(key) {
			re, err := ignorePattern(p)
			if err != nil {
				return nil, fmt.Errorf("config.json: quantization_config.%s: %w", key, err)
			}
			out = append(out, re)
		}
	}
	return out, nil
}

func ignorePattern(p string) (*regexp.Regexp, error) {
	if len(p) > 1024 {
		return nil, fmt.Errorf("pattern of %d bytes is too long", len(p))
	}
	if r, ok := strings.CutPrefix(p, "re:"); ok {
		return regexp.Compile(r)
	}
	return regexp.Compile(strings.ReplaceAll(regexp.QuoteMeta(p), `\*`, `[^.]*`))
}

// isFloat reports whether f is a plain 16- or 32-bit float format.
func isFloat(f Format) bool { return f.kind == fmtBlock && f.elems == 1 && f.bytes >= 2 }
