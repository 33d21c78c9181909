package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations"
	models "github.com/vramplan/vramplan/planner/catalog"
)

// TestRecoverPanics: a handler's panic, with an error or any other value,
// is a 500 in the app's error shape with the headers every answer carries,
// and the app serves on; http.ErrAbortHandler goes on up to net/http.
func TestRecoverPanics(t *testing.T) {
	h, _ := newApp(Deps{Models: models.All, Calibrations: calibrations.All})
	e := h.(*echo.Echo)
	e.GET("/panic-error", func(echo.Context) error { panic(errors.New("boom")) })
	e.GET("/panic-value", func(echo.Context) error { panic(42) })
	e.GET("/abort", func(echo.Context) error { panic(http.ErrAbortHandler) })
	for _, path := range []string{"/panic-error", "/panic-value"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var body apiError
		if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != http.StatusInternalServerError || err != nil || body.Error == "" {
			t.Errorf("GET %s = %d %q, want 500 with {\"error\": …}", path, rec.Code, rec.Body.String())
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q, want nosniff", path, got)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != http.ErrAbortHandler {
				t.Errorf("GET /abort panicked with %v, want http.ErrAbortHandler", r)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/abort", nil))
	}()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/models", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /api/models after the panics = %d, want 200", rec.Code)
	}
}
