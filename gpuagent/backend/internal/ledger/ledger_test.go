package ledger

import (
	"errors"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

func TestLedger(t *testing.T) {
	l := &Ledger{Total: backend.GiB, Granularity: 2 * backend.MiB}
	for _, c := range []struct {
		n   backend.Bytes
		tag backend.Tag
	}{{0, backend.TagKVPool}, {-1, backend.TagKVPool}, {backend.GiB + 1, backend.TagKVPool}, {1, backend.TagNone}} {
		if err := l.Admit("Acquire", c.n, c.tag); !errors.Is(err, backend.ErrInvalidValue) {
			t.Errorf("Admit(%d, %v) = %v, want ErrInvalidValue", c.n, c.tag, err)
		}
	}
	if err := l.Admit("Acquire", backend.GiB, backend.TagKVPool); err != nil {
		t.Errorf("Admit(1 GiB) = %v", err)
	}
	l.Acquired(backend.TagKVPool, 4*backend.MiB, 4*backend.MiB, 64*backend.MiB)
	l.Resized(backend.TagKVPool, -2*backend.MiB, 0)
	s := l.Stats()
	if s.Committed != 2*backend.MiB || s.Free != backend.GiB-4*backend.MiB || s.Reserved != 64*backend.MiB || s.Live != 1 || s.ByTag[backend.TagKVPool] != 2*backend.MiB {
		t.Errorf("Stats = %+v", s)
	}
	l.Released(backend.TagKVPool, 2*backend.MiB, 4*backend.MiB, 64*backend.MiB)
	if s := l.Stats(); s.Committed != 0 || s.Free != backend.GiB || s.Live != 0 || len(s.ByTag) != 0 || s.Releases != 1 {
		t.Errorf("Stats after release = %+v", s)
	}
}

func TestAdmitGrowable(t *testing.T) {
	g := 2 * backend.MiB
	l := &Ledger{Total: backend.GiB, Granularity: g}
	for _, c := range []struct {
		reserve, commit backend.Bytes
		ok              bool
	}{{8 * g, 0, true}, {8 * g, 8 * g, true}, {4 * backend.GiB, 0, true}, {g + 1, 0, false}, {0, 0, false},
		{8 * g, 9 * g, false}, {8 * g, g / 2, false}, {8 * g, -g, false}, {4 * backend.GiB, 2 * backend.GiB, false}} {
		err := l.AdmitGrowable("AcquireGrowable", c.reserve, c.commit, backend.TagKVPool)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, backend.ErrInvalidValue) {
			t.Errorf("AdmitGrowable(%v, %v) = %v, want ok=%v", c.reserve, c.commit, err, c.ok)
		}
	}
}
