package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store"
)

// plannedGPU returns the gpu of the state a calculator page planned.
func plannedGPU(t *testing.T, doc *goquery.Document) string {
	t.Helper()
	q, _ := testid(doc, "calculator").Attr("data-query")
	v, _ := url.ParseQuery(q)
	if planned, _ := testid(doc, "result").Attr("data-planned"); planned != "true" {
		t.Errorf("%s: not planned: %s", q, testid(doc, "error").Text())
	}
	return v.Get("gpu")
}

// TestNaturalGPUNames checks that the page, /embed and the API take the
// names people type for a card (issue 27), as the CLI does, and plan on
// its Linux entry, saying so.
func TestNaturalGPUNames(t *testing.T) {
	for name, want := range map[string]string{
		"4090": "est-rtx4090-linux", "rtx4090": "est-rtx4090-linux", "RTX 4090": "est-rtx4090-linux",
		"NVIDIA GeForce RTX 4090": "est-rtx4090-linux", "3090": "est-rtx3090-linux", "l40s": "est-l40s-linux",
		"h200": "h200-linux-cuda13.0", "5090": "est-rtx5090-linux", "h100 sxm": "est-h100-sxm-linux",
	} {
		for _, path := range []string{"/", "/embed"} {
			doc := page(t, path+"?model=qwen3-8b-q8_0&gpu="+url.QueryEscape(name), http.StatusOK)
			if got := plannedGPU(t, doc); got != want {
				t.Errorf("%s?gpu=%s planned on %s, want %s", path, name, got, want)
			}
		}
		rec := get(t, "/api/calibrations/"+url.PathEscape(name))
		var c planner.Calibration
		if json.Unmarshal(rec.Body.Bytes(), &c); rec.Code != http.StatusOK || c.ID != want {
			t.Errorf("GET /api/calibrations/%s = %d %s, want %s", name, rec.Code, c.ID, want)
		}
	}
	doc := page(t, "/?model=qwen3-8b-q8_0&gpu=rtx5090", http.StatusOK)
	if got := plannedGPU(t, doc); got != "est-rtx5090-linux" {
		t.Errorf("gpu=rtx5090 planned on %s, want the Linux entry", got)
	}
	if title := doc.Find("title").Text(); !strings.Contains(title, "RTX 5090 under Linux") {
		t.Errorf("title %q does not name the platform", title)
	}
	if v := testid(doc, "verdict").Text(); !strings.HasPrefix(v, "Under Linux: ") {
		t.Errorf("verdict %q does not name the platform", v)
	}
	if note := testid(doc, "gpu-note").Text(); !strings.Contains(note, "rtx5090-wsl2-cuda13.3") || !strings.Contains(note, "WSL2") {
		t.Errorf("gpu note %q does not name the WSL2 entry", note)
	}
	if rec := get(t, "/api/calibrations/rtx5090"); !strings.Contains(rec.Header().Get("Vramplan-Note"), "rtx5090-wsl2-cuda13.3") {
		t.Errorf("GET /api/calibrations/rtx5090: note %q", rec.Header().Get("Vramplan-Note"))
	}
}

// TestGPUChooser checks a name of several cards: the page and /embed are
// a chooser (300) of links to the same state on each card, each of which
// plans; the API answers 300 with the choices.
func TestGPUChooser(t *testing.T) {
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/?model=qwen3-8b-q8_0&gpu=h100&batch=4", []string{"est-h100-nvl-linux", "est-h100-pcie-linux", "est-h100-sxm-linux"}},
		{"/embed?model=qwen3-8b-q8_0&gpu=A100&len=8192", []string{"est-a100-40gb-linux", "est-a100-80gb-linux"}},
	} {
		doc := page(t, tt.path, http.StatusMultipleChoices)
		links := testid(doc, "choice")
		if links.Length() != len(tt.want) || testid(doc, "calculator").Length() != 0 {
			t.Fatalf("%s: %d choices, calculator %d", tt.path, links.Length(), testid(doc, "calculator").Length())
		}
		if embed := strings.HasPrefix(tt.path, "/embed"); embed != (doc.Find("header.site").Length() == 0) {
			t.Errorf("%s: site header %d", tt.path, doc.Find("header.site").Length())
		}
		base, _ := url.Parse(tt.path)
		links.Each(func(i int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			u := base.ResolveReference(&url.URL{RawQuery: strings.TrimPrefix(href, "?")})
			if !strings.HasSuffix(a.Text(), "under Linux, estimated ("+tt.want[i]+")") {
				t.Errorf("%s: choice %d = %q, want %s", tt.path, i, a.Text(), tt.want[i])
			}
			if got := plannedGPU(t, page(t, u.Path+"?"+u.RawQuery, http.StatusOK)); got != tt.want[i] {
				t.Errorf("%s: the link %s plans on %s, want %s", tt.path, href, got, tt.want[i])
			}
			if q := u.Query(); q.Get("model") != "qwen3-8b-q8_0" {
				t.Errorf("%s: the link %s drops the state", tt.path, href)
			}
		})
	}
	for _, path := range []string{"/api/calibrations/h100", "/api/plan?gpu=h100&model=qwen3-8b-q8_0", "/api/view?gpu=h100"} {
		rec := get(t, path)
		var e struct {
			Error   string
			Choices []struct{ ID, Label string }
		}
		if json.Unmarshal(rec.Body.Bytes(), &e); rec.Code != http.StatusMultipleChoices || len(e.Choices) != 3 ||
			e.Choices[2].ID != "est-h100-sxm-linux" || e.Choices[2].Label != "NVIDIA H100 80GB HBM3 under Linux, estimated" {
			t.Errorf("GET %s = %d %s, want 300 with the three H100s", path, rec.Code, rec.Body)
		}
	}
}

