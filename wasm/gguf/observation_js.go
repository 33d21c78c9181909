//go:build js && wasm

package main

// This file exports the page's engine observations: observeLog builds the
// observation of a pasted start-up log, and checkObservation checks an
// observation's text, both by the validator the server runs on POST
// /api/observations (calibrations/observation.Check), so the page
// shows what will be sent, and refuses what the server would refuse,
// before anything is sent. They live in this module, beside
// checkCalibration, because the planner's is at its size budget.

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/calibrations/observation"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc/logcheck"
)

// observed is the answer of checkObservation and observeLog
// (ObservationCheck in vramplan.d.ts).
type observed struct {
	OK      bool               `json:"ok"`
	Reasons []community.Reason `json:"reasons,omitempty"`
	// ID and Digest are what the server will file it under, ModelDigest
	// the model's shape digest. Whether it is held is the server's answer:
	// that check plans, which this module leaves out.
	ID          string `json:"id,omitempty"`
	Digest      string `json:"digest,omitempty"`
	ModelDigest string `json:"model_digest,omitempty"`
	// Document is the text that will be sent, canonical.
	Document string `json:"document,omitempty"`
}

// checkObservation(text) checks an observation document and returns the
// JSON of an observed. It is synchronous; an argument that is not a string,
// or a panic, returns an Error.
func checkObservation(_ js.Value, args []js.Value) (result any) {
	defer recovered("checkObservation", &result)
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return js.Global().Get("TypeError").New("vramplanGGUF.checkObservation: argument 1 (the document's text) is not a string")
	}
	return answer(checkObserved([]byte(args[0].String())))
}

// observeLog(logText, modelJSON, calibrationJSON, options) builds the
// observation of an engine's start-up log for the model and the GPU the
// page has picked, and checks it. options: {version, day, catalog, engine,
// check}; the version defaults to the one the log states, engine is the one
// the page has selected and check the planner module's checkLog answer for
// the same log. A log that contradicts the model, the GPU or the engine
// (logcheck.Conflicts) builds no observation: its reasons say why.
// It returns the JSON of an observed, or an Error when an argument is
// missing or the log is unreadable.
func observeLog(_ js.Value, args []js.Value) (result any) {
	defer recovered("observeLog", &result)
	for i, what := range []string{"the log text", "the model JSON", "the calibration JSON"} {
		if len(args) <= i || args[i].Type() != js.TypeString {
			return js.Global().Get("TypeError").New(fmt.Sprintf("vramplanGGUF.observeLog: argument %d (%s) is not a string", i+1, what))
		}
	}
	opt := func(k string) string {
		if len(args) < 4 || args[3].Type() != js.TypeObject || args[3].Get(k).Type() != js.TypeString {
			return ""
		}
		return args[3].Get(k).String()
	}
	doc, conflicts, err := observe([]byte(args[0].String()), []byte(args[1].String()), []byte(args[2].String()), opt("version"), opt("day"),
		opt("catalog"), planner.EngineName(opt("engine")), opt("check"))
	if err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.observeLog: %w", err))
	}
	if len(conflicts) > 0 {
		o := observed{}
		for _, c := range conflicts {
			o.Reasons = append(o.Reasons, community.Reason{Msg: c})
		}
		return answer(o)
	}
	return answer(checkObserved(doc))
}

// observe builds the observation of a log, or returns what the log
// contradicts of the model, the calibration and the engine selected.
func observe(text, modelJSON, calJSON []byte, version, day, catalog string, engine planner.EngineName, check string) ([]byte, []string, error) {
	l, m, c, err := documents(text, modelJSON, calJSON)
	if err != nil {
		return nil, nil, err
	}
	var checked struct {
		Rows []enginelog.Row `json:"rows"`
	}
	if check != "" {
		if err := json.Unmarshal([]byte(check), &checked); err != nil {
			return nil, nil, fmt.Errorf("check: %w", err)
		}
	}
	if conflicts := logcheck.Conflicts(&l, checked.Rows, &m, &c, engine); len(conflicts) > 0 {
		return nil, conflicts, nil
	}
	if version == "" {
		version = observation.Version(l.Engine, text)
	}
	o := observation.FromLog(&l, m, observation.GPU{Name: c.GPU, TotalMiB: int64(c.DeviceTotal / planner.MiB)}, version, day, catalog)
	return observation.Format(&o), nil, nil
}

