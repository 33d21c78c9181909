package catalog

// This file resolves a model named by its Hugging Face repository, as an
// engine's command line names one (vllm serve meta-llama/Llama-3.3-70B-Instruct,
// llama-server -hf Qwen/Qwen3-8B-GGUF:Q4_K_M), to the catalog model of that
// repository. vramplan downloads nothing, so a repository the catalog does
// not hold is an error that says so and lists the nearest ids. Each
// entry's repository is written once, in its Source (planner.CatalogRepo),
// from spec.json's config.

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// Repo is a model named by its Hugging Face repository.
type Repo struct {
	// Name is the repository id, "meta-llama/Llama-3.3-70B-Instruct", or
	// for a GGUF repository llama-server's -hf form "<user>/<model>[:quant]"
	// ("Qwen/Qwen3-8B-GGUF:Q4_K_M", "bartowski/Qwen_Qwen3-8B-GGUF").
	Name string
	// File is llama-server's --hf-file, a file of the repository; it
	// overrides Name's quant.
	File string
	// GGUF is set when the engine loads GGUF files (llama.cpp): Name is a
	// GGUF repository converted from the one the catalog names. A name
	// ending in -GGUF is one whatever the engine.
	GGUF bool
	// Dtype is the weights format the command asks of a checkpoint
	// (vLLM's --quantization fp8); "" for the weights as published.
	Dtype string
}

// DefaultQuant is the file type llama-server's -hf loads when the
// reference names none (common/arg.cpp, --hf-repo's help: "quant is
// optional, case-insensitive, default to Q4_K_M").
const DefaultQuant = "Q4_K_M"

// IsRepo reports whether name has the form of a Hugging Face repository
// id, "<user>/<model>" with an optional ":quant", rather than of a path:
// one slash between two names, neither "." nor "..", and no .gguf or
// .json extension.
func IsRepo(name string) bool {
	user, model, ok := strings.Cut(name, "/")
	model, _, _ = strings.Cut(model, ":")
	l := strings.ToLower(model)
	return ok && user != "" && model != "" && !strings.ContainsAny(name, "\\ \t") && !strings.Contains(model, "/") &&
		user != "." && user != ".." && user[0] != '~' && model != "." && model != ".." &&
		!strings.HasSuffix(l, ".gguf") && !strings.HasSuffix(l, ".json")
}

// LookupRepo returns the catalog model r names. A GGUF repository's model
// is the entry whose GGUF file (planner.GGUFFile) is r.File, or else the
// repository's model name (less "-GGUF", and less a publisher's "<org>_"
// prefix, bartowski's) with the quant, DefaultQuant when Name has none:
// Qwen/Qwen3-8B-GGUF:Q6_K is Qwen3-8B-Q6_K.gguf, qwen3-8b-q6_k. A
// checkpoint's is the entry generated from that repository's config.json
// (under its current id when it was renamed: Renamed), in r.Dtype when the
// catalog has it, else as published. Otherwise the
// error, a *RepoError, lists the catalog's entries of that repository or
// the nearest ids.
func LookupRepo(r Repo) (planner.Model, error) {
	gguf := r.GGUF || isGGUFRepo(r.Name)
	if !IsRepo(r.Name) {
		return planner.Model{}, &RepoError{Repo: r.Name, Near: names.Closest(strings.ToLower(r.Name), IDs(), names.MaxNear)}
	}
	var i int
	var near []string
	if gguf {
		i, near = lookupGGUF(r)
	} else {
		i, near = lookupCheckpoint(r)
	}
	if i < 0 {
		e := &RepoError{Repo: r.Name, File: r.File, Near: near, Held: len(near) > 0}
		if !e.Held {
			e.Near = nearestIDs(modelName(r, gguf))
		}
		return planner.Model{}, e
	}
	m := models[i]
	m.Variants = variants()[i]
	return m, nil
}

// RepoError reports a Hugging Face repository, or a file of one, that the
// catalog holds no model of.
type RepoError struct {
	Repo, File string
	// Near lists the catalog's entries of the repository's model, when
	// Held, else the ids nearest to its name.
	Near []string
	Held bool
}

func (e *RepoError) Error() string {
	what := "Hugging Face repository " + quote(e.Repo)
	if e.File != "" {
		what += " file " + quote(e.File)
	}
	msg := what + " is not in vramplan's catalog, and vramplan downloads nothing: " +
		"the model must be a local file (a .gguf, a config.json or a model directory) or a catalog id"
	switch {
	case e.Held:
		return msg + "; the catalog has this model as " + strings.Join(e.Near, ", ")
	case len(e.Near) > 0:
		return msg + "; nearest: " + strings.Join(e.Near, ", ")
	}
	return msg
}

