//go:build stdfmt

package printf

// This file is the package under the stdfmt tag, which `make worker` sets
// (WORKERTAGS): the Workers build links fmt anyway (echo uses it), so there
// the functions are fmt's own, and printf's formatter, which exists only to
// keep fmt out of the planner's browser module, is not linked twice. The
// package's tests hold printf to fmt on every verb the planner uses, so the
// text is the same either way; under the tag they are left out, as there is
// no formatter of this package's own to hold.

import (
	"fmt"
	"io"
)

// Sprintf is fmt.Sprintf.
func Sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Fprintf is fmt.Fprintf.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, args...)
}

// Errorf is fmt.Errorf.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
