package gpuagenttest

// This file is the growable half of the Fake: reserve, commit and decommit
// done the way a VMM backend does them over the driver (commit = create +
// map per chunk, decommit = unmap + release), with the growth simulation's
// check that a region's base address never moves.

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// AcquireGrowable implements backend.Backend: reserve bytes of address
// space, then commit the first commit bytes as one chunk.
func (f *Fake) AcquireGrowable(reserve, commit backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if commit < 0 || commit > reserve {
		return nil, &backend.Error{Op: "AcquireGrowable", Bytes: commit, Tag: tag, Err: backend.ErrInvalidValue}
	}
	if err := f.admit("AcquireGrowable", commit, tag); err != nil {
		return nil, err
	}
	va, err := f.dev.AddressReserve(reserve)
	if err != nil {
		return nil, tagged(err, tag)
	}
	r := f.minter.Mint(backend.RegionSpec{Base: va, Reserved: reserve, Tag: tag, Growable: true})
	l := &live{r: r, base: va}
	if err := f.grow(l, commit); err != nil {
		f.minter.Retire(r)
		f.dev.AddressFree(va)
		return nil, tagged(err, tag)
	}
	f.live[r] = l
	f.acquires++
	f.record(OpAcquire, r, commit)
	return r, nil
}

// grow commits [committed, n) in chunks of at most Config.Chunk each. On
// failure it undoes what it committed.
func (f *Fake) grow(l *live, n backend.Bytes) error {
	was := l.r.Committed()
	for at := was; at < n; {
		size := n - at
		if f.cfg.Chunk > 0 {
			size = min(size, f.cfg.Chunk)
		}
		if err := f.growOne(l, at, size); err != nil {
			if at > was {
				must(f.shrink(l, was))
			}
			return err
		}
		at += size
	}
	return nil
}

// growOne commits one chunk of size bytes at offset at.
func (f *Fake) growOne(l *live, at, size backend.Bytes) error {
	create := f.dev.MemCreate
	if f.cfg.Export && l.r.Tag().Shared() {
		create = f.dev.MemCreateExportable
	}
	h, err := create(size)
	if err != nil {
		return err
	}
	if err := f.dev.Map(l.base+backend.Addr(at), size, h); err != nil {
		f.dev.MemRelease(h)
		return err
	}
	l.chunks = append(l.chunks, chunk{at, size, h})
	f.minter.SetCommitted(l.r, at+size)
	return nil
}

func (f *Fake) growable(op string, r *backend.Region) (*live, error) {
	f.minter.CheckLive(r, op)
	l := f.live[r]
	f.checkBase(l)
	if !r.Growable() {
		return nil, &backend.Error{Op: op, Tag: r.Tag(), Err: backend.ErrNotGrowable}
	}
	return l, nil
}

// checkBase is the growth simulation's assertion: a region's base address
// is the one it was acquired at, whatever has been committed since.
func (f *Fake) checkBase(l *live) {
	if l.r.Base() != l.base {
		panic(fmt.Sprintf("gpuagenttest: base of %v moved from %#x", l.r, uint64(l.base)))
	}
}

// Commit implements backend.Backend. newBytes must not shrink the region.
func (f *Fake) Commit(r *backend.Region, newBytes backend.Bytes) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.growable("Commit", r)
	if err != nil {
		return err
	}
	delta := newBytes - r.Committed()
	if delta < 0 || newBytes > r.Reserved() {
		return &backend.Error{Op: "Commit", Bytes: delta, Tag: r.Tag(), Err: backend.ErrInvalidValue}
	}
	if f.commits++; f.commits == f.failCom {
		return &backend.Error{Op: "Commit", Bytes: delta, Tag: r.Tag(), Err: backend.ErrInjected}
	}
	if err := f.checkBudget("Commit", delta, r.Tag()); err != nil {
		return err
	}
	if err := f.grow(l, newBytes); err != nil {
		return tagged(err, r.Tag())
	}
	if delta > 0 {
		f.record(OpCommit, r, delta)
	}
	return nil
}

// Decommit implements backend.Backend: unmap and release the chunks above
// newBytes. A newBytes inside a chunk is INVALID_VALUE, as cuMemUnmap of
// part of a mapping is.
func (f *Fake) Decommit(r *backend.Region, newBytes backend.Bytes) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, err := f.growable("Decommit", r)
	if err != nil {
		return err
	}
	delta := r.Committed() - newBytes
	if delta < 0 || newBytes < 0 {
		return &backend.Error{Op: "Decommit", Bytes: delta, Tag: r.Tag(), Err: backend.ErrInvalidValue}
	}
	if delta == 0 {
		return nil
	}
	if err := f.shrink(l, newBytes); err != nil {
		return tagged(err, r.Tag())
	}
	f.record(OpDecommit, r, -delta)
	return nil
}

func (f *Fake) shrink(l *live, n backend.Bytes) error {
	at := l.r.Committed()
	if err := f.dev.Unmap(l.base+backend.Addr(n), at-n); err != nil {
		return err
	}
	i := len(l.chunks)
	for i > 0 && l.chunks[i-1].off >= n {
		i--
		f.dev.MemRelease(l.chunks[i].h)
	}
	l.chunks = l.chunks[:i]
	f.minter.SetCommitted(l.r, n)
	return nil
}

// Release implements backend.Backend. Releasing r twice panics with its tag.
func (f *Fake) Release(r *backend.Region) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.minter.Retire(r)
	l := f.live[r]
	delete(f.live, r)
	n := r.Committed()
	f.free(l)
	f.releases++
	f.record(OpRelease, r, -n)
}

func (f *Fake) free(l *live) {
	f.checkBase(l)
	if !l.r.Growable() {
		must(f.dev.MemFree(l.base))
		return
	}
	if l.r.Committed() > 0 {
		must(f.shrink(l, 0))
	}
	must(f.dev.AddressFree(l.base))
}

func must(err error) {
	if err != nil {
		panic("gpuagenttest: " + err.Error())
	}
}

// Stats implements backend.Backend.
func (f *Fake) Stats() backend.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := backend.Stats{
		Total: f.dev.Total(), Granularity: f.dev.Granularity(), Live: len(f.live),
		Acquires: f.acquires, Releases: f.releases, ByTag: map[backend.Tag]backend.Bytes{},
	}
	for r := range f.live {
		s.Committed += r.Committed()
		s.Reserved += r.Reserved()
		s.ByTag[r.Tag()] += r.Committed()
	}
	s.Free = s.Total - f.dev.Used()
	for t, n := range s.ByTag {
		if n == 0 {
			delete(s.ByTag, t)
		}
	}
	return s
}
