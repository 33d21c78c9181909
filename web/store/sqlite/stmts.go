package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/vramplan/vramplan/web/store"
)

// This file keeps the store's statements prepared: SQLite compiles a
// statement's text on every Exec otherwise, which was a tenth of an
// upload's CPU. The writes are prepared once on the writing connection,
// and each batch's transaction runs them through tx.Stmt, which reuses the
// compiled statement on that connection. Reads are prepared on the read
// pool the first time each text is asked for (the listing queries vary
// only in their filters, so there are a handful); database/sql prepares a
// pooled statement again on each connection the first time it runs there.

// writes are the statements the writer runs.
var writes = []string{store.SQLInsertUpload, store.SQLDeleteUpload, store.SQLPutAggregate,
	store.SQLHit, store.SQLSweep, store.SQLInsertSetting, store.SQLInsertObservation, store.SQLDeleteObservation}

// stmts holds the prepared statements of one Store. It is safe for
// concurrent use, but for in, which only the writer calls; close closes
// them all.
type stmts struct {
	write map[string]*sql.Stmt // fixed after prepareWrites
	mu    sync.Mutex
	read  map[string]*sql.Stmt
	// bound are the write statements bound to tx, the writer's open
	// transaction: binding one (tx.Stmt) allocates a statement and its
	// locks, and a batch runs several for each upload, so each is bound
	// once a batch.
	tx    *sql.Tx
	bound map[string]*sql.Stmt
}

func (p *stmts) prepareWrites(db *sql.DB) error {
	p.write = make(map[string]*sql.Stmt, len(writes))
	for _, q := range writes {
		st, err := db.Prepare(q)
		if err != nil {
			return errors.Join(err, p.close())
		}
		p.write[q] = st
	}
	return nil
}

// in returns write statement q bound to tx, binding it the first time in
// tx. Only the writer calls it, one transaction at a time; a transaction's
// statements are closed with it.
func (p *stmts) in(tx *sql.Tx, q string) *sql.Stmt {
	if p.tx != tx {
		p.tx = tx
		clear(p.bound)
	}
	st, ok := p.bound[q]
	if !ok {
		if p.bound == nil {
			p.bound = make(map[string]*sql.Stmt, len(writes))
		}
		st = tx.Stmt(p.write[q])
		p.bound[q] = st
	}
	return st
}

// reader returns read statement q, preparing it on db the first time.
func (p *stmts) reader(ctx context.Context, db *sql.DB, q string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.read[q]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if p.read == nil {
		p.read = map[string]*sql.Stmt{}
	}
	p.read[q] = st
	return st, nil
}

func (p *stmts) close() error {
	var errs []error
	for _, st := range p.write {
		errs = append(errs, st.Close())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.read {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
