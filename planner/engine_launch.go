package planner

import (
	"strconv"
	"strings"
)

// This file holds what the engines' launch commands share.

// modelArg is the model as in's engine's command line names it: a catalog
// model's Hugging Face repository for an engine that loads checkpoints,
// its GGUF file (GGUFFile) for one that loads GGUF files; else the file it
// was read from, or its id.
func modelArg(in *Input) string {
	m := &in.Model
	if repo, ok := CatalogRepo(m); ok {
		if loads(in) == ModelHF {
			return repo
		}
		return GGUFFile(m)
	}
	for _, s := range []string{m.Source, m.ID} {
		if s != "" && !strings.ContainsAny(s, " \t'\"") {
			return s
		}
	}
	if m.ID != "" {
		return strconv.Quote(m.ID)
	}
	return "MODEL"
}

// CatalogRepo returns the Hugging Face repository catalog model m was
// generated from ("Qwen/Qwen3-8B"), and whether m is a catalog model. The
// catalog writes it once, in m.Source, from its spec.json.
func CatalogRepo(m *Model) (string, bool) {
	r, ok := strings.CutPrefix(m.Source, "generated from ")
	if !ok {
		return "", false
	}
	repo, _, ok := strings.Cut(r, " ")
	return repo, ok && strings.Contains(repo, "/")
}

// GGUFFile returns the GGUF file of catalog model m as its publishers and
// llama.cpp's converter name it, the repository's name and the file type:
// Qwen3-8B-Q8_0.gguf for Qwen3-8B Q8_0, Qwen3-8B-BF16.gguf for the
// checkpoint as published in BF16. It is "" for a model not from the
// catalog.
func GGUFFile(m *Model) string {
	repo, ok := CatalogRepo(m)
	if !ok {
		return ""
	}
	typ := upper(m.Weights.Dtype)
	if _, t, ok := strings.Cut(m.Name, " "); ok { // the catalog names a file type after the repository
		typ = t
	}
	return repo[strings.LastIndexByte(repo, '/')+1:] + "-" + typ + ".gguf"
}

// upper is s with its ASCII letters in upper case (a dtype's name).
func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// poolLayoutLaunch adds a layout's sizes to a pool engine's launch command
// e by its flags for tensor, pipeline and data parallelism (each followed
// by the size) and for expert parallelism: followed by the size when it
// ends in a space, else a switch.
func poolLayoutLaunch(e *EngineReport, p *Parallel, tp, pp, dp, ep string) {
	e.Launch += flagIf(tp, p.tp()) + flagIf(pp, p.pp()) + flagIf(dp, p.dp())
	if strings.HasSuffix(ep, " ") {
		e.Launch += flagIf(ep, p.ep())
	} else if p.ep() > 1 {
		e.Launch += ep
	}
	if p.NoCustomAllReduce {
		e.Launch += " --disable-custom-all-reduce" // vLLM's and SGLang's name
	}
}

// mmprojFile is the vision projector file llama.cpp loads for in's tower:
// the file it was read from, or a catalog model's F16 projector as
// llama.cpp's converter names it (mmproj-gemma-3-4b-it-F16.gguf); "" when
// neither is known.
func mmprojFile(in *Input) string {
	v := in.Model.Vision
	switch repo, ok := CatalogRepo(&in.Model); {
	case v == nil:
		return ""
	case v.File != "":
		return v.File
	case ok:
		return "mmproj-" + repo[strings.LastIndexByte(repo, '/')+1:] + "-F16.gguf"
	}
	return ""
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+:=,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// convertFlag is the flag that has vLLM or SGLang convert a checkpoint's
// weights to format f as it loads them (--quantization fp8, --dtype
// float16), "" for weights planned as stored.
func convertFlag(f string) string {
	switch f {
	case "fp8":
		return " --quantization fp8"
	case "int4":
		return " --quantization awq"
	case "nvfp4":
		return " --quantization modelopt_fp4"
	case "mxfp4":
		return " --quantization mxfp4"
	case "bf16":
		return " --dtype bfloat16"
	case "f16":
		return " --dtype float16"
	case "f32":
		return " --dtype float32"
	}
	return ""
}

// loads is the form in which in's engine loads its model.
func loads(in *Input) ModelFormat {
	if p := profileFor(in); p != nil {
		return p.Loads
	}
	return seedProfile.Loads
}

func flagIf(name string, v int) string {
	if v <= 1 {
		return ""
	}
	return name + strconv.Itoa(v)
}
