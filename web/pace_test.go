package web

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestPacerRests checks a paced refresh's rest: refreshShare-1 times the
// page's time, none while a request waits for the refresh, and no longer
// than its context.
func TestPacerRests(t *testing.T) {
	var waiting atomic.Int32
	p := &pacer{waiting: &waiting}
	ctx := context.Background()
	p.rest(ctx, time.Millisecond)
	if want := (refreshShare - 1) * time.Millisecond; p.slept < want {
		t.Errorf("rest after a 1 ms page slept %v, want %v or more", p.slept, want)
	}
	waiting.Add(1)
	p.slept = 0
	p.rest(ctx, time.Hour)
	if p.slept != 0 {
		t.Errorf("rest with a request waiting slept %v, want none", p.slept)
	}
	waiting.Add(-1)
	done, cancel := context.WithCancel(ctx)
	cancel()
	p.rest(done, time.Hour) // returns: the test would hang otherwise
	var none *pacer
	none.rest(ctx, time.Hour) // an unpaced refresh does not rest
	if pacerOf(ctx) != nil || pacerOf(withPacer(ctx, p)) != p {
		t.Error("pacerOf does not return the pacer withPacer set")
	}
}
