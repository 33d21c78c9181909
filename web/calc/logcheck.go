package calc

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
)

// This file says what in an engine's start-up log contradicts the model,
// the GPU or the engine it is checked against, from the facts the log
// reader returns: its weights against the model's, its charges against
// the GPU's memory, its engine against the one selected. A check with a
// contradiction compares two different setups, so the page and `vramplan
// check` say so before the rows, and no observation is built from it.

// Thresholds of a contradiction: the weights may differ by a tenth (and by
// 512 MiB) before the log is of another model, and a vLLM log's figures
// may make a GPU a tenth larger or smaller than the one selected.
const (
	weightsSlack = 512 * planner.MiB
	slackShare   = 10 // percent
)

// LogConflicts returns what log l contradicts in the setup it was checked
// against: p is the plan of what the log states for the selected model and
// GPU (l.Input), engine the engine selected ("" or vramplan's own for
// none). Each is a sentence; none means the log and the selection agree as
// far as the log says.
func LogConflicts(l *enginelog.Log, p *planner.Plan, engine planner.EngineName) []string {
	var out []string
	if engine != "" && engine != planner.EngineSeed && engine != l.Engine {
		out = append(out, "The log is "+string(l.Engine)+"'s, and the engine selected is "+string(engine)+
			": pick "+string(l.Engine)+", or paste "+string(engine)+"'s log.")
	}
	if s := modelConflict(l, p); s != "" {
		out = append(out, s)
	}
	if s := gpuConflict(l, &p.Input.Calibration); s != "" {
		out = append(out, s)
	}
	return out
}

func figure(l *enginelog.Log, key string) planner.Bytes {
	for _, f := range l.Figures {
		if f.Key == key {
			return f.Bytes
		}
	}
	return 0
}

// modelConflict compares the weights the log loaded with the model's.
func modelConflict(l *enginelog.Log, p *planner.Plan) string {
	logged, planned := figure(l, "weights"), enginelog.Planned(p, "weights")
	d := planned - logged
	if logged <= 0 || !far(d, logged, weightsSlack) {
		return ""
	}
	m := &p.Input.Model
	s := "The log's model weights are " + sizeOf(logged) + ", and " + cmp.Or(m.Name, m.ID) + "'s are " + sizeOf(planned) +
		": the log is of another model."
	if f := loadedFile(l); f != "" {
		return s + " It loaded " + f + "; pick that model."
	}
	return s + " Pick the model it loaded."
}

// gpuConflict compares the log's charges with the selected GPU's memory.
func gpuConflict(l *enginelog.Log, c *planner.Calibration) string {
	var sum planner.Bytes
	for _, f := range l.Figures {
		sum += f.Bytes
	}
	gpu := cmp.Or(c.GPU, c.ID)
	if dev := c.DeviceTotal; dev > 0 && sum > dev {
		return "The log's charges add up to " + sizeOf(sum) + ", more than the " + sizeOf(dev) + " of the " + gpu +
			" selected: the log is of another GPU."
	}
	u := 0.0
	if l.Pool != nil {
		u = l.Pool.Utilization
	}
	keys := []string{"weights", "activation_peak", "non_torch", "kv"}
	for _, k := range keys {
		if figure(l, k) == 0 {
			return ""
		}
	}
	if l.Engine != planner.EngineVLLM || !(u > 0 && u <= 1) || c.DeviceTotal <= 0 {
		return ""
	}
	implied := planner.Bytes(float64(sum) / u)
	if !far(implied-c.DeviceTotal, c.DeviceTotal, 0) {
		return ""
	}
	return "At gpu_memory_utilization " + strconv.FormatFloat(u, 'f', -1, 64) + " the log's charges make a GPU of about " +
		sizeOf(implied) + ", and the " + gpu + " selected has " + sizeOf(c.DeviceTotal) + ": the log is of another GPU."
}

// far reports whether d is more than a tenth of of, and more than slack.
func far(d, of, slack planner.Bytes) bool {
	if d < 0 {
		d = -d
	}
	return d > slack && d*100 > of*slackShare
}

// loadedFile is the file name of the model a llama.cpp log loaded.
func loadedFile(l *enginelog.Log) string {
	if l.LlamaCpp == nil || l.LlamaCpp.Model == "" {
		return ""
	}
	f := l.LlamaCpp.Model
	return f[strings.LastIndexAny(f, `/\`)+1:]
}
