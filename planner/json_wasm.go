//go:build js && wasm && !stdjson

package planner

import "github.com/vramplan/vramplan/internal/jsonlite"

// The WebAssembly module's JSON codec (see json_std.go).

func unmarshalStrict(data []byte, v any) error { return jsonlite.UnmarshalStrict(data, v) }

func marshalIndent(v any) ([]byte, error) { return jsonlite.MarshalIndent(v, "", "  ") }

func marshal(v any) ([]byte, error) { return jsonlite.Marshal(v) }

func unmarshal(data []byte, v any) error { return jsonlite.Unmarshal(data, v) }
