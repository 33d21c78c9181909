package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const grid = "../../planner/testdata/engines/llamacpp-h200"

// startupLog writes one run of the H200 grid as llama-server prints it: the
// model's load, then the context.
func startupLog(t *testing.T, run, config string) string {
	t.Helper()
	var log []byte
	for _, f := range []string{"load.log", config + ".log"} {
		b, err := os.ReadFile(filepath.Join(grid, "logs", run, f))
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, b...)
	}
	path := filepath.Join(t.TempDir(), "llama-server.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestObservationLoop is the operator's loop with the CLI: a real llama.cpp
// start-up log becomes an observation file, which is uploaded to a server,
// listed there, and read by the refit beside the checked-in grid.
func TestObservationLoop(t *testing.T) {
	url := uploadServer(t)
	log := startupLog(t, "dense", "32768_1_0_f16_f16_0_512_0")
	obs := filepath.Join(t.TempDir(), "obs.json")
	shape := filepath.Join(grid, "models", "dense-llama3-8b.json")
	code, out, errs := runCLI("check", "--log", log, "--model", shape, "--gpu", "h200-linux-cuda13.0", "--observation", obs)
	if code != 2 || !strings.Contains(errs, "--engine-version") {
		t.Fatalf("check --observation without a release in the log = %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI("check", "--log", log, "--model", shape, "--gpu", "h200-linux-cuda13.0", "--observation", obs,
		"--engine-version", "b12072", "--day", "2026-11-30", "--device-used", "14,534 MiB")
	if code != 0 || !strings.Contains(out, "compute buffer") || !strings.Contains(errs, "wrote the observation") {
		t.Fatalf("check --observation = %d\n%s%s", code, out, errs)
	}
	doc, err := os.ReadFile(obs)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/tmp", ".gguf", "h16", "llama-server.log"} {
		if strings.Contains(string(doc), bad) {
			t.Errorf("the observation holds %q:\n%s", bad, doc)
		}
	}
	stdin = strings.NewReader("n\n")
	if code, out, _ := runCLI("observations", "upload", obs, "--to", url); code != 1 || !strings.Contains(out, "not sent") || !strings.Contains(out, `"n_ctx": 32768`) {
		t.Errorf("upload answered no = %d\n%s", code, out)
	}
	code, out, errs = runCLI("observations", "upload", obs, "--to", url, "--yes")
	if code != 0 || !strings.Contains(out, "accepted: observation") || !strings.Contains(out, "deletion token") {
		t.Fatalf("upload = %d\n%s%s", code, out, errs)
	}
	id := strings.Fields(out[strings.Index(out, "accepted: observation"):])[2]
	if code, out, _ := runCLI("observations", "upload", obs, "--to", url, "--yes"); code != 0 || !strings.Contains(out, "already uploaded: observation "+id) {
		t.Errorf("upload again = %d\n%s", code, out)
	}
	code, out, errs = runCLI("observations", "list", "--from", url)
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "-c 32768 -np 1 -ub 512 -ctk f16 -ctv f16 -fa off") {
		t.Errorf("list = %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI("observations", "list", "--from", url, "--json")
	var listed []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 || listed[0].ID != id {
		t.Errorf("list --json = exit %d, %+v (%v); want the one observation %s", code, listed, err, id)
	}
	code, out, errs = runCLI("engines", "refit", "--logs", grid, "--from", url)
	if code != 0 || !strings.Contains(out, "60 observations") {
		t.Fatalf("refit = %d\n%s%s", code, out, errs)
	}
	line := out[strings.Index(out, "upload "+id):]
	line = line[:strings.IndexByte(line, '\n')]
	if !strings.Contains(line, "E2 E3") || strings.Contains(line, "skipped") {
		t.Errorf("the uploaded observation's refit row: %q, want it read by E2 and E3", line)
	}
}

func TestObservationRefusedLocally(t *testing.T) {
	path := filepath.Join(t.TempDir(), "obs.json")
	os.WriteFile(path, []byte(`{"schema":"vramplan.observation/v1","hostname":"gpu-7"}`), 0o644)
	code, _, errs := runCLI("observations", "upload", path, "--to", "http://127.0.0.1:1", "--yes")
	if code != 2 || !strings.Contains(errs, "would refuse") || !strings.Contains(errs, "hostname") {
		t.Errorf("upload of a bad file = %d %s", code, errs)
	}
	if code, _, errs := runCLI("engines", "refit"); code != 2 || !strings.Contains(errs, "--logs") {
		t.Errorf("refit with nothing to read = %d %s", code, errs)
	}
}

// TestObservationSettings holds check --observation to the settings its
// plan was made under: the four tensor-parallel ranks a vLLM log's lines
// name and the request length the flags gave, which it does not state,
// are in the document, so that the refit plans the run as the check did,
// on four GPUs.
func TestObservationSettings(t *testing.T) {
	log := "../../planner/enginelog/testdata/logs/vllm-v1-0.21-tp4-rtx3090.log"
	obs := filepath.Join(t.TempDir(), "obs.json")
	code, out, errs := runCLI("check", "--log", log, "--model", "llama-3.1-8b-instruct-bf16", "--gpu", "RTX 3090", "--engine-version", "0.21.0",
		"--max-seq-len", "4096", "--observation", obs)
	if code != 0 {
		t.Fatalf("check --observation = %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(obs)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Settings struct {
			TensorParallel int `json:"tensor_parallel"`
			MaxLen         int `json:"max_len"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "vramplan.observation/v2" || doc.Settings.TensorParallel != 4 || doc.Settings.MaxLen != 4096 {
		t.Errorf("the observation is %q with TP %d and length %d; want v2 with the log's 4 and the given 4096:\n%s", doc.Schema, doc.Settings.TensorParallel, doc.Settings.MaxLen, data)
	}
}
