package planner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The llama.cpp validation: testdata/engines/llamacpp-h200 holds what
// llama.cpp b12072 allocated on an H200 (scripts/llamacpp/device-run.sh,
// docs/engine-results.md): one JSON line per model load and per context.

type probeBuffer struct {
	Buft                    string
	Host                    bool
	Model, Context, Compute int64
}

type probeLine struct {
	Model           string
	NGL             int
	Config          string
	Buffers         []probeBuffer
	UsedAfterDecode int64 `json:"used_after_decode"`
	DecodeRC        int   `json:"decode_rc"`
}

// probeCase is one context of the validation grid and what it allocated.
type probeCase struct {
	name, model string
	ngl         int
	cfg         string
	gpu         probeBuffer
	cpuKV       int64 // the CPU KV buffer: the KV of the layers -ngl leaves on the CPU
	used        Bytes
}

func readProbe(t *testing.T) []probeCase {
	t.Helper()
	f, err := os.Open("testdata/engines/llamacpp-h200/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []probeCase
	var model string
	var ngl int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l probeLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Config == "" {
			model, ngl = strings.TrimSuffix(l.Model[strings.LastIndex(l.Model, "/")+1:], ".gguf"), l.NGL
			continue
		}
		c := probeCase{name: fmt.Sprintf("%s-ngl%d/%s", model, ngl, l.Config), model: model, ngl: ngl, cfg: l.Config,
			used: Bytes(l.UsedAfterDecode)}
		for _, b := range l.Buffers {
			switch b.Buft {
			case "CUDA0":
				c.gpu = b
			case "CPU":
				c.cpuKV = b.Context
			}
		}
		out = append(out, c)
	}
	return out
}

