package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web"
)

const grid = "../planner/testdata/engines/llamacpp-h200"

// gridObservation returns the observation document of one run of the
// checked-in llama.cpp H200 grid, with kvExtra bytes added to its KV figure.
func gridObservation(t testing.TB, model, shape, config string, kvExtra int64) []byte {
	t.Helper()
	var log []byte
	for _, f := range []string{"load.log", config + ".log"} {
		b, err := os.ReadFile(filepath.Join(grid, "logs", model, f))
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, b...)
	}
	l, err := enginelog.Parse(log)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(grid, "models", shape+".json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := planner.ParseModel(data)
	if err != nil {
		t.Fatal(err)
	}
	o := observation.FromLog(&l, m, observation.GPU{Name: "NVIDIA H200", TotalMiB: 143155}, "b12072", "2026-11-30", "")
	for i := range o.Figures {
		if o.Figures[i].Key == "kv" {
			o.Figures[i].Bytes += kvExtra
		}
	}
	return observation.Format(&o)
}

func (s *server) observe(t testing.TB, doc []byte, want int) answer {
	t.Helper()
	rec, a := s.do(t, http.MethodPost, "/api/observations", doc)
	if rec.Code != want {
		t.Fatalf("POST /api/observations = %d, want %d\n%s", rec.Code, want, rec.Body)
	}
	return a
}

type listed struct {
	Observations []struct {
		ID          string          `json:"id"`
		Engine      string          `json:"engine"`
		Status      string          `json:"status"`
		Reasons     []string        `json:"reasons"`
		Created     string          `json:"created"`
		Observation json.RawMessage `json:"observation"`
	} `json:"observations"`
	Next int64 `json:"next"`
}

