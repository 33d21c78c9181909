package bridge

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestNewRequest(t *testing.T) {
	lines := "content-type\napplication/json\nhost\nexample.org\naccept\ntext/html, */*"
	r, err := newRequest(context.Background(), "POST", "https://example.org/api/plan?batch=8", lines, []byte(`{"a":1}`))
	if err != nil {
		t.Fatalf("newRequest: %v", err)
	}
	body, _ := io.ReadAll(r.Body)
	for _, c := range []struct{ what, got, want string }{
		{"Method", r.Method, "POST"},
		{"Host", r.Host, "example.org"},
		{"RequestURI", r.RequestURI, "/api/plan?batch=8"},
		{"URL.Query batch", r.URL.Query().Get("batch"), "8"},
		{"Content-Type", r.Header.Get("Content-Type"), "application/json"},
		{"Accept (one value, as the Headers object joined it)", strings.Join(r.Header.Values("Accept"), "|"), "text/html, */*"},
		{"Body", string(body), `{"a":1}`},
		{"Proto", r.Proto, "HTTP/1.1"},
	} {
		if c.got != c.want {
			t.Errorf("newRequest(…).%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if r.ContentLength != -1 {
		t.Errorf("a body without Content-Length: ContentLength = %d, want -1", r.ContentLength)
	}
}

func TestNewRequestContentLength(t *testing.T) {
	for _, c := range []struct {
		lines string
		body  []byte
		want  int64
	}{
		{"", nil, 0},
		{"content-length\n12", make([]byte, 12), 12},
		{"content-length\n9000000", make([]byte, 100), 9000000}, // the loader read only part of it
		{"content-length\nx", []byte("ab"), -1},
	} {
		r, err := newRequest(context.Background(), "POST", "http://h/", c.lines, c.body)
		if err != nil {
			t.Fatalf("newRequest(%q): %v", c.lines, err)
		}
		if r.ContentLength != c.want {
			t.Errorf("newRequest(%q).ContentLength = %d, want %d", c.lines, r.ContentLength, c.want)
		}
	}
}

func TestNewRequestBad(t *testing.T) {
	for _, c := range []struct{ url, lines string }{
		{"/relative", ""},
		{"http://h/%zz", ""},
		{"ftp://h/", ""},
		{"http://h/", "only-a-name"},
	} {
		if _, err := newRequest(context.Background(), "GET", c.url, c.lines, nil); err == nil {
			t.Errorf("newRequest(%q, %q) = nil error, want one", c.url, c.lines)
		}
	}
}

func TestRecorder(t *testing.T) {
	for _, c := range []struct {
		what, method string
		handler      http.HandlerFunc
		status       int
		lines        string
		body         string // "<nil>" for none
	}{
		{"implicit 200, sniffed type", "GET", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<!doctype html><p>hi") },
			200, "Content-Type\ntext/html; charset=utf-8", "<!doctype html><p>hi"},
		{"first WriteHeader wins", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			w.WriteHeader(200)
			io.WriteString(w, "{}")
		}, 404, "Content-Type\napplication/json", "{}"},
		{"a 103 is dropped", "GET", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(103); w.WriteHeader(201) }, 201, "", ""},
		{"HEAD sends no body but its type", "HEAD", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain words") },
			200, "Content-Type\ntext/plain; charset=utf-8", "<nil>"},
		{"204 has no body", "DELETE", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, 204, "", "<nil>"},
		{"a newline in a value is a space; a bad name is dropped", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["X-A"] = []string{"one\r\ntwo"}
			w.Header()["Bad Name"] = []string{"v"}
			w.Header()["Content-Type"] = nil // as net/http: present but empty stops the sniffing
			io.WriteString(w, "<html>")
		}, 200, "X-A\none two", "<html>"},
	} {
		w := newRecorder()
		c.handler(w, nil)
		status, lines, body := w.answer(c.method)
		got := string(body)
		if body == nil {
			got = "<nil>"
		}
		if status != c.status || lines != c.lines || got != c.body {
			t.Errorf("%s: answer = %d, %q, %q; want %d, %q, %q", c.what, status, lines, got, c.status, c.lines, c.body)
		}
	}
}

func TestRecorderBodyNotAllowed(t *testing.T) {
	w := newRecorder()
	w.WriteHeader(http.StatusNotModified)
	if _, err := w.Write([]byte("x")); err != http.ErrBodyNotAllowed {
		t.Errorf("Write after 304 = %v, want http.ErrBodyNotAllowed", err)
	}
}

// FuzzCrossing sends any request description through newRequest and its
// header and body back through the recorder: nothing panics, every header
// pair arrives, and the answer's lines always parse back into pairs of a
// valid name and a value without a line break.
func FuzzCrossing(f *testing.F) {
	f.Add("GET", "http://h/x?y=1", "accept\n*/*", []byte(nil))
	f.Add("POST", "https://h/api/uploads", "content-length\n3\ncontent-type\napplication/json", []byte("abc"))
	f.Add("HEAD", "http://h/", "x-a\none\rtwo\nbad name\nv", []byte{})
	f.Fuzz(func(t *testing.T, method, u, lines string, body []byte) {
		r, err := newRequest(context.Background(), method, u, lines, body)
		if err != nil {
			return
		}
		pairs, got := 0, 0
		if lines != "" {
			pairs = (strings.Count(lines, "\n") + 1) / 2
		}
		for _, vs := range r.Header {
			got += len(vs)
		}
		if got != pairs {
			t.Fatalf("newRequest(%q): %d header values, want %d", lines, got, pairs)
		}
		w := newRecorder()
		for name, vs := range r.Header {
			for _, v := range vs {
				w.Header().Add(name, v)
			}
		}
		w.Write(body)
		_, out, b := w.answer(method)
		h, err := header(out)
		if err != nil {
			t.Fatalf("answer's header lines %q: %v", out, err)
		}
		for name, vs := range h {
			if !token(name) {
				t.Errorf("answer sends the header name %q", name)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n") {
					t.Errorf("answer sends %s: %q", name, v)
				}
			}
		}
		if method != http.MethodHead && string(b) != string(body) {
			t.Errorf("answer's body is %d bytes, the handler wrote %d", len(b), len(body))
		}
	})
}
