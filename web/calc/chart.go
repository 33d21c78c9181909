package calc

import (
	"math"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// This file lays out the fit-frontier chart and the sliders' scales. The
// chart plots the longest sequence that fits against the batch, both on
// log scales, in a fixed SVG viewBox so the server and the browser draw
// the same path.

// Chart geometry, in SVG user units.
const (
	ChartWidth  = 320
	ChartHeight = 180
	plotLeft    = 44
	plotRight   = 312
	plotTop     = 10
	plotBottom  = 150
)

// Slider ranges.
const (
	BatchMax     = 256     // the batch slider's top
	LenMin       = 256     // the length slider's bottom, in tokens
	LenMax       = 1 << 20 // its top
	lenPerOctave = 4       // length steps per doubling
	// LenSteps is the index of LenMax on the length slider.
	LenSteps = 12 * lenPerOctave
)

// Chart is the frontier chart of a view.
type Chart struct {
	Path    string `json:"path"` // SVG path data of the frontier
	PointX  string `json:"point_x"`
	PointY  string `json:"point_y"`
	Fits    bool   `json:"fits"`
	Summary string `json:"summary"` // the chart in words, for screen readers
	// Note is written across the plot when there is no frontier to draw:
	// not one token fits at any batch.
	Note string `json:"note,omitempty"`
	// TrainedY is the height of the model's trained context, which the
	// chart marks with a dashed line, and TrainedLabel its label; off the
	// plot ("-20", "") when the model does not say.
	TrainedY     string `json:"trained_y"`
	TrainedLabel string `json:"trained_label"`
	// Top is the length at the top of the y axis: 1M tokens, or the power
	// of 16 (times 256) that holds the longest length of the frontier, so a
	// frontier past 1M is drawn to scale, not flattened against the top.
	Top    int    `json:"top"`
	YTicks []Tick `json:"y_ticks"`
}

// Tick is an axis label at a position in the chart's user units.
type Tick struct {
	At    string `json:"at"`
	Label string `json:"label"`
}

// Sliders places the sliders and the cliffs marked on them.
type Sliders struct {
	LenIndex     int    `json:"len_index"`
	BudgetMiB    int64  `json:"budget_mib"`     // the budget in effect
	BudgetMaxMiB int64  `json:"budget_max_mib"` // the budget slider's top: twice the device, doubled as needed
	BatchCliff   string `json:"batch_cliff"`    // CSS position of the largest batch that fits
	LenCliff     string `json:"len_cliff"`
	BudgetCliff  string `json:"budget_cliff"` // the smallest budget that fits
}

// FrontierBatches are the batches the chart samples.
var FrontierBatches = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256}

// LenAt returns the length at index i of the length slider: 256, 320, 384,
// 448, 512, 640, … 1M tokens, four steps per doubling.
func LenAt(i int) int {
	i = min(max(i, 0), LenSteps)
	return LenMin << (i / lenPerOctave) * (lenPerOctave + i%lenPerOctave) / lenPerOctave
}

// lenPos returns the fractional slider index of n tokens.
func lenPos(n int) float64 {
	if n <= LenMin {
		return 0
	}
	k := math.Floor(math.Log2(float64(n)))
	frac := float64(n)/math.Exp2(k) - 1
	return lenPerOctave * (k - math.Log2(LenMin) + frac)
}

// LenIndex returns the slider index nearest to n tokens.
func LenIndex(n int) int { return min(int(math.Round(lenPos(n))), LenSteps) }

func xOf(batch int) float64 {
	return plotLeft + (plotRight-plotLeft)*math.Log2(float64(max(batch, 1)))/math.Log2(BatchMax)
}

// yOf returns the y coordinate of n tokens on an axis whose top is top.
func yOf(n, top int) float64 {
	f := (math.Log2(float64(max(n, LenMin))) - math.Log2(LenMin)) / (math.Log2(float64(top)) - math.Log2(LenMin))
	return plotBottom - (plotBottom-plotTop)*min(f, 1)
}

// axisTop returns the y axis's top for a frontier: LenMax, or the power of
// 16 times LenMin that holds its longest length.
func axisTop(frontier []planner.Point) int {
	top := LenMax
	for _, pt := range frontier {
		for top < pt.MaxSeqLen && top <= math.MaxInt32/16 {
			top *= 16
		}
	}
	return top
}

