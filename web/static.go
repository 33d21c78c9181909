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

	"github.com/labstack/echo/v4"
)

// The assets are Deps.Static (package web/static's FS natively): the
// hand-written JavaScript and CSS and, in dist, the build outputs `make
// wasm` writes (planner.wasm, gguf.wasm and Go's wasm_exec.js). A missing
// build output answers 503, not a failed build.

// built names the assets only `make wasm` produces.
var built = map[string]bool{"dist/planner.wasm": true, "dist/wasm_exec.js": true, "dist/gguf.wasm": true}

// exists reports whether fsys holds the file name.
func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// assets serves one asset tree and caches the gzip encoding and the ETag
// of each file, made on first request or, for the large build outputs, when
// the app starts. It is safe for concurrent use.
type assets struct {
	root    fs.FS
	encoded sync.Map // name → *asset
}

type asset struct {
	once sync.Once
	gzip []byte
	etag string
}

// warm encodes the build outputs in the background, so the first page
// load does not wait for gzip to squeeze a few megabytes of WebAssembly.
func (s *assets) warm() {
	for name := range built {
		if data, err := fs.ReadFile(s.root, name); err == nil {
			go s.encodedOf(name, data)
		}
	}
}

func (s *assets) handler() echo.HandlerFunc {
	return func(c echo.Context) error {
		name := strings.TrimPrefix(path.Clean("/"+c.Param("*")), "/")
		data, err := fs.ReadFile(s.root, name)
		if err != nil || strings.HasSuffix(name, "README.md") {
			if built[name] {
				return echo.NewHTTPError(http.StatusServiceUnavailable, name+" is not built: run `make wasm`")
			}
			return echo.NewHTTPError(http.StatusNotFound)
		}
		a := s.encodedOf(name, data)
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache") // revalidate: the ETag makes it a 304
		h.Set("Vary", "Accept-Encoding")
		h.Set("ETag", a.etag)
		if c.Request().Header.Get("If-None-Match") == a.etag {
			return c.NoContent(http.StatusNotModified)
		}
		if len(data) > 1024 && strings.Contains(c.Request().Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			data = a.gzip
		}
		return c.Blob(http.StatusOK, mime.TypeByExtension(path.Ext(name)), data)
	}
}

func (s *assets) encodedOf(name string, data []byte) *asset {
	v, _ := s.encoded.LoadOrStore(name, &asset{})
	a := v.(*asset)
	a.once.Do(func() {
		sum := sha256.Sum256(data)
		a.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write(data)
		w.Close()
		a.gzip = b.Bytes()
	})
	return a
}
