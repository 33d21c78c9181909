package main

import (
	"strings"
	"testing"
)

// TestInputNotRegular holds finding 6 for --input: a device is refused.
func TestInputNotRegular(t *testing.T) {
	if _, err := readLimited("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readLimited(/dev/zero) = %v, want it refused", err)
	}
}
