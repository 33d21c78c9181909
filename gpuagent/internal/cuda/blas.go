package cuda

import "fmt"

// blasShim is the table of cuBLAS entry points, filled by loadBLAS.
type blasShim struct {
	path      string
	create    func() (uintptr, int32)
	destroy   func(h uintptr) int32
	ltCreate  func() (uintptr, int32)
	ltDestroy func(h uintptr) int32
	gemmEx    func(h uintptr, g GEMM, a, b, c DevicePtr) int32
}

// A DType is a cudaDataType_t of GEMM operands.
type DType int32

// GEMM operand types.
const (
	DTypeFP16 DType = 2  // CUDA_R_16F
	DTypeBF16 DType = 14 // CUDA_R_16BF
)

func (t DType) String() string {
	switch t {
	case DTypeFP16:
		return "fp16"
	case DTypeBF16:
		return "bf16"
	}
	return fmt.Sprintf("dtype(%d)", int32(t))
}

// A GEMM is one matrix product as an engine's linear layer issues it:
// Y[M×N] = X[M×K]·W[N×K]ᵀ, in Type with fp32 accumulation.
type GEMM struct {
	M, N, K int
	Type    DType
}

// Bytes returns the sizes of W, X and Y.
func (g GEMM) Bytes() (w, x, y uint64) {
	const elem = 2
	return uint64(g.N*g.K) * elem, uint64(g.M*g.K) * elem, uint64(g.M*g.N) * elem
}

// A BLAS is a cuBLAS handle and a cuBLASLt handle on a Driver's context.
// Its methods run on the driver thread; it is safe for concurrent use.
// Close destroys the handles, which frees what they hold.
type BLAS struct {
	d     *Driver
	s     *blasShim
	h, lt uintptr
}

// OpenBLAS loads cuBLASLt and cuBLAS, trying each directory in dirs ("" is
// the loader's search path), and creates one handle of each. It returns
// ErrNoBLAS (wrapped) when neither library can be found.
func (d *Driver) OpenBLAS(dirs []string) (*BLAS, error) {
	s, err := loadBLAS(dirs)
	if err != nil {
		return nil, err
	}
	b := &BLAS{d: d, s: s}
	err = d.call(func() error {
		var code int32
		if b.lt, code = s.ltCreate(); code != 0 {
			return fmt.Errorf("cublasLtCreate: %w", BLASStatus(code))
		}
		if b.h, code = s.create(); code != 0 {
			s.ltDestroy(b.lt)
			return fmt.Errorf("cublasCreate_v2: %w", BLASStatus(code))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Path returns the cuBLAS library that was loaded.
func (b *BLAS) Path() string { return b.s.path }

// Gemm runs g on the operands w, x and y, which must be large enough.
func (b *BLAS) Gemm(g GEMM, w, x, y DevicePtr) error {
	return b.d.call(func() error {
		if code := b.s.gemmEx(b.h, g, w, x, y); code != 0 {
			return fmt.Errorf("cublasGemmEx(%d×%d×%d %v): %w", g.M, g.N, g.K, g.Type, BLASStatus(code))
		}
		return nil
	})
}

// Close destroys the handles.
func (b *BLAS) Close() error {
	return b.d.call(func() error {
		code := b.s.destroy(b.h)
		b.s.ltDestroy(b.lt)
		if code != 0 {
			return fmt.Errorf("cublasDestroy_v2: %w", BLASStatus(code))
		}
		return nil
	})
}