// lookupGGUF returns the index of r's GGUF entry, or -1 and the entries of
// the same model in other file types.
func lookupGGUF(r Repo) (int, []string) {
	want, base := ggufWanted(r)
	var same []string
	for i := range models {
		m := &models[i]
		repo, ok := planner.CatalogRepo(m)
		if !ok {
			continue
		}
		org, name, _ := strings.Cut(repo, "/")
		if file := planner.GGUFFile(m); strings.EqualFold(want, file) || strings.EqualFold(want, org+"_"+file) {
			return i, nil
		}
		if strings.EqualFold(base, name) || strings.EqualFold(base, org+"_"+name) {
			same = append(same, m.ID)
		}
	}
	return -1, same
}

// ggufWanted returns the file r asks for and its repository's model name:
// r.File's base name, its split suffix (-00001-of-00003) dropped, or the
// model name with the quant.
func ggufWanted(r Repo) (file, base string) {
	ref, quant, _ := strings.Cut(r.Name, ":")
	base = ref[strings.IndexByte(ref, '/')+1:]
	if n := len(base) - len("-gguf"); n > 0 && strings.EqualFold(base[n:], "-gguf") {
		base = base[:n]
	}
	if r.File != "" {
		f := r.File[strings.LastIndexAny(r.File, `/\`)+1:]
		return dropSplit(f), base
	}
	if quant == "" {
		quant = DefaultQuant
	}
	return base + "-" + quant + ".gguf", base
}

// dropSplit removes llama.cpp's split suffix from a GGUF file name:
// Qwen3-235B-A22B-Q4_K_M-00001-of-00003.gguf is Qwen3-235B-A22B-Q4_K_M.gguf.
func dropSplit(f string) string {
	const n = len("-00001-of-00003.gguf")
	if len(f) > n && strings.EqualFold(f[len(f)-5:], ".gguf") {
		s := f[len(f)-n : len(f)-5]
		if s[0] == '-' && s[6:10] == "-of-" && digits(s[1:6]) && digits(s[10:]) {
			return f[:len(f)-n] + f[len(f)-5:]
		}
	}
	return f
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// lookupCheckpoint returns the index of r's checkpoint entry, or -1 and the
// catalog's entries of that repository (GGUF files, which an engine that
// loads checkpoints does not load).
func lookupCheckpoint(r Repo) (int, []string) {
	best, rank := -1, 0
	var same []string
	name := Renamed(r.Name)
	for i := range models {
		m := &models[i]
		if repo, ok := planner.CatalogRepo(m); !ok || !strings.EqualFold(repo, name) {
			continue
		}
		same = append(same, m.ID)
		if k := checkpointRank(m, r.Dtype); k > rank {
			best, rank = i, k
		}
	}
	return best, same
}

// checkpointRank orders a repository's entries for an engine that loads
// checkpoints: the dtype asked, then the weights as published, then other
// checkpoint formats; 0 for a GGUF file type, which it cannot load.
func checkpointRank(m *planner.Model, dtype string) int {
	switch {
	case dtype != "" && strings.HasPrefix(strings.ToLower(m.Weights.Dtype), strings.ToLower(dtype)):
		return 3
	case isGGUF(m):
		return 0
	case !strings.Contains(m.Name, " "): // the catalog names a format after the repository
		return 2
	}
	return 1
}

// isGGUF reports whether catalog model m is a llama.cpp file type
// (q8_0, q6_k, q4_k_m: the formats named q…).
func isGGUF(m *planner.Model) bool {
	_, t, ok := strings.Cut(m.Name, " ")
	return ok && (t[0] == 'Q' || t[0] == 'q')
}

func isGGUFRepo(name string) bool {
	ref, _, _ := strings.Cut(name, ":")
	return len(ref) > 5 && strings.EqualFold(ref[len(ref)-5:], "-gguf")
}

// modelName is the name of the model r names, as the catalog's
// repositories name theirs: Qwen3-8B for Qwen/Qwen3-8B, for
// Qwen/Qwen3-8B-GGUF:Q6_K and for bartowski/Qwen_Qwen3-8B-GGUF.
func modelName(r Repo, gguf bool) string {
	if !gguf {
		return r.Name[strings.IndexByte(r.Name, '/')+1:]
	}
	_, base := ggufWanted(r)
	if _, after, ok := strings.Cut(base, "_"); ok {
		return after
	}
	return base
}

// nearestIDs lists the entries of the catalog's repositories whose model
// names are nearest to name (names.Closest), nearest first, up to
// names.MaxNear.
func nearestIDs(name string) []string {
	var repos []string
	byName := map[string][]string{}
	for i := range models {
		repo, _ := planner.CatalogRepo(&models[i])
		n := strings.ToLower(repo[strings.IndexByte(repo, '/')+1:])
		if byName[n] == nil {
			repos = append(repos, n)
		}
		byName[n] = append(byName[n], models[i].ID)
	}
	var out []string
	for _, n := range names.Closest(name, repos, names.MaxNear) {
		out = append(out, byName[n]...)
	}
	return out[:min(len(out), names.MaxNear)]
}

// quote quotes a name for a message, as names does.
func quote(s string) string { return `"` + s + `"` }
