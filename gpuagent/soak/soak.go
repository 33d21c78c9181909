// Package soak drives a gpuagent with many concurrent clients through
// admit, append, decode steps, forks, cancellations, disconnects, pins and
// deliberate misuse, and checks afterwards that the agent is back where it
// started: no sequences, no promised blocks, live blocks at the post-load
// baseline, no steady-state acquisition, the KV base unmoved. It also
// times batched decode steps (Latency).
package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// Config configures a soak. Its zero value is 32 clients, 100k operations.
type Config struct {
	Addr    string `json:"addr"`    // "unix:PATH" or "HOST:PORT"
	Token   string `json:"-"`       // the agent's bearer token, for TCP (gpuagent serve --token-file)
	Clients int    `json:"clients"` // concurrent clients; 0 means 32
	Ops     int    `json:"ops"`     // operations in all; 0 means 100 000
	Seed    uint64 `json:"seed"`
	// Map, when set, makes every lease map the KV pool through an
	// Importer it returns (client.MapPool), so growth and shrinking are
	// pushed to one mapping client per lease.
	Map func() (client.Importer, error) `json:"-"`
}

// Result counts what a soak did and what the agent looked like before and
// after.
type Result struct {
	Ops, Steps                    int64
	Admits, Refused, Appends      int64
	Decodes, Forks, Frees, Pins   int64
	Disconnects, Misuse, Rejected int64 // misuse: deliberate bad calls; rejected: their errors
	Elapsed                       time.Duration
	Before, After                 agent.Stats

	mu       sync.Mutex
	MapTimes []time.Duration // client side: importing and mapping one chunk, every chunk every lease mapped
}

// Mapping describes the pool mapping of a soak run with Config.Map: the
// client-side time to map a chunk, and the agent's pushes of growth to
// the most clients it had at once.
func (r *Result) Mapping() string {
	if len(r.MapTimes) == 0 {
		return ""
	}
	ts := slices.Clone(r.MapTimes)
	slices.Sort(ts)
	q := func(f float64) time.Duration { return ts[min(len(ts)-1, int(f*float64(len(ts))))] }
	most, ps := 0, []float64{}
	for _, p := range r.After.Sharing.Recent {
		most = max(most, p.Clients)
	}
	for _, p := range r.After.Sharing.Recent {
		if p.Op == wire.PoolMap && p.Clients == most {
			ps = append(ps, p.Us)
		}
	}
	slices.Sort(ps)
	push := "no growth pushed"
	if n := len(ps); n > 0 {
		push = fmt.Sprintf("%d growth pushes to %d clients: p50 %.0f µs, max %.0f µs", n, most, ps[n/2], ps[n-1])
	}
	return fmt.Sprintf("mapping: %d chunks mapped client-side: p50 %v, p90 %v, max %v; %s; %d leases lost",
		len(ts), q(0.5), q(0.9), ts[len(ts)-1], push, r.After.Lost-r.Before.Lost)
}

// Check reports whether the agent drained back to where it started.
func (r *Result) Check() error {
	b, a := &r.Before, &r.After
	switch {
	case a.Sequences != 0 || a.Leases != 0:
		return fmt.Errorf("after the soak %d sequences in %d leases are open, want 0", a.Sequences, a.Leases)
	case a.KV.Promised != 0:
		return fmt.Errorf("after the soak %d blocks are still promised, want 0", a.KV.Promised)
	case a.KV.Live-a.KV.Cached != b.KV.Live-b.KV.Cached:
		return fmt.Errorf("live blocks outside the prefix cache: %d, want the baseline %d", a.KV.Live-a.KV.Cached, b.KV.Live-b.KV.Cached)
	case len(a.SteadyState) != 0:
		return fmt.Errorf("steady-state acquisitions %v, want none", a.SteadyState)
	case a.Acquires != b.Acquires:
		return fmt.Errorf("backend acquisitions went from %d to %d while serving", b.Acquires, a.Acquires)
	case a.Lost != b.Lost:
		return fmt.Errorf("%d leases lost their mapping of the KV pool", a.Lost-b.Lost)
	case a.KV.Base != b.KV.Base:
		return fmt.Errorf("KV base moved from %#x to %#x", b.KV.Base, a.KV.Base)
	case r.Misuse != r.Rejected:
		return fmt.Errorf("%d deliberate misuses, only %d rejected", r.Misuse, r.Rejected)
	}
	return nil
}

func (r *Result) String() string {
	return fmt.Sprintf("%d ops in %d steps in %v (%.0f ops/s): %d admits (%d refused for capacity), %d appends, %d decode tokens, "+
		"%d forks, %d frees, %d pins, %d disconnects, %d misuses rejected; KV live %d -> %d (cached %d), commits %d -> %d, "+
		"steady-state acquisitions %v, KV base %#x -> %#x",
		r.Ops, r.Steps, r.Elapsed.Round(time.Millisecond), float64(r.Ops)/r.Elapsed.Seconds(), r.Admits, r.Refused, r.Appends,
		r.Decodes, r.Forks, r.Frees, r.Pins, r.Disconnects, r.Rejected, r.Before.KV.Live, r.After.KV.Live, r.After.KV.Cached,
		r.Before.KV.Commits, r.After.KV.Commits, r.After.SteadyState, r.Before.KV.Base, r.After.KV.Base)
}

// Run soaks the agent at cfg.Addr.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Clients = max(cfg.Clients, 0)
	if cfg.Clients == 0 {
		cfg.Clients = 32
	}
	if cfg.Ops == 0 {
		cfg.Ops = 100_000
	}
	res := new(Result)
	if err := stats(ctx, &cfg, &res.Before); err != nil {
		return nil, err
	}
	start := time.Now()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		left atomic.Int64
	)
	left.Store(int64(cfg.Ops))
	for i := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{cfg: &cfg, res: res, left: &left, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
			if err := w.run(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("client %d: %w", i, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	return res, settle(ctx, &cfg, &res.After)
}

// settle waits for the agent to notice the soak's closed connections.
func settle(ctx context.Context, cfg *Config, st *agent.Stats) error {
	for i := 0; ; i++ {
		if err := stats(ctx, cfg, st); err != nil {
			return err
		}
		if st.Leases == 0 || i == 200 {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func stats(ctx context.Context, cfg *Config, st *agent.Stats) error {
	c, err := cfg.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Stats(st)
}

// isRefusal reports whether err is a capacity refusal, which a soak that
// fills the pool expects.
func isRefusal(err *wire.Error) bool { return err != nil && err.Code == wire.CodeCapacity }

// dial connects to the agent cfg names, with its token.
func (cfg *Config) dial(ctx context.Context) (*client.Client, error) {
	return client.DialWith(ctx, cfg.Addr, client.Options{Token: cfg.Token})
}
