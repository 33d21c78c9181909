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
