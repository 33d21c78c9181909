package calc

// This file is the "Which GPUs" table: planner.GPUs over the calibration
// table for the state's model, limits and engine, filtered by memory and
// label and sorted by a column. The page, /embed, <vram-calculator
// view="gpus"> and `vramplan gpus` show it; the orders, the filters and
// the words of a row are written here once.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// A GPUColumn is one column of the table: its key, which is also its
// order's key in the URL (gsort) and on the CLI (--sort), its heading,
// its order as aria-sort names it ("" for a column the table does not
// sort by), and whether row a comes before row b in that order (nil: the
// planner's, fewest GPUs then most headroom).
type GPUColumn struct {
	Key, Label, Order string
	before            func(a, b *planner.GPUFit) bool
}

// Sortable reports whether the table sorts by c.
func (c *GPUColumn) Sortable() bool { return c.Order != "" }

// GPUColumns are the table's columns, in order.
var GPUColumns = []GPUColumn{
	{"gpu", "GPU", "ascending", func(a, b *planner.GPUFit) bool { return a.GPU < b.GPU }},
	{"label", "Label", "", nil},
	{"memory", "Memory", "descending", func(a, b *planner.GPUFit) bool { return a.DeviceTotal > b.DeviceTotal }},
	{"gpus", "GPUs", "ascending", nil},
	{"layout", "Layout", "", nil},
	{"headroom", "Headroom", "descending", func(a, b *planner.GPUFit) bool { return a.Headroom > b.Headroom }},
	{"kv", "KV tokens", "descending", func(a, b *planner.GPUFit) bool { return a.KVTokens > b.KVTokens }},
	{"seqs", "Sequences", "descending", func(a, b *planner.GPUFit) bool { return a.Concurrency > b.Concurrency }},
	{"launch", "Launch", "", nil},
}

// DefaultGPUSort is the table's order when the state names none.
const DefaultGPUSort = "gpus"

// GPUMemories are the memory filter's choices on the page, in GiB: the
// device totals people shop by.
var GPUMemories = []int{16, 24, 40, 48, 80, 140}

// GPULabels are the labels the table filters by, the GPU picker's.
var GPULabels = []string{planner.CalibrationMeasured, planner.CalibrationCommunity, planner.CalibrationEstimated}

// GPUFilter selects and orders the table's rows.
type GPUFilter struct {
	Sort      string        // a sortable GPUColumns key; "" is DefaultGPUSort
	MinMemory planner.Bytes // the least device total a row shows
	Label     string        // a GPULabels entry; "" shows every label
}

