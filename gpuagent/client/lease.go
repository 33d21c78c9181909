package client

import (
	"time"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// Open opens the Client's lease with the given TTL (0: the agent's
// default) and renews it in the background every third of its TTL until
// the Client is closed. Every call through the lease renews it as well.
func (c *Client) Open(ttl time.Duration, name string) (wire.Lease, error) {
	return c.OpenLease(wire.OpenLease{TTLms: ttl.Milliseconds(), Name: name})
}

// OpenLease is Open with every field of the request, such as a cache
// salt (wire.OpenLease.CacheSalt), which keeps this lease's prefix-cache
// hits apart from leases of another salt.
func (c *Client) OpenLease(req wire.OpenLease) (wire.Lease, error) {
	var l wire.Lease
	if err := c.call(wire.CallOpenLease, req, &l); err != nil {
		return l, err
	}
	c.mu.Lock()
	c.lease = l
	start := !c.renewing
	c.renewing = true
	c.mu.Unlock()
	if start {
		go c.keepAlive(time.Duration(l.TTLms) * time.Millisecond / 3)
	}
	return l, nil
}

func (c *Client) keepAlive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			if c.Renew() != nil {
				return
			}
		}
	}
}

// Renew extends the lease by its TTL.
func (c *Client) Renew() error {
	return c.call(wire.CallRenew, wire.LeaseRef{Lease: c.Lease().Lease}, nil)
}

// CloseLease ends the lease, releasing everything it holds; the
// connection stays open.
func (c *Client) CloseLease() error {
	return c.call(wire.CallCloseLease, wire.LeaseRef{Lease: c.Lease().Lease}, nil)
}

// Step sends one scheduler step; s.Lease is filled in.
func (c *Client) Step(s *wire.Step) (*wire.StepResult, error) {
	s.Lease = c.Lease().Lease
	var res wire.StepResult
	if err := c.call(wire.CallStep, s, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// one runs a single operation as a step and returns its result or error.
func (c *Client) one(op wire.Op) (wire.Result, error) {
	res, err := c.Step(&wire.Step{Ops: []wire.Op{op}})
	if err != nil {
		return wire.Result{}, err
	}
	if len(res.Results) != 1 {
		return wire.Result{}, wire.Errorf(wire.CodeInternal, "%d results for one operation", len(res.Results))
	}
	if e := res.Results[0].Error; e != nil {
		return res.Results[0], e
	}
	return res.Results[0], nil
}

// Admit admits a sequence of at most maxTokens, with a prompt of tokens
// whose completed blocks have the given content hashes. A refusal is a
// *wire.Error with code capacity and the block arithmetic.
func (c *Client) Admit(maxTokens, tokens int, hashes ...uint64) (wire.Result, error) {
	var r wire.Result
	err := c.call(wire.CallAdmit, wire.AdmitCall{Lease: c.Lease().Lease,
		Op: wire.Op{Op: wire.OpAdmit, MaxTokens: maxTokens, Tokens: tokens, Hashes: hashes}}, &r)
	return r, err
}

// Append grows sequence seq by tokens.
func (c *Client) Append(seq uint64, tokens int, hashes ...uint64) (wire.Result, error) {
	return c.one(wire.Op{Op: wire.OpAppend, Seq: seq, Tokens: tokens, Hashes: hashes})
}

// Fork makes a sequence sharing seq's blocks (maxTokens 0: the parent's).
func (c *Client) Fork(seq uint64, maxTokens int) (wire.Result, error) {
	return c.one(wire.Op{Op: wire.OpFork, Seq: seq, MaxTokens: maxTokens})
}

// Free ends sequence seq.
func (c *Client) Free(seq uint64) error {
	_, err := c.one(wire.Op{Op: wire.OpFree, Seq: seq})
	return err
}

// Pin pins cached prefix blocks for the lease and returns how many were
// cached and are now pinned.
func (c *Client) Pin(hashes ...uint64) (int, error) {
	r, err := c.one(wire.Op{Op: wire.OpPin, Hashes: hashes})
	return r.Pinned, err
}

// Unpin drops the lease's pins.
func (c *Client) Unpin() error {
	_, err := c.one(wire.Op{Op: wire.OpUnpin})
	return err
}

// Report fetches the agent's memory report into v (an agent.Report, or
// any type with its JSON fields).
func (c *Client) Report(v any) error { return c.call(wire.CallReport, nil, v) }

// Stats fetches the agent's statistics into v (an agent.Stats).
func (c *Client) Stats(v any) error { return c.call(wire.CallStats, nil, v) }