// yTicks labels the y axis at every power of 16 times LenMin up to top.
func yTicks(top int) []Tick {
	var ts []Tick
	for n := LenMin; n <= top; n *= 16 {
		ts = append(ts, Tick{num(yOf(n, top)), shortTokens(n)})
	}
	return ts
}

// shortTokens writes a tick's length: 256, 4K, 64K, 1M, 16M.
func shortTokens(n int) string {
	switch {
	case n >= 1<<30:
		return strconv.Itoa(n>>30) + "G"
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// Frontier returns the longest max_seq_len that fits at each of
// FrontierBatches, 0 where not one token does.
func Frontier(in planner.Input) []planner.Point {
	pts := make([]planner.Point, 0, len(FrontierBatches))
	for _, b := range FrontierBatches {
		in.Limits.MaxBatch = b
		n, _ := planner.MaxSeqLen(in)
		pts = append(pts, planner.Point{Batch: b, MaxSeqLen: n})
	}
	return pts
}

func chart(frontier []planner.Point, s State, p *planner.Plan) Chart {
	top := axisTop(frontier)
	c := chartOf(frontier, s, p, top)
	c.Top, c.YTicks = top, yTicks(top)
	c.TrainedY, c.TrainedLabel = "-20", ""
	if n := p.Input.Model.MaxContext; n > 0 && n <= top {
		c.TrainedY, c.TrainedLabel = num(yOf(n, top)), "trained context "+groupInt(n)
	}
	return c
}

func chartOf(frontier []planner.Point, s State, p *planner.Plan, top int) Chart {
	if !anyFits(frontier) {
		return Chart{PointX: num(xOf(min(s.Batch, BatchMax))), PointY: num(yOf(s.Len, top)), Fits: p.Fits,
			Summary: "Nothing fits: not one token at any batch from 1 to 256.", Note: "Nothing fits at any batch"}
	}
	var path strings.Builder
	var words []string
	for i, pt := range frontier {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		path.WriteString(cmd + num(xOf(pt.Batch)) + " " + num(yOf(pt.MaxSeqLen, top)) + " ")
		if pt.Batch == 1 || pt.Batch == 8 || pt.Batch == 64 || pt.Batch == 256 {
			words = append(words, "batch "+strconv.Itoa(pt.Batch)+": "+groupInt(pt.MaxSeqLen)+" tokens")
		}
	}
	return Chart{Path: strings.TrimSpace(path.String()), PointX: num(xOf(min(s.Batch, BatchMax))), PointY: num(yOf(s.Len, top)),
		Fits: p.Fits, Summary: "Longest sequence that fits: " + strings.Join(words, "; ") + "."}
}

func anyFits(frontier []planner.Point) bool {
	for _, pt := range frontier {
		if pt.MaxSeqLen > 0 {
			return true
		}
	}
	return false
}

func sliders(s State, p *planner.Plan) Sliders {
	budget := p.Budget.MiB()
	top := budgetTop(p.Input.Calibration.DeviceTotal.MiB(), max(budget, p.Total.MiB()))
	sl := Sliders{LenIndex: LenIndex(s.Len), BudgetMiB: budget, BudgetMaxMiB: top}
	if p.Capacity != nil {
		sl.BatchCliff = pct(float64(p.Capacity.MaxSeqsAtMaxLen-1) / (BatchMax - 1))
		sl.LenCliff = pct(lenPos(p.Capacity.MaxLenAtBatch) / LenSteps)
	}
	sl.BudgetCliff = pct(float64(p.Total.MiB()+1) / float64(top))
	return sl
}

// budgetTop returns the budget slider's top: twice the device, for "what
// would a bigger card hold", doubled until it reaches need. The scale moves
// only when need crosses a power of two of it, so moving another slider
// does not rescale the budget slider under the user's eyes.
func budgetTop(device, need int64) int64 {
	top := max(2*device, 1)
	for top < need && top < math.MaxInt64/2 {
		top *= 2
	}
	return max(top, need)
}

// BatchX returns the chart's x coordinate of a batch.
func BatchX(batch int) string { return num(xOf(batch)) }

// LenY returns the chart's y coordinate of a length in tokens on the
// chart's usual axis, whose top is LenMax.
func LenY(n int) string { return num(yOf(n, LenMax)) }
