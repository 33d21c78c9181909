//go:build js && wasm

package main

// This file turns the File objects a page passes into the readers' inputs:
// GGUF parts in split order, the mmproj tower, a config.json's bytes and
// the safetensors shards an index names. Every read goes through
// gguf.Blob, one Blob slice per read-ahead block.

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/gguf"
	"github.com/vramplan/vramplan/planner/hf"
)

// readAhead is the GGUF read-ahead block. A browser answers each Blob read
// after a fixed delay of tens of milliseconds plus the copy, so fewer,
// larger reads win: an 8B model's 7.4 MB header is one 8 MiB read (4 MiB
// blocks, and reading the next block concurrently, were slower;
// docs/benchmarks.md).
var readAhead = gguf.Options{BlockSize: 8 << 20}

// maxConfig bounds a config.json or an index file read whole, in bytes.
const maxConfig = 64 << 20

var splitName = regexp.MustCompile(`(?i)-(\d{5})-of-(\d{5})\.gguf$`)

// readGGUF(files, mmproj?) reads a GGUF model: one file, or every split of
// one, in any order, and optionally its vision projector.
func readGGUF(args []js.Value) (planner.Model, error) {
	files, err := fileArg(args, 0, "GGUF files")
	if err != nil {
		return planner.Model{}, err
	}
	if files, err = splitOrder(files); err != nil {
		return planner.Model{}, err
	}
	parts := make([]gguf.Part, len(files))
	for i, f := range files {
		r, size := gguf.NewBlob(f)
		parts[i] = gguf.Part{R: r, Size: size}
	}
	name := nameOf(files[0])
	m, err := gguf.ReadAt(parts, readAhead)
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	m.ID, m.Name, m.Source = modelID(name), name, name
	if len(args) > 1 && args[1].Truthy() {
		r, size := gguf.NewBlob(args[1])
		if m.Vision, err = gguf.ReadVisionAt(gguf.Part{R: r, Size: size}, readAhead); err != nil {
			return m, fmt.Errorf("%s: %w", nameOf(args[1]), err)
		}
	}
	return m, nil
}

// fileArg reads args[i] as a File or a list of them (an array, a FileList).
func fileArg(args []js.Value, i int, what string) ([]js.Value, error) {
	if len(args) <= i || !args[i].Truthy() {
		return nil, fmt.Errorf("argument %d (%s) is missing", i+1, what)
	}
	v := args[i]
	if v.InstanceOf(js.Global().Get("Blob")) {
		return []js.Value{v}, nil
	}
	if v.Type() != js.TypeObject || v.Get("length").Type() != js.TypeNumber {
		return nil, fmt.Errorf("argument %d (%s) must be a File or a list of them", i+1, what)
	}
	out := make([]js.Value, v.Length())
	for j := range out {
		if out[j] = v.Index(j); !out[j].InstanceOf(js.Global().Get("Blob")) {
			return nil, fmt.Errorf("argument %d (%s): item %d is not a File", i+1, what, j)
		}
	}
	return out, nil
}

// splitOrder puts the files of a split model (-00001-of-00003.gguf …) in
// order and checks that they are all there. One unsplit file passes.
func splitOrder(files []js.Value) ([]js.Value, error) {
	idx := make([]int, len(files))
	total := 0
	for i, f := range files {
		m := splitName.FindStringSubmatch(nameOf(f))
		if m == nil {
			if len(files) == 1 {
				return files, nil
			}
			return nil, fmt.Errorf("%d GGUF files, but %s is not one split (-0000K-of-0000N.gguf) of a model", len(files), nameOf(f))
		}
		idx[i], _ = strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if total != 0 && n != total {
			return nil, fmt.Errorf("%s is a split of %d files, not of %d", nameOf(f), n, total)
		}
		total = n
	}
	out := make([]js.Value, total)
	for i, f := range files {
		if k := idx[i]; k >= 1 && k <= total && out[k-1].IsUndefined() {
			out[k-1] = f
		}
	}
	if len(files) != total || slices.ContainsFunc(out, js.Value.IsUndefined) {
		return nil, fmt.Errorf("a model split in %d files: pick all of them, once each (got %d)", total, len(files))
	}
	return out, nil
}

