package backend

import (
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
)

// Phase is the engine's allocation phase. Phases only move forward, except
// for the model-swap bracket (PhaseGuard.BeginSwap).
type Phase uint8

// Phases, in order.
const (
	PhaseLoading  Phase = iota // weights are being loaded; anything may be acquired
	PhasePlanning              // the plan is being laid out; anything may be acquired
	PhaseServing               // requests are served; acquisition is a bug (I2)
)

func (p Phase) String() string {
	switch p {
	case PhaseLoading:
		return "loading"
	case PhasePlanning:
		return "planning"
	case PhaseServing:
		return "serving"
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// ErrPhaseOrder is returned when a phase change would move backwards or
// when a swap bracket is misused.
var ErrPhaseOrder = errors.New("phase change out of order")

// A Transition records one phase change, including both ends of a
// model-swap bracket.
type Transition struct {
	From, To Phase
	Reason   string
}

// A PhaseGuard holds the process's allocation phase and the steady-state
// allocation counters (steady_state_allocations_total{tag}). Backends call
// Observe on every acquisition.
//
// A PhaseGuard is safe for concurrent use.
type PhaseGuard struct {
	phase  atomic.Uint32
	mu     sync.Mutex
	counts [tagCount]uint64
	warned [tagCount]bool
	log    []Transition
	checks []servingCheck
	inSwap bool
	Logf   func(format string, args ...any) // nil means log.Printf
}

type servingCheck struct {
	name string
	f    func() error
}

// NewPhaseGuard returns a guard in PhaseLoading.
func NewPhaseGuard() *PhaseGuard { return new(PhaseGuard) }

// Phase returns the current phase.
func (g *PhaseGuard) Phase() Phase { return Phase(g.phase.Load()) }

// AddServingCheck registers f to be run before the guard enters
// PhaseServing; if it returns an error the guard stays where it is. Package
// mem uses it to assert that no transient host staging (T5a) survives load.
func (g *PhaseGuard) AddServingCheck(name string, f func() error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checks = append(g.checks, servingCheck{name, f})
}

// Advance moves the guard forward to p. Moving backwards is ErrPhaseOrder;
// entering PhaseServing runs the serving checks and fails with the first
// error (under the invariants build tag it panics instead).
func (g *PhaseGuard) Advance(p Phase, reason string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := g.Phase()
	if p < cur || p > PhaseServing || g.inSwap {
		return fmt.Errorf("advance %v -> %v: %w", cur, p, ErrPhaseOrder)
	}
	if p == PhaseServing {
		if err := g.runChecks(); err != nil {
			return err
		}
	}
	g.set(cur, p, reason)
	return nil
}

func (g *PhaseGuard) runChecks() error {
	for _, c := range g.checks {
		if err := c.f(); err != nil {
			err = fmt.Errorf("enter serving: %s: %w", c.name, err)
			if invariants.Enabled {
				panic(err.Error())
			}
			return err
		}
	}
	return nil
}

func (g *PhaseGuard) set(from, to Phase, reason string) {
	g.phase.Store(uint32(to))
	g.log = append(g.log, Transition{from, to, reason})
	g.logf("gpuagent: phase %v -> %v (%s)", from, to, reason)
}

// BeginSwap re-enters PhasePlanning from PhaseServing for a model swap. It
// must be paired with EndSwap; the bracket is recorded in Transitions.
func (g *PhaseGuard) BeginSwap(reason string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur := g.Phase(); cur != PhaseServing || g.inSwap {
		return fmt.Errorf("begin swap in %v: %w", cur, ErrPhaseOrder)
	}
	g.inSwap = true
	g.set(PhaseServing, PhasePlanning, "swap begin: "+reason)
	return nil
}

// EndSwap closes the bracket opened by BeginSwap and returns to
// PhaseServing, running the serving checks first.
func (g *PhaseGuard) EndSwap(reason string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.inSwap {
		return fmt.Errorf("end swap without begin: %w", ErrPhaseOrder)
	}
	if err := g.runChecks(); err != nil {
		return err
	}
	g.inSwap = false
	g.set(PhasePlanning, PhaseServing, "swap end: "+reason)
	return nil
}

// InSwap reports whether a model-swap bracket is open.
func (g *PhaseGuard) InSwap() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inSwap
}

// Transitions returns every phase change so far, oldest first.
func (g *PhaseGuard) Transitions() []Transition {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Transition(nil), g.log...)
}

// Observe is called by a Backend before each acquisition. While Serving it
// counts the acquisition under tag and logs once per tag; under the
// invariants build tag it panics with the tag and the stack.
func (g *PhaseGuard) Observe(tag Tag, bytes Bytes) {
	if g == nil || g.Phase() != PhaseServing {
		return
	}
	if invariants.Enabled {
		panic(fmt.Sprintf("gpuagent: acquisition of %d bytes (tag=%v) while serving\n%s", int64(bytes), tag, debug.Stack()))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counts[tag%tagCount]++
	if !g.warned[tag%tagCount] {
		g.warned[tag%tagCount] = true
		g.logf("gpuagent: WARN acquisition of %d bytes (tag=%v) while serving", int64(bytes), tag)
	}
}

// SteadyStateAllocations returns steady_state_allocations_total per tag.
// Tags with no such allocation are absent.
func (g *PhaseGuard) SteadyStateAllocations() map[Tag]uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := make(map[Tag]uint64)
	for t, n := range g.counts {
		if n > 0 {
			m[Tag(t)] = n
		}
	}
	return m
}

func (g *PhaseGuard) logf(format string, args ...any) {
	if g.Logf != nil {
		g.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}
