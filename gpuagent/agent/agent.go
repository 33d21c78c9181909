// Package agent makes a memory plan true on a device and serves KV blocks
// to engine processes. Load reads nothing but the plan and a Backend: it
// checks the plan against what the device measures now, acquires the tiers
// in the plan's order (A4.2 of the memory architecture) — the
// engine-persistent arena, the model-resident arena, the fixed-block pools,
// the KV pools as growable reservations with the planned initial commit,
// the scratch stack — and enters Serving. From then on nothing is
// acquired; the KV pools grow by committing chunks inside their
// reservations, which is counted apart from acquisitions.
//
// Engines hold leases. A lease owns sequences, named by handles private to
// the lease, and pins; when the lease ends (closed, not renewed within its
// TTL, or its connection gone) every sequence it holds ends through the one
// KV release path, kv.Sequence.Close. Admission reserves a sequence's
// maximum blocks up front, so a sequence that was admitted is never
// cancelled for lack of blocks later: a request the plan cannot guarantee
// is refused with a capacity error instead (I6).
//
// This package is transport-free: the HTTP server in gpuagent/server calls
// it. The request and response types are gpuagent/wire's.
//
// # Memory management
//
// The Agent owns every region, arena and pool it acquired, and Close
// returns them all, ending every lease first. An Agent is safe for
// concurrent use: one mutex serializes the KV manager, which is
// single-threaded by design, and every call takes it once per step. The
// one wait a call makes — for its own lease's client to map the pool —
// releases it (push.go).
package agent

import (
	"sync"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/mem"
	"github.com/vramplan/vramplan/planner"
)

// Config configures an Agent. Its zero value is the default.
type Config struct {
	// Sidecar says the agent runs as its own process beside an engine on
	// the same device, so its CUDA context is a second one the plan must
	// charge (features.sidecar_agent). A sidecar whose plan does not
	// charge it is refused at load; a plan that charges a sidecar the
	// agent is not is served with a warning.
	Sidecar bool `json:"sidecar"`
	// Tolerance is how far the measured CUDA context and library reserve
	// may differ from the plan's calibration, as a fraction; 0 means 0.10.
	Tolerance float64 `json:"tolerance"`
	// LeaseTTL is the TTL of a lease that asks for none; 0 means 10 s.
	LeaseTTL time.Duration `json:"lease_ttl"`
	// MaxLeaseTTL caps the TTL a lease may ask for; 0 means 60 s.
	MaxLeaseTTL time.Duration `json:"max_lease_ttl"`
	// MaxLeases caps the open leases; 0 means 4096.
	MaxLeases int `json:"max_leases"`
	// ConnLeases caps the leases one connection holds open; 0 means 64.
	ConnLeases int `json:"conn_leases"`
	// LeaseSeqs caps the sequences one lease holds open; 0 means as many
	// as the global KV pool has blocks.
	LeaseSeqs int `json:"lease_seqs"`
	// LeaseBlocks caps the global KV blocks admission promises to one
	// lease's sequences; 0 means the whole pool (one engine per agent).
	LeaseBlocks int64 `json:"lease_blocks"`
	// MapTimeout is how long a client mapping the KV pool has to answer a
	// map or unmap before it loses its lease; 0 means 5 s.
	MapTimeout time.Duration `json:"map_timeout"`
	// Now is the clock; nil means time.Now.
	Now func() time.Time `json:"-"`
	// Logf logs; nil means log.Printf.
	Logf func(format string, args ...any) `json:"-"`
}

func (c *Config) defaults() {
	c.Tolerance = orDefault(c.Tolerance, 0.10)
	c.LeaseTTL = orDefault(c.LeaseTTL, 10*time.Second)
	c.MaxLeaseTTL = orDefault(c.MaxLeaseTTL, 60*time.Second)
	c.MaxLeases = orDefault(c.MaxLeases, 4096)
	c.MapTimeout = orDefault(c.MapTimeout, 5*time.Second)
	if c.Now == nil {
		c.Now = time.Now
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// An Agent is a plan made true on a device: its tiers, its KV pools and
// the leases engines hold on them.
type Agent struct {
	mu       sync.Mutex
	cfg      Config
	plan     planner.Plan
	b        backend.Backend
	guard    *backend.PhaseGuard
	dev      Device
	measured Measurement // at load
	warnings []string

	t2, t1   *mem.Arena
	tenants  []tenant // every named charge the agent holds, in load order
	pools    []*mem.BlockPool
	scratch  *mem.ScratchStack
	global   *kvPool
	swa      *kvPool // nil without sliding-window layers
	kv       *kv.Manager
	geometry geometry
	quota    quotas

	leases   map[string]*lease
	seqs     int
	counters counters
	closed   bool

	share   backend.Sharer    // nil: the pool cannot be shared
	mapped  int               // leases whose client maps the pool
	poolSeq uint64            // last pool message numbered
	lastMap uint64            // last map message every mapping client must answer before it is handed a block
	leaving backend.Bytes     // while an unmap is answered: the commit the pool shrinks to; 0 otherwise
	acks    sync.Cond         // on mu: a mapping client answered, stopped or its lease ended
	senders sync.WaitGroup    // the mappers' goroutines
	lost    map[string]string // why recently lost leases ended
	pushes  pushStats
	shrink  shrinker
}

// tenant is one plan item the agent acquired, and where it lives.
type tenant struct {
	item planner.Item
	held func() backend.Bytes // bytes held now
}

// geometry is the plan's KV arithmetic, resolved once.
type geometry struct {
	blockTokens int
	maxSeqLen   int
	maxBatch    int
	swaPerSeq   int64 // SWA blocks one sequence holds at most; 0 without SWA
}

// counters are the agent's monotonic counts.
type counters struct {
	admitted, refused, forks, expired, disconnected, lost uint64
}

// Plan returns the plan the agent enforces.
func (a *Agent) Plan() *planner.Plan { return &a.plan }

// Warnings returns what Load found worth saying but not worth refusing.
func (a *Agent) Warnings() []string { return append([]string(nil), a.warnings...) }

// Guard returns the phase guard the agent's backend consults.
func (a *Agent) Guard() *backend.PhaseGuard { return a.guard }

// KVBase returns the global KV pool's base address, which never moves.
func (a *Agent) KVBase() backend.Addr { return a.global.r.Base() }

// Close ends every lease, returns every tier to the backend and waits
// for the goroutines that push to mapping clients to stop. Closing twice
// panics.
func (a *Agent) Close() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		panic("agent: double Close")
	}
	a.closed = true
	for id := range a.leases {
		a.endLease(id)
	}
	a.kv.Close()
	a.release()
	a.acks.Broadcast()
	a.mu.Unlock()
	a.senders.Wait()
}

// release returns everything acquired, in reverse order. It tolerates a
// partial load.
func (a *Agent) release() {
	if a.scratch != nil {
		a.scratch.Close()
	}
	for _, p := range []*kvPool{a.swa, a.global} {
		p.close(a.b)
	}
	for i := len(a.pools) - 1; i >= 0; i-- {
		a.pools[i].Close()
	}
	for _, ar := range []*mem.Arena{a.t1, a.t2} {
		if ar != nil {
			ar.Close()
		}
	}
}

func (a *Agent) logf(format string, args ...any) {
	if a.cfg.Logf != nil {
		a.cfg.Logf(format, args...)
		return
	}
	logPrintf(format, args...)
}
