package vmm

// Tests here reach under the backend to the driver, to read device memory
// and to compare the backend with bare driver calls.

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/internal/gputest"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

func openInternal(t *testing.T, opts Options) *Backend {
	t.Helper()
	return gputest.Open(t, ErrNoDriver, func() (*Backend, error) { return Open(opts) }, (*Backend).Close)
}

func pattern(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*131) ^ seed
	}
	return p
}

// TestGrowth10x grows a region from one chunk to ten and back, checking
// that the base never moves, that decommitted memory returns to the
// device, and that data below the decommit survives it and the recommit.
func TestGrowth10x(t *testing.T) {
	const chunk = 64 * backend.MiB
	b := openInternal(t, Options{Chunk: chunk, Hysteresis: -1})
	r, err := b.AcquireGrowable(10*chunk, chunk, backend.TagKVPool)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(r)
	base := r.Base()
	data := pattern(int(chunk), 0x5a)
	if err := b.d.CopyIn(cuda.DevicePtr(base), data); err != nil {
		t.Fatal(err)
	}
	free0 := b.free(t)
	for n := 2 * chunk; n <= 10*chunk; n += chunk {
		if err := b.Commit(r, n); err != nil || r.Base() != base {
			t.Fatalf("Commit(%v) = %v, base %#x, want base %#x", n, err, uint64(r.Base()), uint64(base))
		}
	}
	grown := free0 - b.free(t)
	if err := b.Decommit(r, chunk); err != nil {
		t.Fatal(err)
	}
	back := b.free(t) - (free0 - grown)
	if err := b.Commit(r, 10*chunk); err != nil || r.Base() != base {
		t.Fatalf("recommit = %v, base %#x, want %#x", err, uint64(r.Base()), uint64(base))
	}
	got := make([]byte, chunk)
	if err := b.d.CopyOut(got, cuda.DevicePtr(base)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("first chunk changed across decommit and recommit")
	}
	t.Logf("growth: base %#x invariant over %v -> %v -> %v -> %v; device free fell %v on growth and rose %v on decommit; %v intact",
		uint64(base), chunk, 10*chunk, chunk, 10*chunk, grown, back, chunk)
	if slack := 16 * backend.MiB; abs(grown-9*chunk) > slack || abs(back-9*chunk) > slack {
		t.Errorf("device free moved %v on growth and %v on decommit, want %v ± %v each", grown, back, 9*chunk, slack)
	}
}

func abs(b backend.Bytes) backend.Bytes { return max(b, -b) }

func (b *Backend) free(t *testing.T) backend.Bytes {
	f, _, err := b.d.MemGetInfo()
	if err != nil {
		t.Fatal(err)
	}
	return backend.Bytes(f)
}

// TestOverhead compares a commit/decommit round through the backend with
// the same driver calls made bare on the driver thread. The two alternate
// in small batches so that drift in the driver's speed hits both alike.
func TestOverhead(t *testing.T) {
	const chunk, rounds, batches = 64 * backend.MiB, 10, 40
	b := openInternal(t, Options{Chunk: chunk, Hysteresis: -1})
	r, err := b.AcquireGrowable(chunk, 0, backend.TagKVPool)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(r)
	va, err := b.d.AddressReserve(uint64(chunk), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.d.AddressFree(va, uint64(chunk))
	var viaBackend, raw cuda.RawTimes
	for range batches {
		bt := b.roundTrips(t, r, rounds)
		rt, err := b.d.RawCommitDecommit(va, uint64(chunk), rounds)
		if err != nil {
			t.Fatal(err)
		}
		viaBackend.Commit, viaBackend.Decommit = append(viaBackend.Commit, bt.Commit...), append(viaBackend.Decommit, bt.Decommit...)
		raw.Commit, raw.Decommit = append(raw.Commit, rt.Commit...), append(raw.Decommit, rt.Decommit...)
	}
	bc, bd, rc, rd := median(viaBackend.Commit), median(viaBackend.Decommit), median(raw.Commit), median(raw.Decommit)
	over := (bc + bd - rc - rd) / (rc + rd) * 100
	t.Logf("overhead: %v chunk, %d rounds each in batches of %d: backend commit p50 %.1f µs, decommit p50 %.1f µs; raw commit p50 %.1f µs, decommit p50 %.1f µs; overhead %.2f %%",
		chunk, rounds*batches, rounds, bc, bd, rc, rd, over)
	if over > 10 {
		t.Errorf("commit+decommit overhead %.2f %% over raw driver calls, want <= 10 %%", over)
	}
}

func (b *Backend) roundTrips(t *testing.T, r *backend.Region, n int) cuda.RawTimes {
	var rt cuda.RawTimes
	for range n {
		t0 := time.Now()
		if err := b.Commit(r, r.Reserved()); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		if err := b.Decommit(r, 0); err != nil {
			t.Fatal(err)
		}
		rt.Commit = append(rt.Commit, float64(t1.Sub(t0).Nanoseconds())/1e3)
		rt.Decommit = append(rt.Decommit, cuda.Since(t1))
	}
	return rt
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestExcess checks the hysteresis arithmetic without a device.
func TestExcess(t *testing.T) {
	const m = backend.MiB
	s := &space{va: 1 << 40, mapped: 16 * m}
	for i, size := range []backend.Bytes{2, 2, 4, 8} {
		off := []backend.Bytes{0, 2, 4, 8}[i] * m
		s.maps = append(s.maps, cuda.Mapping{VA: s.va + cuda.DevicePtr(off), Size: uint64(size * m)})
	}
	for _, c := range []struct {
		n, keep backend.Bytes
		want    int
	}{{16 * m, 0, 0}, {8 * m, 0, 1}, {8 * m, 8 * m, 0}, {4 * m, 4 * m, 1}, {0, 0, 4}, {0, 100 * m, 0}, {3 * m, 0, 2}} {
		if got := s.excess(c.n, c.keep); got != c.want {
			t.Errorf("excess(%v, keep %v) = %d, want %d", c.n, c.keep, got, c.want)
		}
	}
	for n, want := range map[backend.Bytes]bool{0: true, 2 * m: true, 3 * m: false, 8 * m: true, 16 * m: true, 12 * m: false} {
		if s.boundary(n) != want {
			t.Errorf("boundary(%v) = %v, want %v", n, !want, want)
		}
	}
}
