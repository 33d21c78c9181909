//go:build js && wasm

// Command gguf reads model files the user picks in a browser: GGUF files
// (split models and an mmproj vision tower included) through planner/gguf,
// and a Hugging Face config.json with its safetensors headers through
// planner/hf. It installs globalThis.vramplanGGUF (see ../vramplan.d.ts),
// whose functions take File objects and return a Promise of the model
// shape as JSON, the planner's own model format; and checkCalibration,
// the upload form's check of a calibration file (calibration_js.go); and
// checkObservation and observeLog, the log paste box's engine observation
// (observation_js.go).
//
// It is a module of its own because gguf-parser-go (with the net/http and
// SSH code it pulls in) and the config.json templates would put the
// planner's module over its 1 MB budget; the page loads this one only when
// a file is picked. Nothing is uploaded: every read is a Blob slice.
//
// A failure, or a panic, rejects the Promise with a JavaScript Error. The
// module never exits on its own, so a bad file cannot stop it.
package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/vramplan/vramplan/planner"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("read", export("read", readGGUF))
	api.Set("readConfig", export("readConfig", readConfig))
	api.Set("checkCalibration", js.FuncOf(checkCalibration))
	api.Set("checkObservation", js.FuncOf(checkObservation))
	api.Set("observeLog", js.FuncOf(observeLog))
	api.Set("checkConflicts", js.FuncOf(checkConflicts))
	api.Set("checkAssumptions", js.FuncOf(checkAssumptions))
	api.Set("parseLog", js.FuncOf(parseLog))
	api.Set("version", planner.PlanSchema)
	js.Global().Set("vramplanGGUF", api)
	select {}
}

// export wraps fn as a JavaScript function returning a Promise. fn runs on
// a goroutine of its own, since its Blob reads await JavaScript promises,
// which a js.FuncOf handler must not do.
func export(name string, fn func([]js.Value) (planner.Model, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		return newPromise(name, func() (string, error) {
			m, err := fn(args)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(m)
			return string(b), err
		})
	})
}

// newPromise returns a Promise settled by fn's result; fn's error or panic
// rejects it with an Error that names the export.
func newPromise(name string, fn func() (string, error)) js.Value {
	executor := js.FuncOf(func(_ js.Value, p []js.Value) any {
		resolve, reject := p[0], p[1]
		go func() {
			defer func() {
				if r := recover(); r != nil {
					reject.Invoke(jsError(fmt.Errorf("vramplanGGUF.%s: panic: %v", name, r)))
				}
			}()
			v, err := fn()
			if err != nil {
				reject.Invoke(jsError(fmt.Errorf("vramplanGGUF.%s: %w", name, err)))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	defer executor.Release() // the Promise constructor has called it by then
	return js.Global().Get("Promise").New(executor)
}

func jsError(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}
