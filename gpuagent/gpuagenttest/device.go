package gpuagenttest

// This file is the driver-level half of the fake: a Device that answers the
// calls a CUDA backend makes (cuMemAlloc, cuMemCreate, cuMemMap, ...) with
// the results the real driver gives, as measured on an H200 and recorded in
// notes/cuda.md. It hands out real host memory behind stable fake device
// addresses, so released memory can be read back and checked for poison.

import (
	"fmt"
	"sort"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Poison is the byte written over memory when it is released.
const Poison = 0xDE

// vaStart is the first fake device address handed out; it is far from zero
// so that the nil address is never valid.
const vaStart backend.Addr = 0x7f00_0000_0000

type handle struct {
	size     backend.Bytes
	mem      []byte
	fd       int  // the memory's file descriptor when created exportable, else -1
	maps     int  // live mappings of this handle
	released bool // cuMemRelease was called; memory goes at the last unmap
	lastVA   backend.Addr
}

type mapping struct {
	off  backend.Bytes
	size backend.Bytes
	h    uint64
}

type reservation struct {
	size backend.Bytes
	maps []mapping // sorted by off
}

type freed struct {
	base backend.Addr
	mem  []byte
}

// A Device is a fake GPU: a capacity, a granularity, plain allocations and
// VMM handles, reservations and mappings. Every call returns a
// *backend.Error wrapping the sentinel the driver's status code maps to.
//
// A Device is safe for concurrent use.
type Device struct {
	mu         sync.Mutex
	total      backend.Bytes
	gran       backend.Bytes
	used       backend.Bytes
	nextVA     backend.Addr
	nextHandle uint64
	allocs     map[backend.Addr][]byte
	handles    map[uint64]*handle
	reserves   map[backend.Addr]*reservation
	quarantine []freed
	qlen       int
}

// NewDevice returns a Device with total bytes of memory, the given commit
// granularity (a power of two) and a quarantine of the last qlen released
// blocks.
func NewDevice(total, granularity backend.Bytes, qlen int) *Device {
	if !backend.IsPow2(granularity) {
		panic(fmt.Sprintf("gpuagenttest: granularity %d is not a power of two", granularity))
	}
	return &Device{
		total: total, gran: granularity, nextVA: vaStart, qlen: qlen,
		allocs: map[backend.Addr][]byte{}, handles: map[uint64]*handle{}, reserves: map[backend.Addr]*reservation{},
	}
}

// Total returns the device's capacity.
func (d *Device) Total() backend.Bytes { return d.total }

// Granularity returns the VMM allocation granularity.
func (d *Device) Granularity() backend.Bytes { return d.gran }

// Used returns the bytes of physical memory in use.
func (d *Device) Used() backend.Bytes {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used
}

func fail(op string, n backend.Bytes, err error) error {
	return &backend.Error{Op: op, Bytes: n, Err: err}
}

// checkSize applies the driver's size rules: over the device total is
// INVALID_VALUE, over what is free is OUT_OF_MEMORY.
func (d *Device) checkSize(op string, n backend.Bytes) error {
	switch {
	case n <= 0 || n > d.total:
		return fail(op, n, backend.ErrInvalidValue)
	case n > d.total-d.used:
		return fail(op, n, backend.ErrOutOfMemory)
	}
	return nil
}

func (d *Device) takeVA(n, align backend.Bytes) backend.Addr {
	va := backend.Addr(backend.AlignUp(backend.Bytes(d.nextVA), align))
	d.nextVA = va + backend.Addr(backend.AlignUp(n, d.gran)) + backend.Addr(d.gran)
	return va
}

// MemAlloc is cuMemAlloc: n bytes at an address aligned to align.
func (d *Device) MemAlloc(n, align backend.Bytes) (backend.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.checkSize("cuMemAlloc", n); err != nil {
		return 0, err
	}
	mem, err := hostAlloc(int(n))
	if err != nil { // the host, not the fake device, is out of memory
		return 0, fail("cuMemAlloc", n, fmt.Errorf("%w: %v", backend.ErrOutOfMemory, err))
	}
	va := d.takeVA(n, max(align, 256))
	d.allocs[va] = mem
	d.used += n
	return va, nil
}

// MemFree is cuMemFree. The memory is poisoned and quarantined.
func (d *Device) MemFree(va backend.Addr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	mem, ok := d.allocs[va]
	if !ok {
		return fail("cuMemFree", 0, backend.ErrInvalidValue)
	}
	delete(d.allocs, va)
	d.used -= backend.Bytes(len(mem))
	d.poison(va, mem)
	return nil
}

func (d *Device) poison(va backend.Addr, mem []byte) {
	if d.qlen == 0 {
		hostFree(mem) // nothing keeps it readable: poisoning it would only cost time
		return
	}
	if len(mem) > 0 { // fill by doubling: a byte loop over gigabytes takes seconds
		mem[0] = Poison
		for n := 1; n < len(mem); n *= 2 {
			copy(mem[n:], mem[:n])
		}
	}
	if len(d.quarantine) == d.qlen {
		hostFree(d.quarantine[0].mem)
		d.quarantine = d.quarantine[1:]
	}
	d.quarantine = append(d.quarantine, freed{va, mem})
}

// MemCreate is cuMemCreate: a physical handle of n bytes, which must be a
// multiple of the granularity.
func (d *Device) MemCreate(n backend.Bytes) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n%d.gran != 0 {
		return 0, fail("cuMemCreate", n, backend.ErrInvalidValue)
	}
	if err := d.checkSize("cuMemCreate", n); err != nil {
		return 0, err
	}
	mem, err := hostAlloc(int(n))
	if err != nil {
		return 0, fail("cuMemCreate", n, fmt.Errorf("%w: %v", backend.ErrOutOfMemory, err))
	}
	d.nextHandle++
	d.handles[d.nextHandle] = &handle{size: n, mem: mem, fd: -1}
	d.used += n
	return d.nextHandle, nil
}

