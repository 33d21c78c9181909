package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFresh holds the committed dispatch to what the registry generates:
// a registry line added without go generate ./planner fails here.
func TestFresh(t *testing.T) {
	files, err := Generate(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("Generate wrote %d files, want the planner's, cmdline's and enginelog's three", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("planner/%s is stale (%v): run go generate ./planner", name, err)
		}
	}
}

// TestRefusals: a registry entry the generator cannot read is an error,
// not a dispatch that leaves the engine out.
func TestRefusals(t *testing.T) {
	for name, src := range map[string]string{
		"no registry":    "package planner\n\ntype rules interface{ budget() int }\n",
		"bad entry":      "package planner\n\nvar registry = [...]*Profile{&x}\n\ntype rules interface{ budget() int }\n",
		"no options":     "package planner\n\nvar registry = [...]*Profile{&xProfile}\n\nvar xProfile = Profile{Name: X}\n\ntype rules interface{ budget() int }\n",
		"no name":        "package planner\n\nvar registry = [...]*Profile{&xProfile}\n\nvar xProfile = Profile{}\n\ntype XOptions struct{}\n\ntype rules interface{ budget() int }\n",
		"no rules":       "package planner\n\nvar registry = [...]*Profile{&xProfile}\n\nvar xProfile = Profile{Name: X}\n\ntype XOptions struct{}\n",
		"prof parameter": "package planner\n\nvar registry = [...]*Profile{&xProfile}\n\nvar xProfile = Profile{Name: X}\n\ntype XOptions struct{}\n\ntype rules interface{ budget(prof int) int }\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(dir); err == nil {
			t.Errorf("%s: Generate succeeded", name)
		}
	}
	dir := t.TempDir()
	src := "package planner\n\nvar registry = [...]*Profile{&xProfile}\n\nvar xProfile = Profile{Name: EngineX}\n\ntype XOptions struct{}\n\ntype rules interface{ budget(in *Input) Bytes }\n"
	os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644)
	files, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`json:\"x,omitzero\"`", "case EngineX:", "return x{}.budget(in)", "panic(prof.unregistered())"} {
		if !strings.Contains(string(files[dispatchFile]), want) {
			t.Errorf("the dispatch of one engine x lacks %q:\n%s", want, files[dispatchFile])
		}
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"LlamaCpp": "llama_cpp", "VLLM": "vllm", "SGLang": "sglang", "TensorRTLLM": "tensor_rtllm"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
