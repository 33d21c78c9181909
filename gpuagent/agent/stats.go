package agent

import (
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

// Stats is a snapshot of an Agent, what /metrics serves.
type Stats struct {
	Phase       string            `json:"phase"`
	Sidecar     bool              `json:"sidecar"`
	Tiers       []TierStats       `json:"tiers"`
	KV          PoolStats         `json:"kv"`
	SWA         *PoolStats        `json:"kv_swa,omitempty"`
	Leases      int               `json:"leases"`
	Sequences   int               `json:"sequences"`
	SteadyState map[string]uint64 `json:"steady_state_allocations"` // by tag, absent when zero
	Acquires    uint64            `json:"acquires"`                 // backend acquisitions since start
	Budget      backend.Bytes     `json:"budget_bytes"`
	DeviceTotal backend.Bytes     `json:"device_total_bytes"`
	DeviceUsed  backend.Bytes     `json:"device_used_bytes"`
	Admitted    uint64            `json:"admitted"`
	Refused     uint64            `json:"refused"` // capacity errors
	Forks       uint64            `json:"forks"`
	Expired     uint64            `json:"leases_expired"`
	Dropped     uint64            `json:"leases_disconnected"`
	Lost        uint64            `json:"leases_lost"` // ended because their client could not map the pool
	Sharing     SharingStats      `json:"sharing"`
}

// SharingStats describes the global KV pool's sharing with engine
// processes and its shrinking.
type SharingStats struct {
	Shared          bool               `json:"shared"`  // the backend exports the pool
	Clients         int                `json:"clients"` // leases whose client maps the pool
	Maps            uint64             `json:"maps"`    // map messages pushed (each to every client)
	Unmaps          uint64             `json:"unmaps"`
	LastPushClients int                `json:"last_push_clients"`
	LastPushUs      float64            `json:"last_push_us"` // the last push, sent and answered by every client
	LongestPushUs   float64            `json:"longest_push_us"`
	Decommitted     backend.Bytes      `json:"decommitted_bytes"` // given back while serving, in all
	Shrink          planner.ShrinkPlan `json:"shrink"`            // the hysteresis in force
	Recent          []Push             `json:"recent_pushes,omitempty"`
}

// TierStats is one tier's reservation and what of it is live.
type TierStats struct {
	Tier     planner.Tier  `json:"tier"`
	Reserved backend.Bytes `json:"reserved_bytes"` // acquired or reserved address space
	Live     backend.Bytes `json:"live_bytes"`     // taken from arenas, committed blocks in use
}

// PoolStats describes a KV pool.
type PoolStats struct {
	Blocks    int           `json:"blocks"`
	Live      int           `json:"live"`   // held by a sequence or the prefix cache
	Cached    int           `json:"cached"` // prefix-cache entries (SWA: 0)
	Pinned    int           `json:"pinned"`
	Free      int           `json:"free"`
	Promised  int64         `json:"promised"` // blocks admission promised to open sequences
	Reserved  backend.Bytes `json:"reserved_bytes"`
	Committed backend.Bytes `json:"committed_bytes"`
	Commits   uint64        `json:"commits"`
	Decommits uint64        `json:"decommits"`
	Base      backend.Addr  `json:"base"`
}

// Stats returns a snapshot of the agent.
func (a *Agent) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	ks := a.kv.Stats()
	s := Stats{Phase: a.guard.Phase().String(), Sidecar: a.cfg.Sidecar, Leases: len(a.leases), Sequences: a.seqs,
		SteadyState: map[string]uint64{}, Acquires: a.b.Stats().Acquires, Budget: backend.Bytes(a.plan.Budget),
		Admitted: a.counters.admitted, Refused: a.counters.refused, Forks: a.counters.forks,
		Expired: a.counters.expired, Dropped: a.counters.disconnected, Lost: a.counters.lost}
	s.Sharing = a.sharingStats()
	for t, n := range a.guard.SteadyStateAllocations() {
		s.SteadyState[t.String()] = n
	}
	s.KV = a.global.stats()
	s.KV.Cached, s.KV.Pinned = ks.CachedBlocks, ks.PinnedBlocks
	if a.swa != nil {
		sw := a.swa.stats()
		s.SWA = &sw
	}
	s.Tiers = a.tierStats()
	if m, err := a.dev.Measure(); err == nil {
		s.DeviceTotal, s.DeviceUsed = m.Total, m.Used
	}
	return s
}

func (p *kvPool) stats() PoolStats {
	return PoolStats{Blocks: p.ids.Blocks(), Live: p.ids.Live(), Free: p.ids.Free(), Promised: p.credits,
		Reserved: p.r.Reserved(), Committed: p.r.Committed(), Commits: p.commits, Decommits: p.decom, Base: p.r.Base()}
}

func (a *Agent) tierStats() []TierStats {
	t2, t1, t4 := TierStats{Tier: planner.TierEnginePersistent}, TierStats{Tier: planner.TierModelResident}, TierStats{Tier: planner.TierScratch}
	if a.t2 != nil {
		t2.Reserved, t2.Live = a.t2.Capacity(), a.t2.Used()
	}
	if a.t1 != nil {
		t1.Reserved, t1.Live = a.t1.Capacity(), a.t1.Used()
	}
	if a.scratch != nil {
		t4.Reserved, t4.Live = a.scratch.Capacity(), a.scratch.Used()
	}
	t3 := TierStats{Tier: planner.TierPooled}
	for _, p := range a.pools {
		n := backend.Bytes(p.Blocks()) * p.Stride()
		t3.Reserved += n
		t3.Live += backend.Bytes(p.Live()) * p.Stride()
	}
	for _, p := range []*kvPool{a.global, a.swa} {
		if p != nil {
			t3.Reserved += p.r.Reserved()
			t3.Live += backend.Bytes(p.ids.Live()) * p.stride
		}
	}
	return []TierStats{t2, t1, t3, t4}
}

func (a *Agent) sharingStats() SharingStats {
	p := &a.pushes
	return SharingStats{Shared: a.share != nil, Clients: a.mapped, Maps: p.maps, Unmaps: p.unmaps,
		LastPushClients: p.lastClients, LastPushUs: us(p.last), LongestPushUs: us(p.longest),
		Decommitted: a.shrink.decommitted, Shrink: a.shrink.policy, Recent: p.pushes()}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
