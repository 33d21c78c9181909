package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
)

// collector turns one agent.Stats snapshot per scrape into metrics.
type collector struct {
	s     *Server
	descs map[string]*prometheus.Desc
}

type metric struct {
	name, help string
	labels     []string
}

var metrics = []metric{
	{"gpuagent_tier_reserved_bytes", "Bytes acquired or reserved per tier.", []string{"tier"}},
	{"gpuagent_tier_live_bytes", "Bytes of each tier in use: taken from arenas, held by live blocks.", []string{"tier"}},
	{"gpuagent_kv_blocks", "KV blocks by state: live (held), cached (prefix-cache entries), pinned, free, promised (to open sequences), total.", []string{"pool", "state"}},
	{"gpuagent_kv_reserved_bytes", "Address space reserved for a KV pool.", []string{"pool"}},
	{"gpuagent_kv_committed_bytes", "Physical memory committed inside a KV pool's reservation.", []string{"pool"}},
	{"gpuagent_kv_commits_total", "Chunk commits into a KV pool's reservation (not acquisitions).", []string{"pool"}},
	{"gpuagent_kv_decommits_total", "Chunk decommits from a KV pool's reservation.", []string{"pool"}},
	{"gpuagent_kv_base_address", "A KV pool's base device address; it never moves.", []string{"pool"}},
	{"gpuagent_steady_state_allocations_total", "Backend acquisitions while Serving, by tag (I2: must stay 0).", []string{"tag"}},
	{"gpuagent_backend_acquisitions_total", "Backend acquisitions since start, every phase.", nil},
	{"gpuagent_budget_bytes", "The plan's budget.", nil},
	{"gpuagent_device_total_bytes", "Device memory in total, as measured.", nil},
	{"gpuagent_device_used_bytes", "Device memory used by every process, as measured.", nil},
	{"gpuagent_serving", "1 while the agent is in the Serving phase.", nil},
	{"gpuagent_sidecar", "1 when the agent runs as a sidecar: a second CUDA context beside an engine.", nil},
	{"gpuagent_leases", "Open leases.", nil},
	{"gpuagent_sequences", "Open sequences.", nil},
	{"gpuagent_admissions_total", "Sequences admitted.", nil},
	{"gpuagent_capacity_refusals_total", "Operations refused with a capacity error (I6).", nil},
	{"gpuagent_forks_total", "Sequences forked.", nil},
	{"gpuagent_leases_expired_total", "Leases ended because they were not renewed.", nil},
	{"gpuagent_leases_disconnected_total", "Leases ended because their connection closed.", nil},
	{"gpuagent_leases_lost_total", "Leases ended because their client could not map or unmap the KV pool.", nil},
	{"gpuagent_kv_pool_clients", "Leases whose engine process maps the KV pool through descriptors.", nil},
	{"gpuagent_kv_pool_pushes_total", "Messages pushed to every client mapping the KV pool, by op (map: growth, unmap: shrink).", []string{"op"}},
	{"gpuagent_kv_pool_push_seconds", "The last push to every mapping client, sent and answered; and the longest.", []string{"which"}},
	{"gpuagent_kv_decommitted_bytes_total", "KV pool bytes decommitted while serving.", nil},
	{"gpuagent_connections", "Open client connections.", nil},
	{"gpuagent_request_buffered_bytes", "Bytes held for frames and request bodies clients sent, across connections.", nil},
	{"gpuagent_connections_shed_total", "Connections closed at accept because the cap was reached.", nil},
	{"gpuagent_connections_evicted_total", "Connections that had sent nothing yet, or idle ones holding no lease, closed to make room for a new one at a cap.", nil},
}

func newCollector(s *Server) *collector {
	c := &collector{s: s, descs: map[string]*prometheus.Desc{}}
	for _, m := range metrics {
		c.descs[m.name] = prometheus.NewDesc(m.name, m.help, m.labels, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.a.Stats()
	emit := func(name string, kind prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], kind, v, labels...)
	}
	g, ctr := prometheus.GaugeValue, prometheus.CounterValue
	for _, t := range st.Tiers {
		emit("gpuagent_tier_reserved_bytes", g, float64(t.Reserved), string(t.Tier))
		emit("gpuagent_tier_live_bytes", g, float64(t.Live), string(t.Tier))
	}
	c.pool(emit, "kv", &st.KV)
	if st.SWA != nil {
		c.pool(emit, "swa", st.SWA)
	}
	for t := backend.TagWeights; t.Valid(); t++ {
		emit("gpuagent_steady_state_allocations_total", ctr, float64(st.SteadyState[t.String()]), t.String())
	}
	emit("gpuagent_backend_acquisitions_total", ctr, float64(st.Acquires))
	emit("gpuagent_budget_bytes", g, float64(st.Budget))
	emit("gpuagent_device_total_bytes", g, float64(st.DeviceTotal))
	emit("gpuagent_device_used_bytes", g, float64(st.DeviceUsed))
	emit("gpuagent_serving", g, b2f(st.Phase == backend.PhaseServing.String()))
	emit("gpuagent_sidecar", g, b2f(st.Sidecar))
	emit("gpuagent_leases", g, float64(st.Leases))
	emit("gpuagent_sequences", g, float64(st.Sequences))
	emit("gpuagent_admissions_total", ctr, float64(st.Admitted))
	emit("gpuagent_capacity_refusals_total", ctr, float64(st.Refused))
	emit("gpuagent_forks_total", ctr, float64(st.Forks))
	emit("gpuagent_leases_expired_total", ctr, float64(st.Expired))
	emit("gpuagent_leases_disconnected_total", ctr, float64(st.Dropped))
	emit("gpuagent_leases_lost_total", ctr, float64(st.Lost))
	sh := &st.Sharing
	emit("gpuagent_kv_pool_clients", g, float64(sh.Clients))
	emit("gpuagent_kv_pool_pushes_total", ctr, float64(sh.Maps), "map")
	emit("gpuagent_kv_pool_pushes_total", ctr, float64(sh.Unmaps), "unmap")
	emit("gpuagent_kv_pool_push_seconds", g, sh.LastPushUs/1e6, "last")
	emit("gpuagent_kv_pool_push_seconds", g, sh.LongestPushUs/1e6, "longest")
	emit("gpuagent_kv_decommitted_bytes_total", ctr, float64(sh.Decommitted))
	emit("gpuagent_connections", g, float64(c.s.open.Load()))
	emit("gpuagent_request_buffered_bytes", g, float64(c.s.Buffered()))
	emit("gpuagent_connections_shed_total", ctr, float64(c.s.shed.Load()))
	emit("gpuagent_connections_evicted_total", ctr, float64(c.s.evicted.Load()))
}

func (c *collector) pool(emit func(string, prometheus.ValueType, float64, ...string), name string, p *agent.PoolStats) {
	g := prometheus.GaugeValue
	for state, v := range map[string]int64{"live": int64(p.Live), "cached": int64(p.Cached), "pinned": int64(p.Pinned),
		"free": int64(p.Free), "promised": p.Promised, "total": int64(p.Blocks)} {
		emit("gpuagent_kv_blocks", g, float64(v), name, state)
	}
	emit("gpuagent_kv_reserved_bytes", g, float64(p.Reserved), name)
	emit("gpuagent_kv_committed_bytes", g, float64(p.Committed), name)
	emit("gpuagent_kv_commits_total", prometheus.CounterValue, float64(p.Commits), name)
	emit("gpuagent_kv_decommits_total", prometheus.CounterValue, float64(p.Decommits), name)
	emit("gpuagent_kv_base_address", g, float64(p.Base), name)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
