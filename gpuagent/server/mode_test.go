package server_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/server"
)

// TestListenMode holds --socket-mode: the socket gets the mode asked for,
// whatever the umask, and a mode that shuts the owner out, or carries more
// than permission bits, is refused before anything listens.
func TestListenMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o660, 0o666} {
		path := filepath.Join(dir, "a.sock")
		l, err := server.ListenMode("unix:"+path, mode)
		if err != nil {
			t.Fatalf("ListenMode(%#o) = %v", uint32(mode), err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("ListenMode(%#o): socket mode %v, %v", uint32(mode), fi.Mode().Perm(), err)
		}
		l.Close()
	}
	for _, mode := range []fs.FileMode{0o066, 0o400, 0o200, fs.ModeSetuid | 0o600} {
		path := filepath.Join(dir, "b.sock")
		if l, err := server.ListenMode("unix:"+path, mode); err == nil {
			l.Close()
			t.Errorf("ListenMode(%#o) listened; want a refusal", uint32(mode))
		}
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("ListenMode(%#o) left %s behind", uint32(mode), path)
		}
	}
}
