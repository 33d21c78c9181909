package agent

import (
	"fmt"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/planner"
)

// Report is the seed's --mem-report (A5.3): every named charge, planned
// and held, what the device says it uses, and how much of that the named
// charges account for (criterion 6 asks for at least 95 %).
type Report struct {
	Plan        string        `json:"plan"` // the model and limits
	Device      string        `json:"device"`
	Sidecar     bool          `json:"sidecar"`
	Charges     []Charge      `json:"charges"`
	Accounted   backend.Bytes `json:"accounted_bytes"`
	DeviceUsed  backend.Bytes `json:"device_used_bytes"`
	DeviceTotal backend.Bytes `json:"device_total_bytes"`
	Attribution float64       `json:"attribution"` // accounted / used
	Warnings    []string      `json:"warnings,omitempty"`
}

// Charge is one named line: what the plan charged and what is held now.
// The driver's charges are held as measured at load.
type Charge struct {
	Key     string        `json:"key"`
	Name    string        `json:"name"`
	Tier    planner.Tier  `json:"tier"`
	Planned backend.Bytes `json:"planned_bytes"`
	Held    backend.Bytes `json:"held_bytes"`
}

// Report returns the agent's memory report.
func (a *Agent) Report() Report {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := Report{Plan: fmt.Sprintf("%s, batch %d x %d tokens", a.plan.Input.Model.Name, a.geometry.maxBatch, a.geometry.maxSeqLen),
		Device: a.measured.Name, Sidecar: a.cfg.Sidecar, Warnings: a.Warnings()}
	for _, it := range a.plan.Items {
		r.Charges = append(r.Charges, Charge{Key: it.Key, Name: it.Name, Tier: it.Tier, Planned: backend.Bytes(it.Bytes), Held: a.held(it)})
	}
	for _, c := range r.Charges {
		r.Accounted += c.Held
	}
	if m, err := a.dev.Measure(); err == nil {
		r.DeviceUsed, r.DeviceTotal = m.Used, m.Total
	}
	if r.DeviceUsed > 0 {
		r.Attribution = float64(r.Accounted) / float64(r.DeviceUsed)
	}
	return r
}

// held is what the agent holds for it now: the measured figure for the
// driver's charges, the tenant's bytes otherwise.
func (a *Agent) held(it planner.Item) backend.Bytes {
	switch it.Key {
	case "cuda_context":
		return a.measured.Context
	case "library_reserve":
		return a.measured.LibraryReserve
	case "sidecar_context":
		if a.cfg.Sidecar {
			return a.measured.Context
		}
		return 0
	}
	for _, t := range a.tenants {
		if t.item.Key == it.Key {
			return t.held()
		}
	}
	return 0
}

// Text renders r as the table a person reads.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpuagent memory report: %s on %s (sidecar %v)\n\n", r.Plan, r.Device, r.Sidecar)
	fmt.Fprintf(&b, "  %-44s %-6s %12s %12s\n", "charge", "tier", "planned MiB", "held MiB")
	for _, c := range r.Charges {
		fmt.Fprintf(&b, "  %-44s %-6s %12.1f %12.1f\n", c.Name, c.Tier, mib(c.Planned), mib(c.Held))
	}
	fmt.Fprintf(&b, "\n  %-51s %12s %12.1f\n", "accounted (named charges held)", "", mib(r.Accounted))
	fmt.Fprintf(&b, "  %-51s %12s %12.1f  of %.1f\n", "device used", "", mib(r.DeviceUsed), mib(r.DeviceTotal))
	fmt.Fprintf(&b, "  %-51s %12s %11.1f %%\n", "attribution (accounted / used)", "", 100*r.Attribution)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\n  warning: %s\n", w)
	}
	return b.String()
}

func mib(b backend.Bytes) float64 { return float64(b) / float64(backend.MiB) }
