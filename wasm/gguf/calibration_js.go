//go:build js && wasm

package main

// This file exports checkCalibration: the upload form's check of a
// calibration file, in the browser, by the validator the server runs on
// POST /api/uploads (calibrations/community.Check), so the page refuses
// what the server would refuse, field by field, before anything is sent.
// It lives in this module rather than the planner's, which is at its size
// budget; the page loads this one only when a file is picked.

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

// checked is checkCalibration's answer (CalibrationCheck in vramplan.d.ts).
type checked struct {
	OK bool `json:"ok"`
	// Reasons are every refusal, each naming its field.
	Reasons []community.Reason `json:"reasons,omitempty"`
	// ID, Digest and Group are what the server will file the upload
	// under; Calibration is the document as it will be stored.
	ID          string               `json:"id,omitempty"`
	Digest      string               `json:"digest,omitempty"`
	Group       string               `json:"group,omitempty"`
	Calibration *planner.Calibration `json:"calibration,omitempty"`
}

// checkCalibration(text) checks one calibration document, a string, and
// returns the JSON of a checked. It is synchronous: the check is a few
// microseconds of decoding. An argument that is not a string, or a panic,
// returns an Error instead (a Go function cannot throw into JavaScript).
func checkCalibration(_ js.Value, args []js.Value) (result any) {
	defer func() {
		if r := recover(); r != nil {
			result = jsError(fmt.Errorf("vramplanGGUF.checkCalibration: panic: %v", r))
		}
	}()
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return js.Global().Get("TypeError").New("vramplanGGUF.checkCalibration: argument 1 (the document's text) is not a string")
	}
	b, _ := json.Marshal(check([]byte(args[0].String()))) // a checked always marshals
	return string(b)
}

func check(data []byte) checked {
	ch, err := community.Check(data)
	var rej *community.Rejection
	if errors.As(err, &rej) {
		return checked{Reasons: rej.Reasons}
	}
	if err != nil {
		return checked{Reasons: []community.Reason{{Msg: err.Error()}}}
	}
	return checked{OK: true, ID: ch.ID, Digest: ch.Digest, Group: ch.Group.String(), Calibration: &ch.Calibration}
}
