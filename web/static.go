//go:build !(js && wasm)

package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// The assets are Deps.Static (package web/static's FS natively): the
// hand-written JavaScript and CSS and, in dist, the build outputs `make
// wasm` writes (planner.wasm, gguf.wasm and Go's wasm_exec.js). A missing
// build output answers 503, not a failed build.

// built names the assets only `make wasm` produces.
var built = map[string]bool{"dist/planner.wasm": true, "dist/wasm_exec.js": true, "dist/gguf.wasm": true}

// serveStatic serves fsys under /static/ (static_js.go says why the worker
// has no such route).
func serveStatic(e *echo.Echo, fsys fs.FS) {
	s := &assets{root: fsys}
	e.Match(getOrHead, "/static/*", s.handler(), cors)
	e.OPTIONS("/static/*", preflight("GET, HEAD"), cors)
	s.warm()
}

// assets serves one asset tree. It reads each file once and keeps its
// bytes, their gzip encoding and an ETag for each (the two encodings are
// different representations, so they carry different tags), made on first
// request or, for the large build outputs, when the app starts; requests
// serve these bytes and none copies them (each request copied the 11 MB
// gguf.wasm, so 100 slow readers pinned 1.17 GB). Names that are not files
// of the tree get no entry, so made-up names cannot grow the cache. It is
// safe for concurrent use.
type assets struct {
	root    fs.FS
	encoded sync.Map // name → *asset
}

type asset struct {
	once     sync.Once
	data     []byte // nil when the file cannot be read
	gzip     []byte
	etag     string // of data
	gzipEtag string // of gzip
	compress bool   // whether a client that takes gzip gets it
}

// warm encodes the build outputs in the background, so the first page
// load does not wait for gzip to squeeze a few megabytes of WebAssembly.
func (s *assets) warm() {
	for name := range built {
		go s.assetOf(name)
	}
}

func (s *assets) handler() echo.HandlerFunc {
	return func(c echo.Context) error {
		name := strings.TrimPrefix(path.Clean("/"+c.Param("*")), "/")
		a := s.assetOf(name)
		if a.data == nil || strings.HasSuffix(name, "README.md") {
			if built[name] {
				return echo.NewHTTPError(http.StatusServiceUnavailable, name+" is not built: run `make wasm`")
			}
			return echo.NewHTTPError(http.StatusNotFound)
		}
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache") // revalidate: the ETag makes it a 304
		h.Set("Vary", "Accept-Encoding")
		h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
		data, etag := a.data, a.etag
		if a.compress && strings.Contains(c.Request().Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			data, etag = a.gzip, a.gzipEtag
		}
		h.Set("ETag", etag)
		r := c.Request()
		if r.Header.Get("Range") != "" { // rare: net/http does ranges and their conditions
			http.ServeContent(c.Response(), r, name, time.Time{}, bytes.NewReader(data))
			return nil
		}
		if matches(r.Header.Get("If-None-Match"), etag) {
			return c.NoContent(http.StatusNotModified)
		}
		return c.Blob(http.StatusOK, h.Get("Content-Type"), data)
	}
}

// matches reports whether an If-None-Match list names etag, or is "*".
func matches(list, etag string) bool {
	for t := range strings.SplitSeq(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// assetOf returns the asset name, reading and encoding it on first use;
// every caller waits for that first use to finish (warm runs it in the
// background while requests arrive).
func (s *assets) assetOf(name string) *asset {
	v, ok := s.encoded.Load(name)
	if !ok {
		if fi, err := fs.Stat(s.root, name); err != nil || !fi.Mode().IsRegular() {
			return &asset{}
		}
		v, _ = s.encoded.LoadOrStore(name, &asset{})
	}
	a := v.(*asset)
	a.once.Do(func() { a.load(s.root, name) })
	return a
}

// load reads the file and makes its encodings and tags.
func (a *asset) load(root fs.FS, name string) {
	data, err := fs.ReadFile(root, name)
	if err != nil {
		return
	}
	sum := sha256.Sum256(data)
	a.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	a.gzipEtag = `"` + hex.EncodeToString(sum[:12]) + `-gzip"`
	if len(data) > 1024 {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write(data)
		w.Close()
		a.gzip, a.compress = b.Bytes(), true
	}
	a.data = data
}
