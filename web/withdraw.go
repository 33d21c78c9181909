package web

// This file withdraws uploads and observations: DELETE /api/uploads/:id,
// DELETE /api/observations/:id and the calibrations page's withdrawal form
// each take the deletion token given with the upload. A wrong token is
// counted against its client's hour as an upload is (UploadOptions.
// PerClientHour), and a client past the limit is refused (429) before
// anything is looked up. Only a wrong token writes (its count): the token
// is compared with a read of the stored hash, and the limit with a read of
// the count (store.Store.HitCount), so a flood of wrong tokens costs one
// write a client an hour up to the limit, and reads after it.

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/web/store"
)

// A withdrawable is what a deletion token withdraws: an upload or an
// observation, named what, whose stored token hash hash reads, and which
// del deletes by id and token hash.
type withdrawable struct {
	what string
	hash func(s store.Store, ctx context.Context, id string) (string, error)
	del  func(s store.Store, ctx context.Context, id, tokenHash string) error
}

var (
	uploadKind = withdrawable{what: "upload", del: store.Store.Delete,
		hash: func(s store.Store, ctx context.Context, id string) (string, error) {
			u, err := s.Get(ctx, id)
			return u.TokenHash, err
		}}
	observationKind = withdrawable{what: "observation", del: store.Store.DeleteObservation,
		hash: func(s store.Store, ctx context.Context, id string) (string, error) {
			o, err := s.GetObservation(ctx, id)
			return o.TokenHash, err
		}}
)

// deleteUpload answers DELETE /api/uploads/:id; the token comes as
// "Authorization: Bearer TOKEN" or ?token=TOKEN.
func (a *app) deleteUpload(c echo.Context) error { return a.deleteWith(c, uploadKind) }

// deleteObservation answers DELETE /api/observations/:id, as deleteUpload.
func (a *app) deleteObservation(c echo.Context) error { return a.deleteWith(c, observationKind) }

// deleteWith answers a DELETE of what k withdraws.
func (a *app) deleteWith(c echo.Context, k withdrawable) error {
	token, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
	if !ok {
		token = c.QueryParam("token")
	}
	status, field, err := a.withdrawFrom(c, k, c.Param("id"), token)
	if err != nil {
		return jsonError(c, status, field, err)
	}
	return c.NoContent(status)
}

// withdraw deletes the upload id with its deletion token and returns the
// HTTP status, and on failure the field at fault and why.
func (a *app) withdraw(c echo.Context, id, token string) (int, string, error) {
	return a.withdrawFrom(c, uploadKind, id, token)
}

func (a *app) withdrawFrom(c echo.Context, k withdrawable, id, token string) (int, string, error) {
	if a.deps.Store == nil {
		return http.StatusServiceUnavailable, "", errNoStore
	}
	if token == "" {
		return http.StatusUnauthorized, "token", errors.New("the deletion token is missing: Authorization: Bearer TOKEN")
	}
	ctx, s := c.Request().Context(), a.deps.Store
	l, retry := a.wrongTokens(c.Request())
	if n, err := s.HitCount(ctx, l.Key, l.Window); err != nil {
		return http.StatusServiceUnavailable, "", err
	} else if n >= l.Max {
		return a.tooManyWrong(c, l, retry)
	}
	hash := tokenHash(token)
	stored, err := k.hash(s, ctx, id)
	if err == nil && subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) == 0 {
		err = store.ErrToken
		if _, herr := s.Hit(ctx, l.Key, l.Window); herr != nil {
			return http.StatusServiceUnavailable, "", herr
		}
	}
	if err == nil {
		err = k.del(s, ctx, id, hash)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "", fmt.Errorf("no %s %q", k.what, id)
	case errors.Is(err, store.ErrToken):
		return http.StatusForbidden, "token", errors.New("the deletion token does not match")
	case err != nil:
		return http.StatusServiceUnavailable, "", err
	}
	return http.StatusNoContent, "", nil
}

// wrongTokens returns the limit on the wrong deletion tokens of r's client
// this hour, and the seconds to the hour's end.
func (a *app) wrongTokens(r *http.Request) (store.Limit, int64) {
	now := a.opts.Now().Unix()
	hour := now / 3600
	return store.Limit{Key: "wrong-token:" + a.clientHash(r), Window: hour, Max: a.opts.PerClientHour}, (hour+1)*3600 - now
}

// tooManyWrong answers a client past its wrong tokens' limit.
func (a *app) tooManyWrong(c echo.Context, l store.Limit, retry int64) (int, string, error) {
	c.Response().Header().Set("Retry-After", strconv.FormatInt(retry, 10))
	return http.StatusTooManyRequests, "token", fmt.Errorf("more than %d wrong deletion tokens from one address per hour: retry in %d s", l.Max, retry)
}