// MemRelease is cuMemRelease. Releasing a mapped handle succeeds; its memory
// is freed at the last unmap.
func (d *Device) MemRelease(h uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	hd, ok := d.handles[h]
	if !ok || hd.released {
		return fail("cuMemRelease", 0, backend.ErrInvalidValue)
	}
	hd.released = true
	d.maybeFreeHandle(h, hd)
	return nil
}

func (d *Device) maybeFreeHandle(id uint64, h *handle) {
	if h.released && h.maps == 0 {
		delete(d.handles, id)
		d.used -= h.size
		if h.fd >= 0 {
			freeShared(h)
			return
		}
		d.poison(h.lastVA, h.mem)
	}
}

// AddressReserve is cuMemAddressReserve: n bytes of address space, a
// multiple of the granularity, aligned to it.
func (d *Device) AddressReserve(n backend.Bytes) (backend.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n <= 0 || n%d.gran != 0 {
		return 0, fail("cuMemAddressReserve", n, backend.ErrInvalidValue)
	}
	va := d.takeVA(n, d.gran)
	d.reserves[va] = &reservation{size: n}
	return va, nil
}

// AddressFree is cuMemAddressFree. Freeing a range that is still mapped is
// INVALID_VALUE.
func (d *Device) AddressFree(va backend.Addr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.reserves[va]
	if !ok || len(r.maps) > 0 {
		return fail("cuMemAddressFree", 0, backend.ErrInvalidValue)
	}
	delete(d.reserves, va)
	return nil
}

func (d *Device) findReserve(va backend.Addr) (backend.Addr, *reservation) {
	for base, r := range d.reserves {
		if va >= base && va < base+backend.Addr(r.size) {
			return base, r
		}
	}
	return 0, nil
}

