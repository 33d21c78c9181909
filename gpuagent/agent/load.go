package agent

// This file is the load sequence: check, then acquire the tiers in the
// plan's order (A4.2) — T2 engine-persistent, T1 model-resident, the T3
// pools, the KV pools as growable reservations, T4 scratch — then Serving.

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/kv"
	"github.com/vramplan/vramplan/gpuagent/mem"
	"github.com/vramplan/vramplan/planner"
)

// arenaAlign is the alignment of every tenant taken from an arena.
const arenaAlign backend.Bytes = 256

// Load checks p against dev, acquires p's tiers from b in the plan's order
// and enters Serving. The guard must be the one b consults, in Loading.
// Load refuses with a *LoadError; on any failure it releases what it had
// acquired. The caller closes the returned Agent.
func Load(p planner.Plan, b backend.Backend, g *backend.PhaseGuard, dev Device, cfg Config) (*Agent, error) {
	cfg.defaults()
	m, err := dev.Measure()
	if err != nil {
		return nil, refuse(ReasonAcquire, "measuring the device: %v", err)
	}
	warn, err := check(&p, m, &cfg)
	if err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, plan: p, b: b, guard: g, dev: dev, measured: m, warnings: warn,
		leases: map[string]*lease{}, lost: map[string]string{}, geometry: geometryOf(&p)}
	a.acks.L = &a.mu
	for _, w := range warn {
		a.logf("gpuagent: WARN %s", w)
	}
	if err := a.acquire(); err != nil {
		a.release()
		return nil, &LoadError{Reason: ReasonAcquire, Message: err.Error(), Err: err}
	}
	a.resolveQuotas()
	return a, nil
}

