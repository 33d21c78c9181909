package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/web/store"
)

// This file holds the upload API's abuse limits: a count per client per
// hour and a global count per UTC day, both kept in the store so every
// instance of the app (each Workers isolate) shares them. A client is a
// keyed hash of its address (client.go); the address itself is never
// stored.

// clientKey caches the store's client-address key once it has been read,
// where UploadOptions.ClientKey gives none.
type clientKey struct {
	mu    sync.Mutex
	value []byte
}

// clientKeyValue returns the key of the client-address hashes:
// UploadOptions.ClientKey, or else the one kept in the store's settings.
func (a *app) clientKeyValue(r *http.Request) []byte {
	if a.opts.ClientKey != nil {
		return a.opts.ClientKey
	}
	a.key.mu.Lock()
	defer a.key.mu.Unlock()
	if a.key.value == nil {
		var b [32]byte
		rand.Read(b[:])
		v, err := a.deps.Store.Setting(r.Context(), store.SettingClientKey, hex.EncodeToString(b[:]))
		if err != nil {
			return []byte("unkeyed: the store could not be read") // not cached: the next request asks again
		}
		a.key.value = []byte(v)
	}
	return a.key.value
}

// limit counts the upload against its client's hour and the day. When
// either is over its limit it sets Retry-After and returns 429 and why; a
// store that cannot count is 503.
func (a *app) limit(c echo.Context) (int, error) {
	ls := a.limits(a.clientHash(c.Request()))
	adm, err := store.Admit(c.Request().Context(), a.deps.Store, ls.list[:], nil)
	return a.admitted(c, &ls, adm, err)
}

// uploadLimits are the limits an upload is counted against: its client's
// hour and the UTC day. Both windows are counted in hours (a day's window
// is its first hour), so one Sweep bound forgets both.
type uploadLimits struct {
	now, day int64
	list     [2]store.Limit
	resetAt  [2]int64
}

var limitWhat = [2]string{"uploads from one address per hour", "uploads per day on this server"}

// limits returns the limits of the client whose address hashes to client.
func (a *app) limits(client string) uploadLimits {
	now := a.opts.Now().Unix()
	hour, day := now/3600, now/86400
	return uploadLimits{now: now, day: day,
		list: [2]store.Limit{
			{Key: "client:" + client, Window: hour, Max: a.opts.PerClientHour},
			{Key: "global", Window: day * 24, Max: a.opts.DailyCap},
		},
		resetAt: [2]int64{(hour + 1) * 3600, (day + 1) * 86400}}
}

// admitted returns the HTTP status and error of what store.Admit did with
// ls: 0 and nil when it was within every limit; 429 with Retry-After when
// one was passed; 503 when the store could not count (with Retry-After when
// it was busy).
func (a *app) admitted(c echo.Context, ls *uploadLimits, adm store.Admission, err error) (int, error) {
	switch {
	case errors.Is(err, store.ErrBusy):
		c.Response().Header().Set("Retry-After", "1")
		return http.StatusServiceUnavailable, err
	case err != nil:
		return http.StatusServiceUnavailable, err
	case adm.Over >= 0:
		retry := ls.resetAt[adm.Over] - ls.now
		c.Response().Header().Set("Retry-After", strconv.FormatInt(retry, 10))
		return http.StatusTooManyRequests, fmt.Errorf("more than %d %s: retry in %d s", ls.list[adm.Over].Max, limitWhat[adm.Over], retry)
	}
	a.sweep(c, ls.day)
	return 0, nil
}

// sweep forgets the counters of earlier days, once per day per instance.
func (a *app) sweep(c echo.Context, day int64) {
	a.key.mu.Lock()
	due := a.swept < day
	a.swept = max(a.swept, day)
	a.key.mu.Unlock()
	if due {
		a.deps.Store.Sweep(c.Request().Context(), (day-1)*24) // hour windows of two days ago and before
	}
}
