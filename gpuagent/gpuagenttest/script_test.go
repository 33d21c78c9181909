package gpuagenttest_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
	"github.com/vramplan/vramplan/gpuagent/internal/script"
)

var update = flag.Bool("update", false, "rewrite testdata/script expectations")

// scriptState is the state one script file drives: a fake with a 64 MiB
// capacity and a 64 KiB granularity, and named regions.
type scriptState struct {
	g        *backend.PhaseGuard
	f        *gpuagenttest.Fake
	regions  map[string]*backend.Region
	released map[*backend.Region]bool
}

func TestScripts(t *testing.T) {
	script.RunDir(t, "testdata/script", *update, func(t *testing.T) func(*testing.T, *script.Cmd) string {
		g := backend.NewPhaseGuard()
		g.Logf = func(string, ...any) {}
		s := &scriptState{g: g, f: small(g), regions: map[string]*backend.Region{}, released: map[*backend.Region]bool{}}
		t.Cleanup(s.teardown)
		return s.do
	})
}

// teardown releases the regions the script left held.
func (s *scriptState) teardown() {
	for _, r := range s.regions {
		if r != nil && !s.released[r] {
			s.released[r] = true
			s.f.Release(r)
		}
	}
}

func (s *scriptState) do(t *testing.T, c *script.Cmd) (out string) {
	defer func() {
		if v := recover(); v != nil {
			out = "panic: " + strings.SplitN(fmt.Sprint(v), "\n", 2)[0]
		}
	}()
	switch c.Name {
	case "acquire":
		return s.acquire(t, c)
	case "growable":
		return s.growable(t, c)
	case "release":
		r := s.regions[c.Arg(t, 0)]
		defer func() { s.released[r] = true }() // also when the release panics
		s.f.Release(r)
		return "ok"
	case "commit", "decommit":
		return s.resize(t, c)
	case "phase", "swap":
		return s.phase(t, c)
	case "fail-acquire":
		s.f.FailAcquire(int(c.Int(t, 0)))
		return "ok"
	case "read":
		return s.read(t, c)
	case "stats":
		return stats(s.f.Stats(), s.g)
	case "journal":
		return journal(s.f.Journal())
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
	return ""
}

func tagOf(t *testing.T, c *script.Cmd) backend.Tag {
	tag, ok := backend.ParseTag(c.KV["tag"])
	if !ok && c.KV["tag"] != "none" {
		t.Fatalf("%s: bad tag %q", c.Pos, c.KV["tag"])
	}
	return tag
}

func result(name string, r *backend.Region, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%s: base=%#x committed=%d reserved=%d", name, uint64(r.Base()), r.Committed(), r.Reserved())
}

func (s *scriptState) acquire(t *testing.T, c *script.Cmd) string {
	r, err := s.f.Acquire(backend.Bytes(c.Int(t, 1)), backend.Bytes(c.IntKV(t, "align", 0)), tagOf(t, c))
	s.regions[c.Arg(t, 0)] = r
	return result(c.Arg(t, 0), r, err)
}

func (s *scriptState) growable(t *testing.T, c *script.Cmd) string {
	r, err := s.f.AcquireGrowable(backend.Bytes(c.IntKV(t, "reserve", 0)), backend.Bytes(c.IntKV(t, "commit", 0)), tagOf(t, c))
	s.regions[c.Arg(t, 0)] = r
	return result(c.Arg(t, 0), r, err)
}

func (s *scriptState) resize(t *testing.T, c *script.Cmd) string {
	r := s.regions[c.Arg(t, 0)]
	op := s.f.Commit
	if c.Name == "decommit" {
		op = s.f.Decommit
	}
	err := op(r, backend.Bytes(c.Int(t, 1)))
	return result(c.Arg(t, 0), r, err)
}

func (s *scriptState) phase(t *testing.T, c *script.Cmd) string {
	var err error
	switch arg := c.Arg(t, 0); {
	case c.Name == "swap" && arg == "begin":
		err = s.g.BeginSwap("script")
	case c.Name == "swap":
		err = s.g.EndSwap("script")
	default:
		err = s.g.Advance(map[string]backend.Phase{"loading": 0, "planning": 1, "serving": 2}[arg], "script")
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return "phase " + s.g.Phase().String()
}

func (s *scriptState) read(t *testing.T, c *script.Cmd) string {
	r := s.regions[c.Arg(t, 0)]
	b, ok := s.f.Device().Read(r.Base(), backend.Bytes(c.Int(t, 1)))
	if !ok {
		return "unreadable"
	}
	return fmt.Sprintf("% x", b)
}

func stats(st backend.Stats, g *backend.PhaseGuard) string {
	var tags []string
	for tag := backend.TagNone; tag.Valid() || tag == backend.TagNone; tag++ {
		if n := st.ByTag[tag]; n > 0 {
			tags = append(tags, fmt.Sprintf("%v=%d", tag, n))
		}
	}
	return fmt.Sprintf("live=%d committed=%d reserved=%d free=%d acquires=%d releases=%d\nbytag: %s\nsteady-state: %v",
		st.Live, st.Committed, st.Reserved, st.Free, st.Acquires, st.Releases, strings.Join(tags, " "), g.SteadyStateAllocations())
}

func journal(es []gpuagenttest.Entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintln(&b, e)
	}
	return b.String()
}
