// Package cuda is gpuagent's only door to the NVIDIA driver. It loads
// libcuda.so.1 (and, for calibration, cuBLAS) with dlopen at run time, so
// gpuagent builds without the CUDA SDK and runs on machines without a GPU;
// it declares only the driver types it uses, and it runs every driver call
// on one goroutine locked to its OS thread, because the driver's current
// context belongs to a thread.
//
// Status codes become errors at this boundary: a failed call returns an
// error that names the call and wraps a Result, so callers test it with
// errors.Is(err, cuda.ErrOutOfMemory) and friends. Only the backends in
// gpuagent/backend/cudamalloc and gpuagent/backend/vmm may import this
// package (the I1 gate in gpuagent/backend enforces it).
package cuda
