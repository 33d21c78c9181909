package cuda

import (
	"errors"
	"fmt"
)

// A Result is a CUresult or cublasStatus_t status code other than success.
type Result int32

// Driver results gpuagent tells apart (cuda.h, CUDA 12.x–13.0).
const (
	ErrInvalidValue   Result = 1
	ErrOutOfMemory    Result = 2
	ErrNotInitialized Result = 3
	ErrNoDevice       Result = 100
	ErrInvalidContext Result = 201
	ErrInvalidHandle  Result = 400
	ErrNotPermitted   Result = 800
	ErrNotSupported   Result = 801
)

var resultNames = map[Result]string{
	ErrInvalidValue:   "CUDA_ERROR_INVALID_VALUE",
	ErrOutOfMemory:    "CUDA_ERROR_OUT_OF_MEMORY",
	ErrNotInitialized: "CUDA_ERROR_NOT_INITIALIZED",
	ErrNoDevice:       "CUDA_ERROR_NO_DEVICE",
	ErrInvalidContext: "CUDA_ERROR_INVALID_CONTEXT",
	ErrInvalidHandle:  "CUDA_ERROR_INVALID_HANDLE",
	ErrNotPermitted:   "CUDA_ERROR_NOT_PERMITTED",
	ErrNotSupported:   "CUDA_ERROR_NOT_SUPPORTED",
}

func (r Result) Error() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult %d", int32(r))
}

// A BLASStatus is a cublasStatus_t other than CUBLAS_STATUS_SUCCESS.
type BLASStatus int32

func (s BLASStatus) Error() string { return fmt.Sprintf("cublasStatus %d", int32(s)) }

// ErrNoDriver is returned by Open when libcuda.so.1 cannot be loaded: no
// NVIDIA driver is installed, or this build has no cgo or is not for Linux.
var ErrNoDriver = errors.New("no CUDA driver")

// ErrNoBLAS is returned by OpenBLAS when cuBLAS cannot be loaded.
var ErrNoBLAS = errors.New("no cuBLAS library")

// ErrClosed is returned by calls on a Driver after Close.
var ErrClosed = errors.New("cuda: driver closed")

// check turns a status code into nil or an error naming the call.
func check(call string, code int32) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", call, Result(code))
}

// checkBytes is check for calls that carry a size.
func checkBytes(call string, n uint64, code int32) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("%s(%d bytes): %w", call, n, Result(code))
}