func checkObserved(data []byte) observed {
	ch, err := observation.Check(data)
	var rej *community.Rejection
	if errors.As(err, &rej) {
		return observed{Reasons: rej.Reasons, Document: string(data)}
	}
	if err != nil {
		return observed{Reasons: []community.Reason{{Msg: err.Error()}}}
	}
	return observed{OK: true, ID: ch.ID, Digest: ch.Digest, ModelDigest: ch.ModelDigest, Document: string(ch.Document)}
}

func answer(o observed) any {
	b, _ := json.Marshal(o) // an observed always marshals
	return string(b)
}

// recovered turns a panic of the export name into an Error result.
func recovered(name string, result *any) {
	if r := recover(); r != nil {
		*result = jsError(fmt.Errorf("vramplanGGUF.%s: panic: %v", name, r))
	}
}

// documents reads a log and decodes the model and calibration it is
// checked against.
func documents(text, modelJSON, calJSON []byte) (enginelog.Log, planner.Model, planner.Calibration, error) {
	var c planner.Calibration
	l, err := enginelog.Parse(text)
	if err != nil {
		return l, planner.Model{}, c, err
	}
	m, err := planner.ParseModel(modelJSON)
	if err != nil {
		return l, m, c, fmt.Errorf("model: %w", err)
	}
	if err := json.Unmarshal(calJSON, &c); err != nil {
		return l, m, c, fmt.Errorf("calibration: %w", err)
	}
	return l, m, c, nil
}

// checkConflicts(logText, modelJSON, calibrationJSON, engine, check) returns,
// as a JSON list of sentences, what the log contradicts of the model, the
// calibration and the engine the page has selected (logcheck.Conflicts),
// check being the planner module's checkLog answer for the same log. The
// page shows them before the check's rows.
func checkConflicts(_ js.Value, args []js.Value) (result any) {
	defer recovered("checkConflicts", &result)
	for i, what := range []string{"the log text", "the model JSON", "the calibration JSON", "the engine", "the check's JSON"} {
		if len(args) <= i || args[i].Type() != js.TypeString {
			return js.Global().Get("TypeError").New(fmt.Sprintf("vramplanGGUF.checkConflicts: argument %d (%s) is not a string", i+1, what))
		}
	}
	l, m, c, err := documents([]byte(args[0].String()), []byte(args[1].String()), []byte(args[2].String()))
	if err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.checkConflicts: %w", err))
	}
	var checked struct {
		Rows []enginelog.Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(args[4].String()), &checked); err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.checkConflicts: check: %w", err))
	}
	out := logcheck.Conflicts(&l, checked.Rows, &m, &c, planner.EngineName(args[3].String()))
	b, _ := json.Marshal(append([]string{}, out...))
	return string(b)
}

// parseLog(logText) reads an engine's start-up log (enginelog.Parse) and
// returns it as JSON, for the planner module's checkLog; an unreadable log
// returns an Error.
func parseLog(_ js.Value, args []js.Value) (result any) {
	defer recovered("parseLog", &result)
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return js.Global().Get("TypeError").New("vramplanGGUF.parseLog: argument 1 (the log text) is not a string")
	}
	l, err := enginelog.Parse([]byte(args[0].String()))
	if err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.parseLog: %w", err))
	}
	b, err := json.Marshal(l)
	if err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.parseLog: %w", err))
	}
	return string(b)
}

// checkAssumptions(logText, modelJSON, calibrationJSON, check) returns, as
// a JSON list of logcheck.Assumption, what the check of the log (check is
// the planner module's checkLog answer) assumed that the log does not
// state, those that decide the comparison first: the page says them before
// the rows, as `vramplan check` does.
func checkAssumptions(_ js.Value, args []js.Value) (result any) {
	defer recovered("checkAssumptions", &result)
	for i, what := range []string{"the log text", "the model JSON", "the calibration JSON", "the check's JSON"} {
		if len(args) <= i || args[i].Type() != js.TypeString {
			return js.Global().Get("TypeError").New(fmt.Sprintf("vramplanGGUF.checkAssumptions: argument %d (%s) is not a string", i+1, what))
		}
	}
	l, m, c, err := documents([]byte(args[0].String()), []byte(args[1].String()), []byte(args[2].String()))
	if err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.checkAssumptions: %w", err))
	}
	var pl logcheck.Planned
	if err := json.Unmarshal([]byte(args[3].String()), &pl); err != nil {
		return jsError(fmt.Errorf("vramplanGGUF.checkAssumptions: check: %w", err))
	}
	b, _ := json.Marshal(append([]logcheck.Assumption{}, logcheck.Assumptions(&l, &pl, &m, &c)...))
	return string(b)
}
