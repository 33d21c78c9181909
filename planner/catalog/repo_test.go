package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

func TestLookupRepo(t *testing.T) {
	tests := []struct {
		r    Repo
		want string
	}{
		{Repo{Name: "Qwen/Qwen3-8B-GGUF:Q4_K_M"}, "qwen3-8b-q4_k_m"},
		{Repo{Name: "Qwen/Qwen3-8B-GGUF:q6_k", GGUF: true}, "qwen3-8b-q6_k"},
		{Repo{Name: "Qwen/Qwen3-8B-GGUF", GGUF: true}, "qwen3-8b-q4_k_m"}, // llama.cpp's default quant
		{Repo{Name: "bartowski/Qwen_Qwen3-8B-GGUF:Q8_0", GGUF: true}, "qwen3-8b-q8_0"},
		{Repo{Name: "unsloth/Qwen3-8B-GGUF", File: "Qwen3-8B-Q6_K.gguf", GGUF: true}, "qwen3-8b-q6_k"},
		{Repo{Name: "bartowski/Qwen_Qwen3-8B-GGUF:Q4_K_M", File: "Qwen_Qwen3-8B-Q8_0.gguf", GGUF: true}, "qwen3-8b-q8_0"},
		{Repo{Name: "unsloth/Qwen3-235B-A22B-GGUF", File: "Q4_K_M/Qwen3-235B-A22B-Q4_K_M-00001-of-00003.gguf", GGUF: true}, "qwen3-235b-a22b-q4_k_m"},
		{Repo{Name: "Qwen/Qwen3-8B", GGUF: true}, "qwen3-8b-q4_k_m"},
		{Repo{Name: "meta-llama/Llama-3.3-70B-Instruct"}, "llama-3.3-70b-instruct-bf16"},
		{Repo{Name: "meta-llama/Llama-3.3-70B-Instruct", Dtype: "fp8"}, "llama-3.3-70b-instruct-fp8"},
		{Repo{Name: "META-LLAMA/llama-3.3-70b-instruct"}, "llama-3.3-70b-instruct-bf16"},
		{Repo{Name: "Qwen/Qwen3-4B-Instruct-2507-FP8"}, "qwen3-4b-instruct-2507-fp8"},
		{Repo{Name: "openai/gpt-oss-20b"}, "gpt-oss-20b-mxfp4"},
		{Repo{Name: "meta-llama/Meta-Llama-3.1-8B-Instruct"}, "llama-3.1-8b-instruct-bf16"}, // renamed
	}
	for _, tt := range tests {
		m, err := LookupRepo(tt.r)
		if err != nil || m.ID != tt.want {
			t.Errorf("LookupRepo(%+v) = %q, %v; want %q", tt.r, m.ID, err, tt.want)
		}
	}
}

// TestRenamed checks that every rename leads from an id no catalog entry
// has to one an entry has, so that a rename can neither hide an entry nor
// lead nowhere.
func TestRenamed(t *testing.T) {
	repos := map[string]bool{}
	for i := range models {
		if repo, ok := planner.CatalogRepo(&models[i]); ok {
			repos[strings.ToLower(repo)] = true
		}
	}
	for from, to := range renamed {
		if from != strings.ToLower(from) || repos[from] || !repos[strings.ToLower(to)] {
			t.Errorf("renamed[%q] = %q: want a lowercase former id of no entry, and the id of one", from, to)
		}
	}
}

func TestLookupRepoMissing(t *testing.T) {
	tests := []struct {
		r        Repo
		held     bool
		contains string
	}{
		{Repo{Name: "Qwen/Qwen3-8B-GGUF:Q5_K_M"}, true, "the catalog has this model as qwen3-8b-bf16, qwen3-8b-q4_k_m, qwen3-8b-q6_k, qwen3-8b-q8_0"},
		{Repo{Name: "Qwen/Qwen3-9B"}, false, "nearest: qwen3-8b-bf16, qwen3-8b-q4_k_m"},
		{Repo{Name: "bartowski/Qwen_Qwen3-9B-GGUF:Q4_K_M"}, false, "nearest: qwen3-8b-"},
		{Repo{Name: "TheDrummer/Cydonia-24B-v4-GGUF:Q4_K_M"}, false, "nearest: "},
		{Repo{Name: "meta-llama/Llama-3.2-3B-Instruct"}, true, "llama-3.2-3b-instruct-q4_k_m"}, // GGUF only: not for vLLM
		{Repo{Name: "./models/x"}, false, "must be a local file"},
	}
	for _, tt := range tests {
		_, err := LookupRepo(tt.r)
		var re *RepoError
		if !errors.As(err, &re) || re.Held != tt.held || !strings.Contains(err.Error(), tt.contains) ||
			!strings.Contains(err.Error(), "must be a local file (a .gguf, a config.json or a model directory) or a catalog id") {
			t.Errorf("LookupRepo(%+v) = %v (held %v); want a *RepoError, held %v, containing %q", tt.r, err, re != nil && re.Held, tt.held, tt.contains)
		}
	}
}

func TestIsRepo(t *testing.T) {
	for name, want := range map[string]bool{
		"Qwen/Qwen3-8B": true, "Qwen/Qwen3-8B-GGUF:Q4_K_M": true, "meta-llama/Llama-3.3-70B-Instruct": true,
		"qwen3-8b-q8_0": false, "./Qwen3-8B": false, "/models/Qwen3-8B": false, "models/a/b": false,
		"dir/model.gguf": false, "dir/config.json": false, "~/models": false, `a\b`: false, "../x": false, "a/": false,
	} {
		if got := IsRepo(name); got != want {
			t.Errorf("IsRepo(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzLookupRepo holds LookupRepo to an answer or a *RepoError for any
// reference, never a panic.
func FuzzLookupRepo(f *testing.F) {
	f.Add("Qwen/Qwen3-8B-GGUF:Q4_K_M", "Qwen3-8B-Q4_K_M-00001-of-00002.gguf", true)
	f.Add("meta-llama/Llama-3.3-70B-Instruct", "", false)
	f.Add("a/-gguf:", "-00001-of-00003.gguf", false)
	f.Fuzz(func(t *testing.T, name, file string, gguf bool) {
		m, err := LookupRepo(Repo{Name: name, File: file, GGUF: gguf})
		var re *RepoError
		if err != nil && !errors.As(err, &re) {
			t.Fatalf("LookupRepo(%q, %q) = %v, not a *RepoError", name, file, err)
		}
		if err == nil && m.ID == "" {
			t.Fatalf("LookupRepo(%q, %q) = a model with no id", name, file)
		}
	})
}
