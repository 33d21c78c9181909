package backend

import (
	"errors"
	"fmt"
)

// Sentinel errors. Backends wrap them in an *Error naming the call; test
// with errors.Is.
var (
	// ErrOutOfMemory means the request fits the device but not what is
	// free now (CUDA_ERROR_OUT_OF_MEMORY).
	ErrOutOfMemory = errors.New("out of memory")
	// ErrInvalidValue means the request can never succeed as asked: a size
	// that is zero, not a multiple of the granularity or larger than the
	// device, an unmap of part of a mapping (CUDA_ERROR_INVALID_VALUE).
	ErrInvalidValue = errors.New("invalid value")
	// ErrNotSupported means the device cannot do what was asked, such as a
	// mapping at an address that is not granularity-aligned
	// (CUDA_ERROR_NOT_SUPPORTED).
	ErrNotSupported = errors.New("not supported")
	// ErrNotGrowable means the backend has no growable regions, or the
	// region passed to Commit or Decommit is not growable.
	ErrNotGrowable = errors.New("region not growable")
	// ErrBudget means the request would exceed the configured budget even
	// though the device has room (--vram-budget as a real cap).
	ErrBudget = errors.New("over budget")
	// ErrInjected is returned by test backends when a failure was injected.
	ErrInjected = errors.New("injected failure")
)

// An Error records a failed backend call.
type Error struct {
	Op    string // the call, e.g. "Acquire" or "cuMemCreate"
	Tag   Tag
	Bytes Bytes
	Err   error // one of the sentinel errors, possibly wrapped
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s(%d bytes, tag=%v): %v", e.Op, int64(e.Bytes), e.Tag, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