// Map is cuMemMap of all of handle h at va. A va that is not granularity
// aligned is NOT_SUPPORTED; a va outside a reservation, a size that is not
// the handle's, or a range that overlaps a mapping is INVALID_VALUE.
func (d *Device) Map(va backend.Addr, n backend.Bytes, h uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if backend.Bytes(va)%d.gran != 0 {
		return fail("cuMemMap", n, backend.ErrNotSupported)
	}
	base, r := d.findReserve(va)
	hd, ok := d.handles[h]
	off := backend.Bytes(va - base)
	if r == nil || !ok || hd.released || n != hd.size || off+n > r.size || overlaps(r.maps, off, n) {
		return fail("cuMemMap", n, backend.ErrInvalidValue)
	}
	r.maps = append(r.maps, mapping{off, n, h})
	sort.Slice(r.maps, func(i, j int) bool { return r.maps[i].off < r.maps[j].off })
	hd.maps++
	hd.lastVA = va
	return nil
}

func overlaps(ms []mapping, off, n backend.Bytes) bool {
	for _, m := range ms {
		if off < m.off+m.size && m.off < off+n {
			return true
		}
	}
	return false
}

// Unmap is cuMemUnmap of [va, va+n). The range may cover several adjacent
// mappings but must not cut one: unmapping part of a mapping is
// INVALID_VALUE.
func (d *Device) Unmap(va backend.Addr, n backend.Bytes) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	base, r := d.findReserve(va)
	if r == nil || n <= 0 {
		return fail("cuMemUnmap", n, backend.ErrInvalidValue)
	}
	lo, hi, ok := coveredMappings(r.maps, backend.Bytes(va-base), n)
	if !ok {
		return fail("cuMemUnmap", n, backend.ErrInvalidValue)
	}
	for _, m := range r.maps[lo:hi] {
		hd := d.handles[m.h]
		hd.maps--
		d.maybeFreeHandle(m.h, hd)
	}
	r.maps = append(r.maps[:lo], r.maps[hi:]...)
	return nil
}

// coveredMappings returns the index range of the mappings that tile
// [off, off+n) exactly, and whether they do.
func coveredMappings(ms []mapping, off, n backend.Bytes) (lo, hi int, ok bool) {
	lo = sort.Search(len(ms), func(i int) bool { return ms[i].off >= off })
	at := off
	for hi = lo; hi < len(ms) && at < off+n; hi++ {
		if ms[hi].off != at {
			return 0, 0, false
		}
		at += ms[hi].size
	}
	return lo, hi, hi > lo && at == off+n
}

// Read returns a copy of n bytes at va: live memory, or poisoned memory from
// the quarantine. It reports false if va is neither.
func (d *Device) Read(va backend.Addr, n backend.Bytes) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if mem := d.resolve(va, n); mem != nil {
		return append([]byte(nil), mem...), true
	}
	return nil, false
}

// Write copies p to live memory at va. It reports false if va is not live.
func (d *Device) Write(va backend.Addr, p []byte) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	mem := d.resolveLive(va, backend.Bytes(len(p)))
	copy(mem, p)
	return mem != nil
}

func (d *Device) resolve(va backend.Addr, n backend.Bytes) []byte {
	if mem := d.resolveLive(va, n); mem != nil {
		return mem
	}
	for _, f := range d.quarantine {
		if mem := within(f.base, f.mem, va, n); mem != nil {
			return mem
		}
	}
	return nil
}

func (d *Device) resolveLive(va backend.Addr, n backend.Bytes) []byte {
	for base, mem := range d.allocs {
		if m := within(base, mem, va, n); m != nil {
			return m
		}
	}
	base, r := d.findReserve(va)
	if r == nil {
		return nil
	}
	for _, m := range r.maps {
		if mem := within(base+backend.Addr(m.off), d.handles[m.h].mem, va, n); mem != nil {
			return mem
		}
	}
	return nil
}

func within(base backend.Addr, mem []byte, va backend.Addr, n backend.Bytes) []byte {
	if va < base || va+backend.Addr(n) > base+backend.Addr(len(mem)) {
		return nil
	}
	off := int(va - base)
	return mem[off : off+int(n)]
}
