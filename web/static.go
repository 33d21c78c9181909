package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// The static folder holds the hand-written JavaScript and CSS; its dist
// folder the build outputs `make wasm` copies there (planner.wasm and Go's
// wasm_exec.js), git-ignored but for a README so the embed compiles on a
// clean clone. A missing build output answers 503, not a failed build.
//
//go:embed static
var static embed.FS

// built names the assets only `make wasm` produces.
var built = map[string]bool{"dist/planner.wasm": true, "dist/wasm_exec.js": true, "dist/gguf.wasm": true}

// gzipped caches the gzip encoding of each asset, made on first request.
var gzipped sync.Map // name → []byte

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
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Vary", "Accept-Encoding")
		ctype := mime.TypeByExtension(path.Ext(name))
		if len(data) > 1024 && strings.Contains(c.Request().Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			data = gzipOf(name, data)
		}
		return c.Blob(http.StatusOK, ctype, data)
	}
}

func gzipOf(name string, data []byte) []byte {
	if z, ok := gzipped.Load(name); ok {
		return z.([]byte)
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	z, _ := gzipped.LoadOrStore(name, b.Bytes())
	return z.([]byte)
}
