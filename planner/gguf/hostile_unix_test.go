//go:build unix

package gguf

// TestNonRegularFiles lives apart from hostile_test.go because it makes a
// FIFO, which GOOS=js (where the package's tests also run) cannot.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonRegularFiles holds finding 6 for GGUF files: a device, a FIFO, a
// symbolic link to a device and a directory are refused unread (each hung
// or ran out of memory). The guard only keeps a regression from hanging
// the test run.
func TestNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.gguf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.gguf")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo, link, dir} {
		done := make(chan error, 2)
		go func() {
			_, err := Read(path)
			done <- err
			_, err = ReadVision(path)
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("reading %s = %v, want it refused as not a regular file", path, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("reading %s did not return", path)
			}
		}
	}
}
