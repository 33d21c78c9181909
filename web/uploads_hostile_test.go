package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web"
)

// TestUploadHostile posts hostile bodies to the upload API: every answer
// is a 2xx for a document that checks, a 4xx with a reason otherwise, never
// a 5xx or a panic, and only a 201 stores anything. (The checks themselves
// are fuzzed by calibrations/community's FuzzCheck; fuzzing through this
// handler would build SQLite with the fuzzer's instrumentation.)
func TestUploadHostile(t *testing.T) {
	doc := string(uploadDoc(t, 1))
	bodies := []string{doc, doc, `{"schema":"vramplan.calibration/v1","id":"x","gpu":"` + "\u0000" + `"}`,
		`{"context_bytes": 1e400}`, `[{}]`, strings.Repeat("[", 10000), strings.Repeat(`{"a":`, 5000),
		`null`, `""`, "\xff\xfe", strings.Replace(doc, `"gpu": "NVIDIA H200"`, `"gpu": "NVIDIA H200", "gpu": "x"`, 1),
		strings.Replace(doc, `"context_bytes": 552407040`, `"context_bytes": 552407040.5`, 1),
		strings.Replace(doc, `"context_bytes": 552407040`, `"context_bytes": "552407040"`, 1),
		strings.Replace(doc, `"granularity_bytes": 2097152`, `"granularity_bytes": -2097152`, 1),
		strings.Replace(doc, `"p50_us": 36.4`, `"p50_us": 1e300`, 1),
		strings.Replace(doc, `"machine": "`, `"machine": "root@10.0.0.1 `, 1),
		doc[:len(doc)/2]}
	s := newServer(t, web.UploadOptions{PerClientHour: 1 << 40, DailyCap: 1 << 40})
	stored := 0
	for _, body := range bodies {
		body := []byte(body)
		req := httptest.NewRequest(http.MethodPost, "/api/uploads", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		var a answer
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			t.Fatalf("POST = %d with a body that is not JSON: %q", rec.Code, rec.Body)
		}
		switch {
		case rec.Code == http.StatusCreated:
			stored++
		case rec.Code == http.StatusOK:
			if !a.Duplicate {
				t.Fatalf("200 without duplicate: %s", rec.Body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			if a.Error == "" {
				t.Fatalf("%d without a reason: %s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("POST = %d: %s", rec.Code, rec.Body)
		}
		list, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl?status=accepted", nil)
		held, _ := s.do(t, http.MethodGet, "/api/uploads.jsonl?status=held", nil)
		if n := bytes.Count(list.Body.Bytes(), []byte("\n")) + bytes.Count(held.Body.Bytes(), []byte("\n")); n != stored {
			t.Fatalf("%d uploads stored, %d answered 201", n, stored)
		}
	}
	if stored != 1 { // the document; its duplicate-gpu-key variant is refused
		t.Errorf("%d hostile bodies stored, want 1", stored)
	}
}
