package agent_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/internal/invariants"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

func readPlan(t testing.TB, name string) planner.Plan {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name + ".plan.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// load serves the named test plan on a fake backend sized from its
// calibration, with m changing the measurement when not nil.
func load(t testing.TB, name string, cfg agent.Config, change func(*agent.Measurement)) (*agent.Agent, *gpuagenttest.Fake, error) {
	t.Helper()
	return loadPlan(t, readPlan(t, name), cfg, change)
}

// loadPlan is load with the plan already read.
func loadPlan(t testing.TB, p planner.Plan, cfg agent.Config, change func(*agent.Measurement)) (*agent.Agent, *gpuagenttest.Fake, error) {
	t.Helper()
	m := agent.CalibratedMeasurement(&p)
	if change != nil {
		change(&m)
	}
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	g := backend.NewPhaseGuard()
	g.Logf = cfg.Logf
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used, Granularity: backend.Bytes(p.Input.Calibration.VMM.Granularity), Quarantine: -1, Guard: g})
	a, err := agent.Load(p, f, g, agent.StaticDevice{M: m, B: f}, cfg)
	return a, f, err
}

func mustLoad(t testing.TB, name string, cfg agent.Config) (*agent.Agent, *gpuagenttest.Fake) {
	t.Helper()
	return mustLoadPlan(t, readPlan(t, name), cfg)
}

// mustLoadPlan is mustLoad with the plan already read.
func mustLoadPlan(t testing.TB, p planner.Plan, cfg agent.Config) (*agent.Agent, *gpuagenttest.Fake) {
	t.Helper()
	a, f, err := loadPlan(t, p, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Close()
		if got := f.Stats().Committed; got != 0 {
			t.Errorf("after Close the backend holds %v", got)
		}
	})
	return a, f
}

func TestLoadAcquiresTiersInPlanOrder(t *testing.T) {
	a, f := mustLoad(t, "tiny-swa", agent.Config{})
	var tags []string
	for _, e := range f.Journal() {
		if e.Op == gpuagenttest.OpAcquire {
			tags = append(tags, e.Phase.String()+":"+e.Tag.String())
		}
	}
	want := "loading:engine loading:weights planning:kv planning:swa planning:scratch"
	if got := strings.Join(tags, " "); got != want {
		t.Errorf("acquisitions = %s, want %s", got, want)
	}
	if got := a.Guard().Phase(); got != backend.PhaseServing {
		t.Errorf("phase = %v, want serving", got)
	}
	if r := a.Report(); r.Attribution < 0.95 || r.Attribution > 1.0001 {
		t.Errorf("attribution = %.4f, want within [0.95, 1]\n%s", r.Attribution, r.Text())
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name   string
		plan   string
		cfg    agent.Config
		change func(*agent.Measurement)
		want   agent.LoadReason
	}{
		{"context 20% over", "tiny", agent.Config{}, func(m *agent.Measurement) { m.Context += m.Context / 5 }, agent.ReasonCalibration},
		{"library 11% under", "tiny", agent.Config{}, func(m *agent.Measurement) { m.LibraryReserve -= m.LibraryReserve * 11 / 100 }, agent.ReasonCalibration},
		{"device half the size", "tiny", agent.Config{}, func(m *agent.Measurement) { m.Total = 800 * backend.MiB }, agent.ReasonDeviceTooSmall},
		{"another process holds memory", "tiny", agent.Config{}, func(m *agent.Measurement) { m.Used = m.Total - 100*backend.MiB }, agent.ReasonDeviceTooSmall},
		{"sidecar not charged", "tiny", agent.Config{Sidecar: true}, nil, agent.ReasonSidecarUncharged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, err := load(t, tt.plan, tt.cfg, tt.change)
			var le *agent.LoadError
			if !errors.As(err, &le) || le.Reason != tt.want {
				if a != nil {
					a.Close()
				}
				t.Fatalf("Load = %v, want a %s refusal", err, tt.want)
			}
		})
	}
}

func TestDeviceTooSmallCarriesFailureReport(t *testing.T) {
	_, _, err := load(t, "tiny", agent.Config{}, func(m *agent.Measurement) { m.Total = 800 * backend.MiB })
	if err == nil || !strings.Contains(err.Error(), "over by") {
		t.Errorf("Load error = %v, want the planner's failure report", err)
	}
}

