package server_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// TestDecodeMatchesStep drives two agents on the same plan through the
// same admissions and decode steps, one with JSON steps and one with the
// binary decode call: every answer must be the same.
func TestDecodeMatchesStep(t *testing.T) {
	addrJ, _ := start(t, tiny, agent.Config{}, server.Config{})
	addrB, _ := start(t, tiny, agent.Config{}, server.Config{})
	cj, cb := openLease(t, addrJ), openLease(t, addrB)
	var d wire.Decode
	for i := range 8 {
		rj, errj := cj.Admit(64+40*i, 5*i)
		rb, errb := cb.Admit(64+40*i, 5*i)
		if errj != nil || errb != nil || rj.Seq != rb.Seq {
			t.Fatalf("admit %d: %v %v, %v %v", i, rj, errj, rb, errb)
		}
		d.Seqs = append(d.Seqs, rj.Seq)
	}
	d.Seqs = append(d.Seqs, 1<<40) // no such sequence: a per-sequence error
	var got wire.DecodeResult
	for step := range 400 { // past the shortest max_tokens: over_limit errors too
		d.Hashes = nil
		if step%7 == 0 {
			d.Hashes = make([]uint64, len(d.Seqs))
			d.Hashes[step%len(d.Seqs)] = uint64(step + 1)
		}
		want, err := cj.Step(&wire.Step{Decode: &d})
		if err != nil {
			t.Fatal(err)
		}
		if err := cb.Decode(&d, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*want.Decode, normalized(got)) {
			t.Fatalf("step %d: binary %+v, json %+v", step, got, *want.Decode)
		}
	}
	if len(got.Errors) < 2 {
		t.Errorf("the last step had %d errors; the test meant to cover over_limit and no_sequence", len(got.Errors))
	}
}

// normalized makes an empty error list nil, as JSON decoding leaves it.
func normalized(r wire.DecodeResult) wire.DecodeResult {
	if len(r.Errors) == 0 {
		r.Errors = nil
	}
	return r
}

// TestDecodeDoesNotAllocate checks that a steady stream of binary decode
// steps allocates nothing, client and server together (AllocsPerRun
// counts every goroutine's allocations).
func TestDecodeDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	addr, _ := start(t, "testdata/bench.plan.json", agent.Config{}, server.Config{})
	c := openLease(t, addr)
	d := admitted(t, c, 256)
	var res wire.DecodeResult
	step := func() {
		if err := c.Decode(d, &res); err != nil || len(res.Errors) > 0 {
			panic(fmt.Sprint(err, res.Errors))
		}
	}
	step()
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("a 256-sequence binary decode step allocates %v times; want 0", n)
	}
}

func admitted(t *testing.T, c *client.Client, n int) *wire.Decode {
	t.Helper()
	d := &wire.Decode{}
	for range n {
		r, err := c.Admit(c.Lease().Limits.MaxSeqLen, 0)
		if err != nil {
			t.Fatal(err)
		}
		d.Seqs = append(d.Seqs, r.Seq)
	}
	return d
}
