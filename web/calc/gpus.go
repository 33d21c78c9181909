package calc

// This file is the "Which GPUs" table: planner.GPUs over the calibration
// table for the state's model, limits and engine, filtered by memory and
// label and sorted by a column. The page, /embed, <vram-calculator
// view="gpus"> and `vramplan gpus` show it; the orders, the filters and
// the words of a row are written here once.

import (
	"sort"
	"strconv"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// A GPUSort is one order of the table: its key in the URL (gsort) and on
// the CLI (--sort), its column's heading, and whether row a comes before
// row b (nil: the planner's order, fewest GPUs then most headroom).
type GPUSort struct {
	Key, Label string
	before     func(a, b *planner.GPUFit) bool
}

// GPUSorts are the table's orders; the first is the default.
var GPUSorts = []GPUSort{
	{"gpus", "GPUs", nil},
	{"memory", "Memory", func(a, b *planner.GPUFit) bool { return a.DeviceTotal > b.DeviceTotal }},
	{"headroom", "Headroom", func(a, b *planner.GPUFit) bool { return a.Headroom > b.Headroom }},
	{"kv", "KV tokens", func(a, b *planner.GPUFit) bool { return a.KVTokens > b.KVTokens }},
	{"seqs", "Sequences", func(a, b *planner.GPUFit) bool { return a.Concurrency > b.Concurrency }},
	{"gpu", "GPU", func(a, b *planner.GPUFit) bool { return a.GPU < b.GPU }},
}

// GPUMemories are the memory filter's choices on the page, in GiB: the
// device totals people shop by.
var GPUMemories = []int{16, 24, 40, 48, 80, 140}

// GPULabels are the labels the table filters by, the GPU picker's.
var GPULabels = []string{planner.CalibrationMeasured, planner.CalibrationCommunity, planner.CalibrationEstimated}

// GPUFilter selects and orders the table's rows.
type GPUFilter struct {
	Sort      string        // a GPUSorts key; "" is the first
	MinMemory planner.Bytes // the least device total a row shows
	Label     string        // a GPULabels entry; "" shows every label
}

// Check reports a filter the table cannot apply as a *FieldError naming
// the URL's key.
func (f GPUFilter) Check() error {
	if f.Sort != "" && sortOf(f.Sort) == nil {
		return &FieldError{"gsort", printf.Sprintf("unknown order %q (want one of %v)", f.Sort, sortKeys())}
	}
	if f.Label != "" && !contains(GPULabels, f.Label) {
		return &FieldError{"glabel", printf.Sprintf("unknown label %q (want one of %v)", f.Label, GPULabels)}
	}
	if f.MinMemory < 0 {
		return &FieldError{"gmin", "a memory size cannot be negative"}
	}
	return nil
}

// Apply returns the rows of fits, which is in planner.GPUs' order, that
// pass f, in f's order; rows that no layout serves stay last.
func (f GPUFilter) Apply(fits []planner.GPUFit) []planner.GPUFit {
	out := make([]planner.GPUFit, 0, len(fits))
	for _, x := range fits {
		if x.DeviceTotal >= f.MinMemory && (f.Label == "" || x.Label == f.Label) {
			out = append(out, x)
		}
	}
	if s := sortOf(f.Sort); s != nil && s.before != nil {
		sort.SliceStable(out, func(i, j int) bool {
			a, b := &out[i], &out[j]
			if a.Fits() != b.Fits() {
				return a.Fits()
			}
			return s.before(a, b)
		})
	}
	return out
}

func sortOf(key string) *GPUSort {
	if key == "" {
		return &GPUSorts[0]
	}
	for i := range GPUSorts {
		if GPUSorts[i].Key == key {
			return &GPUSorts[i]
		}
	}
	return nil
}

func sortKeys() []string {
	out := make([]string, len(GPUSorts))
	for i, s := range GPUSorts {
		out[i] = s.Key
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LayoutText is a fit's layout as the table writes it: "1 GPU", "TP 4",
// "PP 3", "TP 8 × PP 2"; "none" when no layout serves.
func LayoutText(f *planner.GPUFit) string {
	if !f.Fits() {
		return "none"
	}
	tp, pp := max(f.Parallel.Tensor, 1), max(f.Parallel.Pipeline, 1)
	switch {
	case tp == 1 && pp == 1:
		return "1 GPU"
	case pp == 1:
		return "TP " + strconv.Itoa(tp)
	case tp == 1:
		return "PP " + strconv.Itoa(pp)
	}
	return "TP " + strconv.Itoa(tp) + " × PP " + strconv.Itoa(pp)
}

// FitNote says why a row serves nothing: "", or its words.
func FitNote(f *planner.GPUFit) string {
	switch {
	case f.Fits():
		return ""
	case f.TooSmall:
		return "too small even for one layer"
	}
	return "no layout of up to 4,096 GPUs fits"
}
