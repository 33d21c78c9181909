package gguf

import (
	"os"

	parser "github.com/gpustack/gguf-parser-go"
)

// parse runs gguf-parser-go's own parser on a path, turning its panics into
// errors: the reference the decoder is checked against.
func parse(path string) (gf *parser.GGUFFile, err error) {
	defer recoverInto(&err)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return parser.ParseGGUFFile(path, readOptions()...)
}
