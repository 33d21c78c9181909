package cudamalloc

// This file gives gpuagent calibrate what it measures through this backend:
// the device's facts, the driver's free-memory reading, and the cuBLAS
// handles and first GEMMs whose memory the libraries reserve outside any
// allocator (seed A1.5).

import (
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// Info describes the device: name, memory, SM count, compute capability,
// the driver's CUDA version, VMM and POSIX-fd support.
type Info = cuda.Info

// A GEMM is one matrix product of an engine's linear layer,
// Y[M×N] = X[M×K]·W[N×K]ᵀ, with fp32 accumulation.
type GEMM = cuda.GEMM

// A DType is the element type of a GEMM's operands.
type DType = cuda.DType

// GEMM operand types.
const (
	DTypeFP16 = cuda.DTypeFP16
	DTypeBF16 = cuda.DTypeBF16
)

// Info returns the device's facts as the driver reported them at Open.
func (b *Backend) Info() Info { return b.info }

// MemInfo returns the driver's reading of free and total device memory,
// which counts every context and library on the device, not only this
// backend's regions.
func (b *Backend) MemInfo() (free, total backend.Bytes, err error) {
	f, t, err := b.d.MemGetInfo()
	return backend.Bytes(f), backend.Bytes(t), err
}

// LoadBLAS loads cuBLASLt and cuBLAS by dlopen, trying each directory in
// dirs ("" is the loader's search path), and creates one handle of each on
// b's context. The handles live until Close. It returns the path of the
// cuBLAS library loaded.
func (b *Backend) LoadBLAS(dirs []string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.blas == nil {
		bl, err := b.d.OpenBLAS(dirs)
		if err != nil {
			return "", err
		}
		b.blas = bl
	}
	return b.blas.Path(), nil
}

// Gemm runs g on the operands in w, x and y (see GEMM.Bytes for their
// sizes) with the handle LoadBLAS created. It does not wait for the GEMM.
func (b *Backend) Gemm(g GEMM, w, x, y *backend.Region) error {
	for _, r := range []*backend.Region{w, x, y} {
		b.minter.CheckLive(r, "gemm")
	}
	wb, xb, yb := g.Bytes()
	if uint64(w.Committed()) < wb || uint64(x.Committed()) < xb || uint64(y.Committed()) < yb {
		return &backend.Error{Op: "Gemm", Bytes: backend.Bytes(wb), Tag: w.Tag(), Err: backend.ErrInvalidValue}
	}
	b.mu.Lock()
	bl := b.blas
	b.mu.Unlock()
	if bl == nil {
		return &backend.Error{Op: "Gemm", Tag: w.Tag(), Err: cuda.ErrNoBLAS}
	}
	return bl.Gemm(g, cuda.DevicePtr(w.Base()), cuda.DevicePtr(x.Base()), cuda.DevicePtr(y.Base()))
}

// Fill sets every committed byte of r to v.
func (b *Backend) Fill(r *backend.Region, v byte) error {
	b.minter.CheckLive(r, "fill")
	return b.d.Memset(cuda.DevicePtr(r.Base()), v, uint64(r.Committed()))
}

// Synchronize waits until all work on the device's context is done.
func (b *Backend) Synchronize() error { return b.d.Synchronize() }
