package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
)

// The app is one handler: serve it, or call it directly as here.
func ExampleNew() {
	h := web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/plan?model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8", nil))
	var plan struct {
		Fits  bool  `json:"fits"`
		Total int64 `json:"total_bytes"`
	}
	json.Unmarshal(rec.Body.Bytes(), &plan)
	fmt.Println(rec.Code, plan.Fits, plan.Total>>20, "MiB")
	// Output: 200 true 12490 MiB
}
