package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestViewRefusalSaysWhy checks /api/view and /api/gpus on a state the
// planner refuses (tensor parallel 64 of a model of 32 query heads): a 400
// whose error says why, as the page's title does, never an empty one.
func TestViewRefusalSaysWhy(t *testing.T) {
	for _, route := range []string{"/api/view", "/api/gpus"} {
		rec := get(t, route+"?model=qwen3-8b-q8_0&gpu=h200&tp=64")
		var e struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || !strings.Contains(e.Error, "not divisible by tensor_parallel 64") {
			t.Errorf("GET %s with tp=64 = %d %s, want 400 saying why", route, rec.Code, rec.Body)
		}
	}
}
