//go:build js && wasm

// Command planner is the planner compiled to WebAssembly for the browser
// calculator. It installs globalThis.vramplan, whose functions take and
// return JSON strings (see ../vramplan.d.ts), and then waits for calls.
//
// A call that fails, or panics, returns a JavaScript Error instead of its
// result; static/bridge.js throws it. The module never exits on its own:
// there is no log.Fatal and no os.Exit, so a bad input cannot take the page
// down with it.
package main

import (
	"errors"
	"syscall/js"

	"github.com/vramplan/vramplan/internal/jsonlite"
	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

func main() {
	api := js.Global().Get("Object").New()
	for name, fn := range map[string]func([]js.Value) (any, error){
		"plan": plan, "frontier": frontier, "parseModel": parseModel,
		"parseQuery": parseQuery, "encodeState": encodeState,
		"calculate": calculate, "gpus": gpus, "lenAt": lenAt, "lenIndex": lenIndex, "checkLog": checkLog,
	} {
		api.Set(name, export(name, fn))
	}
	api.Set("version", planner.PlanSchema)
	js.Global().Set("vramplan", api)
	select {}
}

// export wraps fn as a JavaScript function that returns fn's result, or a
// JavaScript Error for its error or its panic.
func export(name string, fn func([]js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				result = jsError(printf.Errorf("vramplan.%s: panic: %v", name, r))
			}
		}()
		v, err := fn(args)
		if err != nil {
			return jsError(printf.Errorf("vramplan.%s: %w", name, err))
		}
		return v
	})
}

func jsError(err error) js.Value {
	e := js.Global().Get("Error").New(err.Error())
	var ie *planner.InputError
	if errors.As(err, &ie) {
		e.Set("field", ie.Field)
	}
	var fe *calc.FieldError
	if errors.As(err, &fe) {
		e.Set("field", fe.Key)
	}
	return e
}

// arg returns args[i] as a string, or an error naming what is missing.
func arg(args []js.Value, i int, what string) (string, error) {
	if len(args) <= i || args[i].Type() != js.TypeString {
		return "", printf.Errorf("argument %d (%s) must be a string", i+1, what)
	}
	return args[i].String(), nil
}

func marshal(v any) (any, error) {
	b, err := jsonlite.Marshal(v)
	return string(b), err
}

// plan(inputJSON) returns the plan document, levers and capacity included,
// whether or not it fits.
func plan(args []js.Value) (any, error) {
	in, err := input(args)
	if err != nil {
		return nil, err
	}
	p, err := planner.Report(in)
	var f *planner.Failure
	if err != nil && !errors.As(err, &f) {
		return nil, err
	}
	return string(p.JSON()), nil
}

func input(args []js.Value) (planner.Input, error) {
	s, err := arg(args, 0, "input JSON")
	if err != nil {
		return planner.Input{}, err
	}
	return planner.ParseInput([]byte(s))
}

// frontier(inputJSON, n) returns the fit frontier for batch 1..n.
func frontier(args []js.Value) (any, error) {
	in, err := input(args)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 || args[1].Type() != js.TypeNumber {
		return nil, errors.New("argument 2 (n) must be a number")
	}
	pts, err := planner.Frontier(in, args[1].Int())
	if err != nil {
		return nil, err
	}
	return marshal(pts)
}

// parseModel(json) validates a model-shape document and returns it re-encoded.
func parseModel(args []js.Value) (any, error) {
	s, err := arg(args, 0, "model JSON")
	if err != nil {
		return nil, err
	}
	m, err := planner.ParseModel([]byte(s))
	if err != nil {
		return nil, err
	}
	return marshal(m)
}

// parseQuery(query) returns the state a URL query holds.
func parseQuery(args []js.Value) (any, error) {
	s, err := state(args)
	if err != nil {
		return nil, err
	}
	return marshal(s)
}

// state reads the state of the query in args[0].
func state(args []js.Value) (calc.State, error) {
	q, err := arg(args, 0, "query")
	if err != nil {
		return calc.State{}, err
	}
	return calc.ParseQuery(q)
}

// encodeState(stateJSON) returns the canonical query of a state.
func encodeState(args []js.Value) (any, error) {
	j, err := arg(args, 0, "state JSON")
	if err != nil {
		return nil, err
	}
	var s calc.State
	if err := jsonlite.Unmarshal([]byte(j), &s); err != nil {
		return nil, err
	}
	return s.Encode(), nil
}

func lenAt(args []js.Value) (any, error)    { return calc.LenAt(args[0].Int()), nil }
func lenIndex(args []js.Value) (any, error) { return calc.LenIndex(args[0].Int()), nil }
