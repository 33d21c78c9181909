package agent_test

import (
	"testing"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// BenchmarkDecodeStep32 is the agent's share of a decode step of 32
// sequences: no transport, no JSON.
func BenchmarkDecodeStep32(b *testing.B) {
	a, _ := mustLoad(b, "tiny", agent.Config{})
	l := open(b, a, 1)
	var d wire.Decode
	for range 32 {
		r := step(b, a, 1, l, wire.Op{Op: wire.OpAdmit, MaxTokens: 1024})[0]
		d.Seqs = append(d.Seqs, r.Seq)
	}
	req := &wire.Step{Lease: l, Decode: &d}
	var res wire.StepResult
	for i := 0; b.Loop(); i++ {
		if i%1024 == 1023 { // the sequences are full: start them again
			a.CloseLease(1, l)
			l = open(b, a, 1)
			for j := range d.Seqs {
				d.Seqs[j] = step(b, a, 1, l, wire.Op{Op: wire.OpAdmit, MaxTokens: 1024})[0].Seq
			}
			req.Lease = l
		}
		if _, err := a.Step(1, req, &res); err != nil {
			b.Fatal(err)
		}
	}
}
