// Package leak reports owned objects that became unreachable without being
// released. Go has no destructors, so an owner that is dropped on the floor
// cannot release itself; under the invariants build tag it is at least
// reported, through runtime.AddCleanup, when the garbage collector finds it.
// In an ordinary build Track returns nil and costs nothing: it does not
// even name the object.
package leak

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
)

// A Token records whether one tracked object was released. The zero of
// *Token (nil) is a valid token that tracks nothing.
type Token struct {
	what string
	done atomic.Bool
}

var (
	mu              sync.Mutex
	handler         = unexpected
	count           atomic.Int64
	unexpectedCount atomic.Int64 // reports that reached the default handler
)

// unexpected is the default handler: it prints the report and counts it,
// so that a test binary can fail when anything leaked (leaktest.Main).
func unexpected(what string) {
	unexpectedCount.Add(1)
	fmt.Fprintf(os.Stderr, "gpuagent: leak: %s was never released\n", what)
}

// Track arranges for a report if obj becomes unreachable before Done is
// called on the returned token, naming it by what returns now. It returns
// nil unless invariants are enabled, and then does not call what: the
// names were formatted for every region, pool and arena made (a tenth of
// loading an agent) only to be dropped.
func Track[T any](obj *T, what func() string) *Token {
	if !invariants.Enabled {
		return nil
	}
	tok := &Token{what: what()}
	runtime.AddCleanup(obj, report, tok)
	return tok
}

// Done marks the tracked object as released.
func (t *Token) Done() {
	if t != nil {
		t.done.Store(true)
	}
}

func report(t *Token) {
	if t.done.Load() {
		return
	}
	count.Add(1)
	mu.Lock()
	h := handler
	mu.Unlock()
	h(t.what)
}

// SetHandler replaces the function that receives leak reports and returns
// the previous one. Tests use it to collect reports.
func SetHandler(h func(what string)) (prev func(what string)) {
	mu.Lock()
	defer mu.Unlock()
	prev, handler = handler, h
	return prev
}

// Count reports how many leaks have been reported since the process started.
func Count() int64 { return count.Load() }

// Unexpected reports how many of them reached the default handler: leaks
// no test asked for by installing its own handler.
func Unexpected() int64 { return unexpectedCount.Load() }
