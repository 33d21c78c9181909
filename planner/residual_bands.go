package planner

// This file is the bands of engine releases whose real start-ups are
// counted together, for the range a plan quotes (residuals.go):
// releases between which the engine sized memory the same way as far as
// the corpus of real start-ups can tell (vLLM's V0 engine to 0.7, V1 from
// 0.8, the CUDA-graph estimate taken out first from 0.21), cut finer
// where the corpus has enough runs to tell the bands apart. The corpus
// (calibrations/corpus) and the planner both read a run's band here.

// ResidualBand is a range of releases of one engine.
type ResidualBand struct {
	Engine EngineName
	// Name is how the residual table names it: "vLLM 0.10–0.11 (V1)".
	Name string
	// Generation is the wider class the band falls back to when it holds
	// too few runs: "vLLM V1".
	Generation string
	// From and Until are major.minor releases, Until excluded (zero: every
	// later release); an era band (a release not known better than its
	// engine's era) has neither and is matched by its Era.
	From, Until Version
	Era         string
}

// ResidualBands lists every band, in the residual table's order.
var ResidualBands = []ResidualBand{
	{Engine: EngineVLLM, Name: "vLLM 0.2–0.3 (V0)", Generation: genV0, From: Version{n: [3]int32{0, 2}}, Until: Version{n: [3]int32{0, 4}}},
	{Engine: EngineVLLM, Name: "vLLM 0.4–0.5 (V0)", Generation: genV0, From: Version{n: [3]int32{0, 4}}, Until: Version{n: [3]int32{0, 6}}},
	{Engine: EngineVLLM, Name: "vLLM 0.6–0.7 (V0)", Generation: genV0, From: Version{n: [3]int32{0, 6}}, Until: Version{n: [3]int32{0, 8}}},
	{Engine: EngineVLLM, Name: "vLLM V0, release not known", Generation: genV0, Era: "unknown-v0"},
	{Engine: EngineVLLM, Name: "vLLM 0.8–0.9 (V1)", Generation: genV1, From: Version{n: [3]int32{0, 8}}, Until: Version{n: [3]int32{0, 10}}},
	{Engine: EngineVLLM, Name: "vLLM 0.10–0.11 (V1)", Generation: genV1, From: Version{n: [3]int32{0, 10}}, Until: Version{n: [3]int32{0, 12}}},
	{Engine: EngineVLLM, Name: "vLLM 0.12–0.20 (V1)", Generation: genV1, From: Version{n: [3]int32{0, 12}}, Until: Version{n: [3]int32{0, 21}}},
	{Engine: EngineVLLM, Name: "vLLM 0.21 and later (V1)", Generation: genV1, From: Version{n: [3]int32{0, 21}}},
	{Engine: EngineVLLM, Name: "vLLM V1, release not known", Generation: genV1, Era: "unknown-v1"},
	{Engine: EngineSGLang, Name: "SGLang 0.3", Generation: genSGLang, From: Version{n: [3]int32{0, 3}}, Until: Version{n: [3]int32{0, 4}}},
	{Engine: EngineSGLang, Name: "SGLang 0.4", Generation: genSGLang, From: Version{n: [3]int32{0, 4}}, Until: Version{n: [3]int32{0, 5}}},
	{Engine: EngineSGLang, Name: "SGLang 0.5", Generation: genSGLang, From: Version{n: [3]int32{0, 5}}},
	{Engine: EngineSGLang, Name: "SGLang main (a source build)", Generation: genSGLang, Era: "main"},
	{Engine: EngineSGLang, Name: "SGLang, release not known", Generation: genSGLang, Era: "unknown"},
}

// The generations the bands fall back to.
const (
	genV0     = "vLLM V0 (0.2–0.7)"
	genV1     = "vLLM V1 (0.8 and later)"
	genSGLang = "SGLang, every release"
)

// ReleaseBand returns the index in ResidualBands of the band of engine
// e that holds release v, and whether one does. An era band (a release
// not known better than its era) holds no release: the corpus files its
// runs there by their stated era.
func ReleaseBand(e EngineName, v Version) (int, bool) {
	for i := range ResidualBands {
		if b := &ResidualBands[i]; b.Engine == e && b.Era == "" && b.contains(v) {
			return i, true
		}
	}
	return -1, false
}

func (b *ResidualBand) contains(v Version) bool {
	return v.Compare(b.From) >= 0 && (b.Until.IsZero() || v.Compare(b.Until) < 0)
}