func open(t testing.TB, a *agent.Agent, conn agent.Conn) string {
	t.Helper()
	l, err := a.OpenLease(conn, wire.OpenLease{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Lease
}

func step(t testing.TB, a *agent.Agent, conn agent.Conn, lease string, ops ...wire.Op) []wire.Result {
	t.Helper()
	res, err := a.Step(conn, &wire.Step{Lease: lease, Ops: ops}, nil)
	if err != nil {
		t.Fatalf("Step(%v) = %v", ops, err)
	}
	return res.Results
}

func TestSequenceLifecycle(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{})
	l := open(t, a, 1)
	base := a.Stats().KV
	r := step(t, a, 1, l, wire.Op{Op: wire.OpAdmit, MaxTokens: 100, Tokens: 40, Hashes: []uint64{11, 12}})[0]
	if r.Error != nil || len(r.Blocks) != 3 || r.Seq == 0 {
		t.Fatalf("admit = %+v, want 3 blocks", r)
	}
	res, err := a.Step(1, &wire.Step{Lease: l, Decode: &wire.Decode{Seqs: []uint64{r.Seq, r.Seq, r.Seq, r.Seq, r.Seq, r.Seq, r.Seq, r.Seq, r.Seq}}}, nil)
	if err != nil || len(res.Decode.Errors) != 0 || res.Decode.Blocks[8] == 0 {
		t.Fatalf("decode = %+v, %v: want a new block at token 49", res.Decode, err)
	}
	f := step(t, a, 1, l, wire.Op{Op: wire.OpFork, Seq: r.Seq})[0]
	if f.Error != nil || len(f.Blocks) != 4 || len(f.Copies) != 1 ||
		f.Copies[0].From != res.Decode.Blocks[8] || f.Copies[0].To != f.Blocks[3] || f.Blocks[0] != r.Blocks[0] {
		t.Fatalf("fork = %+v, want 4 blocks and one copy of the partial last block", f)
	}
	over := step(t, a, 1, l, wire.Op{Op: wire.OpAppend, Seq: r.Seq, Tokens: 52})[0]
	if over.Error == nil || over.Error.Code != wire.CodeOverLimit {
		t.Errorf("append past max_tokens = %+v, want over_limit", over)
	}
	step(t, a, 1, l, wire.Op{Op: wire.OpFree, Seq: r.Seq}, wire.Op{Op: wire.OpFree, Seq: f.Seq})
	again := step(t, a, 1, l, wire.Op{Op: wire.OpFree, Seq: r.Seq})[0]
	if again.Error == nil || again.Error.Code != wire.CodeNoSequence {
		t.Errorf("double free = %+v, want no_sequence", again)
	}
	hit := step(t, a, 1, l, wire.Op{Op: wire.OpAdmit, MaxTokens: 64, Tokens: 32, Hashes: []uint64{11, 12}})[0]
	if hit.Hits != 2 {
		t.Errorf("admit of a cached prefix = %+v, want 2 hits", hit)
	}
	if err := a.CloseLease(1, l); err != nil {
		t.Fatal(err)
	}
	s := a.Stats()
	if s.KV.Live-s.KV.Cached != base.Live || s.Sequences != 0 || s.KV.Promised != 0 {
		t.Errorf("after close: %+v, want live blocks back to %d", s.KV, base.Live)
	}
	if len(s.SteadyState) != 0 || s.KV.Base != base.Base {
		t.Errorf("steady state %v, base %#x -> %#x", s.SteadyState, base.Base, s.KV.Base)
	}
}

func TestAdmissionRefusesWithTheNumbers(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{})
	l := open(t, a, 1)
	var ops []wire.Op
	for range 32 {
		ops = append(ops, wire.Op{Op: wire.OpAdmit, MaxTokens: 1024})
	}
	for _, r := range step(t, a, 1, l, ops...) {
		if r.Error != nil {
			t.Fatalf("admit within the plan: %v", r.Error)
		}
	}
	r, err := a.Admit(1, l, &wire.Op{Op: wire.OpAdmit, MaxTokens: 16})
	if err != nil || r.Error == nil || r.Error.Code != wire.CodeCapacity || r.Error.Status() != 503 ||
		r.Error.NeedBlocks != 1 || r.Error.AvailableBlocks != 0 || r.Error.PoolBlocks != 2048 {
		t.Errorf("admit beyond the plan = %+v, %v; want a 503 capacity error with the numbers", r.Error, err)
	}
}

