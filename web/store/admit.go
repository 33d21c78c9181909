package store

// This file counts an upload against its rate limits and stores it in one
// call. On SQLite every write waits for a durable commit, so counting the
// limits and storing the upload as three writes made each upload wait for
// three commits; an Admitter does it as one write, and the D1 store, which
// has no such batching, runs the same statements one after another.

import (
	"context"
	"errors"
)

// A Limit is one rate-limit counter an event is counted against: Hit's key
// and window, and the most events the window allows.
type Limit struct {
	Key    string
	Window int64
	Max    int64
}

// An Admission is what Admit did.
type Admission struct {
	// Over is the index of the limit whose count passed its Max, or -1 when
	// none did. The limits after it were not counted, and nothing was
	// stored.
	Over int
	// Upload and Created are Put's results: the stored upload and whether
	// this call stored it. Upload is zero when nothing was put.
	Upload  Upload
	Created bool
}

// An Admitter is a Store that counts and stores in one write; Admit uses
// it when the Store is one. Its Admit does what Admit says.
type Admitter interface {
	Admit(ctx context.Context, limits []Limit, u *Upload) (Admission, error)
}

// ErrBusy is returned by a store whose queue of waiting writes is full: the
// write was not made, and may be retried later.
var ErrBusy = errors.New("store: too many writes are waiting; retry later")

// Admit counts one event against each of limits in turn, as Hit does,
// stopping at the first whose count passes its Max, and when none did and u
// is not nil stores *u as Put does. A repeated Admit counts again; storing
// is harmless to repeat.
func Admit(ctx context.Context, s Store, limits []Limit, u *Upload) (Admission, error) {
	if a, ok := s.(Admitter); ok {
		return a.Admit(ctx, limits, u)
	}
	over, err := Count(limits, func(key string, window int64) (int64, error) { return s.Hit(ctx, key, window) })
	adm := Admission{Over: over}
	if err != nil || over >= 0 || u == nil {
		return adm, err
	}
	adm.Upload, adm.Created, err = s.Put(ctx, *u)
	return adm, err
}

// Count counts one event against each of limits with hit, stopping at the
// first whose count passes its Max, and returns that limit's index, or -1.
func Count(limits []Limit, hit func(key string, window int64) (int64, error)) (int, error) {
	for i, l := range limits {
		n, err := hit(l.Key, l.Window)
		if err != nil {
			return -1, err
		}
		if n > l.Max {
			return i, nil
		}
	}
	return -1, nil
}
