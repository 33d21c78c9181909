//go:build linux && cgo

package cuda

// This file loads cuBLAS and cuBLASLt with dlopen, for the calibration of
// the memory they reserve on first use (seed A1.5).

/*
#include <stdint.h>
typedef int cublasStatus_t;

static cublasStatus_t vp_blas_create(void *f, uintptr_t *h) { return ((cublasStatus_t (*)(uintptr_t *))f)(h); }
static cublasStatus_t vp_blas_destroy(void *f, uintptr_t h) { return ((cublasStatus_t (*)(void *))f)((void *)h); }

// vp_gemm computes Y = X·Wᵀ in column-major terms: C[n×m] = op(W)[n×k]·X[k×m]
// with W stored k×n, so that the shapes match an engine's linear layer.
static cublasStatus_t vp_gemm(void *f, uintptr_t h, int m, int n, int k, int type,
		unsigned long long w, unsigned long long x, unsigned long long y) {
	static const float one = 1.0f, zero = 0.0f;
	typedef cublasStatus_t (*gemm_t)(void *, int, int, int, int, int, const void *,
		const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
	return ((gemm_t)f)((void *)h, 1, 0, n, m, k, &one,
		(const void *)(uintptr_t)w, type, k, (const void *)(uintptr_t)x, type, k,
		&zero, (void *)(uintptr_t)y, type, n, 68, -1);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"unsafe"
)

var (
	blasOnce sync.Once
	blasLib  *blasShim
	blasErr  error
)

// blasVersions are the sonames tried, newest first.
var blasVersions = []string{"13", "12"}

func loadBLAS(dirs []string) (*blasShim, error) {
	blasOnce.Do(func() { blasLib, blasErr = openBLAS(dirs) })
	return blasLib, blasErr
}

func openBLAS(dirs []string) (*blasShim, error) {
	var errs []error
	for _, dir := range dirs {
		for _, v := range blasVersions {
			s, err := openBLASAt(dir, v)
			if err == nil {
				return s, nil
			}
			errs = append(errs, err)
		}
	}
	return nil, fmt.Errorf("%w: %w", ErrNoBLAS, errors.Join(errs...))
}

func openBLASAt(dir, version string) (*blasShim, error) {
	path := func(name string) string {
		if dir == "" {
			return name + ".so." + version
		}
		return filepath.Join(dir, name+".so."+version)
	}
	lt, err := dlopen(path("libcublasLt"), true, []string{"cublasLtCreate", "cublasLtDestroy"})
	if err != nil {
		return nil, err
	}
	b, err := dlopen(path("libcublas"), true, []string{"cublasCreate_v2|cublasCreate", "cublasDestroy_v2|cublasDestroy", "cublasGemmEx"})
	if err != nil {
		return nil, err
	}
	return &blasShim{
		path:      path("libcublas"),
		create:    func() (uintptr, int32) { return blasCreate(b["cublasCreate_v2"]) },
		destroy:   func(h uintptr) int32 { return int32(C.vp_blas_destroy(b["cublasDestroy_v2"], C.uintptr_t(h))) },
		ltCreate:  func() (uintptr, int32) { return blasCreate(lt["cublasLtCreate"]) },
		ltDestroy: func(h uintptr) int32 { return int32(C.vp_blas_destroy(lt["cublasLtDestroy"], C.uintptr_t(h))) },
		gemmEx: func(h uintptr, g GEMM, w, x, y DevicePtr) int32 {
			return int32(C.vp_gemm(b["cublasGemmEx"], C.uintptr_t(h), C.int(g.M), C.int(g.N), C.int(g.K), C.int(g.Type),
				C.ulonglong(w), C.ulonglong(x), C.ulonglong(y)))
		},
	}, nil
}

func blasCreate(f unsafe.Pointer) (uintptr, int32) {
	var h C.uintptr_t
	code := C.vp_blas_create(f, &h)
	return uintptr(h), int32(code)
}
