package community_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

func h200(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("../h200-linux-cuda13.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// edit decodes the H200 file into a generic map, applies f and encodes it.
func edit(t testing.TB, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(h200(t), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, _ := json.Marshal(m)
	return out
}

func TestCheckAccepts(t *testing.T) {
	ch, err := community.Check(h200(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ch.Group.String(), "h200-140gib-linux-r580-cuda13.0"; got != want {
		t.Errorf("Group = %s, want %s", got, want)
	}
	if ch.Figures[community.FigContext] != 552402944 || ch.Figures["vmm.commit.2097152.p50_us"] != 36.4 {
		t.Errorf("Figures = %v", ch.Figures)
	}
	// The same content, formatted otherwise, is the same upload.
	var v any
	json.Unmarshal(h200(t), &v)
	compact, _ := json.Marshal(v)
	again, err := community.Check(compact)
	if err != nil || again.Digest != ch.Digest || again.ID != ch.ID {
		t.Errorf("Check(compact) = %s, %v; want digest %s", again.Digest, err, ch.Digest)
	}
	if again, _ := community.Check(ch.Document); again.Digest != ch.Digest {
		t.Errorf("the canonical document is not a fixed point of Check")
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, field string
		doc         []byte
	}{
		{"unknown field", "colour", edit(t, func(m map[string]any) { m["colour"] = "red" })},
		{"schema", "schema", edit(t, func(m map[string]any) { m["schema"] = "vramplan.calibration/v0" })},
		{"not json", "", []byte("context_bytes=5")},
		{"trailing", "", append(h200(t), []byte(` {}`)...)},
		{"too large", "", []byte(`{"notes":"` + strings.Repeat("x", community.MaxSize) + `"}`)},
		{"huge number", "", edit(t, func(m map[string]any) { m["context_bytes"] = json.Number("1e400") })},
		{"absurd number", "context_bytes", edit(t, func(m map[string]any) { m["context_bytes"] = json.Number("1e30") })},
		{"string number", "vmm.granularity_bytes", edit(t, func(m map[string]any) { m["vmm"].(map[string]any)["granularity_bytes"] = "2097152" })},
		{"doubled key", "gpu", bytes.Replace(h200(t), []byte(`"gpu": `), []byte(`"gpu": "x", "GPU": `), 1)},
		{"markup in a name", "gpu", edit(t, func(m map[string]any) { m["gpu"] = "NVIDIA H200<img src=x onerror=alert(1)>" })},
		{"control character", "driver", edit(t, func(m map[string]any) { m["driver"] = "580.159.04\u001b[31m" })},
		{"negative", "context_bytes", edit(t, func(m map[string]any) { m["context_bytes"] = -1 })},
		{"fraction", "context_bytes", edit(t, func(m map[string]any) { m["context_bytes"] = 1.5 })},
		{"context over total", "context_bytes", edit(t, func(m map[string]any) { m["context_bytes"] = 150109880321 })},
		{"context tiny", "context_bytes", edit(t, func(m map[string]any) { m["context_bytes"] = 4096 })},
		{"nothing left", "library_reserve_bytes", edit(t, func(m map[string]any) { m["library_reserve_bytes"] = 150000000000 })},
		{"granularity", "vmm.granularity_bytes", edit(t, func(m map[string]any) { m["vmm"].(map[string]any)["granularity_bytes"] = 3 << 20 })},
		{"latency zero", "vmm.commit[0]", edit(t, func(m map[string]any) {
			l := m["vmm"].(map[string]any)["commit"].([]any)[0].(map[string]any)
			l["p50_us"], l["p90_us"], l["mean_us"] = 0, 0, 0
		})},
		{"device vs model", "device_total_bytes", edit(t, func(m map[string]any) { m["device_total_bytes"] = 80 << 30 })},
		{"source", "source", edit(t, func(m map[string]any) { m["source"] = "estimated" })},
		{"method", "provenance.method", edit(t, func(m map[string]any) { m["provenance"].(map[string]any)["method"] = "guess" })},
		{"cuda", "cuda", edit(t, func(m map[string]any) { m["cuda"] = "latest" })},
		{"uuid", "provenance.machine", edit(t, func(m map[string]any) {
			m["provenance"].(map[string]any)["machine"] = "GPU-5b1c0e39-7a8e-2f4c-9d1e-0a1b2c3d4e5f"
		})},
		{"ip", "provenance.notes", edit(t, func(m map[string]any) { m["provenance"].(map[string]any)["notes"] = "host 10.1.2.3" })},
		{"home", "provenance.command", edit(t, func(m map[string]any) {
			m["provenance"].(map[string]any)["command"] = "gpuagent calibrate --blas-dir /home/alice/venv/lib"
		})},
		{"email", "provenance.uploader", edit(t, func(m map[string]any) { m["provenance"].(map[string]any)["uploader"] = "a@b.example" })},
	} {
		_, err := community.Check(tt.doc)
		var r *community.Rejection
		if !errors.As(err, &r) {
			t.Errorf("%s: Check = %v, want a *Rejection", tt.name, err)
			continue
		}
		if tt.field != "" && r.Reasons[0].Field != tt.field {
			t.Errorf("%s: Check refused %q (%v), want field %q", tt.name, r.Reasons[0].Field, err, tt.field)
		}
	}
}

func TestCheckKeepsVersions(t *testing.T) {
	doc := edit(t, func(m map[string]any) {
		m["provenance"].(map[string]any)["machine"] = "RTX 5090, Linux 5.15.153.1-microsoft-standard-WSL2, driver 580.159.04.1-1"
	})
	if _, err := community.Check(doc); err != nil {
		t.Errorf("a kernel version read as an address: %v", err)
	}
}

func TestKey(t *testing.T) {
	for _, tt := range []struct{ gpu, want string }{
		{"NVIDIA GeForce RTX 4090", "rtx4090"}, {"Tesla T4", "t4"}, {"NVIDIA A100-SXM4-80GB", "a100sxm480gb"},
		{"NVIDIA RTX 6000 Ada Generation", "rtx6000adageneration"},
	} {
		if got := community.NormalizeGPU(tt.gpu); got != tt.want {
			t.Errorf("NormalizeGPU(%q) = %q, want %q", tt.gpu, got, tt.want)
		}
	}
	for _, tt := range []struct{ driver, want string }{{"580.159.04", "r580"}, {"cuDriverGetVersion 13030", "unknown"}, {"", "unknown"}} {
		if got := community.Branch(tt.driver); got != tt.want {
			t.Errorf("Branch(%q) = %q, want %q", tt.driver, got, tt.want)
		}
	}
}

func member(id string, ctx float64) community.Member {
	return community.Member{ID: id, Figures: map[string]float64{community.FigContext: ctx, community.FigDeviceTotal: 100 << 30}}
}

func TestSummarize(t *testing.T) {
	const mib = float64(planner.MiB)
	ms := []community.Member{member("a", 500*mib), member("b", 510*mib), member("c", 505*mib), member("d", 520*mib), member("e", 2000*mib)}
	s := community.Summarize("g", ms)
	if s.Count != 4 || len(s.Outliers) != 1 || s.Outliers["e"] == "" {
		t.Fatalf("Summarize = count %d, outliers %v; want 4 and e", s.Count, s.Outliers)
	}
	got := s.Figures[community.FigContext]
	want := community.Stat{Median: 507.5 * mib, MAD: 5 * mib, Min: 500 * mib, Max: 520 * mib, Count: 4}
	if got != want {
		t.Errorf("context stat = %+v, want %+v", got, want)
	}
	// Two uploads are no group to judge by: nothing is held out.
	if s := community.Summarize("g", ms[3:]); s.Count != 2 || s.Outliers != nil {
		t.Errorf("Summarize(2) = %+v", s)
	}
	if why := s.Held(member("x", 900*mib).Figures); len(why) != 1 || !strings.Contains(why[0], "context_bytes") {
		t.Errorf("Held(900 MiB) = %q", why)
	}
	if why := s.Held(member("y", 515*mib).Figures); why != nil {
		t.Errorf("Held(515 MiB) = %q, want none", why)
	}
}

func TestSummaryCalibration(t *testing.T) {
	var ms []community.Member
	var like planner.Calibration
	for i, ctx := range []int64{552402944, 552402944 + 1<<20, 552402944 - 1<<20} {
		c, _ := calibrations.Parse(h200(t))
		c.Context += planner.Bytes(ctx - 552402944)
		c.VMM.Commit[0].P50us += float64(i)
		ms = append(ms, community.Member{ID: string(rune('a' + i)), Figures: community.Figures(&c)})
		like = c
	}
	s := community.Summarize("h200-140gib-linux-r580-cuda13.0", ms)
	c := s.Calibration(&like, "2026-12-01")
	if err := calibrations.Validate(&c); err != nil {
		t.Fatalf("the community calibration fails validation: %v", err)
	}
	if c.Context != 552402944 || c.Source != planner.CalibrationCommunity || c.VMM.Commit[0].P50us != 37.4 || len(c.VMM.Decommit) != 5 {
		t.Errorf("Calibration = context %d, source %q, commit %+v", c.Context, c.Source, c.VMM.Commit[0])
	}
	if _, err := planner.PlanMemory(planner.Input{Calibration: c, Model: planner.Model{}}); err == nil {
		t.Log("planned an empty model") // only that it takes the calibration without panicking
	}
	if math.IsNaN(s.Figures[community.FigContext].MAD) {
		t.Error("MAD is NaN")
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(h200(f))
	f.Add([]byte(`{"schema":"vramplan.calibration/v1"}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ch, err := community.Check(data)
		if err != nil {
			var r *community.Rejection
			if !errors.As(err, &r) || len(r.Reasons) == 0 {
				t.Fatalf("Check error %v is not a Rejection with reasons", err)
			}
			return
		}
		again, err := community.Check(ch.Document)
		if err != nil || again.Digest != ch.Digest {
			t.Fatalf("the canonical document does not check to itself: %v", err)
		}
		if want := calibrations.Format(&ch.Calibration); !bytes.Equal(ch.Document, want) {
			t.Fatalf("Check's document is not Format's:\n%s\nFormat:\n%s", ch.Document, want)
		}
		if err := calibrations.Validate(&ch.Calibration); err != nil {
			t.Fatalf("an accepted upload fails validation: %v", err)
		}
	})
}

// BenchmarkCheck checks the H200's measured calibration as an upload: the
// server's CPU per upload before the store.
func BenchmarkCheck(b *testing.B) {
	data := h200(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := community.Check(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDigestPinned pins the digests of two uploads, so that a change to the
// canonical encoding, which would give content already stored a second id,
// fails here: the measured H200 file as uploaded, and an upload whose notes
// hold every kind of character the encoding escapes and a latency small
// enough to be written with an exponent.
func TestDigestPinned(t *testing.T) {
	odd := edit(t, func(m map[string]any) {
		m["provenance"].(map[string]any)["notes"] = "a <b> & \"c\" \u2028 \x01 tab\t é ff"
		m["vmm"].(map[string]any)["commit"].([]any)[0].(map[string]any)["p50_us"] = 0.0000001234
	})
	// The same two in canonical form, which Check takes as its document,
	// and the H200's naming its source, which Check leaves out.
	oddCal, err := calibrations.Parse(odd)
	if err != nil {
		t.Fatal(err)
	}
	oddCanonical := calibrations.Format(&oddCal)
	named := bytes.Replace(h200(t), []byte(`"platform": "linux",`), []byte(`"platform": "linux",`+"\n  "+`"source": "measured",`), 1)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"h200-linux-cuda13.0.json", h200(t), "50b10c317b20a2359cf85b1ce72c34500397b32a326515cdc1540c0b1349e9f4"},
		{"escapes and exponents", odd, "1182b84cf6c65bf7eb90582e10280bdced4b3fcbf4ff447cdc7bc2878ec2dfde"},
		{"escapes and exponents, canonical", oddCanonical, "1182b84cf6c65bf7eb90582e10280bdced4b3fcbf4ff447cdc7bc2878ec2dfde"},
		{"h200-linux-cuda13.0.json naming its source", named, "50b10c317b20a2359cf85b1ce72c34500397b32a326515cdc1540c0b1349e9f4"},
	} {
		ch, err := community.Check(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ch.Digest != tc.want || ch.ID != tc.want[:20] {
			t.Errorf("Check(%s).Digest = %s (id %s), want %s", tc.name, ch.Digest, ch.ID, tc.want)
		}
	}
}
