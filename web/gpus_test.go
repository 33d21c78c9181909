package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/web/calc"
)

const gpusQuery = "model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&len=32768"

// TestGPUsTable checks the page's "Which GPUs" table without JavaScript:
// a row per GPU the filter shows, each linking to the state on its GPU and
// layout, the headings linking to the sorted table, and the filters in the
// controls form.
func TestGPUsTable(t *testing.T) {
	var all calc.GPUsView
	if err := json.Unmarshal(get(t, "/api/gpus?"+gpusQuery).Body.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	doc := page(t, "/?"+gpusQuery+"&gmin=40&glabel=estimated&gsort=memory", http.StatusOK)
	rows := doc.Find(`[data-testid="gpu-rows"] > [data-testid="gpu-row"]`)
	if rows.Length() == 0 || rows.Length() >= len(all.Rows) {
		t.Fatalf("gmin=40&glabel=estimated shows %d of %d rows", rows.Length(), len(all.Rows))
	}
	for i := range rows.Length() {
		r := rows.Eq(i)
		if label := r.Find(`[data-testid="gpu-label"]`).Text(); label != "estimated" {
			t.Errorf("row %s is labelled %q under glabel=estimated", r.AttrOr("data-id", ""), label)
		}
		href := r.Find(`[data-testid="gpu-link"]`).AttrOr("href", "")
		if !strings.Contains(href, "gpu="+r.AttrOr("data-id", "")) {
			t.Errorf("row %s links to %q, not its GPU", r.AttrOr("data-id", ""), href)
		}
	}
	if got := testid(doc, "gpu-col-memory").AttrOr("aria-sort", ""); got != "descending" {
		t.Errorf("gsort=memory: the memory heading's aria-sort is %q", got)
	}
	for _, id := range []string{"gmin", "glabel", "gsort"} {
		if testid(doc, id).AttrOr("form", "") != "controls" {
			t.Errorf("the %s control is not the controls form's", id)
		}
	}
	if v, _ := testid(doc, "gsort").Attr("value"); v != "memory" {
		t.Errorf("the gsort field holds %q", v)
	}
}

func TestGPUsBadKeys(t *testing.T) {
	for _, q := range []string{"gsort=speed", "glabel=guessed", "gmin=-4", "gmin=lots"} {
		doc := page(t, "/?"+gpusQuery+"&"+q, http.StatusBadRequest)
		key, _, _ := strings.Cut(q, "=")
		if msg := testid(doc, "error").Text(); !strings.HasPrefix(msg, calc.Label(key)+": ") {
			t.Errorf("%s: the error %q does not name its control, %q", q, msg, calc.Label(key))
		}
		if doc.Find("#gpus").Length() != 0 {
			t.Errorf("%s: the page shows a table for a state it cannot read", q)
		}
	}
}
