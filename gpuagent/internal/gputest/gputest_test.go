package gputest

import (
	"errors"
	"testing"
)

var errNoDriver = errors.New("no driver")

func TestOpenSkipsWithoutDriver(t *testing.T) {
	t.Setenv("VRAMPLAN_GPU", "")
	closed := false
	t.Run("skip", func(t *testing.T) {
		Open(t, errNoDriver, func() (int, error) { return 0, errNoDriver }, func(int) error { closed = true; return nil })
		t.Error("Open did not skip")
	})
	t.Run("open", func(t *testing.T) {
		if v := Open(t, errNoDriver, func() (int, error) { return 7, nil }, func(int) error { closed = true; return nil }); v != 7 {
			t.Errorf("Open = %d, want 7", v)
		}
	})
	if !closed {
		t.Error("Open did not close what it opened")
	}
}
