package sqlite

// This file keeps the rate-limit counters in the writer's memory. Every
// upload counts two of them (its client's hour and the day's cap), and
// counting each with an upsert that returns the count (store.SQLHit) was
// the largest part of the writer's CPU: about a sixth of an upload's, the
// statements' RETURNING building a table for each. The writer is the only
// goroutine that writes the counters, so once it has read or written one,
// the count it holds is the stored one: it counts in memory, reads a
// counter only the first time it meets it, and writes each counter it
// changed once, just before the batch's commit (store.SQLSetHit). A batch
// of uploads from one client costs two writes, not two per upload. The
// counts are as durable as before: they are in the batch's commit.

import (
	"database/sql"
	"errors"
	"slices"

	"github.com/vramplan/vramplan/web/store"
)

// A hitKey names one counter: Hit's key and window.
type hitKey struct {
	key string
	win int64
}

// A hitCount is one cached counter: its count, this batch's events
// included, and whether the open batch changed it.
type hitCount struct {
	n     int64
	dirty bool
}

// maxHits bounds the counters held between batches: past it the cache is
// dropped after a commit, and counters are read again when next counted.
// Each client's hour is a counter, so a flood from many addresses could
// otherwise grow it without end.
const maxHits = 1 << 14

// hits is the writer's cache of counters. Only the writer uses it.
type hits struct {
	n     map[hitKey]hitCount
	dirty []hitKey // the counters the open batch changed, in order
}

// count counts one event against key in the window in tx, and returns the
// window's count.
func (h *hits) count(tx *sql.Tx, p *stmts, key string, win int64) (int64, error) {
	k := hitKey{key, win}
	c, ok := h.n[k]
	if !ok {
		err := p.in(tx, store.SQLHitCount).QueryRow(key, win).Scan(&c.n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if h.n == nil {
			h.n = make(map[hitKey]hitCount)
		}
	}
	c.n++
	if !c.dirty {
		c.dirty = true
		h.dirty = append(h.dirty, k)
	}
	h.n[k] = c
	return c.n, nil
}

// flush writes the counters the open batch changed into tx.
func (h *hits) flush(tx *sql.Tx, p *stmts) error {
	for _, k := range h.dirty {
		if _, err := p.in(tx, store.SQLSetHit).Exec(k.key, k.win, h.n[k].n); err != nil {
			return err
		}
	}
	return nil
}

// done ends the batch: after a commit the cached counts are the stored
// ones; after a failed one they are not, and the cache is dropped.
func (h *hits) done(committed bool) {
	if !committed || len(h.n) > maxHits {
		h.n, h.dirty = nil, h.dirty[:0]
		return
	}
	for _, k := range h.dirty {
		c := h.n[k]
		c.dirty = false
		h.n[k] = c
	}
	h.dirty = h.dirty[:0]
}

// sweep forgets the counters of every window below before, as the batch's
// store.SQLSweep does to the stored ones, so the batch's flush does not
// write them back.
func (h *hits) sweep(before int64) {
	for k := range h.n {
		if k.win < before {
			delete(h.n, k)
		}
	}
	h.dirty = slices.DeleteFunc(h.dirty, func(k hitKey) bool { return k.win < before })
}
