package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web"
)

// calPage renders the calibrations page of s after req, checking status.
func (s *server) calPage(t *testing.T, req *http.Request, status int) *goquery.Document {
	t.Helper()
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	if rec.Code != status {
		t.Fatalf("%s %s = %d, want %d\n%s", req.Method, req.URL, rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("%s %s: Content-Type %q", req.Method, req.URL, ct)
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// formPost is the upload form posted with doc as its file, as a browser
// without JavaScript sends it.
func formPost(t *testing.T, doc []byte) *http.Request {
	t.Helper()
	return formPostFrom(t, "", doc)
}

// formPostFrom is formPost from the client address addr ("" for
// httptest's).
func formPostFrom(t *testing.T, addr string, doc []byte) *http.Request {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	f, _ := w.CreateFormFile("file", "mycard.json")
	f.Write(doc)
	w.WriteField("document", "")
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/calibrations", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if addr != "" {
		req.RemoteAddr = addr + ":4321"
	}
	return req
}

func getReq(url string) *http.Request { return httptest.NewRequest(http.MethodGet, url, nil) }

// TestCalibrationsPage: every calibration of the table, each with its kind
// and provenance; a measured one with its command, an estimate with where
// its device total comes from.
func TestCalibrationsPage(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	doc := s.calPage(t, getReq("/calibrations"), http.StatusOK)
	all, _ := calibrations.All()
	for _, c := range all {
		row := doc.Find(`[data-testid="cal-` + c.ID + `"]`)
		if row.Length() != 1 {
			t.Errorf("row of %s: %d, want 1", c.ID, row.Length())
			continue
		}
		if got := row.Find(`[data-testid="cal-kind"]`).Text(); got != c.Kind() {
			t.Errorf("%s: kind %q, want %q", c.ID, got, c.Kind())
		}
		if got, want := row.Find(`[data-testid="cal-context"]`).Text(), strconv.FormatInt(c.Context.MiB(), 10); got != want {
			t.Errorf("%s: context %s MiB, want %s", c.ID, got, want)
		}
		if href, _ := row.Find(`[data-testid="cal-plan"]`).Attr("href"); href != "/?gpu="+c.ID {
			t.Errorf("%s: plan link %q", c.ID, href)
		}
		prov := row.Find(`[data-testid="cal-provenance"]`).Text()
		switch c.Kind() {
		case planner.CalibrationEstimated:
			if src := row.Find(`[data-testid="cal-total-source"]`).Text(); !strings.Contains(src, "MiB") || !strings.Contains(prov, "h200-linux-cuda13.0") {
				t.Errorf("%s: estimate's provenance %q / %q names no total source or basis", c.ID, src, prov)
			}
		case planner.CalibrationMeasured:
			if !strings.Contains(prov, c.Provenance.Method) || !strings.Contains(prov, c.Provenance.Date) {
				t.Errorf("%s: provenance %q, want method and date", c.ID, prov)
			}
		}
	}
	if doc.Find(`[data-testid="upload-form"]`).Length() != 1 {
		t.Error("no upload form on a server with a store")
	}
}

// TestCalibrationsUploadForm: the form without JavaScript: an accepted
// upload answers 201 with its token and appears as a community row with
// its statistics; its duplicate answers 200; withdrawing it with the
// token takes the row away; a refused one answers 422 naming the field.
func TestCalibrationsUploadForm(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	for n := 2; n < 4; n++ {
		s.calPage(t, formPostFrom(t, client(n), uploadDoc(t, n)), http.StatusCreated)
	}
	doc := s.calPage(t, formPost(t, uploadDoc(t, 1)), http.StatusCreated)
	res := doc.Find(`[data-testid="upload-result"]`)
	token := res.Find(`[data-testid="upload-token"]`).Text()
	if st, _ := res.Attr("data-status"); st != "accepted" || token == "" {
		t.Fatalf("upload result %q, token %q", res.Text(), token)
	}
	group := "h200-140gib-linux-r580-cuda13.0"
	row := doc.Find(`[data-testid="cal-` + group + `"]`)
	if k := row.Find(`[data-testid="cal-kind"]`).Text(); k != "community" ||
		!strings.Contains(row.Find(`[data-testid="cal-count"]`).Text(), "median of 3 distinct clients' medians over 3 uploads") ||
		row.Find(`[data-testid="stat-context_bytes"]`).Length() != 1 {
		t.Errorf("community row: kind %q, %q", k, row.Text())
	}
	if id, _ := doc.Find(`[data-testid="withdraw-id"]`).Attr("value"); id == "" {
		t.Error("the withdrawal form is not filled with the upload just stored")
	}
	id, _ := doc.Find(`[data-testid="withdraw-id"]`).Attr("value")
	dup := s.calPage(t, formPost(t, uploadDoc(t, 1)), http.StatusOK)
	if h := dup.Find(`[data-testid="upload-heading"]`).Text(); !strings.Contains(h, "Already uploaded") || dup.Find(`[data-testid="upload-token"]`).Length() != 0 {
		t.Errorf("duplicate: %q", h)
	}

	wrong := withdrawPost(id, "not-the-token")
	if w := s.calPage(t, wrong, http.StatusForbidden).Find(`[data-testid="withdraw-result"]`); !strings.Contains(w.Text(), "does not match") {
		t.Errorf("withdraw with a wrong token: %q", w.Text())
	}
	after := s.calPage(t, withdrawPost(id, token), http.StatusOK)
	if ok, _ := after.Find(`[data-testid="withdraw-result"]`).Attr("data-ok"); ok != "true" || after.Find(`[data-testid="cal-`+group+`"]`).Length() != 0 {
		t.Errorf("after withdrawing: %q, community row still there: %v", after.Find(`[data-testid="withdraw-result"]`).Text(), after.Find(`[data-testid="cal-`+group+`"]`).Length())
	}

	bad := bytes.Replace(uploadDoc(t, 2), []byte(`"granularity_bytes": 2097152`), []byte(`"granularity_bytes": 3000000`), 1)
	r := s.calPage(t, formPost(t, bad), http.StatusUnprocessableEntity).Find(`[data-testid="upload-reasons"] li`)
	if f, _ := r.Attr("data-field"); f != "vmm.granularity_bytes" {
		t.Errorf("refused upload: field %q, %q", f, r.Text())
	}
}

func withdrawPost(id, token string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/calibrations/withdraw", strings.NewReader(url.Values{"id": {id}, "token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

// TestCalibrationsFormHostile: the form refuses what the API refuses, with
// a 4xx page that says why, and shows uploaded names escaped.
func TestCalibrationsFormHostile(t *testing.T) {
	s := newServer(t, web.UploadOptions{})
	big := append(uploadDoc(t, 3), bytes.Repeat([]byte(" "), 70<<10)...)
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		want   string
	}{
		{"oversized", formPost(t, big), http.StatusRequestEntityTooLarge, "more than"},
		{"empty", formPost(t, nil), http.StatusBadRequest, "no calibration"},
		{"not JSON", formPost(t, []byte("{{{")), http.StatusUnprocessableEntity, "decoding"},
		{"doubled key", formPost(t, bytes.Replace(uploadDoc(t, 4), []byte(`"gpu": "NVIDIA H200"`), []byte(`"gpu": "NVIDIA H200", "GPU": "x"`), 1)),
			http.StatusUnprocessableEntity, "appears twice"},
		{"markup", formPost(t, bytes.Replace(uploadDoc(t, 5), []byte(`"gpu": "NVIDIA H200"`), []byte(`"gpu": "<script>alert(1)</script>"`), 1)),
			http.StatusUnprocessableEntity, "markup"},
	} {
		doc := s.calPage(t, tc.req, tc.status)
		if got := doc.Find(`[data-testid="upload-result"]`).Text(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if doc.Find("script:not([src]):not([type])").Length() != 1 { // the layout's own start-up script
			t.Errorf("%s: a script element came from the upload", tc.name)
		}
	}
	// An uploaded name is shown nowhere but folded into its group's key:
	// not a card whose total is known, the group stays out of the picker.
	quoted := bytes.Replace(uploadDoc(t, 6), []byte(`"gpu": "NVIDIA H200"`), []byte(`"gpu": "NVIDIA H200 \" onmouseover=\"alert(1) & 'x'"`), 1)
	doc := s.calPage(t, formPost(t, quoted), http.StatusCreated)
	if n := doc.Find(`tr[data-kind="community"]`).Length(); n != 0 {
		t.Errorf("%d community rows of an unknown card, want none", n)
	}
	if got := testid(doc, "unlisted").Text(); !strings.HasPrefix(got, "Community groups not in the picker: 1.") {
		t.Errorf("the unknown card's group: %q, want it counted apart", got)
	}
	if doc.Find("[onmouseover]").Length() != 0 || strings.Contains(doc.Text(), "onmouseover=") {
		t.Error("the uploaded name with quotes is on the page")
	}
}
