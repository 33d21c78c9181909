// Package gputest decides whether a test that needs a GPU runs: on a
// machine without a CUDA driver it skips, saying how to run it, unless
// VRAMPLAN_GPU=1 says a GPU must be there, when it fails instead, so that a
// GPU run cannot pass by skipping.
package gputest

import (
	"errors"
	"os"
	"testing"
)

// Open calls open and returns what it opened, closing it when the test
// ends. If open fails with an error that is noDriver the test is skipped
// (failed under VRAMPLAN_GPU=1); any other error fails it.
func Open[T any](t testing.TB, noDriver error, open func() (T, error), close func(T) error) T {
	t.Helper()
	v, err := open()
	if errors.Is(err, noDriver) {
		if os.Getenv("VRAMPLAN_GPU") == "1" {
			t.Fatalf("VRAMPLAN_GPU=1 but there is no GPU: %v", err)
		}
		t.Skipf("no CUDA driver (%v): run make gpu-test on a GPU machine", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(v) })
	return v
}
