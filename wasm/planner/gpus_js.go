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

// This file holds the "Which GPUs" table's call. Like calculate, it keeps
// the last calibration table decoded; the model is calculate's.

var (
	lastCalsJSON string
	lastCals     []planner.Calibration
)

// gpus(query, modelJSON, calibrationsJSON) answers the query's state on
// every calibration of the array and returns the calc.GPUsView as JSON.
// The model and the array may be left undefined to reuse the last ones
// (the model calculate was last given counts).
func gpus(args []js.Value) (any, error) {
	s, err := state(args)
	if err != nil {
		return nil, said{err}
	}
	if len(args) > 1 && !args[1].IsUndefined() {
		if err := decodeModel(args[1]); err != nil {
			return nil, err
		}
	}
	if len(args) > 2 && !args[2].IsUndefined() {
		if err := decodeCals(args[2]); err != nil {
			return nil, err
		}
	}
	if lastModelJSON == "" || lastCalsJSON == "" {
		return nil, errors.New("no model and calibrations yet: pass them on the first call")
	}
	return marshal(calc.GPUsTable(s, lastModel, lastCals))
}

func decodeCals(v js.Value) error {
	if v.Type() != js.TypeString {
		return errors.New("argument 3 (calibrations JSON) must be a string")
	}
	j := v.String()
	if j == lastCalsJSON {
		return nil
	}
	var cs []planner.Calibration
	if err := jsonlite.Unmarshal([]byte(j), &cs); err != nil {
		return printf.Errorf("calibrations: %w", err)
	}
	lastCalsJSON, lastCals = j, cs
	return nil
}
