package enginelog

// This file bounds the release of a vLLM V1 log that states none, by the
// lines it prints, and plans the releases left. Since 0.17's Triton
// sampler and 0.21's CUDA-graph estimate inside the budget, which release
// a log ran decides its KV cache, so a check plans by the releases its
// lines allow and says when they plan the KV cache apart.
//
// The lines, each printed by every rank alike (a non-zero rank's copy is
// read too: a TP 4 log may print the estimate on rank 1 only). Source was
// read in the mystous/vllm_hybrid fork of upstream's first-parent history
// (docs/architecture.md, "Engine releases", E18) at ebb9cc5f2, vLLM PR
// #30515's merge (2026-03-07), and at 579602aa4, v0.20.0's cut:
//
//   - "Estimated CUDA graph memory: X GiB total" (GPUModelRunner.
//     profile_cudagraph_memory): from 0.18. Worker.determine_available_memory
//     profiles the graphs whenever the run is not eager, whether or not the
//     estimate is taken out of the budget; ebb9cc5f2 follows 0.17.0's tag
//     (097eb544e) and precedes the 0.18.1.dev0 log's bracket.
//   - "CUDA graph memory profiling is enabled (default since v0.21.0)"
//     (determine_available_memory): 0.21 and later, by its own words; the
//     corpus's 0.21.0, 0.23.1rc1, 0.25.1 and 0.29.0 runs print it.
//   - "In v0.19, CUDA graph memory profiling will be enabled by default"
//     (profiling off) and "This will become the default in v0.19" (on):
//     from ebb9cc5f2 to 579602aa4, before 0.21, whose PR #38284 (2026-03-26,
//     "slated for default enablement in v0.21") made it the default; the
//     corpus's 0.18.1.dev0, 0.18.1rc1, 0.19.0 and 0.19.1 runs print the first.
//   - the start's summary in the wording "Actual usage is X GiB for
//     consumed memory (weights + non-torch)": after 0.19.0, whose summary,
//     like 0.10.2's, reads "X GiB for weight"; the corpus's 0.26.0 to 0.31.0
//     runs print the newer wording (its commit was not found).
//   - none of these in a log whose gpu_model_runner.py captured CUDA graphs
//     ("Graph capturing finished") and printed "Available KV cache memory":
//     before 0.18 (every one of the corpus's 0.9–0.16 runs that captures
//     graphs prints no estimate). A line printed outweighs one missing from
//     a pasted excerpt: the bound holds only where no line bounds the
//     release from below. Model Runner V2 (model_runner.py) prints no
//     estimate on 0.27.1, so its captures bound nothing.

