package gpuagenttest_test

import (
	"errors"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

const g = 64 * backend.KiB

// TestDeviceAnswersAsTheDriver replays the table "What the driver answers"
// from notes/cuda.md against the fake device.
func TestDeviceAnswersAsTheDriver(t *testing.T) {
	tests := []struct {
		name string
		do   func(d *gpuagenttest.Device) error
		want error
	}{
		{"cuMemCreate size not a multiple of granularity", func(d *gpuagenttest.Device) error { return second(d.MemCreate(g + 1)) }, backend.ErrInvalidValue},
		{"cuMemCreate size over device total", func(d *gpuagenttest.Device) error { return second(d.MemCreate(2 * d.Total())) }, backend.ErrInvalidValue},
		{"cuMemCreate free < size < total", createOverFree, backend.ErrOutOfMemory},
		{"cuMemMap onto a mapped range", mapTwice, backend.ErrInvalidValue},
		{"cuMemMap at an unaligned VA", mapUnaligned, backend.ErrNotSupported},
		{"cuMemUnmap of part of one mapping", unmapPart, backend.ErrInvalidValue},
		{"cuMemUnmap over adjacent mappings", unmapAdjacent, nil},
		{"cuMemAddressFree while mapped", freeMapped, backend.ErrInvalidValue},
		{"cuMemRelease while mapped", releaseMapped, nil},
	}
	for _, tt := range tests {
		d := gpuagenttest.NewDevice(16*g, g, 4)
		if err := tt.do(d); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func createOverFree(d *gpuagenttest.Device) error {
	if _, err := d.MemCreate(10 * g); err != nil {
		return err
	}
	return second(d.MemCreate(8 * g))
}

// reserveMapped reserves 4 chunks and maps a 1-chunk handle at each of the
// first n.
func reserveMapped(d *gpuagenttest.Device, n int) (backend.Addr, []uint64) {
	va, _ := d.AddressReserve(4 * g)
	var hs []uint64
	for i := range n {
		h, _ := d.MemCreate(g)
		d.Map(va+backend.Addr(i)*backend.Addr(g), g, h)
		hs = append(hs, h)
	}
	return va, hs
}

func mapTwice(d *gpuagenttest.Device) error {
	va, _ := reserveMapped(d, 1)
	h, _ := d.MemCreate(g)
	return d.Map(va, g, h)
}

func mapUnaligned(d *gpuagenttest.Device) error {
	va, _ := reserveMapped(d, 0)
	h, _ := d.MemCreate(g)
	return d.Map(va+4096, g, h)
}

func unmapPart(d *gpuagenttest.Device) error {
	va, _ := d.AddressReserve(4 * g)
	h, _ := d.MemCreate(2 * g)
	d.Map(va, 2*g, h)
	return d.Unmap(va, g)
}

func unmapAdjacent(d *gpuagenttest.Device) error {
	va, _ := reserveMapped(d, 3)
	return d.Unmap(va, 3*g)
}

func freeMapped(d *gpuagenttest.Device) error {
	va, _ := reserveMapped(d, 1)
	return d.AddressFree(va)
}

// releaseMapped checks that a released, still-mapped handle keeps its
// memory until the unmap, and that the memory is poisoned afterwards.
func releaseMapped(d *gpuagenttest.Device) error {
	va, hs := reserveMapped(d, 1)
	d.Write(va, []byte{1, 2, 3})
	if err := d.MemRelease(hs[0]); err != nil {
		return err
	}
	if b, _ := d.Read(va, 3); d.Used() != g || b[0] != 1 {
		return errors.New("memory freed before the unmap")
	}
	d.Unmap(va, g)
	if b, ok := d.Read(va, 3); d.Used() != 0 || !ok || b[0] != gpuagenttest.Poison {
		return errors.New("memory not freed and poisoned at the unmap")
	}
	return nil
}
