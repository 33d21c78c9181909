package web

// This file serves the calibrations page: GET /calibrations lists every
// calibration the picker offers with its provenance, POST /calibrations
// takes the upload form's file (or pasted text) through the same path as
// POST /api/uploads and answers with the page, and POST
// /calibrations/withdraw deletes an upload with its token. It works
// without JavaScript; with it, calibrations.js checks a file in the
// browser before the form sends it.

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/templates"
)

// maxForm bounds an upload form's body: the document and the multipart
// framing around it.
const maxForm = community.MaxSize + 16<<10

// calibrationsPage answers GET /calibrations.
func (a *app) calibrationsPage(c echo.Context) error {
	return a.renderCalibrations(c, http.StatusOK, nil, nil)
}

// renderCalibrations renders the page with the answer to a form, if any.
func (a *app) renderCalibrations(c echo.Context, status int, r *templates.UploadResult, w *templates.Withdrawal) error {
	k := a.catalog()
	if k.err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, k.err.Error())
	}
	l, groups := a.listing(c.Request().Context(), k.cals)
	p := templates.CalibrationsPage{Rows: calibrationRows(l.Calibrations, groups), Uploads: a.deps.Store != nil,
		Result: r, Withdrawn: w, ServerOnly: a.serverOnly}
	p.Unlisted = len(groups)
	for _, c := range l.Calibrations {
		if c.Kind() == planner.CalibrationCommunity {
			p.Unlisted--
		}
	}
	return render(c, status, templates.Calibrations(p))
}

// calibrationRows pairs each calibration with its provenance: a community
// one with its group's statistics, an estimate with its total's source.
func calibrationRows(cals []planner.Calibration, groups []communityGroup) []templates.CalibrationRow {
	rows := make([]templates.CalibrationRow, len(cals))
	for i, c := range cals {
		rows[i].Cal = c
		switch c.Kind() {
		case planner.CalibrationCommunity:
			if j := slices.IndexFunc(groups, func(g communityGroup) bool { return g.Group == c.ID }); j >= 0 {
				rows[i].Community = communityFigures(&groups[j])
			}
		case planner.CalibrationEstimated:
			rows[i].TotalSource = totalSource(&c)
		}
	}
	return rows
}

// shownFigures are the figures the page tabulates for a group: what a plan
// charges, and the VMM granularity.
var shownFigures = append(slices.Clone(community.Charged), community.FigGraphExec, community.FigGranularity)

func communityFigures(g *communityGroup) *templates.CommunityFigures {
	f := &templates.CommunityFigures{Accepted: g.Accepted, Held: g.Held, Aggregated: g.Summary.Count,
		Clients: g.Summary.Clients, Outliers: len(g.Summary.Outliers)}
	for _, name := range shownFigures {
		st, ok := g.Summary.Figures[name]
		if !ok {
			continue
		}
		f.Figures = append(f.Figures, templates.FigureStat{Name: name, Median: inMiB(st.Median), MAD: inMiB(st.MAD),
			Min: inMiB(st.Min), Max: inMiB(st.Max), Count: st.Count})
	}
	return f
}

func inMiB(v float64) string { return fmt.Sprintf("%.1f", v/float64(planner.MiB)) }

// totalSource says where an estimate's device total comes from.
func totalSource(c *planner.Calibration) string {
	g, ok := community.Known(c.GPU)
	if !ok {
		return "not in the table of known cards"
	}
	return fmt.Sprintf("%d MiB, %s", g.TotalMiB, g.Source)
}

// uploadForm answers POST /calibrations: the form's file, or its text when
// no file was picked, goes through accept as an API upload would.
func (a *app) uploadForm(c echo.Context) error {
	if a.deps.Store == nil {
		return a.renderCalibrations(c, http.StatusServiceUnavailable, &templates.UploadResult{Code: http.StatusServiceUnavailable, Error: errNoStore.Error()}, nil)
	}
	data, status, err := readForm(c)
	if err != nil {
		return a.renderCalibrations(c, status, &templates.UploadResult{Code: status, Status: "rejected", Error: clip(err.Error())}, nil)
	}
	status, ans := a.accept(c, data)
	return a.renderCalibrations(c, status, resultOf(status, ans), nil)
}

func resultOf(status int, ans uploadAnswer) *templates.UploadResult {
	ans = ans.clipped()
	r := &templates.UploadResult{Code: status, Status: ans.Status, ID: ans.ID, Group: ans.Group,
		Duplicate: ans.Duplicate, Token: ans.Token, Error: ans.Error}
	for _, x := range ans.Reasons {
		r.Reasons = append(r.Reasons, templates.UploadReason{Field: x.Field, Msg: x.Msg})
	}
	return r
}

var errNoDocument = errors.New("no calibration: pick the file gpuagent calibrate wrote, or paste its text")

// readForm returns the document of an upload form: its file part, or its
// text field, of at most community.MaxSize bytes.
func readForm(c echo.Context) ([]byte, int, error) {
	r := c.Request()
	mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if mt != echo.MIMEMultipartForm && mt != echo.MIMEApplicationForm {
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("Content-Type %q: the upload form posts multipart/form-data", mt)
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxForm)
	if err := r.ParseMultipartForm(maxForm); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the upload is more than %d bytes", community.MaxSize)
		}
		return nil, http.StatusBadRequest, fmt.Errorf("reading the form: %w", err)
	}
	data, err := formFile(r)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	if len(data) == 0 {
		data = []byte(r.FormValue("document"))
	}
	switch {
	case len(strings.TrimSpace(string(data))) == 0:
		return nil, http.StatusBadRequest, errNoDocument
	case len(data) > community.MaxSize:
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the document is %d bytes, more than %d", len(data), community.MaxSize)
	}
	return data, 0, nil
}

// formFile returns the bytes of the form's file part, nil when none was
// picked.
func formFile(r *http.Request) ([]byte, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File["file"]) == 0 {
		return nil, nil
	}
	f, err := r.MultipartForm.File["file"][0].Open()
	if err != nil {
		return nil, fmt.Errorf("reading the file: %w", err)
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, community.MaxSize+1))
}

// withdrawForm answers POST /calibrations/withdraw.
func (a *app) withdrawForm(c echo.Context) error {
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 4<<10)
	id := strings.TrimSpace(c.FormValue("id"))
	status, _, err := a.withdraw(c, id, strings.TrimSpace(c.FormValue("token")))
	w := &templates.Withdrawal{ID: clip(id)}
	if err != nil {
		w.Error = clip(err.Error())
	} else {
		status = http.StatusOK
	}
	return a.renderCalibrations(c, status, nil, w)
}
