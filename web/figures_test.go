package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestBudgetForms: the budget the page's field, its URL and GET /api/plan
// take is read as the CLI's --budget reads it (planner.ParseBytes): binary
// and decimal units in any case, with or without a space, and the figures
// the page prints; the page says how it read it.
func TestBudgetForms(t *testing.T) {
	for _, tc := range []struct {
		budget string
		bytes  planner.Bytes
		note   string
	}{
		{"24GiB", 24 * planner.GiB, "Read as 24,576 MiB (24 GiB)."},
		{"24 gib", 24 * planner.GiB, "Read as 24,576 MiB (24 GiB)."},
		{"24G", 24 * planner.GiB, "Read as 24,576 MiB (24 GiB)."},
		{"24gb", 24e9, "Read as 24 GB, in decimal units (1 GB = 10⁹ bytes): 22,888 MiB (22.4 GiB)."},
		{"24 GB", 24e9, "Read as 24 GB, in decimal units"},
		{"24,576", 24 * planner.GiB, "Read as 24,576 MiB (24 GiB)."},
		{"24", 24 * planner.MiB, "a bare number is MiB; write 24GiB for GiB."},
	} {
		q := b1Query + "&budget=" + url.QueryEscape(tc.budget)
		rec := get(t, "/api/plan?"+q)
		var p planner.Plan
		if err := json.Unmarshal(rec.Body.Bytes(), &p); rec.Code != http.StatusOK && rec.Code != http.StatusUnprocessableEntity || err != nil {
			t.Fatalf("GET /api/plan?%s = %d %s", q, rec.Code, rec.Body)
		}
		if p.Budget != tc.bytes {
			t.Errorf("GET /api/plan with budget %q: budget %d bytes, want %d", tc.budget, p.Budget, tc.bytes)
		}
		doc := page(t, "/?"+q, http.StatusOK)
		if got := testid(doc, "budget-note").Text(); !strings.Contains(got, tc.note) {
			t.Errorf("page with budget %q: note %q, want it to say %q", tc.budget, got, tc.note)
		}
		if typ, _ := testid(doc, "budget").Attr("type"); typ != "text" {
			t.Errorf("the budget field is an <input type=%q>: a number field refuses %q", typ, tc.budget)
		}
	}
	doc := page(t, "/?"+b1Query, http.StatusOK)
	if got := testid(doc, "budget-note").Text(); got != "Empty: the whole of this GPU, 32,607 MiB (31.8 GiB)." {
		t.Errorf("page without a budget: note %q", got)
	}
	rec := get(t, "/?"+b1Query+"&budget=1,5+GB")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "invalid size") {
		t.Errorf("budget 1,5 GB (a decimal comma) = %d, want 400 saying the size is invalid", rec.Code)
	}
}

// TestFiguresGrouped: the page prints long figures with thousands
// separators and, past 10 GiB, in GiB beside MiB; the bar's label carries
// its figures for screen readers; the result region is not itself live.
func TestFiguresGrouped(t *testing.T) {
	doc := page(t, "/?"+nofitQuery, http.StatusOK)
	for id, want := range map[string]string{"budget-mib": "32,607", "budget-gib": "(31.8 GiB)"} {
		if got := testid(doc, id).Text(); got != want {
			t.Errorf("[data-testid=%s] = %q, want %q", id, got, want)
		}
	}
	verdict := testid(doc, "verdict").Text()
	if !strings.Contains(verdict, "32,607 MiB (31.8 GiB) budget") {
		t.Errorf("verdict %q does not group its figures", verdict)
	}
	label, _ := testid(doc, "bar").Attr("aria-label")
	if !strings.HasPrefix(label, "memory by tier: driver 5,579 MiB, T2 engine ") || !strings.Contains(label, " of the 32,607 MiB (31.8 GiB) budget") {
		t.Errorf("bar aria-label = %q, want every tier's figure and the total against the budget", label)
	}
	if live, ok := testid(doc, "result").Attr("aria-live"); ok {
		t.Errorf("#result is aria-live=%q: every slider step would re-announce it", live)
	}
	if live, _ := testid(doc, "announce").Attr("aria-live"); live != "polite" {
		t.Errorf("no polite live region for the settled verdict (aria-live=%q)", live)
	}
}
