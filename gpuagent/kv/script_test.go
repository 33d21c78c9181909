package kv_test

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/internal/script"
	"github.com/vramplan/vramplan/gpuagent/kv"
)

var update = flag.Bool("update", false, "rewrite testdata/script expectations")

// scriptState drives a manager over an 8-block global pool and a 4-block
// SWA pool from a script.
type scriptState struct {
	r           *rig
	seqs        map[string]*kv.Sequence
	closed      map[string]bool
	saved       *kv.Saved
	savedClosed bool
}

func TestScripts(t *testing.T) {
	script.RunDir(t, "testdata/script", *update, func(t *testing.T) func(*testing.T, *script.Cmd) string {
		s := &scriptState{r: newRig(t, 8, 4, 0), seqs: map[string]*kv.Sequence{}, closed: map[string]bool{}}
		t.Cleanup(func() { s.teardown(t) })
		return s.do
	})
}

// teardown closes what the script left open, then the rig, which checks
// that every byte the fake backend handed out came back.
func (s *scriptState) teardown(t *testing.T) {
	for name, q := range s.seqs {
		if !s.closed[name] {
			q.Close()
		}
	}
	if s.saved != nil && !s.savedClosed {
		s.saved.Close()
	}
	s.r.close(t)
}

func (s *scriptState) do(t *testing.T, c *script.Cmd) (out string) {
	defer func() {
		if v := recover(); v != nil {
			out = "panic: " + fmt.Sprint(v)
		}
	}()
	if c.Name == "seq" {
		s.seqs[c.Arg(t, 0)] = s.r.m.NewSequence()
		return "ok"
	}
	if f, ok := seqCmds[c.Name]; ok {
		if c.Name == "close" {
			defer func() { s.closed[c.Arg(t, 0)] = true }()
		}
		return f(t, s.seqs[c.Arg(t, 0)], c)
	}
	return s.managerCmd(t, c)
}

func errOr(err error, ok string) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return ok
}

var seqCmds = map[string]func(*testing.T, *kv.Sequence, *script.Cmd) string{
	"append": func(t *testing.T, q *kv.Sequence, c *script.Cmd) string {
		hit, err := q.Append(kv.Hash(c.IntKV(t, "hash", 0)))
		return errOr(err, fmt.Sprintf("hit=%v table=%v", hit, q.BlockTable(nil)))
	},
	"swa": func(t *testing.T, q *kv.Sequence, c *script.Cmd) string {
		return errOr(q.AppendSWA(), fmt.Sprintf("swa=%v", q.SWATable(nil)))
	},
	"seal": func(t *testing.T, q *kv.Sequence, c *script.Cmd) string {
		q.Seal(int(c.Int(t, 1)), kv.Hash(c.Int(t, 2)))
		return "ok"
	},
	"evict": func(t *testing.T, q *kv.Sequence, c *script.Cmd) string {
		q.EvictMiddle(int(c.Int(t, 1)), int(c.Int(t, 2)))
		return fmt.Sprintf("table=%v", q.BlockTable(nil))
	},
	"close": func(t *testing.T, q *kv.Sequence, c *script.Cmd) string {
		q.Close()
		return "ok"
	},
}

func (s *scriptState) managerCmd(t *testing.T, c *script.Cmd) string {
	m := s.r.m
	switch c.Name {
	case "pin":
		return fmt.Sprintf("pinned %d", m.Pin(c.Arg(t, 0), hashes(t, c.Args[1:])...))
	case "unpin":
		m.Unpin(c.Arg(t, 0))
		return "ok"
	case "reclaim":
		return fmt.Sprintf("reclaimed %d", m.Reclaim(int(c.Int(t, 0))))
	case "save":
		s.saved = m.SavePrefix()
		return fmt.Sprintf("snapshot %v", s.saved.Snapshot.Hashes)
	case "save-close":
		s.savedClosed = true
		s.saved.Close()
		return "ok"
	case "load":
		loaded, err := m.LoadPrefix(kv.Snapshot{Hashes: hashes(t, c.Args)})
		return errOr(err, fmt.Sprintf("loaded %v", loaded))
	case "stats":
		st := m.Stats()
		return fmt.Sprintf("%+v refs=%d", st, s.r.global.References())
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c.Name)
	return ""
}

func hashes(t *testing.T, args []string) []kv.Hash {
	var hs []kv.Hash
	for _, a := range args {
		n, err := strconv.ParseUint(strings.TrimSpace(a), 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, kv.Hash(n))
	}
	return hs
}
