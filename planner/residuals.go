package planner

import (
	"math"

	"github.com/vramplan/vramplan/internal/printf"
)

// This file is how sure a plan of vLLM or SGLang is. Their KV pool and
// weights are estimates, and the only ground truth for them is real
// start-ups that people posted (the corpus, calibrations/corpus). The
// corpus's residuals, summarised by class of run (release band × model
// kind × one GPU or several) in residuals_gen.go, which `go test
// ./calibrations/corpus -update` writes, give each estimate the range
// that real start-ups like it support. ClassOf is the one place a run's
// class is computed: the corpus files its runs with it, and a plan looks
// its own up with it.

// MinRuns is the fewest runs a class must hold for a plan to quote its
// range; a class with fewer says so and the range comes from the first
// wider class (RunClass.Keys) that holds enough.
const MinRuns = 3

// RunClass is the class of a run: the band of its engine release, its
// model's kind and whether it spans more than one GPU.
type RunClass struct {
	// Band is the index of the release's band in ResidualBands.
	Band int
	// Kind is the model's kind, its parts joined by "+": "dense", "moe",
	// "hybrid", then "mla", "swa", "vision" as they apply.
	Kind    string
	Several bool
}

// ClassOf returns the class of a run of in whose release is in band, an
// index in ResidualBands (ReleaseBand).
func ClassOf(in *Input, band int) RunClass {
	return RunClass{Band: band, Kind: modelKind(&in.Model, in.Features.Vision), Several: severalGPUs(in)}
}

// modelKind names m's kind as the residual classes do.
func modelKind(m *Model, vision bool) string {
	var swa, recurrent bool
	for _, g := range m.Layers {
		swa = swa || g.Kind == LayerSliding
		recurrent = recurrent || g.Kind == LayerRecurrent
	}
	kind := "dense"
	switch {
	case recurrent:
		kind = "hybrid"
	case m.MoE != nil:
		kind = "moe"
	}
	if m.MLA != nil {
		kind += "+mla"
	}
	if swa {
		kind += "+swa"
	}
	if vision {
		kind += "+vision"
	}
	return kind
}

// severalGPUs reports whether a run of in spans more than one GPU.
func severalGPUs(in *Input) bool {
	if r := in.Rank; r != nil {
		return r.Layout.GPUs() > 1
	}
	return in.Parallel.Tensor > 1 || in.Parallel.Pipeline > 1
}

// ClassKey is a class at one width: a group of runs (a band, a band's
// generation, an engine) with a model kind and a GPU count, "" and
// GPUsAny matching every one.
type ClassKey struct {
	Group string
	Kind  string
	GPUs  GPUSpan
}

// GPUSpan is one GPU, several, or either.
type GPUSpan uint8

// GPU counts.
const (
	GPUsAny GPUSpan = iota
	GPUsOne
	GPUsSeveral
)

var gpuSpanNames = [...]string{GPUsAny: "one GPU or several", GPUsOne: "one GPU", GPUsSeveral: "more than one GPU"}

// String names k: "vLLM 0.10–0.11 (V1), dense, one GPU".
func (k ClassKey) String() string {
	kind := k.Kind
	if kind == "" {
		kind = "every model kind"
	}
	return k.Group + ", " + kind + ", " + gpuSpanNames[k.GPUs]
}

// Keys returns c at every width, its own first, then each wider class in
// the order a plan falls back to them: the band with any GPU count, with
// any kind, with both; the band's generation the same three ways; the
// engine.
func (c RunClass) Keys() [classWidths]ClassKey {
	b := &ResidualBands[c.Band]
	gpus := GPUsOne
	if c.Several {
		gpus = GPUsSeveral
	}
	return [classWidths]ClassKey{
		{b.Name, c.Kind, gpus}, {b.Name, c.Kind, GPUsAny}, {b.Name, "", gpus}, {b.Name, "", GPUsAny},
		{b.Generation, c.Kind, gpus}, {b.Generation, c.Kind, GPUsAny}, {b.Generation, "", GPUsAny},
		{profileOf(b.Engine).Label, "", GPUsAny},
	}
}

