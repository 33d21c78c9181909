package backend

// A Chunk is one physical allocation backing part of a growable region:
// Size bytes at Offset from the region's base. A region's committed prefix
// is tiled by its chunks, in address order; Decommit can stop only where
// one chunk ends and the next begins.
type Chunk struct {
	Offset Bytes `json:"offset"`
	Size   Bytes `json:"size"`
}

// End returns the offset just past c.
func (c Chunk) End() Bytes { return c.Offset + c.Size }

// A Sharer is a Backend whose growable regions can be mapped by another
// process: each chunk of a region acquired under a shared tag (the KV
// pools) is created exportable, and Export hands it out as a POSIX file
// descriptor, which the other process imports and maps at the same offset
// of an address range of its own (CUDA's cuMemExportToShareableHandle and
// cuMemImportFromShareableHandle).
//
// Memory a process imported stays allocated until that process unmaps it,
// whatever the exporter does: decommitting a chunk another process still
// maps frees nothing. Whoever shares a region therefore decommits a chunk
// only after every importer has unmapped it.
type Sharer interface {
	Backend
	// Chunks returns the chunks that tile r's committed prefix, in address
	// order.
	Chunks(r *Region) []Chunk
	// Export returns a new POSIX file descriptor for the chunk of r that
	// starts at offset off. The caller closes it. A region whose tag is not
	// shared, or a device that cannot export, gives ErrNotSupported; an off
	// where no committed chunk starts gives ErrInvalidValue.
	Export(r *Region, off Bytes) (fd int, err error)
}

// Shared reports whether regions acquired under t are created exportable
// by a Sharer: the KV pools, which engine processes map.
func (t Tag) Shared() bool { return t == TagKVPool || t == TagSWAPool }