import (
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// releaseMarks are the lines of a vLLM log that bound its release.
type releaseMarks struct {
	estimate, default21, before21, consumed, capture, available bool
}

// The release lines' markers.
const (
	vllmEstimateLine  = "Estimated CUDA graph memory:"
	vllmDefault21Line = "CUDA graph memory profiling is enabled (default since v0.21.0)"
	vllmBefore21Line  = "In v0.19, CUDA graph memory profiling will be enabled by default"
	vllmBefore21On    = "This will become the default in v0.19"
	vllmConsumedLine  = "for consumed memory (weights + non-torch)"
	vllmV1Runner      = "gpu_model_runner.py"
)

// Release bounds the lines set; vllmV1From is where V1 starts (V0 is the
// range before, planner.VLLMV0Release).
const (
	vllmV1From       = "0.8"
	vllmEstimateFrom = "0.18"
	vllmNoEstimate   = "0.18"
	vllmConsumedFrom = "0.19.1"
	vllm21           = "0.21"
)

// vllmReleaseLine notes what line s says of the release; it reads nothing
// of s else, so it reports nothing.
func (r *reader) vllmReleaseLine(s string) {
	m := &r.release
	m.estimate = m.estimate || strings.Contains(s, vllmEstimateLine)
	m.default21 = m.default21 || strings.Contains(s, vllmDefault21Line)
	m.before21 = m.before21 || strings.Contains(s, vllmBefore21Line) || strings.Contains(s, vllmBefore21On)
	m.consumed = m.consumed || strings.Contains(s, vllmConsumedLine)
	m.capture = m.capture || strings.Contains(s, "Graph capturing finished") && strings.Contains(s, vllmV1Runner)
	m.available = m.available || strings.Contains(s, "Available KV cache memory:")
}

// boundRelease writes the bound the release lines set into the settings,
// with the line that sets each end.
func (r *reader) boundRelease() {
	m, st := r.release, &r.settings
	var from, until, fromBy, untilBy string
	switch {
	case m.default21:
		from, fromBy = vllm21, "'"+vllmDefault21Line+"'"
	case m.consumed:
		from, fromBy = vllmConsumedFrom, "'"+vllmConsumedLine+"' (printed after 0.19.0)"
	case m.estimate:
		from, fromBy = vllmEstimateFrom, "'"+strings.TrimSuffix(vllmEstimateLine, ":")+"' (printed from 0.18)"
	}
	switch {
	case m.before21:
		until, untilBy = vllm21, "'"+vllmBefore21Line+"'"
	case from == "" && m.capture && m.available: // a line printed outweighs one missing from a pasted excerpt
		until, untilBy = vllmNoEstimate, "CUDA graphs captured and no '"+strings.TrimSuffix(vllmEstimateLine, ":")+"' (printed from 0.18)"
	}
	if from != "" && until != "" && version(from).Compare(version(until)) >= 0 {
		return // lines that contradict each other bound nothing
	}
	for _, by := range [...]string{fromBy, untilBy} {
		if by != "" {
			st.ReleaseBy = append(st.ReleaseBy, by)
		}
	}
	if from != "" || until != "" {
		st.ReleaseFrom, st.ReleaseUntil, r.stated = from, until, true
	}
}

// version is s parsed; s is one of this file's constants or a bound they set.
func version(s string) planner.Version {
	v, _ := planner.ParseVersion(s)
	return v
}

// Releases returns the releases a vLLM V1 log that states none may be of,
// within the bound its lines set (Settings.ReleaseFrom, ReleaseUntil): one
// in each range of the profile's rules the bound overlaps, newest first,
// "" for the newest range (the profile's default). It is nil for a log
// that states its release, a V0 log (one range's rules) and other engines.
func (l *Log) Releases() []string {
	p := l.Engine.Profile()
	if l.Engine != planner.EngineVLLM || l.Version != "" || l.V0() || p == nil {
		return nil
	}
	from, until := version(vllmV1From), planner.Version{}
	if st := l.Settings; st != nil {
		if v, err := planner.ParseVersion(st.ReleaseFrom); err == nil && v.Compare(from) > 0 {
			from = v
		}
		if v, err := planner.ParseVersion(st.ReleaseUntil); err == nil {
			until = v
		}
	}
	var out []string
	for i := len(p.Versions) - 1; i >= 0; i-- {
		r := p.Versions[i]
		if !r.Until.IsZero() && r.Until.Compare(from) <= 0 || !until.IsZero() && r.From.Compare(until) >= 0 {
			continue
		}
		switch {
		case i == len(p.Versions)-1:
			out = append(out, "")
		case r.From.Compare(from) < 0:
			out = append(out, from.String())
		default:
			out = append(out, r.From.String())
		}
	}
	return out
}

// KVAt is the KV cache rank 0's plan holds at one release.
type KVAt struct {
	// Release is the release planned, "" for the profile's newest rules.
	Release string        `json:"release"`
	KV      planner.Bytes `json:"kv_bytes"`
}

// ReleaseKV plans in at each of l.Releases and returns the least and the
// most KV cache rank 0's plans hold, in that order; nil when l may be of
// one range's rules only, or a plan is refused.
func ReleaseKV(l *Log, in planner.Input) []KVAt {
	rs := l.Releases()
	if len(rs) < 2 {
		return nil
	}
	var lo, hi KVAt
	for i, v := range rs {
		in.Serving.Version = v
		p, err := planner.PlanMemory(in)
		if _, bad := err.(*planner.InputError); bad {
			return nil
		}
		k := KVAt{Release: v, KV: Planned(RankZero(&p), "kv")}
		if z := RankZero(&p); z.Engine != nil && z.Engine.Pool != nil {
			k.KV = z.Engine.Pool.PoolBytes
		}
		if i == 0 || k.KV < lo.KV {
			lo = k
		}
		if i == 0 || k.KV > hi.KV {
			hi = k
		}
	}
	return []KVAt{lo, hi}
}
