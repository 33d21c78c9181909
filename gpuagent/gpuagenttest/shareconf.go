package gpuagenttest

// This file is the conformance suite of backend.Sharer: exporting a shared
// region's chunks as file descriptors that an Importer maps, on the fake
// always and on the VMM backend when a GPU is present.

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// An Importer maps exported chunks into an address range of its own, as an
// engine process does; client.Importer has the same first four methods.
// Write and Read reach the mapped memory.
type Importer interface {
	Reserve(size, align int64) (uint64, error)
	Map(fd int, off, size int64) error
	Unmap(off, size int64) error
	Close() error
	Write(off int64, p []byte) error
	Read(p []byte, off int64) error
}

// TestSharer checks that b's growable KV regions export their chunks and
// that two importers mapping the same descriptors share the bytes. It
// closes every descriptor it is given, and checks that the process holds
// no more descriptors afterwards than before.
func TestSharer(t *testing.T, b backend.Sharer, newImporter func() Importer) {
	g := b.Stats().Granularity
	fds0 := OpenFDs(t)
	r, err := b.AcquireGrowable(8*g, 2*g, backend.TagKVPool)
	if err != nil {
		t.Fatalf("AcquireGrowable = %v", err)
	}
	if err := b.Commit(r, 6*g); err != nil {
		t.Fatal(err)
	}
	chunks := b.Chunks(r)
	if !tiles(chunks, r.Committed()) {
		t.Fatalf("Chunks = %v, want chunks tiling the %v committed", chunks, r.Committed())
	}
	checkExportErrors(t, b, r, chunks)
	a, c := newImporter(), newImporter()
	for _, im := range []Importer{a, c} {
		if _, err := im.Reserve(int64(r.Reserved()), int64(g)); err != nil {
			t.Fatal(err)
		}
		mapAll(t, b, r, im, chunks)
	}
	last := chunks[len(chunks)-1]
	want := bytes.Repeat([]byte("kv-block"), 512)
	got := make([]byte, len(want))
	if err := a.Write(int64(last.Offset), want); err != nil {
		t.Fatal(err)
	}
	if err := c.Read(got, int64(last.Offset)); err != nil || !bytes.Equal(got, want) {
		t.Errorf("a second importer read %q… (%v), want what the first wrote", got[:8], err)
	}
	for _, im := range []Importer{a, c} {
		if err := im.Unmap(int64(last.Offset), int64(last.Size)); err != nil {
			t.Errorf("Unmap(%v) = %v", last, err)
		}
		im.Close()
	}
	if err := b.Decommit(r, last.Offset); err != nil {
		t.Errorf("Decommit after every importer unmapped = %v", err)
	}
	b.Release(r)
	if n := OpenFDs(t); n != fds0 {
		t.Errorf("%d descriptors open after exporting and closing, %d before", n, fds0)
	}
}

func tiles(cs []backend.Chunk, n backend.Bytes) bool {
	var at backend.Bytes
	for _, c := range cs {
		if c.Offset != at || c.Size <= 0 {
			return false
		}
		at = c.End()
	}
	return at == n
}

func checkExportErrors(t *testing.T, b backend.Sharer, r *backend.Region, chunks []backend.Chunk) {
	g := b.Stats().Granularity
	plain, err := b.AcquireGrowable(2*g, g, backend.TagWeights)
	if err == nil {
		defer b.Release(plain)
		if fd, err := b.Export(plain, 0); !errors.Is(err, backend.ErrNotSupported) {
			closeFD(fd)
			t.Errorf("Export of a weights region = %v, want ErrNotSupported", err)
		}
	}
	for _, off := range []backend.Bytes{chunks[0].Offset + g/2, r.Committed(), -g} {
		if fd, err := b.Export(r, off); !errors.Is(err, backend.ErrInvalidValue) {
			closeFD(fd)
			t.Errorf("Export at offset %v = %v, want ErrInvalidValue", off, err)
		}
	}
}

func mapAll(t *testing.T, b backend.Sharer, r *backend.Region, im Importer, chunks []backend.Chunk) {
	for _, c := range chunks {
		fd, err := b.Export(r, c.Offset)
		if err != nil {
			t.Fatalf("Export(%v) = %v", c, err)
		}
		err = im.Map(fd, int64(c.Offset), int64(c.Size))
		closeFD(fd)
		if err != nil {
			t.Fatalf("Map(%v) = %v", c, err)
		}
	}
}
