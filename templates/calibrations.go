package templates

import (
	"fmt"
	"strconv"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

// CalibrationsPage is everything the calibrations page renders: every
// calibration the picker lists with where its figures come from, and the
// upload form with the answer to the upload or withdrawal just posted.
type CalibrationsPage struct {
	Rows []CalibrationRow
	// Uploads reports whether the server keeps uploads (it has a store);
	// without, the form is replaced by a note.
	Uploads bool
	// Result is the answer to the upload the form just posted, if any.
	Result *UploadResult
	// Withdrawn is the answer to the withdrawal the form just posted.
	Withdrawn *Withdrawal
	// ServerOnly is a server built without WebAssembly (Document).
	ServerOnly bool
	// Unlisted counts the community groups the picker does not offer:
	// pending (too few clients, a card whose total is not known) or
	// outranked by another group of their card; GET
	// /api/community?status=all pages through them.
	Unlisted int
}

// CalibrationRow is one calibration and its provenance.
type CalibrationRow struct {
	Cal planner.Calibration
	// Community is set for a community calibration: its group's counts
	// and the statistics of each figure.
	Community *CommunityFigures
	// TotalSource says where an estimate's device total comes from.
	TotalSource string
}

// CommunityFigures summarizes a community calibration's group.
type CommunityFigures struct {
	Accepted, Held int64
	// Aggregated is how many uploads the medians are of, and Clients how
	// many distinct clients sent them; Outliers how many were held out of
	// them by the outlier and prior rules.
	Aggregated, Clients, Outliers int
	Figures                       []FigureStat
}

// FigureStat is one figure's statistics over a group, in the figure's unit
// (MiB for bytes).
type FigureStat struct {
	Name                  string
	Median, MAD, Min, Max string
	Count                 int
}

// UploadResult is the server's answer to one upload, as the API sends it.
type UploadResult struct {
	Code      int    // the HTTP status
	Status    string // accepted, held, rejected; empty when not looked at
	ID        string
	Group     string
	Duplicate bool
	Token     string // the deletion token, shown once
	Error     string
	Reasons   []UploadReason
}

// UploadReason is one reason an upload was refused or held.
type UploadReason struct {
	Field string
	Msg   string
}

// Withdrawal is the answer to a withdrawal: the upload's id, and the error
// when it was not withdrawn.
type Withdrawal struct {
	ID    string
	Error string
}

// kindTitle says in a sentence what a calibration's kind means.
func kindTitle(c *planner.Calibration) string {
	switch c.Kind() {
	case planner.CalibrationCommunity:
		return "community: the medians of operators' uploads"
	case planner.CalibrationEstimated:
		return "estimated: only the device total is this card's"
	}
	return "measured: one run of the calibration on this card"
}

func mib(b planner.Bytes) string { return strconv.FormatInt(int64(b.MiB()), 10) }

// uncertainty says how much less than planned an estimated card may leave.
func uncertainty(c *planner.Calibration) string {
	if u := c.Provenance.Uncertainty; u > 0 {
		return "It may leave up to " + calc.Size(u.MiB()) + " less than its figures say: a plan with less to spare may not fit."
	}
	return "How far off its figures are is not known."
}

// plural is one when n is 1, many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// planURL is the calculator on a calibration.
func planURL(id string) string { return "/?gpu=" + id }

func runsText(p planner.Provenance) string {
	if p.Runs == 0 {
		return ""
	}
	s := fmt.Sprintf("%d runs", p.Runs)
	if p.Spread > 0 {
		s += fmt.Sprintf(", spread %.2f %%", 100*p.Spread)
	}
	return s
}

func resultClass(status string) string { return "upload-result " + status }

// resultHeading says in words what happened to an upload.
func resultHeading(r *UploadResult) string {
	switch {
	case r.Duplicate:
		return "Already uploaded: this calibration is stored as " + r.ID
	case r.Status == "accepted":
		return "Accepted: " + r.ID + " joins group " + r.Group
	case r.Status == "held":
		return "Held: " + r.ID + " contradicts group " + r.Group + " and is kept out of its aggregate"
	case r.Status == "rejected":
		return "Refused (" + strconv.Itoa(r.Code) + "): nothing was stored"
	}
	return "Not stored (" + strconv.Itoa(r.Code) + ")"
}

// withdrawID and withdrawToken fill the withdrawal form with the upload
// just stored, so that undoing it is one press.
func withdrawID(r *UploadResult) string {
	if r == nil || r.Token == "" {
		return ""
	}
	return r.ID
}

func withdrawToken(r *UploadResult) string {
	if r == nil {
		return ""
	}
	return r.Token
}
