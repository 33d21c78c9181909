package hf

// This file reads a model directory: config.json for the geometry, and the
// safetensors headers, when present, for exact bytes.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

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
	ts, err := readShards(dir, files)
	if err != nil {
		return m, err
	}
	ApplyTensors(&m, ts)
	return m, nil
}

// readShards reads the shards' headers, a few at a time.
func readShards(dir string, files []string) ([]Tensor, error) {
	got := make([][]Tensor, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			got[i], errs[i] = readShard(filepath.Join(dir, f))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(got...), nil
}

func readFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is more than %d", path, st.Size(), limit)
	}
	return os.ReadFile(path)
}

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

func readShard(path string) ([]Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	ts, err := ReadSafetensors(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

// ApplyTensors replaces m's weight and vision bytes with the sums over ts,
// the tensors of its safetensors files, and marks them exact. Parameters per
// class stay the config's; tensors of multi-token-prediction layers beyond
// the model's layers, which inference engines do not load, are left out.
func ApplyTensors(m *planner.Model, ts []Tensor) {
	bytes := map[string]planner.Bytes{}
	n := m.NumLayers()
	for i := range ts {
		if c := classOf(ts[i].Name, n); c != "" {
			bytes[c] += planner.Bytes(ts[i].Bytes)
		}
	}
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
	case has("vision_tower", "multi_modal_projector", "vision_model") || strings.HasPrefix(name, "visual."):
		return "vision"
	case strings.HasPrefix(name, "mtp.") || layerIndex(name) >= layers:
		return ""
	case has("embed_tokens"):
		return "embedding"
	case has("lm_head"):
		return "output"
	case has("norm"):
		return "norm"
	case has(".experts", "router", "mlp.gate.", "block_sparse_moe.gate.", "shared_expert_gate"):
		return "experts"
	case has("self_attn", "linear_attn", "mixer", "attention"):
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
