//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc/logcheck"
)

// This file is the page's log paste box: what `vramplan check --log`
// prints, computed in the browser from a pasted start-up log and the
// model and GPU the page has picked.

// LogCheck is checkLog's result: the log as read, what the check planned
// (logcheck.Planned, the one list of its fields: the rows of the plan of
// the configuration the log states set against it charge by charge, the
// release, the fraction and the engine's launch command), the pool's row,
// and the model and GPU it was planned for.
type LogCheck struct {
	Log enginelog.Log `json:"log"`
	logcheck.Planned
	Pool  *enginelog.PoolRow `json:"pool,omitempty"`
	Model string             `json:"model"`
	GPU   string             `json:"gpu"`
}

// checkLog(logJSON, modelJSON, calibrationJSON) plans what an engine's
// start-up log states for the model on the calibration and returns the
// LogCheck as JSON. The log comes read: the model-file reader's parseLog
// reads it (enginelog.Parse is 17.5 KB gzip this module, at its budget,
// does without); what it contradicts of the selection is the reader's
// checkConflicts, from this answer. It leaves alone the model and
// calibration that calculate keeps.
func checkLog(args []js.Value) (any, error) {
	text, err := arg(args, 0, "log JSON")
	if err != nil {
		return nil, err
	}
	m, c, err := documents(args)
	if err != nil {
		return nil, err
	}
	var l enginelog.Log
	if err := jsonlite.Unmarshal([]byte(text), &l); err != nil {
		return nil, errors.New("log: " + err.Error())
	}
	in, err := l.Input(m, c)
	if err != nil {
		return nil, err
	}
	p, err := planner.Report(in)
	var ie *planner.InputError
	if errors.As(err, &ie) {
		return nil, err
	}
	out := LogCheck{Log: l, Planned: logcheck.PlannedOf(enginelog.RankZero(&p).Engine, enginelog.Compare(&l, &p)),
		Pool: enginelog.ComparePool(&l, &p), Model: m.ID, GPU: c.ID}
	out.KVByRelease, out.RankRows = enginelog.ReleaseKV(&l, in), enginelog.CompareRanks(&l, &p)
	b, err := jsonlite.Marshal(out)
	return string(b), err
}

// documents decodes the model and calibration of args[1] and args[2].
func documents(args []js.Value) (planner.Model, planner.Calibration, error) {
	var c planner.Calibration
	mj, err := arg(args, 1, "model JSON")
	if err != nil {
		return planner.Model{}, c, err
	}
	cj, err := arg(args, 2, "calibration JSON")
	if err != nil {
		return planner.Model{}, c, err
	}
	m, err := planner.ParseModel([]byte(mj))
	if err != nil {
		return m, c, err
	}
	if err := jsonlite.Unmarshal([]byte(cj), &c); err != nil {
		return m, c, errors.New("calibration: " + err.Error())
	}
	return m, c, nil
}
