package community_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

const h200Group = "h200-140gib-linux-r580-cuda13.0"

// prior is the H200's measured entry, the prior of h200Group.
func prior(t testing.TB) planner.Calibration {
	t.Helper()
	c, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// uploads returns n uploads of client: the H200's figures with the
// context and library reserve scaled by ctx and lib.
func uploads(t testing.TB, client string, n int, ctx, lib float64) []community.Member {
	t.Helper()
	c := prior(t)
	c.Context = planner.Bytes(float64(c.Context) * ctx)
	c.LibraryReserve = planner.Bytes(float64(c.LibraryReserve) * lib)
	out := make([]community.Member, n)
	for i := range out {
		out[i] = community.Member{ID: fmt.Sprintf("%s-%d", client, i), Client: client, Figures: community.Figures(&c)}
	}
	return out
}

// TestQuorum checks that a group is pending until Quorum distinct clients
// uploaded, however many uploads one client sends, and that a card whose
// total is not known stays pending.
func TestQuorum(t *testing.T) {
	one := uploads(t, "a", 145, 1, 1)
	if s := community.Summarize(h200Group, one); s.Clients != 1 || s.Count != 145 || !strings.Contains(s.Pending, "1 of the 3 distinct clients") {
		t.Errorf("145 uploads of one client: clients %d, count %d, pending %q", s.Clients, s.Count, s.Pending)
	}
	two := append(uploads(t, "a", 3, 1, 1), uploads(t, "b", 3, 1.01, 1)...)
	if s := community.Summarize(h200Group, two); !strings.Contains(s.Pending, "2 of the 3") {
		t.Errorf("two clients: pending %q", s.Pending)
	}
	three := append(two, uploads(t, "c", 1, 0.99, 1)...)
	if s := community.Summarize(h200Group, three); s.Clients != community.Quorum || s.Pending != "" {
		t.Errorf("three clients: clients %d, pending %q; want it planned on", s.Clients, s.Pending)
	}
	if s := community.Summarize("rtxa6000-48gib-linux-r580-cuda13.0", three); !strings.Contains(s.Pending, "total is not known") {
		t.Errorf("an unknown card: pending %q", s.Pending)
	}
	if s := community.Summarize("h200-140gib-windows-r580-cuda13.0", three); !strings.Contains(s.Pending, "no measured or estimated entry") {
		t.Errorf("a platform with no entry: pending %q", s.Pending)
	}
}

// TestMedianPoisoning is the rule docs/architecture.md states: each client
// counts once, with its own median; it takes a majority of a group's
// distinct clients (n + 1 colluders against n honest ones) to move a
// figure by 10 %, and no number of them moves it past the prior bound.
func TestMedianPoisoning(t *testing.T) {
	base := float64(prior(t).Context)
	ctx := func(ms []community.Member) float64 {
		return community.Summarize(h200Group, ms).Figures[community.FigContext].Median/base - 1
	}
	const honest = 4
	var group []community.Member
	for i := range honest {
		group = append(group, uploads(t, fmt.Sprint("honest", i), 1, 1, 1)...)
	}
	collude := func(k int, by float64) []community.Member {
		ms := append([]community.Member(nil), group...)
		for i := range k {
			ms = append(ms, uploads(t, fmt.Sprint("colluder", i), 50, 1+by, 1)...)
		}
		return ms
	}
	if got := ctx(collude(1, 0.3)); got != 0 {
		t.Errorf("one client's 50 uploads at +30 %% moved the context by %.1f %%", 100*got)
	}
	if got := ctx(collude(honest, 0.3)); got != 0 {
		t.Errorf("%d colluders against %d honest clients moved the context by %.1f %%, want 0", honest, honest, 100*got)
	}
	if got := ctx(collude(honest+1, 0.3)); got < 0.10 {
		t.Errorf("%d colluders against %d honest clients moved the context by %.1f %%, want 10 %% or more", honest+1, honest, 100*got)
	}
	if got := ctx(collude(40, 0.76)); got != 0 {
		t.Errorf("40 colluders at ×1.76 (past the prior bound) moved the context by %.1f %%, want 0", 100*got)
	}
	// The uploads: library reserve 68 → 509 MiB is held, whoever sends it.
	s := community.Summarize(h200Group, append(append([]community.Member(nil), group...), uploads(t, "rotating", 887, 1, 509.0/68)...))
	if s.Count != honest || len(s.Outliers) != 887 || !strings.Contains(s.Outliers["rotating-0"], "departs from") {
		t.Errorf("887 uploads of library ×7.5: count %d, %d held out (%q)", s.Count, len(s.Outliers), s.Outliers["rotating-0"])
	}
}

// TestPriorHeld checks that an upload departing from its card's prior by
// more than PriorBound is held as it arrives, in a group of any size.
func TestPriorHeld(t *testing.T) {
	c := prior(t)
	for _, tt := range []struct {
		name string
		ctx  float64
		held bool
	}{{"the prior's", 1, false}, {"×1.4", 1.4, false}, {"×1.76", 1.76, true}, {"×0.4", 0.4, true}} {
		d := c
		d.Context = planner.Bytes(float64(c.Context) * tt.ctx)
		d.Source, d.Provenance.Method = "", "gpuagent calibrate"
		ch, err := community.Check(calibrations.Format(&d))
		if err != nil {
			t.Fatal(err)
		}
		if why := ch.Held(); (why != nil) != tt.held {
			t.Errorf("context %s: held %q, want held %v", tt.name, why, tt.held)
		}
	}
	if b := community.PriorBound(float64(c.LibraryReserve)); b != community.PriorFloor {
		t.Errorf("PriorBound(68 MiB) = %v, want the floor", b)
	}
}

// TestLookalikes checks that names which look like a card's but are not
// its name are refused by field, and that full-width text is folded to
// the card's name and shown as it.
func TestLookalikes(t *testing.T) {
	for _, tt := range []struct{ gpu, words string }{
		{"NVIDIA \u041d200", "holds Latin letters beside 'Н' (U+041D) at byte 7, a letter of the Cyrillic script"},
		{"\u2066NVIDIA H200\u2069", "invisible control character U+2066"},
		{"NVIDIA H200\u202e", "U+202E"},
		{"NVIDIA\u200bH200", "U+200B"},
		{"NVIDIA H200\u0085", "U+0085"},
		{"NVIDIA H200 Ü", "'Ü' (U+00DC)"},
		{"\u041d\u0412\u0418\u0414\u0418\u0410 200", "device names are ASCII"},
	} {
		_, err := community.Check(edit(t, func(m map[string]any) { m["gpu"] = tt.gpu }))
		var r *community.Rejection
		if !errors.As(err, &r) || r.Reasons[0].Field != "gpu" || !strings.Contains(r.Reasons[0].Msg, tt.words) {
			t.Errorf("Check(gpu %q) = %v, want gpu refused: %q", tt.gpu, err, tt.words)
		}
	}
	ch, err := community.Check(edit(t, func(m map[string]any) { m["gpu"] = "ＮＶＩＤＩＡ Ｈ２００" }))
	if err != nil || ch.Group.String() != h200Group || ch.Calibration.GPU != "NVIDIA H200" || !strings.Contains(string(ch.Document), `"gpu": "NVIDIA H200"`) {
		t.Fatalf("full-width name: %v, group %s, gpu %q", err, ch.Group, ch.Calibration.GPU)
	}
	like := ch.Calibration
	like.GPU = "nvidia  h200"
	s := community.Summarize(h200Group, uploads(t, "a", 3, 1, 1))
	if c := s.Calibration(&like, "2026-12-01"); c.GPU != "NVIDIA H200" {
		t.Errorf("a group of a known card is shown as %q, want its canonical name", c.GPU)
	}
}

// TestParseKey holds ParseKey to Key.String.
func TestParseKey(t *testing.T) {
	k := community.Key{GPU: "h200", TotalGiB: 140, Branch: "r580", CUDA: "13.0", Platform: "linux"}
	if got, ok := community.ParseKey(k.String()); !ok || got != k {
		t.Errorf("ParseKey(%s) = %+v, %v", k, got, ok)
	}
	for _, s := range []string{"", "g", "h200-140-linux-r580-cuda13.0", "h200-xgib-linux-r580-cuda13.0", "h200-140gib-linux-r580-13.0", "a-b-140gib-linux-r580-cuda1"} {
		if _, ok := community.ParseKey(s); ok {
			t.Errorf("ParseKey(%q) reads a key", s)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add("h200-140gib-linux-r580-cuda13.0")
	f.Add("-0gib---cuda")
	f.Fuzz(func(t *testing.T, s string) {
		k, ok := community.ParseKey(s)
		if again, ok2 := community.ParseKey(k.String()); ok && (!ok2 || again != k) {
			t.Fatalf("ParseKey(%q) = %+v, which writes %q, read back as %+v", s, k, k.String(), again)
		}
	})
}
