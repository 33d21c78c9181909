package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// This file holds the upload API's abuse limits: a count per client per
// hour and a global count per UTC day, both kept in the store so every
// instance of the app (each Workers isolate) shares them. A client is a
// salted hash of its address; the address itself is never stored.

// saltSetting names the store setting holding the address-hash salt.
const saltSetting = "client-address-salt"

// salt caches the store's salt once it has been read.
type salt struct {
	mu    sync.Mutex
	value []byte
}

func (a *app) saltValue(c echo.Context) []byte {
	a.salt.mu.Lock()
	defer a.salt.mu.Unlock()
	if a.salt.value == nil {
		var b [32]byte
		rand.Read(b[:])
		v, err := a.deps.Store.Setting(c.Request().Context(), saltSetting, hex.EncodeToString(b[:]))
		if err != nil {
			return []byte("unsalted: the store could not be read") // not cached: the next request asks again
		}
		a.salt.value = []byte(v)
	}
	return a.salt.value
}

// clientHash returns the salted hash of the request's client address.
func (a *app) clientHash(c echo.Context) string {
	addr := ""
	if h := a.opts.ClientHeader; h != "" {
		addr = strings.TrimSpace(strings.Split(c.Request().Header.Get(h), ",")[0])
	}
	if addr == "" {
		addr = c.Request().RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
	}
	m := hmac.New(sha256.New, a.saltValue(c))
	m.Write([]byte(addr))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// limit counts the upload against its client's hour and the day. When
// either is over its limit it sets Retry-After and returns 429 and why; a
// store that cannot count is 503.
func (a *app) limit(c echo.Context) (int, error) {
	ctx := c.Request().Context()
	now := a.opts.Now().Unix()
	hour, day := now/3600, now/86400
	// Both windows are counted in hours (a day's window is its first hour),
	// so one Sweep bound forgets both.
	for _, l := range []struct {
		key     string
		window  int64
		resetAt int64
		max     int64
		what    string
	}{
		{"client:" + a.clientHash(c), hour, (hour + 1) * 3600, a.opts.PerClientHour, "uploads from one address per hour"},
		{"global", day * 24, (day + 1) * 86400, a.opts.DailyCap, "uploads per day on this server"},
	} {
		n, err := a.deps.Store.Hit(ctx, l.key, l.window)
		if err != nil {
			return http.StatusServiceUnavailable, err
		}
		if n > l.max {
			retry := l.resetAt - now
			c.Response().Header().Set("Retry-After", strconv.FormatInt(retry, 10))
			return http.StatusTooManyRequests, fmt.Errorf("more than %d %s: retry in %d s", l.max, l.what, retry)
		}
	}
	a.sweep(c, day)
	return 0, nil
}

// sweep forgets the counters of earlier days, once per day per instance.
func (a *app) sweep(c echo.Context, day int64) {
	a.salt.mu.Lock()
	due := a.swept < day
	a.swept = max(a.swept, day)
	a.salt.mu.Unlock()
	if due {
		a.deps.Store.Sweep(c.Request().Context(), (day-1)*24) // hour windows of two days ago and before
	}
}
