// Package logcheck says what in an engine's start-up log contradicts the
// model, the GPU or the engine it is checked against, from the facts the
// log reader returns and the check's rows: its weights and an exact KV
// cache against the model's, its charges against the GPU's memory, its
// engine against the one selected. A check with a contradiction compares two different
// setups, so the page and `vramplan check` say so before the rows, and no
// observation is built from it.
//
// It is its own package, outside the planner's WebAssembly (which is at
// its size budget): the page asks the model-file reader's module, which
// also builds the observations, and the CLI calls it natively.
package logcheck

import (
	"cmp"
	"slices"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/enginelog"
	"github.com/vramplan/vramplan/web/calc"
)

// size writes bytes as the calculator does: "9,767 MiB", "34,646 MiB (33.8 GiB)".
func size(b planner.Bytes) string { return calc.Size(b.MiB()) }

// Thresholds of a contradiction: the weights may differ by a tenth (and by
// 512 MiB) before the log is of another model, and a vLLM log's figures
// may make a GPU a tenth larger or smaller than the one selected.
const (
	weightsSlack = 512 * planner.MiB
	slackShare   = 10 // percent
)

// Conflicts returns what log l contradicts in the setup it was checked
// against: rows are the check's (enginelog.Compare of the plan of what the
// log states for the selected model m on calibration c, l.Input), nil
// when there is none; engine is the engine selected ("" or vramplan's own
// for none). Each is a sentence; none means the log and the selection
// agree as far as the log says.
func Conflicts(l *enginelog.Log, rows []enginelog.Row, m *planner.Model, c *planner.Calibration, engine planner.EngineName) []string {
	var out []string
	if engine != "" && engine != planner.EngineSeed && engine != l.Engine {
		out = append(out, printf.Sprintf("The log is %s's, and the engine selected is %s: pick %[1]s, or paste %[2]s's log.", l.Engine, engine))
	}
	if s := modelConflict(l, rows, m); s != "" {
		out = append(out, s)
	}
	if s := gpuConflict(l, c); s != "" {
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

// modelConflict compares the weights the log loaded with the model's, as
// the check planned them, and then a KV cache the engine's profile
// computes to the byte (llama.cpp's, enginelog.ExactKeys): two models of
// about the same weights (Llama 3.1 8B and Qwen3 8B) differ in their
// layers and KV heads, and so in the KV cache of the log's own settings.
func modelConflict(l *enginelog.Log, rows []enginelog.Row, m *planner.Model) string {
	next := "Pick the model it loaded."
	if f := loadedFile(l); f != "" {
		next = "It loaded " + f + "; pick that model."
	}
	name := cmp.Or(m.Name, m.ID)
	if r := rowOf(rows, "weights"); r.Log > 0 && far(r.Plan-r.Log, r.Log, weightsSlack) {
		return printf.Sprintf("The log's model weights are %s, and %s's are %s: the log is of another model. %s",
			size(r.Log), name, size(r.Plan), next)
	}
	r := rowOf(rows, "kv")
	if !slices.Contains(enginelog.ExactKeys(l.Engine), "kv") || r.Log <= 0 || r.Within || !far(r.Plan-r.Log, r.Log, 0) {
		return ""
	}
	return printf.Sprintf("The log's KV cache is %s, and %s's at the log's settings is %s: the log is of another model. %s",
		size(r.Log), name, size(r.Plan), next)
}

// rowOf is the row of rows whose key is key, or the zero Row.
func rowOf(rows []enginelog.Row, key string) enginelog.Row {
	for _, r := range rows {
		if r.Key == key {
			return r
		}
	}
	return enginelog.Row{}
}

// gpuConflict compares the log's charges with the selected GPU's memory.
func gpuConflict(l *enginelog.Log, c *planner.Calibration) string {
	var sum planner.Bytes
	for _, f := range l.Figures {
		if !enginelog.Summed(f.Key) {
			sum += f.Bytes
		}
	}
	gpu := cmp.Or(c.GPU, c.ID)
	if ll := l.LlamaCpp; ll != nil && ll.GPUTotal > 0 && c.DeviceTotal > 0 && far(ll.GPUTotal-c.DeviceTotal, c.DeviceTotal, 0) {
		return printf.Sprintf("The log ran on the %s, with %s, and the %s selected has %s: the log is of another GPU.",
			ll.GPU, size(ll.GPUTotal), gpu, size(c.DeviceTotal))
	}
	if dev := c.DeviceTotal; dev > 0 && sum > dev {
		return printf.Sprintf("The log's charges add up to %s, more than the %s of the %s selected: the log is of another GPU.",
			size(sum), size(dev), gpu)
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
	return printf.Sprintf("At gpu_memory_utilization %.2f the log's charges make a GPU of about %s, and the %s selected has %s: the log is of another GPU.",
		u, size(implied), gpu, size(c.DeviceTotal))
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
