package hf

// This file reads a model directory: config.json for the geometry, and the
// safetensors headers, when present, for exact bytes.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/vramplan/vramplan/internal/osfile"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// LoadDir reads a Hugging Face model directory: its config.json and, when
// the directory holds them and opts does not override the weights dtype,
// the safetensors headers (model.safetensors.index.json and its shards, or
// every *.safetensors file), whose tensors give the exact weight bytes.
func LoadDir(dir string, opts Options) (planner.Model, error) {
	cfg, err := readFile(filepath.Join(dir, "config.json"), arch.MaxConfig)
	if err != nil {
		return planner.Model{}, err
	}
	m, err := ParseConfig(cfg, opts)
	if err != nil {
		return m, err
	}
	m.ID, m.Source = filepath.Base(filepath.Clean(dir)), dir
	if opts.WeightsDtype != "" {
		return m, nil
	}
	files, err := shardFiles(dir)
	if err != nil || len(files) == 0 {
		return m, err
	}
	sums, err := readShards(dir, files, newBudget(maxInFlight), m.NumLayers())
	if err != nil {
		return m, err
	}
	applyClasses(&m, sums)
	return m, nil
}

// maxInFlight bounds the bytes that reading and parsing shard headers hold
// at once, across a directory's shards: a header and the tensors parsed
// from it cost up to parseCost times its length (parseCost), so 200 MB
// reads the largest headers one at a time and MoE shards of a few MB by
// the dozen, however many cores there are (32 sparse shards of 100 MB
// headers once peaked at 626 MB on 2 cores and 3.3 GB with GOMAXPROCS=32;
// 32 valid 95 MB headers at 1.09 GB, #31, and 6.9 GB with 860,169
// one-element tensors each, before each shard was reduced to its classes'
// bytes as it was read).
const maxInFlight = 2 * MaxHeader

// parseCost is the bytes a header holds while it is read and parsed, per
// byte of it: the header itself and its tensors (a 95 MB header of
// one-element tensors, the densest, allocated 232 MB: 2.45 times).
const parseCost = 3

// readShards reads the shards' headers, a few at a time and within budget,
// and returns their tensors' bytes by class for a model of layers layers;
// a shard's tensors are summed as it is read and not kept. When shards
// fail it reports the first, in the directory's order, and how many others
// did: one line.
func readShards(dir string, files []string, budget *budget, layers int) (classBytes, error) {
	got := make([]classBytes, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			got[i], errs[i] = readShard(filepath.Join(dir, f), budget, layers)
		})
	}
	wg.Wait()
	if err := firstOf(errs); err != nil {
		return nil, err
	}
	sums := classBytes{}
	for _, g := range got {
		for c, b := range g {
			sums[c] += b
		}
	}
	return sums, nil
}

// firstOf returns the first non-nil error of errs, saying how many more
// there are.
func firstOf(errs []error) error {
	var first error
	more := 0
	for _, err := range errs {
		switch {
		case err == nil:
		case first == nil:
			first = err
		default:
			more++
		}
	}
	if more > 0 {
		return fmt.Errorf("%w (and %d more shards like it)", first, more)
	}
	return first
}

// budget is a count of bytes that readers take before they read and give
// back after. It is safe for concurrent use.
type budget struct {
	mu         sync.Mutex
	cond       sync.Cond
	total      int64
	left       int64
	most, runs int64 // the most taken at once, and how many takes: for tests
}

func newBudget(n int64) *budget {
	b := &budget{total: n, left: n}
	b.cond.L = &b.mu
	return b
}