func h200(t testing.TB) Calibration {
	data, err := os.ReadFile("../calibrations/h200-linux-cuda13.0.json")
	if err != nil {
		t.Fatal(err)
	}
	var c Calibration
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func engineModel(t testing.TB, dir, name string) Model {
	data, err := os.ReadFile("testdata/engines/" + dir + "/models/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseModel(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// probeInput is the input of one grid point: c,np,kvu,ctk,ctv,fa,ub,swafull.
func probeInput(t *testing.T, c *probeCase, cal Calibration) Input {
	var ctx, np, kvu, fa, ub, swaFull int
	var ctk, ctv string
	if _, err := fmt.Sscanf(strings.ReplaceAll(c.cfg, ",", " "), "%d %d %d %s %s %d %d %d", &ctx, &np, &kvu, &ctk, &ctv, &fa, &ub, &swaFull); err != nil {
		t.Fatalf("%s: %v", c.cfg, err)
	}
	in := Input{Model: engineModel(t, "llamacpp-h200", c.model), Calibration: cal,
		Limits:  Limits{MaxBatch: np, MaxSeqLen: ctx / np, MaxPrefillTokens: ub, KVDtype: KVDtype(ctk)},
		Serving: Serving{Engine: EngineLlamaCpp, LlamaCpp: LlamaCppOptions{Unified: kvu == 1, SWAFull: swaFull == 1, VDtype: KVDtype(ctv)}}}
	if fa == 0 {
		in.Serving.LlamaCpp.FlashAttn = FlashAttnOff
	}
	if c.ngl < in.Model.NumLayers()+1 {
		in.Serving.LlamaCpp.GPULayers = c.ngl
	}
	return in
}

func itemBytes(p *Plan, keys ...string) Bytes {
	var b Bytes
	for _, it := range p.Items {
		for _, k := range keys {
			if it.Key == k {
				b += it.Bytes
			}
		}
	}
	return b
}

// TestLlamaCppH200 holds the profile to llama.cpp's own figures: the model
// and KV buffers to the byte, the compute buffer within 5 %, and the
// process's device memory after the first decode within 2 % or 64 MiB.
func TestLlamaCppH200(t *testing.T) {
	cal := h200(t)
	cases := readProbe(t)
	if len(cases) < 50 {
		t.Fatalf("%d validation cases, want the whole grid", len(cases))
	}
	for _, c := range cases {
		p, err := PlanMemory(probeInput(t, &c, cal))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := itemBytes(&p, "weights"); int64(got) != c.gpu.Model {
			t.Errorf("%s: model buffer %d, llama.cpp %d", c.name, got, c.gpu.Model)
		}
		if got := itemBytes(&p, "kv", "kv_swa"); int64(got) != c.gpu.Context {
			t.Errorf("%s: KV buffer %d, llama.cpp %d", c.name, got, c.gpu.Context)
		}
		if got := itemBytes(&p, "compute_buffer"); !within(int64(got), c.gpu.Compute, 0.05, 0) {
			t.Errorf("%s: compute buffer %d, llama.cpp %d (%+.1f %%)", c.name, got, c.gpu.Compute, pct(int64(got), c.gpu.Compute))
		}
		t.Logf("| %s | %d | %d | %d / %d (%+.1f %%) | %d / %d MiB (%+d) |", c.name, c.gpu.Model, c.gpu.Context,
			itemBytes(&p, "compute_buffer"), c.gpu.Compute, pct(int64(itemBytes(&p, "compute_buffer")), c.gpu.Compute),
			p.Total.MiB(), c.used.MiB(), p.Total.MiB()-c.used.MiB())
		if !within(int64(p.Total), int64(c.used), 0.02, 64<<20) {
			t.Errorf("%s: total %s, the device's %s used", c.name, p.Total, c.used)
		}
	}
}

func within(got, want int64, frac float64, abs int64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= abs || float64(d) <= frac*float64(want)
}

func pct(got, want int64) float64 { return 100 * float64(got-want) / float64(want) }

// TestLlamaCppH200HostKV holds the KV of the layers -ngl leaves on the CPU
// to llama.cpp's CPU KV buffer, to the byte, at the grid's -ngl 20 point,
// and checks that a fully offloaded plan lists none.
func TestLlamaCppH200HostKV(t *testing.T) {
	cal := h200(t)
	partial := 0
	for _, c := range readProbe(t) {
		p, err := Report(probeInput(t, &c, cal))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got int64
		for _, it := range p.Engine.Host {
			if it.Key == "cpu_kv" {
				got = int64(it.Bytes)
			}
		}
		if got != c.cpuKV {
			t.Errorf("%s: the CPU KV buffer is %d B in the plan, %d B in llama.cpp's", c.name, got, c.cpuKV)
		}
		if c.cpuKV > 0 {
			partial++
		}
	}
	if partial == 0 {
		t.Error("no grid point leaves layers on the CPU")
	}
}

// TestLlamaPoolCopies pins the CUDA pool's rule without flash attention to
// the dense grid model's arithmetic (32 heads of 128): n_head × n_ubatch ×
// 2 B × (n_kv + head_dim) at the first decode's n_kv, 20 MiB at -ub 512 and
// 72 MiB at 1024 (the grid's measured step between them is 52 MiB), and
// nothing with flash attention; the pool's constant does not scale with -ub.
func TestLlamaPoolCopies(t *testing.T) {
	in := Input{Model: engineModel(t, "llamacpp-h200", "dense-llama3-8b"), Calibration: h200(t),
		Limits:  Limits{MaxBatch: 1, MaxSeqLen: 32768},
		Serving: Serving{Engine: EngineLlamaCpp, LlamaCpp: LlamaCppOptions{FlashAttn: FlashAttnOff}}}
	pool := map[int]Bytes{}
	for ub, want := range map[int]Bytes{512: 20 * MiB, 1024: 72 * MiB, 300: 32 * 300 * 2 * (512 + 128)} {
		in.Limits.MaxPrefillTokens = ub
		if got := LlamaCppPoolCopies(&in); got != want {
			t.Errorf("-ub %d: copies %d B, want %d", ub, got, want)
		}
		p, err := PlanMemory(in)
		if err != nil {
			t.Fatal(err)
		}
		pool[ub] = itemBytes(&p, "cuda_pool")
	}
	if d := pool[1024] - pool[512]; d != 52*MiB {
		t.Errorf("the pool grows by %d B from -ub 512 to 1024, want the copies' 52 MiB", d)
	}
	// A ubatch of 512 over all 32768 cells: 32 × 512 × 2 × (32768 + 128) B,
	// stated in a note, not charged.
	in.Limits.MaxPrefillTokens = 512
	p, err := Report(in)
	if err != nil {
		t.Fatal(err)
	}
	if note := strings.Join(p.Engine.Notes, "\n"); !strings.Contains(note, "needs 1028 MiB of f16 attention copies, 1008 MiB more") {
		t.Errorf("notes %q: want the pool's growth over a full cache", note)
	}
	in.Serving.LlamaCpp.FlashAttn = FlashAttnOn
	if got := LlamaCppPoolCopies(&in); got != 0 {
		t.Errorf("with flash attention: copies %d B, want 0", got)
	}
	if p, _ := Report(in); len(p.Engine.Notes) != 0 {
		t.Errorf("with flash attention: notes %q, want none", p.Engine.Notes)
	}
}
