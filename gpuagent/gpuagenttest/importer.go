//go:build linux

package gpuagenttest

// This file is the fake's importing side: what an engine process does
// with the descriptors the agent sends it, over memory files instead of
// device memory, so two processes on a machine without a GPU share bytes
// as they would on one.

import (
	"fmt"
	"sort"
	"sync"
	"syscall"
)

// A FileImporter maps exported fake memory into one address range of its own,
// each chunk at its offset. It implements client.Importer and Importer over the Fake's
// exported handles. Its base is a fake device address; Read and Write
// reach the memory.
//
// The FileImporter owns its mappings; Close unmaps them. It is safe for
// concurrent use.
type FileImporter struct {
	mu   sync.Mutex
	base uint64
	size int64
	maps map[int64][]byte // offset -> mapped memory
}

// NewFileImporter returns an FileImporter with nothing reserved.
func NewFileImporter() *FileImporter { return &FileImporter{maps: map[int64][]byte{}} }

// Reserve reserves size bytes at a fake address aligned to align.
func (im *FileImporter) Reserve(size, align int64) (uint64, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.base != 0 || size <= 0 {
		return 0, fmt.Errorf("gpuagenttest: Reserve(%d) twice or of nothing", size)
	}
	im.base, im.size = uint64(vaStart)<<1, size
	return im.base, nil
}

// Map maps size bytes of the memory file fd at base+off. fd stays open.
func (im *FileImporter) Map(fd int, off, size int64) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.base == 0 || off < 0 || size <= 0 || off+size > im.size {
		return fmt.Errorf("gpuagenttest: map of %d bytes at offset %d outside the %d-byte range", size, off, im.size)
	}
	for o, m := range im.maps {
		if off < o+int64(len(m)) && o < off+size {
			return fmt.Errorf("gpuagenttest: map at offset %d onto the mapping at %d (CUDA_ERROR_INVALID_VALUE)", off, o)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Size < size {
		return fmt.Errorf("gpuagenttest: descriptor %d holds %d bytes, want %d (%v)", fd, st.Size, size, err)
	}
	mem, err := mapShared(fd, int(size))
	if err != nil {
		return err
	}
	im.maps[off] = mem
	return nil
}

// Unmap unmaps the chunk mapped at base+off.
func (im *FileImporter) Unmap(off, size int64) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	m, ok := im.maps[off]
	if !ok || int64(len(m)) != size {
		return fmt.Errorf("gpuagenttest: unmap of %d bytes at offset %d, which is not a mapped chunk", size, off)
	}
	delete(im.maps, off)
	return syscall.Munmap(m)
}

// Mapped returns the offsets of the chunks mapped now, in order.
func (im *FileImporter) Mapped() []int64 {
	im.mu.Lock()
	defer im.mu.Unlock()
	out := make([]int64, 0, len(im.maps))
	for off := range im.maps {
		out = append(out, off)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Write copies p to base+off, which must lie in one mapped chunk.
func (im *FileImporter) Write(off int64, p []byte) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	m, err := im.at(off, len(p))
	copy(m, p)
	return err
}

// Read copies len(p) bytes at base+off, which must lie in one mapped
// chunk, into p.
func (im *FileImporter) Read(p []byte, off int64) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	m, err := im.at(off, len(p))
	copy(p, m)
	return err
}

func (im *FileImporter) at(off int64, n int) ([]byte, error) {
	for o, m := range im.maps {
		if off >= o && off+int64(n) <= o+int64(len(m)) {
			return m[off-o : off-o+int64(n)], nil
		}
	}
	return nil, fmt.Errorf("gpuagenttest: %d bytes at offset %d are not mapped", n, off)
}

// Close unmaps every chunk.
func (im *FileImporter) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	for off, m := range im.maps {
		syscall.Munmap(m)
		delete(im.maps, off)
	}
	return nil
}
