//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

// This file holds the calculator's hot path: every slider move calls
// calculate. The model and calibration documents rarely change between
// calls, so the last of each is kept decoded.

var (
	lastModelJSON, lastCalJSON string
	lastModel                  = new(planner.Model)
	lastCal                    = new(planner.Calibration)
	calculator                 calc.Calculator
)

// calculate(query, modelJSON, calibrationJSON) plans the query's state
// against the model and calibration and returns the calc.View as JSON. The
// model and calibration may be left undefined to reuse the last ones, which
// spares copying them into the module on every slider move.
func calculate(args []js.Value) (any, error) {
	s, err := state(args)
	if err != nil {
		return nil, said{err}
	}
	m, c, err := decoded(args)
	if err != nil {
		return nil, err
	}
	s.Model, s.GPU = m.ID, c.ID
	return marshal(calculator.Calculate(s, m, c))
}

// decoded returns the model and calibration of the call, decoding each
// only when its JSON differs from the last call's; a new value gets a new
// pointer, which is how the calculator notices the change.
func decoded(args []js.Value) (*planner.Model, *planner.Calibration, error) {
	if len(args) == 1 || len(args) == 3 && args[1].IsUndefined() && args[2].IsUndefined() {
		if lastModelJSON == "" || lastCalJSON == "" {
			return lastModel, lastCal, errors.New("no model and calibration yet: pass them on the first call")
		}
		return lastModel, lastCal, nil
	}
	if err := decodeModel(args[1]); err != nil {
		return lastModel, lastCal, err
	}
	cj, err := arg(args, 2, "calibration JSON")
	if err != nil {
		return lastModel, lastCal, err
	}
	if cj != lastCalJSON {
		var c planner.Calibration
		if err := jsonlite.Unmarshal([]byte(cj), &c); err != nil {
			return lastModel, lastCal, printf.Errorf("calibration: %w", err)
		}
		lastCalJSON, lastCal = cj, &c
	}
	return lastModel, lastCal, nil
}

// decodeModel makes v, a model document, the last model, decoding it
// only when it differs from the last one's JSON.
func decodeModel(v js.Value) error {
	if v.Type() != js.TypeString {
		return errors.New("argument 2 (model JSON) must be a string")
	}
	mj := v.String()
	if mj == lastModelJSON {
		return nil
	}
	m, err := planner.ParseModel([]byte(mj))
	if err != nil {
		return err
	}
	lastModelJSON, lastModel = mj, &m
	return nil
}

// said is an error the page shows a person, in calc.Words' words; it
// unwraps to the error, so the JavaScript Error still names its field.
type said struct{ err error }

func (e said) Error() string { return calc.Words(e.err) }

func (e said) Unwrap() error { return e.err }
