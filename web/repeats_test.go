package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAPIRepeatedKeys checks that every API endpoint refuses a query key
// given twice with different values, naming it, as the calculator's own
// query is refused (calc.ParseQuery), rather than reading the first.
func TestAPIRepeatedKeys(t *testing.T) {
	for _, tc := range []struct{ url, key string }{
		{"/api/community?limit=5&limit=6", "limit"},
		{"/api/observations?engine=vllm&engine=sglang", "engine"},
		{"/api/uploads.jsonl?status=held&status=accepted", "status"},
		{"/api/plan?model=qwen3-8b-q8_0&gpu=h200&len=4096&len=8192", "len"},
	} {
		rec := get(t, tc.url)
		var e struct{ Error, Field string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || e.Field != tc.key || !strings.Contains(e.Error, "given twice") ||
			rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s = %d %s, want 400 naming %s, readable from any origin", tc.url, rec.Code, rec.Body, tc.key)
		}
	}
	if rec := get(t, "/api/community?limit=5&limit=5"); rec.Code != http.StatusOK {
		t.Errorf("GET /api/community with limit=5 twice = %d %s, want 200: the same value twice is one", rec.Code, rec.Body)
	}
}