// cardDoc is what `gpuagent calibrate` would upload from the card of the
// table entry id: its figures, as a measurement, with notes n.
func cardDoc(t testing.TB, id string, n int) []byte {
	t.Helper()
	c, err := calibrations.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	c.Source, c.Provenance.Method, c.Provenance.Notes = "", "gpuagent calibrate", fmt.Sprintf("upload %d", n)
	c.Context += planner.Bytes(n) * 4096
	return calibrations.Format(&c)
}

// TestLinksSurviveUploads checks that an id that resolved keeps resolving
// as uploads change the picker: an estimate replaced by a community
// aggregate names the aggregate, with a note; a group still pending names
// the estimate; h200 names the measured entry beside a community one.
func TestLinksSurviveUploads(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	const group = "rtx4090-24gib-linux-r580-cuda13.0"
	pageOf := func(path string) *goquery.Document {
		t.Helper()
		rec, _ := s.do(t, http.MethodGet, path, nil)
		doc, _ := goquery.NewDocumentFromReader(rec.Body)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", path, rec.Code, testid(doc, "error").Text())
		}
		return doc
	}
	s.uploadFrom(t, client(0), cardDoc(t, "est-rtx4090-linux", 0), http.StatusCreated)
	for _, path := range []string{"/?gpu=est-rtx4090-linux", "/?gpu=" + group, "/embed?gpu=4090"} {
		if got := plannedGPU(t, pageOf(path)); got != "est-rtx4090-linux" {
			t.Errorf("one upload: %s plans on %s, want the estimate", path, got)
		}
	}
	if note := testid(pageOf("/?gpu="+group), "gpu-note").Text(); !strings.Contains(note, "pending: 1 of the 3") {
		t.Errorf("a pending group's id: note %q", note)
	}
	for n := 1; n < 3; n++ {
		s.uploadFrom(t, client(n), cardDoc(t, "est-rtx4090-linux", n), http.StatusCreated)
	}
	for _, path := range []string{"/?gpu=est-rtx4090-linux", "/embed?gpu=est-rtx4090-linux"} {
		doc := pageOf(path)
		if got := plannedGPU(t, doc); got != group {
			t.Errorf("after 3 clients' uploads: %s plans on %s, want %s", path, got, group)
		}
		if note := testid(doc, "gpu-note").Text(); !strings.Contains(note, "is replaced by the community aggregate "+group) {
			t.Errorf("%s: note %q", path, note)
		}
	}
	rec, _ := s.do(t, http.MethodGet, "/api/calibrations/est-rtx4090-linux", nil)
	if note, _ := url.PathUnescape(rec.Header().Get("Vramplan-Note")); rec.Code != http.StatusOK || !strings.Contains(note, "replaced") {
		t.Errorf("GET /api/calibrations/est-rtx4090-linux = %d, note %q", rec.Code, note)
	}
	for n := range 3 {
		s.uploadFrom(t, client(n), uploadDoc(t, n), http.StatusCreated)
	}
	for _, path := range []string{"/?gpu=h200", "/embed?gpu=h200", "/?gpu=H200-linux"} {
		if got := plannedGPU(t, pageOf(path)); got != "h200-linux-cuda13.0" {
			t.Errorf("beside a community H200: %s plans on %s", path, got)
		}
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/calibrations/h200", nil); rec.Code != http.StatusOK {
		t.Errorf("GET /api/calibrations/h200 = %d %s", rec.Code, rec.Body)
	}
	if got := plannedGPU(t, pageOf("/?gpu=h200-140gib-linux-r580-cuda13.0")); got != "h200-140gib-linux-r580-cuda13.0" {
		t.Errorf("the community H200's id plans on %s", got)
	}
}