// modelID names a picked model after its file: llama-3-8b-q8_0.gguf and
// its splits give llama-3-8b-q8_0.
func modelID(name string) string {
	name = splitName.ReplaceAllString(name, "")
	return strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(name, ".gguf"), ".GGUF"))
}

func nameOf(f js.Value) string {
	if n := f.Get("name"); n.Type() == js.TypeString {
		return n.String()
	}
	return "blob"
}

// readConfig(config, safetensors?, options?) reads a Hugging Face
// config.json and, when given, the safetensors headers (one file, or an
// index and its shards) whose tensors give the exact weight bytes. Options
// are hf.Options as JSON names them: {weights_dtype: "fp8"} plans the
// weights in another format, as the CLI's --weights-dtype does, and then
// the published tensors' bytes do not apply.
func readConfig(args []js.Value) (planner.Model, error) {
	cfg, err := fileArg(args, 0, "config.json")
	if err != nil {
		return planner.Model{}, err
	}
	data, err := readWhole(cfg[0])
	if err != nil {
		return planner.Model{}, err
	}
	var opts hf.Options
	if len(args) > 2 && args[2].Type() == js.TypeObject && args[2].Get("weights_dtype").Type() == js.TypeString {
		opts.WeightsDtype = args[2].Get("weights_dtype").String()
	}
	m, err := hf.ParseConfig(data, opts)
	if err != nil {
		return m, fmt.Errorf("%s: %w", nameOf(cfg[0]), err)
	}
	m.ID, m.Name, m.Source = "local-"+m.ID, nameOf(cfg[0])+" ("+m.Arch+")", nameOf(cfg[0])
	if opts.WeightsDtype != "" {
		m.Source += ", weights as " + opts.WeightsDtype
		return m, nil
	}
	if len(args) < 2 || !args[1].Truthy() {
		return m, nil
	}
	files, err := fileArg(args, 1, "safetensors files")
	if err != nil {
		return m, err
	}
	ts, err := tensors(files)
	if err == nil && len(ts) > 0 {
		hf.ApplyTensors(&m, ts)
		m.Source += " + safetensors"
	}
	return m, err
}

// readWhole reads a small file, a config.json or an index, whole.
func readWhole(f js.Value) ([]byte, error) {
	r, size := gguf.NewBlob(f)
	if size > maxConfig {
		return nil, fmt.Errorf("%s: %d bytes is more than %d", nameOf(f), size, maxConfig)
	}
	buf := make([]byte, size)
	if _, err := r.ReadAt(buf, 0); err != nil && size > 0 {
		return nil, fmt.Errorf("%s: %w", nameOf(f), err)
	}
	return buf, nil
}

// tensors reads the headers of the shards an index names, or of every
// .safetensors file when no index is among files.
func tensors(files []js.Value) ([]hf.Tensor, error) {
	byName := map[string]js.Value{}
	var index js.Value
	for _, f := range files {
		switch n := nameOf(f); {
		case strings.HasSuffix(n, ".index.json"):
			index = f
		case strings.HasSuffix(n, ".safetensors"):
			byName[n] = f
		}
	}
	names, err := shardNames(index, byName)
	if err != nil {
		return nil, err
	}
	var out []hf.Tensor
	var missing []string
	for _, n := range names {
		f, ok := byName[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		r, size := gguf.NewBlob(f)
		ts, err := hf.ReadSafetensors(r, size)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, ts...)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the index names %d shards that were not picked: %s", len(missing), strings.Join(missing, ", "))
	}
	return out, nil
}

// shardNames lists the shards to read: the index's, or every one picked.
func shardNames(index js.Value, picked map[string]js.Value) ([]string, error) {
	if index.IsUndefined() {
		names := slices.Sorted(maps.Keys(picked))
		if len(names) == 0 {
			return nil, errors.New("no .safetensors file among the picked files")
		}
		return names, nil
	}
	data, err := readWhole(index)
	if err != nil {
		return nil, err
	}
	names, err := hf.ReadIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameOf(index), err)
	}
	return names, nil
}