func TestLeasesAreIsolated(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{})
	la, lb := open(t, a, 1), open(t, a, 2)
	r := step(t, a, 1, la, wire.Op{Op: wire.OpAdmit, MaxTokens: 64, Tokens: 20})[0]
	for _, op := range []wire.Op{{Op: wire.OpFree, Seq: r.Seq}, {Op: wire.OpAppend, Seq: r.Seq, Tokens: 1}, {Op: wire.OpFork, Seq: r.Seq}} {
		if got := step(t, a, 2, lb, op)[0]; got.Error == nil || got.Error.Code != wire.CodeNoSequence {
			t.Errorf("lease B %s of lease A's handle = %+v, want no_sequence", op.Op, got)
		}
	}
	if _, err := a.Step(2, &wire.Step{Lease: la, Ops: []wire.Op{{Op: wire.OpFree, Seq: r.Seq}}}, nil); err == nil || err.Code != wire.CodeNoLease {
		t.Errorf("lease A used from B's connection = %v, want no_lease", err)
	}
	if got := a.Stats().Sequences; got != 1 {
		t.Errorf("sequences = %d, want A's one untouched", got)
	}
}

func TestLeaseEndsReleaseEverything(t *testing.T) {
	now := time.Unix(1000, 0)
	a, _ := mustLoad(t, "tiny-swa", agent.Config{Now: func() time.Time { return now }})
	base := a.Stats()
	expiring, dropped := open(t, a, 1), open(t, a, 2)
	for _, c := range []struct {
		conn  agent.Conn
		lease string
	}{{1, expiring}, {2, dropped}} {
		r := step(t, a, c.conn, c.lease, wire.Op{Op: wire.OpAdmit, MaxTokens: 1000, Tokens: 500})[0]
		step(t, a, c.conn, c.lease, wire.Op{Op: wire.OpFork, Seq: r.Seq}, wire.Op{Op: wire.OpPin, Hashes: []uint64{1}})
	}
	a.CloseConn(2)
	now = now.Add(11 * time.Second)
	if n := a.Expire(); n != 1 {
		t.Errorf("Expire = %d, want 1", n)
	}
	s := a.Stats()
	if s.Leases != 0 || s.Sequences != 0 || s.KV.Live != base.KV.Live || s.SWA.Live != base.SWA.Live || s.Expired != 1 || s.Dropped != 1 {
		t.Errorf("after expiry and disconnect: %+v, want everything released", s)
	}
}

func TestPinsAreBounded(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{})
	l := open(t, a, 1)
	r := step(t, a, 1, l, wire.Op{Op: wire.OpAdmit, MaxTokens: 16, Tokens: 16, Hashes: []uint64{42}})[0]
	step(t, a, 1, l, wire.Op{Op: wire.OpFree, Seq: r.Seq}) // 42 is cached now
	hashes := make([]uint64, 64)
	for i := range hashes {
		hashes[i] = 42
	}
	var last wire.Result
	for range 2048/64 + 1 {
		last = step(t, a, 1, l, wire.Op{Op: wire.OpPin, Hashes: hashes})[0]
	}
	if last.Error == nil || last.Error.Code != wire.CodeTooLarge {
		t.Errorf("pinning one hash past the pool's size in pins = %+v, want too_large", last)
	}
	step(t, a, 1, l, wire.Op{Op: wire.OpUnpin})
	if got := step(t, a, 1, l, wire.Op{Op: wire.OpPin, Hashes: hashes[:1]})[0]; got.Error != nil || got.Pinned != 1 {
		t.Errorf("pin after unpin = %+v", got)
	}
}

// TestLoadAllocations holds issue 31's FuzzAgent finding, where every
// execution loads a plan: Load re-planned an input the measured device
// did not change, formatted a name for every region, pool and arena it
// made for leak reports only invariants builds keep, and cleared a 10 KB
// ring of push records in every Agent (178 allocations and 71 KB a load
// of tiny-swa, fake backend included; 107 and 55 KB after). Allocations,
// unlike time, are the same on a loaded machine.
func TestLoadAllocations(t *testing.T) {
	if invariants.Enabled {
		t.Skip("invariants builds name what they track")
	}
	p := readPlan(t, "tiny-swa")
	quiet := agent.Config{Logf: func(string, ...any) {}}
	n := testing.AllocsPerRun(20, func() {
		a, _, err := loadPlan(t, p, quiet, nil)
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
	})
	if n > 120 {
		t.Errorf("Load and Close of tiny-swa allocated %.0f times, want at most 120", n)
	}
}
