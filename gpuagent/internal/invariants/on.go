//go:build invariants

// This file exists so that `go test -tags invariants` turns on the debug
// checks: panics on steady-state allocation, leak reports through
// runtime.AddCleanup and the extra consistency checks in the allocators.

package invariants

// Enabled reports whether the binary was built with the invariants tag.
const Enabled = true
