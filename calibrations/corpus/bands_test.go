package corpus_test

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations/corpus"
)

// FuzzBandOf reads any version string: a band of the entry's engine or
// an error, never a panic.
func FuzzBandOf(f *testing.F) {
	for _, s := range []string{"0.10.1.dev101+gbda9d0535", "unknown-0.4", "unknown-v0", "main@ebaf86d", "0.5.2rc2", "", "9999999999.1", "unknown-", "0.", ".1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, engine := range []string{corpus.EngineVLLM, corpus.EngineSGLang} {
			e := corpus.Entry{ID: "x", Engine: engine, Version: s}
			b, err := corpus.BandOf(&e)
			if err == nil && string(b.Engine) != engine {
				t.Fatalf("BandOf(%s %q) = %q, a band of %s", engine, s, b.Name, b.Engine)
			}
		}
	})
}
