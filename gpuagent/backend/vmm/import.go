package vmm

// This file is the other side of Export: an engine process that maps the
// agent's shared KV pool into an address range of its own.

import (
	"fmt"
	"sort"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/internal/cuda"
)

// An Importer maps chunks that another process exported as POSIX file
// descriptors into one address range reserved in this process, each at its
// offset, so that an address base+off means the same memory here as at
// the exporter's base+off. It implements client.Importer.
//
// The Importer owns its range and its mappings; Close unmaps them and
// frees the range. It is safe for concurrent use.
type Importer struct {
	d    *cuda.Driver
	mu   sync.Mutex
	va   cuda.DevicePtr
	size uint64
	maps map[int64]int64 // offset -> size
}

// NewImporter opens the driver on device ordinal (device 0 is the first).
// The error wraps ErrNoDriver when there is no CUDA driver.
func NewImporter(device int) (*Importer, error) {
	d, err := cuda.Open(device)
	if err != nil {
		return nil, err
	}
	return &Importer{d: d, maps: map[int64]int64{}}, nil
}

// Reserve reserves size bytes of address space, aligned to align, and
// returns its base. It may be called once.
func (im *Importer) Reserve(size, align int64) (uint64, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.va != 0 {
		return 0, fmt.Errorf("vmm: Importer.Reserve called twice")
	}
	va, err := im.d.AddressReserve(uint64(size), uint64(align))
	if err != nil {
		return 0, err
	}
	im.va, im.size = va, uint64(size)
	return uint64(va), nil
}

// Map imports fd and maps its size bytes at base+off. fd stays open.
func (im *Importer) Map(fd int, off, size int64) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.va == 0 || off < 0 || size <= 0 || uint64(off+size) > im.size {
		return fmt.Errorf("vmm: map of %d bytes at offset %d outside the %d-byte range", size, off, im.size)
	}
	if err := im.d.MapFD(im.va+cuda.DevicePtr(off), uint64(size), fd); err != nil {
		return err
	}
	im.maps[off] = size
	return nil
}

// Unmap waits for this process's work on the device, then unmaps the
// chunk mapped at base+off.
func (im *Importer) Unmap(off, size int64) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.maps[off] != size {
		return fmt.Errorf("vmm: unmap of %d bytes at offset %d, which is not a mapped chunk", size, off)
	}
	if err := im.d.Unmap(im.va+cuda.DevicePtr(off), uint64(size)); err != nil {
		return err
	}
	delete(im.maps, off)
	return nil
}

// Mapped returns the offsets of the chunks mapped now, in order.
func (im *Importer) Mapped() []int64 {
	im.mu.Lock()
	defer im.mu.Unlock()
	out := make([]int64, 0, len(im.maps))
	for off := range im.maps {
		out = append(out, off)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Write copies p to base+off.
func (im *Importer) Write(off int64, p []byte) error {
	return im.d.CopyIn(im.base()+cuda.DevicePtr(off), p)
}

// Read copies len(p) bytes at base+off into p.
func (im *Importer) Read(p []byte, off int64) error {
	return im.d.CopyOut(p, im.base()+cuda.DevicePtr(off))
}

func (im *Importer) base() cuda.DevicePtr {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.va
}

// Close unmaps every chunk, frees the range and closes the driver.
func (im *Importer) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	var first error
	for off, size := range im.maps {
		if err := im.d.Unmap(im.va+cuda.DevicePtr(off), uint64(size)); err != nil && first == nil {
			first = err
		}
		delete(im.maps, off)
	}
	if im.va != 0 {
		if err := im.d.AddressFree(im.va, im.size); err != nil && first == nil {
			first = err
		}
		im.va = 0
	}
	if err := im.d.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
