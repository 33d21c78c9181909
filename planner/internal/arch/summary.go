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
	var w planner.Weights
	classes := map[string]*planner.WeightClass{}
	byFormat := map[string]int64{}
	mats := map[planner.Matrix]int{}
	for i := range ts {
		t := &ts[i]
		f := sc.Format(t)
		b := satMul(int64(max(t.Experts, 1)), f.Bytes(t.N, t.K))
		w.Bytes = planner.Bytes(satAdd(int64(w.Bytes), b))
		byFormat[f.Name] += b
		addClass(classes, t.Class(), b, t.Params())
		if t.Kind == KindMatrix || (t.Kind == KindEmbed && !hasRole(ts, "output")) {
			name := t.Role
			if t.Kind == KindEmbed {
				name = "output"
			}
			mats[planner.Matrix{Name: name, N: int(t.N), K: int(t.K), Dtype: f.Name}] += max(t.Experts, 1)
		}
	}
	w.Classes = orderClasses(classes)
	w.Matrices = orderMatrices(mats)
	w.Dtype = dominant(byFormat)
	return w
}

func hasRole(ts []Tensor, role string) bool {
	return slices.ContainsFunc(ts, func(t Tensor) bool { return t.Role == role })
}

func addClass(m map[string]*planner.WeightClass, class string, b, params int64) {
	c := m[class]
	if c == nil {
		c = &planner.WeightClass{Class: class}
		m[class] = c
	}
	c.Bytes = planner.Bytes(satAdd(int64(c.Bytes), b))
	c.Params = satAdd(c.Params, params)
}

func orderClasses(m map[string]*planner.WeightClass) []planner.WeightClass {
	var out []planner.WeightClass
	for _, name := range Classes {
		if c := m[name]; c != nil {
			out = append(out, *c)
		}
	}
	return out
}

func orderMatrices(m map[planner.Matrix]int) []planner.Matrix {
	out := make([]planner.Matrix, 0, len(m))
	for x, n := range m {
		x.Count = n
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b planner.Matrix) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.N, b.N), cmp.Compare(a.K, b.K), cmp.Compare(a.Dtype, b.Dtype))
	})
	return out
}

func dominant(byFormat map[string]int64) string {
	best, bytes := "", int64(-1)
	for name, b := range byFormat {
		if b > bytes || (b == bytes && name < best) {
			best, bytes = name, b
		}
	}
	return best
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
