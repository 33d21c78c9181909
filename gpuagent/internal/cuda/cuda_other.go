//go:build !linux || !cgo

package cuda

// This file exists so that gpuagent builds where the driver cannot be
// loaded: without cgo there is no dlopen, and gpuagent loads the driver
// only on Linux. Open reports ErrNoDriver and callers skip the GPU.

import "fmt"

func loadDriver() (*shim, error) {
	return nil, fmt.Errorf("%w: this build has no cgo or is not for linux", ErrNoDriver)
}

func loadBLAS(paths []string) (*blasShim, error) {
	return nil, fmt.Errorf("%w: this build has no cgo or is not for linux", ErrNoBLAS)
}

// cLayout is empty: there are no C declarations to compare against.
func cLayout() map[string]uintptr { return nil }
