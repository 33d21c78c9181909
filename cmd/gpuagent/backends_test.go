package main

import (
	"os"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

func tiny(t *testing.T) planner.Plan {
	t.Helper()
	data, err := os.ReadFile(tinyPlan)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFakeFits holds finding 12 of issue 13: the fake backend refuses, with
// the arithmetic, a plan its host cannot back (qwen3-235b's 132 GiB of
// weights on a smaller host panicked), and a hostile plan of 2^29 blocks
// is charged its block metadata.
func TestFakeFits(t *testing.T) {
	host := func(n backend.Bytes) func() (backend.Bytes, bool) {
		return func() (backend.Bytes, bool) { return n, true }
	}
	p := tiny(t)
	if err := fakeFits(&p, host(64*backend.GiB)); err != nil {
		t.Errorf("fakeFits(tiny, 64 GiB host) = %v", err)
	}
	if err := fakeFits(&p, func() (backend.Bytes, bool) { return 0, false }); err != nil {
		t.Errorf("fakeFits with the host's memory unknown = %v, want no refusal", err)
	}
	big := p
	big.Tiers = append([]planner.TierTotal(nil), p.Tiers...)
	for i := range big.Tiers {
		if big.Tiers[i].Tier == planner.TierModelResident {
			big.Tiers[i].Bytes = 132 * planner.GiB
		}
	}
	err := fakeFits(&big, host(22*backend.GiB))
	if err == nil || !strings.Contains(err.Error(), "T1 132.") || !strings.Contains(err.Error(), "22.00 GiB available") || !strings.Contains(err.Error(), "short") {
		t.Errorf("fakeFits(132 GiB of weights, 22 GiB host) = %v, want a refusal with the arithmetic", err)
	}
	blocks := p
	blocks.KV.Blocks = 1 << 29
	err = fakeFits(&blocks, host(4*backend.GiB))
	if err == nil || !strings.Contains(err.Error(), "KV block metadata 8.00 GiB") {
		t.Errorf("fakeFits(2^29 blocks, 4 GiB host) = %v, want the block metadata charged", err)
	}
}
