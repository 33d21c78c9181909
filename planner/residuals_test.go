package planner

import (
	"strings"
	"testing"
)

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
					checkSpread(t, c, spreadOf(c, f, 100000))
				}
			}
		}
	}
}

func checkSpread(t *testing.T, c RunClass, s Spread) {
	t.Helper()
	switch {
	case s.Class != c.Keys()[0].String():
		t.Errorf("spreadOf(%v).Class = %q, want %q", c, s.Class, c.Keys()[0])
	case s.Runs != 0 && s.Runs < MinRuns:
		t.Errorf("spreadOf(%v) quotes %d runs, fewer than %d", c, s.Runs, MinRuns)
	case (s.ClassRuns >= MinRuns) != (s.From == "" && s.Runs > 0):
		t.Errorf("spreadOf(%v): own class %d runs, range from %q", c, s.ClassRuns, s.From)
	case s.Low > s.High || s.LowValue > s.HighValue:
		t.Errorf("spreadOf(%v) = %+v: low above high", c, s)
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

func TestBandOf(t *testing.T) {
	for _, c := range []struct {
		e    EngineName
		s    string
		want string
	}{
		{EngineVLLM, "0.22", "vLLM 0.21 and later (V1)"},
		{EngineVLLM, "unknown-v1", "vLLM V1, release not known"},
		{EngineSGLang, "unknown-v1", ""},
		{EngineVLLM, "0.1.9", ""},
		{EngineSGLang, "0.0.0.dev1", "SGLang main (a source build)"},
	} {
		i, err := BandOf(c.e, c.s)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("BandOf(%s, %q) = %q, want an error", c.e, c.s, ResidualBands[i].Name)
		case c.want == "" && !strings.Contains(err.Error(), "in no band"):
			t.Errorf("BandOf(%s, %q) = %v, want in no band", c.e, c.s, err)
		case c.want != "" && (err != nil || ResidualBands[i].Name != c.want):
			t.Errorf("BandOf(%s, %q) = %d, %v; want %q", c.e, c.s, i, err, c.want)
		}
	}
}

// FuzzBandOf reads any release string: an index of the engine's band or
// an error, never a panic.
func FuzzBandOf(f *testing.F) {
	for _, s := range []string{"0.10.1.dev101+gbda9d0535", "unknown-0.4", "unknown-v0", "main@ebaf86d", "0.5.2rc2", "", "9999999999.1", "unknown-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []EngineName{EngineVLLM, EngineSGLang, EngineLlamaCpp} {
			i, err := BandOf(e, s)
			if err == nil && (i < 0 || i >= len(ResidualBands) || ResidualBands[i].Engine != e) {
				t.Fatalf("BandOf(%s, %q) = %d", e, s, i)
			}
		}
	})
}
