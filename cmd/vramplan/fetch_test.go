package main

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostile serves h as a vramplan server's /api/observations.
func hostile(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRefitFromHostileServer holds issue 31's point 7 on the client's
// side: `engines refit --from` and `observations list` end, with an error,
// on a list that never ends (an endless "next" ran until killed at 30 s,
// 107 MB and growing), a page past the bytes a list may have (a 250 MiB
// page took 1.05 GB and 20 s), a page of more observations than a page
// holds, and a server that stops answering.
func TestRefitFromHostileServer(t *testing.T) {
	defer func(d time.Duration) { listTimeout = d }(listTimeout)
	pages := 0
	for _, tc := range []struct {
		what    string
		h       http.HandlerFunc
		want    string
		timeout time.Duration
	}{
		{"an endless next", func(w http.ResponseWriter, r *http.Request) {
			pages++
			after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
			fmt.Fprintf(w, `{"observations":[],"next":%d}`, after+1)
		}, "past 1000 pages", 0},
		{"a 65 MiB page", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"observations":[{"id":"x","observation":"`))
			chunk := bytes.Repeat([]byte("A"), 1<<20)
			for range 65 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			w.Write([]byte(`"}]}`))
		}, "more than 67108864 bytes", 0},
		{"1,001 observations on a page", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"observations":[{}` + strings.Repeat(`,{}`, 1000) + `]}`))
		}, "more than 1000 observations", 0},
		{"a server that stops answering", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"observations":[`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, "took more than 1s", time.Second},
		{"not a list", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("[1,2]")) }, "want {", 0},
	} {
		listTimeout = cmp.Or(tc.timeout, 2*time.Minute)
		url := hostile(t, tc.h)
		for _, args := range [][]string{{"engines", "refit", "--from", url}, {"observations", "list", "--from", url}} {
			code, _, errs := runCLI(args...)
			if code != exitBadInput || !strings.Contains(errs, tc.want) {
				t.Errorf("%s, %s = %d %q, want an error saying %q", tc.what, args[:2], code, errs, tc.want)
			}
		}
	}
	if pages != 2*maxListPages {
		t.Errorf("the endless list was read for %d pages, want %d a command", pages, maxListPages)
	}
}

// TestRefitPrintsEscaped: what a server says (ids, statuses, reasons) is
// printed with its terminal escapes quoted, never as escapes.
func TestRefitPrintsEscaped(t *testing.T) {
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"observations":[{"id":"\u001b[2J\u001b[31mred","status":"\u001b]0;owned\u0007","reasons":["\u001b[1A"],"observation":{}}]}`))
	})
	for _, args := range [][]string{{"engines", "refit", "--from", url}, {"observations", "list", "--from", url}} {
		_, out, errs := runCLI(args...)
		if strings.ContainsAny(out+errs, "\x1b\x07") || !strings.Contains(out, `\x1b[31mred`) {
			t.Errorf("%s printed a server's terminal escapes, or not its id:\n%q", args[:2], out+errs)
		}
	}
}
