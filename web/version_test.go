package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// v0Query is issue 29's vLLM 0.6 run as the page states it: Llama-3.1-8B on
// an RTX 3090 at 20,000 tokens, utilization 0.9 being V0's default.
const v0Query = "model=llama-3.1-8b-instruct-bf16&gpu=est-rtx3090-linux&engine=vllm&batch=0&len=20000"

// TestEngineVersionAPI plans the release the state or the input names,
// in GET and POST /api/plan, and refuses one that no range covers with the
// field at fault and the ranges named.
func TestEngineVersionAPI(t *testing.T) {
	var doc struct {
		Input  json.RawMessage `json:"input"`
		Engine struct {
			Version string `json:"version"`
			Launch  string `json:"launch"`
		} `json:"engine"`
	}
	rec := get(t, "/api/plan?"+v0Query+"&version=0.6.3")
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("GET /api/plan version=0.6.3 = %d %.300s", rec.Code, rec.Body)
	}
	var in struct {
		Serving struct{ Version string } `json:"serving"`
	}
	json.Unmarshal(doc.Input, &in)
	if doc.Engine.Version != "vLLM 0.6 (V0 engine)" || !strings.Contains(doc.Engine.Launch, "--gpu-memory-utilization 0.9 ") ||
		in.Serving.Version != "0.6.3" {
		t.Errorf("GET /api/plan version=0.6.3: engine %+v, input %s; want V0's rules, its 0.9 and the release in the input", doc.Engine, doc.Input)
	}
	// The plan's input, posted back, plans the same release.
	req := httptest.NewRequest(http.MethodPost, "/api/plan", bytes.NewReader(doc.Input))
	req.Header.Set("Content-Type", "application/json")
	post := httptest.NewRecorder()
	handler().ServeHTTP(post, req)
	if post.Code != http.StatusOK || !strings.Contains(post.Body.String(), `"version": "vLLM 0.6 (V0 engine)"`) {
		t.Errorf("POST /api/plan of its input = %d %.300s", post.Code, post.Body)
	}
	for _, v := range []string{"0.3", "next"} {
		rec := get(t, "/api/plan?"+v0Query+"&version="+v)
		var e struct{ Field, Error string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || e.Field != "serving.version" {
			t.Errorf("GET /api/plan version=%s = %d %+v, want 400 naming serving.version", v, rec.Code, e)
		}
	}
	if rec := get(t, "/api/plan?"+v0Query+"&version=0.3"); !strings.Contains(rec.Body.String(), "0.4 up to 0.8 (V0 engine)") {
		t.Errorf("GET /api/plan version=0.3 = %s, want the ranges named", rec.Body)
	}
}

// TestEngineVersionField renders the release field with the state's
// release, and the page states what the release plans.
func TestEngineVersionField(t *testing.T) {
	doc := page(t, "/?"+v0Query+"&version=0.6.3", http.StatusOK)
	f := testid(doc, "engine-version")
	if v, _ := f.Attr("value"); v != "0.6.3" || f.AttrOr("name", "") != "version" {
		t.Errorf("engine-version field = %q name %q, want 0.6.3 named version", v, f.AttrOr("name", ""))
	}
	if label := doc.Find(`label[for="version"]`).Text(); label != "Engine release" {
		t.Errorf("the field's label = %q", label)
	}
	if got := testid(doc, "engine").Text(); !strings.Contains(got, "vLLM 0.6 (V0 engine)") {
		t.Errorf("engine report = %q, want planned as vLLM 0.6 (V0 engine)", got)
	}
	bad := page(t, "/?"+v0Query+"&version=0.3", http.StatusBadRequest)
	if got := bad.Text(); !strings.Contains(got, "Engine release: vLLM 0.3 is outside the releases the profile covers") {
		t.Errorf("a release outside the ranges: the page does not say so by the field's label:\n%.2000s", got)
	}
}
