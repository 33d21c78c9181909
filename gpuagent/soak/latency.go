package soak

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// Latency is the distribution of one batched decode step's round trip.
type Latency struct {
	Form               Form
	Batch, Steps       int
	P50, P90, P99, Max time.Duration
}

func (l Latency) String() string {
	return fmt.Sprintf("decode step of %d sequences (%s), %d steps: p50 %v, p90 %v, p99 %v, max %v",
		l.Batch, l.Form, l.Steps, l.P50, l.P90, l.P99, l.Max)
}

// A Form is how a measured decode step travels.
type Form int

// Forms of a decode step.
const (
	Binary Form = iota // wire.CallDecode through client.Decode, reused buffers
	JSON               // a wire.Step with Decode through client.Step
)

func (f Form) String() string {
	if f == JSON {
		return "json"
	}
	return "binary"
}

// MeasureStep times steps decode steps of batch sequences each in form f,
// one client, each step a round trip to the agent at addr. Sequences are
// admitted at the plan's max_seq_len and re-admitted when full; only the
// decode steps are timed.
func MeasureStep(ctx context.Context, cfg Config, f Form, batch, steps int) (Latency, error) {
	c, err := cfg.dial(ctx)
	if err != nil {
		return Latency{}, err
	}
	defer c.Close()
	l, err := c.Open(0, "latency")
	if err != nil {
		return Latency{}, err
	}
	room := l.Limits.MaxSeqLen
	step := stepper(c, f)
	times := make([]time.Duration, 0, steps)
	for len(times) < steps {
		d, err := admitBatch(c, batch, room)
		if err != nil {
			return Latency{}, err
		}
		for i := 0; i < room && len(times) < steps; i++ {
			t0 := time.Now()
			err := step(d)
			times = append(times, time.Since(t0))
			if err != nil {
				return Latency{}, err
			}
		}
		if err := c.CloseLease(); err != nil {
			return Latency{}, err
		}
		if _, err := c.Open(0, "latency"); err != nil {
			return Latency{}, err
		}
	}
	slices.Sort(times)
	q := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	return Latency{Form: f, Batch: batch, Steps: steps, P50: q(0.50), P90: q(0.90), P99: q(0.99), Max: times[len(times)-1]}, nil
}

func admitBatch(c *client.Client, batch, maxTokens int) (*wire.Decode, error) {
	d := &wire.Decode{}
	for len(d.Seqs) < batch {
		r, err := c.Admit(maxTokens, 0)
		if err != nil {
			return nil, fmt.Errorf("admitting sequence %d of %d: %w", len(d.Seqs)+1, batch, err)
		}
		d.Seqs = append(d.Seqs, r.Seq)
	}
	return d, nil
}

// stepper returns a function that sends one decode step in form f and
// reports the first failure, the step's or a sequence's.
func stepper(c *client.Client, f Form) func(d *wire.Decode) error {
	if f == JSON {
		return func(d *wire.Decode) error {
			res, err := c.Step(&wire.Step{Decode: d})
			if err == nil && len(res.Decode.Errors) > 0 {
				err = res.Decode.Errors[0].Error
			}
			return err
		}
	}
	var res wire.DecodeResult
	return func(d *wire.Decode) error {
		err := c.Decode(d, &res)
		if err == nil && len(res.Errors) > 0 {
			err = res.Errors[0].Error
		}
		if err == nil && len(res.Blocks) != len(d.Seqs) {
			err = fmt.Errorf("%d blocks for %d sequences", len(res.Blocks), len(d.Seqs))
		}
		return err
	}
}
