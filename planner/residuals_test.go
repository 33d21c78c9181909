package planner

import "testing"

// TestSpreadsHold holds every class a plan can look up to the rules of a
// quoted range: from a class of at least MinRuns, the run's own when it
// holds enough, the least residual no greater than the greatest.
func TestSpreadsHold(t *testing.T) {
	kinds := append([]string{"dense+swa+vision"}, residualKinds[:]...)
	for b := range ResidualBands {
		for _, kind := range kinds {
			for _, several := range []bool{false, true} {
				for _, f := range []Figure{FigureKVTokens, FigureWeights} {
					c := RunClass{Band: b, Kind: kind, Several: several}
					checkSpread(t, c, c.Spread(f, 100000))
				}
			}
		}
	}
}

func checkSpread(t *testing.T, c RunClass, s Spread) {
	t.Helper()
	switch {
	case s.Class != c.Keys()[0].String():
		t.Errorf("%v.Spread.Class = %q, want %q", c, s.Class, c.Keys()[0])
	case s.Runs != 0 && s.Runs < MinRuns:
		t.Errorf("%v.Spread quotes %d runs, fewer than %d", c, s.Runs, MinRuns)
	case (s.ClassRuns >= MinRuns) != (s.From == "" && s.Runs > 0):
		t.Errorf("%v.Spread: own class %d runs, range from %q", c, s.ClassRuns, s.From)
	case s.Low > s.High || s.LowValue > s.HighValue:
		t.Errorf("%v.Spread = %+v: low above high", c, s)
	}
}

func TestSpreadText(t *testing.T) {
	for _, c := range []struct {
		s    Spread
		want string
	}{
		{Spread{Figure: "kv_tokens", Planned: 232592, Class: "A", ClassRuns: 12, Runs: 12, Low: -0.04, High: 0.03, LowValue: 223288, HighValue: 239570},
			"real start-ups like this one: -4.0 % … +3.0 % of the planned figure (223,288 … 239,570), 12 runs of A"},
		{Spread{Figure: "weights", Class: "A", ClassRuns: 1, From: "B", Runs: 4, Low: 0, High: 0.01, LowValue: 1 << 30, HighValue: 1 << 31},
			"real start-ups like this one: +0.0 % … +1.0 % of the planned figure (1,024 MiB … 2,048 MiB), 4 runs of B; A has 1 run, too few"},
		{Spread{Figure: "kv_tokens", Class: "A"}, "real start-ups like this one: A has no run, too few, and no wider class holds 3"},
	} {
		if got := c.s.Text(); got != c.want {
			t.Errorf("Text() = %q\nwant %q", got, c.want)
		}
	}
}

func TestModelKind(t *testing.T) {
	swa := Layer{Kind: LayerSliding}
	rec := Layer{Kind: LayerRecurrent}
	for _, c := range []struct {
		m      Model
		vision bool
		want   string
	}{
		{Model{}, false, "dense"},
		{Model{MoE: &MoE{}, MLA: &MLA{}}, false, "moe+mla"},
		{Model{Layers: []LayerGroup{{Layer: swa}}}, true, "dense+swa+vision"},
		{Model{MoE: &MoE{}, Layers: []LayerGroup{{Layer: rec}}}, false, "hybrid"},
	} {
		if got := modelKind(&c.m, c.vision); got != c.want {
			t.Errorf("modelKind(%+v, %v) = %q, want %q", c.m, c.vision, got, c.want)
		}
	}
}

func TestReleaseBand(t *testing.T) {
	for _, c := range []struct {
		e    EngineName
		v    Version
		want string
	}{
		{EngineVLLM, release(0, 22, 1), "vLLM 0.21 and later (V1)"},
		{EngineVLLM, release(0, 20, 9), "vLLM 0.12–0.20 (V1)"},
		{EngineVLLM, release(0, 2, 0), "vLLM 0.2–0.3 (V0)"},
		{EngineVLLM, release(0, 1, 9), ""},
		{EngineSGLang, release(0, 5, 2), "SGLang 0.5"},
		{EngineSGLang, release(0, 2, 0), ""},
		{EngineLlamaCpp, build(12072), ""},
	} {
		i, ok := ReleaseBand(c.e, c.v)
		switch {
		case c.want == "" && ok:
			t.Errorf("ReleaseBand(%s, %s) = %q, want none", c.e, c.v, ResidualBands[i].Name)
		case c.want != "" && (!ok || ResidualBands[i].Name != c.want):
			t.Errorf("ReleaseBand(%s, %s) = %d, %v; want %q", c.e, c.v, i, ok, c.want)
		}
	}
}

// TestResidualGroupNames holds the names RunClass.Residuals matches by
// index and engine rather than by name to what makes that the same: each
// band's name its own, no band's name an engine's label or a generation,
// each generation within one engine and none an engine's label.
func TestResidualGroupNames(t *testing.T) {
	group := map[string]string{} // name -> what it names
	genEngine := map[string]EngineName{}
	for _, b := range ResidualBands {
		if g, ok := group[b.Name]; ok {
			t.Errorf("band %q: the name is already %s", b.Name, g)
		}
		group[b.Name] = "a band"
		if e, ok := genEngine[b.Generation]; ok && e != b.Engine {
			t.Errorf("generation %q holds bands of %s and %s", b.Generation, e, b.Engine)
		}
		genEngine[b.Generation] = b.Engine
	}
	for g := range genEngine {
		if what, ok := group[g]; ok {
			t.Errorf("generation %q is also %s", g, what)
		}
		group[g] = "a generation"
	}
	labels := map[EngineName]bool{}
	for _, b := range ResidualBands {
		if l := profileOf(b.Engine).Label; !labels[b.Engine] {
			if what, ok := group[l]; ok {
				t.Errorf("%s's label %q is also %s", b.Engine, l, what)
			}
			labels[b.Engine], group[l] = true, "an engine's label"
		}
	}
}
