package agent_test

// These tests hold finding 11 (quotas per connection and per lease) and
// finding 13 (the prefix cache's per-lease salt) of issue 13.

import (
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

func admit(a *agent.Agent, conn agent.Conn, lease string, maxTokens, tokens int, hashes ...uint64) (wire.Result, *wire.Error) {
	res, err := a.Admit(conn, lease, &wire.Op{Op: wire.OpAdmit, MaxTokens: maxTokens, Tokens: tokens, Hashes: hashes})
	if err == nil && res.Error != nil {
		err = res.Error
	}
	return res, err
}

func TestConnLeaseQuota(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{ConnLeases: 3})
	for i := range 3 {
		if _, err := a.OpenLease(7, wire.OpenLease{}); err != nil {
			t.Fatalf("lease %d of 3 on one connection: %v", i+1, err)
		}
	}
	if _, err := a.OpenLease(7, wire.OpenLease{}); err == nil || err.Code != wire.CodeUnavailable {
		t.Errorf("a fourth lease on a connection with a quota of 3 = %v, want unavailable", err)
	}
	if _, err := a.OpenLease(8, wire.OpenLease{}); err != nil {
		t.Errorf("a lease on another connection: %v", err)
	}
	a.CloseConn(7)
	if _, err := a.OpenLease(7, wire.OpenLease{}); err != nil {
		t.Errorf("a lease after the connection's others ended: %v", err)
	}
}

// TestLeaseQuotas: a lease cannot be promised more than its block quota
// (256 empty sequences promised the whole pool), nor hold more sequences
// than its sequence quota; another lease is still served.
func TestLeaseQuotas(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{LeaseBlocks: 100, LeaseSeqs: 5})
	l, _ := a.OpenLease(1, wire.OpenLease{})
	if l.Limits.LeaseBlocks != 100 || l.Limits.LeaseSeqs != 5 {
		t.Errorf("lease limits = %+v, want the quotas stated", l.Limits)
	}
	bt := l.Limits.BlockTokens
	if _, err := admit(a, 1, l.Lease, 60*bt, 0); err != nil {
		t.Fatal(err)
	}
	_, err := admit(a, 1, l.Lease, 41*bt, 0)
	if err == nil || err.Code != wire.CodeCapacity || err.NeedBlocks != 41 || err.AvailableBlocks != 40 {
		t.Errorf("admit past the lease's block quota = %+v, want capacity with 41 needed and 40 left", err)
	}
	for i := range 4 {
		if _, err := admit(a, 1, l.Lease, bt, 0); err != nil {
			t.Fatalf("sequence %d of 5: %v", i+2, err)
		}
	}
	if _, err := admit(a, 1, l.Lease, bt, 0); err == nil || err.Code != wire.CodeTooLarge {
		t.Errorf("a sixth sequence on a lease with a quota of 5 = %v, want too_large", err)
	}
	o, _ := a.OpenLease(2, wire.OpenLease{})
	if _, err := admit(a, 2, o.Lease, 64*bt, 0); err != nil {
		t.Errorf("another lease, inside its own quota: %v", err)
	}
	if got := a.Stats().KV.Promised; got != 64+64 {
		t.Errorf("promised = %d blocks, want %d", got, 64+64)
	}
}

// TestDefaultQuotasLetOneLeaseUseThePool: by default one engine's lease may
// be promised the whole pool.
func TestDefaultQuotasLetOneLeaseUseThePool(t *testing.T) {
	a, _ := mustLoad(t, "tiny", agent.Config{})
	l, _ := a.OpenLease(1, wire.OpenLease{})
	if l.Limits.LeaseBlocks != l.Limits.Blocks {
		t.Errorf("default lease_blocks = %d, want the pool's %d", l.Limits.LeaseBlocks, l.Limits.Blocks)
	}
	per := l.Limits.MaxSeqLen / l.Limits.BlockTokens
	for i := int64(0); i < l.Limits.Blocks/int64(per); i++ {
		if _, err := admit(a, 1, l.Lease, l.Limits.MaxSeqLen, 0); err != nil {
			t.Fatalf("sequence %d: %v", i+1, err)
		}
	}
}

// TestCacheSalt holds finding 13: a lease learns from prefix hits only
// whether a lease with the same cache salt processed a prefix.
func TestCacheSalt(t *testing.T) {
	for _, tc := range []struct {
		name       string
		first, sec string
		hits       int
	}{
		{"no salt: the shared cache", "", "", 2},
		{"the same salt", "tenant-a", "tenant-a", 2},
		{"different salts", "tenant-a", "tenant-b", 0},
		{"a salted lease after an unsalted one", "", "tenant-b", 0},
		{"an unsalted lease after a salted one", "tenant-a", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := mustLoad(t, "tiny", agent.Config{})
			l1, _ := a.OpenLease(1, wire.OpenLease{CacheSalt: tc.first})
			bt := l1.Limits.BlockTokens
			r, err := admit(a, 1, l1.Lease, 4*bt, 2*bt, 11, 12)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Step(1, &wire.Step{Lease: l1.Lease, Ops: []wire.Op{{Op: wire.OpFree, Seq: r.Seq}}}, nil); err != nil {
				t.Fatal(err)
			}
			l2, _ := a.OpenLease(2, wire.OpenLease{CacheSalt: tc.sec})
			r2, err := admit(a, 2, l2.Lease, 4*bt, 2*bt, 11, 12)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Hits != tc.hits {
				t.Errorf("hits = %d, want %d", r2.Hits, tc.hits)
			}
			if l2.Limits.Salted != (tc.sec != "") {
				t.Errorf("limits.salted = %v for salt %q", l2.Limits.Salted, tc.sec)
			}
		})
	}
}
