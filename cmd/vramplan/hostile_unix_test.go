//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckLogFIFO holds issue 31's point 18: `check --log FIFO` blocked
// until a writer opened it; a FIFO (any file that is not regular) is
// refused at once, as the model readers refuse one.
func TestCheckLogFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "llama-server.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, log := range []string{fifo, "/dev/zero", t.TempDir()} {
		done := make(chan [2]string, 1)
		go func() {
			code, _, errs := runCLI("check", "--log", log, "--gpu", "h200-linux-cuda13.0")
			done <- [2]string{strings.Repeat("x", code), errs}
		}()
		select {
		case got := <-done:
			if len(got[0]) != exitBadInput || !strings.Contains(got[1], "--log: ") || !strings.Contains(got[1], "not a regular file") {
				t.Errorf("check --log %s = exit %d, %q; want 2 and the file refused as not regular", log, len(got[0]), got[1])
			}
		case <-time.After(20 * time.Second): // a guard against the hang, not a measure
			t.Fatalf("check --log %s did not return", log)
		}
	}
}