// take waits until n bytes are free and takes them; n past the budget's
// total takes all of it. It returns what it took, for give.
func (b *budget) take(n int64) int64 {
	n = min(n, b.total)
	b.mu.Lock()
	for b.left < n {
		b.cond.Wait()
	}
	b.left -= n
	b.most, b.runs = max(b.most, b.total-b.left), b.runs+1
	b.mu.Unlock()
	return n
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

func readFile(path string, limit int64) ([]byte, error) { return osfile.ReadFile(path, limit) }

func shardFiles(dir string) ([]string, error) {
	idx, err := readFile(filepath.Join(dir, "model.safetensors.index.json"), 64<<20)
	if err == nil {
		return ReadIndex(idx)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	for i := range matches {
		matches[i] = filepath.Base(matches[i])
	}
	return matches, err
}

// readShard reads one shard's header, holding what it costs to parse
// (parseCost) in the budget until its tensors are summed by class.
func readShard(path string, b *budget, layers int) (classBytes, error) {
	f, size, err := osfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer b.give(b.take(parseCost * headerLength(f, size)))
	ts, err := ReadSafetensors(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sumClasses(ts, layers), nil
}

// classBytes are tensors' bytes by weight class (classOf).
type classBytes map[string]planner.Bytes

// sumClasses sums ts by class, for a model of layers layers.
func sumClasses(ts []Tensor, layers int) classBytes {
	bytes := classBytes{}
	for i := range ts {
		if c := classOf(ts[i].Name, layers); c != "" {
			bytes[c] += planner.Bytes(ts[i].Bytes)
		}
	}
	return bytes
}

// ApplyTensors replaces m's weight and vision bytes with the sums over ts,
// the tensors of its safetensors files, and marks them exact. Parameters per
// class stay the config's; tensors of multi-token-prediction layers beyond
// the model's layers, which inference engines do not load, are left out.
func ApplyTensors(m *planner.Model, ts []Tensor) { applyClasses(m, sumClasses(ts, m.NumLayers())) }

// applyClasses replaces m's weight and vision bytes with bytes, by class.
func applyClasses(m *planner.Model, bytes classBytes) {
	var total planner.Bytes
	classes := map[string]bool{}
	for i := range m.Weights.Classes {
		c := &m.Weights.Classes[i]
		c.Bytes, classes[c.Class] = bytes[c.Class], true
	}
	for _, c := range arch.Classes {
		total += bytes[c]
		if !classes[c] && bytes[c] > 0 {
			m.Weights.Classes = append(m.Weights.Classes, planner.WeightClass{Class: c, Bytes: bytes[c]})
		}
	}
	m.Weights.Bytes, m.Weights.Source = total, planner.SourceExact
	if bytes["vision"] > 0 {
		if m.Vision == nil {
			m.Vision = &planner.Vision{}
		}
		m.Vision.Bytes, m.Vision.Source = bytes["vision"], planner.SourceExact
	}
}

// classOf is the weight class of a Hugging Face tensor name, "vision" for
// the vision tower and "" for a layer the engine does not load.
func classOf(name string, layers int) string {
	if strings.Contains(name, ".experts.") && strings.HasPrefix(name, "model.layers.") {
		if layerIndex(name) >= layers {
			return ""
		}
		return "experts"
	}
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(name, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("vision_tower", "multi_modal_projector", "vision_model", ".visual.") || strings.HasPrefix(name, "visual."):
		return "vision"
	case strings.HasPrefix(name, "mtp.") || layerIndex(name) >= layers:
		return ""
	case has("embed_tokens"):
		return "embedding"
	case has("lm_head"):
		return "output"
	case has("norm"):
		return "norm"
	case has(".experts", "router", "mlp.gate.", "block_sparse_moe.", "shared_expert_gate"):
		return "experts"
	case has("self_attn", "linear_attn", "mixer", "attention", "cross_attn", "mamba.", ".conv."):
		return "attention"
	case has("mlp", "feed_forward"):
		return "ffn"
	}
	return "other"
}

// layerIndex returns the block index in a ".layers.N." name, or −1.
func layerIndex(name string) int {
	_, rest, ok := strings.Cut(name, "layers.")
	if !ok {
		return -1
	}
	num, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if err != nil {
		return -1
	}
	return n
}
