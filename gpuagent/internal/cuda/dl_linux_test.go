//go:build linux && cgo

package cuda

import "testing"

// TestDlopen exercises the loader on the C library, which every Linux
// machine has: alternates, a missing symbol and a missing library.
func TestDlopen(t *testing.T) {
	lib, err := dlopen("libc.so.6", false, []string{"no_such_symbol|malloc", "free"})
	if err != nil || lib["no_such_symbol"] == nil || lib["free"] == nil {
		t.Fatalf("dlopen(libc.so.6) = %v, %v", lib, err)
	}
	if _, err := dlopen("libc.so.6", false, []string{"no_such_symbol"}); err == nil {
		t.Error("dlopen with a missing symbol succeeded")
	}
	if _, err := dlopen("libno-such-library.so.1", false, nil); err == nil {
		t.Error("dlopen of a missing library succeeded")
	}
}