func geometryOf(p *planner.Plan) geometry {
	l := p.Input.Limits
	g := geometry{blockTokens: p.KV.BlockTokens, maxSeqLen: l.MaxSeqLen, maxBatch: l.MaxBatch}
	perSeq := ceilDiv(int64(g.maxSeqLen), int64(g.blockTokens))
	if g.maxBatch == 0 { // automatic batch: what the pool holds at the maximum length
		g.maxBatch = int(max(p.KV.Blocks/perSeq, 1))
	}
	if p.KV.SWA != nil {
		g.swaPerSeq = p.KV.SWA.BlocksPerSeq
	}
	return g
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// acquire runs the load sequence. Each step records what it acquired on a
// so that release can undo a partial load.
func (a *Agent) acquire() error {
	steps := []struct {
		phase backend.Phase
		name  string
		run   func() error
	}{
		{backend.PhaseLoading, "T2 engine-persistent arena", func() error { return a.arena(&a.t2, planner.TierEnginePersistent, backend.TagEngine) }},
		{backend.PhaseLoading, "T1 model-resident arena", func() error { return a.arena(&a.t1, planner.TierModelResident, backend.TagWeights) }},
		{backend.PhasePlanning, "T3 pools", a.slotPools},
		{backend.PhasePlanning, "KV pools", a.kvPools},
		{backend.PhasePlanning, "T4 scratch", a.scratchStack},
		{backend.PhaseServing, "serving", func() error { return nil }},
	}
	for _, s := range steps {
		if err := a.advance(s.phase, s.name); err != nil {
			return err
		}
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	a.kv = kv.New(kv.Config{Global: a.global.ids, SWA: a.swa.idsOrNil()})
	return nil
}

func (a *Agent) advance(p backend.Phase, why string) error {
	if a.guard.Phase() >= p {
		return nil
	}
	return a.guard.Advance(p, "gpuagent load: "+why)
}

// itemsOf returns the plan's items in tier t with bytes, in plan order.
func (a *Agent) itemsOf(t planner.Tier) []planner.Item {
	var out []planner.Item
	for _, it := range a.plan.Items {
		if it.Tier == t && it.Bytes > 0 {
			out = append(out, it)
		}
	}
	return out
}

// arena opens one arena for tier t's items and takes each item from it as
// a named tenant.
func (a *Agent) arena(dst **mem.Arena, t planner.Tier, tag backend.Tag) error {
	items := a.itemsOf(t)
	var size backend.Bytes
	for _, it := range items {
		size += backend.AlignUp(backend.Bytes(it.Bytes), arenaAlign)
	}
	if size == 0 {
		return nil
	}
	ar, err := mem.NewArena(a.b, size, tag)
	if err != nil {
		return err
	}
	*dst = ar
	for _, it := range items {
		span, err := ar.Take(backend.Bytes(it.Bytes), arenaAlign)
		if err != nil {
			return fmt.Errorf("%s: %w", it.Key, err)
		}
		a.tenants = append(a.tenants, tenant{it, span.Len})
	}
	return nil
}

// slotPools acquires the T3 pools other than KV: per-sequence state,
// snapshots and the residual ring, each a pool of equal slots.
func (a *Agent) slotPools() error {
	slots := map[string]struct {
		n   int
		tag backend.Tag
	}{
		"ssm_state":           {a.geometry.maxBatch, backend.TagSSMState},
		"recurrent_snapshots": {a.plan.Input.Features.RecurrentSnapshots, backend.TagSSMState},
		"residual_ring":       {1, backend.TagRing},
	}
	for _, it := range a.itemsOf(planner.TierPooled) {
		s, ok := slots[it.Key]
		if !ok {
			continue // the KV pools come next
		}
		n := max(s.n, 1)
		if int64(it.Bytes)%int64(n) != 0 {
			n = 1
		}
		p, err := mem.NewBlockPool(a.b, n, backend.Bytes(int64(it.Bytes)/int64(n)), s.tag)
		if err != nil {
			return fmt.Errorf("%s: %w", it.Key, err)
		}
		a.pools = append(a.pools, p)
		a.tenants = append(a.tenants, tenant{it, func() backend.Bytes { return backend.Bytes(it.Bytes) }})
	}
	return nil
}

// kvPools reserves the KV pools for their maximum and commits the planned
// initial commit: one sequence at the maximum length.
func (a *Agent) kvPools() error {
	var err error
	g := a.geometry
	perSeq := ceilDiv(int64(g.maxSeqLen), int64(g.blockTokens))
	a.global, err = openPool(a.b, a.item("kv"), a.plan.KV.Blocks, backend.Bytes(a.plan.KV.BlockBytes),
		backend.Bytes(a.plan.KV.CommitChunk), perSeq, backend.TagKVPool, true)
	if err != nil {
		return fmt.Errorf("kv: %w", err)
	}
	a.openSharing()
	a.tenants = append(a.tenants, tenant{a.item("kv"), a.global.r.Committed})
	if s := a.plan.KV.SWA; s != nil && s.Blocks > 0 {
		stride := backend.Bytes(int64(a.plan.KV.BlockTokens) * int64(s.BytesPerToken))
		a.swa, err = openPool(a.b, a.item("kv_swa"), s.Blocks, stride,
			backend.Bytes(a.plan.KV.CommitChunk), s.BlocksPerSeq, backend.TagSWAPool, false)
		if err != nil {
			return fmt.Errorf("kv_swa: %w", err)
		}
		a.tenants = append(a.tenants, tenant{a.item("kv_swa"), a.swa.r.Committed})
	}
	return nil
}

func (a *Agent) item(key string) planner.Item {
	for _, it := range a.plan.Items {
		if it.Key == key {
			return it
		}
	}
	return planner.Item{Key: key}
}

func (a *Agent) scratchStack() error {
	it := a.item("scratch")
	if it.Bytes <= 0 {
		return nil
	}
	s, err := mem.NewScratchStack(a.b, backend.Bytes(it.Bytes))
	if err != nil {
		return err
	}
	a.scratch = s
	a.tenants = append(a.tenants, tenant{it, s.Capacity})
	return nil
}