// TestPickerSpam stores 3,000 uploads of made-up GPU names (ten of them
// from three clients each), as the upload path stores them: none reaches
// the picker, so / and /api/community keep their size, and the listings of
// pending groups are paged.
func TestPickerSpam(t *testing.T) {
	if testing.Short() {
		t.Skip("3,021 uploads")
	}
	s := newServer(t, web.UploadOptions{PerClientHour: 1 << 20, DailyCap: 1 << 20})
	size := func(path string) int {
		rec, _ := s.do(t, http.MethodGet, path, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		return rec.Body.Len()
	}
	const names = 3000
	home, list := size("/"), size("/api/community")
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for n := range work {
				c, _ := calibrations.Parse(uploadDoc(t, n))
				c.GPU = fmt.Sprintf("NVIDIA Fake %04d", n)
				from := 1
				if n < 10 {
					from = 3 // a quorum of clients, of a card whose total is not known
				}
				for k := range from {
					ch, err := community.Check(calibrations.Format(&c))
					if err != nil {
						t.Error(err)
						return
					}
					u := store.Upload{ID: ch.ID, Digest: ch.Digest, Group: ch.Group.String(), Status: store.StatusAccepted,
						Created: s.now, Client: fmt.Sprint("client", k), Figures: ch.Figures, Document: ch.Document}
					if _, _, err := s.st.Put(context.Background(), u); err != nil {
						t.Error(err)
					}
					c.Context += 4096
				}
			}
		})
	}
	for n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
	c, _ := calibrations.Parse(uploadDoc(t, 1))
	c.GPU = "NVIDIA Fake 9999"
	s.uploadFrom(t, client(1), calibrations.Format(&c), http.StatusCreated) // and one through the API
	if got := size("/"); got != home {
		t.Errorf("GET / is %d bytes after %d made-up names, %d before", got, names, home)
	}
	if got := size("/api/community"); got != list {
		t.Errorf("GET /api/community is %d bytes after %d made-up names, %d before", got, names, list)
	}
	rec, _ := s.do(t, http.MethodGet, "/api/community?status=pending", nil)
	var gs []struct{ Group, Status string }
	if json.Unmarshal(rec.Body.Bytes(), &gs); len(gs) != 100 || gs[0].Status != "pending" || !strings.Contains(rec.Header().Get("Link"), `rel="next"`) {
		t.Errorf("GET /api/community?status=pending: %d groups, Link %q", len(gs), rec.Header().Get("Link"))
	}
	next := strings.TrimSuffix(strings.TrimPrefix(strings.Split(rec.Header().Get("Link"), ";")[0], "<"), ">")
	rec, _ = s.do(t, http.MethodGet, next, nil)
	var more []struct{ Group string }
	if json.Unmarshal(rec.Body.Bytes(), &more); len(more) != 100 || more[0].Group <= gs[99].Group {
		t.Errorf("GET %s: %d groups from %v", next, len(more), more[:min(1, len(more))])
	}
	rec, _ = s.do(t, http.MethodGet, "/calibrations", nil)
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if n := doc.Find(`tr[data-kind="community"]`).Length(); n != 0 || !strings.HasPrefix(testid(doc, "unlisted").Text(), "Community groups not in the picker: 3001.") {
		t.Errorf("/calibrations: %d community rows, %q; want none and the count of the others", n, testid(doc, "unlisted").Text())
	}
	if rec, _ := s.do(t, http.MethodGet, "/api/community?limit=100000", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("GET /api/community?limit=100000 = %d, want 400", rec.Code)
	}
}

// TestLookalikeUploads checks that the API refuses look-alike names by
// field, and groups a full-width name with the card it spells.
func TestLookalikeUploads(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	for _, name := range []string{"NVIDIA \u041d200", "NVIDIA H200\u2066\u2069"} {
		c, _ := calibrations.Parse(uploadDoc(t, 1))
		c.GPU = name
		if a := s.upload(t, calibrations.Format(&c), http.StatusUnprocessableEntity); a.Field != "gpu" {
			t.Errorf("upload of %q: field %q, %s", name, a.Field, a.Error)
		}
	}
	c, _ := calibrations.Parse(uploadDoc(t, 2))
	c.GPU = "ＮＶＩＤＩＡ Ｈ２００"
	if a := s.upload(t, calibrations.Format(&c), http.StatusCreated); a.Group != "h200-140gib-linux-r580-cuda13.0" {
		t.Errorf("a full-width H200: group %q", a.Group)
	}
}
