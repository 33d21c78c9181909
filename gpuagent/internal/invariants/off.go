//go:build !invariants

// Package invariants holds one constant that says whether the gpuagent
// packages run their debug checks. The checks are compiled out of an ordinary
// build; `go test -tags invariants` (what `make test` runs) turns them on.
//
// This file exists for the ordinary build, where Enabled is false.
package invariants

// Enabled reports whether the binary was built with the invariants tag.
const Enabled = false
