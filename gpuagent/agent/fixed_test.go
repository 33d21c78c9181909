package agent_test

import (
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

// fixedBackend is a backend that cannot grow, as plain device allocations
// cannot (the cuda backend).
type fixedBackend struct{ *gpuagenttest.Fake }

func (fixedBackend) AcquireGrowable(reserve, commit backend.Bytes, tag backend.Tag) (*backend.Region, error) {
	return nil, backend.ErrNotGrowable
}

// TestLoadOnABackendThatCannotGrow: the KV pool is committed whole at
// load, so serving never needs to grow it.
func TestLoadOnABackendThatCannotGrow(t *testing.T) {
	p := readPlan(t, "tiny")
	m := agent.CalibratedMeasurement(&p)
	g := backend.NewPhaseGuard()
	f := gpuagenttest.New(gpuagenttest.Config{Capacity: m.Total - m.Used,
		Granularity: backend.Bytes(p.Input.Calibration.VMM.Granularity), Quarantine: -1, Guard: g})
	b := fixedBackend{f}
	a, err := agent.Load(p, b, g, agent.StaticDevice{M: m, B: b}, agent.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	kv := a.Stats().KV
	if kv.Committed != kv.Reserved || kv.Committed < backend.Bytes(p.KV.Bytes) {
		t.Errorf("KV committed %v of %v reserved, plan %v; want all of it at load", kv.Committed, kv.Reserved, p.KV.Bytes)
	}
	if got := a.Guard().Phase(); got != backend.PhaseServing {
		t.Errorf("phase = %v, want serving", got)
	}
}