// Check reports a filter the table cannot apply as a *FieldError naming
// the URL's key.
func (f GPUFilter) Check() error {
	if f.Sort != "" && sortOf(f.Sort) == nil {
		return &FieldError{"gsort", printf.Sprintf("unknown order %q (want one of %v)", f.Sort, GPUSortKeys())}
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

// sortOf returns the sortable column key names ("" the default), or nil.
func sortOf(key string) *GPUColumn {
	for i := range GPUColumns {
		if c := &GPUColumns[i]; c.Sortable() && (c.Key == key || key == "" && c.Key == DefaultGPUSort) {
			return c
		}
	}
	return nil
}

// GPUSortKeys are the keys of the columns the table sorts by.
func GPUSortKeys() []string {
	var out []string
	for _, c := range GPUColumns {
		if c.Sortable() {
			out = append(out, c.Key)
		}
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

// HeadroomText is a fitting row's headroom as the table writes it: its
// size, or "—" when the engine's KV pool takes what the budget leaves
// (planner.GPUFit.PoolTakesRest), whose 0 MiB would say nothing: the KV
// tokens are then the row's figure, and HeadroomNote says so.
func HeadroomText(f *planner.GPUFit) string {
	if f.PoolTakesRest {
		return "—"
	}
	return sizeOf(f.Headroom)
}

// HeadroomNote is why a row's headroom is "—", or "".
func HeadroomNote(f *planner.GPUFit) string {
	if !f.Fits() || !f.PoolTakesRest {
		return ""
	}
	return "The engine's KV pool takes what its memory fraction leaves: the KV tokens are what this GPU has to spare."
}

// FitNote says why a row serves nothing: "", or its words.
func FitNote(f *planner.GPUFit) string {
	switch {
	case f.Fits():
		return ""
	case f.TooSmall:
		return "too small even for one layer"
	}
	return "no layout within the search fits"
}

// parseGPUFilter reads the table's keys: gsort, gmin (whole GiB) and
// glabel, checked as GPUFilter.Check checks them.
func parseGPUFilter(q values, s *State) error {
	s.GSort, s.GLabel = strings.ToLower(q.get("gsort")), strings.ToLower(q.get("glabel"))
	if s.GSort == DefaultGPUSort {
		s.GSort = "" // the default, as Encode leaves it out
	}
	if err := parseInt(q, "gmin", &s.GMin); err != nil {
		return err
	}
	if s.GMin < 0 || s.GMin > maxGMin {
		s.GMin = 0
		return &FieldError{"gmin", "it takes 0 to " + Group(maxGMin) + " GiB"}
	}
	return s.GPUFilter().Check()
}

// maxGMin is the largest gmin, in GiB: far past any GPU, and far from
// overflowing in bytes.
const maxGMin = 1 << 20

// GPUFilter is the table's filter the state holds.
func (s State) GPUFilter() GPUFilter {
	return GPUFilter{Sort: s.GSort, MinMemory: planner.Bytes(s.GMin) * planner.GiB, Label: s.GLabel}
}

// GPUsView is the "Which GPUs" table as the page paints it, every figure
// formatted.
type GPUsView struct {
	Query string `json:"query"` // the state, encoded
	Error string `json:"error,omitempty"`
	// Shown says how many of the table's GPUs the filter shows ("12 of 15
	// GPUs").
	Shown   string      `json:"shown"`
	Columns []GPUHeader `json:"columns"`
	Rows    []GPURow    `json:"rows"`
}

// GPUHeader is a column's heading; a sortable one's is a link to the state
// sorted by it, and its aria-sort says whether the table is (its order,
// or "none").
type GPUHeader struct {
	Key   string    `json:"key"`
	Label string    `json:"label"`
	Query string    `json:"query,omitempty"`
	Href  string    `json:"href,omitempty"`
	Aria  string    `json:"aria,omitempty"`
	_     [0]func() // as GPURow's
}

// GPURow is one GPU of the table. Query and Href are the state planned on
// that GPU in the row's layout (one GPU when no layout serves it).
type GPURow struct {
	ID       string `json:"id"`
	GPU      string `json:"gpu"`
	Label    string `json:"label"`
	Memory   string `json:"memory"`
	Fits     bool   `json:"fits"`
	GPUs     int    `json:"gpus"`
	Count    string `json:"count"` // GPUs as the cell says it: "4", or "—" for none
	Layout   string `json:"layout"`
	Headroom string `json:"headroom"` // HeadroomText; "" for no fit
	// HeadroomNote says why Headroom is "—" (HeadroomNote), "" otherwise.
	HeadroomNote string    `json:"headroom_note"`
	KV           string    `json:"kv_tokens"` // "93,744"; "" for no fit
	Seqs         string    `json:"seqs"`
	Launch       string    `json:"launch"`
	Note         string    `json:"note"`
	Query        string    `json:"query"`
	Href         string    `json:"href"`
	_            [0]func() // not comparable: no == is needed, and its code is the page's WebAssembly
}

// GPUsTable answers s's model, limits and engine on every calibration of
// cals (planner.GPUs) and returns the table s's filter shows.
func GPUsTable(s State, m *planner.Model, cals []planner.Calibration) GPUsView {
	in := planner.Input{Model: *m}
	s.Apply(&in)
	v := GPUsView{Query: s.Encode()}
	f := s.GPUFilter()
	fits, err := planner.GPUs(in, cals)
	if err == nil {
		err = f.Check()
	}
	if err != nil {
		v.Error = Words(err)
		return v
	}
	shown := f.Apply(fits)
	v.Shown = strconv.Itoa(len(shown)) + " of " + strconv.Itoa(len(fits)) + " GPUs"
	v.Columns = make([]GPUHeader, len(GPUColumns))
	sorted := sortOf(s.GSort)
	for i := range GPUColumns {
		gpuHeader(&s, &GPUColumns[i], sorted, &v.Columns[i])
	}
	v.Rows = make([]GPURow, len(shown))
	for i := range shown {
		gpuRow(&s, &shown[i], &v.Rows[i])
	}
	return v
}

// gpuHeader fills h, column c's heading in the table of s sorted by
// column sorted; s is changed.
func gpuHeader(s *State, c, sorted *GPUColumn, h *GPUHeader) {
	h.Key, h.Label = c.Key, c.Label
	if !c.Sortable() {
		return
	}
	h.Aria = "none"
	if c == sorted {
		h.Aria = c.Order
	}
	s.GSort = c.Key
	if c.Key == DefaultGPUSort {
		s.GSort = ""
	}
	h.Query = s.Encode()
	h.Href = "?" + h.Query
}

// gpuRow fills r, fit f's row in the table of s; s is changed. Its link
// plans as the row did: on its GPU in its layout, at the GPU's own total.
func gpuRow(s *State, f *planner.GPUFit, r *GPURow) {
	s.GPU, s.TP, s.PP, s.EP, s.DP, s.TS, s.Budget = f.Calibration, f.Parallel.Tensor, f.Parallel.Pipeline, 0, 0, "", 0
	r.Query = s.Encode()
	r.Href = "?" + r.Query
	r.ID, r.GPU, r.Label, r.Memory, r.Launch = f.Calibration, f.GPU, f.Label, f.DeviceTotal.String(), f.Launch
	r.Fits, r.GPUs, r.Count, r.Layout, r.Note = f.Fits(), f.GPUs, "—", LayoutText(f), FitNote(f)
	if r.Fits {
		r.Count, r.Headroom, r.KV, r.Seqs = strconv.Itoa(f.GPUs), HeadroomText(f), Group(f.KVTokens), groupInt(f.Concurrency)
	}
	r.HeadroomNote = HeadroomNote(f)
}
