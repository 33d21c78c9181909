package agent_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
	"github.com/vramplan/vramplan/planner"
)

// FuzzAgent replays a random operation sequence from two leases against
// a model of what each lease holds: every table is as long as its tokens
// need, a lease never sees the other's sequences, promises never exceed
// the pool, and ending both leases leaves only the prefix cache live.
func FuzzAgent(f *testing.F) {
	for _, seed := range agentSeeds {
		f.Add(seed)
	}
	// The plan is read once: parsing and re-planning it was three
	// quarters of an execution (45 execs/s); Load copies what it keeps.
	p := readPlan(f, "tiny-swa")
	f.Fuzz(func(t *testing.T, prog []byte) { runProgram(t, p, prog) })
}

// agentSeeds are FuzzAgent's f.Add seeds.
var agentSeeds = [][]byte{
	{0, 5, 9, 1, 1, 3, 2, 0, 4, 1, 5, 6, 7, 0, 8},
	{0, 255, 0, 255, 0, 255, 2, 2, 2, 3, 3, 3, 6, 1, 0},
}

// BenchmarkAgentProgram is one FuzzAgent execution of a 15-byte program:
// what bounds the fuzzer's executions per second.
func BenchmarkAgentProgram(b *testing.B) {
	p := readPlan(b, "tiny-swa")
	for b.Loop() {
		runProgram(b, p, agentSeeds[0])
	}
}

// BenchmarkAgentCorpus is FuzzAgent's body over its seed corpus, the
// seeds and testdata/fuzz/FuzzAgent, once per iteration: profile it (with
// -gcflags=all=-d=libfuzzer, as the fuzzer builds) to see where an
// execution's time goes.
func BenchmarkAgentCorpus(b *testing.B) {
	p := readPlan(b, "tiny-swa")
	progs := append(slices.Clone(agentSeeds), readCorpus(b, "testdata/fuzz/FuzzAgent")...)
	for b.Loop() {
		for _, prog := range progs {
			runProgram(b, p, prog)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(progs)), "ns/exec")
}

// readCorpus reads the []byte inputs of a go test fuzz corpus directory.
func readCorpus(t testing.TB, dir string) [][]byte {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, lit, ok := strings.Cut(strings.TrimSpace(string(data)), "\n[]byte(")
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if !ok || err != nil {
			t.Fatalf("%s: not a go test fuzz v1 []byte input: %v", f, err)
		}
		out = append(out, []byte(s))
	}
	return out
}

// runProgram is one FuzzAgent execution.
func runProgram(t testing.TB, p planner.Plan, prog []byte) {
	a, _ := mustLoadPlan(t, p, agent.Config{Logf: func(string, ...any) {}})
	leases := []string{open(t, a, 1), open(t, a, 2)}
	held := []map[uint64]int{{}, {}} // handle -> tokens
	for i := 0; i+2 < len(prog); i += 3 {
		who, op, arg := int(prog[i]%2), prog[i+1]%7, int(prog[i+2])
		fuzzOp(t, a, agent.Conn(who+1), leases[who], held[who], op, arg)
		if s := a.Stats(); s.KV.Promised > int64(s.KV.Blocks) || s.SWA.Promised > int64(s.SWA.Blocks) {
			t.Fatalf("promised %d/%d global, %d/%d SWA blocks", s.KV.Promised, s.KV.Blocks, s.SWA.Promised, s.SWA.Blocks)
		}
	}
	for who := range leases {
		if err := a.CloseLease(agent.Conn(who+1), leases[who]); err != nil {
			t.Fatal(err)
		}
	}
	if s := a.Stats(); s.KV.Live != s.KV.Cached || s.SWA.Live != 0 || s.KV.Promised != 0 || len(s.SteadyState) != 0 {
		t.Fatalf("after both leases ended: %+v", s)
	}
}

func fuzzOp(t testing.TB, a *agent.Agent, conn agent.Conn, lease string, held map[uint64]int, op byte, arg int) {
	if op == 6 {
		fuzzDecode(t, a, conn, lease, held, arg)
		return
	}
	var any uint64
	for h := range held {
		any = h
		break
	}
	var o wire.Op
	switch op {
	case 0:
		o = wire.Op{Op: wire.OpAdmit, MaxTokens: 1 + arg*4, Tokens: arg * 2, Hashes: []uint64{uint64(arg % 3), 7}[:min(2, arg*2/16)]}
	case 1:
		o = wire.Op{Op: wire.OpAppend, Seq: any + 1, Tokens: arg % 40}
	case 2:
		o = wire.Op{Op: wire.OpFork, Seq: any + uint64(arg%2)}
	case 3:
		o = wire.Op{Op: wire.OpFree, Seq: any + uint64(arg%2)}
	case 4:
		o = wire.Op{Op: wire.OpPin, Hashes: []uint64{uint64(arg % 3), 7}}
	default:
		o = wire.Op{Op: wire.OpUnpin}
	}
	if o.Seq == 0 && op >= 1 && op <= 3 {
		o.Seq = 1
	}
	res, err := a.Step(conn, &wire.Step{Lease: lease, Ops: []wire.Op{o}}, nil)
	if err != nil {
		return // refused whole: bounds
	}
	r := res.Results[0]
	if r.Error != nil {
		if r.Error.Code == wire.CodeInternal {
			t.Fatalf("%+v: %v", o, r.Error)
		}
		return
	}
	switch o.Op {
	case wire.OpAdmit:
		held[r.Seq] = o.Tokens
	case wire.OpAppend:
		held[o.Seq] += o.Tokens
	case wire.OpFork:
		held[r.Seq] = held[o.Seq]
	case wire.OpFree:
		delete(held, o.Seq)
	}
	if h, ok := held[r.Seq]; ok && o.Op != wire.OpFree {
		tab, _ := a.Step(conn, &wire.Step{Lease: lease, Ops: []wire.Op{{Op: wire.OpTable, Seq: r.Seq}}}, nil)
		if got, want := len(tab.Results[0].Blocks), (h+15)/16; got != want {
			t.Fatalf("after %+v sequence %d of %d tokens has %d blocks, want %d", o, r.Seq, h, got, want)
		}
	}
}

// fuzzDecode sends a decode step (the binary call's agent side) for every
// sequence the lease holds, plus a handle it does not hold when arg is
// odd, with content hashes when arg is a multiple of 3.
func fuzzDecode(t testing.TB, a *agent.Agent, conn agent.Conn, lease string, held map[uint64]int, arg int) {
	d := wire.Decode{Seqs: slices.Sorted(maps.Keys(held))}
	if arg%2 == 1 {
		d.Seqs = append(d.Seqs, 1<<40)
	}
	if arg%3 == 0 {
		for range d.Seqs {
			d.Hashes = append(d.Hashes, uint64(arg))
		}
	}
	var res wire.DecodeResult
	if err := a.Decode(conn, lease, &d, &res); err != nil {
		return // refused whole: bounds
	}
	failed := map[int]bool{}
	for _, e := range res.Errors {
		if e.Error.Code == wire.CodeInternal {
			t.Fatalf("decode %v: %v", d.Seqs, e.Error)
		}
		failed[e.Index] = true
	}
	if len(res.Blocks) != len(d.Seqs) {
		t.Fatalf("decode of %d sequences answered %d blocks", len(d.Seqs), len(res.Blocks))
	}
	for i, h := range d.Seqs {
		if _, ok := held[h]; ok && !failed[i] {
			held[h]++
		}
	}
}
