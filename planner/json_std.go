//go:build !(js && wasm) || stdjson

package planner

import (
	"bytes"
	"encoding/json"
	"errors"
)

// This file and json_wasm.go are the planner's JSON codec: encoding/json
// natively, internal/jsonlite in the WebAssembly module, whose gzip budget
// cannot carry encoding/json. jsonlite's tests hold the two to the same
// bytes on every golden document. The Workers build (make worker) sets the
// stdjson tag: it carries encoding/json for echo anyway, and jsonlite
// would add 28 KB gzip to a worker at its 3 MB limit.

// unmarshalStrict decodes one JSON document into v; an unknown field and
// trailing data are errors.
func unmarshalStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the document")
	}
	return nil
}

func marshalIndent(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

func unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