func (s *server) list(t testing.TB, query string) listed {
	t.Helper()
	rec, _ := s.do(t, http.MethodGet, "/api/observations"+query, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/observations%s = %d\n%s", query, rec.Code, rec.Body)
	}
	var l listed
	if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestObservationAccepted(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	doc := gridObservation(t, "dense", "dense-llama3-8b", "4096_4_1_f16_f16_0_512_0", 0)
	a := s.observe(t, doc, http.StatusCreated)
	if a.Status != "accepted" || a.Token == "" || a.ID == "" {
		t.Fatalf("answer = %+v", a)
	}
	var v any
	json.Unmarshal(doc, &v)
	compact, _ := json.Marshal(v)
	if dup := s.observe(t, compact, http.StatusOK); !dup.Duplicate || dup.ID != a.ID || dup.Token != "" {
		t.Errorf("duplicate answer = %+v, want id %s and no token", dup, a.ID)
	}
	held := s.observe(t, gridObservation(t, "dense", "dense-llama3-8b", "4096_4_1_f16_f16_0_512_0", 8<<20), http.StatusCreated)
	if held.Status != "held" || len(held.Reasons) != 1 || !strings.Contains(held.Reasons[0].Reason, "kv is") {
		t.Errorf("an observation whose KV buffer contradicts its shape: %+v, want held", held)
	}
	l := s.list(t, "")
	if len(l.Observations) != 2 || l.Observations[0].ID != a.ID || l.Observations[1].Status != "held" || l.Next != 0 {
		t.Fatalf("GET /api/observations = %+v", l)
	}
	if got := l.Observations[0]; got.Created != "2026-12-01" || !bytes.Equal(append(got.Observation, '\n'), doc) && !json.Valid(got.Observation) {
		t.Errorf("listed %+v: want the day only and the document", got)
	}
	if got := s.list(t, "?engine=vllm"); len(got.Observations) != 0 {
		t.Errorf("?engine=vllm lists %d", len(got.Observations))
	}
	if rec, e := s.do(t, http.MethodGet, "/api/observations?engine=seed", nil); rec.Code != 400 || e.Field != "engine" {
		t.Errorf("?engine=seed: %d %s", rec.Code, rec.Body)
	}
	rec, _ := s.do(t, http.MethodGet, "/api/observations/"+a.ID, nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"n_ctx":4096`) || strings.Contains(rec.Body.String(), "client") {
		t.Errorf("GET one = %d %s", rec.Code, rec.Body)
	}
}

func TestObservationWithdrawn(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	a := s.observe(t, gridObservation(t, "moe", "moe-qwen3-30b-a3b", "4096_1_0_f16_f16_1_512_0", 0), http.StatusCreated)
	for _, tt := range []struct {
		header []string
		status int
	}{
		{nil, 401}, {[]string{"Authorization", "Bearer wrong"}, 403},
		{[]string{"Authorization", "Bearer " + a.Token}, 204}, {[]string{"Authorization", "Bearer " + a.Token}, 404},
	} {
		if rec, _ := s.do(t, http.MethodDelete, "/api/observations/"+a.ID, nil, tt.header...); rec.Code != tt.status {
			t.Errorf("DELETE %v = %d, want %d\n%s", tt.header, rec.Code, tt.status, rec.Body)
		}
	}
	if l := s.list(t, ""); len(l.Observations) != 0 {
		t.Errorf("after withdrawal %d listed", len(l.Observations))
	}
}

// TestObservationHostile sends what a hostile or careless client would:
// each is refused with its field, and nothing is stored.
func TestObservationHostile(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	good := string(gridObservation(t, "swa", "swa-gemma3-4b", "4096_1_0_f16_f16_1_512_0", 0))
	for _, tt := range []struct {
		name, old, new string
		ctype          string
		status         int
		field          string
	}{
		{"unknown field", `"day":`, `"hostname": "box", "day":`, "", 422, "hostname"},
		{"doubled key", `"day":`, `"Day": "2026-01-01", "day":`, "", 422, "day"},
		{"markup", `"NVIDIA H200"`, `"<script>alert(1)</script>"`, "", 422, "gpu.name"},
		{"huge number", `"total_mib": 143155`, `"total_mib": 1e30`, "", 422, "gpu.total_mib"},
		{"negative", `"n_ubatch": 512`, `"n_ubatch": -512`, "", 422, "llama_cpp.n_ubatch"},
		{"a path", `"b12072"`, `"/home/me/llama.cpp/build"`, "", 422, "engine_version"},
		{"not json", `{`, `gpu=h200&`, "text/plain", 415, ""},
		{"too large", "}\n", "}" + strings.Repeat(" ", 64<<10), "", 413, ""},
	} {
		header := []string{}
		if tt.ctype != "" {
			header = []string{"Content-Type", tt.ctype}
		}
		rec, a := s.do(t, http.MethodPost, "/api/observations", []byte(strings.Replace(good, tt.old, tt.new, 1)), header...)
		if rec.Code != tt.status || a.Field != tt.field {
			t.Errorf("%s: %d field %q, want %d field %q\n%s", tt.name, rec.Code, a.Field, tt.status, tt.field, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "<script>") {
			t.Errorf("%s: the answer echoes markup: %s", tt.name, rec.Body)
		}
	}
	if l := s.list(t, ""); len(l.Observations) != 0 {
		t.Errorf("hostile uploads stored %d observations", len(l.Observations))
	}
}

func TestObservationRateLimit(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 2})
	s.observe(t, gridObservation(t, "dense", "dense-llama3-8b", "4096_1_0_f16_f16_1_512_0", 0), http.StatusCreated)
	s.upload(t, uploadDoc(t, 1), http.StatusCreated) // the same allowance as calibration uploads
	rec, a := s.do(t, http.MethodPost, "/api/observations", gridObservation(t, "dense", "dense-llama3-8b", "4096_4_0_f16_f16_1_512_0", 0))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || a.Error == "" {
		t.Errorf("third upload in the hour: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

// TestObservationEstimateHeld: an observation whose compute buffer is 3×
// or 0.01× the plan of its own shape and settings is stored held, out of
// the refit, where both were accepted (issue 31, point 7).
func TestObservationEstimateHeld(t *testing.T) {
	s := newServer(t, web.UploadOptions{PerClientHour: 1000})
	for _, scale := range []float64{3, 0.01} {
		var o observation.Observation
		doc := gridObservation(t, "dense", "dense-llama3-8b", "4096_4_1_f16_f16_0_512_0", 0)
		if err := json.Unmarshal(doc, &o); err != nil {
			t.Fatal(err)
		}
		for i := range o.Figures {
			if f := &o.Figures[i]; f.Key == "compute_buffer" {
				f.Bytes = int64(float64(f.Bytes) * scale)
			}
		}
		if a := s.observe(t, observation.Format(&o), http.StatusCreated); a.Status != "held" || len(a.Reasons) == 0 ||
			!strings.Contains(a.Reasons[0].Reason, "compute_buffer") {
			t.Errorf("an observation with the compute buffer × %v = %+v, want held", scale, a)
		}
	}
}
