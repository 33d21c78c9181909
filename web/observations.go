package web

// This file is the engine observation API: POST /api/observations checks
// an observation (calibrations/observation) and stores it, held when
// a charge the profile computes exactly contradicts it; GET
// /api/observations lists them (what `vramplan engines refit --from`
// reads); GET and DELETE /api/observations/:id read one and withdraw one
// with its deletion token. Uploads and observations share the rate limits:
// one allowance per client and one per day.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/store"
)

// observationAnswer is the body of POST /api/observations.
type observationAnswer struct {
	ID        string             `json:"id,omitempty"`
	Status    string             `json:"status,omitempty"` // accepted, held or rejected
	Reasons   []community.Reason `json:"reasons,omitempty"`
	Duplicate bool               `json:"duplicate,omitempty"`
	Token     string             `json:"deletion_token,omitempty"`
	URL       string             `json:"url,omitempty"`
	Error     string             `json:"error,omitempty"`
	Field     string             `json:"field,omitempty"`
}

// postObservation answers POST /api/observations.
func (a *app) postObservation(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	data, status, err := readUpload(c.Request())
	if err != nil {
		return jsonError(c, status, "", err)
	}
	if !a.lim.upload(c) {
		return c.JSON(http.StatusServiceUnavailable, observationAnswer{Error: errUploading.Error()})
	}
	defer a.lim.uploaded()
	if status, err := a.limit(c); err != nil {
		return c.JSON(status, observationAnswer{Error: err.Error()})
	}
	ch, err := observation.Check(data)
	var rej *community.Rejection
	if errors.As(err, &rej) {
		return c.JSON(http.StatusUnprocessableEntity, observationAnswer{Status: "rejected", Reasons: clipReasons(rej.Reasons),
			Error: clip(err.Error()), Field: clip(rej.Reasons[0].Field)})
	}
	status, ans := a.storeObservation(c, ch)
	return c.JSON(status, ans)
}

func (a *app) storeObservation(c echo.Context, ch observation.Checked) (int, observationAnswer) {
	o := &ch.Observation
	rec := store.Observation{ID: ch.ID, Digest: ch.Digest, Engine: string(o.Engine), Model: ch.ModelDigest,
		GPU: o.GPU.Name, Status: store.StatusAccepted, Created: a.opts.Now().UTC(), Client: a.clientHash(c.Request()), Document: ch.Document}
	if why := observation.Held(o); len(why) > 0 {
		rec.Status, rec.Reasons = store.StatusHeld, why
	}
	token, hash := newToken()
	rec.TokenHash = hash
	got, created, err := a.deps.Store.PutObservation(c.Request().Context(), rec)
	if err != nil {
		return http.StatusServiceUnavailable, observationAnswer{Error: err.Error()}
	}
	ans := observationAnswer{ID: got.ID, Status: string(got.Status), URL: "/api/observations/" + got.ID}
	for _, r := range got.Reasons {
		ans.Reasons = append(ans.Reasons, community.Reason{Msg: r})
	}
	if !created {
		ans.Duplicate = true
		return http.StatusOK, ans
	}
	ans.Token = token
	return http.StatusCreated, ans
}

// publicObservation is an observation as the API publishes it.
type publicObservation struct {
	ID          string          `json:"id"`
	Seq         int64           `json:"seq"`
	Engine      string          `json:"engine"`
	Model       string          `json:"model_digest"`
	GPU         string          `json:"gpu"`
	Status      store.Status    `json:"status"`
	Reasons     []string        `json:"reasons,omitempty"`
	Created     string          `json:"created"` // the UTC day only
	Digest      string          `json:"digest"`
	Observation json.RawMessage `json:"observation"`
}

func publicObs(o *store.Observation) publicObservation {
	return publicObservation{ID: o.ID, Seq: o.Seq, Engine: o.Engine, Model: o.Model, GPU: o.GPU, Status: o.Status,
		Reasons: o.Reasons, Created: o.Created.UTC().Format(time.DateOnly), Digest: o.Digest, Observation: json.RawMessage(o.Document)}
}

// observationList is the body of GET /api/observations: a page of
// observations and, when more follow, the ?after= of the next page.
type observationList struct {
	Observations []publicObservation `json:"observations"`
	Next         int64               `json:"next,omitempty"`
}

// listObservations answers GET /api/observations[?engine=E][&after=SEQ].
func (a *app) listObservations(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	q := store.ObservationQuery{Limit: store.DefaultLimit}
	if e := c.QueryParam("engine"); e != "" {
		if name := planner.EngineName(e); name == planner.EngineSeed || !name.Valid() {
			return jsonError(c, http.StatusBadRequest, "engine", fmt.Errorf("engine=%q: want one of %v", e, planner.Engines[1:]))
		}
		q.Engine = e
	}
	if s := c.QueryParam("after"); s != "" {
		after, err := strconv.ParseInt(s, 10, 64)
		if err != nil || after < 0 {
			return jsonError(c, http.StatusBadRequest, "after", fmt.Errorf("after=%q: want a sequence number", s))
		}
		q.After = after
	}
	got, err := a.deps.Store.Observations(c.Request().Context(), q)
	if err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", err)
	}
	l := observationList{Observations: make([]publicObservation, len(got))}
	for i := range got {
		l.Observations[i] = publicObs(&got[i])
	}
	if len(got) == q.Limit {
		l.Next = got[len(got)-1].Seq
	}
	return c.JSON(http.StatusOK, l)
}

// getObservation answers GET /api/observations/:id.
func (a *app) getObservation(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	o, err := a.deps.Store.GetObservation(c.Request().Context(), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		return jsonError(c, http.StatusNotFound, "", fmt.Errorf("no observation %q", c.Param("id")))
	} else if err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", err)
	}
	return c.JSON(http.StatusOK, publicObs(&o))
}