// Figure names an estimated figure whose residuals the corpus holds.
type Figure uint8

// Figures.
const (
	FigureKVTokens Figure = iota // the KV tokens the pool holds (one rank)
	FigureWeights                // the weights one rank loads, its vision tower with them
)

var figureNames = [...]string{FigureKVTokens: "kv_tokens", FigureWeights: "weights"}

var figureLabels = [...]string{FigureKVTokens: "KV tokens", FigureWeights: "weights"}

// String is f's JSON name.
func (f Figure) String() string { return figureNames[f] }

// Spread is the range that real start-ups of a plan's class support for
// one of its estimated figures: how far each run's engine came from what
// the plan of that run said, (real − planned) / planned.
type Spread struct {
	Figure string `json:"figure"`
	// Planned is the plan's figure: tokens, or bytes for weights.
	Planned int64 `json:"planned"`
	// Class is the run's own class and ClassRuns the corpus's runs in it.
	Class     string `json:"class"`
	ClassRuns int    `json:"class_runs"`
	// From is the wider class the range is read from when the run's own
	// holds fewer than MinRuns; "" when it is the run's own.
	From string `json:"from,omitempty"`
	// Runs is the runs the range is read from, 0 when no class holds
	// MinRuns; Low and High are their least and greatest residual, and
	// LowValue and HighValue the figure they put the real one at.
	Runs      int     `json:"runs"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	LowValue  int64   `json:"low_value"`
	HighValue int64   `json:"high_value"`
}

// residualRow is the runs of one figure in a run's own class (a band, a
// model kind, one GPU or several) in residuals_gen.go: the band (its index
// in ResidualBands), the kind (its index in residualKinds), whether the
// runs span several GPUs, how many there are, and their least and greatest
// residual in parts per thousand. A wider class's runs are the union of its
// own classes' (each run is in one own class), so the table holds no row
// for one: Residuals sums them.
type residualRow struct {
	band, kind uint8
	several    bool
	figure     Figure
	runs       uint8
	low, high  int16
}

// Residual is the corpus's runs of one figure in one class: how many, and
// their least and greatest residual in parts per thousand (zero when Runs
// is 0).
type Residual struct {
	Runs      int
	Low, High int16
}

// classWidths is how many widths RunClass.Keys names.
const classWidths = 8

// Residuals returns the runs of figure f in each of c.Keys(), in its order.
// A row adds to a width when it falls in that class: the same band, the
// band's generation or engine, with the same kind or any, the same GPU
// count or either, as Keys widens them.
func (c RunClass) Residuals(f Figure) [classWidths]Residual {
	var out [classWidths]Residual
	b := &ResidualBands[c.Band]
	for i := range residualTable {
		r := &residualTable[i]
		rb := &ResidualBands[r.band]
		if r.figure != f || rb.Engine != b.Engine {
			continue
		}
		kind, gpus := residualKinds[r.kind] == c.Kind, r.several == c.Several
		band, gen := int(r.band) == c.Band, rb.Generation == b.Generation
		in := [classWidths]bool{band && kind && gpus, band && kind, band && gpus, band, gen && kind && gpus, gen && kind, gen, true}
		for w, ok := range in {
			if ok {
				out[w].add(r)
			}
		}
	}
	return out
}

// add counts r's runs in s.
func (s *Residual) add(r *residualRow) {
	if s.Runs == 0 || r.low < s.Low {
		s.Low = r.low
	}
	if s.Runs == 0 || r.high > s.High {
		s.High = r.high
	}
	s.Runs += int(r.runs)
}

// Spread returns the spread of figure f of a run of class c that the plan
// puts at planned: the range of c's own runs when they are at least
// MinRuns, else of the first wider class (Keys) that holds that many.
func (c RunClass) Spread(f Figure, planned int64) Spread {
	keys, res := c.Keys(), c.Residuals(f)
	s := Spread{Figure: f.String(), Planned: planned, Class: keys[0].String(), ClassRuns: res[0].Runs}
	for i, r := range res {
		if r.Runs < MinRuns {
			continue
		}
		if i > 0 {
			s.From = keys[i].String()
		}
		s.Runs, s.Low, s.High = r.Runs, float64(r.Low)/1000, float64(r.High)/1000
		s.LowValue, s.HighValue = scaled(planned, s.Low), scaled(planned, s.High)
		break
	}
	return s
}

// Line says s with its figure, as vramplan plan prints it: "KV tokens
// 232,592: real start-ups like this one: …".
func (s *Spread) Line() string { return s.Label() + " " + s.value(s.Planned) + ": " + s.Text() }

// Label names s's figure for a person: "KV tokens", "weights".
func (s *Spread) Label() string {
	for f, n := range figureNames {
		if n == s.Figure {
			return figureLabels[f]
		}
	}
	return s.Figure
}

// value writes n of s's figure: tokens, or MiB for weights.
func (s *Spread) value(n int64) string {
	if s.Figure == FigureWeights.String() {
		return Bytes(n).mib()
	}
	return Grouped(n)
}

func scaled(n int64, r float64) int64 { return int64(math.Round(float64(n) * (1 + r))) }

// Text says s for a person: "real start-ups like this one: -4.5 % …
// +3.0 % of the planned figure (222,100 … 239,570), 12 runs of vLLM
// 0.10–0.11 (V1), dense, one GPU", and when the run's own class holds too
// few runs, that it does and which wider class the range is of.
func (s *Spread) Text() string {
	own := printf.Sprintf("%s has %s, too few", s.Class, runs(s.ClassRuns))
	if s.Runs == 0 {
		return "real start-ups like this one: " + own + printf.Sprintf(", and no wider class holds %d", MinRuns)
	}
	class := s.Class
	if s.From != "" {
		class = s.From
	}
	t := printf.Sprintf("real start-ups like this one: %+.1f %% … %+.1f %% of the planned figure (%s … %s), %s of %s",
		100*s.Low, 100*s.High, s.value(s.LowValue), s.value(s.HighValue), runs(s.Runs), class)
	if s.From != "" {
		t += "; " + own
	}
	return t
}

func runs(n int) string {
	switch n {
	case 0:
		return "no run"
	case 1:
		return "1 run"
	}
	return printf.Sprintf("%d runs", n)
}

// LoadedWeights is what the engine's load line counts as p's weights: the
// model's, its vision tower's, and what SGLang's load holds beyond the
// tensors (its `mem usage` is the drop of free memory over the load).
func (p *Plan) LoadedWeights() Bytes {
	w := p.Weights
	for _, it := range p.Items {
		if it.Key == itemSpecs[keyVisionTower].key || it.Key == itemSpecs[keyLoadSlack].key {
			w += it.Bytes
		}
	}
	return w
}

// spreads returns the spreads of p's estimated figures under profile pr,
// for an engine whose KV pool is what its memory fraction leaves; none
// for another, and none for a release in no band.
func spreads(in *Input, pr *Profile, p *Plan) []Spread {
	if p.Engine == nil || p.Engine.Pool == nil {
		return nil
	}
	a := p.Engine.Pool
	band, ok := ReleaseBand(pr.Name, planRelease(in, pr))
	if !ok {
		return nil
	}
	c := ClassOf(in, band)
	var out []Spread
	if a.Tokens > 0 {
		out = append(out, c.Spread(FigureKVTokens, a.Tokens))
	}
	return append(out, c.Spread(FigureWeights, int64(p.LoadedWeights())))
}

// planRelease is the release a plan of in under pr follows, for its
// class: in's release (serving.version), else the first of the newest
// range pr covers, whose rules a plan without one follows.
func planRelease(in *Input, pr *Profile) Version {
	if v, err := ParseVersion(in.Serving.Version); in.Serving.Version != "" && err == nil {
		return v
	}
	return pr.Versions[len(pr.Versions)-1].From
}
