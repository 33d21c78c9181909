package web_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/vramplan/vramplan/web"
)

// TestTuneGC checks that TuneGC sets the server's target and puts back the
// one it replaced, and leaves a target GOGC sets alone.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "") // the environment's, restored after the test
	was := debug.SetGCPercent(150)
	defer debug.SetGCPercent(was)
	restore := web.TuneGC() // GOGC is set (empty): left alone
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set, TuneGC changed the target to %d", got)
	}
	restore()
	t.Run("unset", func(t *testing.T) {
		unsetenv(t, "GOGC")
		restore := web.TuneGC()
		if got := debug.SetGCPercent(web.GCPercent); got != web.GCPercent {
			t.Errorf("TuneGC set the target to %d, want %d", got, web.GCPercent)
		}
		restore()
		if got := debug.SetGCPercent(150); got != 150 {
			t.Errorf("after restore the target is %d, want the 150 it replaced", got)
		}
	})
}

// unsetenv unsets key for the test and sets it back after.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "") // registers the restore
	os.Unsetenv(key)
}
