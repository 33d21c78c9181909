//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc"
)

// This file is the page's log paste box: what `vramplan check --log`
// prints, computed in the browser from a pasted start-up log and the
// model and GPU the page has picked.

// LogCheck is checkLog's result: the log as read, the plan of the
// configuration it states set against it charge by charge, and the
// engine's launch command for that plan.
type LogCheck struct {
	Log     enginelog.Log   `json:"log"`
	Rows    []enginelog.Row `json:"rows"`
	Version string          `json:"version"`
	Launch  string          `json:"launch,omitempty"`
	Model   string          `json:"model"`
	GPU     string          `json:"gpu"`
	// Conflicts are what the log contradicts in the model, GPU or engine
	// it was checked against (calc.LogConflicts), said before the rows.
	Conflicts []string `json:"conflicts,omitempty"`
}

// checkLog(logText, modelJSON, calibrationJSON, engine?) reads an engine's
// start-up log, plans what it states for the model on the calibration and
// returns the LogCheck as JSON, with what the log contradicts of the model,
// the calibration and the engine selected. It leaves alone the model and
// calibration that calculate keeps.
func checkLog(args []js.Value) (any, error) {
	text, err := arg(args, 0, "log text")
	if err != nil {
		return nil, err
	}
	m, c, err := documents(args)
	if err != nil {
		return nil, err
	}
	l, err := enginelog.Parse([]byte(text))
	if err != nil {
		return nil, err
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
	var engine planner.EngineName
	if len(args) > 3 && args[3].Type() == js.TypeString {
		engine = planner.EngineName(args[3].String())
	}
	out := LogCheck{Log: l, Rows: enginelog.Compare(&l, &p), Version: "vramplan", Model: m.ID, GPU: c.ID,
		Conflicts: calc.LogConflicts(&l, &p, engine)}
	if p.Engine != nil {
		out.Version, out.Launch = p.Engine.Version, p.Engine.Launch
	}
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
