package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// The static folder holds the hand-written JavaScript and CSS; its dist
// folder the build outputs `make wasm` copies there (planner.wasm, gguf.wasm
// and Go's wasm_exec.js), git-ignored but for a README so the embed compiles on a
// clean clone. A missing build output answers 503, not a failed build.
//
//go:embed static
var static embed.FS

// built names the assets only `make wasm` produces.
var built = map[string]bool{"dist/planner.wasm": true, "dist/wasm_exec.js": true, "dist/gguf.wasm": true}

// encoded caches the gzip encoding and the ETag of each asset, made on
// first request or, for the large build outputs, when the app starts.
var encoded sync.Map // name → *asset

type asset struct {
	once sync.Once
	gzip []byte
	etag string
}

// warm encodes the build outputs in the background, so the first page
// load does not wait for gzip to squeeze a few megabytes of WebAssembly.
func warm() {
	root, _ := fs.Sub(static, "static")
	for name := range built {
		if data, err := fs.ReadFile(root, name); err == nil {
			go encodedOf(name, data)
		}
	}
}

func staticHandler() echo.HandlerFunc {
	root, _ := fs.Sub(static, "static")
	return func(c echo.Context) error {
		name := strings.TrimPrefix(path.Clean("/"+c.Param("*")), "/")
		data, err := fs.ReadFile(root, name)
		if err != nil || strings.HasSuffix(name, "README.md") {
			if built[name] {
				return echo.NewHTTPError(http.StatusServiceUnavailable, name+" is not built: run `make wasm`")
			}
			return echo.NewHTTPError(http.StatusNotFound)
		}
		a := encodedOf(name, data)
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

func encodedOf(name string, data []byte) *asset {
	v, _ := encoded.LoadOrStore(name, &asset{})
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
