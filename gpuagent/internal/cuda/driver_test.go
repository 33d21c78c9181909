package cuda

import (
	"errors"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/gputest"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// openOrSkip opens device 0, or skips when there is no driver.
func openOrSkip(t *testing.T) *Driver {
	t.Helper()
	return gputest.Open(t, ErrNoDriver, func() (*Driver, error) { return Open(0) }, (*Driver).Close)
}

func TestResultErrors(t *testing.T) {
	err := checkBytes("cuMemCreate", 3<<20, int32(ErrInvalidValue))
	if !errors.Is(err, ErrInvalidValue) || err.Error() != "cuMemCreate(3145728 bytes): CUDA_ERROR_INVALID_VALUE" {
		t.Errorf("checkBytes = %v, want a wrapped ErrInvalidValue naming the call", err)
	}
	if check("cuInit", 0) != nil {
		t.Error("check(success) != nil")
	}
	if got := Result(999).Error(); got != "CUresult 999" {
		t.Errorf("Result(999) = %q", got)
	}
}

func TestNoDriverIsReported(t *testing.T) {
	if _, err := loadDriver(); err != nil && !errors.Is(err, ErrNoDriver) {
		t.Errorf("loadDriver() = %v, want nil or ErrNoDriver", err)
	}
}

func TestDriverInfoAndMemory(t *testing.T) {
	d := openOrSkip(t)
	in, err := d.Info()
	if err != nil || in.TotalBytes == 0 || in.SMCount == 0 || in.Name == "" {
		t.Fatalf("Info() = %+v, %v", in, err)
	}
	t.Logf("device: %+v", in)
	p, err := d.MemAlloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer d.MemFree(p)
	roundTrip(t, d, p, 1<<20)
	if _, err := d.MemAlloc(in.TotalBytes * 2); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("MemAlloc(2×total) = %v, want ErrOutOfMemory", err)
	}
}

// roundTrip writes a pattern to n bytes at p and reads it back.
func roundTrip(t *testing.T, d *Driver, p DevicePtr, n int) {
	t.Helper()
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, n)
	if err := d.CopyIn(p, src); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyOut(dst, p); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if src[i] != dst[i] {
			t.Fatalf("byte %d = %d after round trip, want %d", i, dst[i], src[i])
		}
	}
}

func TestDriverVMM(t *testing.T) {
	d := openOrSkip(t)
	prop := DeviceProp(d.Device(), false)
	g, err := d.Granularity(prop, false)
	if err != nil || g == 0 {
		t.Fatalf("Granularity = %d, %v", g, err)
	}
	va, err := d.AddressReserve(8*g, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.AddressFree(va, 8*g)
	h, err := d.Commit(va, 2*g, prop)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, d, va, int(2*g))
	if _, err := d.Commit(va, 2*g, prop); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("Commit onto a mapped range = %v, want ErrInvalidValue", err)
	}
	if _, err := d.Commit(va+DevicePtr(g), 3*g/2, prop); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("Commit of a size not a multiple of the granularity = %v, want ErrInvalidValue", err)
	}
	if n, err := d.Decommit([]Mapping{{va, 2 * g, h}}); n != 1 || err != nil {
		t.Errorf("Decommit = %d, %v", n, err)
	}
	ok, err := d.ExportProbe(g)
	t.Logf("POSIX-fd export: %v (%v)", ok, err)
}

func TestDriverClosed(t *testing.T) {
	d := openOrSkip(t)
	d.Close()
	if _, _, err := d.MemGetInfo(); !errors.Is(err, ErrClosed) {
		t.Errorf("MemGetInfo after Close = %v, want ErrClosed", err)
	}
}

func TestResultIsBackendSentinel(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want error
	}{{ErrOutOfMemory, backend.ErrOutOfMemory}, {ErrInvalidValue, backend.ErrInvalidValue}, {ErrNotSupported, backend.ErrNotSupported}} {
		err := checkBytes("cuMemCreate", 1, int32(c.r))
		if !errors.Is(err, c.want) || !errors.Is(err, c.r) {
			t.Errorf("errors.Is(%v, %v) = false", err, c.want)
		}
	}
	if errors.Is(ErrNoDevice, backend.ErrOutOfMemory) {
		t.Error("ErrNoDevice is ErrOutOfMemory")
	}
}
