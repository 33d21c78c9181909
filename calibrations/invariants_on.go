//go:build invariants

package calibrations

// invariants turns on the package's own checks (make test builds with the
// tag): ParseCanonical then formats every document it calls canonical and
// panics unless Format writes it byte for byte.
const invariants = true
