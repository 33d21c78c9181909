package arch

import (
	"cmp"
	"slices"

	"github.com/vramplan/vramplan/planner"
)

// Classes lists the weight classes in the order a model's Weights lists them.
var Classes = []string{"embedding", "attention", "ffn", "experts", "norm", "output", "other"}

// Summarize sums tensors stored under sc into weight classes and GEMM matrices.
func Summarize(ts []Tensor, sc Scheme) planner.Weights {
	tally := NewTally()
	tied := !hasRole(ts, "output")
	for i := range ts {
		t := &ts[i]
		f := sc.Format(t)
		tally.Add(t.Class(), t.Layer, satMul(int64(max(t.Experts, 1)), f.Bytes(t.N, t.K)), t.Params(), f.Name)
		if t.Kind == KindMatrix || (t.Kind == KindEmbed && tied) {
			name := t.Role
			if t.Kind == KindEmbed {
				name = "output"
			}
			tally.AddMatrix(planner.Matrix{Name: name, N: int(t.N), K: int(t.K), Dtype: f.Name}, max(t.Experts, 1))
		}
	}
	return tally.Weights()
}

func hasRole(ts []Tensor, role string) bool {
	return slices.ContainsFunc(ts, func(t Tensor) bool { return t.Role == role })
}

// Tally sums tensors into weight classes, GEMM matrices and bytes per
// storage format. The zero value is not usable; call NewTally.
type Tally struct {
	bytes    int64
	classes  map[string]*planner.WeightClass
	mats     map[planner.Matrix]int
	byFormat map[string]int64
	// layers holds each class's bytes by decoder layer; unlayered marks a
	// class with a tensor outside the blocks, or of no known block.
	layers    map[string]map[int]int64
	unlayered map[string]bool
	top       int // one past the highest layer seen
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{classes: map[string]*planner.WeightClass{}, mats: map[planner.Matrix]int{}, byFormat: map[string]int64{},
		layers: map[string]map[int]int64{}, unlayered: map[string]bool{}}
}

// Add counts a tensor of class in decoder layer layer (−1: none, or not
// known) stored as format.
func (t *Tally) Add(class string, layer int, bytes, params int64, format string) {
	t.addLayer(class, layer, bytes)
	t.bytes = satAdd(t.bytes, bytes)
	t.byFormat[format] = satAdd(t.byFormat[format], bytes)
	c := t.classes[class]
	if c == nil {
		c = &planner.WeightClass{Class: class}
		t.classes[class] = c
	}
	c.Bytes = planner.Bytes(satAdd(int64(c.Bytes), bytes))
	c.Params = satAdd(c.Params, params)
}

func (t *Tally) addLayer(class string, layer int, bytes int64) {
	if layer < 0 {
		t.unlayered[class] = true
		return
	}
	m := t.layers[class]
	if m == nil {
		m = map[int]int64{}
		t.layers[class] = m
	}
	m[layer] = satAdd(m[layer], bytes)
	t.top = max(t.top, layer+1)
}

// classLayers sets c's layers when its bytes sit alike in a progression
// of layers that is not every layer: From, From+Step, … below Until.
func (t *Tally) classLayers(c *planner.WeightClass) {
	m := t.layers[c.Class]
	if t.unlayered[c.Class] || len(m) == 0 || len(m) == t.top {
		return
	}
	ls := make([]int, 0, len(m))
	for l := range m {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	step := 1
	if len(ls) > 1 {
		step = ls[1] - ls[0]
	}
	for i, l := range ls {
		if l != ls[0]+i*step || m[l] != m[ls[0]] {
			return
		}
	}
	c.From, c.Until, c.Step = ls[0], ls[len(ls)-1]+1, step
}

// AddMatrix counts n instances of GEMM weight x (its Count is ignored).
func (t *Tally) AddMatrix(x planner.Matrix, n int) {
	x.Count = 0
	t.mats[x] = min(t.mats[x]+n, 1<<24)
}

// Weights returns the tally: classes in Classes order, matrices sorted, and
// the format holding the most bytes as the dtype.
func (t *Tally) Weights() planner.Weights {
	w := planner.Weights{Bytes: planner.Bytes(t.bytes)}
	for _, name := range Classes {
		if c := t.classes[name]; c != nil {
			t.classLayers(c)
			w.Classes = append(w.Classes, *c)
		}
	}
	for x, n := range t.mats {
		x.Count = n
		w.Matrices = append(w.Matrices, x)
	}
	slices.SortFunc(w.Matrices, func(a, b planner.Matrix) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.N, b.N), cmp.Compare(a.K, b.K), cmp.Compare(a.Dtype, b.Dtype))
	})
	best := int64(-1)
	for name, b := range t.byFormat {
		if b > best || (b == best && name < w.Dtype) {
			w.Dtype, best = name, b
		}
	}
	return w
}

// Group merges consecutive identical layers.
func Group(layers []planner.Layer) []planner.LayerGroup {
	var out []planner.LayerGroup
	for _, l := range layers {
		if n := len(out); n > 0 && sameLayer(&out[n-1].Layer, &l) {
			out[n-1].Count++
			continue
		}
		out = append(out, planner.LayerGroup{Count: 1, Layer: l})
	}
	return out
}

func sameLayer(a, b *planner.Layer) bool {
	if (a.Recurrent == nil) != (b.Recurrent == nil) || (a.Recurrent != nil && *a.Recurrent != *b.Recurrent) {
		return false
	}
	x, y := *a, *b
	x.Recurrent, y.Recurrent = nil, nil
	return x == y
}

// satLimit caps sums so that a hostile config cannot overflow them: 2^62
// bytes is far beyond the planner's own 1 PiB bound.
const satLimit = 1 << 62

func satMul(a, b int64) int64 {
	if a != 0 && b > satLimit/a {
		return satLimit
	}
	return min(a*b, satLimit)
}

func satAdd(a, b int64) int64 { return min(a+b, satLimit) }
